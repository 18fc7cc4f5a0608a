"""The wire between the window and its engine (service/wire_codec.py, framing.py): every
message and job request, and the results the jobs return, cross whole (tuples stay
tuples, a sentence reads in the receiver's language); a frame that is not a message
(a pickle that would run code, an unknown class, a wrong field, a cut or oversized
frame) ends with one line and builds nothing. Real pipes, no TensorFlow: the engine
process's tests (tests/ui/test_engine_client.py) send the results of real jobs."""

from __future__ import annotations

import dataclasses
import enum
import math
import os
import pickle
import struct
import typing
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest

from mpstudio.engine import i18n
from mpstudio.engine.app_settings import GpuMemorySettings
from mpstudio.engine.batch_search.finder import BatchSearch, BatchTried, FinderOptions
from mpstudio.engine.batch_search.probe import ERROR, FITS, OUT_OF_MEMORY, TryOutcome
from mpstudio.engine.batch_search.search import search_largest
from mpstudio.engine.comparison.card import card_for_comparison
from mpstudio.engine.datasets.registry import inspect_dataset
from mpstudio.engine.datasets.report import DataProgress
from mpstudio.engine.doctor.checks import Check, DoctorReport, not_run
from mpstudio.engine.event_codec import EVENT_TYPES
from mpstudio.engine.events import (
    AidAction,
    GradientUnderflow,
    LayerUnderflow,
    LossScaleChanged,
    NumericsDiagnosis,
    OomRetry,
    RunFailed,
    RunFinished,
    RunWarning,
)
from mpstudio.engine.export.formats import FORMATS, default_path
from mpstudio.engine.export.results import (
    ExportOutcome,
    ExportRequest,
    ExportResult,
    Verification,
)
from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.engine.history.mirror_rows import HistoryRows
from mpstudio.engine.i18n import N_
from mpstudio.engine.memory_estimate import MemoryEstimate
from mpstudio.engine.model_summary import LayerInfo, ModelSummary
from mpstudio.engine.run_session import TrainedRun, TrainingOutcome
from mpstudio.engine.said import Said, clauses, said
from mpstudio.engine.service import job_requests as jr
from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.file_fetch import FetchedFiles, FileChunk, FileEntry, FileListing
from mpstudio.engine.service.folder_listing import FolderEntry, FolderListing
from mpstudio.engine.service.framing import (
    MAX_FRAME_BYTES,
    FrameError,
    FrameWriter,
    read_frame,
)
from mpstudio.engine.service.served_tensorboard import TensorBoardAddress
from mpstudio.engine.service.wire_codec import WireError, decode, encode
from mpstudio.engine.service.wire_types import wire_types
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.compare_options import CompareOptions

from support.hardware_checks import check_of, measured
from support.history_fakes import epoch, started, step, summary
from support.machines import A100, CPU_ONLY_BUILD, machine
from support.stored_runs import make_run

CHANGED = N_("changed")  # zh_CN: 有变化
HEADER = struct.Struct("!Q")


@pytest.fixture(autouse=True)
def english():
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def shape(value: Any) -> Any:
    """``value`` with every class spelled out (a list is not a tuple, a Said not a str)
    and NaN comparable: what a round trip must keep, beyond ``==``."""
    if isinstance(value, Said):
        return ("Said", str(value), shape(value.stored))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value), {f.name: shape(getattr(value, f.name))
                              for f in dataclasses.fields(value)})
    if isinstance(value, (list, tuple, set, frozenset)):
        return (type(value), [shape(v) for v in value])
    if isinstance(value, dict):
        return (dict, {k: shape(v) for k, v in value.items()})
    if isinstance(value, float) and math.isnan(value):
        return (float, "nan")
    return (type(value), value)


def crossed(message: Any) -> Any:
    back = decode(encode(message))
    assert shape(back) == shape(message)
    return back


# ------------------------------------------------------------- real payloads
def spec() -> RunSpec:
    return RunSpec(dataset="digits", template="cnn", precision="mixed_float16", epochs=3,
                   batch_size=64, float32_layers=["dense_out"],
                   dataset_options={"image_size": (32, 32), "color_mode": "rgb"})


def hardware_check() -> Any:
    """An A100 machine as the check reads it, both devices measured."""
    return check_of(machine(A100), [measured("GPU:0", 0.003, 0.001, 0.00105, "TF32"),
                                    measured("CPU", 0.01, 0.02, 0.05, stopped=True)])


