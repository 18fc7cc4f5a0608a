"""Every text a user can see in a widget tree, for the tests that look for English left
in the Chinese window: labels, titles, buttons, tips, combo items, tab names, table
headers and cells, text boxes, placeholders. Hidden widgets are left out (a folded
group's contents are looked at once it is opened)."""

from __future__ import annotations

import re

from PySide6.QtCore import QAbstractItemModel, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

_TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """Rich text as read: tags gone, the common entities as their characters."""
    text = _TAG.sub(" ", text)
    for entity, char in (("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")):
        text = text.replace(entity, char)
    return text


def model_texts(model: QAbstractItemModel | None, max_rows: int = 200) -> list[str]:
    """Header names and the shown text and tip of each cell (the first ``max_rows``)."""
    if model is None:
        return []
    out = []
    for column in range(model.columnCount()):
        for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = model.headerData(column, Qt.Orientation.Horizontal, role)
            if isinstance(value, str):
                out.append(value)
    for row in range(min(model.rowCount(), max_rows)):
        for column in range(model.columnCount()):
            index = model.index(row, column)
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                value = model.data(index, role)
                if isinstance(value, str):
                    out.append(value)
    return out


def shown_texts(root: QWidget) -> dict[str, QWidget]:
    """Each visible text under ``root`` (``root`` included), with the widget showing it."""
    found: dict[str, QWidget] = {}

    def add(text: str | None, widget: QWidget) -> None:
        if text and text.strip():
            found.setdefault(plain(text), widget)

    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        if not w.isVisible():
            continue
        add(w.toolTip(), w)
        if w.isWindow() or isinstance(w, QDockWidget):
            add(w.windowTitle(), w)
        if isinstance(w, (QLabel, QAbstractButton)):
            add(w.text(), w)
        elif isinstance(w, QGroupBox):
            add(w.title(), w)
        elif isinstance(w, QComboBox):
            for i in range(w.count()):
                add(w.itemText(i), w)
                tip = w.itemData(i, Qt.ItemDataRole.ToolTipRole)
                add(tip if isinstance(tip, str) else None, w)
        elif isinstance(w, QLineEdit):
            add(w.text(), w)
            add(w.placeholderText(), w)
        elif isinstance(w, (QTextEdit, QPlainTextEdit)):
            add(w.toPlainText(), w)
            add(w.placeholderText(), w)
        elif isinstance(w, QTabBar):
            for i in range(w.count()):
                add(w.tabText(i), w)
                add(w.tabToolTip(i), w)
        elif isinstance(w, QAbstractItemView):
            for text in model_texts(w.model()):
                add(text, w)
    return found


def chart_texts(charts) -> dict[str, str]:  # a LiveCharts
    """Every text drawn on the charts (not QWidgets: pyqtgraph items), by where it is."""
    out = {}
    for name, plot in charts.plots.items():
        if not plot.isVisible():
            continue
        out[f"{name} title"] = plot.header._title_text
        for i, (_, label) in enumerate(plot.legend.items):
            out[f"{name} legend {i}"] = label.text
        for side in ("left", "bottom"):
            if plot.getAxis(side).labelText:
                out[f"{name} {side} axis"] = plot.getAxis(side).labelText
    out["warm-up band"] = charts._warmup_region.label.textItem.toPlainText()
    if charts._no_scaling.isVisible():
        out["no scaling note"] = charts._no_scaling.textItem.toPlainText()
    if charts.underflow_shown:
        out["underflow breakdown"] = plain(charts.underflow.layers.text)
    out["readout"] = charts.readout.text()
    return out
