"""Reading and writing user-named files: regular files only, capped, never through a link."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from gauntlet.files import (
    FileTooLargeError,
    NotRegularFileError,
    read_regular_file,
    write_atomically,
)

VICTIM = "untouched\n"


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM, encoding="utf-8")
    return victim


def _read(path: Path, limit: int = 1024) -> bytes:
    return read_regular_file(path, limit=limit, what="a test file")


# ------------------------------------------------------------------ read_regular_file


def test_a_regular_file_is_read_whole_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"12345")
    assert _read(path, limit=5) == b"12345"
    (tmp_path / "empty").write_bytes(b"")
    assert _read(tmp_path / "empty") == b""


def test_a_symlink_to_a_regular_file_is_read_like_the_file(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(_victim(tmp_path))
    assert _read(tmp_path / "link") == VICTIM.encode()


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(NotRegularFileError) as caught:
        _read(tmp_path / "fifo")
    assert str(caught.value) == f"{tmp_path / 'fifo'}: not a regular file (a FIFO)"
    assert caught.value.kind == "a FIFO"


def test_a_socket_a_directory_and_a_device_are_refused(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(tmp_path / "s"))
        with pytest.raises(NotRegularFileError, match=r"\(a socket\)"):
            _read(tmp_path / "s")
    with pytest.raises(NotRegularFileError, match=r"\(a directory\)"):
        _read(tmp_path)
    (tmp_path / "zero").symlink_to("/dev/zero")
    with pytest.raises(NotRegularFileError, match=r"\(a character device\)"):
        _read(tmp_path / "zero")


def test_an_oversized_file_is_refused_before_a_byte_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big"
    with path.open("wb") as handle:
        handle.truncate(2**40)  # sparse: a terabyte that costs no disk

    def never(descriptor: int, size: int) -> bytes:
        raise AssertionError("an oversized file must not be read")

    with monkeypatch.context() as patched, pytest.raises(FileTooLargeError) as caught:
        patched.setattr(os, "read", never)
        _read(path, limit=10)
    assert (caught.value.size, caught.value.limit) == (2**40, 10)
    assert caught.value.reason == (
        "file is 1,099,511,627,776 bytes, over the 10-byte limit for a test file"
    )


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_a_file_longer_than_its_size_says_is_read_no_further_than_the_limit() -> None:
    # /proc files report size 0 and hold more: the same as a file that grows while read.
    with pytest.raises(FileTooLargeError) as caught:
        _read(Path("/proc/self/status"), limit=100)
    assert caught.value.size == 101  # what was read: the limit and one byte more


def test_a_path_that_changes_into_a_device_after_the_check_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    regular = os.stat(_victim(tmp_path))
    monkeypatch.setattr(os, "stat", lambda path: regular)
    with pytest.raises(NotRegularFileError, match=r"\(a character device\)"):
        _read(Path("/dev/null"))


def test_a_missing_file_is_a_plain_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        _read(tmp_path / "missing")


# ------------------------------------------------------------------ write_atomically


def test_write_atomically_replaces_a_symlink_and_leaves_its_target_alone(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    link = tmp_path / "out.md"
    link.symlink_to(victim)
    write_atomically(link, "new\n")
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert not link.is_symlink()
    assert link.read_text(encoding="utf-8") == "new\n"
