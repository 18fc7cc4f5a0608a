"""A named registry of entries (datasets, templates) with errors that list the choices."""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, kind: str):
        self.kind = kind  # "dataset", "template": used in messages
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
            raise KeyError(
                f"unknown {self.kind} {name!r}; choose from: {', '.join(self._entries)}"
            ) from None
