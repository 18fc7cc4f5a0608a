"""Cut the tests' Chinese font (tests/support/fonts/) from the system's Noto Sans CJK SC: the
glyphs of every CJK character in the translations, and the CJK punctuation, in Regular
and Bold (devtools/cjk_test_font.py says why and how the tests use it).

Run by a maintainer after the translations gain characters (tests/project/test_cjk_test_font.py
fails then, naming them), on a machine with fonts-noto-cjk and fontTools:
    pip install fonttools
    python scripts/subset_test_font.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from devtools import cjk_test_font


def main() -> int:
    characters = cjk_test_font.needed_characters()
    for path in cjk_test_font.make_subsets():
        print(f"{path.relative_to(cjk_test_font.ROOT)}: {path.stat().st_size:,} bytes")
    print(f"{len(characters)} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
