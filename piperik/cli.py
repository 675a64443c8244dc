"""The ``piperik`` command line: demo, ik, fk and a Pinocchio cross-check.

    piperik demo [--robot piper|nero|iiwa14]  solve a few poses and a short line
    piperik ik --xyz X Y Z --rpy R P Y        every solution of a pose (metres, radians; --deg)
    piperik ik --piper-units X Y Z RX RY RZ   the same from the PiPER's 0.001 mm / 0.001 deg
    piperik ik --robot nero --xyz ... --psi A  a 7-DOF arm at arm angle A (else: chosen for you)
    piperik fk Q1 ... Qn                      the flange pose of joint angles (rad; --deg, --mdeg)
    piperik check [--urdf PATH --frame NAME]  compare the model with a URDF through Pinocchio
    piperik path --from X Y Z R P Y --to X Y Z R P Y [--via ...] --rate 200 [--plot out.png] [--csv out.csv]
                                              a straight-line motion, solved and timed
    piperik firmware-sim [--robot piper] [--link PATH]
                                              the reference firmware on a pseudo-terminal (first
                                              output line: its device path)
    piperik stream --port PATH --robot piper --demo --rate 500 --seconds 2
                                              stream a demo motion to a device, print the counts
                                              (added by firmware_bridge.cli: "piperik.commands")
    piperik drive --can can0 --line "X Y Z R P Y" "X Y Z R P Y" [--deg]
                                              drive a PiPER over CAN (piper_sdk): to the first pose,
                                              then straight lines through the others (--sim: the
                                              simulated arm on a virtual bus)
    piperik drive --can can0 --follow         teleoperation: one pose "X Y Z R P Y" per stdin line
                                              (the newest each tick; --one-per-tick plays a recording)
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np

from . import __version__
from ._core import NoSolutionError
from .urdf import from_urdf
from .poses import (pose_from_piper_units, pose_from_xyz_rpy, pose_to_piper_units, pose_to_xyz_rpy,
                    q_from_mdeg, _rotation_angle)
from .robots import Iiwa14, Nero, Piper

ROBOTS = {"piper": Piper, "piper_h": Piper, "piper_l": Piper, "nero": Nero, "iiwa14": Iiwa14}


def _tool_arg(args):
    """--tool X Y Z R P Y: the flange -> TCP transform (xyz [m], rpy [rad, or deg with --deg])."""
    tool = getattr(args, "tool", None)
    if tool is None:
        return None
    rpy = np.radians(tool[3:]) if getattr(args, "deg", False) else np.asarray(tool[3:])
    return np.concatenate([np.asarray(tool[:3], dtype=float), rpy])


def _make_arm(args):
    tool = _tool_arg(args)
    if getattr(args, "from_urdf", None):
        path, base, tip = args.from_urdf
        if args.legacy_zero:
            raise SystemExit("piperik: --legacy-zero applies to --robot piper only")
        try:
            return from_urdf(path, base, tip, tool=tool)
        except ValueError as exc:
            raise SystemExit(f"piperik: --from-urdf: {exc}") from None
    if args.legacy_zero and args.robot != "piper":
        raise SystemExit("piperik: --legacy-zero applies to --robot piper only")
    try:
        if args.robot == "piper":
            return Piper(legacy_zero=args.legacy_zero, tool=tool)
        if args.robot in ("piper_h", "piper_l"):
            return Piper(variant=args.robot[-1], tool=tool)
        return ROBOTS[args.robot](tool=tool)
    except ValueError as exc:  # a --tool that is not a finite rigid transform
        raise SystemExit(f"piperik: --{exc}") from None


def _fmt_q(q: Sequence[float], deg: bool = False) -> str:
    vals = np.degrees(q) if deg else np.asarray(q)
    return "[" + " ".join(f"{v:+9.4f}" for v in vals) + "]"


def _pose_error(A: np.ndarray, B: np.ndarray):
    """Position distance [m] and rotation angle [rad] between two poses (accurate near 0)."""
    return float(np.linalg.norm(A[:3, 3] - B[:3, 3])), _rotation_angle(A, B)


def _median_call_us(fn, repeats: int = 2000) -> float:
    samples = np.empty(repeats)
    for i in range(repeats):
        t0 = time.perf_counter_ns()
        fn()
        samples[i] = time.perf_counter_ns() - t0
    return float(np.median(samples)) / 1000.0


def _pinocchio():
    try:
        import pinocchio  # noqa: F401

        return pinocchio
    except ImportError:
        return None


def _print_solutions(arm, T: np.ndarray, q_current: Optional[np.ndarray], deg: bool, psi=None) -> None:
    unit = "deg" if deg else "rad"
    if arm.dof == 7:
        intervals = arm.feasible_arm_angles(T)
        print("  feasible arm angles [deg]: " + (", ".join(
            f"[{np.degrees(lo):.1f}, {np.degrees(hi):.1f}]" for lo, hi in intervals) or "none"))
        if psi is None:
            try:
                psi = arm.select(T, q_current).psi
                print(f"  arm angle chosen for you: {np.degrees(psi):.2f} deg (use --psi to set it)")
            except NoSolutionError as exc:
                psi = 0.0
                print(f"  no in-limit arm angle ({exc}); showing psi = 0")
        sols = arm.solutions(T, psi, seed=q_current)
    else:
        sols = arm.solutions(T, seed=q_current)
    if not sols:
        print("  unreachable: no solution")
        return
    print(f"  {len(sols)} solutions (q1..q{arm.dof} in {unit})" + (f" at psi = {psi:.4f} rad:" if arm.dof == 7 else ":"))
    for i, s in enumerate(sols):
        fk_dp, fk_dr = _pose_error(arm.fk(s.q), T)
        tags = ("in limits" if s.in_limits else "OUT of limits") + (
            f", singular: {'+'.join(s.singular)}" if s.singular else "")
        print(f"   {i}: {_fmt_q(s.q, deg)}  {s.branch:38s} {tags:22s} fk err {fk_dp:.1e} m {fk_dr:.1e} rad")
    try:
        sel = arm.select(T, q_current, psi=psi) if arm.dof == 7 else arm.select(T, q_current)
        what = f"branch {sel.branch}" + (f", psi {sel.psi:.4f} rad" if sel.psi is not None else "")
        print(f"  selected: {_fmt_q(sel.q, deg)}  {what}, limit margin "
              f"{sel.limit_margin_rad:.3f} rad" + (f", distance {sel.distance:.4f} rad" if q_current is not None else ""))
    except NoSolutionError as exc:
        print(f"  no selection: {exc}")


DEMO_Q = {
    "piper": [[0.0, 1.2, -1.0, 0.0, 0.6, 0.0], [0.5, 1.6, -1.4, 0.4, -0.5, 0.8], [-1.2, 0.8, -2.2, -1.0, 0.9, -1.5]],
    "nero": [[0.0, 0.5, 0.0, 1.2, 0.0, 0.3, 0.0], [0.6, -0.4, 0.8, 1.6, -0.7, 0.5, 0.9], [-1.0, 1.0, -0.5, 0.6, 1.2, -0.4, -1.0]],
    "iiwa14": [[0.0, 0.6, 0.0, -1.2, 0.0, 0.8, 0.0], [0.8, -0.5, 1.0, 1.5, -0.9, -1.0, 1.2], [-1.5, 1.2, -0.8, -0.7, 1.8, 0.9, -2.0]],
}


def cmd_demo(args) -> int:
    arm = _make_arm(args)
    print(f"piperik {__version__} demo on {arm!r}: every closed-form IK solution, the selected one, FK checks")
    q_demo = [np.array(q) for q in DEMO_Q["piper" if args.robot.startswith("piper") else args.robot]]
    q_current = q_demo[0] + 0.05
    for k, q in enumerate(q_demo):
        T = arm.fk(q)
        xyz, rpy = pose_to_xyz_rpy(T)
        print(f"\npose {k + 1}: xyz {np.round(xyz, 4)} m, rpy {np.round(np.degrees(rpy), 2)} deg "
              f"(generated by q = {_fmt_q(q)}), q_current = previous selection")
        _print_solutions(arm, T, q_current, args.deg)
        q_current = arm.ik(T, q_current)

    # A short straight line at fixed orientation, each step seeded with the previous solution.
    T0 = arm.fk(q_demo[0])
    T1 = T0.copy()
    T1[:3, 3] += [0.05, 0.10, -0.05]
    print("\nstraight line, 11 samples, 0.122 m, orientation held; each ik() seeded with the previous q"
          + (" (7-DOF: arm angle chosen nearest each time)" if arm.dof == 7 else "") + ":")
    q = arm.ik(T0, q_demo[0])
    worst_step = 0.0
    for s in np.linspace(0.0, 1.0, 11):
        T = T0.copy()
        T[:3, 3] = (1 - s) * T0[:3, 3] + s * T1[:3, 3]
        q_new = arm.ik(T, q)
        step = float(np.max(np.abs(q_new - q)))
        worst_step = max(worst_step, step)
        dp, dr = _pose_error(arm.fk(q_new), T)
        print(f"  s={s:.1f} q={_fmt_q(q_new, args.deg)} max step {step:.4f} rad  fk err {dp:.1e} m {dr:.1e} rad")
        q = q_new
    print(f"  largest joint step along the line: {worst_step:.4f} rad")

    T = arm.fk(q_demo[1])
    if arm.dof == 7:
        psi = arm.arm_angle(q_demo[1])
        us_all = _median_call_us(lambda: arm.ik_all(T, psi))
        us_feas = _median_call_us(lambda: arm.feasible_arm_angles(T))
        us_ik = _median_call_us(lambda: arm.ik(T, q_demo[1]))
        timing = f"ik_all(T, psi) {us_all:.2f} us, feasible_arm_angles {us_feas:.2f} us, ik (chooses psi) {us_ik:.2f} us"
    else:
        us_all = _median_call_us(lambda: arm.ik_all(T))
        us_ik = _median_call_us(lambda: arm.ik(T, q_demo[1]))
        timing = f"ik_all {us_all:.2f} us, ik {us_ik:.2f} us"
    rng = np.random.default_rng(0)
    Q = rng.uniform(arm.lower, arm.upper, (20000, arm.dof))
    Ts = arm.fk(Q)
    t0 = time.perf_counter_ns()
    arm.ik_batch(Ts, Q)
    ns_batch = (time.perf_counter_ns() - t0) / len(Ts)
    print(f"\nspeed (median of 2000 calls): {timing}; ik_batch {ns_batch:.0f} ns per pose (20000 poses)")

    pin = _pinocchio()
    if pin is None:
        print("Pinocchio cross-check: skipped (pip install 'piperik[pin]' to enable)")
        return 0
    err_fk, err_ik = _pin_crosscheck(arm, str(arm.urdf_path), arm.ee_frame, 300, seed=1)
    print(f"Pinocchio {pin.__version__} cross-check on {arm.urdf_path.name} ({arm.ee_frame}), 300 random configurations:\n"
          f"  FK max diff {err_fk[0]:.1e} m / {err_fk[1]:.1e} rad; IK round trip max error "
          f"{err_ik[0]:.1e} m / {err_ik[1]:.1e} rad")
    return 0


def _pin_crosscheck(arm, urdf: str, frame: str, n: int, seed: int):
    """Max FK difference model vs URDF, and max error of IK solutions measured by the URDF's FK."""
    import pinocchio as pin

    if n < 1:
        raise ValueError(f"-n: need at least 1 configuration to compare, got {n}")
    model = pin.buildModelFromUrdf(urdf)
    if not model.existFrame(frame):
        names = ", ".join(f.name for f in model.frames)
        raise ValueError(f"--frame: no frame {frame!r} in {urdf}; frames: {names}")
    data = model.createData()
    fid = model.getFrameId(frame)
    # The joints from the root to the frame are the arm; others (gripper fingers) stay at neutral.
    chain = []
    jid = model.frames[fid].parentJoint
    while jid > 0:
        chain.append(jid)
        jid = model.parents[jid]
    chain.reverse()
    if len(chain) != arm.dof or any(model.joints[j].nq != 1 for j in chain):
        names = [model.names[j] for j in chain]
        raise ValueError(f"--urdf: {len(chain)} joints lead to {frame!r} ({', '.join(names)}); "
                         f"expected {arm.dof} one-axis joints")
    q_index = [model.joints[j].idx_q for j in chain]
    q_full = pin.neutral(model)

    def pin_fk(q):
        q_full[q_index] = q
        pin.framesForwardKinematics(model, data, q_full)
        return data.oMf[fid].homogeneous.copy()

    rng = np.random.default_rng(seed)
    fk_pos = fk_rot = ik_pos = ik_rot = 0.0
    for _ in range(n):
        q = rng.uniform(arm.lower, arm.upper)
        T_pin = pin_fk(q)
        dp, dr = _pose_error(T_pin, arm.fk(q))
        fk_pos, fk_rot = max(fk_pos, dp), max(fk_rot, dr)
        solutions = arm.ik_all(T_pin, arm.arm_angle(q)) if arm.dof == 7 else arm.ik_all(T_pin)
        for q_sol in solutions:
            dp, dr = _pose_error(pin_fk(q_sol), T_pin)
            ik_pos, ik_rot = max(ik_pos, dp), max(ik_rot, dr)
    return (fk_pos, fk_rot), (ik_pos, ik_rot)


