"""Loader for Personal Health Arena errand rows (`pha-v1`): one errand per JSONL line or CSV row.

The benchmark published its rows but never its harness, so what the JSON-valued columns mean is
defined here and in docs/errand-grading.md ("Importing Personal Health Arena rows"). A row
becomes one task: the instruction, answer contract and archetype are public; the golds, the
leg rules, the write expectations and the patient's identity are grading-side, so the firewall
can prove none of them reaches the agent. Every problem names the file, the row (`$[i]`: line
i+1 of a JSONL file, the i-th record after a CSV header) and the column.
"""

from __future__ import annotations

import csv
import io
import string
from dataclasses import dataclass, field
from typing import Any, get_args

from pydantic import ValidationError

from endstate.corpus.hab_v2 import problems_from_validation_error
from endstate.corpus.legs import AnswerCheck, AnswerField, AnswerKind, DeltaCheck
from endstate.corpus.model import GradingSpec, LegCheck, PublicTask, Task
from endstate.corpus.pha_card import card_rules, refuse_unknown_tables, without_points
from endstate.corpus.problems import Problem, id_problem, json_path
from endstate.jsonfile import JsonRefused, decode

FORMAT = "pha-v1"
FAMILY = "patient_errands"
SUFFIXES = (".jsonl", ".csv")
TEXT_COLUMNS = ("episode_id", "archetype", "user_msg", "prompt_format", "instruction")
JSON_COLUMNS = ("legs", "answer_fields", "expected_json", "leg_scores", "write_check_json")
PATIENT_COLUMNS = ("patient_pid", "patient_name", "portal_username")
REQUIRED = TEXT_COLUMNS + JSON_COLUMNS
READ_KINDS: tuple[str, ...] = get_args(AnswerKind)
READ_RULE_KEYS = ("field", "kind", "tolerance", "relative", "item_kind", "choices", "description")
WRITE_RULE_KEYS = ("kind", "description")
WRITE_CHECK_KEYS = ("expect", "forbidden_tables", "exclusive", "permitted")
LEG_COUNT = (3, 6)

Row = tuple[int, dict[str, Any]]
Fields = dict[str, tuple[AnswerField, str | int]]  # by name: the field, and where it was given


@dataclass
class _Site:
    """One row being read: where its problems go, and the problems found so far."""

    file: str
    index: int
    problems: list[Problem] = field(default_factory=list)

    def path(self, *loc: int | str) -> str:
        return json_path((self.index, *loc))

    def error(self, reason: str, *loc: int | str) -> None:
        self.problems.append(Problem(file=self.file, path=self.path(*loc), reason=reason))

    def warn(self, reason: str, *loc: int | str) -> None:
        warning = Problem(file=self.file, path=self.path(*loc), reason=reason, severity="warning")
        self.problems.append(warning)

    @property
    def errors(self) -> int:
        return sum(p.severity == "error" for p in self.problems)


def id_path(task: Task) -> str:
    """Where a loaded row's id is written, for problems found across files (duplicate ids)."""
    return json_path((int(task.grading.metadata.get("row", 0)), "episode_id"))


def parse_file(file: str, family: str, raw: bytes) -> tuple[list[Task], list[Problem]]:
    """Read every row of one file into tasks; a row with an error is reported, never dropped."""
    rows, problems = _csv_rows(file, raw) if file.endswith(".csv") else _jsonl_rows(file, raw)
    if family and family != FAMILY:
        reason = f"family {FAMILY!r} differs from its folder {family!r}"
        problems.append(Problem(file=file, reason=reason, severity="warning"))
    if not rows and not problems:
        problems.append(Problem(file=file, reason="no rows", severity="warning"))
    tasks: list[Task] = []
    for index, data in rows:
        task, found = parse_row(file, index, data)
        problems += found
        tasks += [task] if task else []
    return tasks, problems


