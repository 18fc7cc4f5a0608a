"""Issue 35: any "zh*" locale chose Simplified Chinese, also where the terminal cannot
write it. Under LANG=zh_TW.Big5 (PYTHONIOENCODING=big5 standing in for its terminal)
`--help` died with a UnicodeEncodeError traceback, `runs list` exited 1 with
"unexpected UnicodeEncodeError", and a data error came out half \\uXXXX escapes. The
real command, in a process of its own, now speaks English there (and where the
terminal is ASCII); a terminal that can write Chinese (GBK) still gets Chinese."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.paths import ROOT


def _mpstudio(*args: str, encoding: str, history: Path) -> tuple[int, str, str]:
    """``mpstudio ARGS`` under LANG=zh_TW.Big5 with a terminal of ``encoding``: exit
    code, stdout and stderr as that terminal reads them."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MPSTUDIO_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env.update(LANG="zh_TW.Big5", PYTHONIOENCODING=encoding, MPSTUDIO_HISTORY=str(history))
    done = subprocess.run([sys.executable, "-m", "mpstudio", *args], cwd=ROOT, env=env,
                          capture_output=True, timeout=120)
    return done.returncode, done.stdout.decode(encoding), done.stderr.decode(encoding)


@pytest.mark.parametrize("encoding", ["big5", "ascii"])
def test_a_terminal_that_cannot_write_chinese_gets_english_never_a_traceback(tmp_path,
                                                                            encoding):
    history = tmp_path / "history.sqlite3"
    code, out, err = _mpstudio("--help", encoding=encoding, history=history)
    assert (code, err) == (0, "")
    assert out.startswith("usage: mpstudio") and "options:" in out
    code, out, err = _mpstudio("runs", "list", encoding=encoding, history=history)
    assert code == 0 and "unexpected" not in err and "Traceback" not in err
    assert "started" in out  # the table's English heading
    missing = tmp_path / "missing.csv"
    code, out, err = _mpstudio("train", "--dataset", str(missing), encoding=encoding,
                               history=history)
    assert code == 2
    assert err == f"mpstudio train: error: dataset path '{missing}' does not exist\n"


def test_chinese_asked_for_on_such_a_terminal_is_english_and_says_why(tmp_path):
    code, _out, err = _mpstudio("--lang", "zh_CN", "train", "--dataset",
                                str(tmp_path / "missing.csv"), encoding="big5",
                                history=tmp_path / "history.sqlite3")
    assert code == 2
    note, error = err.splitlines()
    assert note == ("mpstudio: this terminal cannot write Simplified Chinese (its encoding "
                    "is big5), so mpstudio speaks English; for Simplified Chinese, use a "
                    "UTF-8 locale (LANG=zh_CN.UTF-8)")
    assert error.startswith("mpstudio train: error: dataset path")


def test_a_terminal_that_can_write_chinese_still_gets_it(tmp_path):
    code, out, err = _mpstudio("--help", encoding="gbk", history=tmp_path / "h.sqlite3")
    assert (code, err) == (0, "")
    assert out.startswith("用法：mpstudio")
