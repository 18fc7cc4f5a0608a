"""The window's side of the run history: the GUI thread's own connection to it,
runs interrupted by a crash, the card after a comparison, plotting and comparing
runs picked in History, re-running one, File > Export report, and a benchmark bundle
(File > Export benchmark bundle…, or a run's context menu in History).

Reading the history is SQLite on a local file (milliseconds), so it happens on the
GUI thread; TensorFlow never does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from mpstudio.engine.comparison.card import ComparisonCard, build_card, sides_from_history
from mpstudio.engine.comparison.sizing import as_set
from mpstudio.engine.history.records import StoredRun
from mpstudio.engine.history.replay import replay_events
from mpstudio.engine.history.store import HistoryError, RunStore
from mpstudio.engine.report.bench_bundle import bundle_file_name, comparison_spec
from mpstudio.engine.run_labels import shown_label
from mpstudio.engine.spec import RunSpec, SpecError
from mpstudio.engine.spec_checks import spec_problems
from mpstudio.engine.trainer.compare_options import CompareOptions
from mpstudio.ui.history.history_model import status_text

if TYPE_CHECKING:
    from mpstudio.engine.run_session import TrainingOutcome
    from mpstudio.ui.charts.live_charts import LiveCharts
    from mpstudio.ui.history.comparison_card_view import ComparisonCardView
    from mpstudio.ui.history.history_panel import HistoryPanel
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.notices import Notices
    from mpstudio.ui.setup.setup_panel import SetupPanel
    from mpstudio.ui.window.file_actions import FileActions
    from mpstudio.ui.window.window_actions import WindowActions

REPORT_FILTER = QT_TRANSLATE_NOOP("HistoryActions", "HTML report (*.html)")
BUNDLE_FILTER = QT_TRANSLATE_NOOP("HistoryActions", "Benchmark bundle (*.zip)")
T = TypeVar("T")


def tr(text: str) -> str:
    """A HistoryActions string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("HistoryActions", text)


def run_title(run: StoredRun) -> str:
    """"#12 mixed_float16 (digits / mlp)" (``StoredRun.title``) in the window's language."""
    return QCoreApplication.translate(
        "HistoryActions", "#{id} {label} ({dataset} / {template})").format(
        id=run.id, label=shown_label(run.label), dataset=run.row.dataset,
        template=run.row.template)


