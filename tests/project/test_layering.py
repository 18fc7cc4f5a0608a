"""The engine never imports Qt; the registries and the spec never import TensorFlow."""

from __future__ import annotations

import json
import subprocess
import sys

IMPORT_ALL_ENGINE = """
import importlib, json, pkgutil, sys
import mpstudio.engine as engine
names = [m.name for m in pkgutil.walk_packages(engine.__path__, "mpstudio.engine.")]
for name in names:
    importlib.import_module(name)
print(json.dumps({"modules": names, "loaded": sorted(sys.modules)}))
"""


def _run(code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_engine_loads_no_qt():
    result = _run(IMPORT_ALL_ENGINE)
    assert "mpstudio.engine.trainer.runner" in result["modules"]
    assert "tensorflow" in result["loaded"]  # the import really happened
    qt_roots = ("PySide6", "pyqtgraph", "PyQt5", "PyQt6")
    qt = [m for m in result["loaded"] if m.split(".")[0] in qt_roots]
    assert qt == []


def test_spec_registries_and_hardware_advice_load_without_tensorflow():
    result = _run(
        "import json, sys\n"
        "import mpstudio.cli, mpstudio.engine.spec, mpstudio.engine.spec_checks\n"
        "from mpstudio.engine.datasets import dataset_names\n"
        "from mpstudio.engine.templates import template_names\n"
        "mpstudio.engine.spec_checks.validate_spec(mpstudio.engine.spec.RunSpec())\n"
        "import mpstudio.cli.hardware_tables, mpstudio.engine.hardware.gpu_memory\n"
        "from mpstudio.engine.hardware import advisor, detect, detect_tpu\n"
        "detect.detect_cpu(); detect_tpu.detect_tpu(environ={})\n"
        "print(json.dumps({'modules': [], 'loaded': sorted(sys.modules)}))"
    )
    assert not [m for m in result["loaded"] if m.split(".")[0] in ("tensorflow", "keras")]
