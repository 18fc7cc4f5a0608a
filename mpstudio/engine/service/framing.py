"""Pickled messages over a byte stream (the engine process's stdin and stdout): each
frame is an 8-byte big-endian length, then the pickle. Works the same with the
anonymous pipes of every platform, which multiprocessing's connections do not."""

from __future__ import annotations

import pickle
import struct
import threading
from typing import IO, Any

_HEADER = struct.Struct("!Q")


class FrameWriter:
    """Thread-safe: every thread of a process may send through one writer."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self._lock = threading.Lock()

    def send(self, message: Any) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            self.stream.write(_HEADER.pack(len(data)) + data)
            self.stream.flush()

    def close(self) -> None:
        with self._lock:
            self.stream.close()


def read_frame(stream: IO[bytes]) -> Any:
    """The next message; EOFError at the end of the stream (the other side ended)."""
    header = _read_exactly(stream, _HEADER.size)
    (size,) = _HEADER.unpack(header)
    return pickle.loads(_read_exactly(stream, size))


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError("the stream ended")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
