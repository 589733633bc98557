"""A decision made within a grace (the AI's, while a round's scoring is shown or while the pages
come back after a restart) hands the rest of the grace on: the opponent's clock starts when the
grace ends, not at once while they are still watching the scoring or reconnecting."""

from __future__ import annotations

from hanamikoji.clock import Clock, TimeControl
from hanamikoji.state import State
from hanamikoji.web.game import SCORING_GRACE_MS, charge_clock


def _decide(clock: Clock, now: int) -> tuple[Clock | None, int]:
    state = State.new(7)
    seat = state.to_move
    assert seat is not None
    move = str(state.legal_moves[0])
    after = state.apply(move)
    return charge_clock(clock, seat, [move], after, now, state.round), seat


def test_a_decision_within_a_grace_starts_the_next_clock_when_the_grace_ends() -> None:
    seat = State.new(7).to_move
    assert seat is not None
    grace_end = 1_000 + SCORING_GRACE_MS
    clock = Clock.new(TimeControl.parse("3+2")).start(seat, now=grace_end)  # a grace ahead
    after, _ = _decide(clock, now=2_000)  # decided 2 s into the 10 s grace
    assert after is not None and after.turn == 1 - seat
    assert after.since == grace_end  # not 2_000: the opponent's time runs from the grace's end
    left = after.remaining_at(grace_end + 500)
    assert left is not None
    assert left[seat] == 180_000 + 2_000  # nothing charged, the increment gained
    assert left[1 - seat] == 180_000 - 500  # only what ran since the grace's end


def test_after_a_restart_the_ai_s_quick_reply_leaves_the_player_time_to_reconnect() -> None:
    seat = State.new(7).to_move
    assert seat is not None
    clock = Clock.new(TimeControl.parse("3+2")).start(seat, now=0)
    # down from 5 s (the last heartbeat) to 60 s, and 5 s for the pages to come back: to 65 s
    paused = clock.skip_downtime(5_000, 65_000)
    after, _ = _decide(paused, now=61_000)  # the AI answers at once on the restart
    assert after is not None and after.since == 65_000


def test_a_decision_after_the_grace_starts_the_next_clock_at_once() -> None:
    seat = State.new(7).to_move
    assert seat is not None
    clock = Clock.new(TimeControl.parse("3+2")).start(seat, now=1_000)
    after, _ = _decide(clock, now=4_000)
    assert after is not None and after.since == 4_000
    left = after.remaining_at(4_500)
    assert left is not None
    assert left[seat] == 180_000 - 3_000 + 2_000 and left[1 - seat] == 180_000 - 500
