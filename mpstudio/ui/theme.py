"""Light and dark: the app's palette, its style sheet and every colour the window draws
with (text roles, banners, verdicts, links, charts), each in a light and a dark kind.

The window follows the system's colour scheme (Qt 6.5+ hands Fusion a dark palette
where the platform is dark) unless the user picks one under View > Theme. Where the
platform cannot switch (Linux without a portal, offscreen) an explicit palette
stands in. What is drawn is chosen by the palette in force, so a scheme the system
changes while the app runs is followed as well.

A theme switch changes the palette only. The application's style sheet holds no
colour and is set once: setting one on the application re-polishes every widget of
the window (155-395 ms on 2 cores). The few widgets with colours of their own get
them from ``themed`` (a style sheet of their own, set again when the palette turns).
By default Qt stops a new palette at every widget a style sheet covers (the whole
window, under an application's sheet) until it is re-polished: the application runs
with AA_UseStyleSheetPropagationInWidgetStyles, under which the palette goes on down
as it does without a sheet (and so do a sheet's fonts: hence the font rules below).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from mpstudio.engine.hardware.verdict_rules import Verdict

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
    baseline: str  # the float32 run's curves
    mixed: str  # the run under study (a single run too)
    others: tuple[str, ...]  # further runs on the same charts, in turn


LIGHT_CHARTS = ChartColors(background="#ffffff", text="#333333", axis="#6e6e6e",
                           grid="#ececec", band="#eeeeee", muted="#8c8c8c", rule="#e4e4e4",
                           baseline="#5b7590", mixed="#e8710a",
                           others=("#2e8b57", "#8e5bb5", "#c0392b", "#1f9bb4"))
# Curves at least 4.5:1 against the dark background: the light ones' blue-grey was 3.4:1
DARK_CHARTS = ChartColors(background="#1e1f22", text="#e3e3e3", axis="#a0a4ab",
                          grid="#303236", band="#2c2e33", muted="#8f949c", rule="#3a3c41",
                          baseline="#9db8d6", mixed="#f5892a",
                          others=("#4cc38a", "#b694e0", "#f07b6e", "#4fc3dc"))

Tone = tuple[str, str, str]  # (text, fill, border); "" text: the palette's own


@dataclass(frozen=True)
class ThemeColors:
    hint: str  # QLabel role "hint": explanations under a field
    error: str  # error text: what failed, what to fix
    link: str  # the palette's Link: "How is this decided?" and other rich-text links
    plain: Tone  # a banner without a level
    tones: Mapping[str, Tone]  # verdict.tone_of's good / bad / warn: banners, verdict box
    verdict: Mapping[Verdict, str]  # the advisor's verdict marks as text
    half: str  # a layer's half-precision compute dtype in the layer table
# Text colours are 4.5:1 or more against their theme's window (WCAG AA): one set for
# both grounds was 2.8-3.8:1 on either.


LIGHT = ThemeColors(
    hint="#4b5563", error="#b91c1c", link="#1d4ed8",
    plain=("", "#f3f4f6", "#d1d5db"),
    tones={"good": ("#14532d", "#ecfdf5", "#86efac"),
           "bad": ("#7f1d1d", "#fef2f2", "#fca5a5"),
           "warn": ("#78350f", "#fffbeb", "#fcd34d")},
    verdict={Verdict.RECOMMENDED: "#1f7a2c", Verdict.NO_GAIN: "#616161",
             Verdict.SLOWER: "#945800", Verdict.MEASURE: "#2a62c9",
             Verdict.UNSUPPORTED: "#c8322f"},
    half="#c2410c")
DARK = ThemeColors(
    hint="#a3a9b3", error="#f87171", link="#7aa7ff",
    plain=("", "#2b2d31", "#4b5058"),
    tones={"good": ("#bbf7d0", "#0f2e22", "#1f7a4f"),
           "bad": ("#fecaca", "#3b1111", "#9b2c2c"),
           "warn": ("#fde68a", "#33250a", "#a16207")},
    verdict={Verdict.RECOMMENDED: "#5ccf7a", Verdict.NO_GAIN: "#a0a4ab",
             Verdict.SLOWER: "#f0a830", Verdict.MEASURE: "#7aa7ff",
             Verdict.UNSUPPORTED: "#f87171"},
    half="#fb923c")
BANNER_TONES = {"success": "good", "error": "bad", "warning": "warn"}  # level -> tone

# Shapes and weights only: the same in both themes, so it is set once (see above).
STYLE_SHEET = (
    "QLabel#banner { padding: 8px 10px; border-radius: 4px; border: 1px solid; }\n"
    "QPushButton#runButton:enabled { background: #2563eb; color: white; "
    "font-weight: bold; padding: 6px; border-radius: 4px; }\n"
    # A bold title over normal contents (the sheet's fonts go down to children: see above)
    "QGroupBox { font-weight: bold; }\n"
    "QGroupBox QWidget { font-weight: normal; }\n"
)


def banner_sheet(colors: ThemeColors) -> str:
    """A banner's colours at each of its levels (the ``level`` property picks one)."""
    def rule(level: str, tone: Tone) -> str:
        text, fill, border = tone
        selector = "QLabel#banner" + (f'[level="{level}"]' if level else "")
        color = f" color: {text};" if text else ""
        return f"{selector} {{ background: {fill}; border-color: {border};{color} }}\n"

    return rule("", colors.plain) + "".join(
        rule(level, colors.tones[tone]) for level, tone in BANNER_TONES.items())