def _print_class(arm) -> None:
    fit = arm.class_fit
    kind = {"opw6": "OPW 6R (Arm6)", "srs7": "S-R-S 7R (Arm7)"}[fit.kind]
    how = (f"near it: every solution Newton-polished onto the URDF (class model off by "
           f"{arm.class_distance[0] * 1e3:.3g} mm, {arm.class_distance[1]:.2e} rad)" if arm.polished
           else "exactly (class model = URDF to 1e-12)")
    print(f"class: {kind}, {how}")
    for name, value in fit.residuals.items():
        print(f"  {name:32s} {value * 1e3:10.4f} mm" if name.endswith("_m") else
              f"  {name:32s} {value:10.3e} rad")


def cmd_check(args) -> int:
    if args.base is not None:
        if not args.urdf or not args.frame:
            print("piperik check: --base needs --urdf PATH and --frame TIP_LINK", file=sys.stderr)
            return 2
        try:
            arm = from_urdf(args.urdf, args.base, args.frame, tool=_tool_arg(args))
        except ValueError as exc:
            print(f"piperik check: not solvable in closed form: {exc}")
            return 1
        print(f"{args.urdf} ({args.base} -> {args.frame}): {arm.dof} revolute joints")
        _print_class(arm)
    else:
        arm = _make_arm(args)
        if arm.class_fit is not None:
            _print_class(arm)
    if _pinocchio() is None:
        print("piperik check needs Pinocchio: pip install 'piperik[pin]'", file=sys.stderr)
        return 2
    urdf = args.urdf or str(arm.urdf_path)
    frame = args.frame or arm.ee_frame
    if not Path(urdf).is_file():
        print(f"piperik check: --urdf: no such file: {urdf}", file=sys.stderr)
        return 2
    try:
        (fp, fr), (ip, ir) = _pin_crosscheck(arm, urdf, frame, args.n, args.seed)
    except (ValueError, RuntimeError) as exc:  # Pinocchio raises ValueError/RuntimeError on bad files
        print(f"piperik check: {exc}", file=sys.stderr)
        return 2
    print(f"{arm!r} vs {urdf} frame {frame!r}, {args.n} random in-limit configurations (seed {args.seed}):")
    print(f"  FK difference:            max {fp:.3e} m  {fr:.3e} rad")
    print(f"  IK round trip (URDF FK):  max {ip:.3e} m  {ir:.3e} rad")
    ok = max(fp, ip) <= 1e-9 and max(fr, ir) <= 1e-9
    print("  the URDF's chain equals the model" if ok else
          "  the URDF differs from the model: IK solutions are exact for the model, not for this URDF")
    return 0


