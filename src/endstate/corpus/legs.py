"""Errand legs as checks: an answer field compared with its gold, or a write seen in the delta.

An errand (docs/patient-errands.md) is 3–6 legs, each graded on its own and worth one point,
so a task's score is legs correct over total legs and it passes only when every leg is right.
A *read leg* (`AnswerCheck`) names one field of the agent's JSON answer; a *write leg*
(`DeltaCheck`) states what the episode's database delta must show. Both are grading-side:
the gold, the expectations and which keys a leg owns are never projected. The agent sees only
the answer contract, `AnswerField`s on the public side.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

AnswerKind = Literal["number", "date", "string", "set", "boolean", "choice"]
ItemKind = Literal["string", "number", "date"]
WriteOp = Literal["added", "updated", "removed", "unchanged"]
Fact = str | list[str]  # a text that must appear, or its spellings (any one suffices)
FIELD_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"


class AnswerField(BaseModel):
    """One key the agent's final JSON object must carry, and what to put in it (public)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=FIELD_PATTERN)
    description: str = Field(default="", description="What the value is, in the patient's words.")


class WriteExpectation(BaseModel):
    """One thing the delta must show (or, for "unchanged", must not show)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    table: str = Field(min_length=1, description="The table, as named in the delta.")
    op: WriteOp = Field(
        description="'added', 'updated' or 'removed': rows of that kind must match; "
        "'unchanged': no added, updated or removed row of the table may match."
    )
    match: dict[str, Any] = Field(
        default_factory=dict,
        description="Columns a row must have (all of them; empty: any row). For 'added' and "
        "'removed' the row's own columns; for 'updated' the row's key and the after-values "
        "of its changed columns (a column that neither is the key nor changed is not in the "
        "delta, so it cannot match).",
    )
    changes: dict[str, Any] | None = Field(
        default=None,
        description="'updated' only: columns that must have changed in this episode, to these "
        "after-values.",
    )
    count: int | None = Field(
        default=None,
        ge=0,
        description="Exactly this many matching rows (0: none). Default: at least one; "
        "for 'unchanged' always none (count does not apply).",
    )
    contains: dict[str, list[Fact]] | None = Field(
        default=None,
        description="Column → facts its text must carry (normalised, as a substring): each "
        "fact a string, or a list of its spellings of which one must appear.",
    )
    excludes: dict[str, list[str]] | None = Field(
        default=None,
        description="Column → texts that must not appear in it (normalised, as a substring).",
    )

    @model_validator(mode="after")
    def _coherent(self) -> WriteExpectation:
        if self.changes is not None and self.op != "updated":
            raise ValueError(f"changes apply to op 'updated' only, not {self.op!r}")
        if self.count is not None and self.op == "unchanged":
            raise ValueError("count does not apply to op 'unchanged' (it means none at all)")
        for name, texts in (("contains", self.contains), ("excludes", self.excludes)):
            for column, facts in (texts or {}).items():
                if not facts:
                    raise ValueError(f"{name}.{column}: list at least one text")
                for fact in facts:
                    spellings = fact if isinstance(fact, list) else [fact]
                    if not spellings or not all(s.strip() for s in spellings):
                        raise ValueError(f"{name}.{column}: an empty text matches anything")
        return self


class AnswerCheck(BaseModel):
    """A read leg: one field of the final JSON answer, compared with the gold by its kind."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal["answer"] = "answer"
    leg: str = Field(min_length=1, description="The leg's name, unique within the task.")
    field: str = Field(pattern=FIELD_PATTERN, description="The answer key this leg owns.")
    kind: AnswerKind
    expected: Any = Field(description="The gold value; JSON null is not a gold (use [] or '').")
    tolerance: float | None = Field(default=None, ge=0)
    relative: float | None = Field(default=None, ge=0)
    item_kind: ItemKind = "string"
    choices: tuple[str, ...] | None = None
    points: float = 1.0
    description: str = ""
    category: str | None = None
    subtask_category: str | None = None

    @model_validator(mode="after")
    def _gold_fits_kind(self) -> AnswerCheck:
        gold, kind = self.expected, self.kind
        if gold is None:
            raise ValueError("expected is null: a gold that says 'none' is '' or [] for a set")
        if kind == "set" and not isinstance(gold, list):
            raise ValueError(f"a set's expected value must be a list, not {gold!r:.60}")
        if kind == "boolean" and not isinstance(gold, bool):
            raise ValueError(f"a boolean's expected value must be true or false, not {gold!r:.60}")
        if kind == "number" and (isinstance(gold, bool) or not isinstance(gold, int | float | str)):
            raise ValueError(f"a number's expected value must be a number, not {gold!r:.60}")
        if kind in ("date", "string", "choice") and not isinstance(gold, str):
            raise ValueError(f"a {kind}'s expected value must be a string, not {gold!r:.60}")
        if kind == "choice" and self.choices is not None and gold not in self.choices:
            raise ValueError(f"expected {gold!r:.60} is not one of the choices")
        return self


class DeltaCheck(BaseModel):
    """A write leg: what the episode's database delta must show, never the agent's claim."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal["delta"] = "delta"
    leg: str = Field(min_length=1, description="The leg's name, unique within the task.")
    expect: tuple[WriteExpectation, ...] = ()
    forbidden_tables: tuple[str, ...] = Field(
        default=(), description="Tables that must not change at all in the episode."
    )
    exclusive: bool = Field(
        default=False,
        description="Nothing else may change: every added, updated or removed row of the "
        "whole delta must be one an expectation of the task's write legs or a permitted "
        "effect accounts for.",
    )
    permitted: tuple[WriteExpectation, ...] = Field(
        default=(),
        description="Side effects an exclusive leg allows besides its expectations (a sign-in "
        "row, the audit row a write leaves); each only accounts for rows, never required.",
    )
    points: float = 1.0
    description: str = ""
    category: str | None = None
    subtask_category: str | None = None

    @model_validator(mode="after")
    def _something(self) -> DeltaCheck:
        if not self.expect and not self.forbidden_tables and not self.exclusive:
            raise ValueError(
                "a write leg needs at least one expectation, forbidden table or exclusive: true"
            )
        if self.permitted and not self.exclusive:
            raise ValueError("permitted effects apply to an exclusive leg only")
        for effect in self.permitted:
            if effect.op == "unchanged" or effect.count is not None:
                raise ValueError(
                    f"a permitted effect on {effect.table!r} is an added, updated or removed "
                    "row, without a count"
                )
        return self

    @property
    def owns(self) -> tuple[str, ...]:
        """The tables this leg's verdict depends on."""
        return tuple(dict.fromkeys([e.table for e in self.expect] + list(self.forbidden_tables)))
