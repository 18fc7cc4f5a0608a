"""The engine's TensorBoard: Run > Open in TensorBoard while the engine is on a server.

The logs are where the runs trained, so TensorBoard runs there, next to the engine, on
the server's loopback only (nothing listens on the network); the window reaches it
through an ``ssh -L`` forward of its own (service/port_forward.py). One server per
engine: asking again for the same runs reuses it, other runs replace it, and it ends
with the engine (it is tied to the data lane's thread, which lives as long).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from mpstudio.engine.i18n import _
from mpstudio.engine.tensorboard_launch import (
    NO_LOGS_HINT,
    NoTensorBoardLogs,
    TensorBoardServer,
    run_logs,
    start_tensorboard,
)

_lock = threading.Lock()
_server: TensorBoardServer | None = None


@dataclass(frozen=True)
class TensorBoardAddress:
    """Where the engine's TensorBoard answers on its machine's loopback."""

    port: int
    logs: dict[str, str]  # name ("" for one) -> the folder it shows, for the log line


def serve_tensorboard(run_ids: tuple[int, ...],
                      should_stop: Callable[[], bool] | None = None) -> TensorBoardAddress:
    """TensorBoard on the logs of ``run_ids`` (those that have logs), started or reused."""
    global _server
    folders = run_logs(run_ids)
    if not folders:
        text = _("run #{id} has no TensorBoard logs: {hint}") if len(run_ids) == 1 else \
            _("none of the runs asked for has TensorBoard logs: {hint}")
        raise NoTensorBoardLogs(text.format(id=run_ids[0] if run_ids else "",
                                            hint=_(NO_LOGS_HINT)))
    wanted = folders if len(folders) > 1 else {"": next(iter(folders.values()))}
    with _lock:
        if _server is not None and _server.running and _server.logdirs == wanted:
            return _address(_server)
        if _server is not None:
            _server.stop()
            _server = None
        spec = wanted if len(wanted) > 1 else wanted[""]
        _server = start_tensorboard(spec, should_stop=should_stop, tied=True)
        return _address(_server)


def stop_tensorboard() -> None:
    global _server
    with _lock:
        if _server is not None:
            _server.stop()
            _server = None


def _address(server: TensorBoardServer) -> TensorBoardAddress:
    return TensorBoardAddress(server.port, {k: str(p) for k, p in server.logdirs.items()})
