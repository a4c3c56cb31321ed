"""Reading and writing the files a user names, safely.

Three rules, kept here so that no reader or writer has to remember them:

- A file is read only if it is a regular file, no larger than a cap. A FIFO would block the
  open (or the read) forever, a socket cannot be read as a file at all, and a device such as
  `/dev/zero` never ends: each is refused at once, before a byte is read. A symlink to a
  regular file is read like the file (case directories may use them).
- A file is replaced atomically (`write_atomically`): a reader sees the old file or the whole
  new one, and a symlink at the path is replaced, never written through.
- A file that must be appended to or written in place (`open_for_writing`) is opened without
  following a symlink at its final path, and only if it is a regular file.

Every refusal is a `RefusedFileError`, an `OSError` whose `reason` (also its `strerror`) says
why in words that follow the path; `str()` gives both: `x.yaml: not a regular file (a FIFO)`.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

# O_NONBLOCK: opening a FIFO returns at once instead of waiting for the other end (to write,
# a FIFO with no reader fails the open). It changes nothing for a regular file, the only kind
# used after the open. O_NOCTTY: a terminal opened by mistake does not become ours.
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CHUNK = 1024 * 1024
"""Bytes asked for at a time once the size the file had when opened has been read."""


class RefusedFileError(OSError):
    """A file gauntlet will not read or write, and why: `x.yaml: not a regular file (a FIFO)`.

    Attributes:
        path: The file, as the caller named it.
        reason: Why it is refused (also the `strerror`).
    """

    def __init__(self, code: int, reason: str, path: str | os.PathLike[str]) -> None:
        super().__init__(code, reason, os.fspath(path))
        self.path = Path(path)
        self.reason = reason

    def __str__(self) -> str:
        """`path: reason`, ready to print."""
        return f"{self.path}: {self.reason}"


class NotRegularFileError(RefusedFileError):
    """A FIFO, socket, device or directory where a regular file belongs."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        self.kind = describe_kind(mode)
        super().__init__(errno.EINVAL, f"not a regular file ({self.kind})", path)


class FileTooLargeError(RefusedFileError):
    """A file over the size cap of what it should be; refused before it is read.

    Attributes:
        size: The file's size in bytes when it was refused.
        limit: The cap it is over.
    """

    def __init__(self, path: str | os.PathLike[str], size: int, limit: int, what: str) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            errno.EFBIG, f"file is {size:,} bytes, over the {limit:,}-byte limit for {what}", path
        )


