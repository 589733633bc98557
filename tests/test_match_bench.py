"""bench/strength.py reports a match's Elo and interval exactly as the match report does."""

from __future__ import annotations

import json

import pytest
from bench.strength import row

from hanamikoji.match import MatchSummary
from hanamikoji.stats import Pentanomial


@pytest.mark.parametrize(
    "counts",
    [(0, 0, 0, 0, 5), (5, 0, 0, 0, 0), (1, 2, 3, 2, 1), (0, 0, 0, 0, 1)],
    ids=["sweep", "swept", "mixed", "one-pair"],
)
def test_the_bench_row_has_the_match_reports_elo_and_interval(
    counts: tuple[int, int, int, int, int],
) -> None:
    pent = Pentanomial(counts)
    # The wins only count the games: Elo and its interval come from the pairs.
    summary = MatchSummary(
        "a", "b", 2 * pent.pairs, wins=[pent.pairs, pent.pairs], pentanomial=pent
    )
    report = summary.to_json()
    figures = row(summary)
    assert figures["elo"] == report["elo"]
    assert figures["elo_95"] == report["elo_95"]
    json.dumps(figures, allow_nan=False)  # valid JSON: no Infinity


def test_a_clean_sweep_is_bounded_below_not_infinite() -> None:
    summary = MatchSummary("a", "b", 10, wins=[10, 0], pentanomial=Pentanomial((0, 0, 0, 0, 5)))
    low, high = row(summary)["elo_95"]
    assert high is None  # unbounded above, as the report's "+inf"
    assert low == pytest.approx(141.7, abs=0.1)
    assert "95% interval +141.7 to +inf" in summary.render()
