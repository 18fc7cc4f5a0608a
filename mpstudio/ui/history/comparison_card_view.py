"""The comparison card in the window: float32 against mixed precision, the verdict
first (the answer users came for), the rule behind it one click away, then the
figures. The rows are card_text's, so the window, the terminal and the HTML report
say the same thing.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QEvent,
    QObject,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QBoxLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.comparison.card import ComparisonCard
from mpstudio.engine.comparison.card_text import card_rows, profile_table
from mpstudio.engine.comparison.verdict import rule_text, tone_of
from mpstudio.engine.run_labels import shown_label
from mpstudio.ui.history.card_table_fit import (
    COLUMNS,
    CardTableFit,
    column_widths,
    header_labels,
    side_words,
)
from mpstudio.ui.history.op_profile_view import OpProfileView
from mpstudio.ui.themed import link_label, set_role, themed_sheet
from mpstudio.ui.widgets.panel_labels import heading, secondary, wrapped_label
from mpstudio.ui.widgets.read_only_table import fit_height, read_only_table

PLACEHOLDER = QT_TRANSLATE_NOOP(
    "ComparisonCardView",
    'Tick "Compare with float32" and run, or select two runs in History and click Compare.')
RULE_LINK = QT_TRANSLATE_NOOP("ComparisonCardView", "How is this decided?")
WIDE_PAGE = 720  # px: the verdict beside the figures from here (the centre at 1280 wide)
# The verdict column beside the figures: a third of the page, within these bounds...
VERDICT_SHARE, VERDICT_MIN, VERDICT_MAX = 0.32, 240, 420
# ...unless the figures would be taller than the page: it then gives the table width,
# down to this, so fewer of its cells wrap (the verdict grows taller in its column).
VERDICT_FLOOR = 200
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
def tr(text: str) -> str:
    """A ComparisonCardView string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("ComparisonCardView", text)


