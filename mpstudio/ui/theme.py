"""Light and dark: the app's palette, its style sheet and its charts' colours.

The window follows the system's colour scheme (Qt 6.5+ hands Fusion a dark palette
where the platform is dark) unless the user picks one under View > Theme. Where the
platform cannot switch (Linux without a portal, offscreen) an explicit palette
stands in. What the style sheet and the charts draw is chosen by the palette in
force, so a scheme the system changes while the app runs is followed as well.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette

# View > Theme, translated where shown (the context is the menu's)
THEMES = {"system": QT_TRANSLATE_NOOP("ViewMenu", "&System"),
          "light": QT_TRANSLATE_NOOP("ViewMenu", "&Light"),
          "dark": QT_TRANSLATE_NOOP("ViewMenu", "&Dark")}


@dataclass(frozen=True)
class ChartColors:
    background: str
    text: str  # titles, tick labels, legends
    axis: str  # axis lines, hints
    grid: str  # opaque: a translucent grid costs more to draw than the curves
    band: str  # the warm-up strip
    muted: str  # notes on a chart, the warm-up label, legend keys
    rule: str  # the line above the hover read-out


LIGHT_CHARTS = ChartColors(background="#ffffff", text="#333333", axis="#6e6e6e",
                           grid="#ececec", band="#eeeeee", muted="#8c8c8c", rule="#e4e4e4")
DARK_CHARTS = ChartColors(background="#1e1f22", text="#e3e3e3", axis="#a0a4ab",
                          grid="#303236", band="#2c2e33", muted="#8f949c", rule="#3a3c41")

# (hint, error, banner, success, failure, warning): banner kinds are (text, fill, border)
_LIGHT_CSS = ("#4b5563", "#b91c1c", ("", "#f3f4f6", "#d1d5db"),
              ("", "#ecfdf5", "#86efac"), ("#7f1d1d", "#fef2f2", "#fca5a5"),
              ("#78350f", "#fffbeb", "#fcd34d"))
_DARK_CSS = ("#a3a9b3", "#f87171", ("", "#2b2d31", "#4b5058"),
             ("#bbf7d0", "#0f2e22", "#1f7a4f"), ("#fecaca", "#3b1111", "#9b2c2c"),
             ("#fde68a", "#33250a", "#a16207"))


def style_sheet(dark: bool) -> str:
    hint, error, plain, success, failure, warning = _DARK_CSS if dark else _LIGHT_CSS

    def banner(level: str, colors: tuple[str, str, str]) -> str:
        text, fill, border = colors
        selector = 'QLabel#banner' + (f'[level="{level}"]' if level else "")
        color = f" color: {text};" if text else ""
        return f"{selector} {{ background: {fill}; border-color: {border};{color} }}\n"

    return (
        f'QLabel[role="hint"] {{ color: {hint}; }}\n'
        f'QLabel[role="error"] {{ color: {error}; }}\n'
        "QLabel#banner { padding: 8px 10px; border-radius: 4px; border: 1px solid; }\n"
        + banner("", plain) + banner("success", success) + banner("error", failure)
        + banner("warning", warning)
        + "QPushButton#runButton:enabled { background: #2563eb; color: white; "
        "font-weight: bold; padding: 6px; border-radius: 4px; }\n"
        "QGroupBox { font-weight: bold; }\n"
        "QGroupBox QLabel, QGroupBox QComboBox, QGroupBox QCheckBox, QGroupBox QSpinBox,\n"
        "QGroupBox QDoubleSpinBox, QGroupBox QTableWidget { font-weight: normal; }\n"
    )


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def dark_palette() -> QPalette:
    """Fusion's colours on a dark ground, for platforms that cannot switch themselves."""
    window, base, text = QColor("#2b2d31"), QColor("#1e1f22"), QColor("#e3e3e3")
    palette = QPalette(QColor("#3a3c41"), window)  # button, window: the rest derived
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    for r, color in ((role.WindowText, text), (role.Text, text), (role.ButtonText, text),
                     (role.Base, base), (role.AlternateBase, QColor("#26282c")),
                     (role.ToolTipBase, QColor("#3a3c41")), (role.ToolTipText, text),
                     (role.PlaceholderText, QColor("#8f949c")),
                     (role.Highlight, QColor("#2f6fd0")), (role.HighlightedText, QColor("white")),
                     (role.Link, QColor("#7aa7ff")), (role.BrightText, QColor("#ff6b6b"))):
        palette.setColor(r, color)
    grey = QColor("#7c8089")
    for r in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(group.Disabled, r, grey)
    return palette


def light_palette() -> QPalette:
    palette = QPalette(QColor("#efefef"), QColor("#efefef"))
    palette.setColor(QPalette.ColorRole.Base, QColor("white"))
    palette.setColor(QPalette.ColorRole.Highlight, QColor("#308cc6"))
    return palette


def apply_theme(app: QGuiApplication, theme: str) -> bool:
    """Set ``theme`` ("system", "light", "dark") on ``app``; True when it is now dark."""
    hints = app.styleHints()
    if theme == "system":
        hints.unsetColorScheme()
        app.setPalette(QPalette())  # no roles set: the platform's palette again
    else:
        wanted = Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light
        hints.setColorScheme(wanted)  # the platform's own dark or light, where it can
        if is_dark(app.palette()) != (theme == "dark"):
            app.setPalette(dark_palette() if theme == "dark" else light_palette())
    dark = is_dark(app.palette())
    if hasattr(app, "setStyleSheet"):
        app.setStyleSheet(style_sheet(dark))
    return dark


def chart_colors(palette: QPalette) -> ChartColors:
    return DARK_CHARTS if is_dark(palette) else LIGHT_CHARTS
