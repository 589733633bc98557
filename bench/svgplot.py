"""Small SVG charts with no dependencies: learning curves and rating ladders for the docs."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

__all__ = ["bar_chart", "line_chart"]

W, H, PAD = 640, 400, 60


def _frame(title: str, xlabel: str, ylabel: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{W / 2}" y="24" text-anchor="middle" font-size="15">{escape(title)}</text>',
        f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle">{escape(xlabel)}</text>',
        f'<text x="16" y="{H / 2}" text-anchor="middle" transform="rotate(-90 16 {H / 2})">'
        f"{escape(ylabel)}</text>",
        f'<line x1="{PAD}" y1="{H - PAD}" x2="{W - PAD / 2}" y2="{H - PAD}" stroke="black"/>',
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{H - PAD}" stroke="black"/>',
    ]


def _scale(lo: float, hi: float, a: float, b: float) -> tuple[float, float]:
    span = (hi - lo) or 1.0
    return (b - a) / span, a - lo * (b - a) / span


def line_chart(
    points: Sequence[tuple[float, float]], *, title: str, xlabel: str, ylabel: str
) -> str:
    """One series of (x, y) points as an SVG line chart with labelled axes."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    kx, cx = _scale(min(xs), max(xs), PAD, W - PAD)
    ky, cy = _scale(min(0.0, min(ys)), max(ys), H - PAD, PAD + 10)
    out = _frame(title, xlabel, ylabel)
    path = " ".join(f"{kx * x + cx:.1f},{ky * y + cy:.1f}" for x, y in points)
    out.append(f'<polyline points="{path}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
    for x, y in points:
        px, py = kx * x + cx, ky * y + cy
        out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="#1f77b4"/>')
        out.append(f'<text x="{px:.1f}" y="{H - PAD + 16}" text-anchor="middle">{x:g}</text>')
        out.append(f'<text x="{px + 4:.1f}" y="{py - 6:.1f}">{y:.3g}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def bar_chart(bars: Sequence[tuple[str, float, float, float]], *, title: str, ylabel: str) -> str:
    """Labelled bars (label, value, low, high) with error whiskers, as SVG."""
    lo = min(0.0, *(b[2] for b in bars))
    hi = max(b[3] for b in bars)
    ky, cy = _scale(lo, hi, H - PAD, PAD + 10)
    out = _frame(title, "", ylabel)
    step = (W - 1.5 * PAD) / max(1, len(bars))
    for i, (label, value, low, high) in enumerate(bars):
        x = PAD + step * i + step * 0.2
        top, base = ky * value + cy, ky * 0.0 + cy
        y0, h = min(top, base), abs(base - top)
        out.append(
            f'<rect x="{x:.1f}" y="{y0:.1f}" width="{step * 0.6:.1f}" height="{h:.1f}" '
            'fill="#9ecae1"/>'
        )
        mid = x + step * 0.3
        out.append(
            f'<line x1="{mid:.1f}" y1="{ky * low + cy:.1f}" x2="{mid:.1f}" '
            f'y2="{ky * high + cy:.1f}" stroke="black"/>'
        )
        out.append(
            f'<text x="{mid:.1f}" y="{H - PAD + 16}" text-anchor="middle">{escape(label)}</text>'
        )
        out.append(f'<text x="{mid:.1f}" y="{top - 6:.1f}" text-anchor="middle">{value:.0f}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
