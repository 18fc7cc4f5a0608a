"""The command line in Simplified Chinese: every command's --help (argparse's own words
too), argparse's errors, what a real run and the history commands print; English as it
was; --json the same in both languages."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from mpstudio.cli import main
from mpstudio.cli.language import ARGPARSE_MESSAGES, CellFormatter, argument_error, cells, wrap
from mpstudio.cli.main import build_parser
from mpstudio.engine import i18n
from mpstudio.engine.history.locations import HISTORY_ENV

from support.language_check import LATIN_NAMES, english_words

# What stays as it is typed: option names (removed before looking), choice keys and
# command names (collected from the parser), and these names of things.
TYPED = {
    "NaN", "inf", "auto", "none", "linear", "tf32", "label", "grayscale", "rgb", "rgba",
    "x_train", "y_train", "x_test", "y_test", "MPSTUDIO_LANG", "TF_CPP_MIN_LOG_LEVEL",
    "TF_CONFIG", "mirrored", "multiworker", "savedmodel", "all", "on", "off", "TF", "Serving",
    "Ctrl", "MiB", "matmul", "conv",
    "local", "user", "host", "port", "command",  # --engine's forms, as typed
}
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
TINY_RUN = ["--template", "mlp", "--dataset", "synthetic", "--epochs", "1",
            "--synthetic-samples", "256", "--batch-size", "32", "--synthetic-shape", "8,8,1"]


def parser_paths(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every command and subcommand of ``parser``: (), ("train",), ("runs", "list")..."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parser_paths(sub, (*path, name))


def typed_names(parser: argparse.ArgumentParser) -> set[str]:
    """Command names and choice keys anywhere under ``parser``, with the names the help
    lists as choices (datasets, templates, precisions...)."""
    from mpstudio.engine.datasets.registry import dataset_names
    from mpstudio.engine.export.formats import FORMAT_IDS
    from mpstudio.engine.spec import (
        LOOPS,
        LOSS_SCALING_MODES,
        MONITORS,
        OPTIMIZERS,
        PRECISIONS,
        STRATEGIES,
        XLA_MODES,
    )
    from mpstudio.engine.templates.registry import template_names

    names = set(TYPED) | set(LATIN_NAMES)
    for group in (dataset_names(), template_names(), FORMAT_IDS, LOOPS, LOSS_SCALING_MODES,
                  MONITORS, OPTIMIZERS, PRECISIONS, STRATEGIES, XLA_MODES):
        for name in group:
            names |= set(re.findall(r"\w+", name))
    for _path, sub in parser_paths(parser):
        for action in sub._actions:
            for choice in action.choices or ():
                names |= set(re.findall(r"\w+", str(choice)))
    return names


@pytest.fixture
def zh(monkeypatch, capsys):
    """Runs ``mpstudio --lang zh_CN ARGS`` in this process: (exit code, stdout, stderr);
    English again afterwards (--lang sets the language and MPSTUDIO_LANG)."""
    monkeypatch.setenv(i18n.ENV, "en")
    capsys.readouterr()

    def run(*args: str, lang: str = "zh_CN") -> tuple[int, str, str]:
        try:
            code = main(["--lang", lang, *args])
        except SystemExit as exit_:  # --help, argparse's errors
            code = exit_.code
        out, err = capsys.readouterr()
        return code, out, err

    yield run
    i18n.set_language("en")


def _all_paths() -> list[tuple[str, ...]]:
    i18n.set_language("en")
    return [path for path, _parser in parser_paths(build_parser())]


@pytest.mark.parametrize("path", _all_paths(), ids=lambda p: " ".join(p) or "mpstudio")
def test_every_commands_help_is_chinese(zh, path, monkeypatch):
    """A command added later is covered too: the paths come from the parser."""
    monkeypatch.setenv("COLUMNS", "100")
    code, out, _err = zh(*path, "--help")
    assert code == 0 and out.startswith("用法：mpstudio")
    i18n.set_language("zh_CN")
    allowed = typed_names(build_parser())
    assert english_words(_OPTION.sub(" ", out), allowed) == [], out
    assert "位置参数" in out or "选项：" in out


def test_help_headings_metavars_and_layout_in_chinese(zh, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = zh("runs", "show", "--help")
    assert code == 0
    assert out.splitlines()[0] == "用法：mpstudio runs show [-h] [--json] 编号"
    assert "\n位置参数：\n  编号\n" in out and "\n选项：\n" in out
    assert "  -h, --help  显示此帮助信息并退出\n" in out
    _, out, _ = zh("train", "--help")
    assert "训练辅助：" in out and "  --epochs 轮数" in out and "默认 5" in out
    assert "[--early-stopping [耐心轮数]]" in out
    lines = out.splitlines()
    # every line fits 78 columns (argparse's width), unless argparse itself cannot break
    # it (no Chinese in it)
    assert [line for line in lines if cells(line) > 78 and cells(line) != len(line)] == []
    # the usage continues under its first option, in columns
    first = lines[0]
    column = cells(first[:first.index("[")])
    assert {len(line) - len(line.lstrip()) for line in lines[1:lines.index("")]} == {column}
    # the help column is aligned in columns after a Chinese metavar ("--epochs 轮数")
    options = lines[lines.index(""):]
    starts = {cells(m[1]) for line in options
              if (m := re.match(r"(  --\S+(?: \S+)?  +)\S", line))}
    continuations = {len(line) - len(line.lstrip()) for line in options
                     if line.startswith(" " * 20) and line.strip()}
    assert starts == continuations == {24}


def test_argparse_errors_read_in_chinese(zh):
    code, _, err = zh("runs", "compare", "1")
    assert code == 2
    assert err == ("mpstudio runs compare：错误：缺少必需的参数：编号"
                   "（参见 mpstudio runs compare --help）\n")
    code, _, err = zh("fly")
    assert code == 2
    assert err.startswith("mpstudio：错误：参数 命令：无效的选择：'fly'（可选：'train', ")
    assert english_words(_OPTION.sub(" ", err), typed_names(build_parser()) | {"fly"}) == []
    code, _, err = zh("runs", "list", "--status", "done")
    assert code == 2 and "参数 --status：无效的选择：'done'（可选：'running', " in err
    code, _, err = zh("train", "--precision")
    assert err == ("mpstudio train：错误：参数 --precision：需要给出一个值"
                   "（参见 mpstudio train --help）\n")
    code, _, err = zh("runs", "delete")
    assert "缺少必需的参数：编号" in err
    code, _, err = zh("train", "--no-such-option")
    assert err == "mpstudio：错误：无法识别的参数：--no-such-option（参见 mpstudio --help）\n"
    code, _, err = zh("runs", "compare", "1", "2", "3")
    assert "无法识别的参数：3" in err


def test_an_argument_error_is_worded_from_the_catalog_on_every_python(zh):
    """Python 3.10 words "argument X: ..." in English whatever gettext says; the CLI
    words it again from the exception argparse is handling."""
    i18n.set_language("zh_CN")
    action = argparse.ArgumentParser().add_argument("--epochs")
    try:
        raise argparse.ArgumentError(action, i18n._("expected one argument"))
    except argparse.ArgumentError as exc:
        english_310 = "argument %s: %s" % (exc.argument_name, exc.message)  # noqa: UP031
        assert argument_error(english_310) == "参数 --epochs：需要给出一个值"
    assert argument_error("unrecognized arguments: x") == "unrecognized arguments: x"


def test_argparse_translations_keep_their_fields():
    """argparse fills its messages with %-fields (the catalog check reads {fields})."""
    i18n.set_language("zh_CN")
    try:
        for message in [*ARGPARSE_MESSAGES, "expected %s argument"]:
            translated = i18n._(message) if message != "expected %s argument" else \
                i18n.ngettext(message, "expected %s arguments", 2)
            assert translated != message or message == "%(prog)s: error: %(message)s\n"
            fields = sorted(re.findall(r"%(?:\(\w+\))?[rsd]", message))
            assert sorted(re.findall(r"%(?:\(\w+\))?[rsd]", translated)) == fields, message
    finally:
        i18n.set_language("en")


def test_english_help_is_argparses_own_layout(monkeypatch):
    """The column-measuring formatter changes nothing where every character is narrow."""
    i18n.set_language("en")
    for columns in ("60", "100"):
        monkeypatch.setenv("COLUMNS", columns)
        for path, parser in parser_paths(build_parser()):
            ours = parser.format_help()
            parser.formatter_class = argparse.HelpFormatter
            assert parser.format_help() == ours, path
            parser.formatter_class = CellFormatter
    parser = dict(parser_paths(build_parser()))[("runs", "show")]
    assert parser.format_usage() == "usage: mpstudio runs show [-h] [--json] id\n"
    assert "\npositional arguments:\n  id\n" in parser.format_help()


def test_english_errors_are_unchanged(zh):
    _, _, err = zh("runs", "compare", "1", lang="en")
    assert err == ("mpstudio runs compare: error: the following arguments are required: ID "
                   "(see mpstudio runs compare --help)\n")
    _, _, err = zh("fly", lang="en")
    assert err.startswith("mpstudio: error: argument command: invalid choice: 'fly' (choose "
                          "from 'train', ")


def test_wrapping_chinese_by_columns():
    text = "将两次运行的对比写成独立的 HTML 页面，并将其指标写成 CSV（默认：HTML 旁边的 .csv 文件）"
    lines = wrap(text, 20)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(cells(line) <= 20 for line in lines)
    assert not any(line[0] in "，。：；）" for line in lines)
    assert wrap("plain words wrap as textwrap does", 11) == ["plain words", "wrap as",
                                                             "textwrap", "does"]


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """A tiny comparison run in Chinese: (history path, its stdout, its stderr)."""
    path = tmp_path_factory.mktemp("zh_runs") / "history.sqlite3"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(HISTORY_ENV, str(path))
        mp.setenv(i18n.ENV, "en")
        capture = _Capture()
        with capture:
            try:
                code = main(["--lang", "zh_CN", "compare", *TINY_RUN])
            finally:
                i18n.set_language("en")
    assert code == 0, capture.err
    return path, capture.out, capture.err


class _Capture:
    """stdout and stderr of the module's one run (capsys is per test)."""

    def __enter__(self):
        import contextlib
        import io

        self._out, self._err = io.StringIO(), io.StringIO()
        self._stack = contextlib.ExitStack()
        self._stack.enter_context(contextlib.redirect_stdout(self._out))
        self._stack.enter_context(contextlib.redirect_stderr(self._err))
        return self

    def __exit__(self, *exc):
        self._stack.close()
        self.out, self.err = self._out.getvalue(), self._err.getvalue()


