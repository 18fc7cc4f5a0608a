"""Run events as JSON objects and back, for a front end that reads another
process's events (the GUI relaying a multi-worker worker it started).

Events are frozen dataclasses of plain values, nested dataclasses and tuples;
decoding rebuilds each from its field types, so a new event field needs no code
here. Fields a newer writer added are dropped; NaN/inf travel as null.

Sentences (``said.Said``: a failure's reason, the summary's notes) are written in
English in their fields, like every JSON mpstudio prints, and once more as their
stored form under "said", from which the reader rebuilds them in its own language.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

from mpstudio.engine import events as ev
from mpstudio.engine.datasets.report import DataProgress
from mpstudio.engine.said import Said, english_tree, stored

EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls for cls in (
        DataProgress, ev.RunStarted, ev.StepMetrics, ev.EpochMetrics, ev.LossScaleChanged,
        ev.RunWarning, ev.RunFinished, ev.RunFailed, ev.AidAction, ev.OomRetry,
        ev.GradientUnderflow, ev.NumericsDiagnosis)
}


class EventDecodeError(ValueError):
    """A line that is not an event this version knows."""


def event_to_json(event: Any) -> dict[str, Any]:
    fields = dataclasses.asdict(event)
    out = {"event": type(event).__name__, **english_tree(fields)}
    sentences = {name: stored(value) for name, value in fields.items() if _has_said(value)}
    if sentences:
        out["said"] = sentences
    return out


def event_from_json(data: dict[str, Any]) -> Any:
    cls = EVENT_TYPES.get(str(data.get("event")))
    if cls is None:
        raise EventDecodeError(f"not a run event: {str(data)[:80]}")
    sentences = data.get("said")
    return _build(cls, {**data, **sentences} if isinstance(sentences, dict) else data)


def _has_said(value: Any) -> bool:
    if isinstance(value, Said):
        return True
    if isinstance(value, dict):
        return any(_has_said(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_said(v) for v in value)
    return False


def _build(cls: type, data: dict[str, Any]) -> Any:
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            kwargs[f.name] = _value(hints[f.name], data[f.name])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kwargs[f.name] = None
    return cls(**kwargs)


def _value(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _value(options[0], value) if len(options) == 1 else value
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(value, dict):
        return _build(hint, value)
    if origin is dict and isinstance(value, dict):  # RunStarted.hardware: sentences inside
        item = typing.get_args(hint)[1] if typing.get_args(hint) else Any
        return {key: _value(item, v) for key, v in value.items()}
    if origin is tuple and isinstance(value, list):
        args = typing.get_args(hint)
        item = args[0] if args and (len(args) == 2 and args[1] is Ellipsis) else None
        if item is not None:
            return tuple(_value(item, v) for v in value)
        return tuple(_value(a, v) for a, v in zip(args, value, strict=False)) if args \
            else tuple(value)
    if hint is float and isinstance(value, int):
        return float(value)
    if hint is str and isinstance(value, (dict, list)):  # a sentence's stored form
        return Said(value)
    return value
