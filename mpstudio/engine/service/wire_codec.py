"""The wire format between the window and its engine: MessagePack (msgspec), data only,
so a hostile peer (the engine is reachable over ssh) can send wrong data but never code.

A dataclass crosses as a map with its tag under ``"$"``; a tag names one of the classes
of the allow-list (wire_types.py) and nothing else is ever built. Each field is checked
against its type as it is read: a wrong type, a missing or unknown field, an unknown tag
is a ``WireError`` with one short line, never a half-built message. Besides plain values:

- a ``Said`` goes as its stored form and is rendered again on arrival, so the receiver
  reads it in its own language: ``{"$": "Said", "stored": ...}``;
- a path ``{"$": "Path", "path": ...}``; an enum of the registry ``{"$": tag, "value": ...}``;
- a tuple where the field's type says tuple (or list) goes as an array, the type brings
  the tuple back; elsewhere (fields typed ``Any``, ``dict[str, Any]``) as
  ``{"$": "tuple", "items": [...]}``, so a message compares equal after a round trip;
- a dict whose keys are not all str, or that has the key "$", as
  ``{"$": "dict", "items": [[key, value], ...]}``;
- numpy scalars as the Python number they hold; NaN and inf as floats.

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
from mpstudio.engine.service.wire_types import hint_args, is_union, wire_types

TAG = "$"  # the reserved key of a tagged map
UNREADABLE = "wire_unreadable"  # field metadata: (tag, error) -> the value to use instead
_PLAIN = frozenset({str, int, float, bool, type(None), bytes})
_MISSING: Any = dataclasses.MISSING
_SEQUENCES = (tuple, list, set, frozenset)  # where a field's type names one: an array
_CONTAINERS = (*_SEQUENCES, dict)

Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]


class WireError(ValueError):
    """A value that cannot be sent, or bytes that are not a message this side knows."""


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
    kind = type(value)
    if kind in _PLAIN:
        return value
    encoder = _encoders.get(kind) or _encoder_for_class(kind)
    return encoder(value)


def _encoder_for_class(kind: type) -> Encoder:
    if issubclass(kind, PurePath):
        encoder: Encoder = _enc_path
    elif issubclass(kind, np.generic):  # a numpy float or int: the number it holds
        encoder = _enc_numpy_scalar
    else:
        raise WireError(f"{kind.__module__}.{kind.__qualname__} is not in the wire registry")
    _encoders[kind] = encoder
    return encoder


def _enc_list(value: list[Any]) -> list[Any]:
    return [x if type(x) in _PLAIN else _enc_any(x) for x in value]


def _enc_collection(value: tuple[Any, ...] | set[Any] | frozenset[Any]) -> dict[str, Any]:
    return {TAG: type(value).__name__, "items": _enc_list(value)}  # type: ignore[arg-type]


def _enc_dict(value: dict[Any, Any], keys: Encoder = _enc_any,
              values: Encoder = _enc_any) -> dict[Any, Any]:
    for key in value:
        if type(key) is not str or key == TAG:
            return {TAG: "dict", "items": [[keys(k), values(v)] for k, v in value.items()]}
    return {k: v if type(v) in _PLAIN else values(v) for k, v in value.items()}


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
            out[name] = value if type(value) in _PLAIN else encoder(value)
        return out
    return encode_dataclass


def _enum_encoder(tag: str) -> Encoder:
    return lambda member: {TAG: tag, "value": _enc_any(member.value)}


def _encoder_for(hint: Any) -> Encoder:
    """A field of type ``hint``: any value as ``_enc_any`` sends it, except that where the
    type says tuple, list or dict, the decoder rebuilds those from the type."""
    args, origin = hint_args(hint), _origin(hint)
    if is_union(hint):
        containers = [a for a in args if _origin(a) in _CONTAINERS]
        return _encoder_for(containers[0]) if len(containers) == 1 else _enc_any
    if origin in _SEQUENCES:
        variadic = origin is not tuple or not args or (len(args) == 2 and args[1] is Ellipsis)
        return _sequence_encoder(_encoder_for(args[0] if args else Any), None) if variadic \
            else _sequence_encoder(None, [_encoder_for(a) for a in args])
    if origin is dict:
        keys, values = (_encoder_for(a) for a in args) if args else (_enc_any, _enc_any)
        return lambda v: _enc_dict(v, keys, values) if type(v) is dict else _enc_any(v)
    return _enc_any


def _sequence_encoder(item: Encoder | None, positions: list[Encoder] | None) -> Encoder:
    def encode_sequence(value: Any) -> Any:
        if type(value) not in _SEQUENCES:
            return _enc_any(value)
        if positions is None:
            return [x if type(x) in _PLAIN else item(x) for x in value]  # type: ignore[misc]
        if len(value) != len(positions):
            raise WireError(f"a tuple of {len(value)} where the type says {len(positions)}")
        return [e(x) for e, x in zip(positions, value)]  # noqa: B905 - lengths checked
    return encode_sequence


# ------------------------------------------------------------------ decoding
def _kind(raw: Any) -> str:
    if type(raw) is dict and type(raw.get(TAG)) is str:
        return raw[TAG][:40]
    return type(raw).__name__


def _dec_any(raw: Any) -> Any:
    kind = type(raw)
    if kind is dict:
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
    if kind is list:
        return [_dec_any(x) for x in raw]
    if kind in _PLAIN:
        return raw
    raise WireError(f"unexpected {kind.__name__}")  # a MessagePack extension, a timestamp


def _fields(raw: dict[str, Any], tag: str, *names: str) -> list[Any]:
    if len(raw) != len(names) + 1 or any(name not in raw for name in names):
        raise WireError(f"{tag}: expected the fields {', '.join(names)}")
    return [raw[name] for name in names]


def _dec_said(raw: dict[str, Any]) -> Said:
    (form,) = _fields(raw, "Said", "stored")
    try:
        return Said(_dec_any(form))
    except WireError:
        raise
    except Exception as exc:  # a stored form our renderer cannot read
        raise WireError(f"Said: a sentence that does not render ({type(exc).__name__})") \
            from None


def _dec_path(raw: dict[str, Any]) -> Path:
    (path,) = _fields(raw, "Path", "path")
    if type(path) is not str:
        raise WireError(f"Path: expected str, got {_kind(path)}")
    return Path(path)


def _collection_decoder(make: type) -> Decoder:
    tag = make.__name__

    def decode_collection(raw: dict[str, Any]) -> Any:
        (items,) = _fields(raw, tag, "items")
        if type(items) is not list:
            raise WireError(f"{tag}: expected an array, got {_kind(items)}")
        try:
            return make([_dec_any(x) for x in items])
        except TypeError:  # a set's item that cannot be hashed
            raise WireError(f"{tag}: an item that cannot be hashed") from None
    return decode_collection


def _dict_pairs(raw: dict[Any, Any]) -> Any:
    """A map's key-value pairs, the escaped form ({"$": "dict"}) included."""
    if TAG not in raw:
        return raw.items()
    if raw[TAG] != "dict":
        raise WireError(f"expected a map, got {_kind(raw)}")
    (items,) = _fields(raw, "dict", "items")
    if type(items) is not list or any(type(p) is not list or len(p) != 2 for p in items):
        raise WireError("dict: expected an array of key-value pairs")
    return items


