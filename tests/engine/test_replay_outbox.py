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


def test_front_ends_side_by_side_each_get_and_acknowledge_their_own():
    """The window and a command line attached at once (`mpstudio --engine gpu-box
    compare` beside the window): each gets its own job messages, and one's Ack never
    drops the other's; a watcher (`engine attach`) sees every one live; the oldest of
    all go past MOST_KEPT, and only the front end that lost some hears so."""
    outbox = ReplayOutbox(most_kept=4)
    window, window_in = _pipe()
    cli, cli_in = _pipe()
    watcher, watcher_in = _pipe()
    outbox.attach(window, _welcome(), None, "window")
    outbox.attach(cli, _welcome(), None, "cli")
    outbox.watch(watcher, _welcome(), (("window", p.JobEvent(1, "catch-up")),))
    for reader in (window_in, cli_in, watcher_in):
        assert isinstance(read_frame(reader), p.Welcome)
    assert read_frame(watcher_in) == p.Numbered(0, p.JobEvent(1, "catch-up"), "window")
    outbox.send(p.JobProgress(1, 1, 2, "w"), "window")
    outbox.send(p.JobProgress(1, 1, 2, "c"), "cli")
    assert read_frame(window_in).client_id == "window" and read_frame(cli_in).seq == 2
    assert [read_frame(watcher_in).seq for _ in range(2)] == [1, 2]
    outbox.acknowledge(2, "cli")  # the command line's Ack: the window's 1 stays
    outbox.detach(window)
    again, again_in = _pipe()
    assert outbox.attach(again, _welcome(), 0, "window")
    assert isinstance(read_frame(again_in), p.Welcome) and read_frame(again_in).seq == 1
    outbox.detach(again)
    for n in range(4):  # past MOST_KEPT: the window's oldest (1) goes
        outbox.send(p.JobProgress(2, n, 4, "c"), "cli")
    assert not outbox.attach(_pipe()[0], _welcome(), 0, "window")  # it lost message 1
    assert outbox.attach(_pipe()[0], _welcome(), 2, "cli")
