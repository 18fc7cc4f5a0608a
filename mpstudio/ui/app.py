"""Start the desktop app: the window first, TensorFlow afterwards in the background."""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from pathlib import Path

STARTED = time.perf_counter()  # as early as this module is imported (by `mpstudio`)

from PySide6.QtCore import QT_TRANSLATE_NOOP  # noqa: E402  (launch needs Qt anyway)

NO_WINDOW_PLATFORMS = ("offscreen", "minimal")  # Qt draws these windows nowhere
# Printed to the terminal before any window exists (translations.translate_early)
NO_DISPLAY = QT_TRANSLATE_NOOP(
    "App",
    "no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set).\n"
    "  Without a window, the command line trains and compares: "
    "`mpstudio train --help`, `mpstudio compare --help` (`mpstudio --help` lists "
    "the rest).\n"
    "  To see the window from another machine, connect with a display: `ssh -X` "
    "(or `ssh -Y`), or a VNC or remote desktop session.")
NO_WINDOW = QT_TRANSLATE_NOOP(
    "App", "QT_QPA_PLATFORM={platform} shows no window: the app runs invisibly until you "
    "press Ctrl-C here. Without a display, use `mpstudio train --help`.")
# One line, said instead of Qt's abort (xcb_libraries); {libraries}: file names
XCB_MISSING = QT_TRANSLATE_NOOP(
    "App", "the window cannot open: Qt's X11 platform plugin (xcb) needs system libraries "
    "that are not installed: {libraries}. Install them with `{command}` and start "
    "mpstudio again.")
XCB_MISSING_NO_COMMAND = QT_TRANSLATE_NOOP(
    "App", "the window cannot open: Qt's X11 platform plugin (xcb) needs system libraries "
    "that are not installed: {libraries}. Install the packages that provide them with "
    "your distribution's package manager and start mpstudio again.")
UNKNOWN_PLATFORM = QT_TRANSLATE_NOOP(
    "App", "the window cannot open: QT_QPA_PLATFORM={value} names no platform this Qt "
    "has ({platforms}). Unset it, or set it to one of those, and start mpstudio again.")
SILENT_DISPLAY = QT_TRANSLATE_NOOP(
    "App", "the window cannot open: no display answers at {displays} (left over from an "
    "ssh session that has ended, or a desktop that has closed?). Connect again with "
    "`ssh -X`, or unset it in this terminal; without a window, `mpstudio train --help`.")
log = logging.getLogger(__name__)


def _display_problem(language: str | None = None) -> str | None:
    """Why no window can open here (a server without a display), or None. It never
    suggests QT_QPA_PLATFORM=offscreen: that starts an app nobody can see or close."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    from mpstudio.ui.translations import translate_early

    return translate_early("App", NO_DISPLAY, language or _saved_language())


def _no_window_note(language: str | None = None) -> str | None:
    """What to expect when QT_QPA_PLATFORM names a platform that shows no window."""
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0].strip()
    if platform not in NO_WINDOW_PLATFORMS:
        return None
    from mpstudio.ui.translations import translate_early

    return translate_early("App", NO_WINDOW, language or _saved_language()).format(
        platform=platform)


def _platform_problem(language: str | None = None) -> str | None:
    """A QT_QPA_PLATFORM naming no plugin this Qt has, or displays that do not answer
    (ui/display_check.py), said instead of Qt's abort; None where Qt can start."""
    from PySide6.QtCore import QLibraryInfo

    from mpstudio.ui import display_check as check
    from mpstudio.ui.translations import translate_early

    chosen = language or _saved_language()
    folder = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    plugins = check.platform_plugins(folder)
    if plugins and check.unknown_platform(os.environ, plugins):
        return translate_early("App", UNKNOWN_PLATFORM, chosen).format(
            value=os.environ["QT_QPA_PLATFORM"], platforms=", ".join(plugins))
    if not sys.platform.startswith("linux"):
        return None
    silent = check.silent_displays(os.environ)
    if silent:
        return translate_early("App", SILENT_DISPLAY, chosen).format(
            displays=", ".join(silent))
    return None


def _xcb_problem(language: str | None = None, plugin: Path | None = None) -> str | None:
    """Which system libraries Qt's xcb plugin (``plugin``: this Qt's) would not find,
    and how to install them, or None: Qt would abort on them, naming only the first."""
    from mpstudio.ui import xcb_libraries as xcb

    if not xcb.xcb_expected(os.environ, sys.platform):
        return None
    missing = xcb.missing_libraries(plugin or xcb.xcb_plugin())
    if not missing:
        return None
    from mpstudio.ui.translations import translate_early

    command = xcb.install_command(missing, xcb.os_release())
    text = translate_early("App", XCB_MISSING if command else XCB_MISSING_NO_COMMAND,
                           language or _saved_language())
    return text.format(libraries=", ".join(missing), command=command)