def _dec_dict(raw: dict[str, Any]) -> dict[Any, Any]:
    try:
        return {_dec_any(k): _dec_any(v) for k, v in _dict_pairs(raw)}
    except TypeError:  # a key that cannot be one (a list)
        raise WireError("dict: a key that cannot be hashed") from None


def _enum_decoder(cls: type[enum.Enum], tag: str) -> Decoder:
    def decode_enum(raw: dict[str, Any]) -> enum.Enum:
        (value,) = _fields(raw, tag, "value")
        try:
            return cls(_dec_any(value))
        except (ValueError, TypeError):
            raise WireError(f"{tag}: no member {str(value)[:40]!r}") from None
    return decode_enum


def _dataclass_decoder(cls: type, tag: str,
                       fields: list[tuple[str, Decoder, Any, Any]]) -> Decoder:
    known = {name for name, *_ in fields}
    slots = "__dict__" not in dir(cls)

    def decode_dataclass(raw: dict[str, Any]) -> Any:
        values: dict[str, Any] = {}
        present = 1  # the tag
        for name, decoder, default, factory in fields:
            if name in raw:
                present += 1
                try:
                    values[name] = decoder(raw[name])
                except WireError as exc:
                    raise WireError(f"{tag}.{name}: {exc}") from None
            elif default is not _MISSING:
                values[name] = default
            elif factory is not _MISSING:
                values[name] = factory()
            else:
                raise WireError(f"{tag}: missing field {name!r}")
        if present != len(raw):
            extra = next(k for k in raw if k != TAG and k not in known)
            raise WireError(f"{tag}: unknown field {str(extra)[:40]!r}")
        obj: Any = object.__new__(cls)  # as a pickle did: the fields as sent, no __init__ again
        if slots:
            for name, value in values.items():
                object.__setattr__(obj, name, value)
        else:
            obj.__dict__.update(values)
        return obj
    return decode_dataclass


