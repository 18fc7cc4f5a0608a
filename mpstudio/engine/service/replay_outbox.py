"""What the engine sends, kept for a window that reattaches.

Job messages (started, events, progress, result, failure) are numbered and kept until
the window acknowledges them, so a window whose connection dropped reattaches and
asks for the ones after the last it saw: a run's charts fill in with what happened
meanwhile, and a result sent while nobody was attached still arrives. The engine's
state (starting, ready, load failed) is not a stream: the latest is kept and sent to
every window that attaches.

A pipe engine (the window's own child) has one window for its whole life; a server's
engine sees windows come and go, one at a time.
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import Any, NamedTuple, Protocol

from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.framing import encode_frame

log = logging.getLogger(__name__)
# Job messages kept for a window that is away; past this the oldest go (a run of
# millions of steps while the laptop sleeps for days) and the window says what it lost.
MOST_KEPT = 200_000
STATE_MESSAGES = (p.EngineStarting, p.EngineReady, p.EngineLoadFailed)


class Writer(Protocol):
    def send_frame(self, frame: bytes) -> None: ...


class _Kept(NamedTuple):
    seq: int
    client_id: str
    frame: bytes  # encoded once: sent now, and again to a window that reattaches


class ReplayOutbox:
    """Thread-safe: every lane and the control thread send through it."""

    def __init__(self, most_kept: int = MOST_KEPT) -> None:
        self._lock = threading.Lock()
        self._kept: collections.deque[_Kept] = collections.deque()
        self._most_kept = most_kept
        self._next_seq = 1
        self._state: bytes | None = None  # the latest state message's frame
        self._writer: Writer | None = None

    @property
    def attached(self) -> bool:
        return self._writer is not None

    @property
    def last_seq(self) -> int:
        return self._next_seq - 1

    def send(self, message: Any, client_id: str = "") -> None:
        """Send to the window attached, if any; keep job messages (of the window
        ``client_id``) for one that comes. WireError or FrameError: ``message`` cannot
        cross (framing.encode_frame); nothing is sent or kept, and the caller says so."""
        with self._lock:
            if isinstance(message, STATE_MESSAGES):
                frame = encode_frame(message)
                self._state = frame
            else:
                frame = encode_frame(p.Numbered(self._next_seq, message, client_id))
                self._kept.append(_Kept(self._next_seq, client_id, frame))
                self._next_seq += 1
                if len(self._kept) > self._most_kept:
                    self._kept.popleft()
            writer = self._writer
            if writer is not None:
                self._send_or_drop(writer, frame)

    def attach(self, writer: Writer, welcome: p.Welcome, resume_from: int | None,
               welcome_client: str = "") -> bool:
        """Make ``writer`` the window's: the Welcome, the engine's state, then the job
        messages of window ``welcome_client`` after ``resume_from`` (None: none, a
        window that starts afresh), then whatever is sent next. False: some of those
        were dropped (MOST_KEPT)."""
        with self._lock:
            complete = True
            replay: list[bytes] = []
            if resume_from is not None:
                first_kept = self._kept[0].seq if self._kept else self._next_seq
                complete = resume_from + 1 >= first_kept
                replay = [m.frame for m in self._kept if m.seq > resume_from
                          and m.client_id == welcome_client]
            self._writer = writer
            for frame in (encode_frame(welcome), *([self._state] if self._state else []),
                          *replay):
                self._send_or_drop(writer, frame)
            return complete

    def detach(self, writer: Writer) -> None:
        with self._lock:
            if self._writer is writer:
                self._writer = None

    def acknowledge(self, seq: int) -> None:
        """The window has every message up to ``seq``: they need not be kept."""
        with self._lock:
            while self._kept and self._kept[0].seq <= seq:
                self._kept.popleft()

    def _send_or_drop(self, writer: Writer, frame: bytes) -> None:
        # Under the lock, so messages reach the window in their numbers' order. A window
        # gone mid-send is detached; the control thread notices its end too.
        try:
            writer.send_frame(frame)
        except (OSError, ValueError) as exc:
            log.info("the window's connection broke while sending: %s", exc)
            self._writer = None
