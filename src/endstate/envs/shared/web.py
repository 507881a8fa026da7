"""The page layer every system shares: session binding, nonces, page-view events, errors.

A handler receives a `Ctx` only once the request is bound to a live episode; a POST reaches
it only with a valid single-use nonce from a page this session rendered, and only at a path
one of that page's POST forms targets (so the nonce of referral A's page cannot write a note
on referral B). Anything else is answered here (401 without a session, 400 + a rejected
event without a fitting nonce, a logged 500 page on a server error) so the handlers stay
about their own page.
"""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import jinja2
from markupsafe import Markup
from starlette.datastructures import FormData
from starlette.formparsers import MultiPartParser
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from endstate.envs.suite.cookies import cookie_name
from endstate.envs.suite.database import EpisodeClosed, EpisodeDB, full
from endstate.envs.suite.descriptors import DescriptorsExhausted
from endstate.envs.suite.registry import systems
from endstate.envs.suite.runtime import Episode, Runtime, Session
from endstate.envs.world import catalog, mdy
from endstate.envs.world.subscriber import subscriber_text

PAGES = Path(__file__).parent / "pages"  # shared by every system: base, macros, messages
STATIC = Path(__file__).parent / "static"
MAX_UPLOAD = 5 * 1024 * 1024

Handler = Callable[["Ctx"], Awaitable[Response]]


def make_env(testids: bool) -> jinja2.Environment:
    # Shared pages, then each system's own pages under its name (`<system>/<page>.html`).
    # The pages ship with the code: each is compiled once, never stat'ed again per render.
    own = {n: jinja2.FileSystemLoader(s.pages) for n, s in systems().items() if s.pages}
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(PAGES), jinja2.PrefixLoader(own)]),
        auto_reload=False,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )

    def tid(name: str) -> Markup:
        return Markup(' data-testid="{}"').format(name) if testids else Markup("")

    env.globals["tid"] = tid
    env.globals["note_categories"] = catalog.NOTE_CATEGORIES
    env.filters["mdy"] = lambda v: mdy(v) if v else ""
    env.filters["money"] = lambda v: f"${v:,.2f}"
    env.filters["subscriber"] = subscriber_text
    return env


# Only the tags that decide where a form posts, each matched whole (a quoted value may hold
# '>'), and their attributes: 0.03-0.3 ms a page where an HTMLParser pass takes 1-2.5 ms.
_FORM_TAG = re.compile(
    r"""<(/?)(form|button|input)\b((?:[^>"']|"[^"]*"|'[^']*')*)>""", re.IGNORECASE
)
_SUBMIT = re.compile(r"submit|image", re.IGNORECASE)
_ATTR = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")