def _decoder_for(hint: Any) -> Decoder:
    """Checks (and rebuilds: tuples, dataclasses) a value read for a field of ``hint``."""
    args, origin = hint_args(hint), _origin(hint)
    if hint is Any or hint is object or isinstance(hint, typing.TypeVar):
        return _dec_any
    if origin is typing.Literal:
        return _literal(args)
    if is_union(hint):
        leaves = [a for a in args if isinstance(a, type) or _generic_class(a)]
        others = [_decoder_for(a) for a in args if a not in leaves]
        first = [_leaf(tuple(_generic_class(a) or a for a in leaves))] if leaves else []
        return _first_of([*first, *others], " | ".join(_name(a) for a in args))
    if origin in _SEQUENCES:
        variadic = origin is not tuple or not args or (len(args) == 2 and args[1] is Ellipsis)
        return _sequence(origin, _decoder_for(args[0] if args else Any) if variadic else None,
                         None if variadic else [_decoder_for(a) for a in args])
    if origin is dict:
        keys, values = (_decoder_for(a) for a in args) if args else (_dec_any, _dec_any)
        return _mapping(keys, values)
    if _generic_class(hint):
        return _leaf((_generic_class(hint),))  # type: ignore[arg-type]
    if isinstance(hint, type):
        return _leaf((hint,))
    raise TypeError(f"the wire cannot check a field of type {hint!r}")


def _origin(hint: Any) -> Any:
    """tuple for ``tuple[int, ...]`` and for a bare ``tuple`` alike (list, dict too)."""
    return typing.get_origin(hint) or (hint if hint in _CONTAINERS else None)


def _generic_class(hint: Any) -> type | None:
    origin = typing.get_origin(hint)  # JobRequest[Any]: the class itself
    return origin if isinstance(origin, type) and dataclasses.is_dataclass(origin) else None


def _name(hint: Any) -> str:
    if hint is type(None):
        return "None"
    return hint.__name__ if isinstance(hint, type) else str(hint).replace("typing.", "")


def _leaf(classes: tuple[type, ...]) -> Decoder:
    accepted = classes + ((int,) if float in classes else ())  # an int where a float goes
    exact = frozenset(c for c in accepted if c in _PLAIN) | (
        {bool} if int in accepted else set())
    name = " | ".join(_name(c) for c in classes)

    def decode_leaf(raw: Any) -> Any:
        if type(raw) in exact:
            return raw
        value = _dec_any(raw) if type(raw) is dict else raw  # a tagged value: built first
        if isinstance(value, accepted) and type(value) is not dict and type(value) is not list:
            return value
        raise WireError(f"expected {name}, got {_kind(raw)}")
    return decode_leaf


def _literal(values: tuple[Any, ...]) -> Decoder:
    def decode_literal(raw: Any) -> Any:
        if type(raw) in _PLAIN and raw in values:
            return raw
        raise WireError(f"expected one of {values!r}, got {str(raw)[:40]!r}")
    return decode_literal


def _first_of(decoders: list[Decoder], name: str) -> Decoder:
    def decode_union(raw: Any) -> Any:
        for decoder in decoders:
            try:
                return decoder(raw)
            except WireError:
                continue
        raise WireError(f"expected {name}, got {_kind(raw)}")
    return decode_union if len(decoders) > 1 else decoders[0]


def _sequence(make: type, item: Decoder | None, positions: list[Decoder] | None) -> Decoder:
    def decode_sequence(raw: Any) -> Any:
        if type(raw) is not list:
            raise WireError(f"expected an array, got {_kind(raw)}")
        if positions is None:
            try:
                return make([item(x) for x in raw])  # type: ignore[misc]
            except TypeError:  # a set's item that cannot be hashed
                raise WireError("an item that cannot be hashed") from None
        if len(raw) != len(positions):
            raise WireError(f"expected {len(positions)} items, got {len(raw)}")
        return make([d(x) for d, x in zip(positions, raw)])  # noqa: B905 - lengths checked
    return decode_sequence


def _mapping(keys: Decoder, values: Decoder) -> Decoder:
    def decode_mapping(raw: Any) -> dict[Any, Any]:
        if type(raw) is not dict:
            raise WireError(f"expected a map, got {_kind(raw)}")
        try:
            return {keys(k): values(v) for k, v in _dict_pairs(raw)}
        except TypeError:
            raise WireError("a map key that cannot be hashed") from None
    return decode_mapping


def _field_decoder(field: dataclasses.Field[Any], hint: Any) -> Decoder:
    decoder = _decoder_for(hint)
    unreadable = field.metadata.get(UNREADABLE)
    if unreadable is None:
        return decoder

    def decode_or_unreadable(raw: Any) -> Any:  # the field's value fails, not the message
        try:
            return decoder(raw)
        except WireError as exc:
            return unreadable(_kind(raw), str(exc))
    return decode_or_unreadable


# -------------------------------------------------------------------- tables
def _ready() -> None:
    if _tagged:
        return
    with _lock:
        if _tagged:
            return
        registry = wire_types()
        encoders: dict[type, Encoder] = {list: _enc_list, dict: _enc_dict, Said: _enc_said}
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
