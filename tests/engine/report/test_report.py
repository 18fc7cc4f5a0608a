"""The comparison report: a self-contained, strictly parseable HTML page and a CSV,
written all or nothing. Runs are built by hand (no TensorFlow)."""

from __future__ import annotations

import csv
import math
import os
import re
import xml.etree.ElementTree as ET

import pytest

from mpstudio.engine.charts.chart_specs import REPORT_CHARTS
from mpstudio.engine.comparison.card import build_card
from mpstudio.engine.comparison.card_text import card_rows
from mpstudio.engine.report import html_report
from mpstudio.engine.report.html_report import ReportError, render_html, write_report
from mpstudio.engine.report.metrics_csv import COLUMNS, metrics_rows, write_metrics_csv
from mpstudio.engine.report.svg_chart import ChartSeries, line_chart, nice_range

from support.stored_runs import make_run, pair

XHTML = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"


def parse(page: str) -> ET.Element:
    first, rest = page.split("\n", 1)
    assert first == "<!DOCTYPE html>"
    return ET.fromstring(rest)


def svg_coordinates(root: ET.Element) -> list[str]:
    out = []
    for el in root.iter():
        if el.tag in (f"{SVG}path", f"{SVG}polyline"):
            out.append(el.get("d") or el.get("points") or "")
    return out


def test_html_is_self_contained_xml_with_the_cards_numbers():
    baseline, mixed = pair()
    page = render_html(baseline, mixed)
    root = parse(page)
    assert root.tag == f"{XHTML}html"
    assert root.find(f"{XHTML}head/{XHTML}style") is not None
    low = page.lower()
    for bad in ('src="http', "href=\"http", "<link", "<script", "@import", "url("):
        assert bad not in low
    card = build_card(baseline, mixed)
    text = "".join(root.itertext())
    assert card.verdict.kind == "worth_it"
    assert card.verdict.sentence in text
    speed = next(r for r in card_rows(card) if r.name == "steady examples/s")
    assert speed.change == "1.80x" and speed.change in text
    assert "float32 baseline" in text and "mixed_float16 <fast> & co" in text
    title = root.find(f"{XHTML}head/{XHTML}title").text
    assert title == "mpstudio comparison: mixed_float16 <fast> & co vs float32 baseline"
    svgs = list(root.iter(f"{SVG}svg"))
    assert len(svgs) == len(REPORT_CHARTS)  # one per chart of the table's report charts
    assert all(svg_coordinates(root))  # every line has points
    # the spec row that differs is highlighted
    diff = [tr for tr in root.iter(f"{XHTML}tr") if tr.get("class") == "diff"]
    assert any("precision" in "".join(tr.itertext()) for tr in diff)
    assert not any("batch_size" in "".join(tr.itertext()) for tr in diff)
    assert "loss_scaling.mode" in text  # nested spec keys are flattened


def test_diverged_run_renders_with_a_gap():
    base = make_run(1, "float32 baseline", "baseline", "float32", 1000, 0.95)
    mixed = make_run(2, "mixed_float16", "mixed", "mixed_float16", 1800, 0.2,
                     status="diverged", nan_from=25, failure="loss became NaN at step 25")
    root = parse(render_html([base], [mixed]))
    coords = svg_coordinates(root)
    assert coords and not any(re.search(r"nan|inf", c, re.I) for c in coords)
    for el in root.iter(f"{SVG}circle"):
        assert "nan" not in (el.get("cx") + el.get("cy")).lower()
    # the mixed loss line is broken: its path has a single sub-path ending before step 25
    loss_svg = next(root.iter(f"{SVG}svg"))
    orange = [p.get("d") for p in loss_svg.iter(f"{SVG}path") if p.get("stroke") == "#e07b00"
              and p.get("stroke-dasharray") is None]  # not the per-epoch val curve
    assert len(orange) == 1 and orange[0].count("M") == 1
    text = "".join(root.itertext())
    assert "loss became NaN at step 25" in text
    assert "Not worth it as set up" in text


def test_chart_breaks_lines_and_handles_empty_and_log_axes():
    svg = line_chart("t", [ChartSeries("a", [1, 2, 3, 4, 5], [1, math.nan, 3, math.inf, 5],
                                       "#e07b00")])
    root = ET.fromstring(svg)
    # no segment has two points: all are lone dots between gaps, no path at all
    assert not list(root.iter(f"{SVG}path"))
    assert len(list(root.iter(f"{SVG}circle"))) == 3
    empty = ET.fromstring(line_chart("empty", []))
    assert "no data" in "".join(empty.itertext())
    log = ET.fromstring(line_chart("scale", [ChartSeries("s", [1, 2, 3], [1024, 0, 65536],
                                                         "#000")], log2_y=True))
    labels = "".join(log.itertext())
    assert "1024" in labels and "65536" in labels
    assert nice_range(0.13, 0.91) == pytest.approx((0.0, 1.0, 0.2))
    escaped = line_chart('a "<b>" & c', [ChartSeries("x<y", [1, 2], [1, 2], '"red"')])
    ET.fromstring(escaped)  # well-formed whatever the text