def _read_pose(args) -> np.ndarray:
    if args.piper_units is not None:
        return pose_from_piper_units(args.piper_units)
    if args.xyz is None:
        raise ValueError("give the pose as --xyz X Y Z [--rpy R P Y] or --piper-units X Y Z RX RY RZ")
    rpy = np.zeros(3) if args.rpy is None else np.asarray(args.rpy, dtype=float)
    return pose_from_xyz_rpy(args.xyz, np.radians(rpy) if args.deg else rpy)


def cmd_ik(args) -> int:
    arm = _make_arm(args)
    try:
        T = _read_pose(args)
        q_current = None
        if args.q_current is not None:
            if len(args.q_current) != arm.dof:
                raise ValueError(f"--q-current: expected {arm.dof} joint angles, got {len(args.q_current)}")
            q_current = np.asarray(args.q_current, dtype=float)
            if args.deg:
                q_current = np.radians(q_current)
        xyz, rpy = pose_to_xyz_rpy(T)
        print(f"pose: xyz {np.round(xyz, 6)} m, rpy {np.round(np.degrees(rpy), 4)} deg; "
              f"PiPER units {pose_to_piper_units(T).tolist()}")
        if args.psi is not None and arm.dof != 7:
            raise ValueError("--psi: only 7-DOF arms (--robot nero, iiwa14) have an arm angle")
        psi = None if args.psi is None else (np.radians(args.psi) if args.deg else args.psi)
        _print_solutions(arm, T, q_current, args.deg, psi)
    except ValueError as exc:
        print(f"piperik ik: {exc}", file=sys.stderr)
        return 2
    return 0