def test_a_real_comparison_prints_chinese(history):
    """The CLI's own words in a real run: the run titles, the epoch lines, the card,
    where the runs were saved. (The lines under each title are event_text's.)"""
    _path, out, err = history
    assert "float32 基线 · mlp，数据集 synthetic" in err
    assert "mixed_float16 · mlp，数据集 synthetic" in err
    assert re.search(r"^第 1/1 轮  ", err, re.MULTILINE)
    assert "已保存到运行历史记录，编号 #1, #2（查看：mpstudio runs compare 1 2）" in err
    assert out.startswith("float32 基线 对比 mixed_float16")
    assert "float32 基线（#1）" in out and "mixed_float16（#2）" in out and "变化" in out
    assert "稳态吞吐量（样本/秒）" in out and "状态" in out and "已完成" in out


def _shown_english(text: str) -> list[str]:
    """English words of a command's output beyond names, numbers with units and paths."""
    from mpstudio.engine.datasets.registry import dataset_names
    from mpstudio.engine.templates.registry import template_names

    allowed = set(LATIN_NAMES) | set(dataset_names()) | set(template_names()) | {
        "pp", "ms", "MiB", "GiB", "KB", "MB", "x86_64", "AMD", "EPYC", "Intel", "Xeon"}
    return english_words(text, allowed)


