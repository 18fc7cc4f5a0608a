"""The ``mpstudio ...`` commands a page shows (the README, the user guide's pages): the
README's and the guide's checks parse each, and a translated page keeps its English
page's."""

from __future__ import annotations

import re
from pathlib import Path


def mpstudio_commands(page: Path) -> list[str]:
    """Every `mpstudio ...` command in a page's bash blocks (comments cut, `&&` chains
    split; a line continued from a `VAR=... \\` line counts too)."""
    text = page.read_text()
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            for part in line.split("#", 1)[0].split("&&"):
                part = part.strip()
                if part.startswith("mpstudio ") and "<" not in part:
                    out.append(part)
    return out