def test_multi_trial_sides_show_median_and_range():
    baseline = [make_run(1, "float32 baseline", "baseline", "float32", 1000, 0.95,
                         trial=1, trials=2),
                make_run(3, "float32 baseline", "baseline", "float32", 1100, 0.96,
                         trial=2, trials=2)]
    mixed = [make_run(2, "mixed_float16", "mixed", "mixed_float16", 1800, 0.95,
                      trial=1, trials=2),
             make_run(4, "mixed_float16", "mixed", "mixed_float16", 2200, 0.955,
                      trial=2, trials=2)]
    root = parse(render_html(baseline, mixed))
    rows = {}
    for tr in root.iter(f"{XHTML}tr"):
        th = tr.find(f"{XHTML}th")
        cells = [td.text or "" for td in tr.findall(f"{XHTML}td")]
        if th is not None and th.text and len(cells) == 3:
            rows[th.text] = cells
    # medians 1,050 and 2,000; speedups 1.80 and 2.00 -> median 1.90
    assert rows["steady examples/s"] == ["1,050 (1,000-1,100)", "2,000 (1,800-2,200)",
                                         "1.90x (1.80-2.00)"]
    heads = "".join(root.find(f".//{XHTML}table/{XHTML}thead").itertext())
    assert "#1, #3" in heads and "#2, #4" in heads
    text = "".join(root.itertext())
    assert "median" in text


def test_csv_has_a_row_per_metric_with_its_values(tmp_path):
    base = make_run(1, "float32 baseline", "baseline", "float32", 1000, 0.95, steps=20)
    mixed = make_run(2, "mixed_float16", "mixed", "mixed_float16", 1800, 0.9, steps=20,
                     nan_from=19)
    path = write_metrics_csv([base, mixed], tmp_path / "m.csv")
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(COLUMNS)
    assert len(rows) == 2 * (20 + 2) == len(metrics_rows([base, mixed]))
    steps = [r for r in rows if r["run_id"] == "2" and r["kind"] == "step"]
    epochs = [r for r in rows if r["run_id"] == "2" and r["kind"] == "epoch"]
    assert len(steps) == 20 and len(epochs) == 2
    first, last = steps[0], steps[-1]
    assert first["warmup"] == "true" and first["examples_per_sec"] == ""
    assert float(first["loss"]) == mixed.steps[0].loss
    assert float(first["loss_scale"]) == 32768.0 and first["val_loss"] == ""
    assert last["loss"] == "nan" and float(steps[5]["examples_per_sec"]) == pytest.approx(
        mixed.steps[5].examples_per_sec)
    assert epochs[0]["step"] == "10" and float(epochs[0]["val_accuracy"]) == pytest.approx(
        mixed.epochs[0].val_accuracy)
    assert epochs[0]["step_time"] == "" and epochs[0]["epoch_time"] == "3.0"
    assert epochs[0]["role"] == "mixed" and epochs[0]["precision"] == "mixed_float16"
    base_rows = [r for r in rows if r["run_id"] == "1"]
    assert base_rows[0]["loss_scale"] == ""
    # an epoch's row follows the step sample it closes
    ids = [r["kind"] + r["step"] for r in base_rows]
    assert ids.index("epoch10") == ids.index("step10") + 1


def test_write_report_writes_both_files(tmp_path):
    baseline, mixed = pair()
    files = write_report(baseline, mixed, tmp_path / "cmp.html")
    assert files.html == tmp_path / "cmp.html" and files.csv == tmp_path / "cmp.csv"
    parse(files.html.read_text(encoding="utf-8"))
    assert files.csv.read_text(encoding="utf-8").startswith(",".join(COLUMNS))
    other = write_report(baseline, mixed, tmp_path / "a.html", tmp_path / "sub.csv")
    assert other.csv == tmp_path / "sub.csv" and other.csv.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.html", "cmp.csv", "cmp.html",
                                                         "sub.csv"]


