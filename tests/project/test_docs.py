"""The user guide (docs/, mkdocs.yml) builds with warnings as errors, offline; it is
complete in both languages; its command-line page names every option there is; its run
spec example is a spec. (tests/project/test_readme.py parses every command the guide
shows.)"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support.doc_commands import mpstudio_commands
from support.paths import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # a dependency of mpstudio on 3.10
    import tomli as tomllib

DOCS = ROOT / "docs"
ENGLISH_ONLY = {"DESIGN.md"}  # written for contributors; the Chinese nav shows it in English


def english_pages() -> list[Path]:
    return sorted(p for p in DOCS.glob("*.md") if not p.name.endswith(".zh.md"))


def chinese(page: Path) -> Path:
    return page.with_name(page.stem + ".zh.md")


def nav_pages() -> list[str]:
    """The files mkdocs.yml's nav names (read without a YAML parser: `- Title: file.md`)."""
    config = (ROOT / "mkdocs.yml").read_text().split("\nnav:\n", 1)[1]
    return re.findall(r"^\s*- [^:]+: (\S+\.md)\s*$", config, re.M)


def test_the_guide_builds_strict_and_offline(tmp_path):
    """`mkdocs build --strict`: a broken link, a page missing from the nav or a bad
    anchor fails. A proxy that refuses every connection makes any download at build time
    fail too, and the pages must not load fonts or scripts from another site."""
    site = tmp_path / "site"
    # Not --quiet: it drops the warnings before --strict counts them, and passes.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1",
           "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
           "NO_PROXY": "", "no_proxy": ""}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict",
         "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    for page in nav_pages():
        name = page.removesuffix(".md")
        assert (site / name / "index.html").is_file() or name == "index", page
        assert (site / "zh" / name / "index.html").is_file() or name == "index", page
    assert (site / "index.html").is_file() and (site / "zh" / "index.html").is_file()
    chinese_home = (site / "zh" / "index.html").read_text()
    assert 'lang="zh"' in chinese_home and "混合精度" in chinese_home
    remote = re.compile(r"""(?:src|href)=["'](?:https?:)?//(?!127\.0\.0\.1)""")
    for html in site.rglob("*.html"):
        text = html.read_text()
        assert "fonts.googleapis.com" not in text, html
        loads = [m for m in re.findall(r"<(?:script|link)\b[^>]*>", text) if remote.search(m)]
        assert not loads, (html, loads)


def test_every_page_is_in_the_nav_and_translated():
    names = [p.name for p in english_pages()]
    assert sorted(nav_pages()) == sorted(names)
    missing = [n for n in names if n not in ENGLISH_ONLY and not chinese(DOCS / n).is_file()]
    assert not missing, f"no Simplified Chinese page for {missing}"
    orphans = [p.name for p in DOCS.glob("*.zh.md")
               if not p.with_name(p.name.replace(".zh.md", ".md")).is_file()]
    assert not orphans


@pytest.mark.parametrize("page", [p for p in english_pages() if p.name not in ENGLISH_ONLY],
                         ids=lambda p: p.name)
def test_a_chinese_page_keeps_its_english_pages_commands_and_sections(page):
    """A translation is the same page: the same commands in the same order, the same
    number of sections, and it is written in Chinese."""
    zh = chinese(page)
    assert mpstudio_commands(zh) == mpstudio_commands(page)
    heading = re.compile(r"^#{1,4} ", re.M)
    text = zh.read_text()
    outside_code = re.sub(r"```.*?```", "", text, flags=re.S)
    assert len(heading.findall(outside_code)) == len(
        heading.findall(re.sub(r"```.*?```", "", page.read_text(), flags=re.S)))
    han = len(re.findall(r"[\u4e00-\u9fff]", outside_code))
    assert han > 0.15 * len(re.sub(r"\s", "", outside_code)) or han > 400, zh.name


def _options(parser) -> dict[str, set[str]]:
    """Every long option of every (sub)command: 'train' -> {'--epochs', ...}."""
    import argparse

    found: dict[str, set[str]] = {}

    def walk(p: argparse.ArgumentParser, name: str) -> None:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    walk(child, f"{name} {sub}".strip())
            elif action.option_strings and action.dest != "help":
                found.setdefault(name, set()).update(
                    o for o in action.option_strings if o.startswith("--"))
    walk(parser, "")
    return found


@pytest.mark.parametrize("page", ["command-line.md", "command-line.zh.md"])
def test_the_command_line_page_names_every_command_and_option(page):
    """A new option or command without a line in the guide fails here."""
    from mpstudio.cli.main import build_parser

    text = (DOCS / page).read_text()
    options = _options(build_parser())
    assert {"train", "compare", "runs list", "desktop install"} <= set(options)
    for command in options:
        if command:
            assert f"`{command.split()[0]}" in text or f"{command}" in text, command
    missing = sorted({f"{c or 'mpstudio'}: {o}" for c, opts in options.items() for o in opts
                      if not re.search(re.escape(o) + r"(?![\w-])", text)})
    assert not missing, f"{page} does not name {missing}"


@pytest.mark.parametrize("page", ["command-line.md", "command-line.zh.md"])
def test_the_run_spec_example_is_a_valid_spec_with_every_field(page):
    from mpstudio.engine.spec import RunSpec

    text = (DOCS / page).read_text()
    example = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    data = tomllib.loads(example)
    assert RunSpec.from_dict(data) == RunSpec()  # every value shown is the default
    default = RunSpec().to_dict()

    def keys(d: dict, prefix: str = "") -> set[str]:
        return {k2 for k, v in d.items() for k2 in
                (keys(v, f"{prefix}{k}.") if isinstance(v, dict) and v else {prefix + k})}
    assert keys(default) - {"dataset_options"} <= keys(data) | {"steps"}
