"""A benchmark bundle: one zip that holds what it takes to re-run a comparison (or a
run) elsewhere and set the new figures beside these: the spec and its seed, each run's
initial-weights hash, the software and hardware it ran on, every stored metric, the
card and its verdict, and the one-line command that replays it (``mpstudio replay``).

Written from the run history alone (no TensorFlow): the machine's description is the
hardware check's, passed in by the front end that has one. ``bench_read`` checks a
bundle and reads it back; the zip is written all at once (report.files).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import io
import json
import platform
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpstudio import __version__
from mpstudio.engine import i18n
from mpstudio.engine.comparison.card import scaled_batches
from mpstudio.engine.float8 import FLOAT8
from mpstudio.engine.history.records import StoredRun
from mpstudio.engine.history.store import HistoryError, RunStore
from mpstudio.engine.i18n import _
from mpstudio.engine.json_values import json_ready
from mpstudio.engine.report.files import atomic_write_bytes
from mpstudio.engine.report.metrics_csv import metrics_csv_text
from mpstudio.engine.said import english_tree
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.compare_options import CompareOptions

FORMAT = "mpstudio-benchmark"
FORMAT_VERSION = 1  # a reader refuses a newer one (it says to upgrade)
MANIFEST = "manifest.json"
SPEC = "spec.toml"
RUNS = "runs.json"
METRICS = "metrics.csv"
CARD = "card.json"
CARD_TEXT = "card.txt"
VERDICT = "verdict.json"
README = "README.txt"
# Software versions the runs recorded (device_info.hardware_summary's keys), by name
SOFTWARE_KEYS = {"python": "Python", "tensorflow": "TensorFlow", "keras": "Keras",
                 "cuda": "CUDA", "cudnn": "cuDNN"}
BUNDLE_LANGUAGES = ("en", "zh_CN")  # the verdict and README in both of the app's languages


@dataclass(frozen=True)
class BenchmarkSource:
    """What a bundle is made of: the runs (a comparison's, in the order they ran), the
    spec a replay trains (a comparison's mixed side), and how the comparison ran."""

    runs: tuple[StoredRun, ...]
    spec: dict[str, Any]
    compare: CompareOptions | None  # None: one run, replayed with ``train``

    @property
    def comparison(self) -> str | None:
        return self.runs[0].row.comparison if self.compare is not None else None


def benchmark_source(store: RunStore, target: str | int) -> BenchmarkSource:
    """The runs behind ``target``: a run id (a run of a comparison brings the whole
    comparison) or a comparison's id. HistoryError when the history has neither."""
    text = str(target).strip().lstrip("#")
    if text.isdigit():
        run = store.run(int(text), metrics=False)
        comparison = run.row.comparison
        if comparison is None:
            return BenchmarkSource((store.run(run.id),), run.spec, None)
    else:
        comparison = text
    rows = store.comparison_runs(comparison)
    if not rows:
        raise HistoryError(_("no run or comparison {target} in the history {path} (`mpstudio "
                             "runs list` shows the ids)").format(target=target,
                                                                path=store.path))
    runs = sorted((store.run(r.id) for r in rows), key=lambda r: r.id)  # as they ran
    return BenchmarkSource(tuple(runs), *comparison_spec(runs))


def comparison_spec(runs: Sequence[StoredRun]) -> tuple[dict[str, Any], CompareOptions]:
    """The spec a comparison was started with (its mixed side's) and its options: the
    trials, whether the baseline ran in strict float32 (TF32 off; a float8 comparison's
    baseline is mixed_bfloat16, which TF32 does not touch), and the baseline's own batch
    when each side ran at its largest (the batch-size finder's comparison). What the
    window's re-run and a bundle's replay start again."""
    mixed = [r for r in runs if r.row.role == "mixed"]
    baseline = [r for r in runs if r.row.role == "baseline"]
    spec = (mixed[0] if mixed else runs[0]).spec
    first = runs[0]
    math_mode = "float32" if first.hardware.get("float32_math") == "float32" \
        and spec.get("precision") != FLOAT8 else "auto"
    batches = scaled_batches(baseline[0], mixed[0]) if baseline and mixed else None
    return spec, CompareOptions(first.row.trials, math_mode,
                                baseline_batch_size=batches[0] if batches else None)


def bundle_file_name(target: str | int) -> str:
    """The bundle's default file name: bench-ID.zip for a run or a comparison id."""
    return f"bench-{str(target).strip().lstrip('#')}.zip"


@contextlib.contextmanager
def in_language(language: str) -> Iterator[None]:
    """The engine's sentences in ``language`` meanwhile (the bundle holds both)."""
    before = i18n.language()
    i18n.set_language(language)
    try:
        yield
    finally:
        i18n.set_language(before)


def software_versions(runs: Sequence[StoredRun]) -> dict[str, str]:
    """The exact versions the first run recorded, and NumPy's (the writer's: runs do
    not record it); a version that is not known is left out."""
    hardware = runs[0].hardware if runs else {}
    versions = {name: str(hardware[key]) for key, name in SOFTWARE_KEYS.items()
                if hardware.get(key)}
    try:
        import numpy

        versions["NumPy"] = numpy.__version__
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    return versions


def _card_parts(runs: Sequence[StoredRun]) -> dict[str, bytes]:
    """card.json and card.txt in English, verdict.json in each bundle language."""
    from mpstudio.engine.comparison.card import card_for_comparison
    from mpstudio.engine.comparison.card_text import card_rows

    verdict: dict[str, Any] = {}
    parts: dict[str, bytes] = {}
    for language in BUNDLE_LANGUAGES:
        with in_language(language):
            card = card_for_comparison(runs)
            if card is None:
                return {}
            verdict[language] = card.verdict.sentence
            if language == "en":
                verdict["kind"] = card.verdict.kind
                parts[CARD] = _json(card.to_dict())
                rows: list[tuple[str, ...]] = [
                    ("", card.baseline.label, card.mixed.label, "change")]
                rows += [tuple(" ".join(cell.split()) for cell in  # one line a row
                               (r.name, r.baseline, r.mixed, r.change))
                         for r in card_rows(card)]
                widths = [max(len(row[i]) for row in rows) for i in range(4)]
                lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True))
                         .rstrip() for row in rows]
                parts[CARD_TEXT] = ("\n".join([*lines, "", card.verdict.sentence]) + "\n"
                                    ).encode("utf-8")
    parts[VERDICT] = _json({"kind": verdict.pop("kind"), "sentence": verdict})
    return parts


