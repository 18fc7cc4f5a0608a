"""A named registry of entries (datasets, templates) with errors that list the choices."""

from __future__ import annotations

from typing import Generic, TypeVar

from mpstudio.engine.i18n import _

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, kind: str):
        self.kind = kind  # "dataset", "template" (marked with N_()): used in messages
        self._entries: dict[str, T] = {}

    def register(self, name: str, entry: T) -> None:
        self._entries[name] = entry

    def names(self) -> list[str]:
        return list(self._entries)

    def entries(self) -> list[T]:
        return list(self._entries.values())

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(_("unknown {what} {value!r}; choose from: {choices}").format(
                what=_(self.kind), value=name, choices=", ".join(self._entries))) from None
