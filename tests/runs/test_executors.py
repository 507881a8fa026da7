"""The Ray executor's plain parts, without a cluster: flags, pins, the work queue, traces."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from endstate.build import BuildInfo
from endstate.errors import EndstateError
from endstate.runs.executors import (
    RaySettings,
    WorkerEnv,
    address_host_port,
    choose_executor,
    is_loopback,
    parse_worker_env,
)
from endstate.runs.work_queue import WorkQueue
from endstate.runs.worker_pins import (
    Mismatch,
    build_pins,
    corpus_pins,
    mismatches,
    pack_traces,
    unpack_traces,
)


def test_local_is_the_default_and_ray_flags_need_the_ray_executor() -> None:
    assert choose_executor(None).kind == "local"
    with pytest.raises(EndstateError, match="--executor 'nosuch': expected local or ray"):
        choose_executor("nosuch")
    with pytest.raises(EndstateError, match="--ray-cpus-per-worker needs --executor ray"):
        choose_executor("local", cpus_per_worker=2)


def test_worker_env_for_every_worker_or_one_and_from_this_shell() -> None:
    here = {"MODEL_KEY": "s3cret"}
    given = [
        parse_worker_env("A=1"),
        parse_worker_env("2:A=2"),
        parse_worker_env("MODEL_KEY", here),
    ]
    assert given[2] == WorkerEnv("MODEL_KEY", "s3cret")
    settings = RaySettings(worker_env=tuple(given))
    assert settings.env_for(1) == {"A": "1", "MODEL_KEY": "s3cret"}
    assert settings.env_for(2) == {"A": "2", "MODEL_KEY": "s3cret"}
    for bad in ("0:A=1", "1x", "=1", "MISSING"):
        with pytest.raises(EndstateError, match="--ray-worker-env"):
            parse_worker_env(bad, here)


def test_addresses() -> None:
    assert address_host_port("10.0.0.5:6379") == ("10.0.0.5", 6379)
    assert address_host_port("localhost:6379") == ("localhost", 6379)
    assert address_host_port("auto") is None
    assert is_loopback(None) and is_loopback("localhost:1") and not is_loopback("10.0.0.5:1")
    with pytest.raises(EndstateError, match="expected HOST:PORT"):
        address_host_port("10.0.0.5")
    with pytest.raises(EndstateError, match="Ray Client addresses are not supported"):
        address_host_port("ray://10.0.0.5:10001")


def test_only_the_pins_a_worker_has_are_compared() -> None:
    run = corpus_pins("a" * 64) | build_pins(BuildInfo(version="1", revision="r", dirty=False))
    node = build_pins(BuildInfo(version="1", revision="r", dirty=True))
    assert mismatches(run, node) == [Mismatch("build dirty flag", "False", "True")]
    assert mismatches(run, corpus_pins("a" * 64)) == []


def test_traces_travel_whole_and_never_outside_their_folder(tmp_path: Path) -> None:
    worker = tmp_path / "worker" / "t" / "1"
    (worker / "screens").mkdir(parents=True)
    (worker / "end_state.json").write_text(json.dumps({"ehr": {}}))
    (worker / "screens" / "step-0000.png").write_bytes(b"\x89PNG")
    files = pack_traces(worker)
    assert set(files) == {"end_state.json", "screens/step-0000.png"} and not worker.exists()
    run = tmp_path / "run" / "t" / "1"
    unpack_traces(files, run)
    assert (run / "screens" / "step-0000.png").read_bytes() == b"\x89PNG"
    with pytest.raises(EndstateError, match="outside it"):
        unpack_traces({"../../x": b""}, run)


def test_the_queue_gives_each_attempt_out_until_it_is_finished_or_its_retries_are_spent() -> None:
    async def scenario() -> tuple[list[tuple[str, str]], list[bool], bool]:
        queue = WorkQueue([("a", "1"), ("b", "1")], retries=1)
        first = await queue.take()
        assert first == ("a", "1")
        again = [await queue.worker_lost(first)]  # back to the front, tried once more
        taken = [await queue.take(), await queue.take()]
        assert taken == [("a", "1"), ("b", "1")]
        await queue.finished(("b", "1"))
        waiting = asyncio.ensure_future(queue.take())  # "a" is held: a free worker waits
        await asyncio.sleep(0.01)
        assert not waiting.done()
        again.append(await queue.worker_lost(("a", "1")))  # spent: the caller records it
        assert await waiting is None
        return taken, again, queue.drained.is_set()

    _taken, again, drained = asyncio.run(scenario())
    assert again == [True, False] and drained
