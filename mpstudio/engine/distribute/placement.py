"""Where a run's replicas live: the ``tf.distribute`` strategy for a spec.

The default strategy is no strategy at all (the one-device path stays exactly as
before). Mirrored takes the named devices, or every local GPU, or every logical
CPU device when the CPU was split (``split_cpu``: mirrored without GPUs).
Multi-worker and TPU strategies can be created once per process (collectives and
the TPU system are set up at start-up), so every strategy made here is cached.

A multi-worker strategy waits inside TensorFlow, holding the interpreter, until
every worker has joined: a watchdog process bounds that wait (startup_watchdog).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import tensorflow as tf

from mpstudio.engine.distribute.cluster import Cluster, ClusterError, direct_to_peers, read_cluster
from mpstudio.engine.distribute.mirrored_strategy import mirrored_strategy
from mpstudio.engine.distribute.startup_watchdog import bounded_wait
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import Said, items, said
from mpstudio.engine.spec import RunSpec

_made: dict[tuple, tf.distribute.Strategy] = {}
_cluster_of: dict[tuple, Cluster] = {}


class StrategyError(RuntimeError):
    """The spec's strategy cannot run here; the message says why and what to do."""


@dataclass(frozen=True)
class Placement:
    name: str  # default | mirrored | multiworker | tpu
    strategy: tf.distribute.Strategy | None  # None: the default, one device
    replicas: int
    devices: tuple[str, ...]
    cluster: Cluster | None = None

    @property
    def is_chief(self) -> bool:
        """Whether this process records the run and keeps the model."""
        return self.cluster is None or self.cluster.is_chief

    def describe(self, capital: bool = False) -> Said:
        """Where the replicas sit, in the language in force (a run's summary keeps it as
        its message); ``capital``: it starts a sentence."""
        if self.name == "default":
            return said(N_("One device") if capital else N_("one device"))
        where = items(self.devices)
        one = self.replicas == 1
        if self.cluster is not None:
            role: str | Said = f"{self.cluster.task_type} {self.cluster.task_index}"
            if self.cluster.is_chief:
                role = said(N_("{role} (the chief)"), role=role)
            if capital:
                msgid = (N_("Multi-worker over {workers} workers ({where}), {replicas} replica "
                            "in all; this process is {role}") if one else
                         N_("Multi-worker over {workers} workers ({where}), {replicas} "
                            "replicas in all; this process is {role}"))
            else:
                msgid = (N_("multi-worker over {workers} workers ({where}), {replicas} replica "
                            "in all; this process is {role}") if one else
                         N_("multi-worker over {workers} workers ({where}), {replicas} "
                            "replicas in all; this process is {role}"))
            return said(msgid, workers=len(self.cluster.workers), where=where,
                        replicas=self.replicas, role=role)
        strategy: str | Said = "TPU"
        if self.name == "mirrored":
            strategy = said(N_("Mirrored") if capital else N_("mirrored"))
        return said(N_("{strategy} over {replicas} replica ({where})") if one else
                    N_("{strategy} over {replicas} replicas ({where})"),
                    strategy=strategy, replicas=self.replicas, where=where)


