#!/usr/bin/env python3
"""PiperDriver benchmark: the host loop at 200 Hz and 500 Hz against the simulated PiPER on
python-can's virtual bus, with piper_sdk unmodified in between. Prints markdown tables.

    python benchmarks/bench_drive.py [--seconds 5]

Loop rows: a teleoperation stream (``follow``: every tick ik(T, q_prev) + selection + the limiter
+ a JointCtrl of three frames) for ``--seconds`` at each rate. Period error is |t[k] - t[k-1] - 1/rate|
over every tick; CPU per tick is the loop thread's CPU time (``time.thread_time``), so time spent
waiting for the interpreter lock held by piper_sdk's reader thread or the simulator's thread is not
counted in it (it shows in the period error). The simulator runs in the same process (the virtual
bus is in-process), so these numbers include its load; a real arm has none.

Part rows: each piece of a tick called 20,000 times in a row with the arm idle (medians).
"""
from __future__ import annotations

import argparse
import math
import time
import uuid

import numpy as np

import piperik
from piperik.agilex import PiperDriver, SimulatedPiper
from piperik.agilex.limiter import MotionLimiter

Q_START = np.array([0.0, 1.2, -1.0, 0.0, 0.6, 0.0])


def loop_rows(seconds: float) -> None:
    arm = piperik.Piper()
    T0 = arm.fk(Q_START)

    def pose(t_s):  # a hand moving on a 5 cm circle at 0.5 Hz
        T = T0.copy()
        T[1, 3] += 0.05 * math.sin(math.pi * t_s)
        T[2, 3] += 0.05 * (math.cos(math.pi * t_s) - 1.0)
        return T

    timing, cpu = [], []
    for rate in (200.0, 500.0):
        ch = f"piperik-bench-{uuid.uuid4().hex[:8]}"
        with SimulatedPiper(ch, q0_rad=Q_START) as sim:
            drv = PiperDriver.from_channel(ch, interface="virtual", rate_hz=rate, feedback_timeout_s=1.0)
            try:
                drv.follow(pose, rate, duration_s=0.5)       # warm-up
                rep = drv.follow(pose, rate, duration_s=seconds)
            finally:
                drv.close()
            assert sim.limit_violations == [] and sim.incomplete_commands == 0
        pe = rep.period_error_s * 1e3
        timing.append(f"| {rate:.0f} Hz | {rep.ticks} | {rep.achieved_rate_hz:.1f} Hz | {np.median(pe):.3f} ms | "
                      f"{np.percentile(pe, 99):.3f} ms | {pe.max():.3f} ms | {rep.overruns} |")
        med = {name: float(np.median(getattr(rep, name))) * 1e6 for name in
               ("check_cpu_s", "target_cpu_s", "limit_cpu_s", "compute_cpu_s", "send_cpu_s")}
        cpu.append(f"| {rate:.0f} Hz | {med['check_cpu_s']:.0f} us | {med['target_cpu_s']:.0f} us | "
                   f"{med['limit_cpu_s']:.0f} us | {med['compute_cpu_s']:.0f} us "
                   f"({med['compute_cpu_s'] / 2000 * 100:.1f} % of 2 ms) | {med['send_cpu_s']:.0f} us |")
    print("| loop rate | ticks | achieved | period error p50 | p99 | max | overruns (ticks skipped) |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(timing))
    print()
    print("| loop rate | CPU per tick p50: feedback + status checks | IK + selection + jump check | limiter | "
          "all before the send | JointCtrl send (3 frames) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(cpu))


def part_rows() -> None:
    arm = piperik.Piper()
    T = arm.fk(Q_START + 0.01)
    opts = piperik.SelectOptions().replace(limit_margin_rad=math.radians(1.0))
    lim = MotionLimiter(arm.lower, arm.upper, margin_rad=math.radians(1.0), max_velocity_rad_s=1.5,
                        max_acceleration_rad_s2=2.5, rate_hz=500.0)
    lim.reset(Q_START)
    target = Q_START + 0.3
    ch = f"piperik-bench-{uuid.uuid4().hex[:8]}"
    rows = []
    with SimulatedPiper(ch, q0_rad=Q_START) as sim:
        drv = PiperDriver.from_channel(ch, interface="virtual", feedback_timeout_s=1.0)
        try:
            cmd = [int(round(x * piperik.poses.MDEG_PER_RAD)) for x in Q_START]
            sim.pause_feedback(True)   # the arm idle: no reader-thread work in between
            time.sleep(0.05)
            for name, fn, n in [
                ("arm.select(T, q_prev): IK, every solution, selection", lambda: arm.select(T, Q_START, options=opts), 20000),
                ("MotionLimiter.step: limits, margin, velocity, acceleration", lambda: lim.step(target), 20000),
                ("feedback + status read and checked (piper_sdk getters)", lambda: drv._joint_msgs() and drv.piper.GetArmStatus(), 20000),
                ("JointCtrl: piper_sdk encodes and sends three frames", lambda: drv.piper.JointCtrl(*cmd), 2000),
            ]:
                samples = np.empty(n)
                for i in range(n):
                    t0 = time.perf_counter_ns()
                    fn()
                    samples[i] = time.perf_counter_ns() - t0
                rows.append((name, float(np.median(samples)) / 1000.0))
        finally:
            drv.close()
    print("| part of a tick | median |")
    print("|---|---|")
    for name, us in rows:
        print(f"| {name} | {us:.1f} us |")
    total = sum(us for name, us in rows[:3])
    print(f"| IK + selection + limiter + checks | {total:.1f} us = {total / 2000 * 100:.1f} % of a 2 ms (500 Hz) tick |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds of streaming per rate (default 5)")
    args = ap.parse_args()
    print(f"piperik {piperik.__version__} PiperDriver benchmark: simulated PiPER on python-can's virtual bus, "
          f"piper_sdk unmodified, {args.seconds:g} s of teleoperation per rate\n")
    loop_rows(args.seconds)
    print()
    part_rows()


if __name__ == "__main__":
    main()
