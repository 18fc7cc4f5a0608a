"""A mypy plugin (pyproject: ``[tool.mypy] plugins``) for one place PySide6's stubs are
wrong: ``QT_TRANSLATE_NOOP("Context", "text")`` returns its text unchanged (Qt Linguist
only marks it for extraction), but the stubs say ``-> object``. Every marked sentence
then reads as an ``object`` where a ``str`` is wanted (``tr(...)``, ``.format``), some
270 calls in the window; this hook types the marked calls as ``str`` instead of a
``cast`` or an ignore at each."""

from __future__ import annotations

from collections.abc import Callable

from mypy.plugin import FunctionContext, Plugin
from mypy.types import Type

NOOPS = frozenset(f"PySide6.QtCore.{name}" for name in (
    "QT_TR_NOOP", "QT_TR_NOOP_UTF8", "QT_TRANSLATE_NOOP", "QT_TRANSLATE_NOOP3",
    "QT_TRANSLATE_NOOP_UTF8"))


def _returns_str(ctx: FunctionContext) -> Type:
    return ctx.api.named_generic_type("builtins.str", [])


class QtTranslateNoop(Plugin):
    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return _returns_str if fullname in NOOPS else None


def plugin(version: str) -> type[Plugin]:
    return QtTranslateNoop
