"""Real file-system faults for the fault tests: a small tmpfs that fills up, read-only bind mounts.

Mounting needs root (the test machines run as root); elsewhere the tests that need it are
skipped with the reason. Every mount is undone at teardown, even when a test fails.
"""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest


class Mounts:
    def __init__(self) -> None:
        self._mounted: list[Path] = []

    def tmpfs(self, path: Path, size: str = "16m") -> Path:
        """A file system of `size` at `path` (created), to fill up: room for a state directory's
        database, snapshots and the recall stage's common-words table (about 6.5 MB)."""
        path.mkdir(parents=True, exist_ok=True)
        self._run("mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
        self._mounted.append(path)
        return path

    def read_only(self, path: Path) -> Path:
        """`path` (a directory or file) becomes read-only, even for root, until `release`."""
        self._run("mount", "--bind", str(path), str(path))
        self._mounted.append(path)
        self._run("mount", "-o", "remount,bind,ro", str(path))
        return path

    def release(self, path: Path) -> None:
        self._run("umount", str(path))
        self._mounted.remove(path)

    def close(self) -> None:
        for path in reversed(self._mounted):
            subprocess.run(["umount", "-l", str(path)], capture_output=True)
        self._mounted.clear()

    @staticmethod
    def _run(*args: str) -> None:
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode:
            raise OSError(errno.EPERM, done.stderr.strip() or "mount failed", args[-1])


@pytest.fixture
def mounts(tmp_path: Path):
    """Mount helper; skips the test where mounting is not permitted."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs or a read-only bind mount needs root")
    probe = tmp_path / "mount-probe"
    helper = Mounts()
    try:
        helper.tmpfs(probe, "64k")
        helper.release(probe)
    except OSError as exc:
        pytest.skip(f"mount is not permitted here: {exc.strerror}")
    try:
        yield helper
    finally:
        helper.close()


def fill(directory: Path) -> Path:
    """Write zeros into `directory` until its file system is full; returns the filler file."""
    filler = directory / "filler"
    block = b"\0" * 65536
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(block)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
    return filler
