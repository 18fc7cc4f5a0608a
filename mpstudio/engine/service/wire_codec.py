"""The wire format between the window and its engine: MessagePack (msgspec), data only,
so a hostile peer (the engine is reachable over ssh) can send wrong data but never code.

A dataclass crosses as a map with its tag under ``"$"``; a tag names one of the classes
of the allow-list (wire_types.py) and nothing else is ever built. Each field is checked
against its type as it is read (wire_checks.py): a wrong type, a missing or unknown
field, an unknown tag is a ``WireError`` with one short line, never a half-built
message. Fields the sender left out (an older one) take their defaults. Besides plain
values (NaN and inf are floats like any other):

- a ``Said`` goes as its stored form and is rendered again on arrival, so the receiver
  reads it in its own language: ``{"$": "Said", "stored": ...}``;
- a path ``{"$": "Path", "path": ...}``; an enum of the registry ``{"$": tag, "value": ...}``;
- where a field's type says tuple, list or set, an array, which comes back as the type
  says; elsewhere (fields typed ``Any``, ``dict[str, Any]``) a tuple or set keeps its
  class, ``{"$": "tuple", "items": [...]}``, so a message compares equal after a trip;
- a dict whose keys are not all str, or that has the key "$", as
  ``{"$": "dict", "items": [[key, value], ...]}``;
- a numpy scalar as the Python number it holds.

A value of any other class is a WireError at the sender, never a silent pickle.
"""

from __future__ import annotations

import dataclasses
import enum
import threading
import typing
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

import msgspec
import numpy as np

from mpstudio.engine.said import Said
from mpstudio.engine.service.wire_checks import (
    PLAIN,
    SEQUENCES,
    TAG,
    Decoder,
    WireError,
    decoder_for,
    dict_pairs,
    exact_types,
    is_union,
    kind,
    origin,
)
from mpstudio.engine.service.wire_types import wire_types

__all__ = ["TAG", "UNREADABLE", "WireError", "decode", "encode"]

UNREADABLE = "wire_unreadable"  # field metadata: (tag, error) -> the value to use instead
# The handshake (protocol.Hello, Welcome, Refused and its RunningJob) must be read by
# every version, so that two versions can say which they are: fields a newer one added
# are dropped there. Everywhere else an unknown field is refused.
HANDSHAKE = frozenset({"Hello", "Welcome", "Refused", "RunningJob"})
_MISSING: Any = dataclasses.MISSING
_ABSENT = object()

Encoder = Callable[[Any], Any]

_msgpack_encoder = msgspec.msgpack.Encoder()  # both are thread-safe: state is per call
_msgpack_decoder = msgspec.msgpack.Decoder()
_encoders: dict[type, Encoder] = {}  # by exact class; filled once (_ready), then cached
_tagged: dict[str, Decoder] = {}  # by tag
_lock = threading.Lock()


def encode(message: Any) -> bytes:
    _ready()
    wire = _enc_any(message)
    try:
        return _msgpack_encoder.encode(wire)
    except (TypeError, ValueError, OverflowError) as exc:  # e.g. an int over 64 bits
        raise WireError(f"{type(message).__name__} cannot be encoded: {exc}") from None


def decode(data: bytes | memoryview) -> Any:
    _ready()
    try:
        raw = _msgpack_decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise WireError(f"not MessagePack: {exc}") from None
    try:
        return _dec_any(raw)
    except RecursionError:
        raise WireError("nested too deeply") from None


# ------------------------------------------------------------------ encoding
def _enc_any(value: Any) -> Any:
    cls = type(value)
    if cls in PLAIN:
        return value
    encoder = _encoders.get(cls) or _encoder_for_class(cls)
    return encoder(value)


def _encoder_for_class(cls: type) -> Encoder:
    if issubclass(cls, PurePath):
        encoder: Encoder = _enc_path
    elif issubclass(cls, np.generic):  # a numpy float or int: the number it holds
        encoder = _enc_numpy_scalar
    else:
        raise WireError(f"{cls.__module__}.{cls.__qualname__} is not in the wire registry")
    _encoders[cls] = encoder
    return encoder


def _enc_items(value: Any) -> list[Any]:
    return [x if type(x) in PLAIN else _enc_any(x) for x in value]


def _enc_collection(value: tuple[Any, ...] | set[Any] | frozenset[Any]) -> dict[str, Any]:
    return {TAG: type(value).__name__, "items": _enc_items(value)}


