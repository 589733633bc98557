"""Time controls and the game clock: charges, the deadline, downtime, storage, abandonment."""

from __future__ import annotations

import dataclasses
import doctest
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hanamikoji.clock
from hanamikoji.clock import (
    ABANDON_MIN_MS,
    Clock,
    ClockError,
    Kind,
    OutOfTimeError,
    TimeControl,
    claim_allowed_at,
    may_claim_abandoned,
)

DAY = 86_400_000
T0 = 1_700_000_000_000  # a plausible "now": milliseconds since the epoch


def test_docstring_examples_run() -> None:
    result = doctest.testmod(hanamikoji.clock)
    assert result.attempted > 0
    assert result.failed == 0


# -- time controls ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["none", "1+0", "3+2", "5+3", "10+5", "60+60", "1d", "3d", "7d"])
def test_time_controls_round_trip_through_their_notation(text: str) -> None:
    control = TimeControl.parse(text)
    assert str(control) == text
    assert eval(repr(control), {"TimeControl": TimeControl}) == control


def test_time_controls_know_their_times() -> None:
    blitz = TimeControl.parse("3+2")
    assert (blitz.kind, blitz.initial_ms, blitz.increment_ms) == (Kind.REAL_TIME, 180_000, 2_000)
    assert TimeControl.parse("7d").initial_ms == 7 * DAY
    assert TimeControl.parse("7d").kind is Kind.CORRESPONDENCE
    assert not TimeControl.none().timed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0+2", "1 to 60 minutes"),
        ("61+0", "1 to 60 minutes"),
        ("3+61", "0 to 60 seconds"),
        ("2d", "1, 3 or 7 days"),
        ("0d", "1, 3 or 7 days"),
        ("3 + 2", "a time control is"),
        ("3+", "a time control is"),
        ("100+1", "a time control is"),
        ("", "a time control is"),
        ("None", "a time control is"),
        ("3+2\n", "a time control is"),
        ("\u0663+\u0662", "a time control is"),  # Arabic-Indic digits
        ("x" * 10_000, "a time control is"),
        (None, "a time control is"),
        (180, "a time control is"),
    ],
)
def test_bad_time_controls_are_refused(text: Any, message: str) -> None:
    with pytest.raises(ClockError, match=message):
        TimeControl.parse(text)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": Kind.REAL_TIME, "minutes": 3.0, "increment": 2}, "whole number"),
        ({"kind": Kind.REAL_TIME, "minutes": True, "increment": 2}, "whole number"),
        ({"kind": Kind.REAL_TIME, "minutes": 3, "increment": -1}, "0 to 60 seconds"),
        ({"kind": Kind.NONE, "minutes": 3}, "no minutes"),
        ({"kind": Kind.CORRESPONDENCE, "days": 3, "increment": 2}, "no minutes"),
        ({"kind": Kind.REAL_TIME, "minutes": 3, "days": 1}, "no days"),
        ({"kind": "real-time", "minutes": 3}, "must be a Kind"),
    ],
)
def test_bad_time_control_fields_are_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ClockError, match=message):
        TimeControl(**fields)


# -- a real-time game ------------------------------------------------------------------------


def test_a_3_plus_2_game_charges_each_decision_and_adds_the_increment() -> None:
    clock = Clock.new(TimeControl.parse("3+2")).start(0, T0)
    assert clock.remaining == (180_000, 180_000)
    assert clock.deadline == T0 + 180_000
    clock = clock.decision(0, T0 + 10_000, next_seat=1)  # a Gift: 10 s, +2 s
    assert clock.remaining == (172_000, 180_000)
    clock = clock.decision(1, T0 + 15_500, next_seat=1)  # the pick (5.5 s); seat 1 goes on
    assert clock.remaining == (172_000, 176_500)
    assert (clock.turn, clock.since, clock.deadline) == (1, T0 + 15_500, T0 + 192_000)
    clock = clock.decision(1, T0 + 45_500, next_seat=0)  # its own action: 30 s
    assert clock.remaining == (172_000, 148_500)
    assert clock.remaining_at(T0 + 50_500) == (167_000, 148_500)
    clock = clock.decision(0, T0 + 50_500, next_seat=None)  # the last decision of the game
    assert clock.remaining == (169_000, 148_500)
    assert (clock.turn, clock.since, clock.deadline, clock.running) == (None, None, None, False)
    assert clock.flag(T0 + 10 * DAY) is None


