"""Sentences that are text now and a language-neutral message for later: THE way the
engine keeps a sentence that is stored (the run history), printed for machines
(``--json``, always English) and shown in the reader's language.

A sentence's *stored form* is one of:

- a message, ``message(msgid, **args)``: ``{"msg": msgid, "args": {...}}``, the English
  msgid (marked with ``N_()`` where it is written) and its values; a value may itself
  be a stored form (a reason inside a sentence);
- clauses, a tuple (a list once read back from JSON) of stored forms: "a; b; c", empty
  ones left out;
- items, ``{"items": [...]}``: stored forms listed "a, b, c";
- a plain string (an older record, an exception's own text): shown as it is.

The separators of clauses and items are translated like any sentence.

``Said`` is a sentence as text: a ``str`` in the language in force when it was made (so
every front end shows it as it is), which keeps its stored form in ``stored``. It
crosses to another process as its stored form (the engine's wire codec; a pickle
too), so a sentence the engine process sends reads in the receiver's language.
``render()`` shows any stored form (or ``Said``) in the language in force,
``english()`` in English, ``english_tree()`` turns every ``Said`` of a JSON-bound
structure into English.

No Qt and no TensorFlow here: the engine, the command line and the window all use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from mpstudio.engine.i18n import N_, _

__all__ = ["Said", "clauses", "english", "english_tree", "items", "message", "render",
           "said", "stored"]

CLAUSES = N_("{first}; {rest}")  # clauses of one sentence, joined
ITEMS = N_("{first}, {rest}")  # items of a list, joined


def stored(text: Any) -> Any:
    """The stored form of ``text``: a ``Said``'s, and in dicts, lists and tuples every
    ``Said`` as its stored form (JSON and pickles then hold no rendered text); anything
    else as it is."""
    if isinstance(text, Said):
        return text.stored
    if isinstance(text, dict):
        return {key: stored(value) for key, value in text.items()}
    if isinstance(text, (list, tuple)):
        return type(text)(stored(value) for value in text)
    return text


def message(msgid: str, **args: Any) -> dict:
    """A sentence to store: ``msgid`` (marked with ``N_()`` where it is written) and its
    values (a ``Said`` value kept as its stored form)."""
    return {"msg": msgid, "args": {name: stored(value) for name, value in args.items()}}


class Said(str):
    """A sentence as text in the language in force, with its stored form in ``stored``
    (a message, clauses, items or a plain string; ``Said(a_said)`` is a copy)."""

    stored: Any

    def __new__(cls, form: Any) -> Said:
        form = stored(form)
        if not isinstance(form, (dict, list, tuple)):
            form = "" if form is None else str(form)
        self = super().__new__(cls, render(form))
        self.stored = form
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # the stored form, rendered again on arrival
        return (Said, (self.stored,))


def said(msgid: str, **args: Any) -> Said:
    """``message(msgid, **args)`` as a ``Said``."""
    return Said(message(msgid, **args))


def clauses(*parts: Any) -> Said:
    """Clauses of one sentence ("a; b; c"), each a ``Said``, a stored form or plain
    text; empty ones are left out."""
    return Said(tuple(stored(part) for part in parts if part))


def items(values: Iterable[Any]) -> Said:
    """Names or figures listed "a, b, c", each a ``Said``, a stored form or plain text."""
    return Said({"items": tuple(stored(value) for value in values)})


def _text(form: Any, translate: Callable[[str], str]) -> str:
    if isinstance(form, Said):
        form = form.stored
    if form is None:
        return ""
    if isinstance(form, (list, tuple)):
        return _joined([_text(part, translate) for part in form if part], translate(CLAUSES))
    if isinstance(form, dict) and "msg" in form:
        values = {name: _text(value, translate) if isinstance(value, (str, dict, list, tuple))
                  else value for name, value in (form.get("args") or {}).items()}
        msgid = str(form["msg"])
        for template in (translate(msgid), msgid):  # a translation out of step: English
            try:
                return template.format(**values)
            except (KeyError, IndexError, ValueError, TypeError):
                continue
        return msgid
    if isinstance(form, dict) and "items" in form:
        return _joined([_text(value, translate) for value in form["items"]], translate(ITEMS))
    return str(form)


def _joined(parts: list[str], separator: str) -> str:
    """``parts`` joined with a translated "{first}; {rest}" from the end, so that a
    language may put its own punctuation between them."""
    if not parts:
        return ""
    text = parts[-1]
    for part in reversed(parts[:-1]):
        text = separator.format(first=part, rest=text)
    return text


def render(text: Any) -> str:
    """A ``Said`` or a stored form (or None: "") in the language in force."""
    return _text(text, _)


def english(text: Any) -> str:
    """The same in English whatever the language in force: what machines read."""
    return _text(text, lambda msgid: msgid)


def english_tree(data: Any) -> Any:
    """``data`` (dicts, lists, tuples) with every ``Said`` in English: JSON for machines
    (``--json``) reads the same in every language."""
    if isinstance(data, Said):
        return english(data)
    if isinstance(data, dict):
        return {key: english_tree(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return type(data)(english_tree(value) for value in data)
    return data
