"""The engine's sentences in the user's language, the standard Python way (no Qt).

Messages are marked with ``_()`` (``N_()`` for a module-level constant, translated
where it is shown) and looked up in gettext catalogs compiled from
``resources/locale/<lang>/LC_MESSAGES/mpstudio.po`` (Babel extracts and compiles
them: ``scripts/update_translations.py``; at run time only the standard library reads
them). A sentence with values is one message with named fields, so a translation
can put them in its own order: ``_("ran at {speed}").format(speed=...)``.

The language: ``MPSTUDIO_LANG`` ("en", "zh_CN") when set (the CLI's ``--lang``; the
window sets it for its engine process), else the system's (``LANGUAGE``,
``LC_ALL``, ``LC_MESSAGES``, ``LANG``). What is stored and printed for machines
(the run history, TOML specs, ``--json`` keys) stays language-neutral: a sentence
that is stored or printed for machines as well as shown is a ``said.Said`` (its
message and values, rendered in the reader's language; ``engine/said.py``).
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping

from mpstudio import resources

DOMAIN = "mpstudio"
# A real folder, as gettext needs one (resources.folder)
LOCALE_DIR = resources.folder("locale")
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}  # each in its own language
ENV = "MPSTUDIO_LANG"

_translation: gettext.NullTranslations | None = None
_language = ""


def system_language(environ: Mapping[str, str] | None = None) -> str:
    """"zh_CN" when the system's language is Chinese, else "en" (the POSIX order:
    LANGUAGE, then LC_ALL, LC_MESSAGES, LANG; "C" and "POSIX" are English)."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            first = value.split(":")[0]
            return "zh_CN" if first.lower().startswith("zh") else "en"
    return "en"


def resolve(choice: str | None, environ: Mapping[str, str] | None = None) -> str:
    """A language of ``LANGUAGES`` for ``choice`` ("en", "zh_CN", "zh", "system", None)."""
    env = os.environ if environ is None else environ
    choice = (choice or env.get(ENV, "") or "system").strip()
    if choice.lower().startswith("zh"):
        return "zh_CN"
    if choice.lower().startswith("en"):
        return "en"
    return system_language(env)


def set_language(choice: str | None = None) -> str:
    """Use ``choice`` from now on (None: ``MPSTUDIO_LANG`` or the system's); returns
    the language in force."""
    global _translation, _language
    language = resolve(choice)
    _translation = gettext.translation(DOMAIN, LOCALE_DIR, [language], fallback=True)
    _language = language
    return language


def language() -> str:
    if not _language:
        set_language()
    return _language


def _(message: str) -> str:
    """``message`` in the language in force (itself where no translation exists)."""
    if _translation is None:
        set_language()
    assert _translation is not None
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    if _translation is None:
        set_language()
    assert _translation is not None
    return _translation.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks ``message`` for the catalogs without translating it yet (a constant read
    before the language is known): pass it through ``_()`` where it is shown."""
    return message

