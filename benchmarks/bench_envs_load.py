"""The embedded suite under load: 200 concurrent clients opening, writing, reading, closing.

Goals: 0 dropped requests at 200 concurrent clients; episodes per second at least 0.90 of,
and write latency p50 at most 2.0 times, bare Starlette's on the same requests (each the
median of the per-run ratios over `--runs` runs, default 3, suite and bare alternating).

Every load run drives `--episodes` episodes (default 500, so that the three suite/bare pairs
and the two suite references stay within a few minutes on two cores). Each client runs
episodes one after another (create over the grading channel, bind a fresh client with the
start URL, load a referral, post a note, read the state back, close); nothing is retried,
so a request that gets no response counts as dropped.

Arrangement: the load generator runs in this process and every server under load in a process
of its own (the suite as `EmbeddedSuite` serves it, the bare app on the same uvicorn setup), as
the agents' browsers are other processes than the suite's: neither server shares an
interpreter lock with the 200 clients. Suite and reference get the same arrangement. Every
figure has a reference measured in the same run:

- throughput and latency against the same request pattern served by a bare Starlette app on
  the same uvicorn setup (fixed answers, no SQLite, no templates): what the HTTP stack alone
  costs at this concurrency;
- the suite as shipped (idle connections capped at 64) against one opening a connection per
  request (`idle_connections=0`), under load and for one client alone: the price of holding
  no descriptor at all while idle;
- dropped requests against the same suite with uvicorn's default 5 s keep-alive (the cause
  of the drops: see `endstate.envs.server._server_config`);
- memory per open episode against an open SQLite connection to a copy of the same template.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine, write_section
from endstate.envs import server
from endstate.envs.server import EmbeddedSuite, _bind, _server_config
from endstate.envs.suite.limits import SuiteLimits
from endstate.envs.suite.loadgen import LoadResult, drive

ROOT = Path(__file__).resolve().parents[1]
GOAL = "0 dropped requests at 200 concurrent clients"
SHOWN_OPS = ("create", "write", "state", "close")
EPISODES_GOAL = 0.90  # episodes/s at least this share of bare Starlette's
WRITE_P50_GOAL = 2.0  # write latency p50 at most this many times bare Starlette's


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


class BareServer:
    """The reference: the load's request pattern answered with fixed bytes, nothing stored
    but each episode's note subject (echoed back by its state read)."""

    def __init__(self) -> None:
        notes: dict[str, str] = {}
        form = '<form method="post"><input name="_nonce" value="n"></form>'

        async def create(request: Request) -> Response:
            eid = f"ep-{secrets.token_hex(8)}"
            notes[eid] = ""
            start = f"{self.url}/start?t={eid}"
            return JSONResponse({"episode_id": eid, "start_urls": {"ehr": start}}, 201)

        async def start(request: Request) -> Response:
            response = RedirectResponse("/worklist", status_code=303)
            response.set_cookie("eid", request.query_params["t"])
            return response

        async def page(request: Request) -> Response:
            return HTMLResponse(form)

        async def note(request: Request) -> Response:
            notes[request.cookies["eid"]] = str((await request.form())["subject"])
            return RedirectResponse(request.url.path, status_code=303)

        async def state(request: Request) -> Response:
            subject = notes[request.path_params["eid"]]
            return JSONResponse({"ehr": {"notes": [{"subject": subject}]}})

        async def close(request: Request) -> Response:
            del notes[request.path_params["eid"]]
            return Response(status_code=204)

        app = Starlette(
            routes=[
                Route("/episodes", create, methods=["POST"]),
                Route("/start", start),
                Route("/referrals/{rid}", page),
                Route("/referrals/{rid}/notes", note, methods=["POST"]),
                Route("/episodes/{eid}/state", state),
                Route("/episodes/{eid}", close, methods=["DELETE"]),
            ]
        )
        self.sock = _bind("127.0.0.1")
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(_server_config(app))
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve(sockets=[self.sock])), daemon=True
        )
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