def test_a_move_at_the_deadline_counts_and_one_a_millisecond_later_loses() -> None:
    clock = Clock.new(TimeControl.parse("1+0")).start(0, T0)
    deadline = T0 + 60_000
    assert clock.deadline == deadline
    assert clock.flag(deadline) is None
    assert clock.decision(0, deadline, next_seat=1).remaining == (0, 60_000)
    assert clock.flag(deadline + 1) == 0
    with pytest.raises(OutOfTimeError, match="seat 0 decided 1 ms after its deadline"):
        clock.decision(0, deadline + 1, next_seat=1)
    assert clock.remaining_at(deadline + 5_000) == (0, 60_000)


def test_a_seat_at_zero_lives_on_its_increment() -> None:
    clock = Clock.new(TimeControl.parse("1+5")).start(0, T0)
    clock = clock.decision(0, T0 + 60_000, next_seat=0)  # at the deadline: 0 ms, then +5 s
    assert clock.remaining[0] == 5_000
    assert clock.deadline == T0 + 65_000


def test_every_decision_adds_the_increment() -> None:
    clock = Clock.new(TimeControl.parse("5+3")).start(1, T0)
    for n in range(10):
        clock = clock.decision(1, T0 + n * 1_000 + 1_000, next_seat=1)
    assert clock.remaining == (300_000, 300_000 - 10 * 1_000 + 10 * 3_000)


def test_a_stopped_game_charges_the_seat_to_decide_without_increment() -> None:
    clock = Clock.new(TimeControl.parse("3+2")).start(0, T0).stop(T0 + 7_000)
    assert clock.remaining == (173_000, 180_000)
    assert not clock.running
    assert clock.flag(T0 + DAY) is None


def test_a_now_before_the_clock_started_charges_nothing() -> None:
    # Two servers' clocks may differ by a few milliseconds.
    clock = Clock.new(TimeControl.parse("3+2")).start(0, T0)
    assert clock.decision(0, T0 - 5, next_seat=1).remaining == (182_000, 180_000)
    assert clock.remaining_at(T0 - 5) == (180_000, 180_000)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda c: c.decision(1, T0, next_seat=0), "seat 1 decided, but it is seat 0's turn"),
        (lambda c: c.decision(2, T0, next_seat=0), "seat 0 or 1"),
        (lambda c: c.decision(0, T0, next_seat=-1), "seat 0 or 1"),
        (lambda c: c.decision(0, 1.5, next_seat=1), "whole number"),
        (lambda c: c.decision(0, -1, next_seat=1), "milliseconds from 0"),
        (lambda c: c.decision(0, 2**53, next_seat=1), "milliseconds from 0"),
        (lambda c: c.start(0, T0), "already started"),
        (lambda c: c.pause(T0).decision(0, T0, next_seat=1), "paused"),
        (lambda c: c.stop(T0).decision(0, T0, next_seat=1), "not running"),
    ],
)
def test_decisions_the_clock_cannot_take_are_refused(action: Any, message: str) -> None:
    clock = Clock.new(TimeControl.parse("3+2")).start(0, T0)
    with pytest.raises(ClockError, match=message):
        action(clock)


