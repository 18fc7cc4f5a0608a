"""The command line's language: argparse's own words from our catalog, help laid out in
terminal cells, and English for what ``--json`` prints.

argparse words its headings and errors ("usage: ", "options", "the following arguments
are required: %s") with ``gettext`` from its module globals, looked up when they are
used; ``install()`` points those at mpstudio's catalog (engine/i18n), where the
messages below are translated. They are argparse's exact strings (Python 3.10-3.12):
a message argparse words differently is simply shown in English.

Chinese characters take two terminal columns each, and Chinese has no spaces to break
lines at: ``CellFormatter`` wraps help text and aligns the option column by columns on
screen, not by characters. Text without wide characters is laid out exactly as
argparse's own formatter does.

``--json`` output is the same in every language (scripts parse it): a command run with
``--json`` speaks English (``for_machines()``); a document it writes for people, such
as the HTML report, is still in the user's language (``for_people()``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO

from mpstudio.engine import i18n
from mpstudio.engine.i18n import N_, _, ngettext

# argparse's messages a user can meet (its programming errors stay English).
ARGPARSE_MESSAGES = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("subcommands"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    # the name of mpstudio's command argument (dest), as an error names it
    N_("command"),
)


def _plural_messages() -> None:
    """Never called: marks argparse's plural message for the catalog (Babel reads it)."""
    ngettext("expected %s argument", "expected %s arguments", 2)


def install() -> None:
    """From now on argparse words its headings and errors in the language in force."""
    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]


def argument_error(message: str) -> str:
    """An argparse error message with "argument NAME: " worded from the catalog: Python
    3.10 words it in English whatever the language, and an argument known by its dest
    ("command") has a name to translate."""
    exc = sys.exc_info()[1]  # argparse calls error() while it handles an ArgumentError
    if isinstance(exc, argparse.ArgumentError) and exc.argument_name:
        return _("argument %(argument_name)s: %(message)s") % {
            "argument_name": _(exc.argument_name), "message": exc.message}
    return message


# --- A language the terminal can write -----------------------------------------------
# Characters every Chinese sentence is made of: an encoding that cannot write these (Big5,
# ASCII, Latin-1) cannot show the catalog. GBK and GB18030 can, as UTF-8 does.
_SAMPLES = {"zh_CN": "简体中文：训练数据，错误。"}
ENGLISH_NAMES = {"zh_CN": "Simplified Chinese"}  # said in English: the terminal's own


def can_write(language: str, streams: Sequence[TextIO]) -> bool:
    """Whether each of ``streams`` can write ``language``'s characters."""
    sample = _SAMPLES.get(language)
    if sample is None:
        return True
    for stream in streams:
        try:
            sample.encode(getattr(stream, "encoding", None) or "utf-8")
        except (UnicodeEncodeError, LookupError):
            return False
    return True


def fit_to_terminal() -> str | None:
    """English in place of a language stdout or stderr cannot write (any "zh*" locale
    chose Chinese, and under zh_TW.Big5 help died with a UnicodeEncodeError and errors
    came out in \\u escapes); the language given up, or None. Whatever else they cannot
    write is escaped rather than raised."""
    streams = (sys.stdout, sys.stderr)
    for stream in streams:  # e.g. a "·" on an ASCII terminal: never a traceback
        if getattr(stream, "errors", "") == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    wanted = i18n.language()
    if can_write(wanted, streams):
        return None
    i18n.set_language("en")
    return wanted


# --- English for machines -----------------------------------------------------------
_people: list[str] = []  # the user's language, while for_machines() is in force


@contextlib.contextmanager
def for_machines() -> Iterator[None]:
    """English meanwhile, in this process and in any it starts (``--json``)."""
    _people.append(i18n.language())
    before = os.environ.get(i18n.ENV)
    i18n.set_language("en")
    os.environ[i18n.ENV] = "en"
    try:
        yield
    finally:
        _restore_environment(before)
        i18n.set_language(_people.pop())


@contextlib.contextmanager
def for_people() -> Iterator[None]:
    """The user's language again inside ``for_machines()`` (a document written for
    people); no change outside it."""
    if not _people:
        yield
        return
    before = os.environ.get(i18n.ENV)
    i18n.set_language(_people[-1])
    os.environ[i18n.ENV] = _people[-1]
    try:
        yield
    finally:
        _restore_environment(before)
        i18n.set_language("en")


def _restore_environment(value: str | None) -> None:
    if value is None:
        os.environ.pop(i18n.ENV, None)
    else:
        os.environ[i18n.ENV] = value


# --- Help in terminal cells ---------------------------------------------------------
# A line may not start with closing punctuation nor end with opening punctuation.
_NO_LINE_START = frozenset("，。、；：！？）》」』”’…%")
_NO_LINE_END = frozenset("（《「『“‘")
_SPACES = re.compile(r"\s+")
_WIDE_HEADING = re.compile(r"^(\S.*[^\x00-\x7f]):$", re.MULTILINE)  # argparse's "heading:"


