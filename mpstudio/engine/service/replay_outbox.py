"""What the engine sends, kept for a front end that reattaches.

Job messages (started, events, progress, result, failure) are numbered and kept, per
front end (its client id), until that front end acknowledges them, so one whose
connection dropped reattaches and asks for the ones after the last it saw: a run's
charts fill in with what happened meanwhile, and a result sent while nobody was
attached still arrives. The engine's state (starting, ready, load failed) is not a
stream: the latest is kept and sent to every front end that attaches.

A pipe engine (the window's own child) has one window for its whole life. A server's
engine sees front ends come and go: the window (one at a time), command lines that
run their own jobs beside it, and watchers (``mpstudio engine attach``) that see every
job's messages live and keep nothing.
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import Any, NamedTuple, Protocol

from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.framing import encode_frame

log = logging.getLogger(__name__)
# Job messages kept for front ends that are away, all together; past this the oldest go
# (a run of millions of steps while the laptop sleeps for days) and the window says
# what it lost.
MOST_KEPT = 200_000
STATE_MESSAGES = (p.EngineStarting, p.EngineReady, p.EngineLoadFailed)


class Writer(Protocol):
    def send_frame(self, frame: bytes) -> None: ...


class _Kept(NamedTuple):
    seq: int
    frame: bytes  # encoded once: sent now, and again to a front end that reattaches


class ReplayOutbox:
    """Thread-safe: every lane and every connection's thread send through it."""

    def __init__(self, most_kept: int = MOST_KEPT) -> None:
        self._lock = threading.Lock()
        self._kept: dict[str, collections.deque[_Kept]] = {}  # by client id
        self._count = 0  # kept, all clients together
        self._dropped: dict[str, int] = {}  # by client id: the last seq MOST_KEPT dropped
        self._most_kept = most_kept
        self._next_seq = 1
        self._state: bytes | None = None  # the latest state message's frame
        self._writers: dict[str, Writer] = {}  # by client id: those attached now
        self._watchers: list[Writer] = []

    @property
    def attached(self) -> bool:
        return bool(self._writers)

    @property
    def last_seq(self) -> int:
        return self._next_seq - 1

    def send(self, message: Any, client_id: str = "") -> None:
        """Send to the front end ``client_id`` if attached (a state message: to every
        one) and to every watcher; keep a job message for ``client_id`` to come back to.
        WireError or FrameError: ``message`` cannot cross (framing.encode_frame); nothing
        is sent or kept, and the caller says so."""
        with self._lock:
            if isinstance(message, STATE_MESSAGES):
                frame = encode_frame(message)
                self._state = frame
                targets = [*self._writers.values(), *self._watchers]
            else:
                seq = self._next_seq
                frame = encode_frame(p.Numbered(seq, message, client_id))
                self._kept.setdefault(client_id, collections.deque()).append(
                    _Kept(seq, frame))
                self._next_seq += 1
                self._count += 1
                if self._count > self._most_kept:
                    self._drop_oldest()
                writer = self._writers.get(client_id)
                targets = [*([writer] if writer is not None else []), *self._watchers]
            for target in targets:
                self._send_or_drop(target, frame)

    def attach(self, writer: Writer, welcome: p.Welcome, resume_from: int | None,
               client_id: str = "") -> bool:
        """Make ``writer`` front end ``client_id``'s (replacing a stale connection of
        its own): the Welcome, the engine's state, then its job messages after
        ``resume_from`` (None: none, a front end that starts afresh), then whatever is
        sent to it next. False: some of those were dropped (MOST_KEPT)."""
        with self._lock:
            complete = True
            replay: list[bytes] = []
            if resume_from is not None:
                kept = self._kept.get(client_id, ())
                complete = self._dropped.get(client_id, 0) <= resume_from
                replay = [m.frame for m in kept if m.seq > resume_from]
            self._writers[client_id] = writer
            for frame in (encode_frame(welcome), *([self._state] if self._state else []),
                          *replay):
                self._send_or_drop(writer, frame)
            return complete

    def watch(self, writer: Writer, welcome: p.Welcome, catch_up: tuple[Any, ...] = ()
              ) -> None:
        """``writer`` sees every job message from now on: after the Welcome and the
        state, ``catch_up`` (each running job's latest run start, so a progress line has
        its run), numbered 0: not kept, never acknowledged."""
        with self._lock:
            frames = [encode_frame(welcome), *([self._state] if self._state else []),
                      *(encode_frame(p.Numbered(0, message, client))
                        for client, message in catch_up)]
            self._watchers.append(writer)
            for frame in frames:
                self._send_or_drop(writer, frame)

    def detach(self, writer: Writer) -> None:
        with self._lock:
            self._forget(writer)

    def acknowledge(self, seq: int, client_id: str = "") -> None:
        """Front end ``client_id`` has every one of its job messages up to ``seq``: they
        need not be kept."""
        with self._lock:
            kept = self._kept.get(client_id)
            while kept and kept[0].seq <= seq:
                kept.popleft()
                self._count -= 1
            if kept is not None and not kept:
                del self._kept[client_id]

    def _drop_oldest(self) -> None:
        client = min(self._kept, key=lambda c: self._kept[c][0].seq)
        self._dropped[client] = self._kept[client].popleft().seq
        self._count -= 1
        if not self._kept[client]:
            del self._kept[client]

    def _forget(self, writer: Writer) -> None:
        for client, attached in list(self._writers.items()):
            if attached is writer:
                del self._writers[client]
        if writer in self._watchers:
            self._watchers.remove(writer)

    def _send_or_drop(self, writer: Writer, frame: bytes) -> None:
        # Under the lock, so messages reach each front end in their numbers' order. One
        # gone mid-send is detached; its connection's thread notices its end too.
        try:
            writer.send_frame(frame)
        except (OSError, ValueError) as exc:
            log.info("a front end's connection broke while sending: %s", exc)
            self._forget(writer)
