"""Build the standalone one-folder app with PyInstaller: dist/mpstudio/mpstudio[.exe].

    python packaging/build_frozen.py [--out DIR] [--lean] [--reuse] [--archive]

Run it with the Python that has mpstudio's dependencies and the `freeze` extra
(``pip install -e ".[freeze]"``): the folder holds that Python, those packages and their
native libraries, for this platform only. The app is frozen from the wheel ``pip``
would install (built offline and unpacked under build/frozen/), so it holds exactly
what the wheel holds, resources included. Prints the time taken, the folder's size and
its largest parts; the folder's build-info.json says what it was built from.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "frozen"  # the wheel, its unpacked copy, PyInstaller's work files
SPEC = ROOT / "packaging" / "mpstudio.spec"
# What the wheel is built from (as tests/project/test_wheel.py builds it), and what freezes it.
SOURCES = ("pyproject.toml", "README.md", "mpstudio", "resources")
LICENSES = ("LICEN[CS]E*", "COPYING*", "NOTICE*")  # setuptools puts these in the wheel
FREEZING = ("packaging/build_frozen.py", "packaging/frozen_main.py", "packaging/mpstudio.spec")
INFO = "build-info.json"
INSTALL_HINT = ('pip install -e ".[freeze]"   (or: pip install "pyinstaller>=6.11" '
                '"pyinstaller-hooks-contrib>=2025.1")')
# pyproject's export and tensorboard extras (left out with --lean), by a module each installs
EXTRA_MODULES = ("ai_edge_litert", "tf2onnx", "onnxruntime", "tensorboard")


def missing_tools(extras: bool = False) -> str | None:
    """Why this Python cannot build the app, or None."""
    absent = [dist for dist, module in (("pyinstaller", "PyInstaller"),
                                        ("pyinstaller-hooks-contrib", "_pyinstaller_hooks_contrib"))
              if importlib.util.find_spec(module) is None]
    if absent:
        return (f"{' and '.join(absent)} not installed in {sys.executable}; install with\n"
                f"  {Path(sys.executable).name} -m {INSTALL_HINT}")
    absent = [m for m in EXTRA_MODULES if importlib.util.find_spec(m) is None]
    if extras and absent:
        return (f"{', '.join(absent)} not installed in {sys.executable}; install with\n"
                f'  {Path(sys.executable).name} -m pip install -e ".[export,tensorboard]"\n'
                "or build with --lean (no TFLite/ONNX export, no TensorBoard)")
    return None


def _source_files() -> list[Path]:
    files = [ROOT / name for name in (*FREEZING, "pyproject.toml", "README.md")]
    for pattern in LICENSES:
        files += ROOT.glob(pattern)
    for folder in ("mpstudio", "resources"):
        files += (p for p in (ROOT / folder).rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    return sorted(files)


def source_hash(extras: bool = False) -> str:
    """A fingerprint of what a build is made from: the sources, this script and its spec,
    the Python with its installed packages (a TensorFlow upgrade is a new build), and
    whether the extras are in."""
    digest = hashlib.sha256(b"extras\0" if extras else b"")
    for path in _source_files():
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    installed = sorted(f"{d.metadata['Name']}=={d.version}"
                       for d in importlib.metadata.distributions())
    digest.update("\n".join([sys.executable, sys.version, *installed]).encode())
    return digest.hexdigest()


def built_from(folder: Path) -> str | None:
    """The source_hash a built folder was made from (None: no finished build there).
    The file is written last, and PyInstaller empties the folder first, so a build that
    failed half-way leaves none."""
    try:
        return json.loads((folder / INFO).read_text(encoding="utf-8"))["sources"]
    except (OSError, ValueError, KeyError):
        return None


def build_wheel(work: Path) -> Path:
    """The wheel, built offline from a copy of the sources (building in the repository
    would leave build/lib and *.egg-info there, and stale files in build/lib would go
    into the wheel)."""
    src = work / "src"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            src.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, src / name)
    for pattern in LICENSES:
        for path in ROOT.glob(pattern):
            shutil.copy(path, src / path.name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "-q", "-w", str(work / "wheel"), str(src)],
                   check=True)
    (wheel,) = (work / "wheel").glob("mpstudio-*.whl")
    return wheel


def freeze(site: Path, out: Path, work: Path, extras: bool) -> Path:
    """Run PyInstaller on the spec: ``out``/mpstudio, the app's folder."""
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean",
               "--log-level", "WARN", "--distpath", str(out), "--workpath", str(work / "pyi"),
               str(SPEC), "--", "--site", str(site), *(["--extras"] if extras else [])]
    # The spec's collect_* calls import mpstudio in helper processes before Analysis puts
    # --site on sys.path: PYTHONPATH shows them the wheel's copy too. The working folder
    # is not the repository, whose mpstudio/ (without resources/) `-m` would put first.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
    subprocess.run(command, check=True, env=env, cwd=work)
    return out / "mpstudio"