def test_a_clock_before_the_start_does_not_run() -> None:
    clock = Clock.new(TimeControl.parse("3+2"))
    assert (clock.running, clock.paused, clock.deadline, clock.flag(T0)) == (
        False,
        False,
        None,
        None,
    )
    with pytest.raises(ClockError, match="not running"):
        clock.decision(0, T0, next_seat=1)


# -- correspondence and no clock -------------------------------------------------------------


def test_correspondence_gives_each_decision_its_days() -> None:
    clock = Clock.new(TimeControl.parse("3d")).start(0, T0)
    assert clock.deadline == T0 + 3 * DAY
    clock = clock.decision(0, T0 + 2 * DAY, next_seat=1)
    assert clock.remaining == (3 * DAY, 3 * DAY)
    assert clock.deadline == T0 + 5 * DAY
    clock = clock.decision(1, T0 + 5 * DAY, next_seat=1)  # at the deadline; a pick follows
    assert clock.deadline == T0 + 8 * DAY
    assert clock.flag(T0 + 8 * DAY + 1) == 1
    with pytest.raises(OutOfTimeError):
        clock.decision(1, T0 + 8 * DAY + 1, next_seat=0)
    assert clock.remaining_at(T0 + 7 * DAY) == (3 * DAY, DAY)


def test_a_game_without_a_clock_never_runs_out() -> None:
    clock = Clock.new(TimeControl.none()).start(0, T0)
    clock = clock.decision(0, T0 + 100 * DAY, next_seat=1)
    assert (clock.deadline, clock.flag(T0 + 1000 * DAY), clock.remaining_at(T0)) == (None,) * 3
    assert clock.turn == 1
    assert clock.for_client(T0)["remaining"] is None
    assert claim_allowed_at(clock, 1, T0) is None


# -- pauses and downtime ---------------------------------------------------------------------


def test_a_pause_charges_up_to_the_pause_and_nothing_during_it() -> None:
    clock = Clock.new(TimeControl.parse("3+2")).start(0, T0)
    paused = clock.pause(T0 + 20_000)
    assert paused.paused and not paused.running
    assert paused.remaining == (160_000, 180_000)
    assert paused.deadline is None
    assert paused.remaining_at(T0 + DAY) == (160_000, 180_000)
    assert paused.flag(T0 + DAY) is None
    resumed = paused.resume(T0 + 3_600_000)
    assert resumed.deadline == T0 + 3_600_000 + 160_000
    assert resumed.decision(0, T0 + 3_610_000, next_seat=1).remaining == (152_000, 180_000)
    assert paused.pause(T0 + DAY) == paused
    assert clock.resume(T0 + DAY) == clock


def test_downtime_after_the_last_heartbeat_is_not_charged() -> None:
    clock = Clock.new(TimeControl.parse("3+2")).start(0, T0)
    # The last heartbeat 30 s into seat 0's turn; the server is back 10 minutes later.
    back = clock.skip_downtime(T0 + 30_000, T0 + 630_000)
    assert back.remaining == (150_000, 180_000)
    assert (back.since, back.resumed, back.deadline) == (T0 + 630_000, T0 + 630_000, T0 + 780_000)


def test_a_turn_that_began_after_the_last_heartbeat_is_charged_nothing() -> None:
    clock = Clock.new(TimeControl.parse("3+2")).start(0, T0 + 1_000)
    back = clock.skip_downtime(T0, T0 + 60_000)
    assert back.remaining == (180_000, 180_000)
    # what lay after the last heartbeat lies as far after the restart (when the server died
    # after it is not known: the seat to decide is given the benefit, a heartbeat's time at most)
    assert back.since == T0 + 61_000


def test_a_seat_out_of_time_before_the_downtime_stays_out() -> None:
    clock = Clock.new(TimeControl.parse("1+0")).start(0, T0)
    back = clock.skip_downtime(T0 + 61_000, T0 + 120_000)
    assert back.flag(T0 + 120_000) == 0
    assert clock.pause(T0 + 61_000).flag(T0 + 61_000) == 0
    assert back.remaining_at(T0 + 120_000) == (0, 60_000)


