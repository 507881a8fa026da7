"""The comparison report: the verdict first, then what decided it, then the aggregates as context.

Text for terminals and files; HTML with the same content, a chart per family and links to both
sides' traces for every task row.
"""

from __future__ import annotations

from html import escape as _html_escape
from pathlib import Path

from endstate.regress.compare import Comparison, TaskComparison, weakened
from endstate.regress.paired import PairedStats
from endstate.report.charts import Bar, interval_bars
from endstate.visible import visible

EXIT_STATUS = {"improvement": 0, "no change": 0, "not an improvement": 1, "not comparable": 2}


def escape(text: str) -> str:
    """HTML-escaped, every hidden character first made visible (endstate.visible)."""
    return _html_escape(visible(text))


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def headline(c: Comparison) -> str:
    regressed = len(c.regressions)
    if c.verdict == "not comparable":
        why = "; ".join(c.drift)
        return f"Verdict: NOT COMPARABLE — {why} (use --allow-drift to compare anyway, disclosed)"
    if c.verdict == "not an improvement":
        names = ", ".join(t.task_id for t in c.regressions[:10])
        return (
            f"Verdict: NOT AN IMPROVEMENT — {regressed} task(s) regressed ({names}), "
            f"whatever the aggregate did"
        )
    if c.verdict == "improvement":
        return f"Verdict: IMPROVEMENT — {len(c.where('improved'))} task(s) improved, none regressed"
    return "Verdict: NO CHANGE — no task regressed or improved"


def boundary_line(c: Comparison) -> str:
    """Whether either side's trust boundary was weakened: stated in every comparison."""
    base, run = weakened(c.base), weakened(c.run)
    if base == run == "none":
        return "Boundary: whole on both sides (no weakening of the trust boundary)"
    same = " (the same on both sides)" if base == run else ""
    return f"Boundary: WEAKENED{same} — baseline: {base}; run: {run}"


def _boundary_details(c: Comparison) -> list[str]:
    lines = []
    for side, pins in (("baseline", c.base), ("run", c.run)):
        lines += [f"  {side} boundary: {w.id} — {w.text}" for w in pins.weakenings or ()]
    return lines


def _task_line(t: TaskComparison) -> str:
    checks = f", checks changed {t.changed_checks}" if t.changed_checks else ""
    rejudged = f"; {t.rejudged}" if t.rejudged else ""
    kind = f"{t.kind}: " if t.kind else ""
    return (
        f"  {t.task_id} ({t.family}/{t.tier}) — {kind}pass rate {_rate(t.base_pass_rate)} → "
        f"{_rate(t.run_pass_rate)}, score {_score(t.base_score)} → {_score(t.run_score)}"
        f"{checks}{rejudged}"
    )


def _stats_line(label: str, s: PairedStats) -> str:
    low, high = s.interval
    return (
        f"  {label}: {s.tasks} paired task(s); passes {s.base_passes} → {s.run_passes} "
        f"(lost {s.lost}, gained {s.gained}; exact McNemar p = {s.mcnemar_p:.3g}); mean score "
        f"difference {s.mean_difference:+.3f} [{low:+.3f}, {high:+.3f}] (paired bootstrap 95%)"
    )


