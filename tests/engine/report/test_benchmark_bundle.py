"""A benchmark bundle (``mpstudio runs bundle``, File > Export benchmark bundle…) of a
real tiny comparison, replayed by ``mpstudio replay``; damaged, foreign and newer
bundles refused with one line; the initial-weights hash recorded with each run."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import platform
import re
import sqlite3
import zipfile

import keras
import numpy
import pytest
import tensorflow as tf

from mpstudio import __version__
from mpstudio.engine.history.locations import HISTORY_ENV
from mpstudio.engine.history.schema import _SCHEMA_1, SCHEMA_VERSION
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.report.bench_bundle import FORMAT, FORMAT_VERSION
from mpstudio.engine.report.metrics_csv import metrics_csv_text
from mpstudio.engine.spec import RunSpec

from support.bundled_history import bundled_history

FILES = {"manifest.json", "spec.toml", "runs.json", "metrics.csv", "card.json", "card.txt",
         "verdict.json", "README.txt"}


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """One tiny comparison (runs #1 float32, #2 mixed_float16) and its bundle."""
    return bundled_history(tmp_path_factory.mktemp("bench"),
                           ["compare", "--steps", "12", "--batch-size", "32"], 2)


@pytest.fixture
def cli(history, monkeypatch, run_cli):
    monkeypatch.setenv(HISTORY_ENV, str(history))
    return run_cli


def _bundle(history) -> zipfile.ZipFile:
    return zipfile.ZipFile(history.parent / "bench.zip")


def test_bundle_holds_every_file_and_the_manifest_says_what_ran(history):
    with RunStore(history) as store:
        runs = [store.run(1), store.run(2)]
    with _bundle(history) as archive:
        assert set(archive.namelist()) == FILES
        files = {name: archive.read(name) for name in FILES}
    manifest = json.loads(files["manifest.json"])
    assert manifest["format"] == FORMAT and manifest["format_version"] == FORMAT_VERSION
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", manifest["created"])
    assert manifest["mpstudio"] == __version__ and manifest["kind"] == "comparison"
    assert manifest["software"] == {"Python": platform.python_version(),
                                    "TensorFlow": tf.__version__, "Keras": keras.__version__,
                                    "NumPy": numpy.__version__}  # CUDA/cuDNN: a GPU run's
    assert manifest["machine"]["cpu"]["logical_cores"] >= 1  # the hardware check's report
    assert "gpus" in manifest["machine"] and "build" in manifest["machine"]
    assert manifest["seed"] == 0 and manifest["compare"] == {"repeats": 1, "baseline": "float32"}
    hashes = [r["initial_weights_hash"] for r in manifest["runs"]]
    assert [r["id"] for r in manifest["runs"]] == [1, 2]
    assert hashes == [runs[0].initial_weights_hash] * 2  # both sides start alike
    assert re.fullmatch(r"[0-9a-f]{64}", hashes[0])
    assert manifest["replay"] == "mpstudio replay bench.zip"
    assert manifest["files"] == {name: hashlib.sha256(data).hexdigest()
                                 for name, data in files.items() if name != "manifest.json"}
    # The spec the replay trains: the mixed side's, as `mpstudio train --config` reads it.
    spec = RunSpec.from_toml(files["spec.toml"].decode())
    assert spec.to_dict() == runs[1].spec and spec.precision == "mixed_float16"
    # Every stored metric, as `runs report` writes them.
    assert files["metrics.csv"].decode() == metrics_csv_text(runs)
    rows = list(csv.DictReader(io.StringIO(files["metrics.csv"].decode())))
    assert {r["run_id"] for r in rows} == {"1", "2"}
    assert len(rows) == sum(len(r.steps) + len(r.epochs) for r in runs) > 4
    verdict = json.loads(files["verdict.json"])
    assert verdict["kind"] == manifest["verdict"]["kind"]
    assert verdict["sentence"]["en"] and verdict["sentence"]["zh_CN"]
    assert re.search("[\u4e00-\u9fff]", verdict["sentence"]["zh_CN"])
    card = json.loads(files["card.json"])
    assert card["baseline"]["run_ids"] == [1] and card["mixed"]["run_ids"] == [2]
    assert card["verdict"]["sentence"] == verdict["sentence"]["en"]
    assert "steady examples/s" in files["card.txt"].decode()
    assert "    mpstudio replay bench.zip\n" in files["README.txt"].decode()
    assert json.loads(files["runs.json"])[1]["initial_weights_hash"] == hashes[1]


def test_replay_prints_the_new_figures_beside_the_old(history, cli):
    code, out, err = cli("replay", str(history.parent / "bench.zip"))
    assert code == 0, err
    assert re.search(r"metric\s+.\s+bundle\s+.\s+now\s+.\s+change", out)
    with _bundle(history) as archive:
        old = json.loads(archive.read("card.json"))
    old_speed = f"{old['mixed']['examples_per_sec']['median']:,.0f}"
    row = next(line for line in out.splitlines() if "mixed examples/s" in line)
    cells = [c.strip() for c in re.split(r"[│|]", row) if c.strip()]
    assert cells[1] == old_speed and re.fullmatch(r"[\d,]+", cells[2])  # bundle, now
    assert re.fullmatch(r"[+-]\d+\.\d%", cells[3])
    # one trial a side: its change comes with the word that its spread is unknown
    assert "one trial a side, in the bundle and now" in " ".join(out.split())
    assert "initial weights: the same as the bundle's" in out
    assert "verdict in the bundle:" in out and "verdict now:" in out
    ids = [int(i) for i in re.findall(r"#(\d+)", err.split("saved in the run history as")[-1])]
    with RunStore(history) as store:  # recorded like any comparison, from the same weights
        new = [store.run(i, metrics=False) for i in ids]
        first = store.run(1, metrics=False)
    assert [r.row.role for r in new] == ["baseline", "mixed"]
    assert {r.initial_weights_hash for r in new} == {first.initial_weights_hash}
    assert new[0].row.comparison == new[1].row.comparison != first.row.comparison


def test_replay_json(history, cli):
    code, out, _ = cli("replay", str(history.parent / "bench.zip"), "--json")
    assert code == 0
    data = json.loads(out)
    figures = {f["key"]: f for f in data["figures"]}
    speed = figures["baseline examples/s"]
    assert speed["old"] > 0 and speed["new"] > 0
    assert speed["change"] == pytest.approx(speed["new"] / speed["old"] - 1)
    assert data["initial_weights"]["status"] == "match"
    assert len(data["runs"]) == 2 and data["machine"]["differs"] is False
    assert data["software"]["differences"] == []
    assert data["trials"] == 1


def _rewrite(source, target, change) -> None:
    """``source``'s members into ``target``, each through ``change(name, data)``."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            data = change(name, old.read(name))
            if data is not None:
                new.writestr(name, data)


def _future(name: str, data: bytes) -> bytes:
    if name != "manifest.json":
        return data
    manifest = json.loads(data)
    manifest["format_version"] = FORMAT_VERSION + 1
    return json.dumps(manifest).encode()


@pytest.mark.parametrize("make, words", [
    (lambda src, dst: dst.write_bytes(b"PK\x03\x04 not really a zip" * 40),
     "is not an mpstudio benchmark bundle: it is not a zip file"),
    (lambda src, dst: _rewrite(src, dst, lambda n, d: None if n == "manifest.json" else d),
     "is not an mpstudio benchmark bundle: it has no manifest.json"),
    (lambda src, dst: _rewrite(src, dst, lambda n, d: d + b"1" if n == "metrics.csv" else d),
     "is damaged: metrics.csv does not match its checksum in manifest.json (it was changed "
     "after the bundle was written); export the bundle again"),
    (lambda src, dst: _rewrite(src, dst, lambda n, d: None if n == "spec.toml" else d),
     "is damaged: spec.toml is missing; export the bundle again"),
    (lambda src, dst: _rewrite(src, dst, _future),
     f"was written by a newer mpstudio ({__version__}, bundle format {FORMAT_VERSION + 1}; "
     f"this one reads up to {FORMAT_VERSION}): upgrade mpstudio to replay it"),
])
def test_a_bad_bundle_is_refused_in_one_line(history, cli, tmp_path, make, words):
    bad = tmp_path / "bad.zip"
    make(history.parent / "bench.zip", bad)
    code, out, err = cli("replay", str(bad))
    assert code == 2 and out == ""
    assert err == f"mpstudio replay: error: {bad} {words}\n"
    code, out, _ = cli("replay", str(bad), "--json")
    assert code == 2 and json.loads(out)["error"] == f"{bad} {words}"


def test_bundle_of_a_missing_run_is_a_usage_error(cli, tmp_path):
    code, _, err = cli("runs", "bundle", "99", "-o", str(tmp_path / "b.zip"))
    assert code == 2 and "no run #99 in the history" in err
    assert not (tmp_path / "b.zip").exists()


def test_an_older_history_gains_the_hash_column(tmp_path):
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(_SCHEMA_1)
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO runs (created, label, status, dataset, template, precision, spec, "
        "hardware, model, dataset_summary, steps_per_epoch, total_steps, role, trial, "
        "trials, owner_host, owner_pid, owner_started) VALUES (0, 'float32', 'finished', "
        "'digits', 'mlp', 'float32', '{}', '{}', '{}', '', 1, 1, 'single', 1, 1, 'h', 1, 0)")
    conn.commit()
    conn.close()
    with RunStore(path) as store:
        assert store.run(1).initial_weights_hash == ""  # recorded before it was kept
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    conn.close()


def test_window_exports_the_bundle_from_history_and_the_file_menu(history, qtbot, tmp_path,
                                                                  monkeypatch):
    from support.gui_helpers import bare_window

    monkeypatch.setenv(HISTORY_ENV, str(history))
    window = bare_window(qtbot, tmp_path / "window.ini")
    actions = window.history_actions
    asked = []
    target = tmp_path / "from-history.zip"
    window.files.ask_save_path = lambda title, filters, name: (
        asked.append((title, filters, name)) or str(target))
    # History: a run's context menu, for its whole comparison.
    menu = actions.run_menu(1)
    item = menu.findChild(type(actions.export_bundle_action), "exportRunBundle")
    item.trigger()
    assert asked == [("Export the benchmark bundle", "Benchmark bundle (*.zip)",
                      "bench-1.zip")]
    with zipfile.ZipFile(target) as archive:
        assert set(archive.namelist()) == FILES
        manifest = json.loads(archive.read("manifest.json"))
    assert [r["id"] for r in manifest["runs"]] == [1, 2]
    assert "exported the benchmark bundle" in window.log.toPlainText()
    menu.close()
    # File > Export benchmark bundle…: right after Export report, with a card shown.
    file_menu = window.window_actions.export_report.associatedObjects()
    file_menu = next(m for m in file_menu if m is not window and hasattr(m, "actions"))
    names = [a.objectName() for a in file_menu.actions()]
    assert names[names.index("exportReport") + 1] == "exportBundle"
    bundle = actions.export_bundle_action
    assert not bundle.isEnabled()
    actions.compare_runs(1, 2)
    assert bundle.isEnabled()
    target = tmp_path / "from-menu"  # the .zip is added
    bundle.trigger()
    assert zipfile.is_zipfile(tmp_path / "from-menu.zip")
    assert asked[-1][2] == "bench-2.zip"
