"""``--json`` keeps its promise when a command fails: stdout holds one JSON document.

Every command prints its errors as lines on stderr (``mpstudio CMD: error: ...``) and,
with --json, its result on stdout. A command that failed before it had a result left
stdout empty, and a script reading it got nothing to parse. This wraps a command: it
passes stdout and stderr through unchanged, remembers the last error line, and when
the command ends with a non-zero exit code having printed nothing on stdout, prints
``{"error": ..., "exit_code": ..., "command": ...}`` there.

A --json command runs in English (cli.language.for_machines), so the document, its
error included, is the same in every language and the error lines read
"mpstudio CMD: error: ...".
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TextIO


class _Watch:
    """A text stream that writes through and remembers what went by."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner
        self.written = 0
        self.lines: list[str] = []

    def write(self, text: str) -> int:
        self.written += len(text)
        self.lines += [line for line in text.splitlines() if line.strip()]
        del self.lines[:-20]
        return self.inner.write(text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, encoding, fileno...
        return getattr(self.inner, name)


def run_with_json_failure(command: str, run: Callable[[], int]) -> int:
    out, err = _Watch(sys.stdout), _Watch(sys.stderr)
    sys.stdout, sys.stderr = out, err
    try:
        code = run()
    finally:
        sys.stdout, sys.stderr = out.inner, err.inner
    if code != 0 and out.written == 0:
        errors = [line for line in err.lines if ": error: " in line] or err.lines
        message = errors[-1].split(": error: ", 1)[-1] if errors else f"exit code {code}"
        print(json.dumps({"error": message.strip(), "exit_code": code, "command": command}),
              flush=True)
    return code