def test_downtime_of_a_clock_not_running_changes_nothing() -> None:
    clock = Clock.new(TimeControl.parse("3+2"))
    assert clock.skip_downtime(T0, T0 + 1_000) == clock
    stopped = clock.start(0, T0).stop(T0 + 1_000)
    assert stopped.skip_downtime(T0, T0 + 5_000) == stopped


# -- storage and the client ------------------------------------------------------------------


def test_a_clock_round_trips_through_json() -> None:
    clocks = [
        Clock.new(TimeControl.parse("3+2")),
        Clock.new(TimeControl.parse("3+2")).start(1, T0),
        Clock.new(TimeControl.parse("10+5")).start(0, T0).pause(T0 + 5),
        Clock.new(TimeControl.parse("1+0")).start(0, T0).pause(T0 + 70_000),  # out of time
        Clock.new(TimeControl.parse("7d")).start(0, T0).decision(0, T0 + DAY, 1),
        Clock.new(TimeControl.none()).start(0, T0).stop(T0 + 1),
    ]
    for clock in clocks:
        text = clock.to_json()
        assert Clock.from_json(text) == clock
        assert Clock.from_json(text.encode()) == clock
        assert Clock.from_dict(json.loads(text)) == clock == Clock.from_dict(clock.as_dict())


def test_a_stored_clock_reads_as_written() -> None:
    clock = Clock.new(TimeControl.parse("3+2")).start(1, T0)
    assert json.loads(clock.to_json()) == {
        "control": "3+2",
        "remaining": [180_000, 180_000],
        "turn": 1,
        "since": T0,
        "resumed": T0,
    }


GOOD = {"control": "3+2", "remaining": [180_000, 170_000], "turn": 1, "since": T0, "resumed": T0}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not JSON"),
        ("{", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        ("[" * 100_000, "at most 1000 characters"),
        ('{"remaining": [' + "9" * 900 + ", 0]}", "not JSON|fields"),
        ("[]", "a clock is a JSON object"),
        ("null", "a clock is a JSON object"),
        ('"3+2"', "a clock is a JSON object"),
        (42, "JSON text"),
        (json.dumps({**GOOD, "extra": 1}), r"unknown \['extra'\]"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "since"}), r"missing \['since'\]"),
        (json.dumps({**GOOD, "control": "3+99"}), "0 to 60 seconds"),
        (json.dumps({**GOOD, "control": 3}), "a time control is"),
        (json.dumps({**GOOD, "remaining": [1, 2, 3]}), "a list of two times"),
        (json.dumps({**GOOD, "remaining": {"0": 1}}), "a list of two times"),
        (json.dumps({**GOOD, "remaining": [1.5, 2]}), "whole number"),
        (json.dumps({**GOOD, "remaining": [True, 2]}), "whole number"),
        (json.dumps({**GOOD, "remaining": ["1", 2]}), "whole number"),
        (json.dumps({**GOOD, "remaining": [2**60, 2]}), "out of range"),
        (json.dumps({**GOOD, "turn": 2}), "seat 0 or 1"),
        (json.dumps({**GOOD, "turn": "1"}), "whole number"),
        (json.dumps({**GOOD, "turn": None}), "runs only for a seat whose turn"),
        (json.dumps({**GOOD, "since": -1}), "milliseconds from 0"),
        (json.dumps({**GOOD, "since": 1e12}), "whole number"),
        (json.dumps({**GOOD, "resumed": 2**53}), "milliseconds from 0"),
        (json.dumps({**GOOD, "control": "none"}), "no remaining time"),
        (
            json.dumps({**GOOD, "control": "1d", "remaining": [DAY + 1, DAY]}),
            "more than 1d for a decision",
        ),
        (json.dumps({**GOOD, "since": float("nan")}), "whole number"),
    ],
)
def test_hostile_stored_clocks_are_refused(text: Any, message: str) -> None:
    with pytest.raises(ClockError, match=message):
        Clock.from_json(text)


