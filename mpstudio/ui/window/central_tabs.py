"""The window's centre: the live charts, and a comparison's card in a tab beside them.

The card was a dock at the right; at 1280x720 it had about 330 px, so its Change column
(the speedup, the accuracy change) was off the edge while the charts were squeezed
too. As a tab it has the whole centre: the verdict, both sides' figures and the change
read without scrolling, and the charts keep their full size one click away.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QScrollArea, QTabWidget, QWidget

from mpstudio.ui.history.comparison_card_view import ComparisonCardView
from mpstudio.ui.models.workbench_state import WorkbenchState

CHARTS, CARD = 0, 1
CARD_MAX_WIDTH = 1320  # px: the verdict column and four readable columns


class CentralTabs(QTabWidget):
    """Charts | Comparison. The Comparison tab exists while a card does: it opens when a
    comparison ends (or History compares two runs) and goes with the card."""

    def __init__(self, charts: QWidget, card_view: ComparisonCardView, state: WorkbenchState,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("centralTabs")
        self.setDocumentMode(True)  # a tab bar over the page, not a framed box in a box
        self.card_view = card_view
        card_scroll = QScrollArea()
        card_scroll.setObjectName("cardScroll")
        card_scroll.setWidget(card_view)
        card_scroll.setWidgetResizable(True)
        # on a wide screen the figures stretched to some 1,050 px: too far for the eye
        # between a figure's name and its change; the card keeps a page's width, at left
        card_view.setMaximumWidth(CARD_MAX_WIDTH)
        card_scroll.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        card_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        # the verdict wraps to the page's width; only the card's table scrolls sideways
        card_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.addTab(charts, QCoreApplication.translate("CentralTabs", "Charts"))
        self.addTab(card_scroll, QCoreApplication.translate("CentralTabs", "Comparison"))
        self.setTabToolTip(CARD, QCoreApplication.translate(
            "CentralTabs", "The verdict and both sides' figures of the comparison on the "
            "charts"))
        self.setTabVisible(CARD, False)
        card_view.card_shown.connect(self.show_card)
        state.observe(self._follow)

    @property
    def card_open(self) -> bool:
        """The Comparison tab is there and in front."""
        return self.isTabVisible(CARD) and self.currentIndex() == CARD

    def show_card(self) -> None:
        self.setTabVisible(CARD, True)
        self.setCurrentIndex(CARD)

    def _follow(self, state: WorkbenchState) -> None:
        if not state.comparison_shown and self.isTabVisible(CARD):
            self.setTabVisible(CARD, False)  # a new run, a single run plotted: no card
            self.setCurrentIndex(CHARTS)