def model_summary() -> ModelSummary:
    layers = (LayerInfo("conv2d", "Conv2D", "float16", "float32", 896, "yes"),
              LayerInfo("dense_out", "Dense", "float32", "float32", 650, "no: units 10 → 16",
                        "pad the units to 16"))
    memory = MemoryEstimate("mixed_float16", 64, "LossScaleOptimizer(Adam)", 6184, 12368,
                            6184, 2 ** 20, 4, 2, device_kind="GPU")
    return ModelSummary("cnn", "mixed_float16", 1546, 1546, layers, (memory,),
                        payoff=said(CHANGED), inputs_note="")


def training_outcome() -> TrainingOutcome:
    """A comparison as the engine returns it: its runs, their history records (every
    sampled step and epoch) and the card."""
    base = make_run(1, "float32 baseline", "baseline", "float32", 1000.0, 0.95, steps=60)
    mixed = make_run(2, "mixed_float16", "mixed", "mixed_float16", 1800.0, 0.951, steps=60)
    failed = RunFailed(said(CHANGED), "diverged", 41, summary(status="diverged"))
    runs = [TrainedRun(spec(), base.summary, None, ("data is small",), 1, 1),
            TrainedRun(spec(), mixed.summary, failed, (), 2, None)]
    return TrainingOutcome(runs, "", [base, mixed], card_for_comparison([base, mixed]))


def batch_search() -> BatchSearch:
    def device(batch: int) -> TryOutcome:
        if batch > 900:
            return TryOutcome(batch, OUT_OF_MEMORY, "OOM when allocating", seconds=2.5)
        return TryOutcome(batch, FITS, seconds=1.5, peak_memory_bytes=batch * 2 ** 20,
                          examples_per_sec=1234.5, device="GPU:0")

    results = (search_largest("float32", device, 128),
               search_largest("mixed_float16", lambda b: TryOutcome(b, ERROR, "crashed"), 64))
    return BatchSearch(spec(), results, 16.0)


def export_outcomes(folder: Path) -> list[ExportOutcome]:
    made = []
    for fmt in FORMATS[:3]:
        request = ExportRequest(fmt.id, default_path(folder, "model", fmt))
        check = Verification("LiteRT", 256, "held-out validation examples", 1e-4, 1.0, 0.99,
                             0.97, 0.97)
        made.append(ExportOutcome(request, ExportResult(fmt, request.path, 1000, 4000, check,
                                                        ("fixed batch of 1",)), "", ["note"]))
    made.append(ExportOutcome(ExportRequest("onnx", folder / "model.onnx"), None,
                              "tf2onnx is not installed"))
    return made


def doctor_report() -> DoctorReport:
    checks = (Check("hardware", said(CHANGED), "pass", clauses(said(CHANGED), "GPU:0"),
                    {"devices": ("GPU:0", "CPU"), "seconds": 0.25, "peak": None}),
              not_run("training", "mlp · mixed_float16"))
    return DoctorReport(checks, {"TensorFlow": "2.21.0"},
                        ({"name": "GPU:0", "memory_gib": 40.0},),
                        {"quick": True, "templates": ("mlp",), "device": "GPU"}, 3.5)


def events() -> list[Any]:
    return [
        DataProgress("digits", "reading", 3, 10, "files"),
        started(data_report=inspect_dataset("digits", {}), comparison="c1", role="mixed"),
        step(3), step(4, loss=math.inf, scale=None), epoch(2),
        LossScaleChanged(40, 32768.0, 16384.0, 1),
        RunWarning(said(CHANGED)),
        RunFinished(summary(op_profile={"ops": [{"name": "MatMul", "share": 0.5}]},
                            predicted={"bound": "compute", "speedup": 1.8})),
        RunFailed("out of memory at batch size 8", "out_of_memory", None, None),
        AidAction(50, 5, "reduce_lr", "lowered", 1e-4),
        OomRetry(256, 128, 5e-4, "out of memory at 256: trying 128"),
        GradientUnderflow(20, 2, 32768.0, 0.1, 0.0,
                          (LayerUnderflow("dense", "float16", 1000, 0.1, 0.0),), 0.02),
        NumericsDiagnosis(41, "dense_1", "float16", "forward", "inf in dense_1"),
    ]