def role_sheet(colors: ThemeColors) -> str:
    """A label's text colour by its ``role`` property: "hint" or "error"."""
    return (f'QLabel[role="hint"] {{ color: {colors.hint}; }}\n'
            f'QLabel[role="error"] {{ color: {colors.error}; }}\n')


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def colors(dark: bool | None = None) -> ThemeColors:
    """The colours of the theme in force (the application's palette), or of ``dark``'s."""
    if dark is None:
        dark = is_dark(QGuiApplication.palette())
    return DARK if dark else LIGHT


def chart_colors(palette: QPalette) -> ChartColors:
    return DARK_CHARTS if is_dark(palette) else LIGHT_CHARTS


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
                     (role.BrightText, QColor("#ff6b6b"))):
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


def _with_links(palette: QPalette, dark: bool) -> QPalette:
    """The theme's link colour over ``palette``'s: a platform's dark palette can keep a
    dark blue link (unreadable on its dark ground)."""
    link = QColor(colors(dark).link)
    for role in (QPalette.ColorRole.Link, QPalette.ColorRole.LinkVisited):
        palette.setColor(role, link)
    return palette


def apply_theme(app: QGuiApplication, theme: str) -> bool:
    """Set ``theme`` ("system", "light", "dark") on ``app``; True when it is now dark."""
    hints = app.styleHints()
    if theme == "system":
        hints.unsetColorScheme()
        # The links alone: every other role is the platform's palette again
        platform_dark = hints.colorScheme() == Qt.ColorScheme.Dark
        app.setPalette(_with_links(QPalette(), platform_dark))
        if is_dark(app.palette()) != platform_dark:  # a platform that says no scheme
            app.setPalette(_with_links(QPalette(), not platform_dark))
    else:
        wanted = Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light
        hints.setColorScheme(wanted)  # the platform's own dark or light, where it can
        dark = theme == "dark"
        switched = is_dark(app.palette()) == dark
        palette = app.palette() if switched else dark_palette() if dark else light_palette()
        app.setPalette(_with_links(palette, dark))
    if isinstance(app, QApplication) and app.styleSheet() != STYLE_SHEET:
        QCoreApplication.setAttribute(
            Qt.ApplicationAttribute.AA_UseStyleSheetPropagationInWidgetStyles)
        app.setStyleSheet(STYLE_SHEET)  # once: it re-polishes every widget there is
    return is_dark(app.palette())