def _readme(source: BenchmarkSource, name: str) -> bytes:
    command = f"mpstudio replay {name}"
    texts = []
    for language in BUNDLE_LANGUAGES:
        with in_language(language):
            what = (_("A benchmark bundle of an mpstudio comparison: {runs} runs of {dataset} / "
                      "{template}, {precision} against its baseline.") if source.compare
                    else _("A benchmark bundle of one mpstudio run: {dataset} / {template} in "
                           "{precision}.")).format(
                runs=len(source.runs), dataset=source.spec.get("dataset", ""),
                template=source.spec.get("template", ""),
                precision=source.spec.get("precision", ""))
            texts.append("\n".join([
                what,
                _("Replay it (same spec, same seed, same initial weights) and see the new "
                  "figures beside these:"),
                f"    {command}",
                _("manifest.json: versions, hardware, seed and initial-weights hashes; "
                  "spec.toml: the run spec (mpstudio train --config spec.toml); metrics.csv: "
                  "every stored metric; runs.json, card.json, card.txt, verdict.json: the "
                  "runs, the comparison card and its verdict."),
            ]))
    return ("\n\n".join(texts) + "\n").encode("utf-8")


def _compare_manifest(options: CompareOptions) -> dict[str, Any]:
    out: dict[str, Any] = {"repeats": options.repeats, "baseline": options.baseline}
    if options.baseline_batch_size is not None:  # the finder's comparison
        out["baseline_batch_size"] = options.baseline_batch_size
    return out


def _json(data: Any) -> bytes:
    return (json.dumps(json_ready(english_tree(data)), indent=2, ensure_ascii=False,
                       allow_nan=False) + "\n").encode("utf-8")


def bundle_files(source: BenchmarkSource, name: str = "bench.zip",
                 machine: dict[str, Any] | None = None,
                 now: dt.datetime | None = None) -> dict[str, bytes]:
    """Every file of the bundle by name, the manifest (with each other file's SHA-256)
    first. ``machine``: the hardware check's report (HardwareReport.to_dict()), or None
    where none was run (the runs' recorded device stands alone then)."""
    runs = source.runs
    files: dict[str, bytes] = {
        SPEC: RunSpec.from_dict(source.spec).to_toml().encode("utf-8"),
        RUNS: _json([run.to_dict(metrics=False) for run in runs]),
        METRICS: metrics_csv_text(runs).encode("utf-8"),
    }
    if source.compare is not None:
        files.update(_card_parts(runs))
    files[README] = _readme(source, name)
    created = (now or dt.datetime.now(dt.timezone.utc)).isoformat(timespec="seconds")
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created": created,
        "mpstudio": __version__,
        "kind": "comparison" if source.compare is not None else "run",
        "comparison": source.comparison,
        "compare": _compare_manifest(source.compare) if source.compare is not None else None,
        "seed": source.spec.get("seed"),
        "software": software_versions(runs),
        "platform": platform.platform(),
        "device": runs[0].hardware.get("device", ""),
        "advisor_device": runs[0].hardware.get("advisor_device", ""),
        # the hardware check of the machine that wrote the bundle (where it ran, as a rule)
        "machine": machine,
        "runs": [{"id": r.id, "label": r.label, "role": r.row.role, "trial": r.row.trial,
                  "precision": r.row.precision, "status": r.status,
                  "initial_weights_hash": r.initial_weights_hash} for r in runs],
        "verdict": json.loads(files[VERDICT]) if VERDICT in files else None,
        "replay": f"mpstudio replay {name}",
        "files": {file: hashlib.sha256(data).hexdigest() for file, data in files.items()},
    }
    return {MANIFEST: _json(manifest), **files}


def write_bundle(source: BenchmarkSource, path: Path | str,
                 machine: dict[str, Any] | None = None) -> Path:
    """The zip, written all at once (ReportError names the file and what to do)."""
    path = Path(path)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file, data in bundle_files(source, path.name, machine).items():
            archive.writestr(file, data)
    return atomic_write_bytes(path, buffer.getvalue())
