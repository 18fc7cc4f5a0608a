"""A command's output piped or sent to a file has no line ending in spaces (rich pads
tables to the console's width; in a pipe that is 110 columns of trailing spaces)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mpstudio.cli.trimmed_lines import TrimmedLines


@pytest.mark.parametrize("command", [["runs", "list"], ["data", "show", "digits"]])
def test_piped_tables_end_no_line_in_spaces(command):
    """The real command in a process of its own, its stdout a pipe, as `| less` has it."""
    done = subprocess.run([sys.executable, "-m", "mpstudio", *command],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) >= 4 and any("━" in line or "─" in line for line in lines), done.stdout
    padded = [line for line in lines if line.endswith(" ")]
    assert not padded, padded
    assert not [line for line in done.stderr.splitlines() if line.endswith(" ")]


def test_spaces_are_dropped_only_at_a_lines_end(capsys):
    """Written in pieces, as a stream is: spaces held at a piece's end are written once
    more text follows on the line, and dropped when the line ends."""
    out = TrimmedLines(stderr=False)
    for piece in ["a table   ", "  title   ", "\n│ x  ", " │   \n", "no newline   "]:
        out.write(piece)
    out.flush()
    assert capsys.readouterr().out == "a table     title\n│ x   │\nno newline"
    assert not out.isatty() and out.encoding
