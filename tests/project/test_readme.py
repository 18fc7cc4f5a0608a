"""The README's quick start stays true: CI runs exactly its test command."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from support.doc_commands import mpstudio_commands
from support.paths import ROOT


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_quick_start_has_two_commands_launch_and_test():
    launch, test = quick_start_commands()
    assert launch.endswith("mpstudio") and "pip install -e ." in launch
    assert "pytest" in test and '".[test]"' in test


def test_ci_runs_the_readme_test_command_the_linter_and_the_type_checker():
    _, test = quick_start_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test in ci
    assert ".venv/bin/ruff check ." in ci  # as README's Development section runs it
    assert ".venv/bin/mypy" in ci  # the type checker, likewise


def test_every_picture_the_readme_shows_is_in_the_repository():
    text = (ROOT / "README.md").read_text()
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert pictures and all((ROOT / p).is_file() for p in pictures), pictures
    ignored = subprocess.run(["git", "check-ignore", *pictures], cwd=ROOT,
                             capture_output=True, text=True)
    assert ignored.stdout == "", f"git ignores {ignored.stdout.split()}"


def guide_pages() -> list[Path]:
    """The user guide's pages, English (NAME.md) and Simplified Chinese (NAME.zh.md)."""
    return sorted((ROOT / "docs").rglob("*.md"))


@pytest.mark.parametrize("page", [ROOT / "README.md", *guide_pages()],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_in_the_readme_and_the_guide_parses(page):
    """An example with an option that no longer exists fails here, not for a user
    (parsing only: nothing trains). The README and every page of the guide, in both
    languages."""
    import shlex

    from mpstudio.cli.main import build_parser

    commands = mpstudio_commands(page)
    if page.name == "README.md":
        assert any(c.startswith("mpstudio compare") for c in commands)
    for command in commands:
        try:
            build_parser().parse_args(shlex.split(command)[1:])
        except SystemExit as exc:  # 0: --version or --help, which print and exit
            if exc.code != 0:
                pytest.fail(f"{page.name}: command does not parse ({exc.code}): {command}")


def test_the_guide_shows_commands_to_parse():
    """The check above is not vacuous: the guide holds commands of every kind."""
    commands = [c for page in guide_pages() for c in mpstudio_commands(page)]
    subcommands = {c.split()[1] for c in commands if not c.split()[1].startswith("-")}
    assert {"train", "compare", "find-batch", "predict", "data", "hw", "doctor", "runs",
            "replay", "export", "tensorboard", "desktop"} <= subcommands


def test_every_relative_link_in_the_readme_exists():
    """A link to a file that moved is a dead end on a fresh clone."""
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)", text)
    local = [link.split("#")[0] for link in links
             if not link.startswith(("http://", "https://", "mailto:", "#"))]
    missing = [link for link in local if link and not (ROOT / link).exists()]
    assert not missing, missing
