"""The viewer's web app: a run's attempts, one attempt step by step, the run's files.

Read-only by construction: every route is GET (HEAD), nothing writes to the run directory,
and files are served only from inside it (resolved first, so `..` and symbolic links out are
refused with 404 like any missing file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route

from endstate.boundary import boundary_weakenings
from endstate.errors import EndstateError
from endstate.runs.viewer.guard import Guard
from endstate.runs.viewer.instruction import Instructions
from endstate.runs.viewer.pages import ASSETS, asset, render
from endstate.runs.viewer.run_data import STATUSES, RunData, inside, load_run, trace_dir
from endstate.runs.viewer.trace import read_trace

INLINE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".json": "application/json",
    ".jsonl": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".log": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
}


class Viewer:
    """The routes over one run directory."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._instructions: Instructions | None = None

    def run(self) -> RunData:
        data = load_run(self.root)
        if self._instructions is None:
            self._instructions = Instructions(data.manifest)
        return data

    def run_page(self, request: Request) -> Response:
        data = self.run()
        status = request.query_params.get("status")
        shown = status if status in STATUSES else None
        rows = [r for r in data.rows if shown is None or r.record.status == shown]
        weakenings = boundary_weakenings(data.manifest, [r.record for r in data.rows])
        return _page("run.html.j2", data=data, rows=rows, status=shown, weakenings=weakenings)

    def attempt_page(self, request: Request) -> Response:
        data = self.run()
        task_id, attempt = request.path_params["task_id"], request.path_params["attempt"]
        found = data.find(task_id, attempt)
        if found is None:
            message = f"task {task_id!r} attempt {attempt!r} is not scheduled by this run"
            return _page("error.html.j2", status_code=404, data=data, message=message)
        index, row = found
        folder = trace_dir(self.root, task_id, attempt)
        assert self._instructions is not None
        return _page(
            "attempt.html.j2",
            data=data,
            row=row,
            record=row.record,
            facts=_facts(row.record.facts),
            previous=data.rows[index - 1] if index > 0 else None,
            following=data.rows[index + 1] if index + 1 < len(data.rows) else None,
            instruction=self._instructions.get(task_id),
            trace=read_trace(self.root, folder) if folder is not None else None,
            no_trace=None if folder is not None else _why_no_trace(row.record.error),
            weakenings=boundary_weakenings(data.manifest, [row.record]),
        )

    def file(self, request: Request) -> Response:
        path = inside(self.root, *request.path_params["path"].split("/"))
        if path is None or not path.is_file():
            raise HTTPException(404)
        media = INLINE_TYPES.get(path.suffix.lower())
        if media is None:
            return FileResponse(path, media_type="application/octet-stream", filename=path.name)
        return FileResponse(path, media_type=media)

    def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        body = asset(name)
        if body is None:
            raise HTTPException(404)
        return Response(body, media_type=ASSETS[name])


def _page(name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(render(name, **context), status_code=status_code)


def _facts(facts: Any) -> dict[str, Any]:
    """The attempt's facts worth a row each: set, and not already shown elsewhere."""
    if facts is None:
        return {}
    skip = {"claim", "final_message", "agent_error", "sandbox"}
    return {k: v for k, v in facts.model_dump().items() if v is not None and k not in skip}


def _why_no_trace(error: str | None) -> str:
    if error:
        return error
    return "the run directory holds no trace folder for this attempt"


def _error_page(request: Request, exc: Exception) -> Response:
    """A run that cannot be read (a malformed record, a missing manifest): one clear reason."""
    return _page("error.html.j2", status_code=500, data=None, message=str(exc))


def make_app(root: Path) -> Starlette:
    viewer = Viewer(root)
    app = Starlette(
        routes=[
            Route("/", viewer.run_page),
            Route("/attempts/{task_id}/{attempt}", viewer.attempt_page),
            Route("/files/{path:path}", viewer.file),
            Route("/static/{name}", viewer.static),
        ],
        exception_handlers={EndstateError: _error_page},
    )
    app.add_middleware(Guard)
    return app
