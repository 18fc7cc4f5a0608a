"""The tests' SSH server: a small sshd on 127.0.0.1 that the real OpenSSH client logs in
to. Run in a process of its own by support.ssh_server (the tests' side), never imported
by a test: it can be killed, and pytest's warning filters and event loop stay out of it.

What it does, as OpenSSH's sshd does it for a command without a pty: an exec request
runs ``/bin/sh -c COMMAND`` in a session of its own, with the environment and folder it
was started with, its stdin, stdout and stderr bridged to the channel as bytes, as they
come (a binary protocol crosses them), and its exit status or signal sent back. When the
connection drops, the command's stdin gets EOF and its stdout and stderr pipes are
closed; the command is not killed (one that detached itself lives on). Login is by one
key only (a throwaway ed25519 key it generates, like its host key), for one user name;
shells, subsystems and ptys are refused. Local forwarding (``ssh -L``) reaches only the
server's own loopback (a TensorBoard there), as sshd's ``PermitOpen localhost:*``.

Protocol with the tests' side: the first line on stdin is JSON ({"folder", "env",
"cwd", "user"}); the server writes the client's private key to FOLDER/client_key and
answers one JSON line ({"port", "host_key", "client_key"}: the public keys in
authorized_keys format). Then each "cut" line on stdin aborts every open connection
(a dropped network), answered "cut"; EOF on stdin stops the server and kills the
commands still running in their sessions (the test is over; sshd would leave them)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

# asyncssh still names DSA's key classes, and cryptography warns about them at import.
warnings.filterwarnings("ignore", message="DSA is deprecated")

import asyncssh  # noqa: E402

_connections: set[asyncssh.SSHServerConnection] = set()
_commands: set[asyncio.SubprocessTransport] = set()  # those still running


class Server(asyncssh.SSHServer):
    """One connection: public key login for ``user`` with ``key``, exec sessions."""

    def __init__(self, user: str, key: asyncssh.SSHKey, env: dict[str, str], cwd: str):
        self._user, self._key, self._env, self._cwd = user, key, env, cwd
        self._conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        _connections.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        assert self._conn is not None
        _connections.discard(self._conn)

    def begin_auth(self, username: str) -> bool:
        return True  # always: a login without a key is never allowed

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        return username == self._user and key.public_data == self._key.public_data

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str,
                             orig_port: int) -> bool:
        return dest_host in ("127.0.0.1", "localhost")  # ssh -L to this machine only

    def session_requested(self) -> CommandSession:
        assert self._conn is not None
        client_host, client_port = self._conn.get_extra_info("peername")[:2]
        server_host, server_port = self._conn.get_extra_info("sockname")[:2]
        # as sshd sets them
        env = dict(self._env, SSH_CLIENT=f"{client_host} {client_port} {server_port}",
                   SSH_CONNECTION=f"{client_host} {client_port} {server_host} {server_port}")
        return CommandSession(env, self._cwd)


class CommandSession(asyncssh.SSHServerSession[bytes]):
    """One exec channel and the command it runs (what is sent before the command has
    started is kept until it has)."""

    def __init__(self, env: dict[str, str], cwd: str):
        self._env, self._cwd = env, cwd
        self._chan: asyncssh.SSHServerChannel | None = None
        self._command = ""
        self._process: asyncio.SubprocessTransport | None = None
        self._early: list[bytes] = []
        self._eof = self._dropped = False
        self._outputs_open = {1, 2}
        self._output_paused = self._input_paused = self._finished = False
        self._starting: asyncio.Future[None] | None = None  # held: a task is held weakly

    # ---- the channel's side (asyncssh calls these)
    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self._chan = chan

    def exec_requested(self, command: str) -> bool:
        self._command = command
        return True

    def session_started(self) -> None:
        self._starting = asyncio.ensure_future(self._start())

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if self._process is None:
            self._early.append(data)
        else:
            self._stdin().write(data)

    def eof_received(self) -> bool:
        self._eof = True
        if self._process is not None:
            self._close(0)  # after what is still buffered
        return True  # half open: the command's output still goes out

    def pause_writing(self) -> None:  # the client reads slower than the command writes
        self._output_paused = True
        self._pause_output(True)

    def resume_writing(self) -> None:
        self._output_paused = False
        self._pause_output(False)

    def connection_lost(self, exc: Exception | None) -> None:
        """The channel closed: after the command finished, or the connection dropped.
        A dropped one's command, as under sshd, gets EOF and writes into closed pipes
        (EPIPE, SIGPIPE), but is not killed."""
        self._dropped = True
        if self._process is not None and not self._finished:
            for fd in (1, 2):
                self._close(fd)
            self._close(0, discard=True)

    # ---- the command's side
    async def _start(self) -> None:
        try:  # a session of its own, as sshd's child calls setsid()
            await asyncio.get_running_loop().subprocess_exec(
                lambda: _CommandPipes(self), "/bin/sh", "-c", self._command,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=self._env, cwd=self._cwd, start_new_session=True)
        except OSError as exc:  # no /bin/sh, no such folder: as a shell says it
            assert self._chan is not None
            self._chan.write_stderr(f"sshd: {exc}\n".encode())
            self._chan.exit(127)

    def started(self, process: asyncio.SubprocessTransport) -> None:
        """Before any of its output or its exit is passed on (it may be over by the time
        subprocess_exec returns)."""
        self._process = process
        _commands.add(process)
        for data in self._early:
            self._stdin().write(data)
        if self._dropped:
            self.connection_lost(None)
        elif self._eof:
            self._close(0)
        self._pause_output(self._output_paused)

    def _pipe(self, fd: int) -> asyncio.BaseTransport:
        assert self._process is not None
        pipe = self._process.get_pipe_transport(fd)
        assert pipe is not None
        return pipe

    def _close(self, fd: int, discard: bool = False) -> None:
        """Close our end of one of the command's pipes, once (asyncio's pipe transports
        fail on a second close); ``discard``: stdin's unsent input too."""
        pipe = self._pipe(fd)
        if not pipe.is_closing():
            pipe.abort() if discard else pipe.close()  # type: ignore[attr-defined]

    def _stdin(self) -> asyncio.WriteTransport:
        return self._pipe(0)  # type: ignore[return-value]

    def _pause_output(self, paused: bool) -> None:
        if self._process is None:
            return
        for fd in self._outputs_open:
            pipe: asyncio.ReadTransport = self._pipe(fd)  # type: ignore[assignment]
            if paused and pipe.is_reading():
                pipe.pause_reading()
            elif not paused and not pipe.is_reading():
                pipe.resume_reading()

    def output(self, fd: int, data: bytes) -> None:
        assert self._chan is not None
        if not self._dropped:
            self._chan.write(data, None if fd == 1 else asyncssh.EXTENDED_DATA_STDERR)

    def output_closed(self, fd: int) -> None:
        self._outputs_open.discard(fd)
        self._finish()

    def exited(self) -> None:
        assert self._process is not None
        _commands.discard(self._process)
        self._finish()

    def pause_input(self, paused: bool) -> None:  # the command reads slower than it gets
        assert self._chan is not None
        self._input_paused = paused
        if paused:
            self._chan.pause_reading()
        else:
            # Not from within asyncio's callback: a pipe transport calls resume_writing
            # as its buffer empties and then closes itself if it was closing, dropping
            # what was written meanwhile (the channel passes on its buffered input and
            # EOF at once): a truncated stdin.
            asyncio.get_running_loop().call_soon(self._resume_input)

    def _resume_input(self) -> None:
        assert self._chan is not None
        if not self._input_paused and not self._dropped:
            self._chan.resume_reading()

    def _finish(self) -> None:
        """Once the command has exited and closed its stdout and stderr (as sshd waits
        for both: a background child still holding them keeps the session open), its
        exit status or signal goes back and the channel closes."""
        assert self._process is not None and self._chan is not None
        code = self._process.get_returncode()
        if code is None or self._outputs_open or self._dropped or self._finished:
            return
        self._finished = True
        self._close(0, discard=True)  # input it never read
        if code >= 0:
            self._chan.exit(code)
        else:
            self._chan.exit_with_signal(signal.Signals(-code).name.removeprefix("SIG"))


