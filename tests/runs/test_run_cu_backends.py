"""Every computer-use backend solves a real task end to end against its vendor's double.

The double replays a rehearsed click path in its vendor's own tool-call shapes (Anthropic's
`computer` tool_use blocks, OpenAI's `computer_call` items, one JSON action per chat reply);
the real SDK client parses them, the loop performs them as mouse and keyboard input on the
embedded EHR, and the attempt passes only if the recorded end state says so. The run's trace
is then opened in the run viewer, screenshots and all.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from agents import anthropic_double as anthropic
from agents import openai_responses_double as openai_cu
from agents.wire_double import WireDouble
from endstate.agents.computer import ClickAt, CoordAction, ScrollAt, TypeText
from endstate.agents.registry import make_agent
from endstate.runs.session import RunOptions, execute
from endstate.runs.viewer.app import make_app
from openai_double import Behaviour, ChatDouble

from .conftest import referral_id
from .cu_rehearsal import SCROLL_STEP, note_and_clear, rehearse

DONE = "Saved the determination note and cleared the referral."


@pytest.fixture(scope="module")
def click_path() -> list[CoordAction]:
    return rehearse(note_and_clear(referral_id()))


def _anthropic_call(n: int, action: CoordAction) -> dict[str, Any]:
    match action:
        case ClickAt(x=x, y=y):
            return anthropic.tool_use(f"toolu_{n}", "left_click", coordinate=[x, y])
        case TypeText(text=text):
            return anthropic.tool_use(f"toolu_{n}", "type", text=text)
        case ScrollAt(x=x, y=y, dy=dy):
            return anthropic.tool_use(
                f"toolu_{n}",
                "scroll",
                coordinate=[x, y],
                scroll_direction="down",
                scroll_amount=dy // SCROLL_STEP,
            )
    raise AssertionError(action)


def _openai_call(n: int, action: CoordAction) -> dict[str, Any]:
    match action:
        case ClickAt(x=x, y=y):
            shape: dict[str, Any] = {"type": "click", "button": "left", "x": x, "y": y}
        case TypeText(text=text):
            shape = {"type": "type", "text": text}
        case ScrollAt(x=x, y=y, dy=dy):
            shape = {"type": "scroll", "x": x, "y": y, "scroll_x": 0, "scroll_y": dy}
        case _:
            raise AssertionError(action)
    return openai_cu.computer_call(f"call_{n}", shape)


def _script_anthropic(double: WireDouble, path: list[CoordAction]) -> None:
    double.queue(
        *[anthropic.message(_anthropic_call(n, a)) for n, a in enumerate(path)],
        anthropic.message(anthropic.text(DONE)),
    )


def _script_openai(double: WireDouble, path: list[CoordAction]) -> None:
    double.queue(
        *[openai_cu.response(_openai_call(n, a)) for n, a in enumerate(path)],
        openai_cu.response(openai_cu.message(DONE)),
    )


def _script_chat(double: ChatDouble, path: list[CoordAction]) -> None:
    replies = [json.dumps(a.model_dump(exclude_defaults=False)) for a in path]
    replies.append(json.dumps({"type": "done", "message": DONE}))
    double.queue(*[Behaviour(reply=r) for r in replies])


@pytest.fixture
def wire(request: pytest.FixtureRequest) -> Iterator[WireDouble]:
    double: WireDouble = (
        anthropic.anthropic_double()
        if request.param == "anthropic"
        else openai_cu.responses_double()
    )
    yield double
    double.stop()


def _run(spec: str, base_url: str, corpus: Path, out: Path) -> Path:
    agent = make_agent(spec, dict(base_url=base_url, max_steps=40))
    opts = RunOptions(corpus=corpus, agent=agent, agent_spec=spec, out=out)
    result = asyncio.run(execute(opts))
    (record,) = result.records
    facts = record.facts
    assert facts is not None
    assert record.status == "passed", (record.status, record.error, facts.agent_error)
    assert facts.claim == "done" and facts.final_message == DONE, facts.agent_error
    assert facts.images and facts.model_calls and facts.steps >= 10
    return result.store.root


def _viewer_shows_the_trace(run_dir: Path) -> None:
    """The run viewer lists the attempt and serves its screenshots."""
    client = TestClient(make_app(run_dir), base_url="http://127.0.0.1")
    assert "pa-easy-1" in client.get("/").text
    page = client.get("/attempts/pa-easy-1/1").text
    assert "step-0001.png" in page and "click" in page
    shot = client.get("/files/traces/pa-easy-1/1/screens/step-0001.png")
    assert shot.status_code == 200 and shot.headers["content-type"] == "image/png"
    assert shot.content[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("wire", "spec"),
    [("anthropic", "cu-anthropic:claude-test"), ("openai", "cu-openai:computer-use-preview")],
    indirect=["wire"],
)
def test_a_vendor_computer_tool_solves_the_task(
    wire: WireDouble,
    spec: str,
    click_path: list[CoordAction],
    embedded_corpus: Callable[..., Path],
    tmp_path: Path,
) -> None:
    (_script_anthropic if spec.startswith("cu-anthropic") else _script_openai)(wire, click_path)
    run_dir = _run(spec, wire.base_url, embedded_corpus(1), tmp_path / "run")
    assert len(wire.requests) == len(click_path) + 1
    _viewer_shows_the_trace(run_dir)


@pytest.mark.parametrize("spec", ["cu-chat:vision-model", "cu-gemini:gemini-test"])
def test_a_chat_model_on_screenshots_solves_the_task(
    spec: str,
    chat: ChatDouble,
    click_path: list[CoordAction],
    embedded_corpus: Callable[..., Path],
    tmp_path: Path,
) -> None:
    _script_chat(chat, click_path)
    run_dir = _run(spec, chat.base_url, embedded_corpus(1), tmp_path / "run")
    sent = chat.requests[0]["messages"][-1]["content"]
    assert any(part.get("type") == "image_url" for part in sent)
    _viewer_shows_the_trace(run_dir)
