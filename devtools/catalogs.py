"""The engine's gettext catalogs: extract the marked sentences from the code, merge them
into each language's ``.po``, compile the ``.mo`` the app reads, and say what is out of
step (a test fails on it). Babel does the extracting, merging and compiling; it is a
development and test dependency only (the app reads ``.mo`` files with the standard
library's gettext).

    python scripts/update_translations.py     # after changing or adding a marked sentence
"""

from __future__ import annotations

import ast
import gettext
import string
from collections.abc import Sequence
from pathlib import Path
from typing import TypeGuard

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from mpstudio.engine.i18n import DOMAIN, LANGUAGES, LOCALE_DIR

MessageText = str | Sequence[str]  # babel's: a plural message is a tuple (or list) of forms

PACKAGE = Path(__file__).resolve().parents[1] / "mpstudio"
# The engine and the command line speak through gettext; the window through Qt (.ts),
# except its Qt-free models (ui/models), which use gettext like the engine they mirror.
METHOD_MAP = [("engine/**.py", "python"), ("cli/**.py", "python"),
              ("ui/models/**.py", "python")]
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]  # English is the source


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract() -> Catalog:
    """Every marked message in the code, with where it is used."""
    template = Catalog(project="mpstudio", domain=DOMAIN, fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
            PACKAGE, METHOD_MAP, keywords=KEYWORDS, strip_comment_tags=True):
        template.add(message, None, [(f"mpstudio/{filename}", lineno)],
                     auto_comments=comments, context=context)
    return template


def read(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, domain=DOMAIN, project="mpstudio", fuzzy=False)
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def update(lang: str) -> Catalog:
    """Merge the code's messages into ``lang``'s ``.po`` (new ones untranslated, gone
    ones dropped) and compile its ``.mo``."""
    catalog = read(lang)
    template = extract()
    template.creation_date = catalog.creation_date  # no churn in an unchanged catalog
    catalog.update(template, no_fuzzy_matching=True)
    catalog.obsolete.clear()
    catalog.project, catalog.version = "mpstudio", "0.1"
    catalog.copyright_holder = "the mpstudio authors"
    catalog.msgid_bugs_address = catalog.last_translator = "the mpstudio authors"
    catalog.language_team = f"mpstudio {lang}"
    catalog.header_comment = (
        f"# mpstudio's engine and command line in {LANGUAGES[lang]} ({lang}).\n"
        "# Translate the msgstr lines (keep the {fields}); scripts/update_translations.py\n"
        "# merges new sentences from the code and compiles the .mo the app reads.")
    path = po_path(lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=88, sort_output=False)
    compile_mo(lang)
    return catalog


def compile_mo(lang: str) -> Path:
    catalog = read(lang)
    target = po_path(lang).with_suffix(".mo")
    with target.open("wb") as f:
        write_mo(f, catalog, use_fuzzy=False)
    return target


def hidden_messages() -> list[str]:
    """``_("...")`` inside an f-string: Babel does not read f-strings, so the message
    would never reach a catalog."""
    out = []
    for pattern, _method in METHOD_MAP:
        for path in sorted(PACKAGE.glob(pattern.replace("**.py", "**/*.py"))):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.JoinedStr):
                    continue
                for call in ast.walk(node):
                    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                            and call.func.id in KEYWORDS and call.args
                            and isinstance(call.args[0], ast.Constant)):
                        where = path.relative_to(PACKAGE.parent)
                        out.append(f"{where}:{call.lineno}: a message inside an f-string "
                                   "(Babel cannot extract it): move it out")
    return out


def problems(lang: str) -> list[str]:
    """What is out of step for ``lang``: a message in the code but not in the ``.po``,
    one in the ``.po`` the code no longer has, one untranslated or fuzzy, a ``.mo``
    that does not say what the ``.po`` says."""
    code = {m.id for m in extract() if m.id}
    catalog = read(lang)
    out = hidden_messages()
    out += [f"not in {po_path(lang).name} ({lang}): {_short(i)}"
           for i in sorted(code - {m.id for m in catalog if m.id}, key=str)]
    out += [f"no longer in the code: {_short(m.id)}"
            for m in catalog if m.id and m.id not in code]
    out += [f"untranslated in {lang}: {_short(m.id)}"
            for m in catalog if m.id and (not _translated(m.string) or m.fuzzy)]
    out += [f"the {lang} translation names other {{fields}} than {_short(m.id)}"
            for m in catalog
            if m.id and _translated(m.string) and _fields(m.id) != _fields(m.string)]
    mo = po_path(lang).with_suffix(".mo")
    if not mo.exists():
        return [*out, f"{mo} is missing: run scripts/update_translations.py"]
    with mo.open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    for m in catalog:
        if not m.id or not _translated(m.string) or m.fuzzy:
            continue
        singular = m.id if isinstance(m.id, str) else m.id[0]
        expected = m.string if isinstance(m.string, str) else m.string[0]
        if compiled.gettext(singular) != expected:
            out.append(f"{mo.name} is older than the .po: run scripts/update_translations.py")
            break
    return out


def _fields(message: MessageText | None) -> set[str]:
    """The names of a message's format fields ("{speed}", "{steps:,}" -> speed, steps):
    a translation must fill the same ones, or formatting it fails at run time."""
    texts = (message,) if isinstance(message, str) else message or ()
    return {name.split(":")[0].split("!")[0] for text in texts
            for _, name, _, _ in string.Formatter().parse(text) if name}


def _translated(string: MessageText | None) -> TypeGuard[MessageText]:
    return bool(string) if isinstance(string, str) or string is None else all(string)


def _short(message: MessageText) -> str:
    text = message if isinstance(message, str) else message[0]
    return repr(text if len(text) <= 70 else text[:67] + "...")
