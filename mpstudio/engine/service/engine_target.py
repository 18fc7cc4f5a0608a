"""Where the engine runs and the command that reaches it: this computer (a child
process on a pipe), a server through the system's OpenSSH client, or any command of
the user's that ends in ``mpstudio engine connect`` (srun, kubectl exec, docker exec).

The system's ``ssh`` is used, not an SSH library: the user's keys, agent,
~/.ssh/config aliases, known hosts, ProxyJump and ControlMaster all just work. It runs
in batch mode (a password or a host-key question the window could not show is a
failure with a sentence, not a hang), with a connect timeout and keep-alives, so a
dead network is noticed in seconds. ``MPSTUDIO_SSH_COMMAND`` replaces ``ssh`` (with
options), as GIT_SSH_COMMAND does for git.

Also here: how a connection that failed is said, from ssh's exit code and its last
words on stderr, in one sentence that says what to do.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import sys
from dataclasses import dataclass
from urllib.parse import urlsplit

from mpstudio.engine.child_process import last_words
from mpstudio.engine.i18n import _

SSH_ENV = "MPSTUDIO_SSH_COMMAND"
ENGINE_ENV = "MPSTUDIO_ENGINE"
DEFAULT_REMOTE = "mpstudio"
SSH_OPTIONS = ("-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "-o", "ServerAliveInterval=5",
               "-o", "ServerAliveCountMax=3", "-T")
SSH_FAILED = 255  # ssh's own exit code for a connection that failed
CANNOT_START = 4  # `mpstudio engine connect`'s: no engine answers (engine_bridge.py)


class TargetError(ValueError):
    """An engine address that cannot be used (the message says what is expected)."""


@dataclass(frozen=True)
class EngineTarget:
    """``kind`` "local", "ssh" (``host``, optional ``port``, ``remote``: how mpstudio is
    run there), "command" (``command``: the user's, run as given) or "here" (this
    machine's long-lived engine, as `mpstudio engine attach` on a server reaches it)."""

    kind: str = "local"
    host: str = ""
    port: int | None = None
    remote: str = DEFAULT_REMOTE
    command: tuple[str, ...] = ()

    @property
    def is_local(self) -> bool:
        return self.kind == "local"

    @property
    def label(self) -> str:
        """The machine's name for the status bar and the title."""
        if self.kind == "ssh":
            return self.host.rsplit("@", 1)[-1]
        if self.kind == "command":
            return shlex.join(self.command[:3])
        if self.kind == "here":
            return socket.gethostname()
        return _("this computer")

    @property
    def address(self) -> str:
        """The form parse() reads back (kept in settings and shown in Recent)."""
        if self.kind == "ssh":
            port = f":{self.port}" if self.port else ""
            return f"ssh://{self.host}{port}"
        if self.kind == "command":
            return "command:" + shlex.join(self.command)
        return "local"

    def argv(self, start: bool = True) -> list[str]:
        """The command whose stdin and stdout carry the frames (``start``: it starts the
        engine there if none runs; a user's own command is run as given)."""
        no_start = [] if start else ["--no-start"]
        if self.kind == "ssh":
            ssh = shlex.split(os.environ.get(SSH_ENV, "ssh"))
            port = ["-p", str(self.port)] if self.port else []
            # a command line for the server's shell, as written (it expands ~ there)
            return [*ssh, *SSH_OPTIONS, *port, self.host, "--",
                    " ".join([remote_mpstudio(self.remote), "engine", "connect", *no_start])]
        if self.kind == "command":
            return list(self.command)
        if self.kind == "here":
            return [sys.executable, "-m", "mpstudio", "engine", "connect", *no_start]
        return [sys.executable, "-m", "mpstudio.engine.service"]


def remote_mpstudio(remote: str) -> str:
    """How mpstudio is run on the server: a command as given ("mpstudio", "conda run -n
    mp mpstudio"), or a virtual environment's folder (its bin/mpstudio)."""
    remote = remote.strip() or DEFAULT_REMOTE
    if remote.endswith("/") or remote.rstrip("/").endswith((".venv", "/venv", "/env")):
        return remote.rstrip("/") + "/bin/mpstudio"
    return remote


def parse_target(text: str, remote: str = DEFAULT_REMOTE) -> EngineTarget:
    """"local", "ssh://[user@]host[:port]", "command:srun ... mpstudio engine connect",
    or a bare ssh host or alias ("gpu-box", "me@10.0.0.5")."""
    text = text.strip()
    if text in ("", "local", "localhost-child"):
        return EngineTarget()
    if text.startswith("command:"):
        try:
            words = tuple(shlex.split(text[len("command:"):]))
        except ValueError as exc:
            raise TargetError(_("cannot read the engine command {text!r}: {error}").format(
                text=text, error=exc)) from None
        if not words:
            raise TargetError(_("the engine command is empty: give the command that runs "
                                "`mpstudio engine connect` (e.g. command:srun --gres=gpu:1 "
                                "mpstudio engine connect)"))
        return EngineTarget("command", command=words)
    if text.startswith("ssh://"):
        parts = urlsplit(text)
        try:
            port = parts.port
        except ValueError:
            raise TargetError(_("{text!r} has a port that is not a number from 1 to "
                                "65535").format(text=text)) from None
        if not parts.hostname:
            raise TargetError(_("{text!r} names no host: write ssh://[user@]host[:port]"
                                ).format(text=text))
        user = f"{parts.username}@" if parts.username else ""
        return EngineTarget("ssh", host=user + parts.hostname, port=port, remote=remote)
    if not re.fullmatch(r"[A-Za-z0-9_.@%+-]+", text) or text.startswith("-"):
        raise TargetError(_("{text!r} is not an ssh host: give a host or an alias from "
                            "~/.ssh/config (gpu-box, me@10.0.0.5), ssh://user@host:port, "
                            "or command:... for another way in").format(text=text))
    return EngineTarget("ssh", host=text, remote=remote)


# ssh's last words -> what happened, for connection_failure()
_SSH_FAILURES = (
    ("Host key verification failed", "host_key"),
    ("REMOTE HOST IDENTIFICATION HAS CHANGED", "host_key"),
    ("Permission denied", "refused_key"),
    ("Too many authentication failures", "refused_key"),
    ("Could not resolve hostname", "unknown_host"),
    ("Name or service not known", "unknown_host"),
    ("Connection refused", "unreachable"),
    ("Connection timed out", "unreachable"),
    ("No route to host", "unreachable"),
    ("Network is unreachable", "unreachable"),
    ("Operation timed out", "unreachable"),
    ("Connection closed by", "closed"),
    ("Connection reset", "closed"),
    ("Broken pipe", "closed"),
    ("Timeout, server", "closed"),
)


def _failure_kind(target: EngineTarget, exit_code: int, stderr: str) -> str:
    if target.kind == "ssh":
        for needle, what in _SSH_FAILURES:
            if needle in stderr:
                return what
    if exit_code == 127 or "command not found" in stderr or "No such file" in stderr:
        return "no_mpstudio"
    if "invalid choice" in stderr:
        return "other_version"
    return "ssh_other" if exit_code == SSH_FAILED and target.kind == "ssh" else "other"


# Failures that trying again cannot mend: the window stops reconnecting and says so
LASTING = ("host_key", "refused_key", "unknown_host", "no_mpstudio", "other_version")


def lasting_failure(target: EngineTarget, exit_code: int, stderr: str) -> bool:
    """A connection that failed for a reason only the user can mend (a key, a host key,
    no mpstudio there), not the network's: no point in trying again by itself."""
    return _failure_kind(target, exit_code, stderr) in LASTING


def connection_failure(target: EngineTarget, exit_code: int, stderr: str) -> str:
    """One sentence for a connection that never opened: what happened and what to do."""
    host = target.label
    if exit_code == CANNOT_START:  # `mpstudio engine connect` said why, in one line
        return _("the engine on {host} could not be reached: {said}").format(
            host=host, said=last_words(stderr.splitlines(), lines=1).removeprefix(
                "mpstudio engine connect: ") or _("no reason given"))
    kind = _failure_kind(target, exit_code, stderr)
    if kind in _FAILURE_TEXT:
        return _FAILURE_TEXT[kind]().format(host=host)
    if kind == "no_mpstudio":
        return _("there is no mpstudio at {remote!r} on {host}: install it there (pip "
                 "install mpstudio) or give where it is in Engine > Connect to a server "
                 "(a command, or a virtual environment's folder)").format(
                     remote=target.remote, host=host)
    if kind == "other_version":
        return _("the mpstudio on {host} is another version, without `mpstudio engine`: "
                 "install this window's version there").format(host=host)
    last = last_words(stderr.splitlines(), lines=1)
    if kind == "ssh_other":
        return _("ssh could not connect to {host}: {said}").format(
            host=host, said=last or _("no reason given"))
    return _("the connection to the engine on {host} ended before it answered (exit code "
             "{code}){said}").format(host=host, code=exit_code,
                                     said=f": {last}" if last else "")


_FAILURE_TEXT = {
    "host_key": lambda: _("{host}'s host key is not in your known_hosts, or it changed: "
                          "connect once with `ssh {host}` in a terminal to check and accept "
                          "it, then connect again"),
    "refused_key": lambda: _("{host} refused your key (mpstudio never asks for a password): "
                             "add your key to the agent (ssh-add) or name it with "
                             "IdentityFile in ~/.ssh/config, and check `ssh {host}` logs in "
                             "without a prompt"),
    "unknown_host": lambda: _("{host} is not a host ssh knows: check the name, or add it "
                              "as a Host in ~/.ssh/config"),
    "unreachable": lambda: _("{host} cannot be reached (refused, or timed out): check the "
                             "network, the VPN and the port, then connect again"),
    "closed": lambda: _("the connection to {host} was closed: check the network, then "
                        "connect again"),
}
