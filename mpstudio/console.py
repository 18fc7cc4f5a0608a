"""Terminal output for the CLI: a progress bar per epoch and summary tables (rich)."""

from __future__ import annotations

import threading
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.table import Table

from mpstudio.engine.comparison.card_text import scale_range_text
from mpstudio.engine.datasets.report import DataProgress, DataReport
from mpstudio.engine.events import (
    AidAction,
    EpochMetrics,
    Event,
    GradientUnderflow,
    NumericsDiagnosis,
    OomRetry,
    RunFailed,
    RunFinished,
    RunStarted,
    RunSummary,
    RunWarning,
    StepMetrics,
)


def fmt(value: float | None, spec: str = ".4g", unit: str = "") -> str:
    return "n/a" if value is None else f"{value:{spec}}{unit}"


def fmt_pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def fmt_bytes(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:,.1f} MiB"


def peak_memory_text(s: RunSummary) -> str:
    """The run's own peak: on one device, or the largest of its replicas' devices and
    their sum; the reason where the device keeps no statistics."""
    if s.peak_memory_bytes is None:
        return s.memory_note
    if s.peak_memory_total_bytes and s.peak_memory_total_bytes != s.peak_memory_bytes:
        return (f"{fmt_bytes(s.peak_memory_bytes)} on the fullest device, "
                f"{fmt_bytes(s.peak_memory_total_bytes)} over all ({s.memory_note})")
    return fmt_bytes(s.peak_memory_bytes)


def scale_range(s: RunSummary) -> str:
    return scale_range_text(s.loss_scale_mode, s.loss_scale_min, s.loss_scale_max)


