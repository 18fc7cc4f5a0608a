"""Every GPU measurement the prediction is fitted to and checked against, as pairs: a
network on a GPU, its float32 (or TF32) side and its mixed side, each at its batch with
its measured examples/s.

- ``h200_reference_2048.jsonl`` and ``h200_2026-11-27.jsonl``: mpstudio's own templates
  on an NVIDIA H200 (Keras 3 on JAX/XLA), float16, bfloat16 and float8 against TF32.
- ``published_single_gpu.jsonl``: published single-GPU training throughput of standard
  networks (NVIDIA DeepLearningExamples, Lambda's benchmarks; every row cites its file,
  commit and table row: published_sources.md), in TensorFlow and PyTorch, on V100, A100,
  H100, Turing, Ampere and Ada cards. Only the networks ``networks.py`` builds are used.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEMPLATES = ("mlp", "mlp_bn", "cnn", "resnet", "transformer", "lstm")

# published name (and input, where one name has several) -> networks.py's name
NETWORKS = {
    "resnet50_v1.5": "resnet50_v1.5", "resnet50_v1": "resnet50_v1",
    "resnet152_v1": "resnet152_v1", "resnext101_32x4d": "resnext101_32x4d",
    "se_resnext101_32x4d": "se_resnext101_32x4d", "efficientnet_b0": "efficientnet_b0",
    "efficientnet_b4": "efficientnet_b4", "efficientnet_v2_s": "efficientnet_v2_s",
    ("bert_large_pretrain", "seq 128"): "bert_large_pretrain_128",
    ("bert_large_pretrain", "seq 512"): "bert_large_pretrain_512",
    "bert_large_squad": "bert_large_squad_384", "bert_base_squad": "bert_base_squad_384",
    "electra_base_squad": "electra_base_squad_384", "unet_medical": "unet_medical",
    "alexnet": "alexnet", "inception_v3": "inception_v3", "vgg16": "vgg16",
}
# Rows whose own figures contradict the rest of their table (documented in their notes):
# Lambda's A100 SXM4 vgg16 at float16 (70 images/s, a fifth of its float32), and its
# RTX 3090 resnet50 at float16 (slower than float32 on the card that is faster at it
# for every other network).
BROKEN = {("vgg16", "A100 40GB SXM4", "tensorflow"), ("resnet50_v1", "RTX 3090", "tensorflow")}
# Rows whose step waits on the input pipeline, not the GPU (their README says so:
# EfficientNet's AutoAugment is CPU-bound on a DGX-1): no step model can see that.
INPUT_BOUND = {("efficientnet_b0", "V100 16GB"), ("efficientnet_b0", "V100 32GB")}


@dataclass(frozen=True)
class Side:
    precision: str  # mpstudio's: "float32", "mixed_float16", "mixed_bfloat16", "float8"
    batch: int
    examples_per_s: float


@dataclass(frozen=True)
class MeasuredPair:
    network: str  # networks.py's name, or a template's
    gpu: str  # as the source names it; the device table resolves it
    framework: str  # "keras-jax" (the H200's), "tensorflow", "pytorch"
    base: Side
    mixed: Side
    tf32: bool  # whether the float32 side ran as TF32
    xla: bool  # whether the step was compiled by XLA
    source: str

    @property
    def speedup(self) -> float:
        return self.mixed.examples_per_s / self.base.examples_per_s

    @property
    def key(self) -> str:
        return (f"{self.network} {self.gpu} {self.base.batch}/{self.mixed.batch} "
                f"{self.mixed.precision}")


def h200_pairs() -> list[MeasuredPair]:
    """The H200's templates: every half and float8 side against TF32 at its batch."""
    steps: dict[tuple[str, str, int], float] = {}
    for name in ("h200_reference_2048.jsonl", "h200_2026-11-27.jsonl"):
        for line in (HERE / name).read_text().splitlines():
            row = json.loads(line)
            if row.get("template") and row.get("ms_per_step"):
                steps[(row["template"], row["precision"], row["batch"])] = row["ms_per_step"]
    pairs = []
    for (template, precision, batch), ms in sorted(steps.items()):
        base = steps.get((template, "float32", batch))
        if precision in ("float32", "float32_highest") or base is None:
            continue
        pairs.append(MeasuredPair(
            template, "NVIDIA H200", "keras-jax", Side("float32", batch, batch / base * 1e3),
            Side(precision, batch, batch / ms * 1e3), True, True,
            "h200_reference_2048.jsonl / h200_2026-11-27.jsonl"))
    return pairs


def _tf32(row: dict) -> bool:
    """Whether a float32 row on an Ampere-or-newer card ran as TF32: the table says so,
    or its framework turns TF32 on (TensorFlow from 2.4, PyTorch's cuDNN convolutions);
    TensorFlow 2.3 had none."""
    if row["precision"] == "tf32":
        return True
    version = str(row.get("framework_version") or "") + str(row.get("notes") or "")
    return not ("TF 2.3" in version or "tf 2.3" in version or "tensorflow 2.3" in version)


def published_pairs(frameworks: tuple[str, ...] = ("tensorflow",)) -> list[MeasuredPair]:
    rows = [json.loads(line) for line in
            (HERE / "published_single_gpu.jsonl").read_text().splitlines()]
    by_pair: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in rows:
        network = NETWORKS.get((row["network"], row["input"])) or NETWORKS.get(row["network"])
        if (row["framework"] not in frameworks or not row.get("throughput")
                or not row.get("batch") or not network
                or (network, row["gpu"], row["framework"]) in BROKEN
                or ((network, row["gpu"]) in INPUT_BOUND and row["framework"] == "tensorflow")):
            continue
        side = "base" if row["precision"] in ("fp32", "tf32") else "mixed"
        by_pair[row["pair_id"]][side] = dict(row, network=network)
    pairs = []
    for sides in by_pair.values():
        if len(sides) != 2:
            continue
        base, mixed = sides["base"], sides["mixed"]
        pairs.append(MeasuredPair(
            base["network"], base["gpu"], base["framework"],
            Side("float32", int(base["batch"]), float(base["throughput"])),
            Side("mixed_float16", int(mixed["batch"]), float(mixed["throughput"])),
            _tf32(base), base.get("xla") is True,
            f"{base['source']} @ {str(base.get('commit', ''))[:8]}"))
    return pairs