def _attrs(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for m in _ATTR.finditer(text):
        value = next((v for v in m.group(2, 3, 4) if v is not None), "")
        found.setdefault(m.group(1).lower(), html.unescape(value))  # the first one counts
    return found


def post_targets(page_html: str, page: str) -> frozenset[str]:
    """The request paths a page's POST submissions go to: each POST form's action (none: the
    page's own path), and the `formaction` of a submit button that posts."""
    targets: set[str] = set()

    def add(action: str) -> None:
        url = urlsplit(urljoin(page, action))
        if not url.scheme and not url.netloc:  # another origin has its own sessions
            targets.add(unquote(url.path))

    form: tuple[str, str] | None = None  # (method, action) of the open form
    for closing, name, rest in _FORM_TAG.findall(page_html):
        tag = name.lower()
        if closing:
            form = None if tag == "form" else form
            continue
        if tag == "form":
            a = _attrs(rest)
            form = (a.get("method", "").strip().lower() or "get", a.get("action", ""))
            if form[0] == "post":
                add(form[1])
            continue
        if form is None or (tag == "input" and not _SUBMIT.search(rest)):
            continue  # (most inputs: no need to read their attributes)
        a = _attrs(rest)
        kind = a.get("type", "submit" if tag == "button" else "text").strip().lower()
        if kind not in ("submit", "image"):
            continue
        # A submit button may override its form's method and action.
        if (a.get("formmethod", "").strip().lower() or form[0]) == "post":
            add(a["formaction"] if "formaction" in a else form[1])
    return frozenset(targets)


class _PartsInMemory(MultiPartParser):
    """Starlette's multipart parser with files kept in memory: spooled to a temporary file,
    an upload would land on the host's disk, outside every episode's bounds. Admission has
    already bounded the whole body (envs/suite/admission.py), so memory is bounded too."""

    spool_max_size = sys.maxsize


async def read_form(request: Request, max_files: int = 10, max_fields: int = 200) -> FormData:
    """A POSTed form, urlencoded or multipart, with any files held in memory."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "multipart/form-data":
        return await request.form(max_files=max_files, max_fields=max_fields)
    parser = _PartsInMemory(
        request.headers, request.stream(), max_files=max_files, max_fields=max_fields
    )
    return await parser.parse()


def runtime_of(request: Request) -> Runtime:
    rt: Runtime = request.app.state.runtime
    return rt


def page_of(request: Request) -> str:
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


@dataclass
class Ctx:
    request: Request
    runtime: Runtime
    system: str
    session: Session
    episode: Episode
    form: FormData | None = None

    @property
    def db(self) -> EpisodeDB:
        return self.episode.db

    @property
    def page(self) -> str:
        return page_of(self.request)

    def event(self, kind: str, detail: dict[str, Any], accepted: bool = True) -> None:
        self.db.event(
            system=self.system, page=self.page, kind=kind, detail=detail, accepted=accepted
        )

    def field(self, name: str, *, strip: bool = True) -> str:
        """A text field of the submitted form ('' when absent or not text)."""
        assert self.form is not None
        value = self.form.get(name)
        if not isinstance(value, str):
            return ""
        return value.strip() if strip else value

    def not_found(self, title: str, message: str, detail: dict[str, Any]) -> HTMLResponse:
        """A 404 page for a record that does not exist; the probe itself is an event."""
        self.event("page.not_found", detail, accepted=False)
        return self.render("message.html", status=404, view=False, title=title, message=message)

    def render(
        self, template: str, *, status: int = 200, view: bool = True, **values: Any
    ) -> HTMLResponse:
        """Render a page with a fresh nonce; a GET is recorded as a page view."""
        if view and self.request.method == "GET":
            self.event("page.view", {"template": template})
        env: jinja2.Environment = self.request.app.state.env
        nonce = self.session.issue_nonce(self.page)
        html = env.get_template(template).render(
            nonce=nonce, user=self.session.user, system=self.system, **values
        )
        # The nonce vouches only for the forms this HTML shows (known once it is rendered).
        self.session.bind_nonce(nonce, post_targets(html, self.page))
        return HTMLResponse(html, status_code=status)


def redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def plain_page(request: Request, status: int, title: str, message: str) -> HTMLResponse:
    env: jinja2.Environment = request.app.state.env
    html = env.get_template("message.html").render(
        title=title, message=message, system=request.app.state.system
    )
    return HTMLResponse(html, status_code=status)


def endpoint(
    system: str, *, login: bool = False
) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Wrap a handler with session binding, the nonce gate, the login gate and error capture."""

    def wrap(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            rt = runtime_of(request)
            session = rt.session(system, request.cookies.get(cookie_name(system)))
            if session is None:
                return plain_page(
                    request,
                    401,
                    "No active session",
                    "This browser is not bound to an episode. Open the start URL you were given.",
                )
            episode = rt.episodes[session.episode_id]
            try:
                # The lease spans the whole request, awaits included: closing the episode
                # waits for it, so a write is never cut off half way.
                with episode.db.lease():
                    return await _serve(Ctx(request, rt, system, session, episode), handler, login)
            except EpisodeClosed:
                return closed_page(request)
            except DescriptorsExhausted:
                return busy_page(request)

        run.__name__ = handler.__name__
        return run

    return wrap


async def _serve(ctx: Ctx, handler: Handler, login: bool) -> Response:
    """The nonce gate, the login gate and error capture around one page handler."""
    request, session = ctx.request, ctx.session
    if request.method == "POST":
        try:
            form = await read_form(request)
        except ClientDisconnect:  # gone, or cut at the body bound (admission recorded that)
            return plain_page(request, 400, "Request rejected", "The form did not arrive whole.")
        except Exception as exc:  # malformed body: rejected like a missing nonce
            ctx.event(
                "request.rejected", {"reason": f"unreadable form: {type(exc).__name__}"}, False
            )
            return plain_page(request, 400, "Request rejected", "The form could not be read.")
        raw = form.get("_nonce")
        issued = session.take_nonce(raw if isinstance(raw, str) else None)
        reason = None
        if issued is None:
            reason = "missing or invalid nonce"
        elif request.url.path not in issued.targets:  # spent all the same
            reason = "nonce was issued for another form"
        if reason is not None:
            detail: dict[str, Any] = {
                "reason": reason,
                "fields": sorted(set(form.keys()) - {"_nonce"}),
            }
            if issued is not None:
                detail["issued_by"] = issued.page
            ctx.event("request.rejected", detail, accepted=False)
            return plain_page(
                request,
                400,
                "Request rejected",
                "This form has expired or did not come from a page of this site. "
                "Go back, reload the page and try again.",
            )
        ctx.form = form
    if login and session.user is None:
        if request.method == "GET":
            return redirect("/login?next=" + request.url.path)
        ctx.event("request.rejected", {"reason": "not logged in"}, accepted=False)
        return plain_page(request, 401, "Please log in", "Your session is not logged in.")
    try:
        return await handler(ctx)
    except (EpisodeClosed, DescriptorsExhausted):
        raise  # nothing to record it in, or no way to: the caller answers
    except Exception as exc:
        ctx.db.rollback_open()
        if full(exc):  # the episode's storage bound (or the host's disk)
            ctx.db.storage_full = True
            return plain_page(
                request, 507, "Storage full", "This record cannot take more. Nothing was saved."
            )
        ctx.event(
            "server.error", {"error": type(exc).__name__, "method": request.method}, accepted=False
        )
        return plain_page(
            request,
            500,
            "Something went wrong",
            "The page could not be completed. Nothing was saved.",
        )


def closed_page(request: Request) -> HTMLResponse:
    """What a request for an episode closed under it gets: a clean 410, never a 500."""
    return plain_page(request, 410, "Episode closed", "This episode has ended. Nothing was saved.")


def busy_page(request: Request) -> HTMLResponse:
    """Out of file descriptors: a 503 the browser may retry, never a 500."""
    return plain_page(request, 503, "Busy", "The server is at capacity. Try again in a moment.")


def start_endpoint(system: str, home: str) -> Callable[[Request], Awaitable[Response]]:
    """The start URL: binds this browser to the episode with an HttpOnly cookie."""

    async def start(request: Request) -> Response:
        rt = runtime_of(request)
        current = rt.session(system, request.cookies.get(cookie_name(system)))
        session = rt.start_session(system, request.query_params.get("t", ""), current)
        if session is None:
            return plain_page(request, 404, "Link not valid", "This start link is not valid.")
        db = rt.episodes[session.episode_id].db
        try:
            with db.lease():  # the token is a secret: not in the record
                db.event(system=system, page=request.url.path, kind="session.start", detail={})
        except EpisodeClosed:
            return closed_page(request)
        except DescriptorsExhausted:
            return busy_page(request)
        wanted = request.query_params.get("next", "")
        local = wanted.startswith("/") and not wanted.startswith("//") and "\\" not in wanted
        response = redirect(wanted if local else home)
        response.set_cookie(cookie_name(system), session.sid, httponly=True, samesite="lax")
        return response

    return start
