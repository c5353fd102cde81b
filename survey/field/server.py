"""The field server: the study's questionnaire (survey.field.app) and researcher's page (survey.field.admin)
on uvicorn. Access logs name the method, the path and the status only: a query string (respondent ids) or
a token never reaches a log."""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path

from survey.errors import SurveyError

log = logging.getLogger("survey.field.access")


@dataclass
class FieldServer:
    """One study's fielding, ready to serve: ``app`` (ASGI), the admin ``token``, the ``store`` it writes."""

    app: object
    token: str
    store: object
    instrument: object
    respondents: object
    admin: object

    def close(self) -> None:
        self.store.close()


def field_server(study, *, respondents: int | None = None, quota_from=None, admin_token: str | None = None,
                 body_limit: int | None = None, rng=None) -> FieldServer:
    """Build the app of ``study`` (a study file's path or a StudySpec): its sets loaded and checked, its store
    opened, its quotas read. Nothing is served yet (``field`` serves)."""
    from survey.field.admin import Admin
    from survey.field.app import BODY_LIMIT, Respondents, make_app
    from survey.field.instrument import Instrument
    from survey.field.quotas import Quotas
    from survey.field.storage import FieldStore
    from survey.study.spec import StudySpec, load_study

    spec = study if isinstance(study, StudySpec) else load_study(study)
    limit = respondents if respondents is not None else (spec.field.respondents if spec.field else None)
    if limit is not None and limit < 1:
        raise SurveyError(f"respondents must be at least 1; got {limit}")
    inst = Instrument.of(spec)
    quotas = None
    if quota_from is not None:
        if limit is None:
            raise SurveyError("quotas are shares of a number of respondents: give --respondents N (or [field] "
                              "respondents = N in the study file)")
        if not Path(quota_from).exists():
            raise SurveyError(f"{quota_from}: no such target-margins file")
        quotas = Quotas.from_target(quota_from, limit, inst.demographics)
    store = FieldStore(spec.store_path, spec.name)
    token = admin_token or secrets.token_urlsafe(32)
    people = Respondents(inst, store, respondents=limit, quotas=quotas, body_limit=body_limit or BODY_LIMIT, rng=rng)
    admin = Admin(people, token)
    return FieldServer(AccessLog(make_app(people, admin)), token, store, inst, people, admin)


# Every response: nothing loaded from elsewhere, no framing, forms posted only here, no referrer (a link's
# query string holds the respondent's id).
SECURITY_HEADERS = [(b"content-security-policy", b"default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; "
                                                 b"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
                    (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY")]


class AccessLog:
    """ASGI middleware: one line per request, method, path (no query string) and status; the security headers
    added to every response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        status = {}

        async def sending(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            log.info("%s %s %s", scope["method"], scope["path"], status.get("code", "-"))


def uvicorn_server(fs: FieldServer, host: str, port: int):
    """A uvicorn Server for ``fs``: its own access log off (it would print query strings), ours on."""
    import uvicorn

    config = uvicorn.Config(fs.app, host=host, port=port, access_log=False, log_level="warning",
                            server_header=False, timeout_keep_alive=5, lifespan="off")
    return uvicorn.Server(config)


def bound_port(server) -> int:
    return server.servers[0].sockets[0].getsockname()[1]


def check_bindable(host: str, port: int) -> None:
    """Refuse in one line a host this machine cannot serve on, or a port another program holds."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise SurveyError(f"--host {host}: not an address to serve on ({exc}); 127.0.0.1 serves this machine, "
                          "0.0.0.0 every interface") from None
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind(address)
        except OSError as exc:
            raise SurveyError(f"cannot serve on {host}:{port}: {exc.strerror or exc}; another program may hold the "
                              "port: give --port another number (or 0 for a free one)") from None


def field(study, *, host: str = "127.0.0.1", port: int = 8000, respondents: int | None = None, quota_from=None,
          echo=print) -> None:
    """Serve ``study`` to people until interrupted (Ctrl-C). The researcher's page's token is shown once, by
    ``echo``, and kept nowhere else."""
    check_bindable(host, port)  # else uvicorn exits with a traceback (a port in use, a host name that resolves nowhere)
    fs = field_server(study, respondents=respondents, quota_from=quota_from)
    server = uvicorn_server(fs, host, port)

    async def serve():
        task = asyncio.create_task(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.05)
        if server.started:
            echo(started_lines(fs, host, bound_port(server)))
        await task

    try:
        asyncio.run(serve())
    except SystemExit as exc:  # uvicorn's own exit when it cannot start (the port taken since the check)
        if server.started:
            raise
        raise SurveyError(f"the questionnaire could not start on {host}:{port}: give --port another number "
                          "(or 0 for a free one)") from exc
    except KeyboardInterrupt:  # uvicorn stopped cleanly on Ctrl-C, then raised it again: a normal end here
        pass
    finally:
        fs.close()


def started_lines(fs: FieldServer, host: str, port: int) -> dict:
    base = f"http://{host}:{port}"
    return {"study": fs.instrument.study.name, "url": f"{base}/", "admin": f"{base}/admin", "token": fs.token,
            "store": str(fs.instrument.study.store_path), "port": port,
            "prolific_link": f"{base}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"
                             f"&SESSION_ID={{{{%SESSION_ID%}}}}"}