def _jsonl_rows(file: str, raw: bytes) -> tuple[list[Row], list[Problem]]:
    """One JSON object per line, each read on its own so one bad line spoils only its row."""
    rows: list[Row] = []
    problems: list[Problem] = []
    for index, line in enumerate(raw.split(b"\n")):
        if not line.strip():
            continue
        try:
            data = decode(line, strict=True)
        except JsonRefused as exc:
            path = f"$[{index}]{exc.path[1:]}"
            problems.append(Problem(file=file, path=path, reason=f"row: {exc.reason}"))
            continue
        if isinstance(data, dict):
            rows.append((index, data))
        else:
            problems.append(Problem(file=file, path=f"$[{index}]", reason="row is not an object"))
    return rows, problems


def _csv_rows(file: str, raw: bytes) -> tuple[list[Row], list[Problem]]:
    """A header naming the columns, then one record per row; cells stay text until parsed."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return [], [Problem(file=file, reason=f"not valid UTF-8 text (byte {exc.start})")]
    reader = csv.reader(io.StringIO(text, newline=""))
    rows: list[Row] = []
    problems: list[Problem] = []
    index, header = -1, None
    try:
        header = next(reader, None)
        trouble = "no header row" if header is None else _header_trouble(header)
        if header is None or trouble:
            return [], [Problem(file=file, reason=str(trouble))]
        for index, cells in enumerate(reader):
            if cells and len(cells) != len(header):
                reason = f"row has {len(cells)} cells, the header names {len(header)} columns"
                problems.append(Problem(file=file, path=f"$[{index}]", reason=reason))
            elif cells:
                rows.append((index, dict(zip(header, cells, strict=True))))
    except csv.Error as exc:
        path = "$" if header is None else f"$[{index + 1}]"
        reason = f"not valid CSV (line {reader.line_num}): {exc}; the rest is unread"
        problems.append(Problem(file=file, path=path, reason=reason))
    return rows, problems


def _header_trouble(header: list[str]) -> str | None:
    """Why a CSV header cannot name the columns: a column missing or named twice."""
    twice = sorted({name for name in header if header.count(name) > 1})
    missing = [name for name in REQUIRED if name not in header]
    if twice:
        return f"header names column {twice[0]!r} twice"
    return f"header lacks column(s) {', '.join(missing)}" if missing else None


def parse_row(file: str, index: int, data: dict[str, Any]) -> tuple[Task | None, list[Problem]]:
    """Validate one row; return its task (if it has no error) and every problem found."""
    site = _Site(file, index)
    for name in REQUIRED:
        if name not in data:
            site.error(f"missing column {name!r}")
    if site.errors:
        return None, site.problems
    text = {name: _text(site, name, data[name]) for name in TEXT_COLUMNS}
    cells = {name: _cell(site, name, data[name]) for name in JSON_COLUMNS}
    if text["episode_id"] is not None:
        unsafe = id_problem(file, site.path("episode_id"), text["episode_id"])
        site.problems += [unsafe] if unsafe else []
    msg, form, instruction = text["user_msg"], text["prompt_format"], text["instruction"]
    if msg is not None and form is not None and instruction is not None:
        _instruction_lint(site, msg, form, instruction)
    if site.errors:
        return None, site.problems
    parts = _Parts(
        site,
        legs=_legs(site, cells["legs"]),
        fields=_answer_fields(site, cells["answer_fields"]),
        expected=_object(site, "expected_json", cells["expected_json"]),
        rules=_object(site, "leg_scores", card_rules(site, cells["leg_scores"])),
        writes=_object(site, "write_check_json", cells["write_check_json"]),
    )
    checks = [] if site.errors else parts.checks()
    if site.errors:
        return None, site.problems
    return _task(site, data, text, parts, checks), site.problems


def _text(site: _Site, name: str, value: Any) -> str | None:
    if isinstance(value, str) and (value or name in ("user_msg", "prompt_format")):
        return value
    site.error(f"{name} must be a non-empty string (got {value!r:.60})", name)
    return None


def _cell(site: _Site, name: str, value: Any) -> Any:
    """A JSON-valued column: a JSON value as is, or JSON text (a CSV cell) decoded once."""
    if not isinstance(value, str):
        return value
    try:
        return decode(value.encode("utf-8", "surrogatepass"), strict=True)
    except JsonRefused as exc:
        path = site.path(name) + exc.path[1:]
        site.problems.append(Problem(file=site.file, path=path, reason=f"{name}: {exc.reason}"))
        return None


def _placeholders(text: str) -> list[tuple[str, str]]:
    """Each replacement field's name and its conversion and spec, nested fields included."""
    found: list[tuple[str, str]] = []
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            found.append(
                (name, (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else ""))
            )
            found += _placeholders(spec or "")
    return found