def test_a_real_comparison_prints_no_english_at_all(history):
    _path, out, err = history
    assert _shown_english(out + err) == [], out + err


def test_the_history_commands_print_chinese(history, zh, monkeypatch, tmp_path):
    path, _, _ = history
    monkeypatch.setenv(HISTORY_ENV, str(path))
    code, out, _ = zh("runs", "list")
    assert code == 0 and out.startswith("运行历史记录：2 次运行")
    for word in ("开始时间", "数据集", "模板", "运行", "状态", "样本/秒", "验证准确率",
                 "float32 基线", "已完成"):
        assert word in out
    assert _shown_english(out) == []
    code, out, _ = zh("runs", "list", "--limit", "1")
    assert out.startswith("运行历史记录：2 次运行中的 1 次")
    code, out, _ = zh("runs", "show", "1")
    assert code == 0 and out.startswith("#1 float32 基线（synthetic / mlp）")
    for word in ("状态", "开始时间", "模型", "个参数，输出 float32", "配置", "TensorFlow", "摘要",
                 "1 轮，", "验证损失", "耗时"):
        assert word in out
    code, out, _ = zh("runs", "compare", "1", "2")
    assert code == 0 and out.startswith("float32 基线 对比 mixed_float16")
    code, out, err = zh("runs", "delete", "1")
    assert code == 0 and out == "将删除 #1 float32 基线（synthetic / mlp）\n"
    assert err == "加上 --yes 即可删除\n"
    code, _, err = zh("runs", "show", "99")
    assert code == 2 and err.startswith("mpstudio runs show：错误：")
    report = tmp_path / "report.html"
    code, out, _ = zh("runs", "report", "1", "2", "-o", str(report))
    assert code == 0 and out == f"已写入 {report} 和 {report.with_suffix('.csv')}\n"


