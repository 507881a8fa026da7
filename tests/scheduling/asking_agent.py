"""A command agent for the end-to-end tests (`command:python tests/scheduling/asking_agent.py`):
it binds to its episode, asks the user `--questions N` questions and, with `--wrong-tool`,
first calls a tool the service does not have. It books nothing: its runs fail, and the report
says how much it asked and where it first went wrong."""

from __future__ import annotations

import http.cookiejar
import json
import sys
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit


def main() -> None:
    args = sys.argv[1:]
    questions = int(args[args.index("--questions") + 1]) if "--questions" in args else 0
    given = json.load(sys.stdin)
    start = given["start_urls"]["scheduling"]
    base = "{0.scheme}://{0.netloc}".format(urlsplit(start))
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    opener.open(start, timeout=30).read()

    def call(tool: str, **arguments: object) -> dict[str, Any]:
        body = json.dumps({"arguments": arguments}).encode()
        request = urllib.request.Request(
            f"{base}/tools/{tool}", body, {"Content-Type": "application/json"}
        )
        try:
            with opener.open(request, timeout=30) as answer:
                found: dict[str, Any] = json.load(answer)
        except urllib.error.HTTPError as refused:  # an unknown tool answers 404, with JSON
            found = json.load(refused)
        return found

    if "--wrong-tool" in args:
        call("book_appointment", slot_id="SL-PR02-0304-1130")
    for n in range(questions):
        call("message_user", text=f"Question {n + 1}: which day suits you best?")
    print(json.dumps({"claim": "gave_up", "message": "I did not book anything."}))


if __name__ == "__main__":
    main()
