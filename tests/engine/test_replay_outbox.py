"""The engine's outbox (service/replay_outbox.py) through a real pipe: job messages
numbered and sent once each, replayed to a window that reattaches, and a message that
cannot cross refused at the sender with nothing kept, the window still attached (its
job then fails with a sentence, the window goes on)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.framing import FrameWriter, read_frame
from mpstudio.engine.service.replay_outbox import ReplayOutbox
from mpstudio.engine.service.wire_codec import WireError


@dataclass(frozen=True)
class NotOnTheWire:  # a value no message may carry (a bug the sender must catch)
    x: int


def _pipe() -> tuple[FrameWriter, object]:
    read_fd, write_fd = os.pipe()
    return FrameWriter(os.fdopen(write_fd, "wb")), os.fdopen(read_fd, "rb")


def _welcome() -> p.Welcome:
    return p.Welcome(p.PROTOCOL, "0.1.0", "engine-1", "gpu-box")


def test_a_message_that_cannot_cross_is_refused_and_the_window_stays():
    outbox = ReplayOutbox()
    writer, reader = _pipe()
    outbox.attach(writer, _welcome(), None, "w")
    assert isinstance(read_frame(reader), p.Welcome)
    with pytest.raises(WireError):
        outbox.send(p.JobResult(1, NotOnTheWire(3)), "w")
    assert outbox.attached and outbox.last_seq == 0  # nothing numbered, nothing kept
    outbox.send(p.JobFailed(1, "the result could not be sent"), "w")
    sent = read_frame(reader)
    assert sent == p.Numbered(1, p.JobFailed(1, "the result could not be sent"), "w")


def test_a_window_that_reattaches_gets_its_own_missed_messages_once():
    outbox = ReplayOutbox()
    for seq in range(1, 6):
        outbox.send(p.JobProgress(7, seq, 5, "step"), "w" if seq != 3 else "other")
    outbox.acknowledge(1)
    writer, reader = _pipe()
    assert outbox.attach(writer, _welcome(), 1, "w")
    assert isinstance(read_frame(reader), p.Welcome)
    assert [read_frame(reader).seq for _ in range(3)] == [2, 4, 5]  # not 3: another's
    writer.close()
    with pytest.raises(EOFError):
        outbox.detach(writer)
        read_frame(reader)
