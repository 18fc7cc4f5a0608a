"""Finding English left in a translated text: what the zh_CN tests look for.

A word is a run of letters, digits and underscores with at least two Latin letters in
a row ("float32" is one word, "V100" and "6e-8" none); it is English unless it is one
of the names that stay in Latin letters (the glossary's API, dtype and product names).
Not read: a menu's "&" and what follows a tab (the shortcut), `code spans` (commands
and options are typed as they are) and file extensions (".npz").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# ../shared/GLOSSARY_zh.md: API, dtype and product names stay in Latin letters.
LATIN_NAMES = frozenset({
    "mpstudio", "TensorFlow", "TensorBoard", "Keras", "TFLite", "ONNX", "SavedModel", "XLA",
    "TF32", "CUDA", "cuDNN", "NVML", "NVIDIA", "Tensor", "Core", "GPU", "GPUs", "TPU", "TPUs",
    "CPU", "CPUs", "Ampere", "RTX",
    "float16", "float32", "bfloat16", "mixed_float16", "mixed_bfloat16", "int8", "dtype",
    "softmax",
    "TOML", "JSON", "CSV", "HTML", "PNG", "SVG",
    "English", "Python", "PySide6", "Qt", "pyqtgraph", "NumPy", "Apache", "Debian", "Ubuntu",
    "Fedora", "macOS", "Windows", "Linux",
})

_WORD = re.compile(r"[A-Za-z0-9_]*[A-Za-z]{2}[A-Za-z0-9_]*")
_SKIPPED = re.compile(r"`[^`]*`|\.[A-Za-z0-9]+\b")  # code spans, file extensions


def visible_text(text: str) -> str:
    """``text`` as shown: no mnemonic "&" ("&&" is a literal one), no shortcut part."""
    return text.split("\t", 1)[0].replace("&&", "\0").replace("&", "").replace("\0", "&")


def english_words(text: str, allowed: Iterable[str] = LATIN_NAMES) -> list[str]:
    """The words of ``text`` that are neither Chinese nor a name of ``allowed``."""
    allowed = set(allowed)
    shown = _SKIPPED.sub(" ", visible_text(text))
    return [word for word in _WORD.findall(shown) if word not in allowed]
