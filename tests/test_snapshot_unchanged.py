"""A snapshot write of the bytes the file already holds is skipped (no temporary file, no rename,
the same inode), the file and its directory fsynced; any other state of the file is rewritten
atomically as before."""

from __future__ import annotations

import os

import pytest

from stores.files import snapshots
from stores.files.snapshots import publish_json, publish_text


@pytest.fixture
def calls(monkeypatch):
    seen = {"fsync": 0, "replace": 0}
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        seen["fsync"] += 1
        real_fsync(fd)

    def replace(src, dst):
        seen["replace"] += 1
        real_replace(src, dst)

    monkeypatch.setattr(snapshots.os, "fsync", fsync)
    monkeypatch.setattr(snapshots.os, "replace", replace)
    return seen


def test_same_bytes_are_not_rewritten(tmp_path, calls):
    path = publish_json(tmp_path, "maya", "time/day.json", {"text": "a"})
    inode = path.stat().st_ino
    assert calls == {"fsync": 2, "replace": 1}
    publish_json(tmp_path, "maya", "time/day.json", {"text": "a"})
    assert calls == {"fsync": 4, "replace": 1} and path.stat().st_ino == inode  # file and directory synced
    publish_json(tmp_path, "maya", "time/day.json", {"text": "b"})
    assert calls == {"fsync": 6, "replace": 2} and path.stat().st_ino != inode
    assert path.read_text() == '{\n "text": "b"\n}'
    assert [p.name for p in path.parent.iterdir()] == ["day.json"]  # no temporary file left


def test_other_bytes_a_longer_file_or_none_are_rewritten(tmp_path, calls):
    path = publish_text(tmp_path, "maya", "context.md", "hello")
    path.write_text("jello")  # same size, other bytes
    publish_text(tmp_path, "maya", "context.md", "hello")
    assert path.read_text() == "hello" and calls["replace"] == 2
    path.write_text("hello!")  # the bytes as a prefix
    publish_text(tmp_path, "maya", "context.md", "hello")
    assert path.read_text() == "hello" and calls["replace"] == 3
    path.unlink()
    publish_text(tmp_path, "maya", "context.md", "hello")
    assert path.read_text() == "hello" and calls["replace"] == 4


def test_an_unreadable_file_is_still_replaced(tmp_path, calls):
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path = publish_text(tmp_path, "maya", "context.md", "hello")
    path.chmod(0o200)
    publish_text(tmp_path, "maya", "context.md", "hello")
    assert calls["replace"] == 2 and path.read_text() == "hello"
