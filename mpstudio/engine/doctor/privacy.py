"""Keep a report shareable: no home folder, user name or host name in its text.

A doctor report is meant to be attached to a public bug report. Its reasons quote
error messages, and those can hold paths (a settings file, a cache folder): the
home folder becomes ``~``, and the user and host names become placeholders.
"""

from __future__ import annotations

import getpass
import re
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mpstudio.engine.said import Said

MIN_NAME = 3  # shorter names would match ordinary words ("a", "pc")


def identity() -> tuple[str, str, str]:
    """This machine's home folder, user name and host name."""
    try:
        user = getpass.getuser()
    except Exception:  # no user database entry (some containers)
        user = ""
    try:
        host = socket.gethostname()
    except OSError:
        host = ""
    return str(Path.home()), user, host


def make_scrubber(home: str, user: str, host: str) -> Callable[[str], str]:
    """A function that takes ``home``, ``user`` and ``host`` out of a text."""
    rules: list[tuple[re.Pattern[str], str]] = []
    if home and home not in ("/", "\\"):
        rules.append((re.compile(re.escape(home.rstrip("/\\")) + r"(?=[/\\]|\b|$)"), "~"))
    for name, placeholder in ((user, "<user>"), (host, "<host>")):
        if not name:
            continue
        # Always as a path component (/home/NAME/...); as a word only when long enough.
        rules.append((re.compile(r"(?<=[/\\])" + re.escape(name) + r"(?=[/\\]|$)"),
                      placeholder))
        if len(name) >= MIN_NAME:
            rules.append((re.compile(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-])"),
                          placeholder))

    def scrub(text: str) -> str:
        for pattern, placeholder in rules:
            text = pattern.sub(placeholder, text)
        return text

    return scrub


def scrubbed_text(value: Any, scrub: Callable[[str], str]) -> Any:
    """A line's name or reason (a ``Said``, a message, clauses, items or a plain string)
    with the values scrubbed and the messages left as they are."""
    if isinstance(value, Said):
        return Said(scrubbed_text(value.stored, scrub))
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict) and "msg" in value:
        return {**value, "args": {k: scrubbed_text(v, scrub)
                                  for k, v in (value.get("args") or {}).items()}}
    if isinstance(value, dict) and "items" in value:
        return {"items": tuple(scrubbed_text(v, scrub) for v in value["items"])}
    if isinstance(value, (list, tuple)):
        return type(value)(scrubbed_text(v, scrub) for v in value)
    return value


def scrubbed(value: Any, scrub: Callable[[str], str] | None = None) -> Any:
    """``value`` (strings, dicts, lists, tuples of them) with every string scrubbed (a
    ``Said``'s values, its messages left as they are)."""
    scrub = scrub or make_scrubber(*identity())
    if isinstance(value, Said):
        return scrubbed_text(value, scrub)
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub(str(k)) if isinstance(k, str) else k: scrubbed(v, scrub)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(scrubbed(v, scrub) for v in value)
    return value
