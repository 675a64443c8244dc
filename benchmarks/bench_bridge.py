#!/usr/bin/env python3
"""firmware_bridge benchmark: codec throughput (C and through Python), round trips to the
reference firmware on a pseudo-terminal, and bytes on the wire per setpoint. Prints tables.

    python benchmarks/bench_bridge.py
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from firmware_bridge import protocol as P
from firmware_bridge.streamer import Streamer
from piperik import _core


def codec_rows():
    print("| what | frames/s | notes |")
    print("|---|---|---|")
    for n in (6, 7):
        fps = statistics.median(_core.proto_bench_fps(n, 200_000) for _ in range(5))
        print(f"| C codec, {n}-joint SETPOINT encode + parse | {fps:,.0f} | pik_frame_build + pik_parser_feed, per frame |")
    payload = P.setpoint([12345] * 7)
    t0 = time.perf_counter()
    N = 50_000
    for i in range(N):
        P.encode(P.SETPOINT, i & 0xFFFF, payload)
    enc = N / (time.perf_counter() - t0)
    wire = b"".join(P.encode(P.SETPOINT, i & 0xFFFF, payload) for i in range(N))
    parser = P.Parser()
    t0 = time.perf_counter()
    frames = parser.feed(wire)
    dec = N / (time.perf_counter() - t0)
    assert len(frames) == N
    t0 = time.perf_counter()
    for i in range(N):
        P.encode(P.SETPOINT, i & 0xFFFF, P.setpoint([12345 + i] * 7))
    full = N / (time.perf_counter() - t0)
    print(f"| Python encode (C codec via the extension), 7 joints | {enc:,.0f} | payload packed once |")
    print(f"| Python pack + encode, 7 joints | {full:,.0f} | struct.pack per setpoint |")
    print(f"| Python parse of a 50,000-frame stream | {dec:,.0f} | one feed() call |")


def rtt_rows():
    if not _core.HAVE_FW_SIM:
        print("\n(no POSIX pty: round-trip rows skipped)")
        return
    with tempfile.TemporaryDirectory() as d:
        link_path = Path(d) / "tty"
        proc = subprocess.Popen([sys.executable, "-m", "piperik", "firmware-sim", "--robot", "nero", "--link",
                                 str(link_path)], stdout=subprocess.PIPE, text=True, cwd=d)
        try:
            proc.stdout.readline()
            while not link_path.exists():
                time.sleep(0.01)
            print("\n| round trip to the firmware double on a pty | p50 | p99 | max | notes |")
            print("|---|---|---|---|---|")
            with Streamer(str(link_path)) as link:
                link.enable()
                for rate in (200, 500, 1000):
                    link.stats.rtt_us.clear()
                    t = np.arange(2 * rate) / rate
                    Q = np.array([0.0, 0.3, 0.0, 1.0, 0.0, 0.2, 0.0])[None] + 0.05 * np.sin(t)[:, None]
                    s = link.stream(Q, rate)
                    r = np.array(s.rtt_us)
                    print(f"| SETPOINT -> ACK at {rate} Hz (7 joints) | {np.percentile(r, 50):.0f} us | "
                          f"{np.percentile(r, 99):.0f} us | {r.max():.0f} us | {len(r)} setpoints, drops {s.drops} |")
        finally:
            proc.terminate()
            proc.wait(timeout=5)


def wire_rows():
    print("\n| message | wire bytes | max rate at 115200 / 460800 / 921600 baud (8N1) |")
    print("|---|---|---|")
    for n in (6, 7):
        b = P.wire_bytes_per_setpoint(n)
        rates = " / ".join(f"{baud / (10 * b):,.0f} Hz" for baud in (115200, 460800, 921600))
        print(f"| SETPOINT, {n} joints | {b} | {rates} |")
    ack = len(P.encode(P.ACK, 1, b"\0" * 13))
    print(f"| ACK (device -> host) | {ack} | host link carries one per setpoint unless thinned |")


if __name__ == "__main__":
    print(f"firmware_bridge benchmark, protocol v{P.VERSION}, max frame {P.MAX_FRAME} bytes\n")
    codec_rows()
    rtt_rows()
    wire_rows()