def requests(folder: Path) -> list[jr.JobRequest[Any]]:
    return [
        jr.HardwareCheckRequest(True, 0.5, spec()),
        jr.ApplyMemoryRequest(GpuMemorySettings(limit_mb=4096)),
        jr.InspectDatasetRequest("/data/images", {"image_size": (64, 64), "color_mode": "rgb"}),
        jr.ModelPreviewRequest("cnn", (32, 32, 3), 10, "mixed_float16", 1 / 255, 64,
                               ("dense_out",), spec()),
        jr.TrainRequest(spec(), CompareOptions(repeats=3, baseline="tf32", profile=True,
                                               baseline_batch_size=512, size=True)),
        jr.ExportModelRequest(tuple(o.request for o in export_outcomes(folder)), 12, 3,
                              spec(), overwrite=True),
        jr.DoctorRequest(quick=False),
        jr.BatchFindRequest(spec(), FinderOptions(cap_mib=2048.0, max_tries=6)),
        jr.HistoryRowsRequest(12, (9, 11)),
        jr.FetchFilesRequest("/tmp/mpstudio-copy-back-1-x/digits.keras", remove_after=True),
        jr.ListFolderRequest("~/data", (".npz", ".csv")),
        jr.TensorBoardRequest((12, 13)),
        jr.UnreadableRequest("NewerRequest", "unknown tag 'NewerRequest'"),
    ]


def results(folder: Path) -> list[Any]:
    return [hardware_check(), MemoryApplyResult("applied", said(CHANGED)),
            inspect_dataset("digits", {}), model_summary(), training_outcome(),
            export_outcomes(folder), doctor_report(), batch_search(), history_rows(),
            fetched_files(), folder_listing(),
            TensorBoardAddress(6006, {"run12": "/home/me/runs/12/tensorboard"}), None]


def history_rows() -> HistoryRows:
    """A server's history rows as read_rows gives them: columns by name, metrics as
    SQLite holds them (None where a value is missing)."""
    run = {"id": 12, "created": 1796669241.5, "finished": None, "label": "mixed_float16",
           "status": "running", "summary": None, "examples_per_sec": None, "trial": 1}
    return HistoryRows(2, (run,), steps=((12, 1, 1, 2.31, 0.12, 32768.0, 0, None, 0.02, 1),),
                       epochs=((12, 1, 23, 2.1, 0.3, None, None, 1.5, 1.4),), more=True)


def fetched_files() -> FetchedFiles:
    listing = FileListing("digits_savedmodel", True,
                          (FileEntry("saved_model.pb", 5), FileEntry("variables/v.index", 0)))
    return FetchedFiles(listing, ("a" * 64, "b" * 64))


def folder_listing() -> FolderListing:
    entries = (FolderEntry("images", True, 0, 1796669241.5),
               FolderEntry("digits.npz", False, 1_048_576, 1796669200.0))
    return FolderListing("/home/me/data", "/home/me", entries, "/home/me", truncated=False)


# ------------------------------------------------------------------ round trips
def test_every_protocol_message_crosses_whole(tmp_path):
    messages = [
        p.Submit(1, jr.TrainRequest(spec())), p.Cancel(1), p.Shutdown(),
        p.EngineStarting(said(CHANGED)),
        p.EngineReady({"TensorFlow": "2.21.0", "Keras": "3.15.1"},
                      MemoryApplyResult("unchanged", "TensorFlow default"), 4242,
                      "/tmp/engine.log"),
        p.EngineLoadFailed("ImportError: no module named tensorflow"), p.JobStarted(1),
        p.JobEvent(1, step(7)), p.JobProgress(1, 3, 10, "float32: batch 256"),
        p.JobResult(1, hardware_check()), p.JobFailed(1, "cancelled", cancelled=True),
        p.Hello(p.PROTOCOL, "0.1.0", "c1", "window", "e1", 42),
        p.Welcome(p.PROTOCOL, "0.1.0", "e1", "gpu-box", True,
                  (p.RunningJob(3, "TrainRequest", "the run", "c1"),)),
        p.Refused("another window attached to this engine"),
        p.Numbered(43, p.JobEvent(3, step(9)), "c1"), p.Ack(43), p.Detach(),
        p.RunningJob(4, "HistoryRowsRequest", "reading the run history", "c2"),
    ]
    sent = {type(m) for m in messages}
    assert sent == {c for c in vars(p).values() if isinstance(c, type)
                    and dataclasses.is_dataclass(c) and c.__module__ == p.__name__}
    for message in messages:
        crossed(message)


