"""The Wyoming server (``voice-studio serve --wyoming``): the speech server's voices for Home Assistant.

It listens on a ``tcp://HOST:PORT`` (port 0 picks a free one) or ``unix://PATH`` URI and answers each client with a
``engines.server.wyoming_handler.SpeechHandler`` over the one ``SpeechService`` (the HTTP server's, when both run:
one process, one event loop, one engine pool and one set of workers). The socket is bound before anything runs, so
a taken port is one clear error at start. ``--zeroconf`` announces it as ``_wyoming._tcp`` for Home Assistant's
discovery, as wyoming-piper does (``wyoming.zeroconf``; the ``zeroconf`` package, the ``zeroconf`` extra).

Wyoming has no authentication: anyone who can reach the port can use the voices (as with wyoming-piper).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Callable
from functools import partial

from wyoming.server import AsyncServer

from engines.imports import importing
from engines.server.service import SpeechService
from engines.server.wyoming_handler import SpeechHandler
from engines.server.wyoming_info import service_info
from engines.server.wyoming_listener import WyomingListener


class _BoundServer(AsyncServer):
    """wyoming's server on a socket bound beforehand, TCP or Unix (so port 0 works, and a taken port or path fails
    at start; wyoming's own Unix server would delete whatever file is at its path)."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self.sock = sock
        self._server: asyncio.Server | None = None

    async def run(self, handler_factory) -> None:
        """Accept clients until cancelled (no ``serve_forever``, whose close waits for every client on 3.12)."""
        self._server = await asyncio.start_server(partial(self._handler_callback, handler_factory), sock=self.sock)
        await self._server.start_serving()
        await asyncio.Event().wait()

    async def stop(self) -> None:
        """Stop the clients' handlers and stop listening."""
        await super().stop()
        if self._server is not None:
            self._server.close()


async def run_wyoming(service: SpeechService, listener: WyomingListener, zeroconf: str | None = None) -> None:
    """Serve Wyoming clients on ``listener`` until cancelled; ``zeroconf``: announce under this name."""
    if listener.sock is None:
        raise ValueError(f"{listener.uri}: not bound (engines.server.wyoming_listener.bind binds it)")
    server = _BoundServer(listener.sock)
    info = service_info(service)
    if zeroconf is not None:
        await announce(listener, zeroconf)
    try:
        await server.run(partial(SpeechHandler, service, info))
    finally:
        await server.stop()
        listener.close()


async def announce(listener: WyomingListener, name: str) -> None:
    """Announce ``listener`` over mDNS as ``NAME._wyoming._tcp.local.`` (Home Assistant finds it); an address
    bound to every interface is announced on the one that reaches the network (``wyoming.zeroconf`` finds it).

    Raises:
        ValueError: a ``unix://`` listener (nothing to announce on the network).
    """
    if listener.port is None:
        raise ValueError("--zeroconf needs a tcp:// address for --wyoming")
    with importing("wyoming.zeroconf"):  # the zeroconf extra; checked before the server starts
        from wyoming.zeroconf import HomeAssistantZeroconf

    host = None if listener.host in ("0.0.0.0", "::", "") else listener.host
    await HomeAssistantZeroconf(port=listener.port, name=name, host=host).register_server()


def serve_wyoming(
    service: SpeechService,
    listener: WyomingListener,
    zeroconf: str | None = None,
    on_ready: Callable[[], None] | None = None,
) -> None:
    """Serve Wyoming alone until Ctrl+C or SIGTERM; running syntheses are cancelled then."""

    async def main() -> None:
        task = asyncio.create_task(run_wyoming(service, listener, zeroconf))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows' loops have no signal handlers
                loop.add_signal_handler(sig, task.cancel)
        if on_ready:
            on_ready()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    finally:
        service.cancel_all()
        service.shutdown()
        listener.close()
