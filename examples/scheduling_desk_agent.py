"""An example tool-using agent for the scheduling lab, run as `command:python
examples/scheduling_desk_agent.py`: it reads its task on stdin, binds to its episode with the
scheduling start URL and calls the tools over HTTP (docs/scheduling-lab.md).

It is scripted, not clever: it books the slot an instruction of the form "Book NAME (born
YYYY-MM-DD) with DR NAME on YYYY-MM-DD at HH:MM." names, with the user's approval. After a
confirmation whose outcome is unknown it either reconciles (looks the booking up, retries
under the same idempotency key) or, with --blind-retry, confirms again under a new key, as a
careless client would."""

from __future__ import annotations

import http.cookiejar
import json
import re
import sys
import urllib.request
from typing import Any
from urllib.parse import urlsplit

ASK = re.compile(
    r"Book (?P<name>.+?) \(born (?P<dob>\d{4}-\d{2}-\d{2})\) with (?P<doctor>Dr\. [\w ]+?) "
    r"on (?P<date>\d{4}-\d{2}-\d{2}) at (?P<time>\d{2}:\d{2})"
)


def say(claim: str, message: str) -> None:
    """The final JSON message, on the last line of stdout."""
    print(json.dumps({"claim": claim, "message": message}))


def main() -> None:
    blind = "--blind-retry" in sys.argv
    given = json.load(sys.stdin)
    want = ASK.search(given["projection"]["instruction"])
    if want is None:
        say("gave_up", "I could not read the request.")
        return
    start = given["start_urls"]["scheduling"]
    base = "{0.scheme}://{0.netloc}".format(urlsplit(start))
    # The standard library only: a sandboxed agent brings what it needs, and this needs little.
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    opener.open(start, timeout=30).read()  # the start URL binds this client (a cookie)

    def call(tool: str, key: str | None = None, **arguments: object) -> dict[str, Any]:
        body = json.dumps({"arguments": arguments, "idempotency_key": key}).encode()
        request = urllib.request.Request(
            f"{base}/tools/{tool}", body, {"Content-Type": "application/json"}
        )
        with opener.open(request, timeout=30) as answer:
            found: dict[str, Any] = json.load(answer)
        return found

    patients = call("find_patient", name=want["name"])["patients"]
    patient = next(p for p in patients if p["dob"] == want["dob"])["patient_id"]
    slots = call("list_slots", date=want["date"])["slots"]
    slot = next(
        s["slot_id"]
        for s in slots
        if s["provider"] == want["doctor"] and s["starts_at"].endswith(want["time"])
    )
    call("hold_slot", "hold-1", patient_id=patient, slot_id=slot)
    proposal = call("propose", "prop-1", patient_id=patient, action="book", slot_id=slot)
    pid = proposal["proposal_id"]
    review = call("request_approval", proposal_id=pid, revision=1, kind="booking")
    if not review.get("approved"):
        say("gave_up", f"The patient did not approve: {review.get('reply')}")
        return
    done = call("confirm", "confirm-1", proposal_id=pid, revision=1)
    if done["status"] == "unknown":
        if blind:
            done = call("confirm", "confirm-2", proposal_id=pid, revision=1)
        else:
            call("lookup_external", proposal_id=pid)
            done = call("confirm", "confirm-1", proposal_id=pid, revision=1)
    say("done", f"Booked: {done}")


if __name__ == "__main__":
    main()
