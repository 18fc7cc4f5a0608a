"""The desktop entry, the AppStream metainfo and ``mpstudio desktop install/uninstall``:
the shipped files' fields (everywhere) and their validators (where installed); an install
into a fresh XDG data folder whose entry launches the launcher it names; the macOS
bundle and the Windows shortcut's PowerShell, written and checked on any system."""

from __future__ import annotations

import base64
import json
import os
import plistlib
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import mpstudio
from mpstudio import APP_ID
from mpstudio.cli import desktop_entry, desktop_shortcuts, main
from mpstudio.cli.desktop_entry import (
    LINUX,
    DesktopError,
    Places,
    exec_argument,
    find_launcher,
    install_xdg,
    uninstall_xdg,
)
from mpstudio.engine import i18n

from support.desktop_files import DESKTOP_FILE, METAINFO_FILE, SHIPPED, read_entry
from support.language_check import english_words
from support.paths import ROOT

VENV_LAUNCHER = Path(sys.executable).parent / "mpstudio-gui"
# What update-desktop-database writes beside the entries: a cache, not ours.
CACHES = {"mimeinfo.cache", "icon-theme.cache"}
ODD_FOLDER = "bin $HOME \"q\" 'a' `x` \\ 中文"  # every kind of quoting the spec has


def _pyproject() -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def exec_arguments(value: str) -> list[str]:
    """An Exec value read back as the Desktop Entry spec says: the string escapes first
    (\\s \\n \\t \\r \\\\), then the quoting (\\" \\` \\$ \\\\ inside double quotes),
    then %% as %."""
    escapes = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
    text = re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(0)), value)
    args, current, quoted, i = [], None, False, 0
    while i < len(text):
        c = text[i]
        if quoted and c == "\\" and text[i + 1] in '"`$\\':
            current, i = current + text[i + 1], i + 2
            continue
        if c == '"':
            quoted, current = not quoted, current or ""
        elif c == " " and not quoted:
            if current is not None:
                args.append(current)
            current = None
        else:
            current = (current or "") + c
        i += 1
    assert not quoted, value
    if current is not None:
        args.append(current)
    return [arg.replace("%%", "%") for arg in args]


def fake_launcher(folder: Path, marker: Path) -> Path:
    """An executable named like the launcher that records its arguments in ``marker``."""
    folder.mkdir(parents=True)
    launcher = folder / "mpstudio-gui"
    launcher.write_text(f'#!/bin/sh\nprintf "%s\\n" "ran" "$@" > {_sh(marker)}\n',
                        encoding="utf-8")
    launcher.chmod(0o755)
    return launcher


def _sh(path: Path) -> str:
    return "'" + str(path).replace("'", "'\\''") + "'"


