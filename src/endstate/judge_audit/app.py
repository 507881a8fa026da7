"""The labelling page: one sampled item at a time, graded blind, then the judge's verdict.

Blind means the judge's verdict, votes and reason are in no response about an item its
labeller has not yet labelled: the item page gets them from the server only once a label of
theirs is on file (the page has no script and fetches nothing else). Items come in the
sample's shuffled order. Labels are written through POST only, each form carrying this
server's per-session token (a page elsewhere cannot read it, so cannot post a label), and the
viewer's guard keeps the server to loopback hosts with script and framing forbidden.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from endstate.errors import EndstateError
from endstate.judge_audit.items import AuditItem, read_run_checks
from endstate.judge_audit.labels import (
    MAX_COMMENT,
    HumanLabel,
    Label,
    append_label,
    check_name,
    labels_path,
    read_labels,
)
from endstate.judge_audit.pages import ASSETS, asset, render
from endstate.judge_audit.sample import SampledItem, read_sample
from endstate.runs.viewer.guard import Guard, is_loopback

LABELS: dict[str, HumanLabel] = {"pass": "pass", "fail": "fail"}


@dataclass(frozen=True)
class Slot:
    """One position of the sample: the item sampled, and the run's item now if it is the
    same text (None: changed or no longer judged, so it cannot be labelled)."""

    position: int
    sampled: SampledItem
    item: AuditItem | None
    problem: str | None


class Labelling:
    def __init__(self, root: Path, token: str | None = None) -> None:
        self.root = root
        self.token = token or secrets.token_urlsafe(32)
        sample = read_sample(root)
        current = {i.id: i for i in read_run_checks(root).items}
        self.slots: list[Slot] = []
        for n, sampled in enumerate(sample.items, start=1):
            now = current.get(sampled.id)
            problem = None
            if now is None:
                problem = "this check is no longer judged in the run's records"
            elif now.shown != sampled.shown:
                problem = "what the judge read has changed since the sample was drawn"
            self.slots.append(Slot(n, sampled, now if problem is None else None, problem))

    def _name(self, request: Request) -> str:
        try:
            return check_name(request.path_params["name"])
        except EndstateError as exc:
            raise HTTPException(400, str(exc)) from None

    def _mine(self, name: str) -> dict[str, list[Label]]:
        history: dict[str, list[Label]] = {}
        for label in read_labels(labels_path(self.root, name)):
            history.setdefault(label.item, []).append(label)
        return history

    def start(self, request: Request) -> Response:
        name = request.query_params.get("labeller")
        if name is None:
            return _page("start.html.j2", total=len(self.slots), message=None)
        try:
            check_name(name.strip())
        except EndstateError as exc:
            return _page("start.html.j2", 400, total=len(self.slots), message=str(exc))
        return RedirectResponse(f"/label/{quote(name.strip(), safe='')}/next", 303)

    def overview(self, request: Request) -> Response:
        name = self._name(request)
        mine = self._mine(name)
        done = sum(s.sampled.id in mine for s in self.slots)
        return _page("list.html.j2", name=name, slots=self.slots, mine=mine, done=done)

    def next_open(self, request: Request) -> Response:
        name = self._name(request)
        mine = self._mine(name)
        for slot in self.slots:
            if slot.item is not None and slot.sampled.id not in mine:
                return RedirectResponse(f"/label/{quote(name, safe='')}/{slot.position}", 303)
        return RedirectResponse(f"/label/{quote(name, safe='')}/", 303)

    def _slot(self, request: Request) -> Slot:
        position = int(request.path_params["position"])
        if not 1 <= position <= len(self.slots):
            raise HTTPException(404, f"the sample has no item {position}")
        return self.slots[position - 1]

    def item(self, request: Request) -> Response:
        name, slot = self._name(request), self._slot(request)
        history = self._mine(name).get(slot.sampled.id, [])
        context: dict[str, Any] = {
            "name": name,
            "slot": slot,
            "total": len(self.slots),
            "token": self.token,
            "history": history,
            "max_comment": MAX_COMMENT,
            # the judge's verdict only for an item this labeller has labelled
            "judge": _revealed(slot.item) if history and slot.item else None,
        }
        return _page("item.html.j2", **context)

    async def save(self, request: Request) -> Response:
        name, slot = self._name(request), self._slot(request)
        origin = request.headers.get("origin")
        if origin and origin != "null" and not is_loopback(_origin_host(origin)):
            raise HTTPException(403, "labels are accepted only from this page")
        form = await request.form()
        given = form.get("token")
        if not isinstance(given, str) or not secrets.compare_digest(given, self.token):
            raise HTTPException(403, "the form's token is not this server's: reload the page")
        label, comment = LABELS.get(str(form.get("label"))), form.get("comment") or ""
        if label is None or not isinstance(comment, str):
            raise HTTPException(400, "choose pass or fail")
        if slot.item is None:
            raise HTTPException(409, slot.problem or "this item cannot be labelled")
        try:
            append_label(self.root, name, slot.item.id, slot.sampled.shown, label, comment.strip())
        except EndstateError as exc:
            raise HTTPException(400, str(exc)) from None
        return RedirectResponse(f"/label/{quote(name, safe='')}/{slot.position}", 303)

    def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        body = asset(name)
        if body is None:
            raise HTTPException(404)
        return Response(body, media_type=ASSETS[name])


def _revealed(item: AuditItem) -> dict[str, Any]:
    votes = list(item.votes)
    return {"verdict": item.verdict, "votes": votes, "passes": sum(votes)}


def _origin_host(origin: str) -> str:
    return urlsplit(origin).hostname or ""


def _page(template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(render(template, **context), status_code=status_code)


def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _page("error.html.j2", exc.status_code, message=exc.detail)


def _unreadable(request: Request, exc: Exception) -> Response:
    """A labels file gone bad while served (edited by hand): its one-line reason."""
    return _page("error.html.j2", 500, message=str(exc))


def make_app(root: Path, token: str | None = None) -> Starlette:
    """The labelling app over one run's sample (refused at once if there is none)."""
    labelling = Labelling(root, token)
    app = Starlette(
        routes=[
            Route("/", labelling.start),
            Route("/label/{name}/", labelling.overview),
            Route("/label/{name}/next", labelling.next_open),
            Route("/label/{name}/{position:int}", labelling.item, methods=["GET"]),
            Route("/label/{name}/{position:int}", labelling.save, methods=["POST"]),
            Route("/static/{name}", labelling.static),
        ],
        exception_handlers={HTTPException: _http_error, EndstateError: _unreadable},
    )
    app.add_middleware(Guard)
    return app
