"""The tests' Chinese font (tests/support/fonts/, devtools/cjk_test_font.py): it covers every CJK
character of the translations, and in the ``chinese`` fixture Qt draws Chinese with it
(or with an installed Noto Sans CJK: the same glyphs and metrics), in the regular and
the bold weight, as a fallback: the Latin text and a Latin line's height stay the app
font's."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics, QRawFont
from PySide6.QtWidgets import QApplication

from devtools import cjk_test_font


def test_the_subset_covers_every_cjk_character_of_the_translations(qapp):
    needed = cjk_test_font.needed_characters()
    assert len(needed) > 800  # the translations' characters were found
    for path in cjk_test_font.font_files():
        font = QRawFont(str(path), 12)
        assert font.isValid(), path
        missing = sorted(c for c in needed if not font.supportsCharacter(ord(c)))
        assert not missing, (f"{path.name} lacks {''.join(missing)}: run "
                             "scripts/subset_test_font.py")


def test_chinese_is_drawn_with_noto_and_latin_with_the_app_font(qapp, chinese):
    font = QFont(QApplication.font())
    assert cjk_test_font.FAMILY not in font.families()  # a fallback, not the app's font
    latin_height = QFontMetrics(font).height()
    for bold in (False, True):
        font.setBold(bold)
        family = cjk_test_font.draws_han(font)
        # the subset, or an installed Noto Sans CJK (its SC, JP... faces share metrics);
        # another CJK font would make the Chinese layout tests measure other widths
        assert family == cjk_test_font.FAMILY or family.startswith("Noto Sans CJK"), family
        metrics = QFontMetrics(font)
        assert metrics.horizontalAdvance("中文") == 2 * metrics.horizontalAdvance("中")
        assert metrics.boundingRect("中文").height() > latin_height  # the CJK line is taller
    assert QFontMetrics(QApplication.font()).height() == latin_height
