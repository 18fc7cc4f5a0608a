"""``mpstudio runs``: the history from the command line, on a history a real
``mpstudio compare`` wrote."""

from __future__ import annotations

import json
import sqlite3
import xml.etree.ElementTree as ET

import pytest

from mpstudio.cli import main
from mpstudio.engine.history.locations import HISTORY_ENV
from mpstudio.engine.history.store import RunStore


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """Two trials a side of a tiny comparison, then a single float32 run."""
    path = tmp_path_factory.mktemp("runs") / "history.sqlite3"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(HISTORY_ENV, str(path))
        assert main(["compare", "--steps", "30", "--batch-size", "32", "--repeats", "2",
                     "--json"]) == 0
        assert main(["train", "--steps", "20", "--batch-size", "32", "--precision",
                     "float32", "--json"]) == 0
    return path


@pytest.fixture
def runs(history, monkeypatch, capsys):
    monkeypatch.setenv(HISTORY_ENV, str(history))
    capsys.readouterr()

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["runs", *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_list_json_and_table(runs):
    code, out, _ = runs("list", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["id"] for r in rows] == [5, 4, 3, 2, 1]
    assert [r["role"] for r in rows] == ["single", "mixed", "baseline", "mixed", "baseline"]
    assert all(r["status"] == "finished" and r["examples_per_sec"] > 0 for r in rows)
    code, out, _ = runs("list", "--precision", "float32")
    assert code == 0 and "3 of 5 runs" in out and "float32 baseline · trial 2/2" in out
    assert "mixed_float16" not in out


def test_show(runs):
    code, out, _ = runs("show", "2", "--json")
    run = json.loads(out)
    assert code == 0 and run["label"] == "mixed_float16 · trial 1/2"
    assert run["spec"]["precision"] == "mixed_float16" and len(run["steps"]) >= 3
    assert run["summary"]["steps_done"] == 30
    code, out, _ = runs("show", "2")
    assert code == 0 and "advisor_reason" in out and "steady examples/s" in out


def test_compare_uses_every_trial_and_puts_float32_first(runs):
    code, out, _ = runs("compare", "4", "1", "--json")  # mixed first on purpose
    card = json.loads(out)
    assert code == 0
    assert card["baseline"]["run_ids"] == [1, 3] and card["mixed"]["run_ids"] == [2, 4]
    assert card["speedup"]["n"] == 2
    # float16 trained on this CPU with TensorFlow's remapping pass off: said beside the
    # figures (a plain Keras script would get the fused kernels), not as a difference
    assert card["graph_rewrites"] == "remapping off" and not card["differences"]
    code, out, _ = runs("compare", "5", "2")  # a single run against one trial of a pair
    assert code == 0 and out.startswith("float32 vs mixed_float16")
    assert "remapping pass off" in out
    assert "set_experimental_options({'remapping':False})" in "".join(out.split())
    card = json.loads(runs("compare", "5", "2", "--json")[1])
    assert card["baseline"]["run_ids"] == [5] and card["mixed"]["run_ids"] == [2, 4]


def test_report_writes_html_and_csv(runs, tmp_path):
    target = tmp_path / "report.html"
    code, out, _ = runs("report", "1", "2", "-o", str(target))
    assert code == 0 and "report.html" in out and "report.csv" in out
    text = target.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert "Measured with TensorFlow&#x27;s remapping pass off for float16" in text or \
        "Measured with TensorFlow's remapping pass off for float16" in text
    ET.fromstring(text.split("\n", 1)[1])  # well-formed
    code, out, _ = runs("compare", "1", "2", "--json")
    speed = json.loads(out)["speedup"]["median"]
    assert f"{speed:.2f}x" in text
    lines = (tmp_path / "report.csv").read_text().splitlines()
    assert lines[0].startswith("run_id,") and len(lines) > 10


def test_unknown_id_and_a_damaged_history(runs, monkeypatch, tmp_path):
    code, _, err = runs("show", "99")
    assert code == 2 and "no run #99" in err and "mpstudio runs list" in err
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"not a database" * 100)
    monkeypatch.setenv(HISTORY_ENV, str(bad))
    code, _, err = runs("list")
    assert code == 1 and "damaged" in err and str(bad) in err


def test_delete_asks_for_yes(history, tmp_path, monkeypatch, capsys):
    copy = _copy(history, tmp_path / "copy.sqlite3")
    monkeypatch.setenv(HISTORY_ENV, str(copy))
    assert main(["runs", "delete", "5"]) == 0
    assert "would delete #5" in capsys.readouterr().out
    assert main(["runs", "delete", "5", "--yes"]) == 0
    with RunStore(copy) as store:
        assert [r.id for r in store.runs()] == [4, 3, 2, 1]


