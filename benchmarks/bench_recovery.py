"""How completely `ik_all` of a near-class URDF arm (polished onto the file's own kinematics) returns
the description's solutions: on seeded random configurations, how often the generating one is among
them, how many rows a call returns at most, and what a call costs. Prints a table.

    python benchmarks/bench_recovery.py [--n 5000] [--seeds 1 2 3]

The files are the repository's test data (tests/data, licences there). Timings are single calls
(time.perf_counter around each), so the percentiles include the timer; compare them within a run.
"""
from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np

import piperik

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
#: (label, file, base link, tip link)
ARMS = [
    ("PiPER, AgileX URDF", "piper_agilex.urdf", "base_link", "link6"),
    ("NERO, AgileX URDF", "nero_agx.urdf", "base_link", "link7"),
    ("iiwa 14, ROS-I URDF", "more/iiwa14_rosindustrial_lbr_iiwa_14_r820.urdf", "base_link", "tool0"),
]


def _gap(Q: np.ndarray, q: np.ndarray) -> float:
    """Smallest max-norm joint distance (2 pi wrapped) from q to a row of Q; inf for no rows."""
    if len(Q) == 0:
        return float("inf")
    return float(np.abs((Q - q + np.pi) % (2 * np.pi) - np.pi).max(axis=1).min())


def measure(arm, n: int, seed: int):
    """(recovered, most rows, per-call times [us]) over n configurations drawn with `seed`."""
    rng = np.random.default_rng(seed)
    recovered, most, times_us = 0, 0, np.empty(n)
    for k in range(n):
        q = rng.uniform(arm.lower, arm.upper)
        T = arm.fk(q)
        psi = arm.arm_angle(q) if arm.dof == 7 else None
        t0 = time.perf_counter()
        Q = arm.ik_all(T) if psi is None else arm.ik_all(T, psi)
        times_us[k] = (time.perf_counter() - t0) * 1e6
        most = max(most, len(Q))
        recovered += _gap(Q, q) <= 1e-9
    return recovered, most, times_us


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5000, help="configurations per arm and seed")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = ap.parse_args()
    print(f"piperik {piperik.__version__}: {platform.machine()}, Python {platform.python_version()}; "
          f"a solution set holds {piperik._core.MAX_SOLUTIONS}\n")
    print(f"| arm | generating configuration recovered ({args.n:,} per seed; seeds "
          f"{', '.join(map(str, args.seeds))}) | most rows | ik_all median / p99 / worst |")
    print("|---|---|---|---|")
    for label, name, base, tip in ARMS:
        arm = piperik.from_urdf(DATA / name, base, tip)
        counts, most, times = [], 0, []
        for seed in args.seeds:
            r, m, t = measure(arm, args.n, seed)
            counts.append(f"{r:,}")
            most = max(most, m)
            times.append(t)
        t = np.concatenate(times)
        print(f"| {label} | {' / '.join(counts)} | {most} | {np.median(t):.1f} / {np.percentile(t, 99):.0f} / "
              f"{t.max():.0f} us |")


if __name__ == "__main__":
    main()
