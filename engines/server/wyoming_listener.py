"""Where the Wyoming server listens (``serve --wyoming URI``): the URI parsed and its socket bound before anything
runs, so that port 0 picks a free port (said in the URI given back) and a taken port is one clear error at start.
No ``wyoming`` import here: ``serve --help`` reads the defaults.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
from dataclasses import dataclass
from urllib.parse import urlparse

DEFAULT_URI = "tcp://0.0.0.0:10200"
"""Where Home Assistant looks for a Wyoming TTS server by default (wyoming-piper's port)."""
ZEROCONF_NAME = "voice-studio"
"""The name ``--zeroconf`` announces when given none (wyoming-piper's is ``piper``)."""


@dataclass
class WyomingListener:
    """A bound Wyoming address: ``uri`` as clients reach it (the port filled in), and the socket (TCP) or path."""

    uri: str
    host: str | None = None
    port: int | None = None
    sock: socket.socket | None = None
    path: str | None = None

    def close(self) -> None:
        """Close the socket, and remove a ``unix://`` socket's file where it is still ours."""
        if self.sock is not None:
            self.sock.close()
        if self.path is not None:
            with contextlib.suppress(OSError):
                if stat.S_ISSOCK(os.lstat(self.path).st_mode):
                    os.unlink(self.path)


def bind(uri: str) -> WyomingListener:
    """Bind ``uri`` (``tcp://HOST:PORT`` or ``unix://PATH``).

    Raises:
        ValueError: another scheme, a TCP URI without host or port, or a Unix path that is not absolute.
        OSError: the address is taken or cannot be bound, saying which.
    """
    parsed = urlparse(uri)
    if parsed.scheme == "unix" and parsed.netloc:  # unix://run/w.sock: "run" would be read as a host and dropped
        raise ValueError(f"--wyoming '{uri}': give the socket's absolute path, three slashes: unix:///run/wyoming.sock")
    if parsed.scheme == "unix" and parsed.path:
        return _bind_unix(uri, parsed.path)
    if parsed.scheme != "tcp" or not parsed.hostname or parsed.port is None:
        raise ValueError(f"--wyoming '{uri}': give tcp://HOST:PORT (e.g. {DEFAULT_URI}) or unix://PATH")
    host = parsed.hostname
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, parsed.port))
        sock.listen(100)
    except OSError as exc:
        sock.close()
        hint = " (is another server there?)" if exc.errno == errno.EADDRINUSE else ""
        raise OSError(exc.errno, f"cannot listen on {uri}: {exc.strerror}{hint}") from None
    port = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    return WyomingListener(uri=f"tcp://{shown}:{port}", host=host, port=port, sock=sock)


def _bind_unix(uri: str, path: str) -> WyomingListener:
    """Bind a Unix socket at ``path``; a socket file left by a server that has gone is replaced, anything else there
    is left as it is.

    Raises:
        OSError: ``path`` is a file that is not a socket, a server listens there, or its folder is missing or not
            writable, saying which.
    """
    if os.path.lexists(path):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise OSError(errno.EEXIST, f"cannot listen on {uri}: a file that is no socket is there (give a new path)")
        if _answers(path):
            raise OSError(errno.EADDRINUSE, f"cannot listen on {uri}: a server listens there already")
        os.unlink(path)  # left by a server that has gone
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(path)
        sock.listen(100)
    except OSError as exc:
        sock.close()
        raise OSError(exc.errno, f"cannot listen on {uri}: {exc.strerror}") from None
    return WyomingListener(uri=uri, path=path, sock=sock)


def _answers(path: str) -> bool:
    """Whether a server accepts connections on the Unix socket ``path``."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(path)
        except OSError:
            return False
    return True
