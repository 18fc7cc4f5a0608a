"""Saving a chart panel as PNG (what is on screen) or SVG (vector, for reports).

Both are drawn in memory, then written through the one atomic-write helper
(report/files.py): a failure never leaves a half-written picture under the real name,
and says why in one sentence (ReportError).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QCoreApplication, QIODevice, QPoint, QRect, QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsView, QWidget

from mpstudio.engine.report.files import atomic_write_bytes

SUFFIXES = (".png", ".svg")
PNG_MIN_WIDTH = 1600  # px: a saved PNG is at least this wide (a page at 150 dpi and more)


def check_suffix(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        name = repr(Path(path).name)
        if suffix:
            raise ValueError(QCoreApplication.translate(
                "ChartExport", "charts are saved as .png or .svg; {name} has {suffix}").format(
                name=name, suffix=repr(Path(path).suffix)))
        raise ValueError(QCoreApplication.translate(
            "ChartExport", "charts are saved as .png or .svg; {name} has no suffix").format(
            name=name))
    return suffix


def save_widget(widget: QWidget, path: str | Path, title: str = "mpstudio charts") -> None:
    """``widget`` as ``path`` (.png or .svg). A QGraphicsView is drawn as vectors in SVG.
    ValueError: another suffix; OSError: Qt could not draw it; ReportError: not written."""
    suffix = check_suffix(path)
    data = _png_bytes(widget, path) if suffix == ".png" else _svg_bytes(widget, title)
    atomic_write_bytes(path, data)


def _png_bytes(widget: QWidget, path: str | Path) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not _png_image(widget).save(buffer, "PNG"):  # type: ignore[call-overload]  # the stub wants bytes; PySide6 takes a str
        raise OSError(QCoreApplication.translate(
            "ChartExport", "could not write a PNG image to {path}").format(path=path))
    return bytes(buffer.data().data())


def _background(widget: QWidget) -> QColor:
    """The chart's own ground (dark under a dark theme): the file shows what the screen does."""
    if isinstance(widget, QGraphicsView):
        return widget.backgroundBrush().color()
    return QColor("white")


def _png_image(widget: QWidget) -> QImage:
    """The widget as a picture at least ``PNG_MIN_WIDTH`` pixels wide: a chart panel beside
    the docks is some 500 px, too coarse for a document. A QGraphicsView's scene is
    drawn again at the larger size (sharp lines and text, the same layout); any other
    widget is grabbed as it is on screen."""
    if not isinstance(widget, QGraphicsView):
        return widget.grab().toImage()
    width, height = widget.width(), widget.height()
    scale = max(PNG_MIN_WIDTH / max(width, 1), widget.devicePixelRatioF(), 1.0)
    image = QImage(round(width * scale), round(height * scale), QImage.Format.Format_ARGB32)
    # A high-density picture of the same layout, as on a screen of ``scale`` device
    # pixels per pixel: lines and text drawn sharp at that density.
    image.setDevicePixelRatio(scale)
    image.fill(_background(widget))
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        source = widget.mapToScene(widget.viewport().rect()).boundingRect()
        widget.scene().render(painter, QRectF(0, 0, width, height), source)
    finally:
        painter.end()
    return image


def _svg_bytes(widget: QWidget, title: str) -> bytes:
    width, height = widget.width(), widget.height()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(widget.size())
    generator.setViewBox(QRect(0, 0, width, height))
    # The widget's own DPI: pyqtgraph's axes replay QPictures, which rescale to a
    # device of another resolution and would land beside their plots.
    generator.setResolution(widget.logicalDpiX())
    generator.setTitle(title)
    painter = QPainter()
    if not painter.begin(generator):
        raise OSError(QCoreApplication.translate("ChartExport", "could not draw the SVG"))
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(QRectF(0, 0, width, height), _background(widget))
        if isinstance(widget, QGraphicsView):
            # The scene itself, item by item: paths and text stay vectors (the view's
            # own paint would bring its cached background along as a bitmap).
            source = widget.mapToScene(widget.viewport().rect()).boundingRect()
            widget.scene().render(painter, QRectF(0, 0, width, height), source)
        else:
            widget.render(painter, QPoint())  # the stub lacks the offset's default
    finally:
        painter.end()
    data = bytes(buffer.data().data())
    if not data:
        raise OSError(QCoreApplication.translate("ChartExport", "could not draw the SVG"))
    return data
