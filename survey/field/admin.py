"""The researcher's page (/admin) and the exports, guarded by the token printed once when the server
started. The token is compared in constant time, is never stored or logged, and is sent as
``Authorization: Bearer TOKEN`` or as the HttpOnly cookie the login form sets (never in a URL, where access
logs and browser histories would keep it)."""

from __future__ import annotations

import hmac
import io
import json
import statistics

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from survey.data.fielded import expanded
from survey.field.app import NO_STORE, Respondents, read_form

ADMIN_COOKIE = "survey_field_admin"
RECENT = 20  # answers listed on the page


class Admin:
    def __init__(self, respondents: Respondents, token: str):
        self.r, self.token = respondents, token

    def routes(self) -> list[Route]:
        return [Route("/admin", self.page, methods=["GET"]), Route("/admin/login", self.login, methods=["POST"]),
                Route("/admin/export.csv", self.export_csv, methods=["GET"]),
                Route("/admin/export.parquet", self.export_parquet, methods=["GET"])]

    def authorised(self, request: Request) -> bool:
        given = request.cookies.get(ADMIN_COOKIE, "")
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            given = header[7:].strip()
        return bool(given) and hmac.compare_digest(given.encode(), self.token.encode())

    def guard(self, request: Request) -> None:
        if not self.authorised(request):
            raise HTTPException(401, "The admin token is missing or wrong.")

    async def login(self, request: Request) -> Response:
        form = await read_form(request, self.r.body_limit, allowed={"token"})
        given = form.get("token", "")
        if not (given and hmac.compare_digest(given.encode(), self.token.encode())):
            return self.r.page("admin_login.html.j2", "Researcher's page", 401,
                               errors=["That is not the token the server printed."])
        resp = RedirectResponse("/admin", status_code=303, headers=NO_STORE)
        resp.set_cookie(ADMIN_COOKIE, given, httponly=True, samesite="strict", secure=request.url.scheme == "https",
                        path="/admin")
        return resp

    async def page(self, request: Request) -> Response:
        if not self.authorised(request):
            return self.r.page("admin_login.html.j2", "Researcher's page", 401)
        return self.r.page("admin.html.j2", "Researcher's page", s=self.summary())

    def summary(self) -> dict:
        """What the page shows, as data (tests and scripts read the same numbers)."""
        store, inst = self.r.store, self.r.inst
        counts = store.counters()
        rows = store.answers()
        people = rows.drop_duplicates("respondent") if len(rows) else rows
        seconds = [float(s) for s in people["seconds"]] if len(people) else []
        conditions = [{"condition": c, "assigned": counts["assigned"].get(c, 0), "complete": counts["complete"].get(c, 0)}
                      for c in inst.conditions]
        recent = [{"respondent": r.respondent, "question": r.question, "message": r.message,
                   "answer": r.answer_text if r.answer_text is not None else r.answer,
                   "attributes": ", ".join(f"{k}: {v}" for k, v in json.loads(r.attributes or "{}").items())}
                  for r in rows.tail(RECENT).itertuples()]
        quotas = self.r.quotas.table(store.completed_attributes()) if self.r.quotas is not None else []
        return {"completes": counts["status"].get("complete", 0), "limit": self.r.limit,
                "in_progress": counts["status"].get("started", 0), "quota_full": counts["status"].get("quota_full", 0),
                "median_time": _duration(statistics.median(seconds)) if seconds else "none yet",
                "attention_failed": int((people["attention_ok"] == 0).sum()) if len(people) else 0,
                "conditions": conditions, "quotas": quotas, "recent": recent}

    def table(self):
        return expanded(self.r.store.answers())

    async def export_csv(self, request: Request) -> Response:
        self.guard(request)
        return Response(self.table().to_csv(index=False), media_type="text/csv",
                        headers={**NO_STORE, "Content-Disposition": f'attachment; filename="{self.r.inst.study.name}-fielded.csv"'})

    async def export_parquet(self, request: Request) -> Response:
        self.guard(request)
        buf = io.BytesIO()
        self.table().to_parquet(buf, index=False)
        return Response(buf.getvalue(), media_type="application/vnd.apache.parquet",
                        headers={**NO_STORE, "Content-Disposition": f'attachment; filename="{self.r.inst.study.name}-fielded.parquet"'})


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"
