"""The wheel carries everything that is not code (resources/ becomes mpstudio.resources),
and the app, imported from the wheel, finds it there."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

from support.paths import ROOT

PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
from importlib import resources
import mpstudio
from mpstudio.engine import i18n
from mpstudio.engine.datasets.digits import read_digits
where = resources.files("mpstudio.resources")
assert str(where).startswith(sys.argv[1]), where
assert str(i18n.LOCALE_DIR).startswith(sys.argv[1]), i18n.LOCALE_DIR
x, y = read_digits()
i18n.set_language("zh_CN")
assert i18n._("dynamic") == "\u52a8\u6001", i18n._("dynamic")  # the .mo from the wheel
print(mpstudio.__file__, len(x))
"""


def test_the_wheel_holds_the_resources_and_the_app_finds_them(tmp_path):
    src = tmp_path / "src"  # a copy: building leaves build/ and *.egg-info behind
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for name in ("mpstudio", "resources"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path / "dist"), str(src)], check=True)
    (wheel,) = (tmp_path / "dist").glob("mpstudio-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    resources = {"mpstudio/" + p.relative_to(ROOT).as_posix()
                 for p in (ROOT / "resources").rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts}
    code = {p.relative_to(ROOT).as_posix() for p in (ROOT / "mpstudio").rglob("*.py")}
    assert resources - names == set()
    assert code - names == set()  # a package missing from pyproject's list
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)  # Apache-2.0's text
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    out = subprocess.run([sys.executable, "-c", PROBE, str(unpacked)], cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith(str(unpacked / "mpstudio")), out


def test_pyproject_lists_every_package():
    """pyproject names the packages, namespace ones (no __init__.py) included: a found
    list cannot map resources/ to mpstudio.resources, so a new sub-package goes there."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts)  # namespace packages too
             for p in (ROOT / "mpstudio").rglob("*.py")}
    assert listed == found | {"mpstudio.resources"}