def serve(kind: str, idle_connections: int, keep_alive: int) -> None:
    """In a process of its own: serve, say where, wait for the load to end, then say how many
    episode files were left behind (before stopping, which removes them all)."""
    server.KEEP_ALIVE_S = keep_alive
    if kind == "bare":
        bare = BareServer()
        print(json.dumps({"url": bare.url, "token": "unused", "referral": "R"}), flush=True)
        sys.stdin.readline()
        print(json.dumps({"left": 0}), flush=True)
        bare.stop()
        return
    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedSuite.start(
            data_dir=Path(tmp), idle_connections=idle_connections, limits=UNTHROTTLED
        ) as suite,
    ):
        where = {"url": suite.grading_url, "token": suite.token}
        print(json.dumps(where | {"referral": suite.world.referrals[0].id}), flush=True)
        sys.stdin.readline()
        print(json.dumps({"left": len(list(Path(tmp).glob("*.sqlite*")))}), flush=True)


def load(
    kind: str,
    episodes: int,
    clients: int,
    *,
    idle_connections: int = 64,
    keep_alive: int = server.KEEP_ALIVE_S,
) -> tuple[LoadResult, int]:
    """Drive the load against a fresh server in its own process; (result, files left)."""
    command = [sys.executable, __file__, "--serve", kind]
    command += ["--idle-connections", str(idle_connections), "--keep-alive", str(keep_alive)]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {kind} server did not start (exit {proc.wait()})")
        where = json.loads(line)
        result = asyncio.run(
            drive(
                where["url"], where["token"], where["referral"], episodes=episodes, clients=clients
            )
        )
        proc.stdin.write("done\n")
        proc.stdin.flush()
        left = int(json.loads(proc.stdout.readline())["left"])
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return result, left


# Every bound as shipped but the request rate: 210 GETs to one episode would reach it (20 a
# second after a burst of 100) and time the bound, not the page.
UNTHROTTLED = SuiteLimits(requests_per_second=1e6, request_burst=10**6)


def one_client_page_ms(idle_connections: int, n: int) -> list[float]:
    """A page GET by one client on its own (no load): where a connection per request shows."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedSuite.start(
            data_dir=Path(tmp), idle_connections=idle_connections, limits=UNTHROTTLED
        ) as suite,
    ):
        info = suite.open_episode()
        with httpx.Client(timeout=30) as client:
            client.get(info.start_urls["ehr"])  # binds the client (sets its session cookie)
            url = f"{suite.urls['ehr']}/referrals/{suite.world.referrals[0].id}"
            samples = []
            for _ in range(n):
                began = time.perf_counter()
                client.get(url).raise_for_status()
                samples.append((time.perf_counter() - began) * 1000)
        suite.close_episode(info.id)
    return samples[10:]  # the first few warm caches


def _rss_kib() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _suite_memory(n: int) -> dict[str, float]:
    """RSS, descriptors and disk per open idle episode of a suite (in a fresh process)."""
    with tempfile.TemporaryDirectory() as tmp, EmbeddedSuite.start(data_dir=Path(tmp)) as suite:
        for eid in [suite.open_episode().id for _ in range(8)]:  # warm every code path first
            suite.state(eid)
            suite.close_episode(eid)
        rss, fds = _rss_kib(), _fds()
        ids = [suite.open_episode().id for _ in range(n)]
        for eid in ids:
            suite.state(eid)  # each opened, read, then idle
        out = {
            "rss": (_rss_kib() - rss) / n,
            "fds": (_fds() - fds) / n,
            "disk": sum(p.stat().st_size for p in Path(tmp).glob("*.sqlite")) / n / 1024,
        }
        for eid in ids:
            suite.close_episode(eid)
    return out


def _connection_memory(n: int) -> dict[str, float]:
    """The reference: n open sqlite3 connections to copies of the template, each read once."""
    with tempfile.TemporaryDirectory() as tmp, EmbeddedSuite.start(data_dir=Path(tmp)) as suite:
        template = suite.runtime.template
        rss, conns = _rss_kib(), []
        for i in range(n):
            copy = Path(tmp) / f"ref-{i}.sqlite"
            shutil.copyfile(template, copy)
            conn = sqlite3.connect(copy)
            conn.execute("SELECT count(*) FROM referrals").fetchone()
            conns.append(conn)
        out = {"rss": (_rss_kib() - rss) / n}
        for conn in conns:
            conn.close()
    return out


def memory_per_episode(n: int) -> dict[str, float]:
    """Each side measured in a fresh process, so neither reuses memory the other freed."""
    out = {}
    for kind in ("suite", "reference"):
        done = subprocess.run(
            [sys.executable, __file__, "--measure-memory", kind, "--memory-episodes", str(n)],
            capture_output=True,
            text=True,
            check=True,
        )
        found = json.loads(done.stdout.strip().splitlines()[-1])
        out |= found if kind == "suite" else {"reference_rss": found["rss"]}
    return out


def _rate(result: LoadResult) -> tuple[float, float]:
    return result.episodes / result.seconds, result.writes / result.seconds


def _latency_rows(label: str, got: LoadResult, ref: LoadResult) -> list[str]:
    rows = []
    for op in SHOWN_OPS:
        g, r = got.latency_ms[op], ref.latency_ms[op]
        g50, r50 = pct(g, 0.5), pct(r, 0.5)
        rows.append(
            f"| {label}: {op} | {g50:.1f} | {pct(g, 0.99):.1f} | {r50:.1f} | {pct(r, 0.99):.1f} "
            f"| {g50 / r50:.2f} |"
        )
    return rows


def _ratios(suite: LoadResult, bare: LoadResult) -> tuple[float, float]:
    """One run's goal ratios: episodes/s (suite over bare) and write latency p50 (same)."""
    eps = _rate(suite)[0] / _rate(bare)[0]
    return eps, pct(suite.latency_ms["write"], 0.5) / pct(bare.latency_ms["write"], 0.5)


