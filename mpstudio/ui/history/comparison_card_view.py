"""The comparison card in the window: float32 against mixed precision, the verdict
first (the answer users came for), the rule behind it one click away, then the
figures. The rows are card_text's, so the window, the terminal and the HTML report
say the same thing.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.comparison.card import ComparisonCard, Side
from mpstudio.engine.comparison.card_text import card_rows, profile_table, side_heading
from mpstudio.engine.comparison.verdict import rule_text, tone_of
from mpstudio.engine.run_labels import shown_label
from mpstudio.ui.history.op_profile_view import OpProfileView
from mpstudio.ui.themed import link_label, set_role, themed_sheet
from mpstudio.ui.widgets.panel_labels import heading, secondary, wrapped_label
from mpstudio.ui.widgets.read_only_table import fit_height, read_only_table

PLACEHOLDER = QT_TRANSLATE_NOOP(
    "ComparisonCardView",
    'Tick "Compare with float32" and run, or select two runs in History and click Compare.')
RULE_LINK = QT_TRANSLATE_NOOP("ComparisonCardView", "How is this decided?")
COLUMNS = 4  # figure, float32 side, mixed side, change
WIDE_PAGE = 720  # px: the verdict beside the figures from here (the centre at 1280 wide)
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
# A CJK character with an opening bracket before it and closing punctuation after it, or
# a run of anything else but spaces.
_CJK = "\u3400-\u9fff\uf900-\ufaff"
_PIECE = re.compile(f"[（“《]*[{_CJK}][）”》，。：；、！？]*|[^\\s{_CJK}（“《）”》，。：；、！？]+")


def tr(text: str) -> str:
    """A ComparisonCardView string marked with QT_TRANSLATE_NOOP, in the window's language."""
    return QCoreApplication.translate("ComparisonCardView", text)


def unbreakable(text: str) -> list[str]:
    """The pieces of ``text`` a line never breaks inside: its words, and in Chinese each
    character (with the punctuation that must not start or end a line beside it)."""
    return _PIECE.findall(text)


def _side_header(side: Side) -> str:
    """"float32 baseline (#1, #3)" as "float32" / "baseline" / "(#1, #3)" (its words in
    the window's language): a narrow column stays wide enough for every line of its
    header."""
    label, ids = side_heading(side).rsplit(" (", 1)
    return "\n".join([*shown_label(label.split(" · ")[0]).split(), f"({ids}"])


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
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        header.setHighlightSections(False)
        # A new column width re-wraps the rows; refit once the header has settled all
        # its sections (during sectionResized the other stretched ones are still old).
        header.sectionResized.connect(self._fit_later)
        self._fit_pending = False

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
        # Two-line headers: the side, then its runs' ids (narrow columns stay readable).
        self.table.setHorizontalHeaderLabels(
            [QCoreApplication.translate("ComparisonCardView", "Figure"), _side_header(base),
             _side_header(mixed), QCoreApplication.translate("ComparisonCardView", "Change")])
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
        self._set_filled(False)

    def rows_text(self) -> list[tuple[str, str, str, str]]:
        """What the table shows, row by row (for tests and copying)."""
        def text(r: int, c: int) -> str:
            item = self.table.item(r, c)
            return item.text() if item is not None else ""

        return [(text(r, 0), text(r, 1), text(r, 2), text(r, 3))
                for r in range(self.table.rowCount())]

    def header_labels(self) -> list[str]:
        return [item.text() if (item := self.table.horizontalHeaderItem(c)) else ""
                for c in range(COLUMNS)]

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
        """The verdict beside the figures where the page holds both (a third of it, so
        the verdict's lines stay short enough to read), above them where it does not."""
        width = self.width()
        side_by_side = width >= WIDE_PAGE
        self.columns.setDirection(QBoxLayout.Direction.LeftToRight if side_by_side
                                  else QBoxLayout.Direction.TopToBottom)
        if side_by_side:
            self.verdict_column.setFixedWidth(max(240, min(420, round(width * 0.32))))
        else:
            self.verdict_column.setMinimumWidth(0)
            self.verdict_column.setMaximumWidth(16777215)

    def _widest_number(self, column: int) -> int:
        """The widest one-line cell of ``column`` (figures, not the wrapping loss gap)."""
        metrics = self.table.fontMetrics()
        widths = [metrics.horizontalAdvance(item.text()) + 12
                  for r in range(self.table.rowCount())
                  if (item := self.table.item(r, column)) and " " not in item.text().strip()]
        return max(widths, default=0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange()
        self._fit_later()  # a narrower card may need the table's scroll bar (or not)

    def _fit_later(self, *_: object) -> None:
        if not self._fit_pending:
            self._fit_pending = True
            QTimer.singleShot(0, self, self._fit_table)

    def _fit_table(self) -> None:
        """Rows as tall as their (wrapped) text, the table as tall as its rows."""
        self._fit_pending = False
        header = self.table.horizontalHeader()
        # The two side columns stretch, but never below their headers' widest line (a
        # narrow dock clipped "float32 baseline" to "oat32 baselin"), nor below their
        # numbers; a dock too narrow for that scrolls the table sideways, while the
        # verdict above keeps wrapping to the dock's width.
        if self._card is not None:
            metrics = header.fontMetrics()
            side = max((metrics.horizontalAdvance(line) for c in (1, 2)
                        for line in self.header_labels()[c].split("\n")), default=0)
            side = max(side + 16, *(self._widest_number(c) for c in (1, 2)))
            header.setMinimumSectionSize(side)
            self._fit_names(2 * side)
        fit_height(self.table)

    def _fit_names(self, sides: int) -> None:
        """The figure names wrap (never mid-word; Chinese between characters) where the
        dock is too narrow for them on one line beside the other columns: at 1280x720 the
        Change column was off the edge."""
        header = self.table.horizontalHeader()
        metrics = self.table.fontMetrics()
        names = [item.text() for r in range(self.table.rowCount())
                 if (item := self.table.item(r, 0))]
        whole = max((metrics.horizontalAdvance(n) for n in names), default=0) + 16
        word = max((metrics.horizontalAdvance(w) for n in names for w in unbreakable(n)),
                   default=0) + 16
        room = self.table.viewport().width() - sides - self.table.sizeHintForColumn(3)
        if room >= whole:
            header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        else:
            header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(0, max(word, room))