def test_every_job_request_crosses_whole_in_a_submit(tmp_path):
    made = requests(tmp_path)
    assert {type(r) for r in made} == {c for c in vars(jr).values() if isinstance(c, type)
                                       and issubclass(c, jr.JobRequest)} - {jr.JobRequest}
    for job_id, request in enumerate(made):
        back = crossed(p.Submit(job_id, request)).request
        assert back == request and type(back) is type(request)
    export = crossed(made[5])
    assert all(type(r.path) is type(tmp_path) for r in export.formats)  # a Path again


def test_each_result_and_event_crosses_as_the_engine_sent_it(tmp_path):
    """Every request's result type, as a JobResult; every event the engine emits
    (run events, the check's rows, the finder's tries), as a JobEvent."""
    values = results(tmp_path)
    named = {typing.get_args(type(r).__orig_bases__[0])[0] for r in requests(tmp_path)}
    assert {type(v) for v in values} == {
        typing.get_origin(t) or (type(None) if t is None else t) for t in named}
    for value in values:
        crossed(p.JobResult(3, value))
    emitted = [*events(), *doctor_report().checks, fetched_files().listing,
               FileChunk(1, 262144, b"\x00\xff" * 8),
               *[BatchTried(r.precision, i, t) for r in batch_search().results
                 for i, t in enumerate(r.tries, 1)]]
    assert {type(e) for e in events()} == set(EVENT_TYPES.values())
    for event in emitted:
        crossed(p.JobEvent(3, event))


def test_fields_typed_any_keep_tuples_sets_keys_paths_and_enums():
    details = {"shape": (8, 8, 1), "nested": [{"pair": (1, 2.5)}], "ids": frozenset({3, 4}),
               "keys": {1: "an int key", (2, 3): "a tuple key", Verdict.SLOWER: "an enum"},
               "$": "the reserved key", "path": Path("/tmp/x.keras"),
               "verdict": Verdict.RECOMMENDED, "nan": math.nan, "inf": -math.inf,
               "raw": b"\x00\xff", "none": None}
    check = crossed(Check("hardware", "GPU", "warn", "ok", details))
    assert check.details["keys"][(2, 3)] == "a tuple key"
    assert check.details["verdict"] is Verdict.RECOMMENDED
    with pytest.raises(WireError, match=r"^Check.details: expected str, got int"):
        decode(encode(Check("hardware", "GPU", "warn", "ok", {1: "typed str keys"})))


def test_numpy_scalars_cross_as_the_numbers_they_hold():
    back = decode(encode(Check("s", "n", "pass", "r", {
        "peak": np.float32(1.5), "count": np.int64(3), "ok": np.bool_(True)})))
    assert back.details == {"peak": 1.5, "count": 3, "ok": True}
    assert [type(v) for v in back.details.values()] == [float, int, bool]
    with pytest.raises(WireError, match=r"numpy\.ndarray is not in the wire registry"):
        encode(Check("s", "n", "pass", "r", {"weights": np.zeros(3)}))  # arrays never cross


def test_a_sentence_reads_in_the_receivers_language():
    i18n.set_language("zh_CN")
    note = clauses(said(CHANGED), "GPU:0")
    assert note == "有变化；GPU:0"
    data = encode(p.EngineStarting(note))
    i18n.set_language("en")
    arrived = decode(data).note
    assert type(arrived) is Said and arrived == "changed; GPU:0"
    assert arrived.stored == note.stored


def test_a_registry_of_every_class_that_crosses_and_only_those():
    registry = wire_types()
    for cls in [TrainingOutcome, BatchTried, Check, MemoryApplyResult, Verdict,
                FolderListing, FolderEntry, *EVENT_TYPES.values()]:
        assert cls in registry.names, cls
    assert all(c.__module__.startswith("mpstudio.engine.") and (
        dataclasses.is_dataclass(c) or issubclass(c, enum.Enum)) for c in registry.names)
    assert registry.messages == {c for c in vars(p).values() if isinstance(c, type)
                                 and dataclasses.is_dataclass(c)
                                 and c.__module__ == p.__name__}
    qualified = sorted(t for t in registry.tags if "." in t)  # two classes named Verdict
    assert qualified == ["mpstudio.engine.comparison.verdict.Verdict",
                         "mpstudio.engine.hardware.verdict_rules.Verdict"]