def render_comparison_text(c: Comparison) -> str:
    out = [
        f"endstate compare — run {c.run.run_id} ({c.run.agent_spec}) against {c.base_label} "
        f"(run {c.base.run_id}, {c.base.agent_spec})",
        headline(c),
        boundary_line(c),
        "",
        f"Regressions ({len(c.regressions)}):",
        *(_task_line(t) for t in c.regressions),
    ]
    flips = c.where("judge flip")
    out += ["", f"Judge flips ({len(flips)}), listed, not counted as regressions:"]
    out += [_task_line(t) for t in flips]
    infra = [t for t in c.tasks if t.infrastructure]
    out += ["", f"Attempts attributed to the infrastructure ({len(infra)} task(s)):"]
    for t in infra:
        for fault in t.infrastructure:
            out.append(f"  {t.task_id}: {fault.kind} fault during {fault.call}: {fault.detail}")
    improved = c.where("improved")
    out += ["", f"Improved ({len(improved)}):", *(_task_line(t) for t in improved)]
    new = c.where("new") + c.where("not in baseline run")
    if new:
        out += [
            "",
            f"Not compared ({len(new)}): " + ", ".join(f"{t.task_id} ({t.change})" for t in new),
        ]
    out += ["", "Pins"]
    if c.drift:
        state = "ALLOWED and disclosed (--allow-drift)" if c.drift_allowed else "refused"
        out += [f"  drift ({state}):", *(f"    {d}" for d in c.drift)]
    else:
        out.append("  corpus, environment and judge identical on both sides")
    out += [f"  compared: {d}" for d in c.changed] or ["  nothing else differs"]
    out += _boundary_details(c)
    tolerance = (
        "any drop in a task's mean score is a regression"
        if c.score_tolerance == 0
        else f"a task's mean score may drop by up to {c.score_tolerance:g} before it is a "
        "regression (--score-tolerance, disclosed)"
    )
    out += [f"  score tolerance: {tolerance}", ""]
    out.append("Aggregates (context only: never outweigh a per-task regression)")
    out.append(_stats_line("overall", c.overall))
    out += [_stats_line(f"family {k}", s) for k, s in c.by_family.items()]
    out += [_stats_line(f"tier {k}", s) for k, s in c.by_tier.items()]
    base_rel, run_rel = c.reliable
    out.append(
        "  reliability (full credit in every one of ≥5 replicates): "
        + (
            f"baseline {base_rel}, run {run_rel}"
            if base_rel is not None and run_rel is not None
            else "not measured (fewer than 5 replicates on a side)"
        )
    )
    return visible("\n".join(out) + "\n")


def _trace_link(source: str, task_id: str) -> str:
    path = Path(source) / "traces" / task_id
    return f'<a href="{escape(path.resolve().as_uri())}">traces</a>' if path.exists() else "—"


def render_comparison_html(c: Comparison, base_source: str, run_source: str) -> str:
    rows = []
    for t in c.tasks:
        rows.append(
            "<tr class='{cls}'><td>{id}</td><td>{fam}/{tier}</td><td>{change}</td><td>{kind}</td>"
            "<td>{br} → {rr}</td><td>{bs} → {rs}</td><td>{why}</td><td>{bl}</td><td>{rl}</td>"
            "</tr>".format(
                cls=escape(t.change.replace(" ", "-")),
                id=escape(t.task_id),
                fam=escape(t.family),
                tier=escape(t.tier),
                change=escape(t.change),
                kind=escape(t.kind or ""),
                br=_rate(t.base_pass_rate),
                rr=_rate(t.run_pass_rate),
                bs=_score(t.base_score),
                rs=_score(t.run_score),
                why=escape(
                    "; ".join(
                        [t.rejudged or ""]
                        + [f"{f.kind} fault during {f.call}: {f.detail}" for f in t.infrastructure]
                    ).strip("; ")
                ),
                bl=_trace_link(base_source, t.task_id),
                rl=_trace_link(run_source, t.task_id),
            )
        )
    bars = []
    for family, s in c.by_family.items():
        if s.tasks:
            bars.append(Bar(f"{family} (baseline)", s.base_passes / s.tasks))
            bars.append(Bar(f"{family} (run)", s.run_passes / s.tasks))
    chart = interval_bars("First-attempt pass rate by family", bars) if bars else ""
    text = escape(render_comparison_text(c))
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>endstate compare</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:.2em .5em}.regressed{background:#fdd}"
        ".improved{background:#dfd}.judge-flip{background:#ffd}.infrastructure{background:#eef}"
        "pre{white-space:pre-wrap}</style></head><body>"
        f"<h1>{escape(headline(c))}</h1><p class='boundary'>{escape(boundary_line(c))}</p>"
        f"{chart}"
        "<table><tr><th>task</th><th>family/tier</th><th>change</th><th>kind</th>"
        "<th>pass rate</th><th>score</th><th>why</th><th>baseline</th><th>run</th></tr>"
        + "".join(rows)
        + f"</table><h2>Full comparison</h2><pre>{text}</pre></body></html>"
    )