def paired_runs(n: int, c: int, runs: int) -> list[tuple[LoadResult, LoadResult, int]]:
    """`runs` pairs of (suite, bare, suite files left), which goes first alternating."""
    pairs = []
    for i in range(runs):
        if i % 2 == 0:
            suite, left = load("suite", n, c)
            bare, _ = load("bare", n, c)
        else:
            bare, _ = load("bare", n, c)
            suite, left = load("suite", n, c)
        pairs.append((suite, bare, left))
    return pairs


def _goal_row(what: str, ratios: list[float], goal: str, met: bool) -> str:
    each = ", ".join(f"{r:.2f}" for r in ratios)
    return (
        f"| {what} | {each} | {statistics.median(ratios):.2f} | {goal} "
        f"| {'met' if met else 'NOT met'} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=500, help="per load run")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3, help="suite/bare pairs (median ratio)")
    parser.add_argument("--memory-episodes", type=int, default=500)
    parser.add_argument("--write", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--measure-memory", choices=("suite", "reference"), help=argparse.SUPPRESS)
    parser.add_argument("--serve", choices=("suite", "bare"), help=argparse.SUPPRESS)
    parser.add_argument("--idle-connections", type=int, default=64, help=argparse.SUPPRESS)
    parser.add_argument(
        "--keep-alive", type=int, default=server.KEEP_ALIVE_S, help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.measure_memory:
        measure = _suite_memory if args.measure_memory == "suite" else _connection_memory
        print(json.dumps(measure(args.memory_episodes)))
        return
    if args.serve:
        serve(args.serve, args.idle_connections, args.keep_alive)
        return
    if args.runs < 1:
        parser.error(f"--runs must be >= 1 (got {args.runs})")
    n, c = args.episodes, args.clients

    pairs = paired_runs(n, c, args.runs)
    per_request, _ = load("suite", n, c, idle_connections=0)
    five_s, _ = load("suite", n, c, keep_alive=5)  # uvicorn's default, as the suite had it
    memory = memory_per_episode(args.memory_episodes)
    alone = pct(one_client_page_ms(64, 210), 0.5)
    alone_per_request = pct(one_client_page_ms(0, 210), 0.5)

    ratios = [_ratios(suite, bare) for suite, bare, _ in pairs]
    eps_ratios, write_ratios = [r[0] for r in ratios], [r[1] for r in ratios]
    eps_met = statistics.median(eps_ratios) >= EPISODES_GOAL
    write_met = statistics.median(write_ratios) <= WRITE_P50_GOAL
    # The tables show the run whose episodes/s ratio is the median one; drops, wrong
    # statuses, bleed and files left are summed over every suite run.
    shipped, bare, _ = pairs[
        sorted(range(len(pairs)), key=lambda i: eps_ratios[i])[len(pairs) // 2]
    ]
    dropped = sum(s.dropped for s, _, _ in pairs)
    requests = sum(s.requests for s, _, _ in pairs)
    wrong = sum(sum(s.wrong_status.values()) for s, _, _ in pairs)
    bleed = sum(len(s.bleed) for s, _, _ in pairs)
    leaked = sum(left for _, _, left in pairs)
    runs = args.runs

    eps, wps = _rate(shipped)
    ref_eps, ref_wps = _rate(bare)
    pr_eps, pr_wps = _rate(per_request)
    lines = [
        "## Embedded environments under load",
        "",
        f"{n} episodes a run through {c} concurrent clients (create, bind, page, write a note, "
        "read the state, close; nothing retried). The load generator runs in the benchmark's "
        "process and each server under load in a process of its own, the suite and bare "
        f"Starlette alike ({machine()}). Every reference is measured in the same run; "
        f"{runs} suite/bare pairs, alternating which goes first.",
        "",
        f"Goals, each the median of the per-run ratios over {runs} runs:",
        "",
        "| goal (reference: bare Starlette, same requests) | per-run ratios | median | goal "
        "| met |",
        "|---|---|---:|---:|---|",
        _goal_row("episodes/s at 200 clients", eps_ratios, f">= {EPISODES_GOAL:.2f}", eps_met),
        _goal_row(
            "write latency p50 at 200 clients", write_ratios, f"<= {WRITE_P50_GOAL:.1f}", write_met
        ),
        f"| dropped requests at 200 clients, all {runs} runs | {dropped} of {requests} | — "
        f"| 0 | {'met' if dropped == 0 else 'NOT met'} |",
        "",
        "The median run (by its episodes/s ratio):",
        "",
        "| what | measured | reference | ratio |",
        "|---|---:|---:|---:|",
        f"| episodes/s (reference: bare Starlette, same requests) | {eps:.1f} | {ref_eps:.1f} "
        f"| {eps / ref_eps:.2f} |",
        f"| writes/s (reference: bare Starlette) | {wps:.1f} | {ref_wps:.1f} "
        f"| {wps / ref_wps:.2f} |",
        f"| episodes/s (reference: a connection per request, `idle_connections=0`) | {eps:.1f} "
        f"| {pr_eps:.1f} | {eps / pr_eps:.2f} |",
        f"| writes/s (reference: a connection per request) | {wps:.1f} | {pr_wps:.1f} "
        f"| {wps / pr_wps:.2f} |",
        f"| one client alone, page GET p50 ms, request rate bound lifted (reference: a "
        f"connection per request) "
        f"| {alone:.2f} | {alone_per_request:.2f} | {alone / alone_per_request:.2f} |",
        f"| dropped requests, all {runs} runs (reference: uvicorn's default 5 s keep-alive, "
        f"one run) | {dropped} of {requests} | {five_s.dropped} of {five_s.requests} | — |",
        f"| wrong statuses / bleed between episodes / episode files left, all {runs} runs | "
        f"{wrong} / {bleed} / {leaked} | — | — |",
        f"| memory per open idle episode, KiB RSS (reference: an open sqlite3 connection to a "
        f"copy) | {memory['rss']:.1f} | {memory['reference_rss']:.1f} "
        f"| {memory['rss'] / memory['reference_rss']:.2f} |",
        f"| file descriptors per open idle episode ({args.memory_episodes} open, cap 64) | "
        f"{memory['fds']:.3f} | 1 | {memory['fds']:.3f} |",
        f"| disk per open episode, KiB | {memory['disk']:.0f} | — | — |",
        "",
        "Latency under that load, ms (reference: bare Starlette, same requests):",
        "",
        "| what | p50 | p99 | reference p50 | reference p99 | ratio (p50) |",
        "|---|---:|---:|---:|---:|---:|",
        *_latency_rows("suite", shipped, bare),
        "",
        f"Goal: {GOAL} — measured {dropped} dropped of {requests} over {runs} runs "
        f"({'met' if dropped == 0 else 'NOT met'}); with a 5 s keep-alive, "
        f"{five_s.dropped} dropped ({dict(five_s.errors) or 'none'}).",
    ]
    body = "\n".join(lines) + "\n"
    print(body)
    if not args.no_write:
        write_section(args.write, "envs-load", body)


if __name__ == "__main__":
    main()
