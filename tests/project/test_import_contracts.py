"""The layering contracts in pyproject.toml ([tool.importlinter]) hold: cli above the
window above the engine; the engine free of Qt, rich and the front ends; the window's
models free of Qt; the window without a direct TensorFlow import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.paths import ROOT


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "4 kept, 0 broken" in proc.stdout, proc.stdout[-2000:]