class _CommandPipes(asyncio.SubprocessProtocol):
    """The command's pipes and exit, passed on to its session."""

    def __init__(self, session: CommandSession):
        self._session = session

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._session.started(transport)  # type: ignore[arg-type]

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self._session.output(fd, data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd in (1, 2):
            self._session.output_closed(fd)

    def process_exited(self) -> None:
        self._session.exited()

    def pause_writing(self) -> None:  # its stdin pipe is full
        self._session.pause_input(True)

    def resume_writing(self) -> None:
        self._session.pause_input(False)


async def serve() -> None:
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    settings = json.loads(await reader.readline())
    host_key = asyncssh.generate_private_key("ssh-ed25519")
    client_key = asyncssh.generate_private_key("ssh-ed25519")
    key_file = Path(settings["folder"]) / "client_key"
    key_file.touch(mode=0o600)  # ssh ignores a private key others may read
    client_key.write_private_key(key_file)

    acceptor = await asyncssh.create_server(
        lambda: Server(settings["user"], client_key, settings["env"], settings["cwd"]),
        "127.0.0.1", 0, server_host_keys=[host_key], encoding=None,
        password_auth=False, kbdint_auth=False, host_based_auth=False, gss_host=None,
        allow_pty=False, agent_forwarding=False, x11_forwarding=False)
    port = acceptor.sockets[0].getsockname()[1]
    _say(json.dumps({"port": port,
                     "host_key": host_key.export_public_key().decode().strip(),
                     "client_key": client_key.export_public_key().decode().strip()}))

    while line := await reader.readline():  # EOF: the tests are done (or gone)
        if line.strip() == b"cut":
            for conn in list(_connections):
                conn.abort()
            while _connections:  # their sockets closed once connection_lost has run
                await asyncio.sleep(0.01)
            _say("cut")
    acceptor.close()
    for command in _commands:
        with contextlib.suppress(ProcessLookupError):  # its session's group: pgid == pid
            os.killpg(command.get_pid(), signal.SIGKILL)
    for _ in range(100):  # reaped here, not left to init
        if not _commands:
            break
        await asyncio.sleep(0.01)


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(serve())
