"""A field server on uvicorn in a thread, on a free port of 127.0.0.1, as `survey field` serves it: for tests that
talk to it over HTTP (a browser)."""

import threading

import uvicorn

from survey.field.server import bound_port, uvicorn_server


class _Server(uvicorn.Server):
    """uvicorn's Server that says when it listens (an event, not a polled flag)."""

    def __init__(self, config):
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets=None):
        await super().startup(sockets)
        self.ready.set()


class Live:
    """``with Live(field_server(...)) as live: live.base`` is the questionnaire's address."""

    def __init__(self, fs):
        self.fs = fs
        self.server = _Server(uvicorn_server(fs, "127.0.0.1", 0).config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        while not self.server.ready.wait(1):
            assert self.thread.is_alive(), "the field server did not start"
        self.base = f"http://127.0.0.1:{bound_port(self.server)}"
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join()