class ComparisonCardView(QWidget):
    export_requested = Signal()
    card_shown = Signal()  # a card to read: the window brings it to the front

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("comparisonCard")
        self._card: ComparisonCard | None = None

        self.placeholder = wrapped_label(tr(PLACEHOLDER), selectable=False)
        self.placeholder.setObjectName("cardPlaceholder")
        set_role(self.placeholder, "hint")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setContentsMargins(0, 24, 0, 24)
        self.heading = heading("")
        self.heading.setObjectName("cardHeading")
        self.heading.setContentsMargins(0, 0, 0, 0)
        self.verdict = wrapped_label()
        self.verdict.setObjectName("verdict")
        self.rule_link = secondary(link_label(QLabel(), "rule", tr(RULE_LINK)))
        self.rule_link.setObjectName("ruleLink")
        self.rule_link.setToolTip(rule_text())
        self.rule_link.setCursor(Qt.CursorShape.PointingHandCursor)
        self.rule_label = secondary(wrapped_label(rule_text()))
        self.rule_label.setObjectName("rule")
        self.rule_label.hide()

        # As tall as its rows, never stretched: the card reads as one page, not a box
        # with its own scrollbar.
        self.table = read_only_table("cardTable", COLUMNS)
        self.table.setWordWrap(True)  # the loss-gap sentence wraps in a narrow window
        header = self.table.horizontalHeader()
        # The columns' widths are the card's (card_table_fit.column_widths), from the table's width
        # alone: the same widths _verdict_width predicts the table's height with. (Qt's
        # ResizeToContents measures a wrapping column at its current width, so the widths
        # it gave depended on the ones before.)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header.setHighlightSections(False)
        # A new table width re-wraps the rows: refit once the layout has settled.
        self.table.installEventFilter(self)
        self._fit_pending = False
        # what the verdict column's width was last worked out for (the resize path is
        # taken for each step of a window's resizing: the same page is not worked out
        # again), and the card's generation that it depends on
        self._arranged_for: tuple[int, int, int, bool] | None = None
        self._generation = 0
        self.fit = CardTableFit(self.table)  # the table's measurements for the layout

        self.export_button = QPushButton(
            QCoreApplication.translate("ComparisonCardView", "Export report…"))
        self.export_button.setObjectName("exportReport")
        self.export_button.setToolTip(QCoreApplication.translate(
            "ComparisonCardView",
            "Save the card, the curves and the runs' settings as an HTML report"))

        # The verdict and its rule in a column beside the figures: on a laptop screen
        # (1280x720) the verdict above the table pushed the last rows below the fold.
        # A narrow page stacks them (the verdict first).
        self.verdict_column = QWidget()
        self.verdict_column.setObjectName("verdictColumn")
        verdict_layout = QVBoxLayout(self.verdict_column)
        verdict_layout.setContentsMargins(0, 0, 0, 0)
        verdict_layout.setSpacing(8)
        verdict_layout.addWidget(self.verdict)
        verdict_layout.addWidget(self.rule_link)
        verdict_layout.addWidget(self.rule_label)
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        verdict_layout.addLayout(buttons)
        verdict_layout.addStretch(1)
        figures = QWidget()
        figures_layout = QVBoxLayout(figures)
        figures_layout.setContentsMargins(0, 0, 0, 0)
        figures_layout.setSpacing(8)
        figures_layout.addWidget(self.table)
        self.op_profile = OpProfileView()
        figures_layout.addWidget(self.op_profile)
        figures_layout.addStretch(1)
        self.columns = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.columns.setSpacing(14)
        self.columns.addWidget(self.verdict_column, 0)
        self.columns.addWidget(figures, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.setSpacing(8)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.heading)
        layout.addLayout(self.columns, 1)

        self.rule_link.linkActivated.connect(self.toggle_rule)
        self.export_button.clicked.connect(self.export_requested)
        if parent is not None:
            parent.installEventFilter(self)  # the page's height (_page_height)
        self.clear()

    # ------------------------------------------------------------ public API
    @property
    def card(self) -> ComparisonCard | None:
        return self._card

    def show_card(self, card: ComparisonCard) -> None:
        self._card = card
        base, mixed = card.baseline, card.mixed
        title = QCoreApplication.translate("ComparisonCardView", "{baseline} vs {mixed}").format(
            baseline=shown_label(base.label), mixed=shown_label(mixed.label))
        if card.trials > 1:
            title += QCoreApplication.translate(
                "ComparisonCardView", " · median of {trials} trials").format(trials=card.trials)
        self.heading.setText(title)
        self._show_verdict(card.verdict.kind, card.verdict.sentence)
        # The sides' headers: the side, then its runs' ids, on lines of their own; the
        # side's words share a line where its column is wide enough (_fit_table).
        self.fit.side_words = [side_words(base), side_words(mixed)]
        self.table.setHorizontalHeaderLabels(
            [QCoreApplication.translate("ComparisonCardView", "Figure"),
             *("\n".join(words) for words in self.fit.side_words),
             QCoreApplication.translate("ComparisonCardView", "Change")])
        rows = card_rows(card)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate((row.name, row.baseline, row.mixed, row.change)):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(_RIGHT)
                if row.tip:
                    item.setToolTip(row.tip)
                self.table.setItem(r, c, item)
        self._set_filled(True)
        self.op_profile.show_table(profile_table(card))
        self._generation += 1
        self._arrange()
        self._fit_table()
        self.card_shown.emit()

    def clear(self) -> None:
        """No card: say how to get one."""
        self._card = None
        self.table.setRowCount(0)
        self.verdict.setText("")
        self.verdict.setProperty("kind", "")
        self.verdict.setProperty("tone", "")
        self.op_profile.show_table(None)
        self._generation += 1
        self._set_filled(False)

    def rows_text(self) -> list[tuple[str, str, str, str]]:
        """What the table shows, row by row (for tests and copying)."""
        def text(r: int, c: int) -> str:
            item = self.table.item(r, c)
            return item.text() if item is not None else ""

        return [(text(r, 0), text(r, 1), text(r, 2), text(r, 3))
                for r in range(self.table.rowCount())]

    def header_labels(self) -> list[str]:
        return header_labels(self.table)

    def toggle_rule(self, *_: object) -> None:
        self.rule_label.setVisible(not self.rule_label.isVisibleTo(self))

    # ------------------------------------------------------------- internals
    def _show_verdict(self, kind: str, sentence: str) -> None:
        tone = tone_of(kind)
        self.verdict.setText(sentence)
        self.verdict.setProperty("kind", kind)
        self.verdict.setProperty("tone", tone)
        themed_sheet(self.verdict, lambda c: (  # the tone's (text, fill, border) in the theme
            "QLabel#verdict {{ color: {}; background: {}; border: 1px solid {}; "
            "border-radius: 4px; padding: 8px 10px; font-weight: bold; }}").format(*c.tones[tone]))

    def _set_filled(self, filled: bool) -> None:
        self.placeholder.setVisible(not filled)
        for widget in (self.heading, self.verdict, self.rule_link, self.table):
            widget.setVisible(filled)
        if not filled:
            self.rule_label.hide()
        self.export_button.setEnabled(filled)
        self.export_button.setVisible(filled)

    def _arrange(self) -> None:
        """The verdict beside the figures where the page holds both, above them where it
        does not."""
        width = self.width()
        side_by_side = width >= WIDE_PAGE
        page = (width, self._page_height(), self._generation, side_by_side)
        if page == self._arranged_for:
            return
        self._arranged_for = page
        self.columns.setDirection(QBoxLayout.Direction.LeftToRight if side_by_side
                                  else QBoxLayout.Direction.TopToBottom)
        if side_by_side:
            self.verdict_column.setFixedWidth(self._verdict_width())
        else:
            self.verdict_column.setMinimumWidth(0)
            self.verdict_column.setMaximumWidth(16777215)

    def _verdict_width(self) -> int:
        """A third of the page, so the verdict's lines stay short enough to read; but
        where the figures would then be taller than the page (Chinese at 1280x720: its
        lines are taller, and the narrow side columns wrapped every range), the widest
        narrower column down to VERDICT_FLOOR that lets the table fit: the page, or the
        verdict's own height where that is taller. Worked out from the table's height at
        each width (the heights Qt gives its rows), never by laying out and looking, so
        it settles at once and cannot swing back and forth."""
        layout = self.layout()
        assert layout is not None
        margins = layout.contentsMargins()
        inner = self.width() - margins.left() - margins.right()
        preferred = max(VERDICT_MIN, min(VERDICT_MAX, round(self.width() * VERDICT_SHARE)))
        if self._card is None or preferred <= VERDICT_FLOOR:
            return preferred
        heading = self.heading.heightForWidth(inner) if self.heading.hasHeightForWidth() \
            else -1
        room = (self._page_height() - margins.top() - margins.bottom() - layout.spacing()
                - (heading if heading >= 0 else self.heading.sizeHint().height()))
        verdict_layout = self.verdict_column.layout()
        assert verdict_layout is not None
        frame = 2 * self.table.frameWidth()
        fit = self.fit
        natural, least = fit.natural_widths(), fit.least_widths()
        cells: dict[tuple[int, int, int], int] = {}  # a cell's height at a width

        def fits(verdict: int) -> bool:
            view = inner - self.columns.spacing() - verdict - frame
            height = fit.table_height(column_widths(view, natural, least), view, cells)
            return height <= room or height <= verdict_layout.totalHeightForWidth(verdict)

        if fits(preferred):
            return preferred
        low, high = VERDICT_FLOOR, preferred  # the widest that fits lies in [low, high)
        if not fits(low):
            return low
        while high - low > 1:
            middle = (low + high) // 2
            if fits(middle):
                low = middle
            else:
                high = middle
        return low

    def _page_height(self) -> int:
        """The height the card is seen in: its scroll area's (the card may be taller), or
        its own."""
        parent = self.parentWidget()
        scroll = parent.parentWidget() if parent is not None else None
        if isinstance(scroll, QAbstractScrollArea) and scroll.viewport() is parent:
            return parent.height()
        return self.height()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange()
        self._fit_later()  # a narrower card may need the table's scroll bar (or not)

    def event(self, event: QEvent) -> bool:
        # the page's height is its scroll area's: a shorter page may need a narrower
        # verdict column while the card, as tall as its content, keeps its size
        parent = self.parentWidget()
        if event.type() == QEvent.Type.ParentAboutToChange and parent is not None:
            parent.removeEventFilter(self)
        elif event.type() == QEvent.Type.ParentChange and parent is not None:
            parent.installEventFilter(self)
        return super().event(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            if watched is self.table:
                if isinstance(event, QResizeEvent) and \
                        event.size().width() != event.oldSize().width():
                    self._fit_later()  # new columns' widths, rows re-wrapped
            elif watched is self.parentWidget():
                self._arrange()
        return super().eventFilter(watched, event)

    def _fit_later(self, *_: object) -> None:
        if not self._fit_pending:
            self._fit_pending = True
            QTimer.singleShot(0, self, self._fit_table)

    def _fit_table(self) -> None:
        """Columns as column_widths has them, rows as tall as their (wrapped) text, the
        table as tall as its rows."""
        self._fit_pending = False
        if self._card is not None:
            header = self.table.horizontalHeader()
            widths = column_widths(self.table.viewport().width(), self.fit.natural_widths(),
                                   self.fit.least_widths())
            for column, width in enumerate(widths):
                if header.sectionSize(column) != width:
                    header.resizeSection(column, width)
            for column, text in zip((1, 2), self.fit.side_headers(widths), strict=True):
                item = self.table.horizontalHeaderItem(column)
                if item is not None and item.text() != text:
                    item.setText(text)
        fit_height(self.table)