def _instruction_lint(site: _Site, user_msg: str, prompt_format: str, instruction: str) -> None:
    """The instruction must be exactly the prompt format filled with the user's message."""
    try:
        fields = _placeholders(prompt_format)
    except ValueError as exc:
        site.error(f"prompt_format cannot be formatted: {exc}{_at(prompt_format)}", "prompt_format")
        return
    stray = [name for name, _ in fields if name != "user_msg"]
    styled = [style for _, style in fields if style]  # a width could ask for gigabytes
    if stray:
        reason = f"prompt_format has placeholder {{{stray[0]}}}: only {{user_msg}} is filled"
        site.error(reason + " (write {{ and }} for a literal brace)", "prompt_format")
    elif styled:
        reason = f"prompt_format has {{user_msg{styled[0]}}}: only a plain {{user_msg}} is filled"
        site.error(reason, "prompt_format")
    elif not fields:
        site.warn(
            "prompt_format has no {user_msg}: the user's message is not used", "prompt_format"
        )
    formatted = None if stray or styled else prompt_format.format(user_msg=user_msg)
    if formatted is not None and formatted != instruction:
        site.error(_first_difference(instruction, formatted), "instruction")


def _at(text: str) -> str:
    """Where the first brace without a partner is, for a format string that will not parse."""
    i = 0
    while i < len(text):
        if text[i : i + 2] in ("{{", "}}"):
            i += 2
        elif text[i] == "}" or (text[i] == "{" and "}" not in text[i:]):
            return f" (the {text[i]!r} at character {i}: {text[max(0, i - 20) : i + 20]!r})"
        else:
            i = text.index("}", i) + 1 if text[i] == "{" else i + 1
    return ""


def _first_difference(instruction: str, formatted: str) -> str:
    """A short reason showing where two strings first part, with a little context before."""
    pairs = enumerate(zip(instruction, formatted, strict=False))
    n = next((i for i, (a, b) in pairs if a != b), min(len(instruction), len(formatted)))
    start = max(0, n - 20)
    lead = "…" if start else ""
    return (
        f"instruction differs from prompt_format.format(user_msg=user_msg) at character {n}: "
        f"instruction has {lead}{instruction[start : n + 20]!r}, "
        f"the format gives {lead}{formatted[start : n + 20]!r}"
    )


