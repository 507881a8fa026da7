"""`endstate grid report`: one HTML page of a grid (heat maps, category bars, head-to-head
tables, cost) and every table beside it as Markdown and CSV."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from endstate.grid.manifest import CellState, GridManifest
from endstate.grid.measures import CellMeasures, measure_grid
from endstate.grid.tables import NamedTables, categories_table, cells_table, write_tables
from endstate.report.charts import Bar, HeatCell, heat_map, interval_bars, value_bars
from endstate.report.cost import run_cost
from endstate.report.head_to_head_text import cost_tables, pairwise_tables
from endstate.report.pairwise import NamedRun, Pairwise, pairwise
from endstate.report.tables_out import TextTable
from endstate.subtask_categories import SUBTASK_CATEGORIES
from endstate.visible import for_template

_env = Environment(
    loader=PackageLoader("endstate.grid", "pages"),
    autoescape=select_autoescape(["html", "j2"]),
    trim_blocks=True,
    lstrip_blocks=True,
    finalize=for_template,
)


@dataclass
class Section:
    title: str
    note: str = ""
    charts: list[str] = field(default_factory=list)
    tables: list[NamedTables] = field(default_factory=list)


def _axis(cells: Sequence[CellState], attr: str) -> list[str]:
    seen: list[str] = []
    for c in cells:
        value = getattr(c, attr)
        if value not in seen:
            seen.append(value)
    return seen


def heat_maps(manifest: GridManifest, done: Sequence[CellMeasures]) -> list[str]:
    """Per prompt mode, agents × observations, for task success and for subtask success."""
    agents = _axis(manifest.cells, "agent_name")
    observations = _axis(manifest.cells, "observation")
    by_id = {m.state.id: m for m in done}
    charts = []
    for metric in ("task", "subtask"):
        for prompt in _axis(manifest.cells, "prompt_mode"):
            cells: dict[tuple[str, str], HeatCell | None] = {}
            for agent in agents:
                for observation in observations:
                    m = by_id.get(f"{agent}/{prompt}/{observation}")
                    if m is None:
                        cells[(agent, observation)] = None
                    elif metric == "task":
                        cells[(agent, observation)] = HeatCell(m.task_success, *m.interval)
                    elif m.subtasks and (share := m.subtasks.overall.share) is not None:
                        low, high = m.subtasks.overall.interval or (None, None)
                        cells[(agent, observation)] = HeatCell(share, low, high)
                    else:
                        cells[(agent, observation)] = None
            what = "Task success" if metric == "task" else "Subtask success"
            title = f"{what}, prompt mode {prompt}"
            charts.append(heat_map(title, agents, observations, cells))
    return charts


def category_bars(done: Sequence[CellMeasures]) -> list[str]:
    """Per subtask category, one bar per configuration with its interval."""
    charts = []
    for category in SUBTASK_CATEGORIES:
        bars = []
        for m in done:
            cell = m.subtasks.by_category.get(category) if m.subtasks else None
            if cell is None or cell.share is None or cell.interval is None:
                continue
            bars.append(
                Bar(m.state.id, cell.share, *cell.interval, f" ({cell.passed}/{cell.checks})")
            )
        if bars:
            charts.append(interval_bars(f"{category} (cluster bootstrap 95%)", bars))
    return charts


def head_to_head(done: Sequence[CellMeasures]) -> Pairwise | None:
    """Every pair of finished configurations on their shared tasks (None with fewer than two)."""
    if len(done) < 2:
        return None
    runs = [NamedRun(m.state.id, m.records, m.corpus) for m in done]
    return pairwise(runs, allow_different_corpora=False)


def cost_section(done: Sequence[CellMeasures]) -> Section:
    costs = [run_cost(m.state.id, m.attempts) for m in done]
    charts = []
    for unit, attr, fmt in (("$", "dollars", "${:,.4f}"), ("tokens", "prompt_tokens", "{:,.0f}")):
        bars = []
        for c in costs:
            for tier, cell in c.by_tier.items():
                q = getattr(cell, attr)
                bars.append((f"{c.name} · {tier}", q.mean, fmt))
        if any(v is not None for _, v, _ in bars):
            title = f"Mean {'cost' if unit == '$' else 'prompt tokens'} per attempt by difficulty"
            charts.append(value_bars(title, bars))
    note = (
        "Per attempt, by the task's difficulty (tier). An agent whose accounting is missing is "
        "shown as missing, never as zero."
    )
    return Section("Cost by difficulty", note, charts, [NamedTables("cost", cost_tables(costs))])


def grid_sections(
    manifest: GridManifest, done: Sequence[CellMeasures], missing: Sequence[CellState]
) -> list[Section]:
    sections = [
        Section(
            "Heat maps",
            "Rows: agents; columns: observation modes; one map per prompt mode. Darker is better; "
            "each cell gives its share and 95% interval. A configuration that did not finish is "
            "hatched and marked, never drawn as zero.",
            heat_maps(manifest, done),
            [NamedTables("cells", [cells_table(done, missing)])],
        ),
        Section(
            "Subtask success by category",
            "",
            category_bars(done),
            [NamedTables("categories", [categories_table(done)])],
        ),
    ]
    pairs = head_to_head(done)
    if pairs is not None:
        tables: list[TextTable] = pairwise_tables(pairs)
        sections.append(
            Section(
                "Head-to-head",
                "Every pair of configurations, A − B on their shared tasks.",
                [],
                [NamedTables("head_to_head", tables)],
            )
        )
    sections.append(cost_section(done))
    return sections


def write_grid_report(root: Path, manifest: GridManifest, out: Path | None = None) -> Path:
    """The page and its tables in `out` (default: the grid's `report` folder); returns the page."""
    done, missing = measure_grid(root, manifest)
    sections = grid_sections(manifest, done, missing)
    folder = out or root / "report"
    write_tables([g for s in sections for g in s.tables], folder)
    page = _env.get_template("grid.html.j2").render(
        title=f"Grid {manifest.name}",
        cells_done=len(done),
        cells_total=len(manifest.cells),
        finished=manifest.finished_at is not None,
        sha256=manifest.grid_sha256,
        build=manifest.build.describe(),
        sections=sections,
    )
    path = folder / "grid.html"
    path.write_text(page, encoding="utf-8")
    return path
