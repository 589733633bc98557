"""The levels' ladder from one tournament: the plot and the table of docs/ai.md.

The tournament itself is ``hanamikoji tournament ... --json`` (docs/ai.md gives the command);
this reads its JSON and draws ``docs/img/levels_elo.svg`` from the one fit:

    .venv/bin/python bench/ladder.py bench/results-ladder-tournament.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: bench.svgplot

from bench.svgplot import bar_chart

ROOT = Path(__file__).resolve().parents[1]


def short(player: str) -> str:
    """A bar's label: levels by name, agents with their budget."""
    if player.startswith("level:"):
        return player.removeprefix("level:")
    name, _, options = player.partition(":")
    for key, value in (o.split("=", 1) for o in options.split(",") if "=" in o):
        if key == "iterations":
            n = int(value)
            # Thousands as "k" (1.5k): a label wider than its bar runs into the next one.
            return f"{name} {n / 1000:g}k" if n >= 1000 else f"{name} {n}"
    return player


def table(data: dict[str, Any]) -> str:
    """The rating list as a Markdown table."""
    lines = [
        "| player | Elo (random = 0) | 95% interval | gap to the next (95%) | games | score |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in data["ratings"]:
        lo, hi = r["elo_95"]
        gap = ""
        if r["gap_below"] is not None:
            d, glo, ghi = r["gap_below"]["elo"]
            gap = f"{d:+.0f} ({glo:+.0f} to {ghi:+.0f})"
        lines.append(
            f"| `{r['player']}` | {r['elo']:+.0f} | {lo:+.0f} to {hi:+.0f} | {gap} | "
            f"{r['games']} | {100 * r['score']:.1f}% |"
        )
    return "\n".join(lines)


def main() -> None:
    """Draw the plot and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", type=Path, help="the tournament's --json output")
    parser.add_argument("--svg", type=Path, default=ROOT / "docs/img/levels_elo.svg")
    args = parser.parse_args()
    data = json.loads(args.results.read_text(encoding="utf-8"))
    rows = sorted(data["ratings"], key=lambda r: r["elo"])
    anchor = data["anchor"]
    svg = bar_chart(
        [(short(r["player"]), r["elo"], r["elo_95"][0], r["elo_95"][1]) for r in rows],
        title=f"One round robin, one fit ({short(anchor['player'])} = {anchor['elo']:g}), "
        f"95% intervals, {data['games']} games",
        ylabel="Elo",
    )
    args.svg.write_text(svg, encoding="utf-8")
    print(table(data))


if __name__ == "__main__":
    main()
