"""Bring every translation in step with the code, for each language but English:

- the engine's and the command line's sentences (gettext): extracted with Babel,
  merged into resources/locale/<lang>/LC_MESSAGES/mpstudio.po, compiled to .mo;
- the window's strings (Qt): extracted with pyside6-lupdate, merged into
  resources/i18n/mpstudio_<lang>.ts, compiled with pyside6-lrelease.

A new sentence comes in untranslated; this lists what still needs a translator.

    python scripts/update_translations.py

Translate the .po in any editor and the .ts in Qt Linguist
(``pyside6-linguist resources/i18n/mpstudio_zh_CN.ts``) or any editor, then
run this again to compile. A new language: add it to LANGUAGES in
mpstudio/engine/i18n.py, run this, translate what it lists, and run this again.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from devtools import catalogs, qt_catalogs


def main() -> int:
    left = 0
    for lang in catalogs.TRANSLATED:
        for name, tool in (("engine and CLI (.po)", catalogs), ("window (.ts)", qt_catalogs)):
            tool.update(lang)
            todo = tool.problems(lang)
            print(f"{lang}, {name}: {len(todo)} to do")
            for line in todo:
                print(f"  {line}")
            left += len(todo)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
