"""A dataclass field's type as a check of what the wire codec read for it.

``decoder_for(hint, resolve)`` turns a type (``float | None``, ``tuple[Check, ...]``,
``dict[str, Any]``, ``Literal["pass", "fail"]``, a dataclass, an enum) into a function of
a decoded MessagePack value that returns the field's value or raises ``WireError``:
arrays become the tuple, list or set the type names, tagged maps are built by
``resolve`` (wire_codec's own decoder) and then checked against the class. Built once
per field; the common case (a plain value of the named type) is one set lookup.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any

TAG = "$"  # the reserved key of a tagged map
PLAIN = frozenset({str, int, float, bool, type(None), bytes})
SEQUENCES = (tuple, list, set, frozenset)  # where a field's type names one: an array
CONTAINERS = (*SEQUENCES, dict)

Decoder = Callable[[Any], Any]


class WireError(ValueError):
    """A value that cannot be sent, or bytes that are not a message this side knows."""


def kind(raw: Any) -> str:
    """What was read, for a message: a tagged map's tag, else the type's name."""
    if type(raw) is dict and type(raw.get(TAG)) is str:
        return raw[TAG][:40]
    return type(raw).__name__


def origin(hint: Any) -> Any:
    """tuple for ``tuple[int, ...]`` and for a bare ``tuple`` alike (list, dict too)."""
    return typing.get_origin(hint) or (hint if hint in CONTAINERS else None)


def is_union(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType)


def dict_pairs(raw: dict[Any, Any]) -> Any:
    """A map's key-value pairs, the escaped form ({"$": "dict", "items": [[k, v]...]})
    of a dict whose keys are not all str included."""
    if TAG not in raw:
        return raw.items()
    items = raw.get("items")
    if raw[TAG] != "dict" or len(raw) != 2 or type(items) is not list or any(
            type(p) is not list or len(p) != 2 for p in items):
        raise WireError(f"expected a map, got {kind(raw)}")
    return items


def decoder_for(hint: Any, resolve: Decoder) -> Decoder:
    """The check of a field of type ``hint``; ``resolve`` decodes a value of any type
    (a tagged map into its class)."""
    args, outer = typing.get_args(hint), origin(hint)
    if hint is Any or hint is object or isinstance(hint, typing.TypeVar):
        return resolve
    if outer is typing.Literal:
        return _literal(args)
    if is_union(hint):
        return _union(args, resolve)
    if outer in SEQUENCES:
        variadic = outer is not tuple or not args or (len(args) == 2 and args[1] is Ellipsis)
        if variadic:
            return _sequence(outer, decoder_for(args[0] if args else Any, resolve), None)
        return _sequence(outer, None, [decoder_for(a, resolve) for a in args])
    if outer is dict:
        keys, values = (decoder_for(a, resolve) for a in (args or (Any, Any)))
        return _mapping(keys, values)
    leaf = _leaf_class(hint)
    if leaf is not None:
        return _leaf((leaf,), resolve)
    raise TypeError(f"the wire cannot check a field of type {hint!r}")


def _leaf_class(hint: Any) -> type | None:
    """The class a value must be an instance of (``JobRequest[Any]``: JobRequest)."""
    if isinstance(hint, type):
        return None if hint in CONTAINERS else hint
    generic = typing.get_origin(hint)
    return generic if isinstance(generic, type) and dataclasses.is_dataclass(generic) else None


def _name(hint: Any) -> str:
    if hint is type(None):
        return "None"
    return hint.__name__ if isinstance(hint, type) else str(hint).replace("typing.", "")


def _leaf(classes: tuple[type, ...], resolve: Decoder) -> Decoder:
    accepted = classes + ((int,) if float in classes else ())  # an int where a float goes
    exact = frozenset(c for c in accepted if c in PLAIN) | (
        {bool} if int in accepted else set())
    name = " | ".join(_name(c) for c in classes)

    def decode_leaf(raw: Any) -> Any:
        if type(raw) in exact:
            return raw
        value = resolve(raw) if type(raw) is dict else raw  # a tagged value: built first
        if isinstance(value, accepted) and type(value) is not dict and type(value) is not list:
            return value
        raise WireError(f"expected {name}, got {kind(raw)}")
    decode_leaf.exact = exact  # type: ignore[attr-defined]
    return decode_leaf


def _literal(values: tuple[Any, ...]) -> Decoder:
    def decode_literal(raw: Any) -> Any:
        if type(raw) in PLAIN and raw in values:
            return raw
        raise WireError(f"expected one of {values!r}, got {str(raw)[:40]!r}")
    return decode_literal


def _union(args: tuple[Any, ...], resolve: Decoder) -> Decoder:
    """Each value is tried against the members it could be, by what was read: an array
    against the sequences, a map against the maps and classes, the rest against the
    plain classes and literals."""
    if Any in args:
        return resolve
    classes = tuple(c for c in map(_leaf_class, args) if c is not None)
    leaf = [_leaf(classes, resolve)] if classes else []
    arrays = [decoder_for(a, resolve) for a in args if origin(a) in SEQUENCES]
    maps = [decoder_for(a, resolve) for a in args if origin(a) is dict]
    literals = [decoder_for(a, resolve) for a in args
                if typing.get_origin(a) is typing.Literal]
    exact = leaf[0].exact if leaf else frozenset()  # type: ignore[attr-defined]
    name = " | ".join(_name(a) for a in args)
    if not (arrays or maps or literals):
        return leaf[0]

    def decode_union(raw: Any) -> Any:
        read = type(raw)
        if read in exact:
            return raw
        tries = arrays if read is list else [*leaf, *maps] if read is dict else \
            [*leaf, *literals]
        for decoder in tries:
            try:
                return decoder(raw)
            except WireError:
                continue
        raise WireError(f"expected {name}, got {kind(raw)}")
    decode_union.exact = exact  # type: ignore[attr-defined]
    return decode_union


def exact_types(decoder: Decoder) -> frozenset[type]:
    """The classes a decoder takes as they were read (a caller's shortcut)."""
    return getattr(decoder, "exact", frozenset())


def _sequence(make: type, item: Decoder | None, positions: list[Decoder] | None) -> Decoder:
    def decode_sequence(raw: Any) -> Any:
        if type(raw) is not list:
            raise WireError(f"expected an array, got {kind(raw)}")
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
            raise WireError(f"expected a map, got {kind(raw)}")
        try:
            return {keys(k): values(v) for k, v in dict_pairs(raw)}
        except TypeError:  # a key that cannot be one (a list)
            raise WireError("a map key that cannot be hashed") from None
    return decode_mapping
