"""Finding and stopping every process an engine started, wherever it went.

An engine runs in a process group of its own, but a child of it can leave that group (``setsid``,
a helper daemon, a double fork) and outlive the engine, its parent then being init. So each
engine is started with a tag in its environment (:data:`TAG_VARIABLE`), which its children
inherit; stopping the engine stops the processes below it and every process bearing its tag.
This reads Linux's ``/proc``; where there is none, only the process group is stopped.

A process that both leaves the group and clears its environment (``env -i``) before its parent
exits is not found: nothing on the system then ties it to the engine.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
from collections.abc import Iterable, Mapping

__all__ = ["OWNER", "TAG_VARIABLE", "environment", "new_tag", "own_prefix", "stop"]

TAG_VARIABLE = "HANAMIKOJI_ENGINE_TAG"
"""The environment variable that marks an engine's processes: tags separated by commas, one for
each referee above it (an engine that is itself a referee keeps its referee's tag)."""

_PROC = "/proc"
_ROUNDS = 10
"""Scans at most, each stopping what it found: a process forking as fast as it can is stopped
within a few, since each new child bears the tag."""
OWNER = secrets.token_hex(6)
"""This process's part of its engines' tags, the same in the worker processes it forks (the
module is imported before), so that :func:`stop` can find all of them by it."""


def new_tag() -> str:
    """A tag for one engine, unique across processes (a pid alone would be reused), starting
    with :func:`own_prefix`."""
    return own_prefix() + secrets.token_hex(6)


def own_prefix() -> str:
    """The start of the tags of the engines this process starts (not those of its workers)."""
    return f"{OWNER}-{os.getpid()}-"


def environment(tag: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (this process's environment), with ``tag`` added to :data:`TAG_VARIABLE`."""
    env = dict(os.environ if base is None else base)
    before = env.get(TAG_VARIABLE, "")
    env[TAG_VARIABLE] = f"{before},{tag}" if before else tag
    return env


def stop(roots: Iterable[int], tags: Iterable[str] = (), *, prefix: str = "") -> None:
    """SIGKILL the processes ``roots``, those below them, and those bearing one of ``tags`` (or a
    tag starting with ``prefix``), until none is left; without /proc, nothing (the caller stops
    the process group). A root is a child of ours not yet waited for (one whose parent is not
    this process is left alone: its pid may be another's now). Never this process; no error if a
    process is already gone or not ours. Safe in a signal handler: it touches no engine's pipes.
    """
    wanted = set(tags)
    me = os.getpid()
    roots = set(roots)
    for _ in range(_ROUNDS):
        table = _table()
        if table is None:
            return
        ours = {pid for pid in roots if table.get(pid, (0, ""))[0] == me}  # (not a pid reused)
        found = _below(ours | _tagged(table, wanted, prefix), table)
        found = {pid for pid in found if pid in table and table[pid][1] != "Z" and pid != me}
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        roots = set()  # the roots are dead; what is left bears a tag or was below them


def _table() -> dict[int, tuple[int, str]] | None:
    """Every process's parent and state (one letter, ``Z`` for a zombie), or None without /proc."""
    try:
        names = os.listdir(_PROC)
    except OSError:
        return None
    table: dict[int, tuple[int, str]] = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"{_PROC}/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # gone meanwhile
        # pid (comm) state ppid ...: comm may hold spaces and parentheses; the last ")" ends it.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 2:
            table[int(name)] = (int(fields[1]), fields[0].decode("ascii", "replace"))
    return table


def _tagged(table: Mapping[int, tuple[int, str]], tags: set[str], prefix: str) -> set[int]:
    """The processes whose environment bears one of ``tags``, or a tag starting with ``prefix``."""
    if not tags and not prefix:
        return set()
    key = TAG_VARIABLE.encode() + b"="
    found = set()
    for pid, (_, state) in table.items():
        if state == "Z":
            continue
        try:
            with open(f"{_PROC}/{pid}/environ", "rb") as f:
                environ = f.read()
        except OSError:
            continue  # not ours to read, or gone
        for entry in environ.split(b"\0"):
            if entry.startswith(key):
                marks = entry[len(key) :].decode("ascii", "replace").split(",")
                if any(m in tags or (prefix and m.startswith(prefix)) for m in marks):
                    found.add(pid)
                break
    return found


def _below(roots: set[int], table: Mapping[int, tuple[int, str]]) -> set[int]:
    """``roots`` and all their descendants in ``table``."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found = set()
    todo = list(roots)
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found