def test_the_good_stored_clock_above_reads() -> None:
    assert Clock.from_json(json.dumps(GOOD)).deadline == T0 + 170_000


def test_a_client_gets_what_it_needs_to_show_the_clocks() -> None:
    clock = Clock.new(TimeControl.parse("3+2")).start(0, T0)
    assert clock.for_client(T0 + 1_500) == {
        "control": "3+2",
        "remaining": [178_500, 180_000],
        "turn": 0,
        "running": True,
        "deadline": T0 + 180_000,
        "since": T0,
        "now": T0 + 1_500,
    }
    shown = clock.for_client(T0 + DAY)
    assert shown["remaining"] == [0, 180_000]
    json.dumps(shown)
    paused = clock.pause(T0 + 1_000).for_client(T0 + 9_000)
    assert (paused["remaining"], paused["running"], paused["deadline"]) == (
        [179_000, 180_000],
        False,
        None,
    )


# -- abandonment -----------------------------------------------------------------------------


def test_a_claim_waits_for_30_seconds_or_a_third_of_the_absent_seats_time() -> None:
    clock = Clock.new(TimeControl.parse("3+2")).start(0, T0)
    # Seat 0 (3 minutes on its clock) leaves at once: a minute.
    assert claim_allowed_at(clock, 0, T0) == T0 + 60_000
    # Seat 1 is not to decide: its absence cannot be claimed while seat 0 decides ...
    assert claim_allowed_at(clock, 1, T0) is None
    assert not may_claim_abandoned(clock, 1, T0, T0 + 10 * 60_000)
    # ... and counts from the start of its turn, with what its clock shows then.
    theirs = clock.decision(0, T0 + 20_000, 1)
    assert claim_allowed_at(theirs, 1, T0) == T0 + 20_000 + 60_000
    # Seat 0 leaves 120 s into its turn with 60 s left: the 30-second floor.
    assert claim_allowed_at(clock, 0, T0 + 120_000) == T0 + 150_000
    # Seat 0 leaves 30 s in, 150 s left: 50 s.
    assert claim_allowed_at(clock, 0, T0 + 30_000) == T0 + 80_000
    assert not may_claim_abandoned(clock, 0, T0 + 30_000, T0 + 79_999)
    assert may_claim_abandoned(clock, 0, T0 + 30_000, T0 + 80_000)


def test_downtime_during_a_scorings_grace_keeps_what_was_left_of_it() -> None:
    """A server killed while a round's scoring showed (the next clock to start 9 s later) and
    restarted 26 s later started that clock at once: the player was charged while the scoring
    was still on screen."""
    clock = Clock.new(TimeControl.parse("3+2")).start(1, now=T0 + 10_000)
    back = clock.skip_downtime(T0 + 1_000, T0 + 27_000)
    assert back.since == T0 + 36_000 and back.remaining == clock.remaining
    assert back.remaining_at(T0 + 36_000) == clock.remaining  # nothing charged before it
    assert back.flag(T0 + 36_000 + 180_000 - 1) is None


def test_absence_counts_from_the_last_resumption() -> None:
    clock = Clock.new(TimeControl.parse("3+2")).start(0, T0)
    back = clock.skip_downtime(T0 + 10_000, T0 + 600_000)  # seat 0 was last seen before that
    # a third of the 2:50 its clock showed then
    assert claim_allowed_at(back, 0, T0 + 5_000) == T0 + 600_000 + 170_000 // 3


