"""The batch calls release the GIL around their C loops (DESIGN.md section 2), proven without timing.

Method: the interpreter's switch interval is raised to 5 s, so a thread holding the GIL is not asked
to give it up for 5 s. A counter thread waits on an Event (blocked, GIL released); the main thread
sets the Event and immediately makes one large batch call, then reads the counter as soon as the
call returns. If the call held the GIL, the woken counter thread could not run until the call
returned and the main thread went on for up to 5 s, so the counter would still be 0. If the call
releases the GIL, the counter thread runs during it and the counter is large. The counter thread
calls ``time.sleep(0)`` every few increments so that the main thread gets the GIL back promptly
after the call (a busy thread would otherwise keep it for the whole switch interval). No wall-clock
time is asserted; the only requirement is that one call takes less than 5 s, which at well under a
microsecond per pose holds by orders of magnitude.
"""
from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

from conftest import random_q_in_limits

SWITCH_INTERVAL_S = 5.0


@pytest.fixture
def long_switch_interval():
    old = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def count_during(call):
    """Run ``call()`` in this thread; return (its result, increments a second thread made meanwhile)."""
    state = {"count": 0, "stop": False}
    go = threading.Event()

    def counter():
        go.wait()
        n = 0
        while not state["stop"]:
            n += 1
            state["count"] = n
            if n % 32 == 0:
                time.sleep(0)  # hand the GIL back promptly if the main thread wants it
    thread = threading.Thread(target=counter, daemon=True)
    thread.start()
    time.sleep(0.05)  # let the counter thread block in go.wait() (not required for correctness)
    go.set()
    try:
        result = call()
        seen = state["count"]
    finally:
        state["stop"] = True
        go.set()
        thread.join(timeout=30)
    assert not thread.is_alive()
    return result, seen


def test_ik_batch_releases_the_gil(arm, rng, long_switch_interval):
    """A second Python thread makes progress while one ik_batch call on 200,000 poses runs."""
    Ts = np.repeat(arm.fk(random_q_in_limits(arm, rng, 8)), 25_000, axis=0)
    qc = np.zeros(6)
    (Q, ok), count = count_during(lambda: arm.ik_batch(Ts, qc))
    assert ok.all() and Q.shape == (200_000, 6)
    assert count > 1000, f"the counter thread advanced only {count} times during ik_batch: GIL held?"


def test_fk_batch_releases_the_gil(arm, rng, long_switch_interval):
    """A second Python thread makes progress while one fk call on (N, 6) configurations runs."""
    Q = np.repeat(random_q_in_limits(arm, rng, 8), 62_500, axis=0)
    T, count = count_during(lambda: arm.fk(Q))
    assert T.shape == (500_000, 4, 4)
    assert np.array_equal(T[::62_500], arm.fk(Q[::62_500]))
    assert count > 1000, f"the counter thread advanced only {count} times during fk: GIL held?"


def test_method_detects_a_gil_holding_call(long_switch_interval):
    """Negative control: a pure-Python loop (which holds the GIL) lets the counter make no progress,
    so the two tests above would fail for a batch call that kept the GIL."""
    total, count = count_during(lambda: sum(range(2_000_000)))
    assert total == 1999999000000
    assert count < 1000, f"the counter advanced {count} times during a GIL-holding call: the method is broken"


def test_concurrent_batches_agree(arm, rng):
    """ik_batch from several threads at once gives each thread the same answer as a serial call
    (the core keeps no mutable state, so this must hold)."""
    Ts = arm.fk(random_q_in_limits(arm, rng, 2000))
    expected_Q, expected_ok = arm.ik_batch(Ts, np.zeros(6))
    results = [None] * 4

    def work(k):
        results[k] = arm.ik_batch(Ts, np.zeros(6))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for Q, ok in results:
        assert np.array_equal(Q, expected_Q, equal_nan=True) and np.array_equal(ok, expected_ok)