def cells(text: str) -> int:
    """Terminal columns ``text`` takes: two for a wide (East Asian) character."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def is_wide(text: str) -> bool:
    return cells(text) != len(text)


def wrap(text: str, width: int) -> list[str]:
    """``text`` (spaces normalized) in lines of at most ``width`` columns, broken at
    spaces and between Chinese characters (a longer word stays whole)."""
    lines: list[str] = []
    line, used = "", 0
    for token in _tokens(_SPACES.sub(" ", text).strip()):
        size = cells(token)
        if used + size > width and line.strip():
            lines.append(line.rstrip())
            line, used = "", 0
        if not line and token == " ":
            continue
        line += token
        used += size
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _tokens(text: str) -> list[str]:
    """Latin words, single spaces and single wide characters; punctuation that may not
    begin (or end) a line is kept with its neighbour."""
    tokens: list[str] = []
    for char in text:
        wide = unicodedata.east_asian_width(char) in "WF"
        glue = tokens and tokens[-1] != " " and (
            char in _NO_LINE_START or tokens[-1][-1] in _NO_LINE_END
            or (not wide and char != " " and not is_wide(tokens[-1][-1])))
        if glue:
            tokens[-1] += char
        else:
            tokens.append(char)
    return tokens


class CellFormatter(argparse.HelpFormatter):
    """argparse's formatter, measuring in terminal columns: Chinese help wraps at the
    width of the terminal and the help column stays aligned after a Chinese metavar."""

    def format_help(self) -> str:
        """A Chinese section heading ends with a full-width colon ("选项：")."""
        return _WIDE_HEADING.sub(r"\1：", super().format_help())

    def _split_lines(self, text: str, width: int) -> list[str]:
        if not is_wide(text):
            return super()._split_lines(text, width)
        return wrap(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if not is_wide(text):
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrap(text, width - len(indent)))

    def _format_usage(self, usage: str | None, actions: Iterable[argparse.Action],
                      groups: Iterable[argparse._MutuallyExclusiveGroup],
                      prefix: str | None) -> str:
        """argparse wraps the usage by characters and indents its continuation by the
        prefix's characters: with wide ones, indent by columns and narrow the width
        until every line fits."""
        shown = _("usage: ") if prefix is None else prefix
        extra = " " * (cells(shown) - len(shown))
        width = self._width
        try:
            for _attempt in range(6):
                text = super()._format_usage(usage, actions, groups, prefix)
                if not is_wide(text):
                    return text
                lines = text.rstrip("\n").split("\n")
                lines[1:] = [extra + line if line.strip() else line for line in lines[1:]]
                text = "\n".join(lines) + "\n\n"
                # lines without wide characters are as argparse makes them (an option
                # with a long list of choices may not fit in any language)
                over = max([cells(line) for line in lines if is_wide(line)], default=0) \
                    - (width - self._current_indent)
                if over <= 0 or self._width - over < 30:
                    return text
                self._width -= over
            return text
        finally:
            self._width = width

    # argparse's own two methods (identical in 3.10-3.12), with len() as columns
    def add_argument(self, action: argparse.Action) -> None:
        if action.help is not argparse.SUPPRESS:
            get_invocation = self._format_action_invocation
            invocations = [get_invocation(action)]
            for subaction in self._iter_indented_subactions(action):
                invocations.append(get_invocation(subaction))
            invocation_length = max(map(cells, invocations))
            action_length = invocation_length + self._current_indent
            self._action_max_length = max(self._action_max_length, action_length)
            self._add_item(self._format_action, [action])

    def _format_action(self, action: argparse.Action) -> str:
        help_position = min(self._action_max_length + 2, self._max_help_position)
        help_width = max(self._width - help_position, 11)
        action_width = help_position - self._current_indent - 2
        action_header = self._format_action_invocation(action)
        indent = " " * self._current_indent
        indent_first = 0
        if not action.help:
            action_header = indent + action_header + "\n"
        elif cells(action_header) <= action_width:
            padding = " " * (action_width - cells(action_header))
            action_header = indent + action_header + padding + "  "
        else:
            action_header = indent + action_header + "\n"
            indent_first = help_position
        parts = [action_header]
        if action.help and action.help.strip():
            help_text = self._expand_help(action)
            if help_text:
                help_lines = self._split_lines(help_text, help_width)
                parts.append(" " * indent_first + help_lines[0] + "\n")
                for line in help_lines[1:]:
                    parts.append(" " * help_position + line + "\n")
        elif not action_header.endswith("\n"):
            parts.append("\n")
        for subaction in self._iter_indented_subactions(action):
            parts.append(self._format_action(subaction))
        return self._join_parts(parts)
