"""A MirroredStrategy that takes group keys no other strategy in this process uses.

Why: every ``tf.distribute.MirroredStrategy`` numbers its collective groups from the same
start. ``MirroredExtended._make_collective_ops_with_fallbacks`` (tensorflow/python/
distribute/mirrored_strategy.py) builds ``CollectiveKeys(group_key_start=1 +
self._collective_key_base)``, and ``_collective_key_base`` is a class attribute, 0
("Only set this in tests"). So the first group of every strategy is group key 1, while
the runtime keeps one table of groups per process, by key: a strategy over 3 devices made
after one over 2 joins "a group with size 3, but that group has size 2 (group_key=1)".
The failed collective aborts the process's collective executor ("Restart your program to
reset"), so every later mirrored run fails too, even over the first devices.

The fix is the one TensorFlow's own tests use (strategy_combinations.py raises the base
by 100000 before each MirroredStrategy): each strategy here gets its own base, hence its
own range of group keys. Nothing else changes: TensorFlow still picks the cross-device
ops (collective all-reduce over NCCL on physical GPUs, RING on CPUs or virtual GPUs), and
its XLA path (``_collective_ops``) takes the same fresh keys. The ranges start above 1 so
they also stay clear of a MultiWorkerMirroredStrategy's groups, numbered from 1.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import tensorflow as tf

KEY_RANGE = 100_000  # group keys one strategy may take; it takes one per device set
_next_range = itertools.count(1)  # next() is atomic in CPython: safe across threads


class OwnKeysMirroredStrategy(tf.distribute.MirroredStrategy):
    """``tf.distribute.MirroredStrategy`` over ``devices`` with group keys from its own
    range (``key_base + 1`` onwards), set before TensorFlow reads the base."""

    def __init__(self, devices: Sequence[str], key_base: int):
        # Read by MirroredExtended.__init__ from this (container) strategy.
        self._collective_key_base = key_base
        super().__init__(list(devices))


def mirrored_strategy(devices: Sequence[str]) -> tf.distribute.MirroredStrategy:
    """A new MirroredStrategy over ``devices`` (e.g. ``["/GPU:0", "/GPU:1"]``) whose
    collectives cannot meet those of any other strategy made in this process."""
    return OwnKeysMirroredStrategy(devices, KEY_RANGE * next(_next_range))