def _enc_dict(value: dict[Any, Any], keys: Encoder = _enc_any,
              values: Encoder = _enc_any) -> dict[Any, Any]:
    for key in value:
        if type(key) is not str or key == TAG:
            return {TAG: "dict", "items": [[keys(k), values(v)] for k, v in value.items()]}
    return {k: v if type(v) in PLAIN else values(v) for k, v in value.items()}


def _enc_said(value: Said) -> dict[str, Any]:
    return {TAG: "Said", "stored": _enc_any(value.stored)}


def _enc_path(value: PurePath) -> dict[str, Any]:
    return {TAG: "Path", "path": str(value)}


def _enc_numpy_scalar(value: np.generic) -> Any:
    return _enc_any(value.item())


def _dataclass_encoder(tag: str, fields: list[tuple[str, Encoder]]) -> Encoder:
    def encode_dataclass(obj: Any) -> dict[str, Any]:
        out: dict[str, Any] = {TAG: tag}
        for name, encoder in fields:
            value = getattr(obj, name)
            out[name] = value if type(value) in PLAIN else encoder(value)
        return out
    return encode_dataclass


def _enum_encoder(tag: str) -> Encoder:
    return lambda member: {TAG: tag, "value": _enc_any(member.value)}


def _encoder_for(hint: Any) -> Encoder:
    """A field of type ``hint``: any value as ``_enc_any`` sends it, except that where the
    type says tuple, list, set or dict, the decoder rebuilds those from the type."""
    args, outer = typing.get_args(hint), origin(hint)
    if is_union(hint):
        containers = [a for a in args if origin(a) in (*SEQUENCES, dict)]
        return _encoder_for(containers[0]) if len(containers) == 1 else _enc_any
    if outer in SEQUENCES:
        if outer is not tuple or not args or (len(args) == 2 and args[1] is Ellipsis):
            return _sequence_encoder(_encoder_for(args[0] if args else Any), None)
        return _sequence_encoder(None, [_encoder_for(a) for a in args])
    if outer is dict:
        keys, values = (_encoder_for(a) for a in (args or (Any, Any)))
        return lambda v: _enc_dict(v, keys, values) if type(v) is dict else _enc_any(v)
    return _enc_any


def _sequence_encoder(item: Encoder | None, positions: list[Encoder] | None) -> Encoder:
    def encode_sequence(value: Any) -> Any:
        if type(value) not in SEQUENCES:
            return _enc_any(value)
        if positions is None:
            return [x if type(x) in PLAIN else item(x) for x in value]  # type: ignore[misc]
        if len(value) != len(positions):
            raise WireError(f"a tuple of {len(value)} where the type says {len(positions)}")
        return [e(x) for e, x in zip(positions, value)]  # noqa: B905 - lengths checked
    return encode_sequence


# ------------------------------------------------------------------ decoding
def _dec_any(raw: Any) -> Any:
    """A value read where any type may be: plain data, or a tagged map built."""
    read = type(raw)
    if read is dict:
        if TAG in raw:
            tag = raw[TAG]
            build = _tagged.get(tag) if type(tag) is str else None
            if build is None:
                raise WireError(f"unknown tag {str(tag)[:40]!r}")
            return build(raw)
        out = {}
        for key, value in raw.items():
            if type(key) is not str:
                raise WireError(f"a map key of type {type(key).__name__}")
            out[key] = _dec_any(value)
        return out
    if read is list:
        return [_dec_any(x) for x in raw]
    if read in PLAIN:
        return raw
    raise WireError(f"unexpected {read.__name__}")  # a MessagePack extension, a timestamp


def _field(raw: dict[str, Any], tag: str, name: str) -> Any:
    """The one field of a tagged value that is not a dataclass."""
    if len(raw) != 2 or name not in raw:
        raise WireError(f"{tag}: expected the field {name!r} alone")
    return raw[name]


def _dec_said(raw: dict[str, Any]) -> Said:
    form = _dec_any(_field(raw, "Said", "stored"))
    try:
        return Said(form)
    except Exception as exc:  # a stored form our renderer cannot read
        raise WireError(f"Said: a sentence that does not render ({type(exc).__name__})") \
            from None


def _dec_path(raw: dict[str, Any]) -> Path:
    path = _field(raw, "Path", "path")
    if type(path) is not str:
        raise WireError(f"Path: expected str, got {kind(path)}")
    return Path(path)


