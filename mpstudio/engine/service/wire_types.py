"""Which classes may cross between the window and its engine: the wire codec's
allow-list (wire_codec.py decodes a tagged map into these classes and no others).

The list is not kept by hand: it is every dataclass (and enum) reachable through the
field types of a few roots: the protocol's messages, the job requests with the result
each names (``JobRequest[R]``) and the run events (event_codec.EVENT_TYPES). A new
field of a new type is allowed as soon as a root's types reach it. Only the rest of
what crosses in fields typed ``Any`` is named here (``_any_field_roots``).

Each class crosses under a tag, its name; where two classes share a name, both go by
their module-qualified name. Imports nothing of TensorFlow or Qt.
"""

from __future__ import annotations

import dataclasses
import enum
import threading
import typing
from dataclasses import dataclass
from typing import Any

# Tags of the values that are not classes of the registry (wire_codec.py encodes them);
# a class of the same name goes by its qualified name.
SPECIAL_TAGS = frozenset({"Said", "Path", "tuple", "set", "frozenset", "dict"})


@dataclass(frozen=True)
class WireTypes:
    tags: dict[str, type]  # tag -> dataclass or enum
    names: dict[type, str]  # the same, class -> tag
    hints: dict[type, dict[str, Any]]  # each dataclass's field types, resolved
    messages: frozenset[type]  # what a frame may hold: the protocol's messages


def _any_field_roots() -> tuple[type, ...]:
    """What crosses in the protocol's fields typed ``Any`` that the other roots do not
    reach. EngineStarting.note is a ``Said`` and JobResult.value a request's result:
    both are handled without a root here."""
    from mpstudio.engine.batch_search.finder import BatchTried
    from mpstudio.engine.doctor.checks import Check
    from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
    from mpstudio.engine.service.file_fetch import FileChunk, FileListing

    return (
        MemoryApplyResult,  # EngineReady.memory (also ApplyMemoryRequest's result)
        Check,  # JobEvent.event: the training check's rows, one per check as it ends
        BatchTried,  # JobEvent.event: the batch-size finder's tries, one per try
        FileListing,  # JobEvent.event: a copy's listing, then its chunks (file_fetch.py)
        FileChunk,
    )


def _messages() -> list[type]:
    from mpstudio.engine.service import protocol

    return [c for c in vars(protocol).values() if isinstance(c, type)
            and dataclasses.is_dataclass(c) and c.__module__ == protocol.__name__]


def _roots() -> list[type]:
    from mpstudio.engine.event_codec import EVENT_TYPES
    from mpstudio.engine.service import job_requests

    requests = [c for c in vars(job_requests).values() if isinstance(c, type)
                and issubclass(c, job_requests.JobRequest)]
    return [*_messages(), *requests, *EVENT_TYPES.values(), *_any_field_roots()]


def _named_for_the_type_checker() -> dict[str, type]:
    """Classes that field types name but their modules import only for the type checker
    (``if TYPE_CHECKING:``, against import cycles): ``get_type_hints`` finds them here.
    A new one fails the registry's build with its name, and the tests with it."""
    from mpstudio.engine.app_settings import GpuMemorySettings
    from mpstudio.engine.batch_search.finder import FinderOptions
    from mpstudio.engine.comparison.card import ComparisonCard
    from mpstudio.engine.export.results import ExportRequest
    from mpstudio.engine.history.records import StoredRun
    from mpstudio.engine.prediction.for_hardware import DevicePrediction
    from mpstudio.engine.prediction.measurement import ModelMeasurement
    from mpstudio.engine.spec import RunSpec
    from mpstudio.engine.trainer.compare_options import CompareOptions

    return {c.__name__: c for c in (
        GpuMemorySettings, FinderOptions, ComparisonCard, ExportRequest, StoredRun,
        DevicePrediction, ModelMeasurement, RunSpec, CompareOptions)}


def field_hints(cls: type) -> dict[str, Any]:
    names: dict[str, Any] = {}
    while True:
        try:
            return typing.get_type_hints(cls, localns=names)
        except NameError as exc:
            name = exc.name or ""
            found = _named_for_the_type_checker().get(name)
            if found is None or name in names:
                raise TypeError(f"{cls.__qualname__}: field type {name!r} cannot be "
                                f"resolved (add it to wire_types)") from exc
            names[name] = found


def _reached(hint: Any) -> list[type]:
    """The dataclasses and enums a field type names, at any depth."""
    if isinstance(hint, type):
        return [hint] if dataclasses.is_dataclass(hint) or issubclass(hint, enum.Enum) else []
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return []
    if isinstance(origin, type) and dataclasses.is_dataclass(origin):  # JobRequest[Any]
        return [origin, *[c for a in typing.get_args(hint) for c in _reached(a)]]
    return [c for a in typing.get_args(hint) if a is not Ellipsis for c in _reached(a)]


def _result_types(cls: type) -> list[type]:
    """A job request's result type R (its ``JobRequest[R]`` base), what it reaches."""
    return [c for base in cls.__dict__.get("__orig_bases__", ()) for c in _reached(base)]


def _build() -> WireTypes:
    hints: dict[type, dict[str, Any]] = {}
    enums: list[type] = []
    todo = _roots()
    while todo:
        cls = todo.pop()
        if cls in hints or cls in enums:
            continue
        if issubclass(cls, enum.Enum):
            enums.append(cls)
            continue
        hints[cls] = field_hints(cls)
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        todo += [c for name, h in hints[cls].items() if name in names for c in _reached(h)]
        todo += _result_types(cls)
    classes = [*hints, *enums]
    counts: dict[str, int] = {}
    for cls in classes:
        counts[cls.__name__] = counts.get(cls.__name__, 0) + 1
    names_of = {cls: cls.__name__ if counts[cls.__name__] == 1
                and cls.__name__ not in SPECIAL_TAGS else f"{cls.__module__}.{cls.__qualname__}"
                for cls in classes}
    return WireTypes({tag: cls for cls, tag in names_of.items()}, names_of, hints,
                     frozenset(_messages()))


_lock = threading.Lock()
_built: list[WireTypes] = []


def wire_types() -> WireTypes:
    """The registry, built once (the first message either way builds it)."""
    if not _built:
        with _lock:
            if not _built:
                _built.append(_build())
    return _built[0]
