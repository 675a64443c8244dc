#!/usr/bin/env python3
"""piperik benchmark: prints a table of IK timings, with Pinocchio in the same run.

    python benchmarks/bench_ik.py                  # full run, every arm (a few minutes)
    python benchmarks/bench_ik.py --quick          # fewer poses and repeats
    python benchmarks/bench_ik.py --robot nero     # one arm

Rows, PiPER (firmware >= S-V1.6-3 model):
  C core          pik_arm6_ik over N poses, all solutions + FK self-check, timed inside C
  ik_all / ik     one Python call per pose (median of per-call times over N poses x repeats)
  ik_batch        one call for N poses, ns per pose
  Pinocchio FK    framesForwardKinematics + reading the frame, per call
  Pinocchio DLS   damped-least-squares IK (the method of Pinocchio's own IK example:
                  SE3 log error, frame Jacobian, damping 1e-12, step 0.1, tolerance 1e-4,
                  max 1000 iterations) started from the mid-range configuration
Rows, NERO and iiwa 14 (7-DOF):
  C core ik       pik_srs_ik: all 8 solutions at a given arm angle + FK self-check
  C core feasible pik_srs_feasible_arm_angles: closed-form in-limit arm-angle intervals
  C core select   pik_srs_select: psi and branch nearest q_current (q_current = the pose's own
                  solution + 0.01 rad, as in a control loop)
  Python ik_all(T, psi), feasible_arm_angles(T), ik(T, q_current) per call; ik_batch per pose;
                  ik(T, q_current) again with q_current up to 0.3 rad per joint from the pose's
                  solution (a jump) and with q_current random in the limits (unrelated)
  Pinocchio DLS   as above, on the same poses
Tools and near-class descriptions: the preset against the same arm with a tool (flange -> TCP), and
  against a URDF only near the class (piperik.from_urdf: each solution polished onto the file's own
  kinematics), interleaved in one run on the same joint configurations; ratio = this arm / preset.

The machine is shared and noisy: compare rows within one run, and read medians. Per-call
statistics include the timer's own cost (reported as "timer overhead").
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import numpy as np

import piperik
from piperik import _core


def per_call_ns(fn, args_list, repeats: int) -> np.ndarray:
    """Individual call durations [ns] of fn(*args) over args_list, repeated."""
    clock = time.perf_counter_ns
    out = np.empty(len(args_list) * repeats)
    k = 0
    for _ in range(repeats):
        for args in args_list:
            t0 = clock()
            fn(*args)
            out[k] = clock() - t0
            k += 1
    return out


def loop_mean_ns(fn, args_list, repeats: int) -> float:
    """Median over repeats of the mean call time of a tight loop (no per-call timer)."""
    means = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        for args in args_list:
            fn(*args)
        means.append((time.perf_counter_ns() - t0) / len(args_list))
    return statistics.median(means)


def row(name: str, median_ns: float, p99_ns=None, worst_ns=None, note: str = "") -> str:
    def fmt(v):
        if v is None:
            return "-"
        return f"{v / 1000:.2f} us" if v >= 10_000 else f"{v:.0f} ns"

    return f"| {name} | {fmt(median_ns)} | {fmt(p99_ns)} | {fmt(worst_ns)} | {note} |"


def pinocchio_rows(arm, Ts, n_dls: int):
    try:
        import pinocchio as pin
    except ImportError:
        return ["| Pinocchio | - | - | - | not installed (pip install 'piperik[pin]') |"]
    model = pin.buildModelFromUrdf(str(arm.urdf_path))  # nq equals the arm's dof for every shipped URDF
    data = model.createData()
    fid = model.getFrameId(arm.ee_frame)
    rng = np.random.default_rng(7)
    qs = [rng.uniform(arm.lower, arm.upper) for _ in range(len(Ts))]

    def fk(q):
        pin.framesForwardKinematics(model, data, q)
        return data.oMf[fid]

    fk_ns = per_call_ns(fk, [(q,) for q in qs], 3)

    q_mid = 0.5 * (arm.lower + arm.upper)

    def dls(T):
        target = pin.SE3(T)
        q = q_mid.copy()
        for _ in range(1000):
            pin.framesForwardKinematics(model, data, q)
            err = pin.log(data.oMf[fid].actInv(target)).vector
            if np.linalg.norm(err) < 1e-4:
                return True
            J = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL)
            J = -np.dot(pin.Jlog6(data.oMf[fid].actInv(target).inverse()), J)
            v = -J.T.dot(np.linalg.solve(J.dot(J.T) + 1e-12 * np.eye(6), err))  # 6 task dims, dof joints
            q = pin.integrate(model, q, v * 0.1)
        return False

    dls_ns = []
    ok = 0
    for T in Ts[:n_dls]:
        t0 = time.perf_counter_ns()
        ok += dls(T)
        dls_ns.append(time.perf_counter_ns() - t0)
    dls_ns = np.array(dls_ns)
    return [
        row("Pinocchio FK (per call)", np.median(fk_ns), np.percentile(fk_ns, 99), fk_ns.max(),
            f"pin {pin.__version__}, frame placement only"),
        row("Pinocchio DLS IK (per call)", np.median(dls_ns), np.percentile(dls_ns, 99), dls_ns.max(),
            f"{n_dls} poses, converged {ok}/{n_dls}, one solution, no limits"),
    ]


def bench_piper(n: int, repeats: int, n_dls: int, seed: int) -> None:
    arm = piperik.Piper()
    rng = np.random.default_rng(seed)
    Q = rng.uniform(arm.lower, arm.upper, (n, 6))
    Ts = arm.fk(Q)
    # A smooth path (consecutive poses close together), as a control loop sees them.
    t = np.linspace(0, 2 * np.pi, n)
    Q_path = np.stack([0.8 * np.sin(t), 1.5 + 0.5 * np.sin(2 * t), -1.4 + 0.4 * np.cos(t),
                       0.9 * np.sin(3 * t), 0.7 * np.cos(2 * t), 1.5 * np.sin(t)], axis=1)
    Ts_path = arm.fk(Q_path)
    T_list = [(T,) for T in Ts]
    Tq_list = [(T, q) for T, q in zip(Ts, Q + 0.01)]

    print(f"\n### PiPER: {n} random in-limit poses (seed {seed}), {repeats} repeats\n")
    print("| what | median | p99 | worst | notes |")
    print("|---|---|---|---|---|")
    core = [arm._arm.bench_ik_ns(Ts, 1) for _ in range(repeats * 3)]
    core_path = [arm._arm.bench_ik_ns(Ts_path, 1) for _ in range(repeats * 3)]
    print(row("C core, all solutions + FK self-check", statistics.median(core), None, max(core),
              "per pose, random poses; worst = slowest pass over all poses"))
    print(row("C core, all solutions + FK self-check, smooth path", statistics.median(core_path), None,
              max(core_path), "per pose, consecutive poses close together"))
    timer = per_call_ns(lambda: None, [()] * n, repeats)
    ik_all = per_call_ns(arm.ik_all, T_list, repeats)
    ik = per_call_ns(arm.ik, Tq_list, repeats)
    print(row("Python ik_all(T), per call", loop_mean_ns(arm.ik_all, T_list, repeats),
              np.percentile(ik_all, 99), ik_all.max(), "median of loop means; p99/worst per call"))
    print(row("Python ik(T, q_current), per call", loop_mean_ns(arm.ik, Tq_list, repeats),
              np.percentile(ik, 99), ik.max(), "selection in C; p99/worst per call"))
    batch = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        arm.ik_batch(Ts, Q + 0.01)
        batch.append((time.perf_counter_ns() - t0) / n)
    print(row(f"Python ik_batch({n} poses), per pose", statistics.median(batch), None, max(batch),
              "GIL released; worst = slowest batch"))
    print(row("Python fk(q), per call", loop_mean_ns(arm.fk, [(q,) for q in Q], repeats), None, None, ""))
    print(row("timer overhead (empty call)", np.median(timer), np.percentile(timer, 99), None,
              "included in the per-call p99/worst"))
    for line in pinocchio_rows(arm, Ts, n_dls):
        print(line)


def bench_srs(arm, n: int, repeats: int, n_dls: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    Q = rng.uniform(arm.lower, arm.upper, (n, 7))
    Ts = arm.fk(Q)
    psis = arm.arm_angle(Q)
    Qc = np.clip(Q + 0.01, arm.lower, arm.upper)
    print(f"\n### {type(arm).__name__}: {n} random in-limit poses (seed {seed}), {repeats} repeats\n")
    print("| what | median | p99 | worst | notes |")
    print("|---|---|---|---|---|")
    for what, note in (("ik", "per (pose, psi): all 8 solutions + FK self-check"),
                       ("feasible", "per pose: in-limit arm-angle intervals, 8 branches"),
                       ("select", "per pose: psi and branch nearest q_current, default options (as ik)")):
        r = [arm._arm.bench_ns(what, Ts, psis, Qc, 1) for _ in range(repeats * 2)]
        print(row(f"C core {what} (mean per pose)", statistics.median(r), None, max(r),
                  note + "; median over passes of the mean per pose; worst = slowest pass"))
    args_all = [(T, p) for T, p in zip(Ts, psis)]
    args_T = [(T,) for T in Ts]
    args_ik = [(T, qc) for T, qc in zip(Ts, Qc)]
    for name, fn, args, note in (("ik_all(T, psi)", arm.ik_all, args_all, "all 8 at a given arm angle"),
                                 ("feasible_arm_angles(T)", arm.feasible_arm_angles, args_T, "list of intervals"),
                                 ("ik(T, q_current)", arm.ik, args_ik, "chooses psi and the branch")):
        samples = per_call_ns(fn, args, max(1, repeats // 2))
        print(row(f"Python {name}, per call", np.median(samples), np.percentile(samples, 99), samples.max(),
                  f"{note}; mean {samples.mean() / 1000:.2f} us"))
    batch = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        arm.ik_batch(Ts, Qc)
        batch.append((time.perf_counter_ns() - t0) / n)
    print(row(f"Python ik_batch({n} poses), per pose", statistics.median(batch), None, max(batch),
              "chooses psi per pose, GIL released"))
    # The global nearest's cost grows with the distance to q_current (its bounds prune less): a jump
    # to a new target, or a first call from an unrelated configuration, is not a control-loop step.
    Qc_jump = np.clip(Q + rng.uniform(-0.3, 0.3, (n, 7)), arm.lower, arm.upper)
    Qc_random = rng.uniform(arm.lower, arm.upper, (n, 7))
    for label, Qc_far in (("within 0.3 rad per joint", Qc_jump), ("random in limits", Qc_random)):
        samples = per_call_ns(arm.ik, list(zip(Ts, Qc_far)), max(1, repeats // 2))
        print(row(f"Python ik(T, q_current), q_current {label}", np.median(samples), np.percentile(samples, 99),
                  samples.max(), f"mean {samples.mean() / 1000:.2f} us"))
    for line in pinocchio_rows(arm, Ts, n_dls):
        print(line)


def _dls_path(arm, Ts, q0):
    """Pinocchio damped least squares along a pose sequence, each solve warm-started from the
    previous sample (as a numerical IK would be used for a path). Returns (seconds, converged)."""
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(arm.urdf_path))
    data = model.createData()
    fid = model.getFrameId(arm.ee_frame)
    q = np.asarray(q0, dtype=float).copy()
    ok = 0
    t0 = time.perf_counter()
    for T in Ts:
        target = pin.SE3(T)
        for _ in range(1000):
            pin.framesForwardKinematics(model, data, q)
            err = pin.log(data.oMf[fid].actInv(target)).vector
            if np.linalg.norm(err) < 1e-4:
                ok += 1
                break
            J = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL)
            J = -np.dot(pin.Jlog6(data.oMf[fid].actInv(target).inverse()), J)
            v = -J.T.dot(np.linalg.solve(J.dot(J.T) + 1e-12 * np.eye(6), err))
            q = pin.integrate(model, q, v * 0.1)
    return time.perf_counter() - t0, ok


def bench_paths(repeats: int) -> None:
    from piperik.trajectory import line_poses

    print("\n### ik_path: a 1000-pose straight line (20 cm, orientation held), one call\n")
    print("| arm | piperik ik_path | per pose | Pinocchio DLS, warm-started from the previous sample | notes |")
    print("|---|---|---|---|---|")
    for arm, q0, d in ((piperik.Piper(), [0.2, 1.2, -1.0, 0.3, 0.6, 0.1], [0.10, 0.15, -0.05]),
                       (piperik.Nero(), [0.3, 0.5, 0.2, 1.0, 0.4, 0.3, 0.2], [0.0, 0.12, 0.1])):
        q0 = np.array(q0)
        T0 = arm.fk(q0)
        T1 = T0.copy()
        T1[:3, 3] += np.array(d) * 0.2 / np.linalg.norm(d)
        Ts = line_poses(T0, T1, 1000)
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            arm.ik_path(Ts, q0)
            times.append(time.perf_counter() - t0)
        ms = statistics.median(times) * 1000
        try:
            dls_s, ok = _dls_path(arm, Ts, q0)
            dls = f"{dls_s * 1000:.0f} ms ({ok}/1000 converged)"
        except ImportError:
            dls = "Pinocchio not installed"
        print(f"| {type(arm).__name__} | {ms:.2f} ms | {ms * 1000 / 1000:.2f} us | {dls} | median of {repeats} runs |")


def bench_described(n: int, repeats: int, seed: int) -> None:
    """What a tool frame and a near-class description (a URDF only near the class: every solution
    Newton-polished onto it) cost over the preset, on the same joint configurations."""
    from pathlib import Path

    data = Path(__file__).resolve().parent.parent / "tests" / "data"
    tool = piperik.pose_from_xyz_rpy([0.0, 0.0, 0.145], [0.0, 0.0, 0.5])
    cases = [("PiPER + tool", piperik.Piper(), piperik.Piper(tool=tool)),
             ("iiwa 14 + tool", piperik.Iiwa14(), piperik.Iiwa14(tool=tool))]
    for label, name, base, tip, preset in (
            ("PiPER, AgileX URDF (polished)", "piper_agilex.urdf", "base_link", "link6", piperik.Piper()),
            ("NERO, AgileX URDF (polished)", "nero_agx.urdf", "base_link", "link7", piperik.Nero()),
            ("iiwa 14, ROS-I URDF (polished)", "more/iiwa14_rosindustrial_lbr_iiwa_14_r820.urdf", "base_link",
             "tool0", piperik.Iiwa14())):
        if (data / name).exists():  # the test data is in a checkout, not in an installed package
            cases.append((label, preset, piperik.from_urdf(data / name, base, tip)))
    print(f"\n### Tools and near-class descriptions: {n} configurations (seed {seed}), same run\n")
    print("| arm | call | preset | this arm | ratio |")
    print("|---|---|---|---|---|")
    for label, ref, arm in cases:
        rng = np.random.default_rng(seed)
        lo, hi = np.asarray(arm.lower), np.asarray(arm.upper)
        Q = lo + (hi - lo) * (0.05 + 0.9 * rng.random((n, arm.dof)))
        Qc = np.clip(Q + 0.01, lo, hi)
        calls = []
        for a in (ref, arm):
            Ts = a.fk(Q)
            if a.dof == 6:
                all_args = [(T,) for T in Ts]
            else:
                psis = ref.arm_angle(Q)
                all_args = [(T, p) for T, p in zip(Ts, psis)]
            calls.append({"ik_all": (a.ik_all, all_args), "ik(T, q_current)": (a.ik, list(zip(Ts, Qc))),
                          "ik_batch, per pose": (lambda Ts=Ts, a=a: a.ik_batch(Ts, Qc), [()])})
        for what in calls[0]:
            times = ([], [])
            for _ in range(repeats):  # interleaved, so both columns see the same machine load
                for k in (0, 1):
                    fn, args = calls[k][what]
                    t = loop_mean_ns(fn, args, 1)
                    times[k].append(t / n if what.startswith("ik_batch") else t)
            a, b = statistics.median(times[0]), statistics.median(times[1])
            print(f"| {label} | {what} | {a / 1000:.2f} us | {b / 1000:.2f} us | {b / a:.2f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer poses and repeats")
    ap.add_argument("--robot", choices=["piper", "nero", "iiwa14", "paths", "described", "all"], default="all")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    n = 1000 if args.quick else 2000
    repeats = 3 if args.quick else 10
    n_dls = 50 if args.quick else 200

    print(f"piperik {piperik.__version__} benchmark: {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, numpy {np.__version__}, trig "
          f"{'libm' if _core.USE_LIBM else 'lookup table'}; struct sizes "
          + ", ".join(f"{k} {v} B" for k, v in _core.SIZEOF.items()))
    if args.robot in ("piper", "all"):
        bench_piper(n, repeats, n_dls, args.seed)
    if args.robot in ("nero", "all"):
        bench_srs(piperik.Nero(), n, repeats, n_dls, args.seed)
    if args.robot in ("iiwa14", "all"):
        bench_srs(piperik.Iiwa14(), n, repeats, n_dls, args.seed)
    if args.robot in ("paths", "all"):
        bench_paths(repeats)
    if args.robot in ("described", "all"):
        bench_described(n // 4, repeats, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