@pytest.fixture
def data_home(tmp_path, monkeypatch) -> Path:
    """This user's folders are the test's: HOME and XDG_DATA_HOME."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    home = tmp_path / "home" / "share"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


# ------------------------------------------------------------ the shipped files


def test_the_desktop_entry_names_the_app_its_icon_and_the_launcher():
    entry = read_entry(DESKTOP_FILE)
    assert DESKTOP_FILE.name == f"{APP_ID}.desktop"
    assert entry["Type"] == "Application" and entry["Name"] == "mpstudio"
    assert entry["Icon"] == APP_ID
    gui_scripts = _pyproject()["project"]["gui-scripts"]
    assert exec_arguments(entry["Exec"]) == ["mpstudio-gui"] and "mpstudio-gui" in gui_scripts
    assert entry["TryExec"] == "mpstudio-gui"
    assert entry["Terminal"] == "false"
    assert entry["StartupWMClass"] == "mpstudio"  # launch()'s applicationName (test_app_icon)
    for key in ("GenericName", "Comment", "Keywords"):
        assert entry[key] and re.search(r"[\u4e00-\u9fff]", entry[f"{key}[zh_CN]"]), key
    categories = entry["Categories"].split(";")
    assert categories[-1] == "" and "Science" in categories  # a main category, ; ended
    assert entry["Keywords"].endswith(";")


def test_the_metainfo_matches_the_package():
    root = ET.parse(METAINFO_FILE).getroot()
    lang = "{http://www.w3.org/XML/1998/namespace}lang"
    project = _pyproject()["project"]
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID and METAINFO_FILE.name == f"{APP_ID}.metainfo.xml"
    assert root.findtext("name") == "mpstudio"
    assert root.findtext("project_license") == project["license"]
    assert root.findtext("metadata_license") == "CC0-1.0"
    launchable = root.find("launchable")
    assert launchable.get("type") == "desktop-id" and launchable.text == f"{APP_ID}.desktop"
    binaries = {b.text for b in root.iterfind("provides/binary")}
    assert binaries == set(project["scripts"]) | set(project["gui-scripts"])
    releases = root.findall("releases/release")
    assert releases[0].get("version") == mpstudio.__version__ == project["version"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", releases[0].get("date"))
    assert root.find("content_rating").get("type") == "oars-1.1"
    assert root.findtext("developer/name")
    assert {u.get("type") for u in root.iterfind("url")} >= {"homepage", "bugtracker"}
    summaries = {s.get(lang): s.text for s in root.iterfind("summary")}
    assert set(summaries) == {None, "zh_CN"}
    paragraphs = [p.get(lang) for p in root.iterfind("description/p")]
    assert paragraphs.count(None) == paragraphs.count("zh_CN") >= 1


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate is not installed")
def test_desktop_file_validate_finds_nothing_to_say():
    done = subprocess.run(["desktop-file-validate", str(DESKTOP_FILE)], capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")  # warnings exit 0 too


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="appstreamcli is absent")
def test_appstreamcli_validates_the_metainfo_strictly():
    version = subprocess.run(["appstreamcli", "--version"], capture_output=True, text=True,
                             timeout=60).stdout
    major = int(re.search(r"(\d+)\.\d+", version).group(1))
    done = subprocess.run(["appstreamcli", "validate", "--no-net", "--strict", "--pedantic",
                           str(METAINFO_FILE)], capture_output=True, text=True, timeout=60)
    issues = re.findall(r"^[EWIP]: .*$", done.stdout, re.M)
    # <developer> is AppStream 1.0's (it replaced <developer_name>): 0.x calls it unknown
    if major < 1:
        assert [re.sub(r":\d+:", ":N:", issue) for issue in issues] == \
            [f"I: {APP_ID}:N: unknown-tag developer"], done.stdout
    else:
        assert issues == [], done.stdout
    assert done.returncode == (0 if major >= 1 else 3), done.stdout


# ------------------------------------------------------------ install / uninstall (XDG)


def test_install_writes_the_entry_metainfo_and_icons_and_uninstall_takes_them_back(
        data_home, capsys):
    assert main(["desktop", "install"]) == 0
    out = capsys.readouterr().out
    launcher = VENV_LAUNCHER.absolute()
    assert out.startswith(f"Added mpstudio to the app menu; it starts {launcher}\n")
    sizes = sorted((p.parent.name for p in Path(str(SHIPPED / "icons")).glob("*/mpstudio.png")),
                   key=lambda s: int(s.split("x")[0]))
    assert sizes == ["16x16", "24x24", "32x32", "48x48", "64x64", "128x128", "256x256",
                     "512x512"]
    shipped = {data_home / "metainfo" / f"{APP_ID}.metainfo.xml": METAINFO_FILE,
               data_home / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg":
                   SHIPPED / "icons" / "mpstudio.svg",
               **{data_home / "icons/hicolor" / size / "apps" / f"{APP_ID}.png":
                  SHIPPED / "icons" / size / "mpstudio.png" for size in sizes}}
    for path, source in shipped.items():
        assert path.read_bytes() == source.read_bytes(), path
        assert f"  {path}\n" in out
    entry_path = data_home / "applications" / f"{APP_ID}.desktop"
    assert f"  {entry_path}\n" in out
    entry = read_entry(entry_path)
    command = exec_arguments(entry["Exec"])
    assert command == [str(launcher)] and entry["TryExec"] == str(launcher)
    assert os.access(command[0], os.X_OK) and Path(command[0]).is_absolute()
    shipped_entry = read_entry(DESKTOP_FILE)
    assert {k: v for k, v in entry.items() if "Exec" not in k} == \
        {k: v for k, v in shipped_entry.items() if "Exec" not in k}
    ours = {p for p in data_home.rglob("*") if p.is_file() and p.name not in CACHES}
    assert ours == {*shipped, entry_path}
    assert [p for p in data_home.rglob(".*tmp")] == []  # no temporary file left

    assert main(["desktop", "uninstall", "--json"]) == 0
    removed = json.loads(capsys.readouterr().out)
    assert removed["platform"] == "linux" and set(map(Path, removed["removed"])) == ours
    left = [p for p in data_home.rglob("*") if p.is_file()]
    assert {p.name for p in left} <= CACHES
    assert all(APP_ID.encode() not in p.read_bytes() for p in left)
    assert not (data_home / "icons" / "hicolor" / "48x48").exists()  # emptied size folders
    assert main(["desktop", "uninstall"]) == 0
    assert capsys.readouterr().out == "mpstudio was not in the app menu: nothing to remove.\n"


def test_an_odd_launcher_path_is_quoted_so_the_entry_starts_it(tmp_path):
    """Spaces, quotes, $, a backtick, a backslash and Chinese in the launcher's folder:
    the Exec line quotes and escapes each as the spec says; the validator accepts it,
    and GLib (which GNOME launches entries with) runs the launcher it names."""
    marker = tmp_path / "ran.txt"
    launcher = fake_launcher(tmp_path / ODD_FOLDER, marker)
    assert find_launcher(LINUX, folders=[tmp_path / "nothing", launcher.parent],
                         search_path="") == launcher
    places = Places(tmp_path / "home", {"XDG_DATA_HOME": str(tmp_path / "data")})
    done = install_xdg(places, launcher)
    entry_path = tmp_path / "data" / "applications" / f"{APP_ID}.desktop"
    assert entry_path in done.written
    entry = read_entry(entry_path)
    assert exec_arguments(entry["Exec"]) == [str(launcher)]
    assert entry["Exec"].startswith('"/')
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(entry_path)],
                               capture_output=True, text=True, timeout=60)
        assert check.stdout + check.stderr == ""
    if shutil.which("gio"):
        subprocess.run(["gio", "launch", str(entry_path)], check=True, timeout=60,
                       capture_output=True, env=dict(os.environ, DISPLAY=""))
        deadline = time.monotonic() + 20
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marker.read_text(encoding="utf-8") == "ran\n"
    assert set(uninstall_xdg(places)) == set(done.written)


def test_a_launcher_path_with_a_percent_sign_is_refused(tmp_path):
    """The spec writes % as %%, but GLib looks for the program before turning %% back
    into %, finds none and leaves the entry out of GNOME's menus (checked with gio
    launch): the command says so instead of writing an entry that never shows."""
    launcher = fake_launcher(tmp_path / "100%", tmp_path / "ran.txt")
    places = Places(tmp_path / "home", {"XDG_DATA_HOME": str(tmp_path / "data")})
    with pytest.raises(DesktopError, match=r"GNOME does not find a program whose path holds"):
        install_xdg(places, launcher)
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(("arg", "written"), [
    ("/usr/bin/mpstudio-gui", "/usr/bin/mpstudio-gui"),
    ("/opt/my apps/mpstudio-gui", '"/opt/my apps/mpstudio-gui"'),
    ('/o/a"b$c`d\\e', r'"/o/a\\"b\\$c\\`d\\\\e"'),  # quoted, then escaped as a string
    ("/o/100%", "/o/100%%"),
])
def test_exec_arguments_are_written_as_the_spec_says(arg, written):
    assert exec_argument(arg) == written
    assert exec_arguments(written) == [arg]


def test_no_launcher_found_says_what_to_do_and_writes_nothing(data_home, tmp_path,
                                                               monkeypatch, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setattr(desktop_entry, "launcher_folders", lambda: [empty])
    monkeypatch.setenv("PATH", str(empty))
    assert find_launcher(LINUX) is None
    assert main(["desktop", "install"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mpstudio desktop install: error: the window's launcher "
                          f"mpstudio-gui is neither beside {sys.executable} nor on PATH.")
    assert "`pip install --force-reinstall mpstudio`" in err
    assert not data_home.exists()


def test_a_data_folder_that_cannot_be_written_is_named_with_what_to_do(tmp_path,
                                                                        monkeypatch, capsys):
    """$XDG_DATA_HOME is a file (the root user's chmod would not stop a write): one line
    naming the path and the way out, exit 1, no traceback."""
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocked))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["desktop", "install"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"mpstudio desktop install: error: cannot change {blocked}")
    assert "Check that this user may write there" in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_a_blocked_icons_folder_stops_the_install_before_anything_is_written(data_home,
                                                                             capsys):
    """Issue 35: with $XDG_DATA_HOME/icons a file, the command said so (exit 1) after
    writing the entry and the metainfo: a menu entry without its icon. Every target is
    checked first: nothing is written."""
    data_home.mkdir(parents=True)
    (data_home / "icons").write_text("not a folder")
    assert main(["desktop", "install"]) == 1
    err = capsys.readouterr().err
    assert err == (f"mpstudio desktop install: error: cannot change {data_home / 'icons'}: "
                   "Not a directory. Check that this user may write there (owner, "
                   "permissions, a read-only disk) and try again\n")
    assert [p.name for p in data_home.rglob("*")] == ["icons"]  # no entry, no metainfo


def test_a_frozen_app_is_its_own_launcher(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert find_launcher(LINUX, folders=[]) == Path(sys.executable).resolve()


def test_install_speaks_chinese(data_home, monkeypatch, capsys):
    monkeypatch.setenv(i18n.ENV, "en")
    try:
        assert main(["--lang", "zh_CN", "desktop", "install"]) == 0
        out = capsys.readouterr().out
        assert main(["--lang", "zh_CN", "desktop", "uninstall"]) == 0
        out += capsys.readouterr().out
    finally:
        i18n.set_language("en")
    assert out.startswith("已将 mpstudio 加入应用菜单，它会启动 ")
    assert "\n已写入：\n" in out and "\n已从应用菜单中移除 mpstudio：\n" in out
    assert english_words(out, {"mpstudio", "update", "desktop", "database"}) == []


# ------------------------------------------------------------ macOS and Windows


def test_the_macos_bundle_opens_the_launcher(tmp_path):
    marker = tmp_path / "ran.txt"
    launcher = fake_launcher(tmp_path / ODD_FOLDER, marker)
    places = Places(tmp_path / "home")
    done = desktop_shortcuts.install_macos(places, launcher)
    bundle = tmp_path / "home" / "Applications" / "mpstudio.app"
    contents = bundle / "Contents"
    plist = plistlib.loads((contents / "Info.plist").read_bytes())
    assert plist["CFBundleIdentifier"] == APP_ID
    assert plist["CFBundleShortVersionString"] == mpstudio.__version__
    assert plist["CFBundlePackageType"] == "APPL"
    script = contents / "MacOS" / plist["CFBundleExecutable"]
    icns = contents / "Resources" / plist["CFBundleIconFile"]
    assert set(done.written) == {contents / "Info.plist", script, icns}
    assert icns.read_bytes() == (SHIPPED / "icons" / "mpstudio.icns").read_bytes()
    assert os.access(script, os.X_OK)
    subprocess.run([str(script), "--flag", "two words"], check=True, timeout=60)
    assert marker.read_text(encoding="utf-8") == "ran\n--flag\ntwo words\n"
    assert set(desktop_shortcuts.uninstall_macos(places)) == set(done.written)
    assert not bundle.exists()


def test_a_macos_bundle_not_ours_is_left_alone(tmp_path):
    places = Places(tmp_path / "home")
    foreign = tmp_path / "home" / "Applications" / "mpstudio.app" / "Contents" / "MacOS"
    foreign.mkdir(parents=True)
    (foreign / "mpstudio").write_text("the standalone build\n", encoding="utf-8")
    for step in (lambda: desktop_shortcuts.install_macos(places, VENV_LAUNCHER),
                 lambda: desktop_shortcuts.uninstall_macos(places)):
        with pytest.raises(DesktopError, match="was not made by `mpstudio desktop install`"):
            step()
    assert (foreign / "mpstudio").read_text(encoding="utf-8") == "the standalone build\n"


def test_the_macos_command_prints_what_it_wrote(tmp_path, capsys):
    from mpstudio.cli.desktop_command import run_desktop_command
    from mpstudio.cli.main import build_parser

    places = Places(tmp_path / "home")
    args = build_parser().parse_args(["desktop", "install", "--json"])
    assert run_desktop_command(args, places, "macos") == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["platform"] == "macos"
    assert shown["written"][0] == str(tmp_path / "home/Applications/mpstudio.app/Contents"
                                      "/Info.plist")


def test_the_windows_shortcut_script_quotes_every_path(tmp_path):
    """PowerShell reads a single-quoted string literally; a quote inside is doubled, and
    PowerShell takes the typographic single quotes for quotes too."""
    shortcut = Path(r"C:\Users\O'Brien\AppData\Roaming\Microsoft\Windows\Start Menu"
                    r"\Programs\mpstudio.lnk")
    target = Path(r"C:\Users\O'Brien\venv $env:X\Scripts\mpstudio-gui.exe")
    icon = Path("C:\\Users\\O'Brien\\site\u2019s\\mpstudio.ico")
    script = desktop_shortcuts.shortcut_script(shortcut, target, icon, Path(r"C:\Users\x"),
                                               "Mixed-precision training workbench")
    assert script.splitlines() == [
        "$ErrorActionPreference = 'Stop'",
        "$link = (New-Object -ComObject WScript.Shell).CreateShortcut('C:\\Users\\O''Brien"
        "\\AppData\\Roaming\\Microsoft\\Windows\\Start Menu\\Programs\\mpstudio.lnk')",
        "$link.TargetPath = 'C:\\Users\\O''Brien\\venv $env:X\\Scripts\\mpstudio-gui.exe'",
        "$link.WorkingDirectory = 'C:\\Users\\x'",
        "$link.Description = 'Mixed-precision training workbench'",
        "$link.IconLocation = 'C:\\Users\\O''Brien\\site\u2019\u2019s\\mpstudio.ico,0'",
        "$link.Save()",
    ]
    command = desktop_shortcuts.powershell_command(script, "powershell.exe")
    assert command[:-1] == ["powershell.exe", "-NoProfile", "-NonInteractive",
                            "-EncodedCommand"]
    assert base64.b64decode(command[-1]).decode("utf-16-le") == script


def test_the_windows_shortcut_goes_in_the_users_start_menu(tmp_path):
    places = Places(tmp_path / "home", {"APPDATA": str(tmp_path / "Roaming")})
    shortcut = (tmp_path / "Roaming" / "Microsoft" / "Windows" / "Start Menu" / "Programs"
                / "mpstudio.lnk")
    assert desktop_shortcuts.shortcut_path(places) == shortcut
    assert desktop_shortcuts.uninstall_windows(places) == []
    shortcut.parent.mkdir(parents=True)
    shortcut.write_bytes(b"L\0\0\0")  # a .lnk as PowerShell would have left it
    assert desktop_shortcuts.uninstall_windows(places) == [shortcut]
    assert not shortcut.exists()
