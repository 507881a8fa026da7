"""Small inline SVG charts: no script, no network, readable when the report is archived."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

WIDTH = 520
BAR_HEIGHT = 26
LEFT = 150
RIGHT = 70


def label_room(labels: Iterable[str]) -> int:
    """Pixels left of the plot: room for the longest label, at least the usual margin."""
    return max(LEFT, 7 * max((len(label) for label in labels), default=0) + 12)


@dataclass(frozen=True)
class Bar:
    label: str
    value: float  # 0..1
    low: float | None = None
    high: float | None = None
    note: str = ""


def interval_bars(title: str, bars: Sequence[Bar]) -> str:
    """Horizontal bars on a 0–100% axis, with interval whiskers where given."""
    left = label_room(b.label for b in bars)
    width = left + WIDTH - LEFT
    plot = width - left - RIGHT
    height = 30 + BAR_HEIGHT * len(bars) + 24
    out = [
        f'<svg role="img" aria-label="{escape(title)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = left + plot * tick
        out.append(
            f'<line x1="{x:.1f}" y1="26" x2="{x:.1f}" y2="{height - 22}" class="grid"/>'
            f'<text x="{x:.1f}" y="{height - 6}" class="tick">{tick:.0%}</text>'
        )
    for i, bar in enumerate(bars):
        y = 30 + i * BAR_HEIGHT
        w = plot * max(0.0, min(1.0, bar.value))
        out.append(f'<text x="{left - 8}" y="{y + 16}" class="label">{escape(bar.label)}</text>')
        out.append(
            f'<rect x="{left}" y="{y + 4}" width="{w:.1f}" height="{BAR_HEIGHT - 10}" class="bar"/>'
        )
        if bar.low is not None and bar.high is not None:
            x1, x2 = left + plot * bar.low, left + plot * bar.high
            mid = y + BAR_HEIGHT / 2 - 1
            out.append(
                f'<line x1="{x1:.1f}" y1="{mid}" x2="{x2:.1f}" y2="{mid}" class="whisker"/>'
                f'<line x1="{x1:.1f}" y1="{mid - 5}" x2="{x1:.1f}" y2="{mid + 5}" class="whisker"/>'
                f'<line x1="{x2:.1f}" y1="{mid - 5}" x2="{x2:.1f}" y2="{mid + 5}" class="whisker"/>'
            )
        out.append(
            f'<text x="{width - RIGHT + 6}" y="{y + 16}" class="value">'
            f"{bar.value:.0%}{escape(bar.note)}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def histogram(title: str, values: Sequence[float], bins: int = 10) -> str:
    """Distribution of task scores in [0, 1]; the last bin holds exactly 1.0 (full credit)."""
    counts = [0] * (bins + 1)
    for v in values:
        counts[bins if v >= 1.0 else min(bins - 1, int(v * bins))] += 1
    labels = [f"{i / bins:.1f}–" for i in range(bins)] + ["1.0"]
    top = max(counts) or 1
    plot_h = 120
    col = (WIDTH - 40) / len(counts)
    height = plot_h + 60
    out = [
        f'<svg role="img" aria-label="{escape(title)}" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
    ]
    for i, n in enumerate(counts):
        h = plot_h * n / top
        x = 20 + i * col
        cls = "bar full" if i == bins else "bar"
        out.append(
            f'<rect x="{x + 2:.1f}" y="{28 + plot_h - h:.1f}" width="{col - 4:.1f}" '
            f'height="{h:.1f}" class="{cls}"/>'
            f'<text x="{x + col / 2:.1f}" y="{24 + plot_h - h:.1f}" class="tick">{n or ""}</text>'
            f'<text x="{x + col / 2:.1f}" y="{height - 16}" class="tick">{labels[i]}</text>'
        )
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True)
class HeatCell:
    value: float  # 0..1
    low: float | None = None
    high: float | None = None


def _shade(value: float) -> str:
    """White at 0 to a deep blue at 1: darker is better, readable in grey print."""
    v = max(0.0, min(1.0, value))
    r, g, b = (round(255 - (255 - c) * v) for c in (33, 102, 172))
    return f"rgb({r},{g},{b})"


def heat_map(
    title: str,
    rows: Sequence[str],
    columns: Sequence[str],
    cells: dict[tuple[str, str], HeatCell | None],
) -> str:
    """A rows × columns grid of shares, each cell its value and interval; a cell with no value
    (a configuration that did not finish) is hatched and says so, never drawn as zero."""
    cell_w, cell_h, top = 130, 46, 48
    left = label_room(rows)
    width = max(left + cell_w * len(columns) + 10, 7 * len(title) + 10)
    height = top + cell_h * len(rows) + 10
    out = [
        f'<svg role="img" aria-label="{escape(title)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
    ]
    for j, column in enumerate(columns):
        x = left + j * cell_w + cell_w / 2
        out.append(f'<text x="{x:.1f}" y="{top - 8}" class="tick">{escape(column)}</text>')
    for i, row in enumerate(rows):
        y = top + i * cell_h
        label_y = y + cell_h / 2 + 5
        out.append(f'<text x="{left - 8}" y="{label_y}" class="label">{escape(row)}</text>')
        for j, column in enumerate(columns):
            x = left + j * cell_w
            cell = cells.get((row, column))
            cx, cy = x + cell_w / 2, y + cell_h / 2
            if cell is None:
                out.append(
                    f'<rect x="{x + 1}" y="{y + 1}" width="{cell_w - 2}" height="{cell_h - 2}" '
                    'class="missing" fill="#eee" stroke="#999" stroke-dasharray="4 3"/>'
                    f'<text x="{cx:.1f}" y="{cy + 4:.1f}" class="tick">not run</text>'
                )
                continue
            ink = "#fff" if cell.value > 0.55 else "#111"
            spread = (
                f"[{cell.low:.0%}–{cell.high:.0%}]"
                if cell.low is not None and cell.high is not None
                else ""
            )
            out.append(
                f'<rect x="{x + 1}" y="{y + 1}" width="{cell_w - 2}" height="{cell_h - 2}" '
                f'fill="{_shade(cell.value)}"/>'
                f'<text x="{cx:.1f}" y="{cy - 2:.1f}" class="tick" style="fill:{ink}">'
                f"{cell.value:.0%}</text>"
                f'<text x="{cx:.1f}" y="{cy + 13:.1f}" class="tick" style="fill:{ink}">'
                f"{spread}</text>"
            )
    out.append("</svg>")
    return "".join(out)


def value_bars(title: str, bars: Sequence[tuple[str, float | None, str]]) -> str:
    """Horizontal bars of amounts (label, value, format) scaled to the largest; a value that is
    None is written `missing` with no bar, never drawn as zero."""
    left = label_room(label for label, _, _ in bars)
    width = left + WIDTH - LEFT
    plot = width - left - RIGHT
    top = max((v for _, v, _ in bars if v is not None), default=0.0) or 1.0
    height = 30 + BAR_HEIGHT * len(bars) + 6
    out = [
        f'<svg role="img" aria-label="{escape(title)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
    ]
    for i, (label, value, fmt) in enumerate(bars):
        y = 30 + i * BAR_HEIGHT
        out.append(f'<text x="{left - 8}" y="{y + 16}" class="label">{escape(label)}</text>')
        if value is None:
            out.append(f'<text x="{left + 4}" y="{y + 16}" class="value">missing</text>')
            continue
        w = plot * max(0.0, value) / top
        out.append(
            f'<rect x="{left}" y="{y + 4}" width="{w:.1f}" height="{BAR_HEIGHT - 10}" class="bar"/>'
            f'<text x="{left + w + 6:.1f}" y="{y + 16}" class="value">'
            f"{escape(fmt.format(value))}</text>"
        )
    out.append("</svg>")
    return "".join(out)
