"""What the window tells its user, in three places: the log (everything, kept), the
status line (what is happening now) and the banner (what the user must read). The
action modules get this, not the window."""

from __future__ import annotations

import logging

from PySide6.QtWidgets import QLabel

from mpstudio.ui.themed import show_level
from mpstudio.ui.widgets.log_panel import LogPanel

log = logging.getLogger("mpstudio.window")
# The Log panel's lines go to window.log as well: a log a user sends says what they saw.
LOG_LEVELS = {"warning": logging.WARNING, "error": logging.ERROR}


class Notices:
    def __init__(self, log: LogPanel, status: QLabel, banner: QLabel) -> None:
        self._log = log
        self._status = status
        self._banner = banner

    def log(self, text: str, level: str = "info") -> None:
        """level: info | note | success | warning | error."""
        self._log.add(text, level)
        log.log(LOG_LEVELS.get(level, logging.INFO), "%s", text)

    def status(self, text: str) -> None:
        self._status.setText(text)

    def banner(self, text: str, level: str = "info") -> None:
        """level: info | success | warning | error (the banner's colour)."""
        banner = self._banner
        banner.setText(text)
        show_level(banner, level)
        banner.show()

    def hide_banner(self) -> None:
        self._banner.hide()

    def problem(self, text: str) -> None:
        """Something the user asked for could not be done: the banner and the log."""
        self.banner(text, "error")
        self.log(text, "error")