def test_read_only_folder_raises_report_error_and_leaves_nothing(tmp_path, monkeypatch):
    from mpstudio.engine.report import files

    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "r.html").write_text("good old report", encoding="utf-8")
    folder.chmod(0o555)
    if os.name != "posix" or os.geteuid() == 0:  # root writes anyway: refuse by hand
        def refuse(*args, **kwargs):
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(files.tempfile, "mkstemp", refuse)
    try:
        with pytest.raises(ReportError) as err:
            write_report(*pair(), folder / "r.html")
        assert str(folder / "r.html") in str(err.value)
        assert "not writable" in str(err.value)
        assert [p.name for p in folder.iterdir()] == ["r.html"]
        assert (folder / "r.html").read_text(encoding="utf-8") == "good old report"
    finally:
        folder.chmod(0o755)
    monkeypatch.undo()
    with pytest.raises(ReportError, match="does not exist"):
        write_report(*pair(), tmp_path / "missing" / "r.html")


def test_failed_render_keeps_the_existing_report(tmp_path, monkeypatch):
    html, csv_path = tmp_path / "r.html", tmp_path / "r.csv"
    write_report(*pair(), html)
    before = html.read_text(encoding="utf-8"), csv_path.read_text(encoding="utf-8")

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(html_report, "render_html", broken)
    with pytest.raises(RuntimeError):
        write_report(*pair(), html)
    assert (html.read_text(encoding="utf-8"), csv_path.read_text(encoding="utf-8")) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.html"]


def test_failed_write_cleans_its_temp_file(tmp_path, monkeypatch):
    from mpstudio.engine.report import files

    target = tmp_path / "r.html"
    target.write_text("good old report", encoding="utf-8")

    def no_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", no_replace)
    with pytest.raises(ReportError, match="disk is full"):
        files.atomic_write_text(target, "new")
    assert target.read_text(encoding="utf-8") == "good old report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_report_without_loss_scaling_says_so():
    base = make_run(1, "float32 baseline", "baseline", "float32", 1000, 0.95)
    other = make_run(2, "mixed_bfloat16", "mixed", "mixed_bfloat16", 1000, 0.95)
    root = parse(render_html([base], [other]))
    assert "no loss scaling" in "".join(root.itertext())


def test_one_machine_is_one_machine_whatever_the_advisor_said():
    """The stored hardware carries the advisor's word on each run's own precision: two
    runs minutes apart on one machine must not read as different hardware."""
    baseline, mixed = pair()
    baseline[0].hardware.update(advisor_verdict="reference", advisor_reason="float32 is exact")
    mixed[0].hardware.update(advisor_verdict="slower", advisor_reason="no Tensor Cores")
    text = "".join(parse(render_html(baseline, mixed)).itertext())
    assert "different hardware" not in text and "no Tensor Cores" not in text
    mixed[0].hardware["tensorflow"] = "2.21.0"
    text = "".join(parse(render_html(baseline, mixed)).itertext())
    assert "different hardware or software (tensorflow 2.20.0 vs 2.21.0)" in text


def test_runs_of_other_models_get_no_red_verdict():
    base = make_run(1, "float32", "single", "float32", 1000, 0.95,
                    spec={"dataset": "digits", "template": "cnn", "precision": "float32"})
    mixed = make_run(2, "mixed_float16", "single", "mixed_float16", 90, 0.31,
                     spec={"dataset": "digits", "template": "mlp",
                           "precision": "mixed_float16"})
    root = parse(render_html([base], [mixed]))
    verdict = next(p for p in root.iter(f"{XHTML}p") if "verdict" in (p.get("class") or ""))
    assert verdict.get("class") == "verdict verdict-differs"
    assert "template cnn vs mlp" in "".join(verdict.itertext())
    assert "lost" not in "".join(verdict.itertext())


def test_the_header_counts_each_sides_trials():
    base = [make_run(i, "float32 baseline", "baseline", "float32", 1000, 0.95, trial=i,
                     trials=3) for i in (1, 3, 5)]
    mixed = [make_run(2, "mixed_float16", "mixed", "mixed_float16", 1800, 0.95, trials=3)]
    text = "".join(parse(render_html(base, mixed)).itertext())
    assert "3 float32 and 1 mixed trials" in text and "3 trials per side" not in text


def test_the_saved_model_column_shows_the_kept_model(tmp_path):
    history = tmp_path / "history.sqlite3"
    baseline, mixed = pair()
    kept = tmp_path / "runs" / "2" / "model.keras"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"PK")
    table = next(t for t in parse(render_html(baseline, mixed, history=history)).iter(
        f"{XHTML}table") if t.get("class") == "runs")
    rows = {"".join(tr[0].itertext()): "".join(tr[-1].itertext())
            for tr in table.iter(f"{XHTML}tr")}
    assert str(kept) in rows["#2"]
    assert rows["#1"] == "/models/run1.keras"  # its export only: it kept no model here