def _collection_decoder(make: type) -> Decoder:
    tag = make.__name__

    def decode_collection(raw: dict[str, Any]) -> Any:
        items = _field(raw, tag, "items")
        if type(items) is not list:
            raise WireError(f"{tag}: expected an array, got {kind(items)}")
        try:
            return make([_dec_any(x) for x in items])
        except TypeError:  # a set's item that cannot be hashed
            raise WireError(f"{tag}: an item that cannot be hashed") from None
    return decode_collection


def _dec_dict(raw: dict[str, Any]) -> dict[Any, Any]:
    try:
        return {_dec_any(k): _dec_any(v) for k, v in dict_pairs(raw)}
    except TypeError:  # a key that cannot be one (a list)
        raise WireError("dict: a key that cannot be hashed") from None


def _enum_decoder(cls: type[enum.Enum], tag: str) -> Decoder:
    def decode_enum(raw: dict[str, Any]) -> enum.Enum:
        value = _field(raw, tag, "value")
        try:
            return cls(_dec_any(value))
        except (ValueError, TypeError):
            raise WireError(f"{tag}: no member {str(value)[:40]!r}") from None
    return decode_enum


def _dataclass_decoder(cls: type, tag: str,
                       fields: list[tuple[str, Decoder, Any, Any]]) -> Decoder:
    known = {name for name, *_ in fields}
    lenient = cls.__name__ in HANDSHAKE and cls.__module__.endswith("service.protocol")
    slots = "__dict__" not in dir(cls)
    plan = [(name, decoder, exact_types(decoder), default, factory)
            for name, decoder, default, factory in fields]

    def decode_dataclass(raw: dict[str, Any]) -> Any:
        values: dict[str, Any] = {}
        present = 1  # the tag
        for name, decoder, exact, default, factory in plan:
            value = raw.get(name, _ABSENT)
            if value is not _ABSENT:
                present += 1
                if type(value) in exact:  # a plain value of the field's type, as read
                    values[name] = value
                    continue
                try:
                    values[name] = decoder(value)
                except WireError as exc:
                    raise WireError(f"{tag}.{name}: {exc}") from None
            elif default is not _MISSING:
                values[name] = default
            elif factory is not _MISSING:
                values[name] = factory()
            else:
                raise WireError(f"{tag}: missing field {name!r}")
        if present != len(raw) and not lenient:
            extra = next(k for k in raw if k != TAG and k not in known)
            raise WireError(f"{tag}: unknown field {str(extra)[:40]!r}")
        obj: Any = object.__new__(cls)  # as a pickle did: the fields as sent, no __init__
        if slots:
            for name, value in values.items():
                object.__setattr__(obj, name, value)
        else:
            obj.__dict__.update(values)
        return obj
    return decode_dataclass


def _field_decoder(field: dataclasses.Field[Any], hint: Any) -> Decoder:
    decoder = decoder_for(hint, _dec_any)
    unreadable = field.metadata.get(UNREADABLE)
    if unreadable is None:
        return decoder

    def decode_or_unreadable(raw: Any) -> Any:  # the field's value fails, not the message
        try:
            return decoder(raw)
        except WireError as exc:
            return unreadable(kind(raw), str(exc))
    return decode_or_unreadable


# -------------------------------------------------------------------- tables
def _ready() -> None:
    if _tagged:
        return
    with _lock:
        if _tagged:
            return
        registry = wire_types()
        encoders: dict[type, Encoder] = {list: _enc_items, dict: _enc_dict, Said: _enc_said}
        tagged: dict[str, Decoder] = {"Said": _dec_said, "Path": _dec_path, "dict": _dec_dict}
        for collection in (tuple, set, frozenset):
            encoders[collection] = _enc_collection
            tagged[collection.__name__] = _collection_decoder(collection)
        for cls, tag in registry.names.items():
            if issubclass(cls, enum.Enum):
                encoders[cls], tagged[tag] = _enum_encoder(tag), _enum_decoder(cls, tag)
                continue
            hints = registry.hints[cls]
            fields = dataclasses.fields(cls)  # type: ignore[arg-type]
            encoders[cls] = _dataclass_encoder(tag, [(f.name, _encoder_for(hints[f.name]))
                                                     for f in fields])
            tagged[tag] = _dataclass_decoder(cls, tag, [
                (f.name, _field_decoder(f, hints[f.name]), f.default, f.default_factory)
                for f in fields])
        _encoders.update(encoders)
        _tagged.update(tagged)  # last: a non-empty _tagged means the tables are whole
