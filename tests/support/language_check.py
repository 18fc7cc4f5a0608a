"""Finding English left in a translated text: what the zh_CN tests look for.

A word is a run of letters, digits and underscores with at least two Latin letters in
a row ("float32" is one word, "V100" and "6e-8" none); it is English unless it is one
of the names that stay in Latin letters (the glossary's API, dtype and product names).
Not read: a menu's "&" and what follows a tab (the shortcut), `code spans` (commands
and options are typed as they are, as are `mpstudio train`, `--epochs` and
`xla=auto` outside them), titles quoted in 《》, file paths ("/tmp/run/report.html",
"runs/report.html"), file extensions (".npz") and identifiers (a word with a digit or
an underscore: "dense_1024", "sm_89", a run's hash).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# ../shared/GLOSSARY_zh.md: API, dtype and product names stay in Latin letters.
LATIN_NAMES = frozenset({
    "mpstudio", "TensorFlow", "TensorBoard", "Keras", "TFLite", "ONNX", "SavedModel", "XLA",
    "TF32", "CUDA", "cuDNN", "NVML", "NVIDIA", "Tensor", "Core", "GPU", "GPUs", "TPU", "TPUs",
    "CPU", "CPUs", "Ampere", "RTX",
    "float16", "float32", "bfloat16", "mixed_float16", "mixed_bfloat16", "int8", "dtype",
    "softmax",
    "TOML", "JSON", "CSV", "HTML", "PNG", "SVG",
    "English", "Python", "PySide6", "Qt", "pyqtgraph", "NumPy", "Apache", "Debian", "Ubuntu",
    "Fedora", "macOS", "Windows", "Linux",
    # the programs a server is reached through: OpenSSH, Slurm's srun, kubectl exec
    "ssh", "srun", "kubectl", "exec", "Slurm", "Kubernetes",
    # products and APIs the texts name: TensorFlow Serving / Lite, Edge TPU, Keras callbacks
    "Serving", "Lite", "Edge", "TensorRT", "onnxruntime", "tf2onnx", "opset", "cuBLAS",
    "EarlyStopping", "ReduceLROnPlateau", "MirroredStrategy", "README", "oneDNN", "fit",
    "remapping",  # TensorFlow's graph pass of that name
    "Dense", "EinsumDense", "Transformer", "Engine", "Adam", "LossScaleOptimizer", "dropout",
    # units, the micro-benchmark's kernels, instruction sets, NVIDIA's architectures
    "KiB", "MiB", "GiB", "TFLOP", "matmul", "conv", "AMX", "AVX", "NaN", "inf", "Ctrl",
    "Kepler", "Maxwell", "Pascal", "Volta", "Turing", "Ada", "Lovelace", "Hopper",
    "Blackwell",
    # names of people, tests and datasets
    "McNemar", "Goyal", "et", "al", "UCI", "MNIST", "Fashion", "CIFAR",
})

_WORD = re.compile(r"[A-Za-z0-9_]*[A-Za-z]{2}[A-Za-z0-9_]*")
_IDENTIFIER = re.compile(r".*[_0-9]")  # dense_1024, sm_89, run2, a hash: names, not words
# mpstudio's commands, as typed ("mpstudio runs compare")
_COMMANDS = "compare|data|delete|doctor|export|hw|list|report|runs|show|tensorboard|train"
# code spans, titles quoted in 《》, paths (from / or ~, or with a folder and an
# extension), file extensions; what a user types: a command, an option, a setting
_SKIPPED = re.compile(r"`[^`]*`|《[^》]*》|(?<!\S)~?/\S*|\S+/\S+\.[A-Za-z0-9]+"
                      r"|\.[A-Za-z0-9]+\b|mpstudio(?: (?:" + _COMMANDS + r")\b)+"
                      r"|(?<!\S)--?[a-z][\w-]*|\b\w+=\w+\b")


def visible_text(text: str) -> str:
    """``text`` as shown: no mnemonic "&" ("&&" is a literal one), no shortcut part."""
    return text.split("\t", 1)[0].replace("&&", "\0").replace("&", "").replace("\0", "&")


def english_words(text: str, allowed: Iterable[str] = LATIN_NAMES) -> list[str]:
    """The words of ``text`` that are neither Chinese nor a name of ``allowed``."""
    allowed = set(allowed)
    shown = _SKIPPED.sub(" ", visible_text(text))
    return [word for word in _WORD.findall(shown)
            if word not in allowed and not _IDENTIFIER.match(word)]


def machine_names(report) -> set[str]:  # a HardwareReport
    """The words of this machine's own names (GPU and CPU models, TPU type, the CUDA
    kernels the build holds) and what the check quotes from elsewhere in its notes
    (NVML's own error message): what the hardware and its drivers call things."""
    words = " ".join([report.cpu.model, report.tpu.accelerator_type or "",
                      *(g.name for g in report.gpus), *report.build.compiled_capabilities,
                      *_quoted(getattr(report.nvml_note, "stored", None)),
                      *_quoted(getattr(report.tpu.note, "stored", None)),
                      *([] if hasattr(report.tpu.note, "stored") else [report.tpu.note])])
    return set(re.findall(r"\w+", words))


def _quoted(stored) -> list[str]:
    """The plain-text values of a stored message (what it quotes, not its words)."""
    if not isinstance(stored, dict):
        return []
    out = []
    for value in (stored.get("args") or {}).values():
        out += _quoted(value) if isinstance(value, dict) else [str(value)]
    return out


# Shown as they are, not words to translate: the data's names (datasets, model
# templates, optimizers) are keys the engine and config files use; "fit" and "tf" are
# the API names in the training loop's choices (Keras fit(), tf.function).
def setup_names() -> set[str]:
    """The Latin names and the setup panel's data names (what its texts may show)."""
    from mpstudio.engine.datasets.registry import dataset_names
    from mpstudio.engine.spec import OPTIMIZERS
    from mpstudio.engine.templates.registry import template_names

    return set(LATIN_NAMES) | set(dataset_names()) | set(template_names()) | set(OPTIMIZERS) | {
        "fit", "tf"}
