"""Running a match: pairs as they finish, the summary kept up to date, the records written;
Ctrl-C and SIGTERM stop it cleanly."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from hanamikoji.engine import EngineError
from hanamikoji.files import write_whole
from hanamikoji.match.backends import play_pairs
from hanamikoji.match.config import MatchConfig
from hanamikoji.match.games import PairResult
from hanamikoji.match.players import SIDES, EnginePlayer, MatchError, make_player
from hanamikoji.match.summary import MatchSummary

__all__ = ["RecordsError", "Terminated", "run_match"]


class Terminated(KeyboardInterrupt):
    """SIGTERM stopped the match before it had a summary to give (its players starting)."""


class RecordsError(MatchError):
    """A game record could not be written, and the match stopped there: ``summary`` is what it
    had played (the pair whose record failed counted too: its games were played), ``stopped``
    saying why."""

    def __init__(self, message: str, summary: MatchSummary) -> None:
        super().__init__(message)
        self.summary = summary


def run_match(
    config: MatchConfig,
    *,
    on_pair: Callable[[MatchSummary], None] | None = None,
) -> MatchSummary:
    """Play the match; ``on_pair`` sees the summary after each pair.

    Ctrl-C, or SIGTERM, stops it cleanly: the summary so far comes back with ``stopped``
    ``"interrupted"`` (and ``signal`` saying which), and every worker and engine it started is
    stopped. A game record that cannot be written stops it as cleanly, with a
    :class:`RecordsError` that holds the summary so far.
    """
    with _sigterm_interrupts() as received:
        try:
            summary = _run_match(config, on_pair)
        except KeyboardInterrupt:
            if received and received[0] == signal.SIGTERM:
                raise Terminated from None
            raise
    if summary.stopped == "interrupted":
        summary.signal = received[0] if received else signal.SIGINT
    return summary


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[list[int]]:
    """While the match runs, SIGTERM raises KeyboardInterrupt, as Ctrl-C does (main thread only),
    and either does so once only: a second Ctrl-C (or a SIGTERM after it), pressed while the
    first one's cleanup runs, broke off that cleanup (an engine left running, the summary lost
    to "release unlocked lock"). The list given holds the first of them once it has come, so
    that the exit status can say which."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    owner = os.getpid()

    def interrupt(signum: int, frame: object) -> None:
        if os.getpid() != owner:
            # A worker forked a moment ago, before it set its own handler: nothing to clean up.
            os._exit(0)
        # Once only: a second SIGTERM must not break off the cleanup of the first. (Not by
        # SIG_IGN: a worker forked meanwhile would inherit it, and the pool's SIGTERM, sent
        # before the worker sets its own handler, would be discarded, the worker never ending.)
        if not received:
            received.append(signum)
            raise KeyboardInterrupt

    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, interrupt)}
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # (an ignored one stays so)
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, interrupt)
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _run_match(config: MatchConfig, on_pair: Callable[[MatchSummary], None] | None) -> MatchSummary:
    summary = MatchSummary(config.a, config.b, config.pairs * 2, sprt=config.sprt)
    checking = time.monotonic()
    try:
        _check_players(config)
    except KeyboardInterrupt:  # while an engine starts: the (empty) summary says so
        summary.stopped = "interrupted"
        summary.elapsed = time.monotonic() - checking
        return summary
    if config.records is not None:
        _make_records_folder(config.records)
    start = time.monotonic()
    results = play_pairs(config)
    failed: MatchError | None = None
    try:
        for pair in results:
            try:
                _write_records(config, pair)
            except MatchError as e:
                # The games were played: their results are shown with the error, not lost to it.
                summary.add(pair)
                summary.stopped = "a game record could not be written"
                failed = e
                break
            summary.add(pair)
            summary.elapsed = time.monotonic() - start
            if on_pair is not None:
                on_pair(summary)
            if summary.verdict is not None:
                summary.stopped = f"SPRT accepted {summary.verdict}"
                break
    except KeyboardInterrupt:
        summary.stopped = "interrupted"
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()
    summary.elapsed = time.monotonic() - start
    if failed is not None:
        raise RecordsError(str(failed), summary) from None
    return summary


def _check_players(config: MatchConfig) -> None:
    """Fail early, in this process, on a bad player spec or an engine that cannot start."""
    for side, spec in zip(SIDES, (config.a, config.b), strict=True):
        player = make_player(spec)
        try:
            if isinstance(player, EnginePlayer):
                try:
                    player._get()
                except EngineError as e:
                    raise MatchError(f"player {side} ({spec}): {e}") from None
        finally:
            player.close()


def _make_records_folder(folder: Path) -> None:
    """Make the records folder (and its parents), or say in plain words why it cannot be."""
    # A file where a folder must be: mkdir's "[Errno 17] File exists" would not say which.
    for path in (folder, *folder.parents):
        if path.exists() and not path.is_dir():
            raise MatchError(
                f"cannot make the records folder {folder}: {path} is a file, not a folder"
            )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        held = sorted(p.name for p in folder.glob(RECORD_GLOB))
    except OSError as e:
        why = e.strerror or str(e)
        raise MatchError(f"cannot make the records folder {folder}: {why}") from None
    # The new games would overwrite some of those and leave the rest: two matches in one folder.
    if held:
        shown = ", ".join(held[:2]) + (", ..." if len(held) > 2 else "")
        raise MatchError(
            f"the records folder {folder} already holds {len(held)} game record"
            f"{'s' if len(held) != 1 else ''} ({shown}), of another match: give a new or empty "
            "folder (or move those records away)"
        )


RECORD_GLOB = "game-*.json"
"""The records a match writes (``game-00001.json``, ...); a folder holding some is refused."""


def _write_records(config: MatchConfig, pair: PairResult) -> None:
    """Write the pair's game records, each whole or not at all: a full disk or a stop while one
    is written leaves no half record that a reader of the folder would choke on."""
    if config.records is None:
        return
    for g in pair.games:
        path = config.records / f"game-{g.number:05d}.json"
        try:
            write_whole(path, json.dumps(g.record, indent=1) + "\n", sync=False)
        except OSError as e:  # a full disk, the folder removed: what, not a traceback
            why = e.strerror or str(e)
            raise MatchError(f"cannot write the game record {path}: {why}") from None
