"""What one client may cost the suite: bodies, uploads, requests, events, storage, end state.

Each bound is exercised over real HTTP against a suite started with small limits, and shown
to act where the client sees it (413, 429, 507) and where the harness sees it (the episode's
events and the state document's `summary.limits`).
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartParser
from starlette.requests import Request

from endstate.envs import EmbeddedSuite
from endstate.envs.server import GradingRefused
from endstate.envs.shared.web import read_form
from endstate.envs.suite.limits import MIB, SuiteLimits
from endstate.firewall import EpisodeBinding
from endstate.runs.embedded import EmbeddedEnvironment
from endstate.runs.environment import EpisodeHandle, StateUnavailable

from .envs_support import Visitor

SMALL = SuiteLimits(
    request_bytes=64 * 1024,
    upload_request_bytes=3 * MIB,
    requests_per_second=5,
    request_burst=5,
    concurrent_requests=2,
    queued_requests=6,
    max_wait_seconds=20,
    events=40,
    storage_bytes=2 * MIB,
    state_document_bytes=4 * MIB,
)


@pytest.fixture(scope="module")
def small() -> Iterator[EmbeddedSuite]:
    running = EmbeddedSuite.start(limits=SMALL)
    yield running
    running.stop()


def _raw_post(url: str, headers: str, body: bytes) -> tuple[str, int]:
    """Send a POST by hand: the status line the server answered, and the bytes it took."""
    parts = urlsplit(url)
    sent = 0
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(f"POST {parts.path} HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode())
        try:
            for start in range(0, len(body), 65536):
                sock.sendall(body[start : start + 65536])
                sent += len(body[start : start + 65536])
        except OSError:
            pass
        answer = b""
        try:
            while len(answer) < 100 and (got := sock.recv(4096)):
                answer += got
        except OSError:
            pass
    return answer.split(b"\r\n", 1)[0].decode(), sent


def _limits(suite: EmbeddedSuite, episode_id: str) -> dict[str, object]:
    limits: dict[str, object] = suite.state(episode_id)["summary"]["limits"]
    return limits


def test_a_body_over_the_bound_is_refused_from_its_header_and_charged_to_its_episode(
    small: EmbeddedSuite,
) -> None:
    ep = small.open_episode()
    visitor = Visitor(ep.start_urls["ehr"])
    cookie = "; ".join(f"{k}={v}" for k, v in visitor.client.cookies.items())
    status, _ = _raw_post(
        visitor.base + "/worklist",
        f"Cookie: {cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {300 * MIB}\r\n",
        b"",
    )
    assert " 413 " in status
    state = small.state(ep.id)
    [refused] = [e for e in state["events"] if e["kind"] == "request.too_large"]
    assert refused["detail"] == {"bytes": 300 * MIB, "limit": 64 * 1024}
    assert state["summary"]["limits"]["bodies_refused"] == 1
    visitor.close()


def test_a_chunked_body_is_cut_once_it_passes_the_bound(small: EmbeddedSuite) -> None:
    ep = small.open_episode()
    visitor = Visitor(ep.start_urls["ehr"])
    cookie = "; ".join(f"{k}={v}" for k, v in visitor.client.cookies.items())
    piece = b"a" * 16384
    chunk = b"%x\r\n%s\r\n" % (len(piece), piece)
    body = chunk * 64 + b"0\r\n\r\n"  # 1 MiB, sixteen times the bound
    status, _ = _raw_post(
        visitor.base + f"/referrals/{small.world.referrals[0].id}/notes",  # reads its form
        f"Cookie: {cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        "Transfer-Encoding: chunked\r\n",
        body,
    )
    # The answer may be lost to the reset that closing on an unread body causes; the
    # episode's record of it is not.
    assert status == "" or " 413 " in status
    [refused] = [e for e in small.state(ep.id)["events"] if e["kind"] == "request.too_large"]
    # Cut at the first chunk the server read past the bound, long before the whole megabyte
    # (how much one read holds is the socket's business).
    assert 64 * 1024 < refused["detail"]["bytes"] < 512 * 1024
    visitor.close()


def test_systems_have_their_own_body_bounds(small: EmbeddedSuite) -> None:
    assert small.body_limit("ehr") == 64 * 1024
    assert small.body_limit("fax") == 3 * MIB  # its form takes files
    assert small.body_limit("scheduling") == 256 * 1024  # a tool call's own bound
    assert small.limits()["request_bytes_by_system"]["payer_a"] == 3 * MIB


def _multipart(size: int) -> tuple[bytes, str]:
    boundary = "endstate-test"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="attachments"; '
        'filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n'
    ).encode()
    body += os.urandom(size) + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def _request(body: bytes, content_type: str) -> Request:
    sent = False

    async def receive() -> dict[str, object]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/",
        "headers": [(b"content-type", content_type.encode())],
    }
    return Request(scope, receive)


def test_an_uploaded_file_is_held_in_memory_never_spooled_to_the_hosts_disk() -> None:
    body, content_type = _multipart(3 * MIB)
    form = asyncio.run(read_form(_request(body, content_type)))
    upload = form["attachments"]
    assert isinstance(upload, UploadFile)
    assert upload.file._rolled is False  # type: ignore[attr-defined]
    # Starlette's own parser would have written it to a temporary file on the host.
    plain = asyncio.run(
        MultiPartParser(
            _request(body, content_type).headers, _request(body, content_type).stream()
        ).parse()
    )["attachments"]
    assert isinstance(plain, UploadFile)
    assert plain.file._rolled is True  # type: ignore[attr-defined]


def _sender(visitor: Visitor) -> tuple[str, str]:
    page = visitor.get("/compose")
    assert page.status_code == 200
    return visitor.nonce(), visitor.base + "/compose"


def test_an_episode_that_outgrows_its_storage_is_refused_507_and_marked_full(
    small: EmbeddedSuite,
) -> None:
    ep = small.open_episode()
    patient = small.world.patients[0]
    visitor = Visitor(ep.start_urls["fax"])
    statuses = []
    for n in range(4):
        nonce, url = _sender(visitor)
        reply = visitor.client.post(
            url,
            data={
                "_nonce": nonce,
                "patient_mrn": patient.mrn,
                "recipient": f"Records desk {n}",
                "fax_number": "(415) 555-0142",
                "cover_note": "Records attached.",
            },
            files={"attachments": (f"scan{n}.pdf", os.urandom(900 * 1024), "application/pdf")},
        )
        statuses.append(reply.status_code)
    assert 507 in statuses, statuses
    assert statuses[0] == 200  # the first fits (followed to its transmission page)
    state = small.state(ep.id)  # still readable, with what fitted
    assert state["summary"]["limits"]["storage_full"] is True
    assert 1 <= len(state["fax"]["transmissions"]) < 4
    visitor.close()


def test_events_past_the_cap_are_counted_not_kept_and_writes_keep_theirs(
    small: EmbeddedSuite,
) -> None:
    ep = small.open_episode()
    visitor = Visitor(ep.start_urls["ehr"])
    for _ in range(45):
        assert visitor.get("/no-such-page").status_code == 404
    state = small.state(ep.id)
    kinds = [e["kind"] for e in state["events"]]
    assert len(kinds) == SMALL.events + 1 and kinds[-1] == "events.capped"
    dropped = state["summary"]["limits"]["events_dropped"]
    assert dropped == 45 + 2 - SMALL.events  # two events before: the start, the home page
    referral = small.world.referrals[0].id
    visitor.get(f"/referrals/{referral}?tab=communications")
    note = visitor.post(
        f"/referrals/{referral}/notes", {"subject": "s", "category": "general", "body": "b"}
    )
    assert note.status_code == 200
    state = small.state(ep.id)
    assert [n["subject"] for n in state["ehr"]["notes"]] == ["s"]
    assert state["events"][-1]["kind"] == "note.add"
    visitor.close()


def test_a_flood_waits_its_turn_and_only_the_flooder_is_slowed(small: EmbeddedSuite) -> None:
    attacker, victim = small.open_episode(), small.open_episode()
    flooder = Visitor(attacker.start_urls["ehr"])
    calm = Visitor(victim.start_urls["ehr"])
    statuses: list[int] = []
    lock = threading.Lock()

    def hammer() -> None:
        with httpx.Client(cookies=flooder.client.cookies, timeout=60) as client:
            for _ in range(4):
                code = client.get(flooder.base + "/worklist").status_code
                with lock:
                    statuses.append(code)

    threads = [threading.Thread(target=hammer) for _ in range(12)]
    for t in threads:
        t.start()
    calm_codes = []
    for _ in range(3):  # within the victim's own burst: never made to wait
        calm_codes.append(calm.get("/worklist").status_code)
    for t in threads:
        t.join()
    assert calm_codes == [200, 200, 200]
    assert 429 in statuses and 200 in statuses  # queued beyond six: refused, not served
    flooded = _limits(small, attacker.id)
    assert flooded["requests_delayed"] >= 1 and flooded["requests_refused"] >= 1
    calm_limits = _limits(small, victim.id)
    assert calm_limits["requests_delayed"] == 0 and calm_limits["requests_refused"] == 0
    flooder.close()
    calm.close()


def test_a_state_document_over_its_bound_is_not_served_and_the_attempt_is_unmeasurable() -> None:
    with EmbeddedSuite.start(limits=SuiteLimits(state_document_bytes=40_000)) as suite:
        ep = suite.open_episode()
        assert suite.state(ep.id)["summary"]["events"] == 0  # an untouched end state fits
        visitor = Visitor(ep.start_urls["ehr"])
        referral = suite.world.referrals[0].id
        for n in range(12):  # 48 KB of notes
            visitor.get(f"/referrals/{referral}?tab=communications")
            body = {"subject": f"n{n}", "category": "general", "body": "x" * 4000}
            assert visitor.post(f"/referrals/{referral}/notes", body).status_code == 200
        visitor.close()
        with pytest.raises(GradingRefused, match="over the limit of 40000 bytes"):
            suite.state(ep.id)

        env = EmbeddedEnvironment(suite, run_seed=1, owns_suite=False)

        async def read() -> None:
            binding = EpisodeBinding(run_id=ep.id, start_urls=ep.start_urls)
            handle = EpisodeHandle(episode_id=ep.id, binding=binding)
            try:
                await env.read_state(handle, None)
            finally:
                await env.aclose()

        with pytest.raises(StateUnavailable, match=r"state document is .* bytes, over the limit"):
            asyncio.run(read())