def cmd_fk(args) -> int:
    arm = _make_arm(args)
    if len(args.q) != arm.dof:
        print(f"piperik fk: {args.robot} has {arm.dof} joints, got {len(args.q)} angles", file=sys.stderr)
        return 2
    q = np.asarray(args.q, dtype=float)
    if args.mdeg:
        q = q_from_mdeg(q)
    elif args.deg:
        q = np.radians(q)
    try:
        T = arm.fk(q)
    except ValueError as exc:
        print(f"piperik fk: {exc}", file=sys.stderr)
        return 2
    xyz, rpy = pose_to_xyz_rpy(T)
    np.set_printoptions(precision=6, suppress=True)
    what = "TCP pose (--tool)" if getattr(args, "tool", None) is not None else "flange pose"
    print(f"q = {_fmt_q(q)} rad\n{what} (base frame):\n{T}")
    print(f"xyz {xyz} m, rpy {np.degrees(rpy)} deg (R = Rz(yaw) Ry(pitch) Rx(roll))")
    print(f"PiPER units (0.001 mm, 0.001 deg): {pose_to_piper_units(T).tolist()}")
    if arm.dof == 6:
        print(f"wrist centre {arm.wrist_center(q)} m")
    else:
        print(f"arm angle psi {arm.arm_angle(q):.6f} rad")
    return 0


