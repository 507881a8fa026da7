"""What an agent's build is, as a run pins it: the program an agent runs and what runs it, or
the model and prompt it speaks through. Two runs of "the same" agent compare one build only if
these agree; `build_changes` names what differs, part by part (the file, the package, the
model setting), so a refused `--pin` says what changed rather than that something did."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ProgramTree(BaseModel):
    """The files an agent's program is made of, under its declared roots."""

    roots: list[str] = Field(description="The folders (or files) hashed.")
    ignored: list[str] = Field(description="Glob patterns left out (caches, VCS folders).")
    sha256: str = Field(description="Over every file's relative path and content, in order.")
    files: dict[str, str] = Field(description="Relative path -> sha256 (first 16 hex digits).")
    bytes: int


class Interpreter(BaseModel):
    """What runs the program: an executable, and for Python the distributions it carries."""

    executable: str
    version: str = Field(description="Python's version, or the executable's sha256 (16).")
    distributions: dict[str, str] = Field(
        default_factory=dict, description="Installed distribution -> version (Python only)."
    )
    distributions_sha256: str | None = None


class SourceRevision(BaseModel):
    revision: str
    dirty: bool = Field(description="The checkout had changes not committed.")


class ModelBuild(BaseModel):
    """A model agent's build: which model, where, decoded how, with which prompt text."""

    model: str
    base_url: str | None
    decoding: dict[str, Any] = Field(default_factory=dict)
    prompt_sha256: str


class AgentBuild(BaseModel):
    """An agent's build fingerprint: its program tree, interpreter, source revision and image
    for a program; its model, endpoint, decoding and prompt for a model agent."""

    program: ProgramTree | None = None
    interpreter: Interpreter | None = None
    source: SourceRevision | None = None
    image_digest: str | None = Field(
        default=None, description="The container image the agent ran in (None: not in one)."
    )
    model: ModelBuild | None = None


def _changed_map(what: str, before: dict[str, str], now: dict[str, str]) -> list[str]:
    out = []
    for key in sorted(set(before) | set(now)):
        a, b = before.get(key), now.get(key)
        if a == b:
            continue
        if a is None:
            out.append(f"{what} {key} added ({b})")
        elif b is None:
            out.append(f"{what} {key} removed (was {a})")
        else:
            out.append(f"{what} {key} changed ({a} -> {b})")
    return out


def build_changes(pinned: AgentBuild | None, now: AgentBuild | None) -> list[str]:
    """What differs between two builds, one line per part that changed (at most 10 shown)."""
    if pinned is None and now is None:
        return []
    if pinned is None or now is None:
        return [
            f"agent build: pinned {'none' if pinned is None else 'one'}, now "
            f"{'none' if now is None else 'one'}"
        ]
    out: list[str] = []
    a, b = pinned.program, now.program
    # Where the program lies may differ (another checkout, another machine): its files may not.
    if (a is None) != (b is None):
        out.append(f"program: pinned {a.roots if a else None}, now {b.roots if b else None}")
    elif a and b and a.sha256 != b.sha256:
        out += _changed_map("program file", a.files, b.files) or ["program tree changed"]
    i, j = pinned.interpreter, now.interpreter
    if (i is None) != (j is None) or (i and j and i.executable != j.executable):
        out.append(
            f"interpreter: pinned {i.executable if i else None}, now {j.executable if j else None}"
        )
    elif i and j:
        if i.version != j.version:
            out.append(f"interpreter version changed ({i.version} -> {j.version})")
        out += _changed_map("package", i.distributions, j.distributions)
    if pinned.source != now.source:
        out.append(f"source revision: pinned {_source(pinned.source)}, now {_source(now.source)}")
    if pinned.image_digest != now.image_digest:
        out.append(f"image digest: pinned {pinned.image_digest}, now {now.image_digest}")
    if pinned.model != now.model:
        out += _model_changes(pinned.model, now.model)
    shown = out[:10]
    if len(out) > 10:
        shown.append(f"... and {len(out) - 10} more")
    return [f"agent build: {line}" for line in shown]


def _source(s: SourceRevision | None) -> str:
    return "none" if s is None else f"{s.revision[:12]}{' (dirty)' if s.dirty else ''}"


def _model_changes(a: ModelBuild | None, b: ModelBuild | None) -> list[str]:
    if a is None or b is None:
        return [f"model: pinned {a.model if a else None}, now {b.model if b else None}"]
    out = []
    for field in ("model", "base_url", "decoding", "prompt_sha256"):
        x, y = getattr(a, field), getattr(b, field)
        if x != y:
            out.append(f"model {field} changed ({x} -> {y})")
    return out


def describe_build(build: AgentBuild | None) -> str:
    """The agent's build in one sentence, for the disclosure."""
    if build is None:
        return "agent build: none pinned (an agent of the harness's own, or a run from before)"
    parts: list[str] = []
    if build.program is not None:
        p = build.program
        parts.append(
            f"program tree sha256 {p.sha256[:16]} ({len(p.files)} files, {p.bytes} bytes under "
            f"{', '.join(p.roots) or 'no root'})"
        )
    if build.interpreter is not None:
        i = build.interpreter
        dists = f" with {len(i.distributions)} distributions" if i.distributions else ""
        parts.append(f"interpreter {i.executable} {i.version}{dists}")
    if build.source is not None:
        parts.append(f"revision {_source(build.source)}")
    if build.model is not None:
        m = build.model
        decoding = ", ".join(f"{k} {v}" for k, v in m.decoding.items()) or "defaults"
        parts.append(
            f"model {m.model} at {m.base_url or 'its default endpoint'} ({decoding}), prompt "
            f"{m.prompt_sha256}"
        )
    if build.image_digest:
        parts.append(f"image {build.image_digest}")
    return "agent build: " + "; ".join(parts)