class HistoryActions(QObject):
    def __init__(self, state: WorkbenchState, notices: Notices, history: HistoryPanel,
                 card_view: ComparisonCardView, charts: LiveCharts,
                 setup: SetupPanel, files: FileActions, actions: WindowActions,
                 start_run: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state, self.notices, self.history = state, notices, history
        self.card_view, self.charts = card_view, charts
        self.setup, self.files, self.start_run = setup, files, start_run
        self.store: RunStore | None = None
        self.sides: tuple[list[StoredRun], list[StoredRun]] | None = None  # on the card
        panel = history
        panel.plot_requested.connect(self.plot_run)
        panel.compare_requested.connect(self.compare_runs)
        panel.rerun_requested.connect(self.rerun)
        panel.deleted.connect(self._deleted)
        card_view.export_requested.connect(self._report_dialog)
        actions.export_report.triggered.connect(self._report_dialog)
        # The hardware check's report (HardwareReport.to_dict()) for a bundle, when the
        # window has one (the main window wires it to its background work).
        self.machine_report: Callable[[], dict[str, Any] | None] = lambda: None
        self.export_bundle_action = self._bundle_action(actions)
        panel.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        panel.table.customContextMenuRequested.connect(self._context_menu)

    def open(self, copy_of_server: Path | None = None) -> None:
        """Open the history and mark runs a crash left "running" as interrupted; or the
        window's copy of a server's history (``copy_of_server``: its file), whose
        running runs are the server's to end."""
        self.close()
        try:
            self.store = RunStore(copy_of_server)
            interrupted = [] if copy_of_server else self.store.recover_interrupted()
        except HistoryError as exc:
            self.store = None
            self.history.set_store(None, str(exc))
            self.notices.log(QCoreApplication.translate(
                "HistoryActions", "run history unavailable: {error}").format(error=exc),
                "warning")
            return
        self.history.set_store(self.store)
        if interrupted:
            ids = ", ".join(f"#{i}" for i in interrupted)
            self.notices.log(QCoreApplication.translate(
                "HistoryActions", "{n} run(s) from an earlier session ended with the app "
                "({ids}): marked interrupted, their metrics kept in History").format(
                n=len(interrupted), ids=ids), "warning")

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    # ------------------------------------------------------------ after a run
    def after_run(self, outcome: TrainingOutcome) -> None:
        """Refresh the list, select the new runs and show a comparison's card."""
        self.history.refresh()
        if outcome.stored and outcome.history_kept:
            self.history.select_ids([run.id for run in outcome.stored])
        if outcome.card is not None:
            base = [r for r in outcome.stored if r.row.role == "baseline"]
            mixed = [r for r in outcome.stored if r.row.role == "mixed"]
            self.show_card(outcome.card, (base[: outcome.card.trials],
                                          mixed[: outcome.card.trials]))

    def show_card(self, card: ComparisonCard,
                  sides: tuple[list[StoredRun], list[StoredRun]]) -> None:
        self.sides = sides
        self.card_view.show_card(card)  # the window's Comparison tab opens with it
        self.state.update(comparison_shown=True)

    def hide_card(self) -> None:
        """No comparison on the charts (a new run, a single run plotted): no card."""
        self.sides = None
        self.card_view.clear()
        self.state.update(comparison_shown=False)

    # ------------------------------------------------------------ from History
    def _busy(self) -> bool:
        if self.state.training:
            self.notices.banner(QCoreApplication.translate(
                "HistoryActions", "A run is in progress: its charts are live. Plot or compare "
                "runs from History when it has ended."), "info")
            return True
        return self.store is None

    def _load(self, problem: Callable[[HistoryError], str], load: Callable[[], T]) -> T | None:
        """``load()``, or None when the history cannot: ``problem(error)`` says so."""
        try:
            return load()
        except HistoryError as exc:
            text = problem(exc)
            self.notices.banner(text, "error")
            self.notices.log(text, "error")
            return None

    def plot_run(self, run_id: int) -> None:
        if self._busy():
            return
        assert self.store is not None
        store = self.store
        run = self._load(lambda exc: QCoreApplication.translate(
            "HistoryActions", "Cannot plot run #{id}: {error}").format(id=run_id, error=exc),
            lambda: store.run(run_id))
        if run is None:
            return
        self.charts.clear()
        self.hide_card()
        self.charts.add_events(replay_events(run))
        self.charts.finish()
        self.notices.banner(QCoreApplication.translate(
            "HistoryActions", "Showing {run} from History: {status}").format(
            run=run_title(run), status=status_text(run.status)), "info")

    def compare_runs(self, a: int, b: int) -> None:
        if self._busy():
            return
        assert self.store is not None
        store = self.store
        sides = self._load(lambda exc: QCoreApplication.translate(
            "HistoryActions", "Cannot compare #{a} and #{b}: {error}").format(
            a=a, b=b, error=exc), lambda: sides_from_history(store, a, b))
        if sides is None:
            return
        base, mixed = sides
        card = build_card(base, mixed)
        # The first trial of each side on the charts (the card has the medians of all).
        self.charts.clear()
        self.charts.add_events(replay_events(base[0], baseline=True))
        self.charts.add_events(replay_events(mixed[0]))
        self.charts.finish()
        self.show_card(card, (list(base), list(mixed)))
        self.notices.hide_banner()  # the card's tab has the verdict
        self.notices.status(QCoreApplication.translate(
            "HistoryActions", "Comparing {baseline} with {mixed}").format(
            baseline=run_title(base[0]), mixed=run_title(mixed[0])))

    def rerun(self, run_id: int) -> None:
        """Fill the form with the run's spec (a comparison's: the mixed spec with the
        comparison ticked) and start it."""
        if self._busy():
            return
        assert self.store is not None
        store = self.store
        run = self._load(lambda exc: QCoreApplication.translate(
            "HistoryActions", "Cannot re-run #{id}: {error}").format(id=run_id, error=exc),
            lambda: store.run(run_id, metrics=False))
        if run is None:
            return
        spec_dict, compare = run.spec, None
        if run.row.comparison is not None:  # as a bundle's replay would start it
            runs = [store.run(row.id, metrics=False)
                    for row in store.comparison_runs(run.row.comparison)]
            spec_dict, compare = comparison_spec([run, *[r for r in runs if r.id != run.id]])
        try:
            spec = RunSpec.from_dict(spec_dict)
            # a server's run: its files are there, and its engine checks them
            problems = spec_problems(spec, files_here=not self.files.server.remote)
        except SpecError as exc:
            problems = exc.problems
        if problems:
            text = QCoreApplication.translate(
                "HistoryActions", "Cannot re-run #{id}: {error}").format(
                id=run_id, error=QCoreApplication.translate("HistoryActions", "; ").join(problems))
            self.notices.banner(text, "error")
            self.notices.log(text, "error")
            return
        if compare is not None and spec.sized_from:
            # the form shows what the user had set, and the comparison is sized again
            spec, compare = as_set(spec), dataclasses.replace(compare, size=True)
        self.setup.set_spec(spec)
        self.setup.set_comparison(compare is not None, compare or CompareOptions())
        self.notices.log(QCoreApplication.translate(
            "HistoryActions", "re-running the spec of #{id}").format(id=run_id))
        self.start_run()

    def _deleted(self, ids: list) -> None:
        self.notices.log(QCoreApplication.translate(
            "HistoryActions", "deleted {n} run(s) from History: {ids}").format(
            n=len(ids), ids=", ".join(f"#{i}" for i in ids)))
        if self.sides and {r.id for side in self.sides for r in side} & set(ids):
            self.sides = None
            self.card_view.clear()
            self.state.update(comparison_shown=False)

    # ----------------------------------------------------------------- report
    def _report_dialog(self) -> None:
        if self.sides is None:
            return
        base, mixed = self.sides
        name = f"compare-{base[0].id}-{mixed[0].id}.html"
        path = self.files.ask_save_path(QCoreApplication.translate(
            "HistoryActions", "Export the comparison report"), tr(REPORT_FILTER), name)
        if path:
            self.files.remember(path)
            self.export_report(path)

    def export_report(self, path: str) -> bool:
        """The card's runs as an HTML page and a CSV of their metrics beside it."""
        from mpstudio.engine.report.html_report import ReportError, write_report

        if self.sides is None:
            self.notices.banner(QCoreApplication.translate(
                "HistoryActions", "There is no comparison to report: compare two runs first"),
                "error")
            return False
        target = Path(path if path.lower().endswith((".html", ".htm")) else path + ".html")
        try:
            files = write_report(*self.sides, target,
                                 history=self.store.path if self.store else None)
        except ReportError as exc:
            self.notices.banner(QCoreApplication.translate(
                "HistoryActions", "Export report failed, nothing was written: {error}").format(
                error=exc), "error")
            self.notices.log(QCoreApplication.translate(
                "HistoryActions", "export report failed: {error}").format(error=exc), "error")
            return False
        self.notices.log(QCoreApplication.translate(
            "HistoryActions", "exported the comparison report {html} and its metrics {csv}")
            .format(html=files.html, csv=files.csv), "success")
        self.notices.status(QCoreApplication.translate(
            "HistoryActions", "exported {path}").format(path=files.html))
        return True

    # ----------------------------------------------------------------- bundle
    def _bundle_action(self, actions: WindowActions) -> QAction:
        """File > Export benchmark bundle…, right after Export report…, enabled with it
        (both need a comparison on the card)."""
        action = QAction(QCoreApplication.translate(
            "HistoryActions", "Export &benchmark bundle…"), self)
        action.setObjectName("exportBundle")
        tip = QCoreApplication.translate(
            "HistoryActions", "Save the comparison as one zip: spec, seed, initial-weights "
            "hashes, versions, hardware, metrics and verdict; `mpstudio replay` re-runs it")
        action.setStatusTip(tip)
        action.setToolTip(tip)
        report = actions.export_report
        for menu in report.associatedObjects():
            if isinstance(menu, QMenu):
                items = menu.actions()
                after = items.index(report) + 1
                if after < len(items):
                    menu.insertAction(items[after], action)
                else:
                    menu.addAction(action)
        action.setEnabled(report.isEnabled())
        report.changed.connect(lambda: action.setEnabled(report.isEnabled()))
        action.triggered.connect(lambda: self._bundle_dialog(None))
        return action

    def _context_menu(self, point: QPoint) -> None:
        table = self.history.table
        index = table.indexAt(point)
        if index.isValid():
            run = self.history.model.row_at(self.history.proxy.mapToSource(index))
            self.run_menu(run.id).popup(table.viewport().mapToGlobal(point))

    def run_menu(self, run_id: int) -> QMenu:
        """A run's context menu in History."""
        menu = QMenu(self.history.table)
        menu.setObjectName("historyRunMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        bundle = menu.addAction(QCoreApplication.translate(
            "HistoryActions", "Export benchmark bundle…"))
        bundle.setObjectName("exportRunBundle")
        bundle.setToolTip(QCoreApplication.translate(
            "HistoryActions", "Save run #{id} (with the rest of its comparison) as a benchmark "
            "bundle that `mpstudio replay` re-runs").format(id=run_id))
        bundle.triggered.connect(lambda: self._bundle_dialog(run_id))
        return menu

    def _bundle_dialog(self, run_id: int | None) -> None:
        """``run_id``: the run picked in History (its whole comparison goes); None: the
        comparison on the card."""
        if run_id is None and self.sides is not None:
            run_id = self.sides[1][0].id
        if run_id is None:
            self.notices.problem(QCoreApplication.translate(
                "HistoryActions", "There is no comparison to bundle: compare two runs or pick "
                "one in History first"))
            return
        path = self.files.ask_save_path(QCoreApplication.translate(
            "HistoryActions", "Export the benchmark bundle"), tr(BUNDLE_FILTER),
            bundle_file_name(run_id))
        if path:
            self.files.remember(path)
            self.export_bundle(path, run_id)

    def export_bundle(self, path: str, run_id: int) -> bool:
        """Run ``run_id`` (with the rest of its comparison) as a benchmark bundle."""
        from mpstudio.engine.report.bench_bundle import benchmark_source, write_bundle
        from mpstudio.engine.report.files import ReportError

        target = Path(path if path.lower().endswith(".zip") else path + ".zip")
        try:
            if self.store is None:
                raise HistoryError(QCoreApplication.translate(
                    "HistoryActions", "the run history is not open"))
            source = benchmark_source(self.store, run_id)
            written = write_bundle(source, target, self.machine_report())
        except (HistoryError, ReportError) as exc:
            self.notices.problem(QCoreApplication.translate(
                "HistoryActions", "Export benchmark bundle failed, nothing was written: "
                "{error}").format(error=exc))
            return False
        self.notices.log(QCoreApplication.translate(
            "HistoryActions", "exported the benchmark bundle {path} (runs {ids}); replay it "
            "with: mpstudio replay {path}").format(
            path=written, ids=", ".join(f"#{run.id}" for run in source.runs)), "success")
        self.notices.status(QCoreApplication.translate(
            "HistoryActions", "exported {path}").format(path=written))
        return True