def test_no_claim_without_a_running_real_time_clock() -> None:
    blitz = Clock.new(TimeControl.parse("3+2"))
    assert claim_allowed_at(blitz, 1, T0) is None  # not started
    assert claim_allowed_at(blitz.start(0, T0).pause(T0 + 1), 1, T0) is None
    assert claim_allowed_at(blitz.start(0, T0).stop(T0 + 1), 1, T0) is None
    assert claim_allowed_at(Clock.new(TimeControl.parse("1d")).start(0, T0), 0, T0) is None
    assert not may_claim_abandoned(blitz, 1, T0, T0 + DAY)
    with pytest.raises(ClockError, match="seat 0 or 1"):
        claim_allowed_at(blitz, 3, T0)


# -- properties ------------------------------------------------------------------------------

controls = st.builds(TimeControl.real_time, st.sampled_from([1, 3, 5, 10]), st.integers(0, 10))
steps = st.lists(
    st.tuples(
        st.sampled_from(["decide", "decide", "decide", "pause", "resume", "downtime", "look"]),
        st.integers(0, 90_000),  # ms since the step before
        st.integers(0, 120_000),  # downtime's length
        st.sampled_from([0, 1]),  # the seat to decide next
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(controls, st.sampled_from([0, 1]), steps)
def test_charged_time_is_elapsed_time_less_pauses_plus_increments(
    control: TimeControl, first: int, plan: list[tuple[str, int, int, int]]
) -> None:
    now = T0
    clock = Clock.new(control).start(first, now)
    used = [0, 0]  # the time each seat's clock ran, by our own account
    decided = [0, 0]
    for action, wait, down, next_seat in plan:
        if clock.running:
            assert clock.turn is not None
            used[clock.turn] += wait
        now += wait
        if action == "decide" and clock.running:
            seat = clock.turn
            assert seat is not None
            if clock.flag(now) is not None:
                with pytest.raises(OutOfTimeError):
                    clock.decision(seat, now, next_seat)
                assert used[seat] > control.initial_ms + decided[seat] * control.increment_ms
                return
            clock = clock.decision(seat, now, next_seat)
            decided[seat] += 1
        elif action == "pause":
            clock = clock.pause(now)
        elif action == "resume":
            clock = clock.resume(now)
        elif action == "downtime" and clock.running:
            # The heartbeat `wait` ago: the clock ran until then, not for the `down` after it.
            clock = clock.skip_downtime(now, now + down)
            now += down
        shown = clock.remaining_at(now)
        assert shown is not None
        for seat in (0, 1):
            expected = control.initial_ms - used[seat] + decided[seat] * control.increment_ms
            assert shown[seat] == max(0, expected) >= 0
        if clock.running and clock.turn is not None:
            assert clock.deadline == now + shown[clock.turn] or clock.flag(now) is not None
        assert Clock.from_json(clock.to_json()) == clock


@settings(max_examples=200, deadline=None)
@given(
    controls,
    st.integers(0, 1),
    st.integers(0, 600_000),
    st.integers(0, 600_000),
    st.integers(0, 600_000),
)
def test_a_claim_once_allowed_stays_allowed_and_never_before_30_seconds(
    control: TimeControl, absent: int, think: int, left: int, later: int
) -> None:
    clock = Clock.new(control).start(0, T0).decision(0, T0 + min(think, 50_000), 1)
    last_seen = T0 + left
    allowed = claim_allowed_at(clock, absent, last_seen)
    if absent != clock.turn:  # gone while the other decides: nothing to claim, ever
        assert allowed is None and not may_claim_abandoned(clock, absent, last_seen, T0 + later)
        return
    assert allowed is not None
    # at least 30 s of its own turn: never counted from before the turn began
    assert allowed >= max(last_seen, T0 + min(think, 50_000)) + ABANDON_MIN_MS
    assert may_claim_abandoned(clock, absent, last_seen, allowed + later)
    assert not may_claim_abandoned(clock, absent, last_seen, allowed - 1)


def test_the_clock_dataclass_is_frozen() -> None:
    clock = Clock.new(TimeControl.parse("3+2"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        clock.turn = 1  # type: ignore[misc]
