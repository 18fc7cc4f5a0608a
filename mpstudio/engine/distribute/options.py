"""Which strategies this machine offers, with the replicas each would use or the
reason it cannot run here. From the hardware report, without TensorFlow: the GUI
fills its strategy choice from this and never blocks on detection."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mpstudio.engine.distribute.cluster import ClusterError, read_cluster
from mpstudio.engine.hardware.report import HardwareReport
from mpstudio.engine.i18n import N_, _, ngettext

TITLES = {  # marked with N_(): StrategyOption.title is the translation
    "default": N_("One device"),
    "mirrored": N_("Mirrored (local GPUs)"),
    "multiworker": N_("Multi-worker (TF_CONFIG cluster)"),
    "tpu": N_("TPU"),
}


@dataclass(frozen=True)
class StrategyOption:
    name: str  # a spec.STRATEGIES value
    title: str  # in the language in force
    replicas: int  # replicas it would use here (multiworker: at least, one per worker)
    devices: tuple[str, ...]  # where they sit, for the user
    reason: str = ""  # why it cannot run here; "" when it can

    @property
    def available(self) -> bool:
        return not self.reason

    def label(self) -> str:
        """What the strategy choice shows: title and replicas, or why it is disabled."""
        if self.reason:
            return _("{title} - unavailable").format(title=self.title)
        return ngettext("{title} - {replicas} replica", "{title} - {replicas} replicas",
                        self.replicas).format(title=self.title, replicas=self.replicas)


def usable_gpus(report: HardwareReport) -> tuple[str, ...]:
    return tuple(f"GPU:{g.tf_index}" for g in report.gpus if g.tf_index is not None)


def strategy_options(report: HardwareReport | None,
                     environ: Mapping[str, str]) -> list[StrategyOption]:
    """The four strategies, in spec order. ``report`` None: the hardware is not known
    yet, so only the default is offered."""
    titles = {name: _(title) for name, title in TITLES.items()}
    if report is None:
        wait = _("waiting for the hardware check")
        return [StrategyOption("default", titles["default"], 1, (_("this machine"),))] + [
            StrategyOption(name, titles[name], 0, (), wait)
            for name in ("mirrored", "multiworker", "tpu")
        ]
    gpus = usable_gpus(report)
    one_device = gpus[:1] or ("CPU",)
    options = [StrategyOption("default", titles["default"], 1, one_device)]

    if len(gpus) >= 2:
        options.append(StrategyOption("mirrored", titles["mirrored"], len(gpus), gpus))
    else:
        why = (_("one GPU only: mirrored needs two or more local GPUs (one GPU is one "
                 "replica, the same as the default)") if gpus else
               _("no GPU that TensorFlow can use: mirrored needs two or more local GPUs"))
        options.append(StrategyOption("mirrored", titles["mirrored"], len(gpus), gpus, why))

    try:
        cluster = read_cluster(environ)
    except ClusterError as exc:
        options.append(StrategyOption("multiworker", titles["multiworker"], 0, (), str(exc)))
    else:
        local = max(1, len(gpus))
        where = tuple(cluster.workers)
        options.append(StrategyOption("multiworker", titles["multiworker"],
                                      local * len(where), where))

    tpu = report.tpu
    if tpu.found:
        cores = tpu.cores or 0
        name = f"TPU {tpu.accelerator_type}" if tpu.accelerator_type else "TPU"
        options.append(StrategyOption("tpu", titles["tpu"], cores, tuple(
            _("{tpu} core {index}").format(tpu=name, index=i) for i in range(cores))))
    else:
        why = (_("no TPU found ({note})").format(note=tpu.note) if tpu.note
               else _("no TPU found"))
        options.append(StrategyOption("tpu", titles["tpu"], 0, (), why))
    return options
