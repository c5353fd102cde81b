"""The respondent's path as a Starlette app: consent -> about you -> the questions and the attention check ->
the completion code. Every page after the consent is bound to the respondent's session cookie (an
unguessable token; the store keeps only its sha256), so a respondent sees and posts only their own form.

Posts are read here, not by a form library: the body is capped (413 beyond ``body_limit``), must be
URL-encoded UTF-8 (else 400/415), and may hold only the fields the server's own form has (else 400: a
tampered form). The condition is never posted: the server assigned it and keeps it.
"""

from __future__ import annotations

import random
import re
import secrets
from pathlib import Path
from urllib.parse import parse_qsl

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from survey.common.names import NAME_RE
from survey.field.instrument import Instrument, TamperedForm
from survey.field.storage import FieldStore, Session
from survey.field.widgets import widget_for

PANEL_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "rid")
SESSION_COOKIE = "survey_field"
BODY_LIMIT = 64 * 1024  # bytes of one post: a full form of free-text answers fits many times over
TEMPLATES = Path(__file__).parent / "templates"
INPUT_NAME = re.compile(r'<(?:input|select|textarea)\b[^>]*?\bname="([^"]+)"')


def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                              undefined=jinja2.StrictUndefined)


class Respondents:
    """The respondent routes of one study's fielding."""

    def __init__(self, instrument: Instrument, store: FieldStore, *, respondents: int | None = None, quotas=None,
                 body_limit: int = BODY_LIMIT, rng: random.Random | None = None):
        self.inst, self.store, self.limit, self.quotas = instrument, store, respondents, quotas
        self.body_limit, self.rng = body_limit, rng or random.SystemRandom()
        self.fspec = instrument.study.field
        self.env = environment()
        self.title = (self.fspec.title if self.fspec and self.fspec.title else instrument.study.name)

    def routes(self) -> list[Route]:
        return [Route("/", self.consent, methods=["GET"]), Route("/start", self.start, methods=["POST"]),
                Route("/about", self.about, methods=["GET", "POST"]),
                Route("/questions", self.questions, methods=["GET", "POST"]),
                Route("/done", self.done, methods=["GET"])]

    # -- pages ---------------------------------------------------------------------------------

    def page(self, name: str, page_title: str, status: int = 200, **ctx) -> HTMLResponse:
        html = self.env.get_template(name).render(title=self.title, page_title=page_title,
                                                  errors=ctx.pop("errors", None), **ctx)
        return HTMLResponse(html, status_code=status, headers=NO_STORE)

    def message(self, page: str, title: str, text: str, status: int = 200) -> HTMLResponse:
        return self.page("message.html.j2", title, status, page=page, text=text, link=None, link_text="")

    def quota_page(self) -> HTMLResponse:
        return self.message("quota-full", "Quota full", "Thank you for your interest. We already have enough answers "
                            "from people like you, so this survey is closed for you. You may return to the panel.")

    # -- routes --------------------------------------------------------------------------------

    async def consent(self, request: Request) -> Response:
        panel = panel_ids(request.query_params)
        return self.page("consent.html.j2", "About this survey", consent=self.consent_text, panel=panel)

    @property
    def consent_text(self) -> str:
        from survey.study.field_spec import DEFAULT_CONSENT

        return self.fspec.consent if self.fspec else DEFAULT_CONSENT

    async def start(self, request: Request) -> Response:
        form = await read_form(request, self.body_limit, allowed={"consent", *PANEL_PARAMS})
        panel = panel_ids(form)
        if form.get("consent") != "yes":
            return self.page("consent.html.j2", "About this survey", 422, consent=self.consent_text, panel=panel,
                             errors=["Please tick the box to agree, or close this page if you do not."])
        respondent = panel.get("PROLIFIC_PID") or panel.get("rid") or f"anon-{secrets.token_hex(8)}"
        mine = self.store.session(request.cookies.get(SESSION_COOKIE))
        if mine is not None and mine.respondent == respondent:
            return redirect("done" if mine.status == "complete" else "about")
        token = secrets.token_urlsafe(32)
        outcome = self.store.start(token, respondent, panel, self.inst.least_used, self._pick, self.limit)
        if outcome == "answered":
            return self.message("answered", "Already answered", "You have already answered this survey: each "
                                "person answers once. Thank you!", 409)
        if outcome == "started":
            return self.message("started-elsewhere", "Already started", "This survey was already started with "
                                "your id, in another browser. Please continue there.", 409)
        if outcome == "full":
            return self.quota_page()
        resp = redirect("about")
        resp.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="lax", path="/",
                        secure=request.url.scheme == "https")  # behind a TLS proxy (X-Forwarded-Proto)
        return resp

    def _pick(self, tied: list[str]) -> tuple[str, dict]:
        condition = self.rng.choice(tied)
        return condition, self.inst.assignment(condition, self.rng)

    def _session(self, request: Request) -> Session:
        session = self.store.session(request.cookies.get(SESSION_COOKIE))
        if session is None:
            raise HTTPException(403, "No survey session: please open the link the panel gave you.")
        return session

    async def about(self, request: Request) -> Response:
        session = self._session(request)
        if session.status != "started":
            return redirect("done") if session.status == "complete" else self.quota_page()
        demos = self.inst.demographics
        if request.method == "GET":
            return self.page("about.html.j2", "About you", demographics=demos, values={})
        form = await read_form(request, self.body_limit, allowed={f"demo-{d.name}" for d in demos})
        attributes, errors = {}, []
        for d in demos:
            try:
                attributes[d.name] = d.read(form.get(f"demo-{d.name}"))
            except ValueError as exc:
                errors.append(str(exc))
        if errors:
            return self.page("about.html.j2", "About you", 422, demographics=demos, values=form, errors=errors)
        if self.quotas is not None and self.quotas.closed_for(attributes, self.store.completed_attributes()):
            self.store.quota_full(session)
            return self.quota_page()
        self.store.save_attributes(session, attributes)
        return redirect("questions")

    async def questions(self, request: Request) -> Response:
        session = self._session(request)
        if session.status != "started":
            return redirect("done") if session.status == "complete" else self.quota_page()
        if session.attributes is None:
            return redirect("about")
        items = self.inst.items(session.assignment)
        if request.method == "GET":
            return self.form_page(items, {}, [], 200)
        form = await read_form(request, self.body_limit, allowed=self.form_fields(items))
        rows, errors = [], []
        for it in items:
            try:
                answer, text = widget_for(it.rtype).read(it, form)
            except LookupError as exc:  # a kind's widget: a value its form does not offer
                raise TamperedForm(str(exc)) from None
            except ValueError as exc:
                errors.append(f"Question {it.n + 1}: {exc}")
                continue
            first = it.options[0]
            rows.append(dict(question=it.question, position=it.position, scale=it.rtype.scale, message=first.message,
                             perturbation=first.perturbation, answer=answer, answer_text=text,
                             shown=None if len(it.options) == 1 else
                             _json([[o.message, o.perturbation] for o in it.options])))
        check = self.attention
        picked = form.get("attention")
        if not picked:
            errors.append("Please answer the last question.")
        elif picked not in check["options"]:
            raise TamperedForm("attention: not an offered answer")
        if errors:
            return self.form_page(items, form, errors, 422)
        cell_full = ((lambda done: self.quotas.closed_for(session.attributes, done) is not None)
                     if self.quotas is not None else (lambda done: False))
        outcome = self.store.complete(session, rows, picked == check["answer"], cell_full, self.limit)
        if outcome == "quota_full":
            return self.quota_page()
        return redirect("done")

    @property
    def attention(self) -> dict:
        from survey.study.field_spec import FieldSpec

        f = self.fspec or FieldSpec()
        return {"question": f.attention_question, "options": f.attention_options, "answer": f.attention_answer}

    def form_page(self, items, values, errors, status) -> HTMLResponse:
        rendered = [(it, self.widget_html(it, values)) for it in items]
        return self.page("questions.html.j2", "Your opinion", status, items=rendered, attention=self.attention,
                         values=values, errors=errors)

    def form_fields(self, items) -> set[str]:
        """The names of the inputs the form of ``items`` has, read from the form as it is rendered (a kind's own
        widget declares nothing else), and the attention check's."""
        return {"attention"}.union(*(INPUT_NAME.findall(self.widget_html(it, {})) for it in items))

    def widget_html(self, item, values) -> str:
        w = widget_for(item.rtype)
        template = self.env.get_template(w.template) if w.template else self.env.from_string(w.source)
        return Markup(template.render(item=item, value=values))  # rendered autoescaped: safe to insert

    async def done(self, request: Request) -> Response:
        session = self._session(request)
        if session.status != "complete":
            return redirect("about") if session.status == "started" else self.quota_page()
        f = self.fspec
        return self.page("done.html.j2", "Thank you", code=f.completion_code if f else None,
                         url=f.completion_url if f else None)


