"""The audit report as text for the terminal; every piece of agent or labeller text made
visible (hidden and reordering characters shown as marked escapes)."""

from __future__ import annotations

from endstate.judge_audit.agreement import Agreement
from endstate.judge_audit.report import AuditReport, excerpt
from endstate.visible import visible


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _agreement(a: Agreement) -> str:
    if a.share is None or a.interval is None:
        return "no items"
    low, high = a.interval
    kappa = "undefined (one label only)" if a.kappa is None else f"{a.kappa:.3f}"
    return (
        f"{a.agree}/{a.n} agree = {_pct(a.share)} [{_pct(low)}, {_pct(high)}] (Wilson 95%), "
        f"Cohen's kappa {kappa}"
    )


def render_text(report: AuditReport) -> str:
    models = ", ".join(report.judge_models) or "unknown"
    lines = [
        f"judge audit of {report.root}",
        f"sample: {report.sampled} items (seed {report.seed}) of {report.judged} judged checks; "
        f"judge {models}",
    ]
    left_out = {k: v for k, v in report.excluded.items() if v}
    if left_out:
        said = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in left_out.items())
        lines.append(f"left out: {said} (labels count only against the text the judge read)")
    lines.append("")
    for name, counted in report.per_labeller.items():
        lines.append(f"judge vs {visible(name)}: {_agreement(report.judge_vs(counted))}")
        changed = sum(c.label.after_reveal for c in counted)
        if changed:
            lines.append(f"  {changed} of these labels were given after the verdict was shown")
    if len(report.per_labeller) > 1:
        lines.append(f"judge vs everyone (pooled): {_agreement(report.judge_vs(report.pooled))}")
    weighted, covered = report.run_weighted()
    if weighted is not None:
        lines.append(
            f"weighted to the run: {_pct(weighted)} agreement (strata holding {covered} of "
            f"{report.judged} judged checks)"
        )
    pairs = report.human_pairs()
    if pairs:
        lines.append("")
        for a, b, agreed in pairs:
            lines.append(f"{visible(a)} vs {visible(b)}: {_agreement(agreed)}")
    lines += ["", "by rubric:"]
    for rubric, counted in report.rubrics().items():
        agreed = report.judge_vs(counted)
        lines.append(f'  rubric "{excerpt(rubric, 120)}": {agreed.agree}/{agreed.n} agree')
        for c in counted:
            if c.item.verdict == c.label.label:
                continue
            lines.append(
                f"    task {visible(c.item.task_id)} attempt {visible(c.item.attempt)} check "
                f"{c.item.index}: judge {c.item.verdict}, {visible(c.label.labeller)} "
                f"{c.label.label}; answer: {excerpt(c.item.answer)}"
            )
            if c.label.comment:
                lines.append(f"      comment: {excerpt(c.label.comment)}")
    return "\n".join(lines) + "\n"
