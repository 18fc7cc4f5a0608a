"""The setup panel's words: the texts of its choices and the tips of its fields, marked
for Qt's translation (context "SetupPanel") and looked up where they are shown, so the
module that lays the panel out stays about the layout."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

# Shown translated (QCoreApplication.translate("SetupPanel", ...)); the keys stay English.
XLA_TEXT = {"auto": QT_TRANSLATE_NOOP("SetupPanel", "auto (on for GPUs)"),
            "on": QT_TRANSLATE_NOOP("SetupPanel", "on"),
            "off": QT_TRANSLATE_NOOP("SetupPanel", "off")}
LOOP_TEXT = {"fit": QT_TRANSLATE_NOOP("SetupPanel", "Keras fit()"),
             "custom": QT_TRANSLATE_NOOP("SetupPanel", "custom tf.function loop")}
BASELINE_TIP = QT_TRANSLATE_NOOP(
    "SetupPanel",
    "Runs float32 first, then the mixed run from the same initial weights and data "
    "order, so the charts and the comparison card compare like with like")
TRIALS_TIP = QT_TRANSLATE_NOOP(
    "SetupPanel",
    "Each side runs this many times, alternating (float32, mixed, float32, …); the "
    "card shows the median speed and its range")
BASELINE_MATH_TEXT = {
    "auto": QT_TRANSLATE_NOOP("SetupPanel", "TensorFlow default (TF32 on Ampere+)"),
    "float32": QT_TRANSLATE_NOOP("SetupPanel", "strict float32 (TF32 off)"),
    "tf32": "TF32",
}
BASELINE_MATH_TIP = QT_TRANSLATE_NOOP(
    "SetupPanel",
    "What the float32 side computes in. On Ampere and newer GPUs TensorFlow "
    "runs float32 matmuls and convolutions as TF32 by default, which shrinks "
    "the visible gain; strict float32 turns TF32 off for the baseline. Other "
    "devices compute float32 either way, and the card says which it was.")
PROFILE_TIP = QT_TRANSLATE_NOOP(
    "SetupPanel",
    "Trace a few steady steps of each side with TensorFlow's profiler: time per "
    "op type for float32 and mixed side by side, the casts mixed precision added "
    "and the share of a step spent waiting for input. The card then names the "
    "ops that made mixed precision slower.")
SIZING_TIP = QT_TRANSLATE_NOOP(
    "SetupPanel",
    "A speed verdict needs a few seconds of steady training on each side. Where the "
    "epochs set here would be too short to time, mpstudio trains more steps (by the "
    "step time it predicts for this device), and on a GPU the batch it predicts the GPU "
    "needs to show a gain. The card says what it changed. Untick to train exactly as "
    "set.")
LR_HELPER_TIP = QT_TRANSLATE_NOOP(
    "SetupPanel",
    "Mixed precision halves activation memory, so a larger batch often fits; the "
    "linear scaling rule (Goyal et al. 2017) keeps the per-example step size: scale "
    "the learning rate with the batch, and use a warmup for large factors")
MULTIWORKER_COMPARE_TIP = QT_TRANSLATE_NOOP(
    "SetupPanel",
    "a multi-worker comparison runs from the command line: mpstudio "
    "compare --strategy multiworker on every host")


def tr(text: str) -> str:
    """A SetupPanel string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("SetupPanel", text)
