"""Bring the engine's gettext catalogs in step with the code: extract every marked
sentence, merge it into each language's .po (a new one comes in untranslated: fill its
msgstr), compile the .mo files the app reads, and list what still needs a translator.

    python scripts/update_catalogs.py

A new language: add it to LANGUAGES in mpstudio/engine/i18n.py, run this, translate
mpstudio/resources/locale/<lang>/LC_MESSAGES/mpstudio.po, and run this again.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from devtools.catalogs import TRANSLATED, problems, update


def main() -> int:
    left = 0
    for lang in TRANSLATED:
        catalog = update(lang)
        todo = problems(lang)
        print(f"{lang}: {len([m for m in catalog if m.id])} messages, {len(todo)} to do")
        for line in todo:
            print(f"  {line}")
        left += len(todo)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