NO_STORE = {"Cache-Control": "no-store"}


def redirect(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303, headers=NO_STORE)


def panel_ids(params) -> dict:
    """The panel's ids from a link or a post; an id that is not letters, digits, '_', '-' or '.' (at most 100)
    is refused (it becomes a key in the store and a persona id)."""
    out = {}
    for key in PANEL_PARAMS:
        value = params.get(key)
        if value is None or value == "":
            continue
        if len(value) > 100 or not NAME_RE.match(value):
            raise HTTPException(400, f"The link's {key} is not a valid id.")
        out[key] = value
    return out


async def read_form(request: Request, limit: int, allowed) -> dict[str, str]:
    """The URL-encoded post, at most ``limit`` bytes, each field once and every field one the form has
    (``allowed``: the names, or a test of a name)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
        raise HTTPException(415, "Please send the form from the survey page.")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise HTTPException(413 if declared.isdigit() else 400, "The form is too large.")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPException(413, "The form is too large.")
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False, max_num_fields=1000)
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(400, "The form could not be read.") from None
    form: dict[str, str] = {}
    for key, value in pairs:
        if key in form or not (allowed(key) if callable(allowed) else key in allowed):
            raise TamperedForm(f"unexpected field {key[:40]!r}")
        form[key] = value
    return form


def _json(obj) -> str:
    import json

    return json.dumps(obj)


def error_handlers(env: jinja2.Environment, title: str) -> dict:
    """Errors as short pages (4xx), never a traceback."""

    def page(status: int, text: str) -> HTMLResponse:
        html = env.get_template("message.html.j2").render(title=title, page_title="Sorry", errors=None,
                                                          page=f"error-{status}", text=text, link=None, link_text="")
        return HTMLResponse(html, status_code=status, headers=NO_STORE)

    async def http_error(request, exc: HTTPException):
        return page(exc.status_code, exc.detail if exc.status_code < 500 else "Something went wrong.")

    async def tampered(request, exc: TamperedForm):
        return page(400, "This form was changed outside the survey page, so it cannot be accepted.")

    return {HTTPException: http_error, TamperedForm: tampered}


def make_app(respondents: Respondents, admin=None) -> Starlette:
    routes = respondents.routes() + (admin.routes() if admin is not None else [])
    return Starlette(routes=routes, exception_handlers=error_handlers(respondents.env, respondents.title))