def test_json_is_the_same_in_both_languages(history, zh, monkeypatch, tmp_path):
    path, _, _ = history
    monkeypatch.setenv(HISTORY_ENV, str(path))
    for args in (["runs", "list"], ["runs", "show", "2"], ["runs", "compare", "1", "2"],
                 ["data", "list"], ["runs", "show", "99"]):
        english = zh(*args, "--json", lang="en")
        chinese = zh(*args, "--json")
        assert chinese[:2] == english[:2], args
        json.loads(chinese[1])
    code, out, _ = zh("runs", "show", "99", "--json")
    assert code == 2 and json.loads(out)["error"].startswith("no run #99")
    # a report written with --json is still for people: in their language
    report = tmp_path / "r.html"
    code, out, _ = zh("runs", "report", "1", "2", "-o", str(report), "--json")
    assert code == 0 and json.loads(out)["html"] == str(report)
    assert 'lang="zh-CN"' in report.read_text(encoding="utf-8")
    assert i18n.language() == "zh_CN"  # and the language is back after the command


def test_a_run_with_json_prints_english_json(zh, monkeypatch, tmp_path):
    monkeypatch.setenv(HISTORY_ENV, str(tmp_path / "h.sqlite3"))
    code, out, _ = zh("train", *TINY_RUN, "--precision", "float32", "--json")
    assert code == 0
    assert all(cells(c) == 1 for c in out), "Chinese in --json output"
    assert json.loads(out)["summary"]["status"] == "finished"


def test_data_list_in_chinese(zh):
    code, out, _ = zh("data", "list")
    assert code == 0 and out.startswith("数据集")
    for word in ("名称", "现在可离线", "位置", "内容", "使用自己的数据：--dataset 路径"):
        assert word in out


def test_a_terminal_shows_the_live_bar_in_chinese(tiny_spec, monkeypatch):
    import io

    from rich.console import Console

    from mpstudio.cli.console import ConsoleReporter
    from mpstudio.engine.hardware import detect_cpu
    from mpstudio.engine.hardware.report import CpuInfo
    from mpstudio.engine.trainer.runner import run

    # a CPU without float16's own instructions (injected): its warning is a Chinese line
    monkeypatch.setattr(detect_cpu, "detect_cpu", lambda: CpuInfo(
        "an x86-64 CPU without AVX-512", "x86_64", 2, 2, None, frozenset({"avx2"})))
    out = io.StringIO()
    reporter = ConsoleReporter(Console(file=out, force_terminal=True, width=120,
                                       color_system=None))
    i18n.set_language("zh_CN")
    try:
        run(tiny_spec.replace(precision="mixed_float16"), reporter)
    finally:
        i18n.set_language("en")
    text = out.getvalue()
    assert "mixed_float16 · mlp，数据集 digits" in text
    assert "第 1/1 轮" in text and "损失 " in text and "缩放因子 32768" in text  # the bar
    assert "已用" in text and "剩余" in text and "样本/秒" in text
    assert "警告：" in text and "mixed_float16：已完成" in text
