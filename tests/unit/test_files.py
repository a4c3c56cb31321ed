"""Reading and writing user-named files: regular files only, capped, never through a link."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from gauntlet.files import (
    FileTooLargeError,
    NotRegularFileError,
    RefusedFileError,
    SymlinkRefusedError,
    open_for_writing,
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


def test_write_atomically_never_replaces_a_device_a_fifo_or_a_directory(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    # /dev/null last: were the check missing, the FIFO would fail the test before the device
    # was replaced.
    for path, kind in (
        (tmp_path / "fifo", "a FIFO"),
        (tmp_path / "dir", "a directory"),
        (Path("/dev/null"), "a character device"),
    ):
        with pytest.raises(NotRegularFileError, match=rf"not a regular file \({kind}\)"):
            write_atomically(path, "x")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)  # still the device
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode)
    assert {path.name for path in tmp_path.iterdir()} == {"fifo", "dir"}  # no temporary left


def test_write_atomically_is_private_unless_a_mode_is_given(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        write_atomically(tmp_path / "private", "x")
        write_atomically(tmp_path / "page", "x", mode=0o666)
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "private").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "page").stat().st_mode) == 0o644


# ------------------------------------------------------------------ open_for_writing


def test_open_for_writing_appends_or_empties_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "out"
    for text in ("one\n", "two\n"):
        with open_for_writing(path, append=True) as handle:
            handle.write(text)
    assert path.read_text(encoding="utf-8") == "one\ntwo\n"
    with open_for_writing(path, append=False) as handle:
        handle.write("three\n")
    assert path.read_text(encoding="utf-8") == "three\n"


@pytest.mark.parametrize("append", [True, False], ids=["append", "truncate"])
def test_open_for_writing_refuses_a_symlink_even_a_dangling_one(
    tmp_path: Path, append: bool
) -> None:
    victim = _victim(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(victim)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "would-be-created")
    for path in (link, dangling):
        with pytest.raises(SymlinkRefusedError) as caught:
            open_for_writing(path, append=append)
        assert str(caught.value) == f"{path}: refusing to write through a symlink"
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert not (tmp_path / "would-be-created").exists()


def test_open_for_writing_refuses_a_fifo_and_a_directory_without_blocking(
    tmp_path: Path,
) -> None:
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(NotRegularFileError, match=r"\(a FIFO\)"):
        open_for_writing(tmp_path / "fifo", append=True)
    with pytest.raises(NotRegularFileError, match=r"\(a directory\)"):
        open_for_writing(tmp_path, append=True)


def test_open_for_writing_checks_what_it_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(path: Path) -> os.stat_result:
        raise FileNotFoundError(2, "No such file or directory")

    # The path looked free, but a device was there when opened.
    monkeypatch.setattr(os, "lstat", missing)
    with pytest.raises(NotRegularFileError, match=r"\(a character device\)"):
        open_for_writing(Path("/dev/null"), append=True)


def test_open_for_writing_refuses_a_symlink_put_there_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = tmp_path / "link"
    link.symlink_to(_victim(tmp_path))
    regular = os.stat(tmp_path / "victim.txt")
    monkeypatch.setattr(os, "lstat", lambda path: regular)
    with pytest.raises(OSError) as caught:  # O_NOFOLLOW refuses it in the open itself
        open_for_writing(link, append=True)
    assert not isinstance(caught.value, RefusedFileError)
    assert (tmp_path / "victim.txt").read_text(encoding="utf-8") == VICTIM
