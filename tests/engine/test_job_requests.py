"""The typed job requests: each has its job in the engine's table, returning the type
it names; a request the engine has no job for, or cannot read, fails with a sentence.
No engine process here (test_engine_client.py runs them in one)."""

from __future__ import annotations

import dataclasses
import typing

import msgspec
import pytest

from mpstudio.engine.service import job_requests as jr
from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.engine_process import failure_message
from mpstudio.engine.service.job_table import JOBS, EngineMemory, UnknownJob, run_job
from mpstudio.engine.service.wire_codec import decode, encode
from mpstudio.engine.spec import RunSpec

REQUESTS = [cls for cls in vars(jr).values() if isinstance(cls, type)
            and issubclass(cls, jr.JobRequest) and cls not in (jr.JobRequest,
                                                                jr.UnreadableRequest)]


def _result_name(cls: type) -> str:
    """The result type a request names, spelled as a job's return annotation is."""
    (arg,) = typing.get_args(cls.__orig_bases__[0])  # type: ignore[attr-defined]
    origin = typing.get_origin(arg)
    if origin is None:
        return arg.__name__
    return f"{origin.__name__}[{', '.join(a.__name__ for a in typing.get_args(arg))}]"


class _Context:
    def emit(self, event: object) -> None: ...
    def should_stop(self) -> bool:
        return False
    def progress(self, done: int, total: int, text: str) -> None: ...


def test_every_request_has_a_job_that_returns_what_the_request_names():
    assert len(REQUESTS) == 12 and set(JOBS) == set(REQUESTS)
    for request, job in JOBS.items():
        assert job.__annotations__["return"] == _result_name(request), request
        assert dataclasses.is_dataclass(request) and request.__dataclass_params__.frozen
        assert request.what, f"{request.__name__} says what it is in a failure"
    beside_a_run = {jr.InspectDatasetRequest, jr.HistoryRowsRequest, jr.FetchFilesRequest,
                    jr.ListFolderRequest, jr.TensorBoardRequest}
    assert {r for r in REQUESTS if r.lane == jr.DATA_LANE} == beside_a_run  # never behind it
    assert {r.lane for r in REQUESTS if r not in beside_a_run} == {jr.MAIN_LANE}


def test_a_request_crosses_the_pipe_whole():
    request = jr.TrainRequest(RunSpec(epochs=2))
    back = decode(encode(p.Submit(7, request)))
    assert back == p.Submit(7, request)


def test_a_request_the_engine_has_no_job_for_fails_with_a_sentence():
    with pytest.raises(UnknownJob, match="the engine has no job 'JobRequest'"):
        run_job(_Context(), EngineMemory(), jr.JobRequest())
    with pytest.raises(UnknownJob, match="the engine has no job 'str'"):
        run_job(_Context(), EngineMemory(), "train")  # a name is not a request


def test_a_request_the_engine_cannot_read_fails_its_job_not_the_pipe():
    """A window of another version sends a class (or field) this engine lacks: the
    Submit still arrives, carrying what could not be read."""
    newer = {"$": "Submit", "job_id": 3, "request": {"$": "NewerRequest", "steps": 10}}
    submit = decode(msgspec.msgpack.encode(newer))
    assert submit.job_id == 3 and isinstance(submit.request, jr.UnreadableRequest)
    assert submit.request.kind == "NewerRequest"
    with pytest.raises(UnknownJob) as failed:
        run_job(_Context(), EngineMemory(), submit.request)
    message = failure_message(submit.request, failed.value)
    assert message.startswith("the engine process cannot read the window's NewerRequest")
    assert "another version of mpstudio" in message


def test_a_failure_names_the_job_in_words():
    message = failure_message(jr.DoctorRequest(), ValueError("boom"))
    assert message == "the training check failed: ValueError: boom"
    assert failure_message(jr.JobRequest(), ValueError("boom")).startswith("JobRequest failed")
