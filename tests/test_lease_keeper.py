"""The lease held by one-shot commands: renewed while they run, and lost loudly."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest

from consolidator.runtime.lease_keeper import LeaseHeld, LeaseKeeper
from stores import lease

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def test_keeper_renews_past_the_ttl_and_releases(app):
    """A command outliving the lease TTL keeps the lease (renewed), and releases it at the end."""
    clock = Clock()
    me = lease.Holder(holder="here:1:once", host="here", pid=1)
    rival = lease.Holder(holder="elsewhere:2", host="elsewhere", pid=2)
    ttl = timedelta(seconds=0.2)
    with LeaseKeeper(app.engine, me, ttl, clock) as keeper:
        clock.now = T0 + timedelta(seconds=0.1)
        renewed = threading.Event()
        for _ in range(50):  # wait (bounded) until the renewal thread has run at the new time
            info = lease.current(app.engine)
            if info and info.expires_at > T0 + ttl:
                renewed.set()
                break
            threading.Event().wait(0.02)
        assert renewed.is_set()
        assert not lease.acquire(app.engine, rival, clock.now, ttl)
        assert not keeper.lost.is_set()
    assert lease.current(app.engine) is None


def test_keeper_refuses_a_live_lease(app):
    """Another live holder makes the keeper raise LeaseHeld (the CLI turns it into exit 3)."""
    rival = lease.Holder(holder="elsewhere:2", host="elsewhere", pid=2)
    assert lease.acquire(app.engine, rival, T0, timedelta(minutes=5))
    with pytest.raises(LeaseHeld):
        with LeaseKeeper(app.engine, lease.Holder.this_process("x"), timedelta(minutes=1), lambda: T0):
            pass
