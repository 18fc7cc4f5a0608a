"""Where things are: the repository's root and the tests' own folders, for any test at
any depth (never ``Path(__file__).parents[N]`` in a test file)."""

from __future__ import annotations

from pathlib import Path

SUPPORT = Path(__file__).resolve().parent
TESTS = SUPPORT.parent  # on sys.path: ``import support.x`` in processes the tests start
ROOT = TESTS.parent