class ConsoleReporter:
    """Prints a run's progress; ``quiet`` (for --json) prints nothing and only collects."""

    def __init__(self, console: Console, quiet: bool = False, summaries: bool = True):
        self.console = console
        self.quiet = quiet
        self.summaries = summaries  # print each run's summary table (compare prints its own)
        self.bars = console.is_terminal  # a live bar makes no sense in a log file
        self._stop = threading.Event()
        self._progress: Progress | None = None
        self._task: Any = None
        self._started: RunStarted | None = None
        self._data_bar: Progress | None = None
        self._data_task: Any = None
        self._data_reported: set[str] = set()  # a comparison loads the data twice
        self._underflow = ""  # the latest gradient-underflow sample, for the live bar

    # Reporter protocol
    def should_stop(self) -> bool:
        return self._stop.is_set()

    def stop(self) -> None:
        self._stop.set()

    def emit(self, event: Event) -> None:
        if self.quiet:
            return
        handler = getattr(self, f"_on_{type(event).__name__}", None)
        if handler:
            handler(event)

    # Event handlers
    def _on_RunWarning(self, event: RunWarning) -> None:
        self.console.print(f"[yellow]warning:[/] {event.message}")

    def _on_DataProgress(self, event: DataProgress) -> None:
        finished = event.total is not None and event.done >= event.total
        if not self.bars:  # a log file gets a line when the work starts and when it ends
            if event.done == 0 or finished:
                size = f" ({_amount(event.total, event.unit)})" if event.total else ""
                state = "done" if finished else "..."
                self.console.print(f"{event.source}: {event.task}{size} {state}",
                                   markup=False, highlight=False)
            return
        if self._data_bar is None:
            self._data_bar = data_progress_bar(self.console, event.unit)
            self._data_task = self._data_bar.add_task(event.task, total=event.total)
            self._data_bar.start()
        self._data_bar.update(self._data_task, completed=event.done, total=event.total,
                              description=event.task)
        if finished:
            self._data_bar.stop()
            self._data_bar = None
            self.console.print(
                f"{event.source}: {event.task} ({_amount(event.total, event.unit)}) done",
                markup=False, highlight=False,
            )

    def close(self) -> None:
        """Take down a live bar left by work that ended early (an error, a stop)."""
        self._close_bar()
        if self._data_bar is not None:
            self._data_bar.stop()
            self._data_bar = None

    def _on_RunStarted(self, event: RunStarted) -> None:
        self._started = event
        spec = event.spec
        report = event.data_report
        if report is not None and report.origin not in self._data_reported:
            self._data_reported.add(report.origin)
            for line in report.lines():
                self.console.print(line, markup=False, highlight=False)
        self.console.rule(f"[bold]{event.label}[/] · {spec['template']} on "
                          f"{report.name if report else spec['dataset']}")
        self.console.print(f"data     {event.dataset}")
        self.console.print(
            f"model    {event.model.name}: {event.model.params:,} parameters, "
            f"output {event.model.output_dtype}"
        )
        self.console.print(
            f"device   {event.hardware['device']}, XLA {'on' if event.xla else 'off'}, "
            f"{spec['loop']} loop"
        )
        self.console.print(f"scaling  {event.loss_scaling}")
        if event.distribution:
            self.console.print(f"spread   {event.distribution}", markup=False, highlight=False)

    def _on_StepMetrics(self, event: StepMetrics) -> None:
        if not self.bars:
            return
        if self._progress is None:
            self._start_bar(event.epoch)
        assert self._started is not None and self._progress is not None
        in_epoch = event.step - (event.epoch - 1) * self._started.steps_per_epoch
        speed = "warm-up" if event.warmup else f"{event.examples_per_sec:,.0f} ex/s"
        scale = "" if event.loss_scale is None else f" scale {event.loss_scale:g}"
        self._progress.update(
            self._task, completed=in_epoch,
            status=f"loss {event.loss:.4f}{scale} {speed}{self._underflow}"
        )

    def _on_EpochMetrics(self, event: EpochMetrics) -> None:
        self._close_bar()
        val = ""
        if event.val_loss is not None:
            val = f"  val_loss {event.val_loss:.4f}  val_acc {fmt_pct(event.val_accuracy)}"
        self.console.print(
            f"epoch {event.epoch}/{self._epochs_total()}  loss {event.loss:.4f}  "
            f"acc {fmt_pct(event.accuracy)}{val}  {event.epoch_time:.2f} s"
        )

    def _on_AidAction(self, event: AidAction) -> None:
        self._close_bar()
        self.console.print(f"[cyan]{event.aid.replace('_', ' ')}:[/] {event.message}",
                           highlight=False)

    def _on_OomRetry(self, event: OomRetry) -> None:
        self._close_bar()
        self.console.print(f"[yellow]out of memory:[/] {event.message}", highlight=False)

    def _on_GradientUnderflow(self, event: GradientUnderflow) -> None:
        if self.bars:  # a line every N steps would break the live bar: it shows the latest
            self._underflow = (f" underflow {event.unscaled:.0%} unscaled / "
                               f"{event.scaled:.0%} scaled")
            return
        self.console.print(underflow_line(event), markup=False, highlight=False)

    def _on_NumericsDiagnosis(self, event: NumericsDiagnosis) -> None:
        self._close_bar()
        self.console.print(f"[magenta]diagnosis:[/] {event.message}", highlight=False)

    def _on_RunFinished(self, event: RunFinished) -> None:
        self._close_bar()
        if event.summary.status == "stopped":
            self.console.print("[yellow]stopped[/]: the summary covers the steps that ran")
        if self.summaries:
            self.console.print(summary_table(event.summary))

    def _on_RunFailed(self, event: RunFailed) -> None:
        self._close_bar()
        self.console.print(f"[red bold]run failed:[/] {event.reason}")
        if self.summaries and event.summary is not None and event.summary.steps_done:
            self.console.print(summary_table(event.summary))

    # Progress bar
    def _epochs_total(self) -> int:
        assert self._started is not None
        per_epoch = self._started.steps_per_epoch
        return -(-self._started.total_steps // per_epoch)

    def _start_bar(self, epoch: int) -> None:
        assert self._started is not None
        self._progress = Progress(
            TextColumn(f"epoch {epoch}/{self._epochs_total()}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TextColumn("elapsed"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,
        )
        total = min(self._started.steps_per_epoch,
                    self._started.total_steps - (epoch - 1) * self._started.steps_per_epoch)
        self._task = self._progress.add_task("train", total=total, status="")
        self._progress.start()

    def _close_bar(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def _amount(total: int | None, unit: str) -> str:
    if total is None:
        return "?"
    return f"{total / 1e6:,.1f} MB" if unit == "B" else f"{total:,}"


def data_progress_bar(console: Console, unit: str) -> Progress:
    """A live bar for a download (bytes, speed) or for decoding files (counts)."""
    if unit == "B":
        columns: tuple[Any, ...] = (DownloadColumn(), TransferSpeedColumn())
    else:
        columns = (MofNCompleteColumn(),)
    return Progress(
        TextColumn("{task.description}"), BarColumn(), *columns,
        TextColumn("eta"), TimeRemainingColumn(), console=console, transient=True,
    )


def data_report_table(report: DataReport) -> Table:
    """``mpstudio data show``: what a source holds, class by class."""
    table = Table(title=f"{report.name}", show_header=False, title_justify="left")
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    lo, hi = report.raw_range
    rows = [
        ("from", report.origin),
        ("examples", f"{report.train_samples:,} training"
         + (f", {report.test_samples:,} test" if report.test_samples else "")),
        ("input", f"{report.kind} {'x'.join(map(str, report.input_shape))}"),
        ("values", f"{lo:g}..{hi:g} ({report.raw_dtype}), {report.scaling}"),
        ("classes", f"{report.num_classes}: " + ", ".join(
            f"{name} {count:,}"
            for name, count in zip(report.class_names, report.class_counts, strict=True)
        )),
    ]
    for name, value in rows:
        table.add_row(name, value)
    for note in report.notes:
        table.add_row("note", note)
    return table


def underflow_line(event: GradientUnderflow) -> str:
    worst = max(event.layers, key=lambda layer: layer.unscaled, default=None)
    layer = f"; worst layer {worst.layer} {worst.unscaled:.1%}" if worst else ""
    return (f"underflow at step {event.step}: {event.unscaled:.1%} of the nonzero gradient "
            f"values would be 0 in float16 without loss scaling, {event.scaled:.1%} at scale "
            f"{event.scale:g}{layer} ({1000 * event.seconds:.1f} ms)")


def summary_table(s: RunSummary) -> Table:
    table = Table(title=f"{s.label}: {s.status}", show_header=False, title_justify="left")
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for name, value in summary_rows(s):
        table.add_row(name, value)
    return table


def summary_rows(s: RunSummary) -> list[tuple[str, str]]:
    return [
        ("steps / epochs", f"{s.steps_done} / {s.epochs_done}"),
        ("time to first step", fmt(s.time_to_first_step, ".2f", " s")),
        ("steady examples/s", fmt(s.steady_examples_per_sec, ",.0f") + (
            f" across {s.replicas} replicas ({fmt(s.examples_per_sec_per_replica, ',.0f')} "
            "per replica)" if s.replicas > 1 and s.steady_examples_per_sec else "")),
        ("steady step time", fmt(None if s.steady_step_time is None
                                 else 1000 * s.steady_step_time, ".2f", " ms")),
        ("mean epoch time", fmt(s.mean_epoch_time, ".2f", " s")),
        ("final loss / accuracy", f"{fmt(s.final_loss)} / {fmt_pct(s.final_accuracy)}"),
        ("val loss / accuracy", f"{fmt(s.final_val_loss)} / {fmt_pct(s.final_val_accuracy)}"),
        ("best val accuracy", fmt_pct(s.best_val_accuracy)),
        *([("test loss / accuracy", f"{fmt(s.test_loss)} / {fmt_pct(s.test_accuracy)}")]
          if s.test_accuracy is not None else []),
        ("loss scale", scale_range(s)),
        ("overflow (skipped) steps", str(s.overflow_steps)),
        ("peak device memory", peak_memory_text(s)),
        ("device", f"{s.device}, XLA {'on' if s.xla else 'off'}, {s.loop} loop"),
        *([("distribution", s.distribution)] if s.distribution else []),
        *([("training aids", s.aids)] if s.aids else []),
        *([("out of memory", f"{s.oom_retries} retr{'y' if s.oom_retries == 1 else 'ies'}; "
            f"batch {s.largest_batch_fit} is the largest that fit")]
          if s.oom_retries and s.largest_batch_fit else []),
        *([("gradient underflow", f"{s.underflow_unscaled:.1%} without loss scaling, "
            f"{(s.underflow_scaled or 0):.1%} with it (last sample)")]
          if s.underflow_unscaled is not None else []),
        *([("TensorBoard logs", s.tensorboard_dir)] if s.tensorboard_dir else []),
    ]
