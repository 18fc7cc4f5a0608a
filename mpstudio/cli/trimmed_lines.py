"""Output for a pipe or a file without the spaces rich pads each line with.

rich lays a table out to the console's width (110 columns when the output is not a
terminal: support.make_console) and pads the title and the cells with spaces up to it;
in a terminal they are invisible, in a file or a pipe every line then ends in spaces
(a diff, `grep ' $'` and an editor all show them). A line's trailing spaces are held
back until the line ends, and dropped then, so what is written keeps streaming.
"""

from __future__ import annotations

import sys
from typing import TextIO


class TrimmedLines:
    """A text stream that writes to sys.stdout or sys.stderr as they are at each write
    (a test's capture included), with no line ending in spaces."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr
        self._spaces = ""  # the current line's trailing spaces, written if text follows

    @property
    def _stream(self) -> TextIO:
        return sys.stderr if self._stderr else sys.stdout

    def write(self, text: str) -> int:
        *ended, last = (self._spaces + text).split("\n")
        kept = last.rstrip(" ")
        self._spaces = last[len(kept):]
        self._stream.write("\n".join([*(line.rstrip(" ") for line in ended), kept]))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return False  # only made for output that is not a terminal

    @property
    def encoding(self) -> str:  # rich draws ASCII boxes where the stream cannot take UTF-8
        return getattr(self._stream, "encoding", None) or "utf-8"
