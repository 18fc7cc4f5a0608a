"""The types of a benchmark bundle's JSON fields, checked before anything trains: every
field the replay reads afterwards (the machine, the software, the runs, the verdict)
must have the type the writer gave it, so a damaged or edited one is named at once
instead of ending a replay, after its training, in a crash."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mpstudio.engine.i18n import N_, _

Types = tuple[type | None, ...]  # None: JSON's null
Schema = Mapping[tuple[str, ...], Types]  # a path ("*": each item) -> its types

# A parent comes before its children: they are walked only once it is known to be what
# it should. A field a bundle lacks is not checked (the reader has a default for it).
MANIFEST_FIELDS: Schema = {
    ("created",): (str,), ("mpstudio",): (str,), ("kind",): (str,),
    ("comparison",): (str, None), ("compare",): (dict, None), ("seed",): (int, None),
    ("software",): (dict,), ("software", "*"): (str,), ("platform",): (str,),
    ("device",): (str,), ("advisor_device",): (str,),
    ("machine",): (dict, None), ("machine", "gpus"): (list, None),
    ("machine", "gpus", "*"): (dict,), ("machine", "cpu"): (dict, None),
    ("runs",): (list,), ("runs", "*"): (dict,), ("runs", "*", "id"): (int,),
    ("runs", "*", "label"): (str,), ("runs", "*", "role"): (str,),
    ("runs", "*", "trial"): (int,), ("runs", "*", "precision"): (str,),
    ("runs", "*", "status"): (str,), ("runs", "*", "initial_weights_hash"): (str, None),
    ("verdict",): (dict, None), ("verdict", "kind"): (str,), ("verdict", "sentence"): (dict,),
    ("verdict", "sentence", "*"): (str,), ("replay",): (str,),
    ("files",): (dict,), ("files", "*"): (str,),
}
RUNS_FIELDS: Schema = {  # runs.json: each run as the history kept it
    (): (list,), ("*",): (dict,), ("*", "role"): (str,), ("*", "trial"): (int,),
    ("*", "initial_weights_hash"): (str, None), ("*", "summary"): (dict, None),
}
CARD_FIELDS: Schema = {(): (dict,)}

# JSON's names for its types, as a message names them
_KINDS: tuple[tuple[type | None, str], ...] = (
    (None, N_("null")), (bool, N_("true or false")), (int, N_("a whole number")),
    (float, N_("a number")), (str, N_("a string")), (list, N_("an array")),
    (dict, N_("an object")))


class FieldError(Exception):
    """A field of ``file`` has the wrong type; the message names it."""


def _kind(value: Any) -> str:
    for kind, name in _KINDS:
        if value is None if kind is None else type(value) is kind:
            return _(name)
    return type(value).__name__


def _fits(value: Any, types: Types) -> bool:
    if value is None or isinstance(value, bool):  # bool is an int to Python, not to JSON
        return (None if value is None else bool) in types
    return any(kind is not None and isinstance(value, kind) for kind in types) \
        or (isinstance(value, int) and float in types)


def _found(data: Any, path: tuple[str, ...], name: str) -> Iterator[tuple[str, Any]]:
    """(field name, value) at ``path``: "runs[1].role" for ("runs", "*", "role")."""
    if not path:
        yield name, data
        return
    key, rest = path[0], path[1:]
    if key == "*":
        items = data.items() if isinstance(data, dict) else enumerate(data) \
            if isinstance(data, list) else ()
        for at, value in items:
            yield from _found(value, rest, f"{name}[{at}]" if isinstance(data, list)
                              else f"{name}.{at}")
    elif isinstance(data, dict) and key in data:
        yield from _found(data[key], rest, f"{name}.{key}" if name else key)


def check_fields(file: str, data: Any, schema: Schema) -> None:
    """Raise FieldError naming the first field of ``data`` (read from ``file``) whose
    type is not the schema's."""
    for path, types in schema.items():
        for name, value in _found(data, path, ""):
            if not _fits(value, types):
                expected = _(" or ").join(_(n) for t in types for kind, n in _KINDS
                                          if kind is t)
                if name:
                    raise FieldError(_("its {file} field {field} is {found}, not {expected}")
                                     .format(file=file, field=name, found=_kind(value),
                                             expected=expected))
                raise FieldError(_("its {file} is {found}, not {expected}").format(
                    file=file, found=_kind(value), expected=expected))