def split_cpu(count: int) -> None:
    """Split the CPU into ``count`` logical devices, before TensorFlow initializes
    (mirrored on a machine without GPUs, e.g. to try a multi-replica run)."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    try:
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(count)])
    except RuntimeError as exc:
        raise StrategyError(_("cannot split the CPU into {count} devices now: {error} (it "
                              "must happen before TensorFlow's first operation)").format(
                                  count=count, error=exc)) from None


def place(spec: RunSpec, environ: Mapping[str, str] | None = None) -> Placement:
    """The strategy ``spec.distribute`` asks for, or StrategyError."""
    name = spec.distribute.strategy
    if name == "default":
        return Placement("default", None, 1, ())
    if name == "mirrored":
        return _mirrored(spec.distribute.devices)
    if name == "multiworker":
        return _multiworker(os.environ if environ is None else environ,
                            spec.distribute.join_timeout)
    if name == "tpu":
        return _tpu(os.environ if environ is None else environ)
    raise StrategyError(_("unknown strategy {name!r}").format(name=name))


def _short(device: str) -> str:
    return device.rsplit("device:", 1)[-1]


def _mirrored(requested: list[str]) -> Placement:
    gpus = [_short(d.name) for d in tf.config.list_logical_devices("GPU")]
    cpus = [_short(d.name) for d in tf.config.list_logical_devices("CPU")]
    if requested:
        known = {d.upper(): d for d in gpus + cpus}
        missing = [d for d in requested if d.upper() not in known]
        if missing:
            raise StrategyError(_(
                "mirrored: no device {missing} here; this machine has {devices}").format(
                    missing=", ".join(missing), devices=", ".join(gpus + cpus)))
        devices = tuple(known[d.upper()] for d in requested)
    elif gpus:
        devices = tuple(gpus)
    elif len(cpus) > 1:
        devices = tuple(cpus)
    else:
        raise StrategyError(_(
            "mirrored needs GPUs, and TensorFlow sees none here: use the default strategy, "
            "or split the CPU to try it (`mpstudio train --cpu-devices 2 --strategy "
            "mirrored`)"))
    key = ("mirrored", devices)
    if key not in _made:
        # Its own group keys: one over other devices must not join its groups
        # (mirrored_strategy says why).
        _made[key] = mirrored_strategy([f"/{d}" for d in devices])
    return Placement("mirrored", _made[key], len(devices), devices)


def _multiworker(environ: Mapping[str, str], join_timeout: float) -> Placement:
    try:
        cluster = read_cluster(environ)
    except ClusterError as exc:
        raise StrategyError(str(exc)) from None
    key = ("multiworker", tuple(sorted(cluster.jobs.items())), cluster.task_type,
           cluster.task_index)
    if key not in _made:
        if any(k[0] == "multiworker" for k in _made):
            raise StrategyError(_("this process already joined another multi-worker "
                                  "cluster: start a new process for a new cluster"))
        others = [a for a in cluster.workers if a != cluster.address]
        message = "mpstudio: " + _(
            "{task} waited {seconds:g} s for the other workers ({others}) to join and gave "
            "up. Start `mpstudio train --strategy multiworker` with the same TF_CONFIG "
            "cluster on every host (each with its own task index), check the addresses and "
            "that the ports are open, or wait longer with `--join-timeout`.").format(
                task=cluster.task_name, seconds=join_timeout, others=", ".join(others))
        direct_to_peers(cluster, os.environ)  # gRPC reads the process's own variables
        with bounded_wait(join_timeout, message):
            _made[key] = tf.distribute.MultiWorkerMirroredStrategy()
        _cluster_of[key] = cluster
    strategy = _made[key]
    return Placement("multiworker", strategy, strategy.num_replicas_in_sync,
                     cluster.workers, cluster)


def _tpu(environ: Mapping[str, str]) -> Placement:
    key = ("tpu",)
    if key not in _made:
        name = environ.get("TPU_NAME") or "local"
        try:
            resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=name)
            tf.config.experimental_connect_to_cluster(resolver)
            tf.tpu.experimental.initialize_tpu_system(resolver)
            _made[key] = tf.distribute.TPUStrategy(resolver)
        except (ValueError, RuntimeError, tf.errors.OpError) as exc:
            raise StrategyError(_("no TPU to train on ({name}): {error}").format(
                name=name, error=exc)) from None
    strategy = _made[key]
    replicas = strategy.num_replicas_in_sync
    return Placement("tpu", strategy, replicas,
                     tuple(said(N_("{tpu} core {index}"), tpu="TPU", index=i)
                           for i in range(replicas)))  # kept as messages: the summary stores them
