"""A fake server's restarts: ``go_down()`` takes it off the network (new connections are refused, requests on
connections opened before are dropped) and ``come_back()`` listens again on the same port; ``down_after = n``
(set on the server) takes it down by itself once it has answered n chat requests (fakes.common)."""

from __future__ import annotations

import asyncio

from aiohttp import web


class Restarts:
    """Mixed into FakeServer, which owns ``down``, ``restarts``, ``port``, ``_site``, ``_runner`` and ``_loop``."""

    @web.middleware
    async def _while_down(self, request: web.Request, handler):
        if self.down:  # a request on a connection opened before the restart: dropped
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError
        return await handler(request)

    def _go_down_soon(self) -> None:
        self.down = True  # from now on every request on an open connection is dropped
        asyncio.get_running_loop().create_task(self._close_site())

    async def _close_site(self) -> None:
        site, self._site = self._site, None
        if site is not None:
            await site.stop()  # the port refuses new connections
        self.restarts += 1

    async def _open_site(self) -> None:
        if self._site is not None:  # already listening
            self.down = False
            return
        site = web.TCPSite(self._runner, "127.0.0.1", self.port, backlog=1024)
        await site.start()
        self._site = site
        self.down = False

    def go_down(self) -> None:
        """Take the server off the network (called from the test's thread); ``come_back()`` restarts it."""
        self.down = True
        asyncio.run_coroutine_threadsafe(self._close_site(), self._loop).result(15)

    def come_back(self) -> None:
        """Listen again on the same port (a restarted server): from the test's thread, returns once it listens."""
        asyncio.run_coroutine_threadsafe(self._open_site(), self._loop).result(15)
