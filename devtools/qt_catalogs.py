"""The window's Qt Linguist catalogs: extract the strings the GUI code passes to Qt's
translation functions (``pyside6-lupdate``, which merges them into each language's
``.ts`` and keeps what is translated), compile the ``.qm`` the window loads
(``pyside6-lrelease``), and say what is out of step (a test fails on it).

    python scripts/update_translations.py     # after changing or adding a GUI string

pyside6-lupdate finds ``QCoreApplication.translate("Context", "text")``, ``self.tr(...)``
and ``QT_TRANSLATE_NOOP("Context", "text")`` spelled out, with string literals (no
f-strings: a value goes in with ``.format(name=...)`` after the lookup).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import PySide6

from mpstudio.ui.translations import I18N_DIR

UI_DIR = Path(__file__).resolve().parents[1] / "mpstudio" / "ui"
# No line numbers in the .ts: they change with every edit elsewhere in a file, and the
# contexts (one per module) say where a string is used.
LUPDATE_OPTIONS = ["-silent", "-locations", "none", "-no-obsolete", "-extensions", "py"]

Key = tuple[str, str, str]  # context, source, disambiguation comment


def ts_path(lang: str) -> Path:
    return I18N_DIR / f"mpstudio_{lang}.ts"


def qm_path(lang: str) -> Path:
    return ts_path(lang).with_suffix(".qm")


def _tool(name: str) -> str:
    """The Qt tool PySide6 ships (``pyside6-lupdate`` is a wrapper around it)."""
    folder = Path(PySide6.__file__).resolve().parent
    return str(folder / (f"{name}.exe" if sys.platform == "win32" else name))


def lupdate(ts: Path, lang: str) -> None:
    """Merge the code's strings into ``ts`` (made if missing): new ones come in
    unfinished, translated ones are kept, ones the code no longer has are dropped."""
    ts.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([_tool("lupdate"), *LUPDATE_OPTIONS, "-target-language", lang,
                    str(UI_DIR), "-ts", str(ts)], check=True, capture_output=True)


def lrelease(ts: Path, qm: Path) -> None:
    subprocess.run([_tool("lrelease"), "-silent", str(ts), "-qm", str(qm)], check=True,
                   capture_output=True)


def update(lang: str) -> dict[Key, str | None]:
    """Bring ``lang``'s ``.ts`` in step with the code and compile its ``.qm``."""
    lupdate(ts_path(lang), lang)
    lrelease(ts_path(lang), qm_path(lang))
    return messages(ts_path(lang))


def messages(ts: Path) -> dict[Key, str | None]:
    """Every message of ``ts``: its translation, or None where it is unfinished or
    empty (a plural is finished when every form is)."""
    out: dict[Key, str | None] = {}
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            key = (name, message.findtext("source", ""), message.findtext("comment", ""))
            translation = message.find("translation")
            if translation is None or translation.get("type") in ("unfinished", "vanished",
                                                                  "obsolete"):
                out[key] = None
                continue
            forms = [f.text or "" for f in translation.iter("numerusform")]
            text = "\n".join(forms) if forms else translation.text or ""
            out[key] = text if text and all(forms or [text]) else None
    return out


def problems(lang: str) -> list[str]:
    """What is out of step for ``lang``: a string in the code but not in the ``.ts``,
    one in the ``.ts`` the code no longer has, one unfinished. (Whether the ``.qm`` says
    what the ``.ts`` does is checked by loading it: lrelease's bytes differ between Qt
    releases.)"""
    ts, qm = ts_path(lang), qm_path(lang)
    if not ts.exists():
        return [f"{ts} is missing: run scripts/update_translations.py"]
    committed = messages(ts)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / ts.name
        lupdate(fresh, lang)
        code = set(messages(fresh))
    out = [f"not in {ts.name}: {_short(key)}" for key in sorted(code - set(committed))]
    out += [f"no longer in the code: {_short(key)}" for key in sorted(set(committed) - code)]
    out += [f"unfinished in {ts.name}: {_short(key)}"
            for key, text in committed.items() if text is None]
    if not qm.exists():
        out.append(f"{qm.name} is missing: run scripts/update_translations.py")
    return out


def _short(key: Key) -> str:
    context, text, _comment = key
    text = text if len(text) <= 70 else text[:67] + "..."
    return f"{context}: {text!r}"
