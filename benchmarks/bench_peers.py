"""piperik beside the closed-form peers installed here, in one run: prints a table.

    pip install eaik ik-geo        # the peers (not dependencies of piperik)
    python benchmarks/bench_peers.py [--n 2000] [--repeats 7]

Each library solves its own forward kinematics of the same random in-limit configurations (the
libraries place the flange frame and the joint zeros differently, so a pose of one is not a pose of
another); every result is checked for that library before it is timed: the largest FK residual of
its solutions and how often the generating configuration is among them. Times are the median over
repeats of the mean per call of a loop over all poses; the repeats interleave the libraries, so a
slow phase of this shared machine weighs on all of them alike. A peer that is not installed is
named and left out.

- 6R, the PiPER: piperik ``ik_all`` (every solution) against EAIK's ``IK`` on the same URDF and
  ik-geo's ``spherical_two_parallel`` robot built from EAIK's decomposition of it.
- 7R, NERO and iiwa 14: piperik ``ik_all(T, psi)`` against EAIK with joint 3 locked at the
  configuration's own value (EAIK has no arm angle; locking a joint resolves no redundancy, so the
  comparison is per solve, not per choice).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

import piperik


def _peers():
    found = {}
    try:
        from eaik.IK_URDF import UrdfRobot
        found["eaik"] = UrdfRobot
    except ImportError:
        pass
    try:
        import ik_geo
        found["ik_geo"] = ik_geo
    except ImportError:
        pass
    return found


def _wrapped(d: np.ndarray) -> np.ndarray:
    return np.abs((d + np.pi) % (2 * np.pi) - np.pi)


def _check(solve, fk, Q, Ts) -> tuple:
    """(largest FK residual of any returned solution, poses whose generating q is among them)."""
    worst, recovered = 0.0, 0
    for q, T in zip(Q, Ts):
        S = solve(T)
        for x in S:
            worst = max(worst, float(np.abs(fk(x) - T).max()))
        recovered += any(_wrapped(np.asarray(x) - q).max() < 1e-6 for x in S)
    return worst, recovered


def _time(rows, repeats: int) -> dict:
    """rows: name -> (loop over all poses, pose count); interleaved repeats; median of means [us]."""
    means = {name: [] for name in rows}
    for _ in range(repeats):
        for name, (loop, n) in rows.items():
            t0 = time.perf_counter()
            loop()
            means[name].append((time.perf_counter() - t0) / n * 1e6)
    return {name: statistics.median(v) for name, v in means.items()}


def _row(name, us, base_us, worst, recovered, n, note=""):
    ratio = f"{us / base_us:.1f}x" if base_us else "-"
    check = f"{worst:.1e} | {recovered}/{n}" if worst is not None else "- | -"
    print(f"| {name} | {us:.2f} us | {ratio} | {check} | {note} |")


def bench_piper(peers, n: int, repeats: int, rng) -> None:
    arm = piperik.Piper()
    Q = rng.uniform(arm.lower, arm.upper, (n, 6))
    Ts = list(arm.fk(Q))
    Tb = np.asarray(Ts)
    checks = {"piperik": _check(arm.ik_all, arm.fk, Q, Ts)}
    rows = {
        "piperik ik_all": (lambda: [arm.ik_all(T) for T in Ts], n),
        "piperik ik(T, q_current)": (lambda: [arm.ik(T, q) for T, q in zip(Ts, Q)], n),
        "piperik ik_batch, per pose": (lambda: arm.ik_batch(Tb, Q), n),
    }
    if "eaik" in peers:
        robot = peers["eaik"](str(arm.urdf_path))
        Te = [robot.fwdKin(q) for q in Q]
        checks["eaik"] = _check(lambda T: robot.IK(T).Q, robot.fwdKin, Q, Te)
        rows["EAIK IK"] = (lambda: [robot.IK(T) for T in Te], n)
        if "ik_geo" in peers:
            H = np.asarray(robot.getRemodeled_H()).T.tolist()
            P = np.asarray(robot.getRemodeled_P()).T.tolist()
            geo = peers["ik_geo"].Robot.spherical_two_parallel(H, P)
            Tg = [geo.forward_kinematics(q.tolist()) for q in Q]

            def geo_fk(q):
                R, p = geo.forward_kinematics(list(q))
                T = np.eye(4)
                T[:3, :3], T[:3, 3] = R, p
                return T

            Tg4 = [geo_fk(q) for q in Q]
            checks["ik_geo"] = _check(lambda T: [s[0] for s in geo.get_ik(T[:3, :3].tolist(), T[:3, 3].tolist())],
                                      geo_fk, Q, Tg4)
            rows["ik-geo get_ik"] = (lambda: [geo.get_ik(R, p) for R, p in Tg], n)
    t = _time(rows, repeats)
    base = t["piperik ik_all"]
    print(f"\n#### PiPER (6R): {n} random in-limit configurations, {repeats} interleaved repeats\n")
    print("| call | per call | vs piperik ik_all | largest FK residual | generating q among the solutions | notes |")
    print("|---|---|---|---|---|---|")
    w, r = checks["piperik"]
    _row("piperik ik_all", base, base, w, r, n, "every solution (up to 8), FK self-check in C")
    _row("piperik ik(T, q_current)", t["piperik ik(T, q_current)"], base, None, None, n, "selection in C")
    _row("piperik ik_batch, per pose", t["piperik ik_batch, per pose"], base, None, None, n, "one C loop, GIL released")
    if "EAIK IK" in t:
        w, r = checks["eaik"]
        _row("EAIK IK", t["EAIK IK"], base, w, r, n, "eaik " + _version("eaik"))
    if "ik-geo get_ik" in t:
        w, r = checks["ik_geo"]
        _row("ik-geo get_ik", t["ik-geo get_ik"], base, w, r, n, "ik-geo " + _version("ik-geo"))


def bench_srs(peers, cls, n: int, repeats: int, rng) -> None:
    arm = cls()
    Q = rng.uniform(arm.lower, arm.upper, (n, 7))
    Ts = list(arm.fk(Q))
    psis = arm.arm_angle(Q)
    checks = {"piperik": _check(lambda T, it=iter(psis): arm.ik_all(T, next(it)), arm.fk, Q, Ts)}
    rows = {
        "piperik ik_all(T, psi)": (lambda: [arm.ik_all(T, p) for T, p in zip(Ts, psis)], n),
        "piperik ik(T, q_current)": (lambda: [arm.ik(T, q) for T, q in zip(Ts, Q)], n),
    }
    if "eaik" in peers:
        # one robot per locked value would rebuild the decomposition per pose: lock joint 3 at the
        # median value and generate the configurations with it (the same for every pose)
        q3 = float(np.median(Q[:, 2]))
        Qe = Q.copy()
        Qe[:, 2] = q3
        robot = peers["eaik"](str(arm.urdf_path), fixed_axes=[(2, q3)])
        Te = [robot.fwdKin(q) for q in Qe]  # EAIK's locked robot takes and returns all 7 joints
        checks["eaik"] = _check(lambda T: robot.IK(T).Q, robot.fwdKin, Qe, Te)
        rows["EAIK IK, joint 3 locked"] = (lambda: [robot.IK(T) for T in Te], n)
    t = _time(rows, repeats)
    base = t["piperik ik_all(T, psi)"]
    name = type(arm).__name__
    print(f"\n#### {name} (S-R-S 7R): {n} random in-limit configurations, {repeats} interleaved repeats\n")
    print("| call | per call | vs piperik ik_all(T, psi) | largest FK residual | generating q among the solutions | notes |")
    print("|---|---|---|---|---|---|")
    w, r = checks["piperik"]
    _row("piperik ik_all(T, psi)", base, base, w, r, n, "all 8 at the configuration's arm angle")
    _row("piperik ik(T, q_current)", t["piperik ik(T, q_current)"], base, None, None, n,
         "chooses psi and the branch (global nearest)")
    if "EAIK IK, joint 3 locked" in t:
        w, r = checks["eaik"]
        _row("EAIK IK, joint 3 locked", t["EAIK IK, joint 3 locked"], base, w, r, n,
             "6R sub-robot, no redundancy resolution; eaik " + _version("eaik"))


def _version(dist: str) -> str:
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:  # noqa: BLE001 - a version string is a courtesy, never a failure
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="configurations per arm")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.n < 1 or args.repeats < 1:
        ap.error("--n and --repeats must be >= 1")
    peers = _peers()
    missing = [p for p in ("eaik", "ik_geo") if p not in peers]
    print(f"piperik {piperik.__version__} beside its peers: {platform.machine()}, Python {platform.python_version()}"
          + (f"; not installed, left out: {', '.join(missing)}" if missing else ""))
    rng = np.random.default_rng(args.seed)
    bench_piper(peers, args.n, args.repeats, rng)
    bench_srs(peers, piperik.Nero, args.n, args.repeats, rng)
    bench_srs(peers, piperik.Iiwa14, args.n, args.repeats, rng)


if __name__ == "__main__":
    main()