def cmd_path(args) -> int:
    from .trajectory import plan_cartesian, time_parameterize

    arm = _make_arm(args)
    to_rad = np.radians if args.deg else (lambda v: np.asarray(v, dtype=float))
    try:
        points = [args.start] + list(args.via or []) + [args.to]
        waypoints = [pose_from_xyz_rpy(p[:3], to_rad(p[3:])) for p in points]
        if args.q_start is not None:
            if len(args.q_start) != arm.dof:
                raise ValueError(f"--q-start: expected {arm.dof} joint angles, got {len(args.q_start)}")
            q_start = to_rad(args.q_start)
        else:
            q_start = arm.ik(waypoints[0])  # largest limit margin (7-DOF: widest arm-angle interval)
        plan = plan_cartesian(arm, waypoints, q_start, max_joint_step_rad=args.max_joint_step)
        traj = time_parameterize(plan.q, arm.max_velocity, arm.max_acceleration, rate_hz=args.rate)
    except ValueError as exc:  # NoSolutionError is a ValueError
        print(f"piperik path: {exc}", file=sys.stderr)
        return 2
    fk = arm.fk(plan.q)
    dev = float(np.linalg.norm(fk[:, :3, 3] - plan.poses[:, :3, 3], axis=1).max())
    rep = plan.report
    print(f"{arm!r}: {len(waypoints)} waypoints, {len(plan.q)} path samples (joint steps <= "
          f"{args.max_joint_step} rad), FK of every sample on its line within {dev:.1e} m")
    print(f"  largest joint step {rep.max_step_rad:.4f} rad (joint {rep.max_step_joint + 1}), "
          f"branch changes {rep.branch_changes} (continuous), smallest singularity measure "
          f"{rep.min_singularity:.3f}")
    print(f"  timed at {args.rate:g} Hz: {len(traj.t_s)} setpoints, {traj.duration_s:.3f} s; peak |qd| / limit "
          f"{np.max(np.abs(traj.qd_rad_s) / arm.max_velocity):.2f}, peak |qdd| / limit "
          f"{np.max(np.abs(traj.qdd_rad_s2) / arm.max_acceleration):.2f}")
    if args.csv:
        header = ["t_s"] + [f"q{j + 1}_rad" for j in range(arm.dof)] + [f"qd{j + 1}_rad_s" for j in range(arm.dof)]
        np.savetxt(args.csv, np.column_stack([traj.t_s, traj.q_rad, traj.qd_rad_s]), delimiter=",",
                   header=",".join(header), comments="", fmt="%.9g")
        print(f"  wrote {args.csv}")
    if args.plot:
        from .plot import plot_trajectory

        try:
            plot_trajectory(arm, traj, args.plot)
        except RuntimeError as exc:
            print(f"piperik path: {exc}", file=sys.stderr)
            return 2
        print(f"  wrote {args.plot}")
    return 0


def cmd_firmware_sim(args) -> int:
    import os
    import signal

    from . import _core

    if not _core.HAVE_FW_SIM:
        print("piperik firmware-sim: needs a POSIX system (openpty)", file=sys.stderr)
        return 2
    if args.link:
        os.environ["FW_LINK"] = args.link
    sys.stdout.flush()

    def on_sigterm(signum, frame):
        raise SystemExit(0)  # fw_sim_run stops the firmware cleanly (the pty link is removed)

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        return int(_core.fw_sim_run(args.robot))
    finally:
        signal.signal(signal.SIGTERM, previous)


def _parse_pose6(text: str, deg: bool, what: str) -> np.ndarray:
    parts = text.replace(",", " ").split()
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"{what}: expected six numbers 'X Y Z R P Y', got {text!r}") from None
    if len(vals) != 6:
        raise ValueError(f"{what}: expected six numbers 'X Y Z R P Y' (xyz [m], roll pitch yaw "
                         f"[{'deg' if deg else 'rad'}]), got {len(vals)} in {text!r}")
    rpy = np.radians(vals[3:]) if deg else np.asarray(vals[3:])
    return pose_from_xyz_rpy(vals[:3], rpy)


def _ik_named(drv, T, what: str) -> np.ndarray:
    """The solution nearest the measured joints, with the limit margin; NoSolutionError naming the pose."""
    try:
        return drv.arm.ik(T, drv.q_measured_rad, limit_margin=drv.limit_margin_rad)
    except NoSolutionError as exc:
        raise NoSolutionError(f"{what}: {exc}") from None


