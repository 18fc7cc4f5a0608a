"""How the history keeps a run's sentences (``said.Said``) in its columns.

A failure reason, a numerics diagnosis or a note of the run's summary is read twice:
live, in the language of the process that trains, and later from the history, in the
reader's. The history writes a sentence's stored form (language-neutral, ``said.py``)
and reads it back as a ``Said`` in the reader's language; older records, plain
strings, stay as they are.
"""

from __future__ import annotations

import json
from typing import Any

from mpstudio.engine.said import Said, message


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and "msg" in value


def _kept(text: Any) -> Any:
    """What a column keeps of ``text``: a ``Said``'s stored form as a message (clauses
    or items inside a message that is only their place: nothing to translate, and a
    reader tells it from a plain list), anything else as it is."""
    if not isinstance(text, Said):
        return text
    if isinstance(text.stored, str) or is_message(text.stored):
        return text.stored
    return message("{text}", text=text.stored)


def to_column(text: Any) -> Any:
    """A sentence for a TEXT column: a message as JSON, a plain string (or None) as it is."""
    value = _kept(text)
    return json.dumps(value, ensure_ascii=False) if is_message(value) else value


def from_column(value: Any) -> Any:
    """A TEXT column written by ``to_column``: a message comes back as a ``Said`` in the
    language in force; a plain string (an older record) as it is."""
    if isinstance(value, str) and value.startswith('{"msg"'):
        try:
            data = json.loads(value)
        except ValueError:
            return value
        if is_message(data):
            return Said(data)
    return value


def to_values(data: dict[str, Any]) -> dict[str, Any]:
    """A dict of values for a JSON column, its sentences as their messages."""
    return {key: _kept(value) for key, value in data.items()}


def from_values(data: dict[str, Any]) -> dict[str, Any]:
    """A JSON column's dict, its messages as ``Said`` in the language in force."""
    return {key: Said(value) if is_message(value) else value for key, value in data.items()}
