"""Terminal output for the CLI (rich): progress bars, colours and summary tables around
the words mpstudio.engine.event_text gives each event."""

from __future__ import annotations

import threading
from typing import Any

from rich.cells import cell_len
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
from rich.text import Text

from mpstudio.engine.datasets.report import INPUT_KINDS, DataProgress, DataReport
from mpstudio.engine.event_text import (
    aid_line,
    data_progress_line,
    diagnosis_line,
    epoch_text,
    failed_line,
    loss_scale_line,
    retry_line,
    started_lines,
    summary_rows,
    topic_text,
    underflow_brief,
    underflow_line,
)
from mpstudio.engine.events import (
    AidAction,
    EpochMetrics,
    Event,
    GradientUnderflow,
    LossScaleChanged,
    NumericsDiagnosis,
    OomRetry,
    RunFailed,
    RunFinished,
    RunStarted,
    RunSummary,
    RunWarning,
    StepMetrics,
)
from mpstudio.engine.i18n import _
from mpstudio.engine.run_labels import shown_label, status_text


class ConsoleReporter:
    """Prints a run's progress; ``quiet`` (for --json) prints nothing and only collects."""

    def __init__(self, console: Console, quiet: bool = False, summaries: bool = True,
                 results: Console | None = None):
        self.console = console
        # Where the summary tables go: the results (stdout, so `> file` keeps them),
        # while progress and warnings stay on ``console`` (stderr).
        self.results = results or console
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
        self._retries = 0  # out-of-memory retries of the current run
        self._retrying = False  # the next RunStarted is a retry of the same run

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

    # Event handlers: the words come from event_text, the colours are this module's
    def _say(self, text: str, style: str = "", head: int | None = None) -> None:
        """Print engine text as it is (a bracket in a reason is not markup); ``style``
        colours its first ``head`` characters, or all of it."""
        if not style:
            self.console.print(text, markup=False)
            return
        line = Text(text)
        line.stylize(style, 0, head)
        self.console.print(line)

    def _tagged(self, text: str, style: str) -> None:
        """A line whose "name:" head is coloured: "retry 1: ...", "diagnosis: ..."
        (a Chinese head ends at its full-width colon)."""
        ends = [i for i in (text.find(":"), text.find("：")) if i >= 0]
        self._say(text, style, min(ends) + 1 if ends else None)

    def _on_RunWarning(self, event: RunWarning) -> None:
        self._tagged(_("warning: {message}").format(message=event.message), "yellow")

    def _on_DataProgress(self, event: DataProgress) -> None:
        finished = event.total is not None and event.done >= event.total
        if not self.bars:  # a log file gets a line when the work starts and when it ends
            if event.done == 0 or finished:
                self.console.print(data_progress_line(event), markup=False, highlight=False)
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
            self.console.print(data_progress_line(event), markup=False, highlight=False)

    def close(self) -> None:
        """Take down a live bar left by work that ended early (an error, a stop)."""
        self._close_bar()
        if self._data_bar is not None:
            self._data_bar.stop()
            self._data_bar = None

    def _on_RunStarted(self, event: RunStarted) -> None:
        self._started = event
        if not self._retrying:  # a retry is the same run again: its count goes on
            self._retries = 0
        self._retrying = False
        self._underflow = ""
        spec = event.spec
        report = event.data_report
        if report is not None and report.origin not in self._data_reported:
            self._data_reported.add(report.origin)
            for line in report.lines():
                self.console.print(line, markup=False, highlight=False)
        where = _("{template} on {dataset}").format(
            template=spec.get("template"), dataset=report.name if report else spec.get("dataset"))
        self.console.rule(Text.assemble((shown_label(event.label), "bold"), " · ", where))
        lines = [(topic_text(topic), text) for topic, text in started_lines(event)]
        width = max([8, *(cell_len(topic) for topic, _text in lines)])
        for topic, text in lines:  # the topics in a column, in terminal cells
            self._say(topic + " " * (width - cell_len(topic)) + " " + text)

    def _on_StepMetrics(self, event: StepMetrics) -> None:
        if not self.bars or self._started is None:  # (engine attach: before its run's start)
            return
        if self._progress is None:
            self._start_bar(event.epoch)
        assert self._started is not None and self._progress is not None
        in_epoch = event.step - (event.epoch - 1) * self._started.steps_per_epoch
        speed = _("warm-up") if event.warmup else _("{speed:,.0f} ex/s").format(
            speed=event.examples_per_sec)
        parts = [_("loss {loss:.4f}").format(loss=event.loss)]
        if event.loss_scale is not None:
            parts.append(_("scale {scale:g}").format(scale=event.loss_scale))
        self._progress.update(self._task, completed=in_epoch,
                              status=" ".join([*parts, speed]) + self._underflow)

    def _on_EpochMetrics(self, event: EpochMetrics) -> None:
        self._close_bar()
        epoch = _("epoch {epoch}/{epochs}").format(epoch=event.epoch,
                                                   epochs=self._epochs_total())
        self._say(f"{epoch}  {epoch_text(event)}")

    def _on_LossScaleChanged(self, event: LossScaleChanged) -> None:
        line = loss_scale_line(event)  # printed above a live bar, which stays
        if line:
            self._say(line)

    def _on_AidAction(self, event: AidAction) -> None:
        self._close_bar()
        self._tagged(aid_line(event), "cyan")

    def _on_OomRetry(self, event: OomRetry) -> None:
        self._close_bar()
        self._retries += 1
        self._retrying = True
        self._tagged(retry_line(self._retries, event), "yellow")

    def _on_GradientUnderflow(self, event: GradientUnderflow) -> None:
        if self.bars:  # a line every N steps would break the live bar: it shows the latest
            self._underflow = f" {underflow_brief(event)}"
            return
        self.console.print(underflow_line(event), markup=False, highlight=False)

    def _on_NumericsDiagnosis(self, event: NumericsDiagnosis) -> None:
        self._close_bar()
        self._tagged(diagnosis_line(event), "magenta")

    def _on_RunFinished(self, event: RunFinished) -> None:
        self._close_bar()
        if event.summary.status == "stopped":
            self._tagged(_("stopped: the summary covers the steps that ran"), "yellow")
        if self.summaries:
            self.results.print(summary_table(event.summary))

    def _on_RunFailed(self, event: RunFailed) -> None:
        self._close_bar()
        label = self._started.label if self._started is not None else ""
        self._tagged(_("run failed: {reason}").format(reason=failed_line(label, event)),
                     "red bold")
        if self.summaries and event.summary is not None and event.summary.steps_done:
            self.results.print(summary_table(event.summary))

    # Progress bar
    def _epochs_total(self) -> int:
        assert self._started is not None
        per_epoch = self._started.steps_per_epoch
        return -(-self._started.total_steps // per_epoch)

    def _start_bar(self, epoch: int) -> None:
        assert self._started is not None
        self._progress = Progress(
            TextColumn(_("epoch {epoch}/{epochs}").format(epoch=epoch,
                                                          epochs=self._epochs_total()),
                       markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TextColumn(_("elapsed"), markup=False),
            TimeElapsedColumn(),
            TextColumn(_("eta"), markup=False),
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


def data_progress_bar(console: Console, unit: str) -> Progress:
    """A live bar for a download (bytes, speed) or for decoding files (counts)."""
    if unit == "B":
        columns: tuple[Any, ...] = (DownloadColumn(), TransferSpeedColumn())
    else:
        columns = (MofNCompleteColumn(),)
    return Progress(
        TextColumn("{task.description}"), BarColumn(), *columns,
        TextColumn(_("eta"), markup=False), TimeRemainingColumn(), console=console,
        transient=True,
    )


def data_report_table(report: DataReport) -> Table:
    """``mpstudio data show``: what a source holds, class by class."""
    table = Table(title=f"{report.name}", show_header=False, title_justify="left")
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    lo, hi = report.raw_range
    examples = (_("{train:,} training, {test:,} test") if report.test_samples
                else _("{train:,} training")).format(train=report.train_samples,
                                                     test=report.test_samples)
    rows = [
        (_("from"), report.origin),
        (_("examples"), examples),
        (_("input"), _("{kind} {shape}").format(
            kind=_(INPUT_KINDS.get(report.kind, report.kind)),
            shape="x".join(map(str, report.input_shape)))),
        (_("values"), _("{low:g}..{high:g} ({dtype}), {scaling}").format(
            low=lo, high=hi, dtype=report.raw_dtype, scaling=report.scaling)),
        (_("classes"), _("{count}: {classes}").format(count=report.num_classes, classes=", ".join(
            f"{name} {count:,}"
            for name, count in zip(report.class_names, report.class_counts, strict=True)
        ))),
    ]
    for name, value in rows:
        table.add_row(name, value)
    for note in report.notes:
        table.add_row(_("note"), note)
    return table


def summary_table(s: RunSummary) -> Table:
    title = _("{label}: {status}").format(label=shown_label(s.label), status=status_text(s.status))
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for name, value in summary_rows(s):
        table.add_row(name, value)
    return table