class SymlinkRefusedError(RefusedFileError):
    """A symlink at a path gauntlet writes to in place: following it could write anywhere."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(errno.ELOOP, "refusing to write through a symlink", path)


def describe_kind(mode: int) -> str:
    """What a file of `mode` (from `os.stat`) is, with its article: `a FIFO`, `a directory`."""
    for test, kind in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return kind
    return "a special file"  # pragma: no cover - a door or whiteout, on other systems


def read_regular_file(path: Path, *, limit: int, what: str) -> bytes:
    """Read `path` whole, if it is a regular file of at most `limit` bytes.

    The kind is checked before opening (opening a device can act on it, a tape rewinds) and
    again on the opened descriptor (the path may have changed in between); the size is
    checked on the descriptor before reading, and no more than `limit + 1` bytes are read,
    so a file that grows while it is read is refused too. A symlink to a regular file is
    read like the file.

    Args:
        path: The file, as the user named it.
        limit: The largest size accepted, in bytes.
        what: What the file should be, for the message: `a case file`, `a results file`.

    Raises:
        NotRegularFileError: a FIFO, socket, device or directory.
        FileTooLargeError: more than `limit` bytes, by its size or by what was read.
        OSError: the file cannot be opened or read (missing, permission denied, ...).
    """
    _check_kind(path, os.stat(path).st_mode)
    descriptor = os.open(path, _READ_FLAGS)
    try:
        status = os.fstat(descriptor)
        _check_kind(path, status.st_mode)
        if status.st_size > limit:
            raise FileTooLargeError(path, status.st_size, limit, what)
        data = _read_at_most(descriptor, status.st_size, limit + 1)
    finally:
        os.close(descriptor)
    if len(data) > limit:
        # It grew while it was read: report at least what was seen.
        raise FileTooLargeError(path, max(len(data), status.st_size), limit, what)
    return data


def read_or_raise(path: Path, *, limit: int, what: str, error: Callable[[str], Exception]) -> bytes:
    """`read_regular_file`, with every failure raised as `error(message)`.

    A refusal says why as `RefusedFileError` does (`x.json: not a regular file (a FIFO)`);
    any other `OSError` says `x.json: cannot read: why`, and is kept as the cause.

    Raises:
        Exception: `error(message)`, when `read_regular_file` raises.
    """
    try:
        return read_regular_file(path, limit=limit, what=what)
    except RefusedFileError as exc:
        raise error(str(exc)) from None
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from exc


def _read_at_most(descriptor: int, expected: int, most: int) -> bytes:
    """Up to `most` bytes: first the `expected` size and one more to see growth, then chunks."""
    parts: list[bytes] = []
    total = 0
    request = min(expected + 1, most)
    while total < most:
        chunk = os.read(descriptor, request)
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        request = min(_CHUNK, most - total)
    return b"".join(parts)  # one part, the usual case, is returned without a copy


def write_atomically(path: Path, text: str | Iterable[str], *, mode: int | None = None) -> None:
    """Write `text` (UTF-8) to `path` through a temporary file in the same directory.

    The temporary file is renamed over `path`, so a symlink at `path` is replaced by the new
    file and its target is left alone. Line ends are written as `text` has them, on any system.

    Args:
        path: The file to write.
        text: Its whole content, or its pieces in order (a large file is then never held
            whole; an exception raised while they are made leaves nothing behind).
        mode: The permissions to create it with, less the umask, as `open` would (`0o666` for
            a file others may read, such as a web page). Without it the file is private to
            its owner (`0o600`).

    A FIFO, socket, device or directory at `path` is refused, never replaced: renaming over
    `/dev/null` would put a regular file where every program expects the device.

    Raises:
        NotRegularFileError: `path` is neither a regular file, a symlink, nor missing.
        OSError: the file cannot be written; nothing is left behind.
    """
    try:
        before = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if not (stat.S_ISREG(before.st_mode) or stat.S_ISLNK(before.st_mode)):
            raise NotRegularFileError(path, before.st_mode)
    directory = path.parent if str(path.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if mode is not None:
            os.fchmod(handle, mode & ~_umask())
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            if isinstance(text, str):
                out.write(text)
            else:
                for piece in text:
                    out.write(piece)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def open_for_writing(path: Path, *, append: bool) -> TextIO:
    """Open `path` to write UTF-8 text in place: appended to, or emptied first.

    For a file that cannot be replaced whole: one GitHub hands over to append to, or a journal
    written line by line. A missing file is created. A symlink at `path` is refused, never
    followed (the open itself uses `O_NOFOLLOW`, so a link put there after the check fails it
    too), and so is anything that is not a regular file; directories above `path` may be
    symlinks.

    Args:
        path: The file, as the user named it.
        append: Write after what the file holds; otherwise empty it first.

    Raises:
        SymlinkRefusedError: `path` is a symlink.
        NotRegularFileError: `path` is a FIFO, socket, device or directory.
        OSError: the file cannot be opened.
    """
    check_writable_in_place(path)
    flags = _WRITE_FLAGS | (os.O_APPEND if append else os.O_TRUNC)
    descriptor = os.open(path, flags, 0o666)
    try:
        # Checked again on what was opened: the path may have changed since.
        _check_kind(path, os.fstat(descriptor).st_mode)
        os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return os.fdopen(descriptor, "w", encoding="utf-8", newline="\n")


def check_writable_in_place(path: Path) -> None:
    """Refuse `path` for `open_for_writing` now, before any other work: see its rules.

    A missing file passes (it will be created). Opening checks again, without a race;
    checking first also means opening a device or a FIFO never acts on it or blocks.

    Raises:
        SymlinkRefusedError: `path` is a symlink.
        NotRegularFileError: `path` is a FIFO, socket, device or directory.
    """
    try:
        before = os.lstat(path)
    except FileNotFoundError:
        return
    _check_kind(path, before.st_mode)


def _umask() -> int:
    # The umask can only be read by setting it: it is put back at once, and a file
    # created by another thread in between is made more private, not less.
    current = os.umask(0o077)
    os.umask(current)
    return current


def _check_kind(path: Path, mode: int) -> None:
    if stat.S_ISLNK(mode):
        raise SymlinkRefusedError(path)
    if not stat.S_ISREG(mode):
        raise NotRegularFileError(path, mode)