@dataclass
class _Parts:
    """A row's decoded grading columns, checked against each other leg by leg."""

    site: _Site
    legs: list[str]
    fields: Fields
    expected: dict[str, Any]
    rules: dict[str, Any]
    writes: dict[str, Any]

    def checks(self) -> list[LegCheck]:
        """One check per leg, in the legs' order; then what the row holds that no leg uses."""
        checks: list[LegCheck] = []
        for leg in self.legs:
            rule = self.rules.get(leg)
            kind = rule.get("kind") if isinstance(rule, dict) else None
            if rule is None:
                self.site.error(f"leg {leg!r} has no rule", "leg_scores")
            elif not isinstance(rule, dict):
                reason = f"a rule must be a JSON object (got {rule!r:.60})"
                self.site.error(reason, "leg_scores", leg)
            elif kind == "write":
                checks += self._write(leg, rule)
            elif kind in READ_KINDS:
                checks += self._read(leg, rule)
            else:
                reason = f"unknown kind {kind!r:.40} (expected {', '.join(READ_KINDS)} or write)"
                self.site.error(reason, "leg_scores", leg, "kind")
        if all(leg in self.rules for leg in self.legs):  # else what is graded is unknown
            self._unused()
        return checks

    def _keys(self, at: tuple[str, ...], given: dict[str, Any], allowed: tuple[str, ...]) -> None:
        for key in given.keys() - set(allowed):
            self.site.error(f"unknown key {key!r:.40} (allowed: {', '.join(allowed)})", *at, key)

    def _read(self, leg: str, rule: dict[str, Any]) -> list[LegCheck]:
        """A read leg: its rule, with its gold taken from expected_json[field]."""
        site, before, name = self.site, self.site.errors, rule.get("field")
        rule = without_points(site, leg, rule)
        self._keys(("leg_scores", leg), rule, READ_RULE_KEYS)
        if isinstance(name, str) and name not in self.fields:
            reason = f"field {name!r} is not in answer_fields: the agent is never asked for it"
            site.error(reason, "leg_scores", leg, "field")
        if isinstance(name, str) and name not in self.expected:
            site.error(f"no gold for field {name!r} (leg {leg!r})", "expected_json")
        if site.errors > before:
            return []
        gold = self.expected.get(name) if isinstance(name, str) else None
        try:
            return [AnswerCheck.model_validate({**rule, "leg": leg, "expected": gold})]
        except ValidationError as exc:  # the rule-wide validator: does the gold fit the kind
            _model_problems(site, exc, ("leg_scores", leg), ("expected_json", str(name)))
            return []

    def _write(self, leg: str, rule: dict[str, Any]) -> list[LegCheck]:
        """A write leg: graded on the delta as write_check_json[leg] says."""
        site, before, entry = self.site, self.site.errors, self.writes.get(leg)
        rule = without_points(site, leg, rule)
        self._keys(("leg_scores", leg), rule, WRITE_RULE_KEYS)
        if entry is None:
            site.error(f"write leg {leg!r} has no write check", "write_check_json")
            return []
        if not isinstance(entry, dict):
            reason = f"a write check must be a JSON object (got {entry!r:.60})"
            site.error(reason, "write_check_json", leg)
            return []
        self._keys(("write_check_json", leg), entry, WRITE_CHECK_KEYS)
        if site.errors > before:
            return []
        payload = {**entry, "leg": leg, "description": rule.get("description", "")}
        try:
            check = DeltaCheck.model_validate(payload)
        except ValidationError as exc:
            _model_problems(site, exc, ("write_check_json", leg), ("write_check_json", leg))
            return []
        return [check] if refuse_unknown_tables(site, leg, check) else []

    def _unused(self) -> None:
        """Warnings for what the row carries but no leg grades: usually a misspelt name."""
        ruled = [(leg, self.rules[leg]) for leg in self.legs]
        named = [
            r.get("field") for _, r in ruled if isinstance(r, dict) and r.get("kind") != "write"
        ]
        read = {name for name in named if isinstance(name, str)}
        written = {leg for leg, r in ruled if isinstance(r, dict) and r.get("kind") == "write"}
        warn = self.site.warn
        for leg in sorted(self.rules.keys() - set(self.legs)):
            warn(f"rule for {leg!r}, which is not one of the legs: ignored", "leg_scores", leg)
        for name, (_, at) in self.fields.items():
            if name not in read:
                warn(f"answer field {name!r} is graded by no leg", "answer_fields", at)
        for name in sorted(self.expected.keys() - read):
            warn(f"gold for {name!r} is used by no leg", "expected_json", name)
        for leg in sorted(self.writes.keys() - written):
            warn(f"write check for {leg!r}, not a write leg: ignored", "write_check_json", leg)


