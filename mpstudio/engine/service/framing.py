"""Messages over a byte stream (the engine process's stdin and stdout, later an ssh
connection): each frame is an 8-byte big-endian length, then the message as the wire
codec encodes it (wire_codec.py: data only, checked against its types as it is read).
Works the same with the anonymous pipes of every platform, which multiprocessing's
connections do not.

Each frame holds one message of the protocol (service/protocol.py). A frame over
``MAX_FRAME_BYTES`` is refused from its header, before its body is read (or, sending,
before it is written); a frame that does not decode, or holds something else than a
message, is a ``FrameError``, after which the stream cannot be trusted: the reader ends
the connection.
"""

from __future__ import annotations

import struct
import threading
from typing import IO, Any

from mpstudio.engine.service.wire_codec import WireError, decode, encode
from mpstudio.engine.service.wire_types import wire_types

_HEADER = struct.Struct("!Q")
# The largest real message is a comparison's TrainingOutcome: its runs' history records
# hold every sampled step (about 180 bytes each, all included: benchmarks/wire_codec.py)
# and each summary the per-example hits (to 170 kB a split for a million examples). Ten
# repeats a side of 100 epochs at 50 samples an epoch come to about 35 MB; a larger one
# fails its job with this limit named (its runs are in the history all the same).
MAX_FRAME_BYTES = 64 * 1024 * 1024


class FrameError(ValueError):
    """A frame too large or that does not decode; its message is one line."""


def encode_frame(message: Any) -> bytes:
    """``message`` as one frame (its header included), to send now or to keep and send
    again. WireError: not a message, or it holds a value that cannot cross (a bug);
    FrameError: it is too large to."""
    if type(message) not in wire_types().messages:
        raise WireError(f"{type(message).__name__} is not a message of the protocol")
    data = encode(message)
    if len(data) > MAX_FRAME_BYTES:
        raise FrameError(f"a {type(message).__name__} of {len(data)} bytes is over the "
                         f"frame limit of {MAX_FRAME_BYTES}")
    return _HEADER.pack(len(data)) + data


class FrameWriter:
    """Thread-safe: every thread of a process may send through one writer."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self._lock = threading.Lock()

    def send(self, message: Any) -> None:
        """WireError or FrameError (encode_frame): nothing is written."""
        self.send_frame(encode_frame(message))

    def send_frame(self, frame: bytes) -> None:
        """A frame encode_frame made."""
        with self._lock:
            self.stream.write(frame)
            self.stream.flush()

    def close(self) -> None:
        with self._lock:
            self.stream.close()


def read_frame(stream: IO[bytes]) -> Any:
    """The next message; EOFError at the end of the stream (the other side ended),
    FrameError for a frame too large, cut short, that does not decode or that holds
    something else than a message."""
    header = _read_exactly(stream, _HEADER.size, at_start=True)
    (size,) = _HEADER.unpack(header)
    if size > MAX_FRAME_BYTES:
        raise FrameError(f"a frame of {size} bytes announced, over the limit of "
                         f"{MAX_FRAME_BYTES}")
    data = _read_exactly(stream, size, at_start=False)
    try:
        message = decode(data)
    except WireError as exc:
        raise FrameError(f"a frame that does not decode: {exc}") from None
    if type(message) not in wire_types().messages:
        raise FrameError(f"a frame that is not a message: {type(message).__name__}")
    return message


def _read_exactly(stream: IO[bytes], size: int, at_start: bool) -> bytes:
    chunks, left = [], size
    while left:
        chunk = stream.read(left)
        if not chunk:
            if at_start and left == size:
                raise EOFError("the stream ended")
            raise FrameError(f"the stream ended inside a frame, {size - left} of {size} "
                             f"bytes read")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