def _files(folder: Path) -> list[tuple[int, Path]]:
    # Symbolic links (PyInstaller makes a few) point into the folder: counted once.
    return [(p.stat().st_size, p) for p in folder.rglob("*")
            if p.is_file() and not p.is_symlink()]


def describe(folder: Path, seconds: float) -> dict:
    """Print the time taken, the size and the largest parts; the numbers for INFO."""
    files = _files(folder)
    total = sum(size for size, _ in files)
    inside = folder / "_internal" if (folder / "_internal").is_dir() else folder
    parts: dict[str, int] = {}
    for size, path in files:
        rel = path.relative_to(inside) if path.is_relative_to(inside) else path.name
        key = Path(rel).parts[0] + ("/" if len(Path(rel).parts) > 1 else "")
        parts[key] = parts.get(key, 0) + size

    def mib(n: int) -> str:
        return f"{n / 2**20:,.0f} MiB"

    print(f"built {folder} in {seconds:.0f} s: {mib(total)} in {len(files):,} files")
    largest = sorted(parts.items(), key=lambda kv: -kv[1])[:8]
    print("  largest parts: " + ", ".join(f"{name} {mib(size)}" for name, size in largest))
    biggest = sorted(files, reverse=True)[:5]
    print("  largest files: " + ", ".join(f"{p.relative_to(folder)} {mib(s)}"
                                          for s, p in biggest))
    return {"seconds": round(seconds, 1), "bytes": total, "files": len(files)}


def archive(folder: Path) -> Path:
    """The folder as one file to hand out: .zip on Windows, .tar.gz elsewhere."""
    version = json.loads((folder / INFO).read_text(encoding="utf-8"))["version"]
    name = f"mpstudio-{version}-{sys.platform}-{platform.machine().lower()}"
    start = time.monotonic()
    made = Path(shutil.make_archive(str(folder.parent / name),
                                    "zip" if os.name == "nt" else "gztar",
                                    root_dir=folder.parent, base_dir=folder.name))
    print(f"archived {made} in {time.monotonic() - start:.0f} s: "
          f"{made.stat().st_size / 2**20:,.0f} MiB")
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist",
                        help="the folder to put the app's folder (mpstudio/) in (default: dist)")
    parser.add_argument("--lean", action="store_true",
                        help="leave out the export and tensorboard extras (TFLite and ONNX "
                             "export, TensorBoard; about 88 MiB): their menu entries then "
                             "grey out, as in a pip install without them")
    parser.add_argument("--reuse", action="store_true",
                        help="keep an existing build made from these very sources and "
                             "packages (build-info.json says) instead of building again")
    parser.add_argument("--archive", action="store_true",
                        help="also pack the folder into one .tar.gz (.zip on Windows)")
    args = parser.parse_args(argv)
    args.extras = not args.lean  # a standalone app cannot `pip install` what it lacks
    out = args.out.resolve()
    if any(out.is_relative_to(ROOT / inside) for inside in ("mpstudio", "resources")):
        parser.error("--out must not be inside the package: the next build would take it in")
    problem = missing_tools(args.extras)
    if problem:
        print(f"build_frozen: {problem}", file=sys.stderr)
        return 2
    sources = source_hash(args.extras)
    folder = out / "mpstudio"
    if args.reuse and built_from(folder) == sources:
        print(f"{folder} was built from these sources: kept")
    else:
        start = time.monotonic()
        shutil.rmtree(WORK, ignore_errors=True)
        WORK.mkdir(parents=True)
        wheel = build_wheel(WORK)
        site = WORK / "site"
        with zipfile.ZipFile(wheel) as whl:
            whl.extractall(site)
        freeze(site, out, WORK, args.extras)
        numbers = describe(folder, time.monotonic() - start)
        info = {"sources": sources, "version": wheel.name.split("-")[1], "extras": args.extras,
                "python": sys.version.split()[0], "platform": platform.platform(),
                "pyinstaller": importlib.metadata.version("pyinstaller"), **numbers}
        (folder / INFO).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    if args.archive:
        archive(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
