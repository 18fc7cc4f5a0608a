"""float16 on a CPU without TensorFlow's fused kernels.

TensorFlow's graph optimizer fuses MatMul + BiasAdd + activation into one oneDNN kernel
(its "remapping" pass). In float16 on a CPU that fused kernel is pathological: on an
AVX512-FP16 / AMX Xeon with TensorFlow 2.21, a Dense layer's step ran 60x slower fused
(34 ms) than unfused (0.6 ms), and the mlp template trained at 0.03x float32. The
unfused ops are what float16 on a CPU should cost, so a mixed_float16 run on a CPU
turns the pass off while it trains (process-wide, restored afterwards). float32 and
bfloat16 keep it: their fused kernels are the fast ones.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

REMAPPING = "remapping"
# what a run records (hardware["graph_rewrites"]) and the card says (card_text.py): its
# speed is not what a plain Keras script with the pass on would get
REMAPPING_OFF = "remapping off"
PLAIN_SCRIPT_SAME = "tf.config.optimizer.set_experimental_options({'remapping': False})"


def fusion_hurts(precision: str, device_kind: str) -> bool:
    return precision == "mixed_float16" and device_kind == "CPU"


@contextlib.contextmanager
def float16_fusion_off(precision: str, device_kind: str) -> Iterator[None]:
    """Around a run: its tf.functions are traced without the remapping pass when it
    trains float16 on a CPU."""
    if not fusion_hurts(precision, device_kind):
        yield
        return
    import tensorflow as tf

    before = tf.config.optimizer.get_experimental_options().get(REMAPPING)
    tf.config.optimizer.set_experimental_options({REMAPPING: False})
    try:
        yield
    finally:
        tf.config.optimizer.set_experimental_options(
            {REMAPPING: True if before is None else before})
