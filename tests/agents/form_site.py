"""A small real web app for agent tests: a referral form with the widgets portals use.

Served by uvicorn on 127.0.0.1 in a background thread; the submissions it receives are what
tests assert on, so an action only counts when the server saw its effect.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from html import escape
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

LETTER = "Referral letter for REF-2025-002\n"

LISTBOX_JS = """
document.querySelectorAll("[data-listbox]").forEach(function (root) {
  var button = root.querySelector("button");
  var list = root.querySelector("[role=listbox]");
  var input = root.querySelector("input[type=hidden]");
  button.addEventListener("click", function (e) {
    if (!e.isTrusted) { return; }
    list.hidden = !list.hidden;
    button.setAttribute("aria-expanded", String(!list.hidden));
  });
  list.querySelectorAll("[role=option]").forEach(function (option) {
    option.addEventListener("click", function (e) {
      if (!e.isTrusted) { return; }
      input.value = option.dataset.value;
      button.querySelector(".value").textContent = option.textContent;
      option.setAttribute("aria-selected", "true");
      list.hidden = true;
      button.setAttribute("aria-expanded", "false");
    });
  });
});
// A dropdown as some portals build it: a button opening a column of plain buttons, no roles.
document.getElementById("reason-button").addEventListener("click", function () {
  var menu = document.getElementById("reason-menu");
  menu.hidden = !menu.hidden;
});
document.querySelectorAll("#reason-menu button").forEach(function (entry) {
  entry.addEventListener("click", function () {
    document.getElementById("reason-picked").textContent = "Reason: " + entry.textContent;
    document.getElementById("reason-menu").hidden = true;
  });
});
function pick(ref) { document.getElementById("picked").textContent = "Opened " + ref; }
document.getElementById("load").addEventListener("click", function () {
  setTimeout(function () {
    var p = document.createElement("p");
    p.textContent = "Details loaded";
    document.getElementById("details").appendChild(p);
  }, 400);
});
"""

FORM = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Referral form</title></head>
<body><main>
<h1>Referral form</h1>
<table>
  <tr><td onclick="pick('REF-2025-001 row')">REF-2025-001</td>
      <td><button type="button" onclick="pick('REF-2025-001')">Open</button></td></tr>
  <tr><td onclick="pick('REF-2025-002 row')">REF-2025-002</td>
      <td><button type="button" onclick="pick('REF-2025-002')">Open</button></td></tr>
</table>
<p id="picked" role="status"></p>
<button type="button" id="load">Load details</button>
<div id="details"></div>
<button type="button" hidden>Secret action</button>

<form method="post" action="/form" enctype="multipart/form-data">
  <label for="patient">Patient name</label> <input id="patient" name="patient">
  <label for="date">Service date</label> <input id="date" name="service_date">
  <label for="visit">Visit type</label>
  <select id="visit" name="visit_type">
    <option value="">Choose one</option>
    <option value="new">New patient</option>
    <option value="fu">Follow-up</option>
  </select>
  <div data-listbox>
    <span id="cat-label">Note category</span>
    <input type="hidden" name="category" value="">
    <button type="button" aria-haspopup="listbox" aria-expanded="false"
            aria-controls="cat-list" aria-labelledby="cat-label cat-button" id="cat-button">
      <span class="value">Select…</span></button>
    <ul role="listbox" id="cat-list" aria-labelledby="cat-label" hidden>
      <li role="option" data-value="auth" aria-selected="false">Prior authorization</li>
      <li role="option" data-value="appeal" aria-selected="false">Appeal</li>
      <li role="option" data-value="general" aria-selected="false">General</li>
    </ul>
  </div>
  <input type="checkbox" id="urgent" name="urgent" value="yes"> <label for="urgent">Urgent</label>
  <label for="attachment">Attachment</label> <input type="file" id="attachment" name="attachment">
  <button type="submit">Submit request</button>
</form>
<a href="/files/referral-letter.txt">Download referral letter</a>
<form method="get" action="/search"><label for="q">Search</label> <input id="q" name="q"></form>
<div id="reason">
  <span>Appeal reason</span>
  <button type="button" id="reason-button" aria-label="Appeal reason">Select One ▼</button>
  <div id="reason-menu" hidden>
    <button type="button">Clinical</button> <button type="button">Administrative</button>
  </div>
  <p id="reason-picked"></p>
</div>
</main>
<script>{LISTBOX_JS}</script>
</body></html>
"""


def _page(title: str, body: str) -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><html lang='en'><head><title>{escape(title)}</title></head>"
        f"<body><main>{body}</main></body></html>"
    )


@dataclass
class FormSite:
    submissions: list[dict[str, Any]] = field(default_factory=list)
    server: uvicorn.Server | None = None
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def app(self) -> Starlette:
        async def form(request: Request) -> Response:
            return HTMLResponse(FORM)

        async def submit(request: Request) -> Response:
            data = await request.form()
            upload = data.get("attachment")
            content = await upload.read() if isinstance(upload, UploadFile) else b""
            self.submissions.append(
                {
                    "patient": data.get("patient"),
                    "service_date": data.get("service_date"),
                    "visit_type": data.get("visit_type"),
                    "category": data.get("category"),
                    "urgent": data.get("urgent"),
                    "attachment_name": getattr(upload, "filename", None) or None,
                    "attachment_text": content.decode() if content else None,
                }
            )
            number = f"REQ-{len(self.submissions):04d}"
            return _page(
                "Submitted",
                f"<h1>Request submitted</h1><p role='status'>Confirmation {number}</p>",
            )

        async def search(request: Request) -> Response:
            q = request.query_params.get("q", "")
            return _page("Search", f"<h1>Results for {escape(q)}</h1>")

        async def letter(request: Request) -> Response:
            return PlainTextResponse(
                LETTER,
                headers={"Content-Disposition": 'attachment; filename="referral-letter.txt"'},
            )

        async def other(request: Request) -> Response:
            return _page("Other", "<h1>Other page</h1>")

        return Starlette(
            routes=[
                Route("/form", form),
                Route("/form", submit, methods=["POST"]),
                Route("/search", search),
                Route("/files/referral-letter.txt", letter),
                Route("/other", other),
            ]
        )

    def start(self) -> FormSite:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app(), log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("test web app did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