# ------------------------------------------------------------- what is refused
@dataclasses.dataclass(frozen=True)
class Smuggled:
    command: str


def test_a_class_outside_the_registry_is_refused_at_the_sender():
    with pytest.raises(WireError, match=r"test_wire_codec\.Smuggled is not in the wire"):
        encode(p.JobEvent(1, Smuggled("rm -rf ~")))
    with pytest.raises(WireError, match=r"builtins\.object is not in the wire registry"):
        encode(p.JobResult(1, object()))
    with pytest.raises(WireError, match="cannot be encoded"):
        encode(p.JobProgress(1, 2 ** 70, 1, ""))


def test_a_frame_too_large_or_no_message_is_refused_before_it_is_written(monkeypatch):
    r, w = os.pipe()
    with os.fdopen(w, "wb") as out, os.fdopen(r, "rb") as into:
        writer = FrameWriter(out)
        monkeypatch.setattr("mpstudio.engine.service.framing.MAX_FRAME_BYTES", 1000)
        with pytest.raises(FrameError, match=r"a JobResult of 1\d+ bytes is over the frame"):
            writer.send(p.JobResult(1, "x" * 1000))
        with pytest.raises(WireError, match="StepMetrics is not a message of the protocol"):
            writer.send(step(3))
        writer.send(p.JobStarted(5))  # nothing of the refused ones went out
        writer.close()
        assert read_frame(into) == p.JobStarted(5)
        with pytest.raises(EOFError):
            read_frame(into)


def _read_from_pipe(frame: bytes, *, close: bool = True) -> tuple[Exception, bytes]:
    """``frame`` written into a real pipe, read back with read_frame: what it raised,
    and what it left unread."""
    r, w = os.pipe()
    os.write(w, frame)
    os.close(w)
    with os.fdopen(r, "rb", buffering=0) as stream:
        with pytest.raises((FrameError, EOFError)) as raised:
            read_frame(stream)
        left = stream.read()
    message = str(raised.value)
    assert "\n" not in message and len(message) < 200, message  # one short line
    return raised.value, left