class _StatusLine:
    """The live status line on stderr: rate, period error, smallest joint margin, hold reason."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.width = 0

    def __call__(self, st: dict) -> None:
        m = np.degrees(st["margins_rad"])
        j = int(np.argmin(m))
        text = (f"rate {st['rate_hz']:6.1f} Hz | period error p50 {st['period_error_p50_ms']:.3f} ms "
                f"p99 {st['period_error_p99_ms']:.3f} ms | smallest joint margin {m[j]:5.1f} deg (joint {j + 1})"
                + (f" | HOLD: {st['hold']}" if st["hold"] else ""))
        self.width = max(self.width, len(text))
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()

    def end(self) -> None:
        if self.width:
            self.stream.write("\n")
            self.stream.flush()


def cmd_drive(args) -> int:
    try:
        from .agilex import DriveError, PiperDriver, SimulatedPiper
    except ImportError as exc:  # pragma: no cover - without the extra
        print(f"piperik drive: needs piper_sdk and python-can: pip install 'piperik[agilex]' ({exc})", file=sys.stderr)
        return 2
    if (args.line is None) == (not args.follow):
        print("piperik drive: give --line POSE POSE [...] or --follow", file=sys.stderr)
        return 2
    if args.one_per_tick and not args.follow:
        print("piperik drive: --one-per-tick goes with --follow", file=sys.stderr)
        return 2
    sim = None
    status = _StatusLine()
    drv = None
    try:
        line = [_parse_pose6(t, args.deg, "--line") for t in args.line] if args.line else []
        if args.sim:
            import uuid

            # a new name each time: piper_sdk keeps one interface (and its reader thread) per channel name
            channel, interface = f"piperik-sim-{uuid.uuid4().hex[:8]}", "virtual"
            sim = SimulatedPiper(channel)
            print(f"simulated PiPER on virtual CAN channel {channel!r} (firmware {sim.firmware_version})")
        else:
            channel, interface = args.can, args.interface
        drv = PiperDriver.from_channel(
            channel, interface=interface, rate_hz=args.rate, limit_margin_rad=np.radians(args.margin_deg),
            max_velocity_rad_s=args.max_velocity, max_acceleration_rad_s2=args.max_acceleration,
            legacy_zero=True if args.legacy_zero else None, tool=_tool_arg(args), fast_mode=args.fast,
            on_status=status)
        print(f"connected: firmware {drv.firmware_version or '?'}, model {drv.arm!r}, joints "
              f"{_fmt_q(np.degrees(drv.q_measured_rad))} deg; rate {args.rate:g} Hz, |qd| <= {args.max_velocity:g} rad/s, "
              f"|qdd| <= {args.max_acceleration:g} rad/s^2, limit margin {args.margin_deg:g} deg")
        if line:
            q_first = _ik_named(drv, line[0], "--line pose 1")
            print("to the first pose (joint-space move) ...")
            rep = drv.move_joints(q_first)
            status.end()
            print("  " + rep.summary())
            if len(line) > 1:
                print(f"straight line{'s' if len(line) > 2 else ''} through {len(line) - 1} more pose(s) ...")
                rep = drv.move_to_pose(line[-1], via=line[1:-1])
                status.end()
                print("  " + rep.summary())
        elif args.one_per_tick:
            def poses():
                for n, text in enumerate(sys.stdin, 1):
                    if text.strip() and not text.lstrip().startswith("#"):
                        yield _parse_pose6(text, args.deg, f"stdin line {n}")

            it = poses()
            first = next(it, None)
            if first is None:
                print("piperik drive: no pose on stdin", file=sys.stderr)
                return 2
            print("to the first pose (joint-space move) ...")
            rep = drv.move_joints(_ik_named(drv, first, "stdin line 1"))
            status.end()
            print("following stdin, one pose per tick ...")
            rep = drv.follow(it, args.rate)
            status.end()
            print("  " + rep.summary())
        else:
            import threading

            latest = {"T": None, "eof": False, "done": False}
            ready = threading.Event()

            def reader():
                for n, text in enumerate(sys.stdin, 1):
                    if not text.strip() or text.lstrip().startswith("#"):
                        continue
                    try:
                        latest["T"] = _parse_pose6(text, args.deg, f"stdin line {n}")
                        ready.set()
                    except ValueError as exc:
                        print(f"\npiperik drive: {exc} (line skipped)", file=sys.stderr)
                latest["eof"] = True
                ready.set()

            threading.Thread(target=reader, daemon=True).start()
            print("following poses from stdin, the newest line each tick (end with EOF / Ctrl-D) ...")
            ready.wait()
            if latest["T"] is None:
                print("piperik drive: no pose on stdin", file=sys.stderr)
                return 2
            print("to the first pose (joint-space move) ...")
            rep = drv.move_joints(_ik_named(drv, latest["T"], "the first pose on stdin"))
            status.end()

            def source(t_s):
                if latest["done"]:
                    return None
                latest["done"] = latest["eof"]   # one more tick on the last pose after EOF
                return latest["T"]

            rep = drv.follow(source, args.rate)
            status.end()
            print("  " + rep.summary())
        for h in (rep.holds if rep else []):
            print(f"  held {h.ticks} tick(s) from tick {h.tick}: {h.reason}")
    except KeyboardInterrupt:
        status.end()
        print("piperik drive: interrupted; the arm is at rest, holding its last command", file=sys.stderr)
        return 130
    except (ValueError, DriveError) as exc:  # NoSolutionError is a ValueError
        status.end()
        print(f"piperik drive: {exc}", file=sys.stderr)
        return 2
    finally:
        if drv is not None:
            drv.close()
        if sim is not None:
            sim.close()
    return 0


def _int_in(lo: int, hi: Optional[int], what: str):
    """argparse type: an integer in [lo, hi] (hi None: no upper bound), else a usage error saying so."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if v < lo or (hi is not None and v > hi):
            rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
            raise argparse.ArgumentTypeError(f"{what} must be {rng}, got {v}")
        return v
    return parse


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="piperik", description="Closed-form IK for the AgileX PiPER, NERO and KUKA iiwa 14.")
    ap.add_argument("--version", action="version", version=f"piperik {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    common = add_arm_arguments

    p = sub.add_parser("demo", help="solve a few poses and a short line, with timings and checks")
    common(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("ik", help="every IK solution of a pose and the selected one")
    common(p)
    p.add_argument("--xyz", nargs=3, type=float, metavar=("X", "Y", "Z"), help="flange position [m]")
    p.add_argument("--rpy", nargs=3, type=float, metavar=("R", "P", "Y"),
                   help="roll pitch yaw, R = Rz(Y) Ry(P) Rx(R) [rad, or deg with --deg]")
    p.add_argument("--piper-units", nargs=6, type=int, metavar=("X", "Y", "Z", "RX", "RY", "RZ"),
                   help="end pose as the PiPER's integers: 0.001 mm and 0.001 deg")
    p.add_argument("--q-current", nargs="+", type=float, metavar="Q", help="current joints for the selection")
    p.add_argument("--psi", type=float, help="7-DOF arm angle [rad, or deg with --deg]; default: chosen")
    p.set_defaults(func=cmd_ik)

    p = sub.add_parser("fk", help="flange (or --tool TCP) pose of joint angles")
    common(p)
    p.add_argument("q", nargs="+", type=float, help="the joint angles [rad, or --deg, or --mdeg]")
    p.add_argument("--mdeg", action="store_true", help="angles in the PiPER's 0.001 deg units")
    p.set_defaults(func=cmd_fk)

    p = sub.add_parser("path", help="a straight-line Cartesian motion, solved into joints and timed")
    common(p)
    six = dict(nargs=6, type=float, metavar=("X", "Y", "Z", "R", "P", "Y"))
    p.add_argument("--from", dest="start", required=True, help="start pose: xyz [m], rpy [rad, or --deg]", **six)
    p.add_argument("--to", required=True, help="end pose", **six)
    p.add_argument("--via", action="append", help="intermediate pose (repeatable)", **six)
    p.add_argument("--rate", type=float, default=200.0, help="control rate [Hz] (default 200)")
    p.add_argument("--q-start", nargs="+", type=float, help="start configuration (default: chosen for the start pose)")
    p.add_argument("--max-joint-step", type=float, default=0.02, help="joint step bound between path samples [rad]")
    p.add_argument("--plot", help="write a plot of the joint trajectory (needs matplotlib)")
    p.add_argument("--csv", help="write t, q, qd as CSV")
    p.set_defaults(func=cmd_path)

    p = sub.add_parser("firmware-sim", help="run the reference firmware on a pseudo-terminal")
    p.add_argument("--robot", choices=["piper", "piper_legacy", "nero", "iiwa14"], default="piper")
    p.add_argument("--link", help="also create this symlink to the pty (a stable path across restarts)")
    p.set_defaults(func=cmd_firmware_sim)

    p = sub.add_parser("drive", help="drive a PiPER over CAN with piper_sdk (or the simulated arm: --sim)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--can", metavar="CHANNEL", help="CAN channel of the arm, e.g. can0")
    where.add_argument("--sim", action="store_true", help="drive the simulated PiPER on a virtual CAN bus")
    p.add_argument("--interface", default="socketcan", help="python-can interface (socketcan, slcan, ...)")
    p.add_argument("--line", nargs="+", metavar="'X Y Z R P Y'",
                   help="poses: xyz [m], roll pitch yaw [rad, or --deg]; a joint-space move to the first, "
                        "then straight lines through the others")
    p.add_argument("--follow", action="store_true",
                   help="follow poses read from stdin, one per line: each tick the newest line (a live producer)")
    p.add_argument("--one-per-tick", action="store_true",
                   help="with --follow: every stdin line is one tick's pose (a recorded stream, played at --rate)")
    p.add_argument("--deg", action="store_true", help="roll, pitch, yaw in degrees")
    p.add_argument("--rate", type=float, default=200.0, help="command rate [Hz] (default 200)")
    p.add_argument("--max-velocity", type=float, default=1.5, help="per-joint speed limit [rad/s] (default 1.5)")
    p.add_argument("--max-acceleration", type=float, default=2.5,
                   help="per-joint acceleration limit [rad/s^2] (default 2.5)")
    p.add_argument("--margin-deg", type=float, default=1.0, help="distance kept from every joint limit [deg]")
    p.add_argument("--legacy-zero", action="store_true",
                   help="force the joint zeros of firmware before S-V1.6-3 (default: read the firmware version)")
    p.add_argument("--fast", action="store_true", help="the SDK's fast joint mode (MIT flag 0xAD)")
    p.add_argument("--tool", nargs=6, type=float, metavar=("X", "Y", "Z", "R", "P", "Y"),
                   help="tool centre point in the flange frame: xyz [m], rpy [rad, or deg with --deg]")
    p.set_defaults(func=cmd_drive)

    p = sub.add_parser("check", help="cross-check the model against a URDF with Pinocchio")
    common(p)
    p.add_argument("--urdf", help="URDF file (default: the one shipped for the model)")
    p.add_argument("--frame", help="flange frame name in the URDF (default: the model's ee_frame)")
    p.add_argument("--base", metavar="LINK",
                   help="with --urdf and --frame: classify that URDF's chain from LINK (OPW 6R, S-R-S 7R, near "
                        "one, or why not) and cross-check piperik.from_urdf's arm against it")
    p.add_argument("-n", type=_int_in(1, None, "the number of configurations"), default=1000,
                   help="random configurations, >= 1 (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_check)

    for register in _command_plugins():
        register(sub)
    return ap


# ---- commands of other packages ------------------------------------------------------------------
# A package adds commands through the entry point group "piperik.commands": each entry point names a
# function register(subparsers) that adds its subparsers (firmware_bridge.cli adds `stream`). piperik
# imports no such package itself, so none of them forms an import cycle with it. The helpers below are
# the stable API such a command uses.


def add_arm_arguments(p: argparse.ArgumentParser) -> None:
    """--robot, --legacy-zero, --deg and --tool, as every arm command has them; see :func:`arm_from_args`."""
    p.add_argument("--robot", choices=sorted(ROBOTS), default="piper", help="arm model (default: piper)")
    p.add_argument("--legacy-zero", action="store_true",
                   help="PiPER joint zeros of firmware before S-V1.6-3 (piper_sdk dh_is_offset=0)")
    p.add_argument("--deg", action="store_true", help="angles in degrees instead of radians")
    p.add_argument("--tool", nargs=6, type=float, metavar=("X", "Y", "Z", "R", "P", "Y"),
                   help="tool centre point in the flange frame: xyz [m], rpy [rad, or deg with --deg]; "
                        "poses are then the TCP's")
    p.add_argument("--from-urdf", nargs=3, metavar=("PATH", "BASE_LINK", "TIP_LINK"),
                   help="your arm from its URDF (piperik.from_urdf) instead of --robot")


def arm_from_args(args):
    """The arm that :func:`add_arm_arguments`' options name (a usage error for a bad combination)."""
    return _make_arm(args)


def int_in(lo: int, hi: Optional[int], what: str):
    """argparse type: an integer in [lo, hi] (hi None: no upper bound), else a usage error saying so."""
    return _int_in(lo, hi, what)


def _command_plugins():
    """The register functions of the "piperik.commands" entry points, by name. One that fails to load
    is reported on stderr and skipped: the built-in commands keep working."""
    from importlib.metadata import entry_points

    eps = entry_points()
    group = eps.select(group="piperik.commands") if hasattr(eps, "select") else eps.get("piperik.commands", ())
    out = []
    for ep in sorted(group, key=lambda e: e.name):
        try:
            out.append(ep.load())
        except Exception as exc:  # a broken plugin must not take the whole CLI down
            print(f"piperik: commands of {ep.value} not loaded: {exc}", file=sys.stderr)
    return out


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
