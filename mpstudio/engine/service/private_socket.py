"""Where a server's engine listens and who may talk to it: a Unix socket in a folder only
its user can enter, and every connection's peer checked to be that user.

The folder is ``$MPSTUDIO_RUNTIME_DIR``, else ``$XDG_RUNTIME_DIR/mpstudio`` (systemd's
per-user tmpfs, mode 0700, emptied at logout), else ``/tmp/mpstudio-UID``. A folder
that exists but is not a real folder of this user with no access for others (a symlink
planted in /tmp, a shared mode) is refused rather than used: nothing listens on a
network port, so the folder's mode and the peer's uid are the whole of the access
control.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
import sys
from pathlib import Path

SOCKET_NAME = "engine.sock"
RUNTIME_ENV = "MPSTUDIO_RUNTIME_DIR"


class PrivateSocketError(Exception):
    """The socket's folder is not private, or a peer is not this user (says which)."""


def runtime_dir() -> Path:
    given = os.environ.get(RUNTIME_ENV)
    if given:
        return Path(given)
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and Path(xdg).is_dir():
        return Path(xdg) / "mpstudio"
    return Path("/tmp") / f"mpstudio-{os.getuid()}"


# sockaddr_un's sun_path: 108 bytes on Linux, 104 on macOS, with its terminating NUL
MOST_PATH_BYTES = 103


def socket_path() -> Path:
    path = runtime_dir() / SOCKET_NAME
    if len(os.fsencode(path)) > MOST_PATH_BYTES:
        raise PrivateSocketError(f"the engine's socket path {path} is longer than a Unix "
                                 f"socket can have ({MOST_PATH_BYTES} bytes): set "
                                 f"{RUNTIME_ENV} to a shorter folder")
    return path


def private_dir(path: Path | None = None) -> Path:
    """The runtime folder, made (mode 0700) if missing, and checked to be this user's
    alone: not a symlink, owned by this uid, no access for group or others."""
    folder = path or runtime_dir()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError as exc:
        raise PrivateSocketError(f"cannot make the engine's folder {folder}: "
                                 f"{exc.strerror or exc}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise PrivateSocketError(f"{folder} is not a folder (a symlink or a file is in its "
                                 f"place): remove it, or set {RUNTIME_ENV} to another folder")
    if info.st_uid != os.getuid():
        raise PrivateSocketError(f"{folder} belongs to another user (uid {info.st_uid}): "
                                 f"set {RUNTIME_ENV} to a folder of your own")
    if info.st_mode & 0o077:
        raise PrivateSocketError(f"{folder} can be entered by other users (mode "
                                 f"{stat.S_IMODE(info.st_mode):o}): chmod 700 it, or set "
                                 f"{RUNTIME_ENV} to a folder of your own")
    return folder


def peer_uid(conn: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket (None where this
    system cannot tell)."""
    if hasattr(socket, "SO_PEERCRED"):  # Linux: struct ucred {pid, uid, gid}
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return int(struct.unpack("3i", creds)[1])
    if sys.platform == "darwin":  # LOCAL_PEERCRED: struct xucred {version, uid, ...}
        local_peercred = 0x001
        creds = conn.getsockopt(0, local_peercred, struct.calcsize("2I"))
        return int(struct.unpack("2I", creds)[1])
    return None


def check_peer(conn: socket.socket, expected_uid: int | None = None) -> None:
    """Refuse a peer that is not this user (``expected_uid``: the tests' stand-in for
    another user's process)."""
    uid = peer_uid(conn)
    want = os.getuid() if expected_uid is None else expected_uid
    if uid is not None and uid != want:
        raise PrivateSocketError(f"a process of uid {uid} tried to attach to the engine of "
                                 f"uid {want}: refused")
