"""The multi-worker cluster a process belongs to, read from ``TF_CONFIG``.

No TensorFlow here: the GUI and the CLI check the variable before anything
starts, so a typo in it is reported in words instead of a hang at start-up.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import Said, said

WORKER_JOBS = ("chief", "worker")
# gRPC's own proxy variables, in the order it reads them (lower case only).
GRPC_PROXY_VARIABLES = ("grpc_proxy", "https_proxy", "http_proxy")


class ClusterError(ValueError):
    """TF_CONFIG is missing or does not describe a cluster this process belongs to."""


@dataclass(frozen=True)
class Cluster:
    jobs: dict[str, tuple[str, ...]]  # job name -> addresses, in task order
    task_type: str
    task_index: int

    @property
    def workers(self) -> tuple[str, ...]:
        """Every process that trains (chief first), in TensorFlow's task order."""
        return tuple(a for job in WORKER_JOBS for a in self.jobs.get(job, ()))

    @property
    def address(self) -> str:
        return self.jobs[self.task_type][self.task_index]

    @property
    def is_chief(self) -> bool:
        """The process that writes the run record and the model: the chief task, or
        worker 0 when the cluster has no chief job (TensorFlow's own rule)."""
        if "chief" in self.jobs:
            return self.task_type == "chief"
        return self.task_type == "worker" and self.task_index == 0

    @property
    def task_name(self) -> str:
        return f"{self.task_type} {self.task_index} ({self.address})"

    def peer_of(self, task_type: str, index: int) -> str:
        addresses = self.jobs.get(task_type, ())
        where = f" ({addresses[index]})" if index < len(addresses) else ""
        return f"{task_type} {index}{where}"


def direct_to_peers(cluster: Cluster, environ: MutableMapping[str, str]) -> list[str]:
    """Keep the workers' gRPC channels off any HTTP proxy; returns the hosts added.

    gRPC sends every channel through ``http(s)_proxy`` when one is set, even to
    127.0.0.1, and a proxy cannot carry them: the workers then never meet and the
    start-up hangs without a word. The cluster's hosts go into ``no_grpc_proxy``
    (gRPC reads it instead of ``no_proxy``, so ``no_proxy``'s entries are kept).
    """
    if not any(environ.get(name) for name in GRPC_PROXY_VARIABLES):
        return []
    current = environ.get("no_grpc_proxy", environ.get("no_proxy", ""))
    entries = [e.strip() for e in current.split(",") if e.strip()]
    hosts = {address.rsplit(":", 1)[0].strip("[]") for job in cluster.jobs.values()
             for address in job}
    added = sorted(hosts - set(entries))
    environ["no_grpc_proxy"] = ",".join(entries + added)
    return added


def read_cluster(environ: Mapping[str, str]) -> Cluster:
    """The cluster TF_CONFIG describes, or ClusterError saying what is wrong with it."""
    text = environ.get("TF_CONFIG", "").strip()
    if not text:
        raise ClusterError(_(
            "TF_CONFIG is not set: a multi-worker run needs it on every host, naming the "
            "cluster's workers and this host's task (see the README's two-host example)"))
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ClusterError(_("TF_CONFIG is not valid JSON: {error}").format(
            error=exc)) from None
    if not isinstance(config, dict):
        raise ClusterError(_('TF_CONFIG must be a JSON object with "cluster" and "task"'))
    cluster, task = config.get("cluster"), config.get("task")
    if not isinstance(cluster, dict) or not isinstance(task, dict):
        raise ClusterError(_('TF_CONFIG needs a "cluster" object (job -> addresses) and a '
                             '"task" object ({example})').format(
                                 example='{"type": "worker", "index": 0}'))
    jobs: dict[str, tuple[str, ...]] = {}
    for job, addresses in cluster.items():
        if not isinstance(addresses, list) or not all(
            isinstance(a, str) and ":" in a for a in addresses
        ):
            raise ClusterError(_('TF_CONFIG cluster job {job!r} must list "host:port" '
                                 'addresses, got {addresses!r}').format(
                                     job=job, addresses=addresses))
        jobs[job] = tuple(addresses)
    if "chief" in jobs and len(jobs["chief"]) != 1:
        raise ClusterError(_("TF_CONFIG may name one chief only"))
    task_type, index = task.get("type"), task.get("index")
    if task_type not in WORKER_JOBS:
        raise ClusterError(_('TF_CONFIG task type must be "chief" or "worker" for '
                             'training, got {type!r}').format(type=task_type))
    if not isinstance(index, int) or isinstance(index, bool) or not (
        0 <= index < len(jobs.get(task_type, ()))
    ):
        count = len(jobs.get(task_type, ()))
        raise ClusterError(_("TF_CONFIG task index {index!r} is not one of the {count} "
                             "{type} addresses in the cluster").format(
                                 index=index, count=count, type=task_type))
    found = Cluster(jobs, task_type, index)
    if len(found.workers) < 2:
        raise ClusterError(_("TF_CONFIG names one worker only: a multi-worker run needs "
                             "two or more (use the default or mirrored strategy on one "
                             "host)"))
    return found


def cluster_problem(environ: Mapping[str, str]) -> str:
    """Why this process cannot join a multi-worker run, or "" when it can."""
    try:
        read_cluster(environ)
    except ClusterError as exc:
        return str(exc)
    return ""


_TASK = re.compile(r"/job:(chief|worker)/replica:\d+/task:(\d+)")
_LOST_SIGNS = ("unhealthy", "stopped sending heartbeats", "Connection reset", "Socket closed",
               "failed to connect", "Connection refused", "UNAVAILABLE", "DEADLINE_EXCEEDED")


def lost_peer_message(error: str, cluster: Cluster | None, step: int) -> Said | None:
    """A multi-worker failure in words (which worker, what to do; a ``Said``, kept by
    the history as its message), or None when the error is not about a lost worker."""
    if cluster is None or not any(sign in error for sign in _LOST_SIGNS):
        return None
    peers = {(job, int(i)) for job, i in _TASK.findall(error)}
    peers.discard((cluster.task_type, cluster.task_index))
    who = (", ".join(cluster.peer_of(job, i) for job, i in sorted(peers))
           or said(N_("another worker")))
    return said(N_("multi-worker training stopped at step {step}: {who} stopped answering "
                   "(it crashed, was killed or lost the network). Every worker must run to "
                   "the end; restart `mpstudio train --strategy multiworker` on every host."),
                step=step, who=who)
