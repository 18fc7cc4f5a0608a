"""The window in the user's language, the Qt way: our strings from a compiled Qt
Linguist catalog (``resources/i18n/mpstudio_<lang>.qm``, made from the ``.ts`` by
``scripts/update_translations.py``) and Qt's own (``qtbase_<lang>.qm``, shipped with
PySide6: the buttons of message boxes and file dialogs).

The language is chosen once, at start (View > Language takes effect at the next one),
and put in ``MPSTUDIO_LANG`` so that the engine process, a child of this one, and the
engine's sentences shown here (gettext, ``engine.i18n``) speak it too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QLibraryInfo,
    QLocale,
    QTranslator,
)

from mpstudio import resources
from mpstudio.engine import i18n

I18N_DIR = resources.folder("i18n")
CHOICES = ("system", *i18n.LANGUAGES)  # what View > Language offers and the settings keep
POSIX_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

NO_CHINESE_FONT = QT_TRANSLATE_NOOP(
    "Translations",
    "No font with Chinese characters is installed, so Chinese text shows as boxes. "
    "Install one (Debian/Ubuntu: `sudo apt install fonts-noto-cjk`; Fedora: `sudo dnf "
    "install google-noto-sans-cjk-fonts`; macOS and Windows have one) and start "
    "mpstudio again, or choose View > Language > English.")

_installed: list[QTranslator] = []  # Qt does not own them: kept alive here
_language = "en"


def resolve_language(choice: str, environ: Mapping[str, str],
                     ui_languages: Sequence[str]) -> str:
    """The language of ``i18n.LANGUAGES`` the window starts in.

    The saved choice (View > Language) first; for "system", ``MPSTUDIO_LANG`` where it
    names one (``mpstudio --lang``, or set by hand), then the POSIX variables where one
    is set (as the engine reads them), else Qt's list of the user's UI languages (macOS
    and Windows keep the language in their settings, not in the environment)."""
    if choice in i18n.LANGUAGES:
        return choice
    asked = environ.get(i18n.ENV, "").strip().lower()
    if asked.startswith(("en", "zh")):
        return "zh_CN" if asked.startswith("zh") else "en"
    if any(environ.get(name) for name in POSIX_VARIABLES):
        return i18n.system_language(environ)
    first = ui_languages[0].lower() if ui_languages else ""
    return "zh_CN" if first.startswith("zh") else "en"


def apply_language(choice: str, app: QCoreApplication) -> tuple[str, list[str]]:
    """Resolve ``choice`` for this system, install its translators in ``app`` and pass
    the language on to the engine (call before the window and the engine process are
    made). Returns the language in force and the catalogs not found."""
    language = resolve_language(choice, os.environ, QLocale.system().uiLanguages())
    os.environ[i18n.ENV] = language  # the engine process inherits the environment
    i18n.set_language(language)
    return language, install(language, app)


def install(language: str, app: QCoreApplication) -> list[str]:
    """Install the translators for ``language`` (after removing any installed before);
    returns the catalogs it could not find (none for English, which needs none)."""
    global _language
    remove(app)
    _language = language
    if language == "en":
        return []
    missing = []
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    for name, folder in ((f"mpstudio_{language}", str(I18N_DIR)),
                         (f"qtbase_{language}", qt_dir)):
        translator = QTranslator()
        if translator.load(name, folder):
            app.installTranslator(translator)
            _installed.append(translator)
        else:
            missing.append(f"{folder}/{name}.qm")
    return missing


def remove(app: QCoreApplication) -> None:
    """English again: every translator ``install`` put in."""
    global _language
    while _installed:
        app.removeTranslator(_installed.pop())
    _language = "en"


def language_in_force() -> str:
    return _language


def translate_early(context: str, text: str, choice: str) -> str:
    """``text`` (marked with QT_TRANSLATE_NOOP(``context``, ...)) in the language ``choice``
    resolves to, before any QApplication exists: what mpstudio prints to the terminal
    when it cannot open a window. ``choice``: ``mpstudio --lang``'s, else the one saved
    under View > Language."""
    language = resolve_language(choice, os.environ, QLocale.system().uiLanguages())
    if language == "en":
        return text
    translator = QTranslator()
    if not translator.load(f"mpstudio_{language}", str(I18N_DIR)):
        return text
    return translator.translate(context, text) or text


def missing_font_note(language: str, chinese_families: Sequence[str]) -> str | None:
    """What to do when Chinese is chosen and no font can draw it (its text would be
    boxes), or None. Given both ways, since without the font the Chinese cannot be read."""
    if language != "zh_CN" or chinese_families:
        return None
    translated = QCoreApplication.translate("Translations", NO_CHINESE_FONT)
    return translated if translated == NO_CHINESE_FONT else f"{translated}\n{NO_CHINESE_FONT}"


def font_note(language: str) -> str | None:
    """``missing_font_note`` for the fonts of this system."""
    from PySide6.QtGui import QFontDatabase

    families = QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
    return missing_font_note(language, families)
