"""The engine's sentences in English and Simplified Chinese: the language follows the
environment, the catalogs stay in step with the code, and a comparison's verdict and
its rule read in Chinese with only the Latin names of the glossary left."""

from __future__ import annotations

import pytest

from devtools import catalogs
from mpstudio.engine import i18n
from mpstudio.engine.comparison.card import build_card
from mpstudio.engine.comparison.card_text import card_rows
from mpstudio.engine.comparison.verdict import rule_text

from support import language_check
from support.stored_runs import run

# Beyond the glossary's names: the units and abbreviations a number carries here.
UNITS = {"inf", "NaN", "MiB", "ms", "pp", "McNemar", "F16C"}


def english_words(text: str) -> list[str]:
    return language_check.english_words(text, language_check.LATIN_NAMES | UNITS)


@pytest.fixture
def chinese():
    i18n.set_language("zh_CN")
    yield
    i18n.set_language("en")


def test_the_language_follows_the_environment_and_mpstudio_lang_overrides_it():
    assert i18n.resolve(None, {"LANG": "zh_CN.UTF-8"}) == "zh_CN"
    assert i18n.resolve(None, {"LANGUAGE": "zh_CN:en_US", "LANG": "en_US.UTF-8"}) == "zh_CN"
    assert i18n.resolve(None, {"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}) == "en"  # LC_ALL first
    assert i18n.resolve(None, {}) == "en"
    assert i18n.resolve(None, {"MPSTUDIO_LANG": "zh_CN", "LANG": "en_US.UTF-8"}) == "zh_CN"
    assert i18n.resolve("en", {"MPSTUDIO_LANG": "zh_CN"}) == "en"  # --lang beats both
    assert i18n.resolve("system", {"LANG": "zh_TW.UTF-8"}) == "zh_CN"  # the one Chinese


def test_the_catalogs_are_in_step_with_the_code():
    """A sentence marked in the code but missing from the zh_CN catalog, untranslated,
    with other {fields}, or a .mo older than its .po: run scripts/update_translations.py."""
    for lang in catalogs.TRANSLATED:
        assert catalogs.problems(lang) == [], lang


def test_a_new_sentence_in_the_code_is_caught(monkeypatch):
    template = catalogs.extract()
    template.add("A sentence nobody has translated yet", locations=[("x.py", 1)])
    monkeypatch.setattr(catalogs, "extract", lambda: template)
    assert catalogs.problems("zh_CN") == [
        "not in mpstudio.po (zh_CN): 'A sentence nobody has translated yet'"]


def test_a_slower_verdict_its_card_and_the_rule_read_in_chinese(chinese):
    card = build_card([run(1, "float32", 1000, 0.9)], [run(2, "mixed_float16", 700, 0.9)])
    sentence = card.verdict.sentence
    assert card.verdict.kind == "slower"
    assert sentence.startswith("在此硬件上更慢：mixed_float16 的速度为 float32 的 0.70 倍")
    # The advisor's reason and the memory note are stored with the run, in English
    # (this release's history): they become keys with values next, and are left out here.
    advisor = run(2, "mixed_float16", 700, 0.9).hardware["advisor_reason"]
    assert english_words(sentence.replace(advisor, "")) == []
    rows = card_rows(card)
    assert [r.name for r in rows][:3] == ["稳态吞吐量（样本/秒）", "首步耗时", "每轮耗时"]
    for row in rows:
        text = " ".join((row.name, row.change, row.tip)).replace(card.baseline.memory_note, "")
        assert english_words(text) == [], row
    assert english_words(rule_text()) == []
    assert "McNemar 检验" in rule_text()


def test_an_accuracy_loss_and_a_diverged_side_read_in_chinese(chinese):
    lost = build_card([run(1, "float32", 1000, 0.9)], [run(2, "mixed_float16", 500, 0.75)])
    assert lost.verdict.kind == "accuracy_loss"
    assert lost.verdict.sentence.startswith("按当前设置不值得：mixed_float16 的验证准确率下降了")
    assert "且其速度为" in lost.verdict.sentence  # slower too: "and", not "although"
    assert english_words(lost.verdict.sentence) == []
    diverged = build_card([run(1, "float32", 1000, 0.9)],
                          [run(2, "mixed_float16", 1000, 0.9, status="diverged")])
    assert diverged.verdict.sentence == (
        "按当前设置不值得：mixed_float16 发散了，而 float32 正常训练；"
        "请查看该运行的建议（损失缩放、学习率）。")


def test_english_is_the_source_and_unchanged():
    i18n.set_language("en")
    card = build_card([run(1, "float32", 1000, 0.9)], [run(2, "mixed_float16", 700, 0.9)])
    assert card.verdict.sentence.startswith("Slower on this hardware: mixed_float16 ran at "
                                            "0.70x the speed of float32")


def test_the_html_report_reads_in_chinese(chinese):
    """The page's headings, verdict, rule, card, chart titles and footer in Chinese, the
    page marked as such; what is data stays as recorded (setting keys, run labels)."""
    import xml.etree.ElementTree as ET

    from mpstudio.engine.report.html_report import render_html

    page = render_html([run(1, "float32", 1000, 0.9)], [run(2, "mixed_float16", 700, 0.9)])
    root = ET.fromstring(page)
    assert root.get("lang") == "zh-CN"
    ns = {"h": "http://www.w3.org/1999/xhtml", "svg": "http://www.w3.org/2000/svg"}
    headings = [h.text for h in root.iterfind(".//h:h2", ns)]
    assert headings == ["对比卡片", "曲线", "运行配置", "硬件", "运行"]
    title = root.find(".//h:h1", ns).text
    assert title == "mpstudio 对比：mixed_float16 与 float32 baseline"
    verdict = root.find(".//h:p[@class='verdict verdict-slower']", ns).text
    assert verdict.startswith("在此硬件上更慢")
    assert english_words(root.find(".//h:p[@class='rule']", ns).text) == []
    assert english_words(root.find(".//h:footer", ns).text) == []
    card = root.find(".//h:table[@class='card']", ns)
    for cell in card.iterfind(".//h:tbody/h:tr/h:th", ns):
        assert english_words("".join(cell.itertext()).replace("not reported", "")) == []
    chart_titles = [t.text for t in root.iterfind(".//svg:svg/svg:text", ns)][:4]
    assert "训练损失（验证为虚线，每轮一点）" in page and "稳态吞吐量" in page, chart_titles


def test_a_message_inside_an_f_string_is_caught(tmp_path, monkeypatch):
    """Babel does not read f-strings: a ``_("...")`` there would never be translated."""
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "bad.py").write_text(
        'from mpstudio.engine.i18n import _\nx = f"<h2>{_(\'Curves\')}</h2>"\n')
    monkeypatch.setattr(catalogs, "PACKAGE", tmp_path)
    assert catalogs.hidden_messages() == [
        f"{tmp_path.name}/engine/bad.py:2: a message inside an f-string (Babel cannot "
        "extract it): move it out"]


def _binds_underscore(function) -> bool:
    """Whether ``function`` itself assigns the name ``_`` (``x, _ = ...``, ``for _ in``,
    ``with ... as _``, ``except ... as _``), not counting nested functions and
    comprehensions (their own scopes)."""
    import ast

    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp,
                             ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.ExceptHandler) and node.name == "_":
            return True
        pending.extend(ast.iter_child_nodes(node))
    return False


def test_no_function_that_translates_rebinds_the_translation_function():
    """``proto, _ = convert(...)`` in a function that also calls ``_("...")`` makes ``_``
    local to it, and the translated error message becomes an UnboundLocalError (it hid
    every ONNX conversion failure)."""
    import ast
    from pathlib import Path

    root = Path(i18n.__file__).resolve().parents[1]
    offenders = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            calls = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                        and n.func.id == "_" for n in ast.walk(node))
            if calls and _binds_underscore(node):
                offenders.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name}")
    assert offenders == []
