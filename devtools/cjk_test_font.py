"""The Chinese font the tests measure with: a subset of Noto Sans CJK SC (the usual
Chinese font of a Linux desktop) in tests/support/fonts/, so that a layout test in Chinese
measures real CJK glyphs on a machine with no CJK font (CI: a fresh machine, no root),
the glyphs a machine with fonts-noto-cjk measures.

The subset holds Noto's own outlines and metrics (advances, ascent and descent: a
line's height) for every CJK character in the app's translations and the CJK and
full-width punctuation, in its Regular and Bold weights (the verdict and the headings
are bold). Its family name is its own, so the tests can tell it from an installed Noto.
The tests' ``chinese`` fixture loads it as an application font: Qt's font matching
(fontconfig) then falls back to it for the CJK characters the app's font lacks, as it
falls back to an installed Noto CJK, and the app's font keeps drawing the Latin text and
setting a Latin line's height: what the tests measure on a machine with fonts-noto-cjk
installed. (In the app font's family list, or as a substitute for its family, the CJK
font's ascent goes into every line's height: 17 px instead of 14 at 9 pt.) Where an
installed Noto Sans CJK is there too, Qt may take that one: the same glyphs and metrics.

scripts/subset_test_font.py makes it (fontTools); tests/project/test_cjk_test_font.py checks
that it still covers the translations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtGui import QFont

ROOT = Path(__file__).resolve().parents[1]
FONT_DIR = ROOT / "tests" / "support" / "fonts"
FAMILY = "Noto Sans CJK SC Subset"
# weight -> (the subset's file, the collection it is cut from: its SC face)
FACES = {
    "Regular": ("NotoSansCJKsc-Regular-subset.otf",
                "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
    "Bold": ("NotoSansCJKsc-Bold-subset.otf",
             "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"),
}
TRANSLATIONS = (ROOT / "resources" / "i18n" / "mpstudio_zh_CN.ts",
                ROOT / "resources" / "locale" / "zh_CN" / "LC_MESSAGES" / "mpstudio.po")
# CJK Symbols and Punctuation (、。「」《》...), the full-width forms of ASCII and brackets
# (（），：？...) and of the currency and other signs (￥...)
PUNCTUATION = [chr(c) for c in (*range(0x3000, 0x3040), *range(0xFF01, 0xFF61),
                                *range(0xFFE0, 0xFFE7))]
_CJK = re.compile("[\u2e80-\u2fdf\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff"
                  "\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


def cjk_characters(texts: Iterable[str]) -> set[str]:
    return {c for text in texts for c in _CJK.findall(text)}


def needed_characters() -> set[str]:
    """Every CJK character of the translations (the .ts for the window, the .po for the
    engine and the command line), and the CJK punctuation."""
    return cjk_characters(p.read_text(encoding="utf-8") for p in TRANSLATIONS) | set(PUNCTUATION)


def font_files() -> list[Path]:
    return [FONT_DIR / name for name, _source in FACES.values()]


def load() -> str:
    """The subset's faces loaded into Qt (once a process; Qt then drops the fonts it had
    resolved, so text laid out afterwards finds it); returns their family."""
    from PySide6.QtGui import QFontDatabase

    if FAMILY not in QFontDatabase.families():
        for path in font_files():
            if QFontDatabase.addApplicationFont(str(path)) < 0:
                raise RuntimeError(f"Qt could not load the test font {path}")
    return FAMILY


def draws_han(font: QFont) -> str:
    """The family Qt draws Chinese with in ``font``."""
    from PySide6.QtGui import QTextLayout

    layout = QTextLayout("中文", font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return layout.glyphRuns()[0].rawFont().familyName()


def make_subsets() -> list[Path]:
    """Cut the subsets from the system's Noto Sans CJK (fonts-noto-cjk): the SC face of
    each collection, only the needed characters' glyphs (and the glyphs its layout
    features reach from them), hinting and metrics as they are; renamed to FAMILY."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    text = "".join(sorted(needed_characters()))
    written = []
    for weight, (name, source) in FACES.items():
        # the original's timestamps: the same files from the same fonts and translations
        font = TTFont(source, fontNumber=_sc_face(source), lazy=False, recalcTimestamp=False)
        options = subset.Options()
        options.name_IDs = ["*"]  # the copyright, licence and designers' names stay
        options.name_languages = ["*"]
        options.notdef_outline = True
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=text)
        subsetter.subset(font)
        _rename(font, weight)
        out = FONT_DIR / name
        out.parent.mkdir(parents=True, exist_ok=True)
        font.save(out)
        written.append(out)
    return written


def _sc_face(collection: str) -> int:
    from fontTools.ttLib import TTCollection

    fonts = TTCollection(collection, lazy=True).fonts
    return next(i for i, font in enumerate(fonts)
                if font["name"].getDebugName(1) == "Noto Sans CJK SC")


def _rename(font, weight: str) -> None:
    """The family and the names built on it: FAMILY, so the subset is never taken for
    the full font (nor the full font for it)."""
    postscript = f"NotoSansCJKsc-{weight}-Subset"
    full = FAMILY if weight == "Regular" else f"{FAMILY} {weight}"
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 16):
            names.setName(FAMILY, record.nameID, record.platformID, record.platEncID,
                          record.langID)
        elif record.nameID == 4:
            names.setName(full, 4, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 6:
            names.setName(postscript, 6, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 3:
            names.setName(f"{postscript};subset", 3, record.platformID, record.platEncID,
                          record.langID)
    cff = font["CFF "].cff
    cff.fontNames = [postscript]
    top = cff.topDictIndex[0]
    top.FullName = full
    top.FamilyName = FAMILY
