"""Bring the window's Qt translations in step with the code: extract every string the
GUI passes to Qt's translation functions, merge it into each language's .ts (a new one
comes in unfinished, translated ones are kept), compile the .qm files the window loads,
and list what still needs a translator.

    python scripts/update_translations.py

Translate in Qt Linguist (``pyside6-linguist mpstudio/resources/i18n/mpstudio_zh_CN.ts``)
or by editing the .ts, then run this again to compile. A new language: add it to
LANGUAGES in mpstudio/engine/i18n.py (and to LANGUAGE_NAMES in
mpstudio/ui/window/view_menu.py), run this, translate its new .ts, and run this again.
The engine's own sentences are gettext catalogs: scripts/update_catalogs.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from devtools.qt_catalogs import TRANSLATED, problems, ts_path, update


def main() -> int:
    left = 0
    for lang in TRANSLATED:
        catalog = update(lang)
        todo = problems(lang)
        print(f"{ts_path(lang).name}: {len(catalog)} strings, {len(todo)} to do")
        for line in todo:
            print(f"  {line}")
        left += len(todo)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
