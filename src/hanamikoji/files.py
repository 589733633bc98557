"""Files written whole: a game record, a tournament's state, a match's game records.

A reader (or the next run) finds such a file as it was before or as it is after, never half
written: the text goes to a temporary file beside it, flushed to the disk, which then takes the
file's name in one step. The temporary file is removed whatever stops the write (an error, a
full disk, Ctrl-C, a signal handler that raises).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

__all__ = ["is_stream", "real_target", "sync_folder", "temporary_beside", "write_whole"]

_NO_LINKS = frozenset(
    getattr(errno, name)
    for name in ("EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EMLINK", "EACCES")
    if hasattr(errno, name)
)
"""What ``os.link`` fails with where the file system has no hard links (FAT, some shares)."""


def real_target(path: Path) -> Path:
    """The file that writing ``path`` replaces: a symbolic link's target, so that the link
    stays a link."""
    return Path(os.path.realpath(path))


def is_stream(target: Path) -> bool:
    """Whether ``target`` exists and is neither a regular file nor a folder (``/dev/null``, a
    pipe): written directly, as it cannot be replaced by a file."""
    return target.exists() and not target.is_file() and not target.is_dir()


def write_whole(path: Path, data: str | bytes, *, replace: bool = True, sync: bool = True) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all.

    ``replace``: an existing file is replaced (its mode kept); otherwise a file that exists,
    even one made a moment before the write ends, is left as it is and FileExistsError raised.
    ``sync``: flushed to the disk before it takes the name, so that a power cut finds it whole
    too (a match's thousands of records skip it: it doubled the time of fast games).
    A device or a pipe is written directly. Any other failure is an OSError, ``path`` as it was.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    target = real_target(path)
    if is_stream(target):
        with target.open("wb") as f:
            f.write(raw)
        return
    if not replace and os.path.lexists(target):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path))
    made: list[Path] = []  # its name, known before the file is made
    try:
        temporary = temporary_beside(target, raw, sync=sync, made=made)
        if replace:
            os.replace(temporary, target)
        else:
            _link_new(temporary, target)
    finally:
        # After os.replace the name is gone; after a link it is a second name of the file; after
        # a failure (or a signal, even one that lands as the file is made) it is the whole
        # temporary file: none may stay.
        for name in made:
            with contextlib.suppress(OSError):
                name.unlink(missing_ok=True)
    if sync:
        sync_folder(target.parent)


def _link_new(temporary: Path, target: Path) -> None:
    """Give ``temporary``'s file the name ``target`` only if no file has it (FileExistsError).

    A hard link is made or refused in one step. Where the file system has none, the name is
    taken first by a new empty file (made only if absent), then replaced by the whole file.
    """
    try:
        os.link(temporary, target)
        return
    except FileExistsError:
        raise
    except (AttributeError, NotImplementedError):
        pass
    except OSError as e:
        if e.errno not in _NO_LINKS:
            raise
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    os.close(fd)
    try:
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            target.unlink()  # the empty file just made, not someone else's
        raise


def temporary_beside(
    target: Path, data: bytes, *, sync: bool = True, made: list[Path] | None = None
) -> Path:
    """A new file holding ``data``, flushed to the disk (unless not ``sync``), beside ``target``
    (a rename within one folder is atomic) and with the permissions ``target`` has or a new
    file would get; removed again if it cannot be written whole (Ctrl-C included, however
    soon after it is made). ``made``: its name is added there before the file is made, so that
    a caller may remove it even should a signal land as this returns."""
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    names = made if made is not None else []
    fd: int | None = None
    try:
        while True:
            # A short stem: a name near the system's limit still leaves room for the suffix.
            temporary = target.with_name(f".{target.name[:64]}.{secrets.token_hex(4)}.tmp")
            names.append(temporary)
            try:
                # 0o666 less the umask: what a new file of that name would get
                fd = os.open(temporary, flags, 0o666)
                break
            except FileExistsError:
                names.remove(temporary)  # a name drawn twice (not this call's file): another
        f = open(fd, "wb")  # noqa: SIM115 (it owns fd from here on: closed by the with)
        fd = None
        with f:
            f.write(data)
            f.flush()
            if sync:
                os.fsync(f.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
    except BaseException:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        for name in names:
            with contextlib.suppress(OSError):
                name.unlink(missing_ok=True)
        raise
    return temporary


def sync_folder(folder: Path) -> None:
    """Flush ``folder``'s entries to the disk, so that a new name survives a power cut (where
    a folder cannot be opened, as on Windows, the rename stands as it is)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