def _saved_language() -> str:
    """The choice saved under View > Language ("system" unless one was made)."""
    from mpstudio.ui.window.gui_settings import GuiSettings, open_settings

    return GuiSettings(open_settings()).language()


def launch(argv: list[str] | None = None, language: str | None = None,
           xcb_plugin: Path | None = None) -> int:
    """Open the window; ``language``: this start's (``mpstudio --lang``), over the one
    saved under View > Language; ``xcb_plugin``: the plugin whose libraries are checked
    (default: this Qt's; tests pass a copy that needs a library nobody has)."""
    problem = _display_problem(language)
    if problem:
        print(f"mpstudio: {problem}", file=sys.stderr)
        return 2
    note = _no_window_note(language)
    if note:
        print(f"mpstudio: {note}", file=sys.stderr, flush=True)
    # Logging first, so whatever follows is in window.log (app_log: the level is
    # `mpstudio --log-level`'s or `mpstudio-gui --log-level`'s, else $MPSTUDIO_LOG_LEVEL's).
    from mpstudio.engine.app_log import configure as configure_log
    from mpstudio.ui.window.versions import ui_versions

    logs = configure_log("window", ui_versions())  # no file: said in the window's Log
    # before QApplication loads the plugin (Qt aborts on each of these)
    problem = _xcb_problem(language, xcb_plugin) or _platform_problem(language)
    if problem:
        log.error("%s", problem)
        print(f"mpstudio: {problem}", file=sys.stderr)
        return 1
    # TensorFlow loads in the engine process (started behind the window), which writes
    # what it prints to its log file, not this terminal (quiet_stderr.engine_log).
    from PySide6.QtCore import QCoreApplication, QTimer
    from PySide6.QtWidgets import QApplication

    running = QApplication.instance()
    app = running if isinstance(running, QApplication) else QApplication(argv or sys.argv[:1])
    app.setApplicationName("mpstudio")  # X11's window class: the entry's StartupWMClass
    app.setOrganizationName("mpstudio")
    from mpstudio.ui.app_icon import apply_identity

    apply_identity(app)  # the icon, and the desktop entry's id (setDesktopFileName)
    app.setStyle("Fusion")  # the window's theme (and style sheet) comes with it: View > Theme
    app.setQuitOnLastWindowClosed(False)  # quit once the run has stopped, not on hide

    from mpstudio.ui.translations import apply_language, font_note

    # Before any widget exists (none is retranslated later) and before the engine process
    # starts (it inherits MPSTUDIO_LANG): View > Language takes effect at the next start.
    choice = language or _saved_language()
    language, missing = apply_language(choice, app)

    from mpstudio.ui.window.main_window import MainWindow
    from mpstudio.ui.window.quit_signals import QuitSignals
    from mpstudio.ui.window.uncaught_errors import UncaughtErrors

    errors = UncaughtErrors(app)  # any uncaught error: logged, and shown in one box
    errors.install()
    try:
        window = MainWindow()
    except Exception as exc:  # no window to show it in (and no terminal from a menu)
        errors.uninstall()
        return errors.startup_failed(exc, app.platformName() not in NO_WINDOW_PLATFORMS)
    if logs.problem:  # (in the window's language; the terminal gets it from the Log)
        window.notices.log(logs.problem, "warning")
    if missing:  # an install without its .qm files: English (which is what this says in)
        window.notices.log("translations not found, so parts of the window are in English: "
                           + ", ".join(missing), "warning")
    no_font = font_note(language)
    if no_font:  # the Chinese would be boxes: say how to get a font, once per start
        window.notices.log(no_font, "warning")
    window.closed.connect(app.quit)
    app.aboutToQuit.connect(window.shutdown)  # a logout: still end the engine

    def quit_now(signum: int) -> None:  # SIGTERM, Ctrl-C in the terminal, SIGHUP
        window.notices.log(QCoreApplication.translate(
            "App", "{signal}: quitting as File > Quit does").format(
                signal=signal.Signals(signum).name), "warning")
        window.confirm_close = lambda: True  # a signal does not wait for a dialog
        window.close()

    quit_signals = QuitSignals(quit_now, app)
    window.show()
    shown = time.perf_counter() - STARTED
    window.notices.log(QCoreApplication.translate(
        "App", "window shown {seconds} s after start; starting the engine process").format(
            seconds=f"{shown:.2f}"))
    if os.environ.get("MPSTUDIO_EXIT_AFTER_SHOW"):  # the start-up benchmark
        print(f"window visible after {shown:.3f} s", flush=True)
        QTimer.singleShot(0, window.close)
    else:
        QTimer.singleShot(0, window.start_background)
    try:
        code = app.exec()
        log.info("window process ended with exit code %d", code)  # as the CLI's commands
        return code
    finally:
        quit_signals.restore()
        errors.uninstall()