def _model_problems(
    site: _Site, exc: ValidationError, at: tuple[str, ...], whole: tuple[str, ...]
) -> None:
    """A model's field errors at their keys; its model-wide errors at `whole`, said plainly."""
    here = site.path(*at)
    site.problems += [
        p
        for p in problems_from_validation_error(site.file, exc, (site.index, *at))
        if p.path != here
    ]
    for err in exc.errors():
        if not err["loc"]:
            site.error(str(err["msg"]).removeprefix("Value error, "), *whole)


def _legs(site: _Site, value: Any) -> list[str]:
    """Leg names in order, each once; fewer than 3 or more than 6 is unusual, not wrong."""
    if not isinstance(value, list) or not value:
        site.error(f"legs must be a non-empty JSON list of names (got {value!r:.60})", "legs")
        return []
    legs: list[str] = []
    for j, leg in enumerate(value):
        if not isinstance(leg, str) or not leg:
            site.error(f"a leg name must be a non-empty string (got {leg!r:.60})", "legs", j)
        elif leg in legs:
            site.error(f"leg {leg!r} named twice", "legs", j)
        else:
            legs.append(leg)
    low, high = LEG_COUNT
    if not low <= len(value) <= high:
        site.warn(f"{len(value)} legs: an errand has {low}–{high}", "legs")
    return legs


def _answer_fields(site: _Site, value: Any) -> Fields:
    """The answer contract: a list of names, or an object of names with what each holds."""
    if isinstance(value, list):
        items: list[tuple[str | int, Any, Any]] = [(j, name, "") for j, name in enumerate(value)]
    elif isinstance(value, dict):
        items = [(name, name, text) for name, text in value.items()]
    else:
        site.error(
            f"answer_fields must be a JSON list or object (got {value!r:.60})", "answer_fields"
        )
        return {}
    fields: Fields = {}
    for at, name, text in items:
        if not isinstance(text, str):
            site.error(f"a description must be a string (got {text!r:.60})", "answer_fields", at)
        elif isinstance(name, str) and name in fields:
            site.error(f"answer field {name!r} named twice", "answer_fields", at)
        else:
            try:
                fields[name] = (AnswerField(name=name, description=text), at)
            except ValidationError:
                reason = f"bad answer field name {name!r:.60}: a letter or _, then [A-Za-z0-9_]"
                site.error(reason, "answer_fields", at)
    return fields


def _object(site: _Site, name: str, value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    site.error(f"{name} must be a JSON object (got {value!r:.60})", name)
    return {}


def _task(
    site: _Site, data: dict[str, Any], text: dict[str, Any], parts: _Parts, checks: list[LegCheck]
) -> Task:
    """The row as a task: instruction, contract and archetype public; the rest grading-side."""
    public = PublicTask(
        id=text["episode_id"],
        instruction=text["instruction"],
        family=FAMILY,
        scenario_label=text["archetype"],
        answer_fields=tuple(f for f, _ in parts.fields.values()),
    )
    extra: dict[str, Any] = {"template_id": f"pha.{text['archetype']}"}
    extra |= {name: data.get(name) for name in PATIENT_COLUMNS}
    other = {k: v for k, v in data.items() if k not in REQUIRED + PATIENT_COLUMNS}
    extra |= {"other_columns": other} if other else {}
    n = len(parts.legs)
    grading = GradingSpec(
        tier="easy" if n <= 3 else "medium" if n == 4 else "hard",
        checks=tuple(checks),
        possible=True,
        metadata={
            "row": site.index,
            "user_msg": text["user_msg"],
            "prompt_format": text["prompt_format"],
        },
        extra=extra,
    )
    return Task(public=public, grading=grading, source=site.file, format=FORMAT)