def test_the_run_ids_survive_an_80_column_terminal(history):
    """`runs list` in an 80-column terminal squeezed the # column until the ids were
    gone; they are what a user types next."""
    import io

    from rich.console import Console

    from mpstudio.cli.history_tables import runs_table

    with RunStore(history) as store:
        rows = store.runs()
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(runs_table(rows, len(rows), 80))
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    shown = {line.split("│")[1].strip() for line in lines
             if line.startswith("│") and line.split("│")[1].strip()}
    assert {str(r.id) for r in rows} <= shown
    text = out.getvalue()
    assert "float32 baseline · trial 2/2" in text and "digits · mlp" in text


def test_lang_gives_the_verdict_in_chinese_and_the_json_stays_the_same(history, monkeypatch,
                                                                        capsys):
    """``--lang zh_CN``: the card and the verdict of a comparison recorded in English read
    in Chinese; the --json keys and values a script reads do not change with the language."""
    from mpstudio.engine import i18n

    monkeypatch.setenv(HISTORY_ENV, str(history))
    monkeypatch.setenv(i18n.ENV, "en")  # restored after --lang set it for child processes
    capsys.readouterr()
    english = json.loads((main(["runs", "compare", "1", "2", "--json"]),
                          capsys.readouterr().out)[1])
    try:
        assert main(["--lang", "zh_CN", "runs", "compare", "1", "2"]) == 0
        out = capsys.readouterr().out
        assert "稳态吞吐量（样本/秒）" in out and "最终验证准确率" in out
        assert "steady examples/s" not in out
        assert main(["--lang", "zh_CN", "runs", "compare", "1", "2", "--json"]) == 0
        chinese = json.loads(capsys.readouterr().out)
    finally:
        i18n.set_language("en")
    assert chinese.keys() == english.keys()
    assert chinese["speedup"] == english["speedup"] and chinese["baseline"] == english["baseline"]


def _copy(history, path):
    """A copy of the module's history that a test may change."""
    with sqlite3.connect(history) as src, sqlite3.connect(path) as dst:
        src.backup(dst)
    return path


def test_one_damaged_row_is_named_and_every_other_run_stays_readable(history, tmp_path,
                                                                     monkeypatch, runs):
    """Rows another version, a disk error or a hand edit left wrong (crafted with
    sqlite3 on a real history): each is named in one line where it is read, the other
    runs list, show and compare as before, and the damaged run can be deleted."""
    copy = _copy(history, tmp_path / "damaged.sqlite3")
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE runs SET spec = 'not json {' WHERE id = 3")
        conn.execute("UPDATE runs SET hardware = 'null' WHERE id = 4")
        conn.execute("UPDATE runs SET created = 'yesterday' WHERE id = 5")
    monkeypatch.setenv(HISTORY_ENV, str(copy))  # after the runs fixture's: this copy
    run = runs
    code, out, err = run("list", "--json")
    assert code == 0 and [r["id"] for r in json.loads(out)] == [5, 4, 3, 2, 1]
    assert err.strip() == "run #5: its stored start time could not be read (shown as ?)"
    code, out, _ = run("list")
    assert code == 0 and all(f" {i} " in out for i in range(1, 6)), out
    for run_id, says in ((3, "run #3: its stored spec is damaged (not JSON: "),
                         (4, "run #4: its stored hardware is damaged (JSON null where a "
                             "dict belongs)"),
                         (5, "run #5: its stored start time is damaged ('yesterday')")):
        code, _, err = run("show", str(run_id))
        assert code == 1 and err.count("\n") == 1 and says in err, err
        assert f"`mpstudio runs delete {run_id} --yes`" in err
    code, _, err = run("compare", "1", "2")  # a side of two trials, one of them damaged
    assert code == 1 and "run #3: its stored spec is damaged" in err, err
    code, out, _ = run("show", "2", "--json")
    assert code == 0 and json.loads(out)["id"] == 2  # the others read as before
    code, out, _ = run("delete", "5", "4", "3")
    assert code == 0 and "would delete #5" in out and "would delete #3" in out
    code, _, _ = run("delete", "5", "4", "3", "--yes")
    assert code == 0
    with RunStore(copy) as store:
        assert [r.id for r in store.runs()] == [2, 1]