class _Exploit:
    """What a hostile engine could send to a window that unpickles: a pickle that opens
    (creates) a file of its choosing as it is read."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return open, (str(self.path), "w")


def test_a_pickle_that_runs_code_is_refused_and_runs_nothing(tmp_path):
    proof = tmp_path / "pickle_ran"
    pickle.loads(pickle.dumps(_Exploit(proof))).close()
    assert proof.exists()  # the payload is a real one: unpickled, it runs
    marker = tmp_path / "marker"
    payload = pickle.dumps(p.JobEvent(1, _Exploit(marker)))
    error, left = _read_from_pipe(HEADER.pack(len(payload)) + payload)
    assert isinstance(error, FrameError) and "does not decode: not MessagePack" in str(error)
    assert not marker.exists() and left == b""


def _frame(raw: Any) -> bytes:
    body = msgspec.msgpack.encode(raw)
    return HEADER.pack(len(body)) + body


@pytest.mark.parametrize(("raw", "said_"), [
    ({"$": "JobEvent", "job_id": 1, "event": {"$": "posix.system", "command": "touch x"}},
     "JobEvent.event: unknown tag 'posix.system'"),
    ({"$": "JobProgress", "job_id": 1, "done": "3", "total": 10, "text": ""},
     "JobProgress.done: expected int, got str"),
    ({"$": "JobEvent", "job_id": 1, "event": {"$": "StepMetrics", "step": 1}},
     "JobEvent.event: StepMetrics: missing field 'epoch'"),
    ({"$": "JobStarted", "job_id": 1, "__class__": "os.system"},
     "JobStarted: unknown field '__class__'"),
    ({"$": "JobResult", "job_id": 1, "value": {"$": "tuple", "items": {"a": 1}}},
     "JobResult.value: tuple: expected an array, got dict"),
    ({"$": "EngineStarting", "note": {"$": "Said", "stored": {"msg": "x", "args": [1]}}},
     "EngineStarting.note: Said: a sentence that does not render (AttributeError)"),
    ([1, 2, 3], "is not a message: list"),  # data, but no message of the protocol
    ({"$": "StepMetrics", **dataclasses.asdict(step(3))}, "is not a message: StepMetrics"),
])
def test_a_frame_that_is_not_a_message_says_what_in_one_line(raw, said_):
    error, left = _read_from_pipe(_frame(raw) + b"next frame")
    assert isinstance(error, FrameError)
    expected = f"a frame that {said_}" if said_.startswith("is not") else \
        f"a frame that does not decode: {said_}"
    assert str(error) == expected
    assert left == b"next frame"  # the bad frame was read, nothing after it


def test_a_cut_frame_or_an_oversized_header_ends_the_stream_with_one_line():
    body = encode(p.JobEvent(1, step(3)))
    error, _ = _read_from_pipe(HEADER.pack(len(body)) + body[:-5])  # the writer died
    assert isinstance(error, FrameError)
    assert str(error) == f"the stream ended inside a frame, {len(body) - 5} of {len(body)} " \
                         "bytes read"
    error, _ = _read_from_pipe(HEADER.pack(len(body) - 5) + body[:-5])  # cut, then framed
    assert str(error) == "a frame that does not decode: not MessagePack: Input data was " \
                         "truncated"
    error, left = _read_from_pipe(HEADER.pack(MAX_FRAME_BYTES + 1) + body)
    assert str(error) == f"a frame of {MAX_FRAME_BYTES + 1} bytes announced, over the " \
                         f"limit of {MAX_FRAME_BYTES}"
    assert left == body  # refused from its header: not one byte of the body read
    error, _ = _read_from_pipe(b"")
    assert isinstance(error, EOFError)  # the other side ended between frames


def test_a_request_the_engine_cannot_read_fails_its_job_not_the_pipe():
    """A window of another version: a request class, or a field, this engine lacks."""
    newer = {"$": "Submit", "job_id": 7, "request": {"$": "NewerRequest", "x": 1}}
    submit = decode(msgspec.msgpack.encode(newer))
    assert submit == p.Submit(7, jr.UnreadableRequest("NewerRequest",
                                                      "unknown tag 'NewerRequest'"))
    wrong = msgspec.msgpack.decode(encode(p.Submit(8, jr.DoctorRequest())))
    wrong["request"]["quick"] = "yes"
    submit = decode(msgspec.msgpack.encode(wrong))
    assert submit.request == jr.UnreadableRequest(
        "DoctorRequest", "DoctorRequest.quick: expected bool, got str")
    with pytest.raises(WireError, match=r"Submit\.job_id: expected int, got str"):
        decode(msgspec.msgpack.encode({**newer, "job_id": "7"}))  # the message itself: no


def test_fields_newer_senders_leave_out_take_their_defaults():
    raw = msgspec.msgpack.decode(encode(p.JobFailed(1, "boom")))
    del raw["cancelled"]
    assert decode(msgspec.msgpack.encode(raw)) == p.JobFailed(1, "boom", cancelled=False)


def test_a_wrong_type_deep_inside_a_result_names_where():
    raw = msgspec.msgpack.decode(encode(p.JobResult(1, check_of(machine(build=CPU_ONLY_BUILD)))))
    raw["value"]["memory"]["status"] = "exploded"
    with pytest.raises(WireError, match=r"^JobResult.value: HardwareCheck.memory: "
                                        r"MemoryApplyResult.status: expected one of "):
        decode(msgspec.msgpack.encode(raw))


def test_a_newer_handshake_is_read_and_any_other_unknown_field_refused():
    """Two versions must always be able to say which they are: a Hello or Welcome with
    a field this version lacks is read (the field dropped), so the engine can answer
    with a Refused naming both versions; an unknown field anywhere else is refused."""
    newer = {"$": "Hello", "protocol": p.PROTOCOL + 1, "version": "9.9.9",
             "client_id": "w", "compression": "zstd"}
    hello = decode(msgspec.msgpack.encode(newer))
    assert isinstance(hello, p.Hello) and (hello.protocol, hello.version) == (
        p.PROTOCOL + 1, "9.9.9")
    welcome = {"$": "Welcome", "protocol": 2, "version": "9.9.9", "engine_id": "e",
               "host": "gpu-box", "gpus": ["H100"]}
    assert decode(msgspec.msgpack.encode(welcome)).host == "gpu-box"
    with pytest.raises(WireError, match="unknown field 'extra'"):
        decode(msgspec.msgpack.encode({"$": "Ack", "seq": 3, "extra": 1}))
