"""Property-based attack on every IK entry point (run by tests/test_fuzz_entry_points.py in a child
process, so that a crash fails that test instead of killing the test runner).

    python tests/_fuzz_entry_points.py ARM N_EXAMPLES

For arbitrary arguments (non-finite, huge and tiny entries, wrong shapes and types, valid poses with
one entry spoiled, poses of singular families), each call must either raise ValueError / TypeError
(NoSolutionError is a ValueError) with a message, or return what its documentation promises: finite
joints of the right shape, inside the limits where the call filters by them, reproducing the pose
(fk, to 1e-9) that the call accepted, its rotation projected onto SO(3). Prints "fuzz ARM: N examples, ok" on success; a failing
example is printed by hypothesis and the exit status is 1.
"""
from __future__ import annotations

import math
import sys

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import piperik

FK_TOL = 1e-9
LIMIT_TOL_RAD = 1e-9

ODD_REALS = [0.0, -0.0, 5e-324, -1e-300, 1e-12, 1.0, -1.0, math.pi, -math.pi, 2 * math.pi, 1e3, 1e3 + 1e-9,
             1e6, 1e6 + 1, 1e16, -1e300, 1.7e308, math.inf, -math.inf, math.nan]
reals = st.one_of(st.sampled_from(ODD_REALS), st.floats(allow_nan=True, allow_infinity=True, width=64),
                  st.floats(-4.0, 4.0))


def make_arm(name: str):
    tool = piperik.tool_matrix([0.01, -0.02, 0.12, 0.1, -0.2, 0.3])
    return {"piper": lambda: piperik.Piper(), "piper_tool": lambda: piperik.Piper(tool=tool),
            "nero": lambda: piperik.Nero(), "iiwa14": lambda: piperik.Iiwa14(),
            "iiwa14_tool": lambda: piperik.Iiwa14(tool=tool)}[name]()


def in_limit_q(arm, draw):
    lo, hi = arm.lower, arm.upper
    q = np.array([draw(st.floats(float(a), float(b))) for a, b in zip(lo, hi)])
    # singular families: a shoulder, elbow or wrist joint on 0 (or its limit)
    joints = (2, 4) if arm.dof == 6 else (1, 3, 5)
    for j in joints:
        if draw(st.integers(0, 3)) == 0 and lo[j] <= 0.0 <= hi[j]:
            q[j] = 0.0
        elif draw(st.integers(0, 9)) == 0:
            q[j] = lo[j] if draw(st.booleans()) else hi[j]
    return q


@st.composite
def joints(draw, arm):
    """A joint argument: in-limit (possibly singular), in-limit plus noise, arbitrary reals, a wrong
    length, None or a string."""
    kind = draw(st.integers(0, 9))
    if kind <= 3:
        return in_limit_q(arm, draw)
    if kind == 4:
        return in_limit_q(arm, draw) + np.array([draw(st.floats(-1e-6, 1e-6)) for _ in range(arm.dof)])
    if kind <= 7:
        return np.array([draw(reals) for _ in range(arm.dof)])
    if kind == 8:
        return np.zeros(draw(st.sampled_from([0, 1, arm.dof - 1, arm.dof + 1])))
    return draw(st.sampled_from([None, "q", [[0.0] * arm.dof]]))


@st.composite
def poses(draw, arm):
    """A pose the arm can reach (its fk at an in-limit, possibly singular q), one with an entry
    spoiled, a translation far away, an arbitrary 4x4, or a wrong shape / type."""
    kind = draw(st.integers(0, 9))
    if kind <= 4:
        return arm.fk(in_limit_q(arm, draw))
    if kind == 5:
        T = arm.fk(in_limit_q(arm, draw))
        T[draw(st.integers(0, 3)), draw(st.integers(0, 3))] = draw(reals)
        return T
    if kind == 6:
        T = arm.fk(in_limit_q(arm, draw))
        T[draw(st.integers(0, 2)), 3] = draw(reals)
        return T
    if kind == 7:
        return np.array([[draw(reals) for _ in range(4)] for _ in range(4)])
    if kind == 8:
        return np.zeros(draw(st.sampled_from([(3, 4), (4, 3), (16,), (4, 4, 1), (0,)])))
    return draw(st.sampled_from(["T", None, [[1.0, 0.0], [0.0, 1.0]]]))


def call(fn, *args, **kw):
    """fn's result, or None when it raised a ValueError / TypeError that says something."""
    try:
        return fn(*args, **kw)
    except (ValueError, TypeError) as e:
        assert str(e).strip(), f"{fn.__name__} raised {type(e).__name__} without a message"
        return None


def projected(T) -> np.ndarray:
    """The pose a call solves: a rotation within the pose check's 1e-6 of orthonormal is projected
    onto SO(3), the nearest rotation (polar decomposition, as README "Quickstart" says)."""
    T = np.array(T, dtype=float)
    U, _, Vt = np.linalg.svd(T[:3, :3])
    T[:3, :3] = U @ Vt
    return T


def check_rows(arm, Q, T, what: str, limits: bool):
    Q = np.asarray(Q, dtype=float)
    assert Q.ndim == 2 and Q.shape[1] == arm.dof, f"{what}: shape {Q.shape}"
    assert np.all(np.isfinite(Q)), f"{what}: non-finite joints {Q}"
    target = projected(T)
    for q in Q:
        F = arm.fk(q)
        err = np.abs(F - target).max()
        assert err <= FK_TOL, f"{what}: fk of a returned solution misses the pose by {err:.3g}"
        if limits:
            assert np.all(q >= arm.lower - LIMIT_TOL_RAD) and np.all(q <= arm.upper + LIMIT_TOL_RAD), \
                f"{what}: returned q outside the limits: {q}"


def run(arm_name: str, n_examples: int) -> None:
    arm = make_arm(arm_name)
    seven = arm.dof == 7

    @settings(max_examples=n_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def attack(data):
        T = data.draw(poses(arm), label="T")
        qc = data.draw(joints(arm), label="q_current")
        psi = data.draw(st.one_of(reals, st.sampled_from([None, "psi"])), label="psi")
        margin = data.draw(st.one_of(st.none(), reals, st.just("0.1")), label="limit_margin")

        # fk / singularity / arm_angle on the joint argument
        F = call(arm.fk, qc)
        if F is not None:  # (dof,) -> (4, 4); a batch (N, dof) -> (N, 4, 4)
            F = np.asarray(F)
            shape = (4, 4) if np.ndim(qc) == 1 else (len(qc), 4, 4)
            assert F.shape == shape and np.all(np.isfinite(F)), f"fk: {F}"
        s = call(arm.singularity, qc)
        if s is not None:
            assert math.isfinite(s) and s >= 0, f"singularity: {s}"
        if seven:
            a = call(arm.arm_angle, qc)
            if a is not None:  # a number, or one per row of a batch
                a = np.asarray(a, dtype=float)
                assert np.all(np.isfinite(a)) and np.all(np.abs(a) <= math.pi), f"arm_angle: {a}"

        # every solution (at psi for the 7-DOF arms): rows exact, no limit filtering
        Q = call(arm.ik_all, T, psi) if seven else call(arm.ik_all, T, qc)
        if Q is not None:
            check_rows(arm, Q, T, "ik_all", limits=False)

        # the controller's choice: in limits and exact, or NoSolutionError
        kw = {"limit_margin": margin}
        q = call(arm.ik, T, qc, **kw)
        if q is not None:
            check_rows(arm, np.asarray(q)[None], T, "ik", limits=True)
        if seven:
            policy = data.draw(st.sampled_from([None, "nearest", "widest", "max_margin", "given", "x"]),
                               label="policy")
            q = call(arm.ik, T, qc, psi=None if isinstance(psi, str) else psi, policy=policy)
            if q is not None:
                check_rows(arm, np.asarray(q)[None], T, f"ik(psi, policy={policy})", limits=True)
            iv = call(arm.feasible_arm_angles, T)
            if iv is not None:
                for lo, hi in iv:
                    assert math.isfinite(lo) and math.isfinite(hi) and -math.pi <= lo < hi <= math.pi, iv
        sel = call(arm.select, T, qc, **kw)
        if sel is not None:
            check_rows(arm, np.asarray(sel.q)[None], T, "select", limits=True)

        # batch and path over the pose repeated (a shape error raises like the single call)
        if isinstance(T, np.ndarray) and T.shape == (4, 4):
            Ts = np.stack([T, T])
            r = call(arm.ik_batch, Ts, qc)
            if r is not None:
                assert r.q.shape == (2, arm.dof) and r.ok.shape == (2,)
                if np.any(r.ok):
                    check_rows(arm, r.q[r.ok], T, "ik_batch", limits=True)
            try:
                path = arm.ik_path(Ts, qc)
            except piperik.NoSolutionError as e:
                assert e.path is not None and e.path.q.shape == (2, arm.dof), "NoSolutionError.path"
            except (ValueError, TypeError) as e:
                assert str(e).strip()
            else:
                assert path.ok and path.q.shape == (2, arm.dof)
                check_rows(arm, path.q, T, "ik_path", limits=True)

    attack()
    print(f"fuzz {arm_name}: {n_examples} examples, ok")


def run_helpers(n_examples: int) -> None:
    """The pose and unit helpers, the tool matrix, SelectOptions, time_parameterize and
    plan_cartesian: a clear error, or a finite result that round-trips / keeps its limits."""
    from piperik.trajectory import plan_cartesian, time_parameterize

    arm = piperik.Piper()
    vec3 = st.lists(reals, min_size=3, max_size=3)

    @settings(max_examples=n_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def attack(data):
        xyz, rpy = data.draw(vec3, label="xyz"), data.draw(vec3, label="rpy")
        T = call(piperik.pose_from_xyz_rpy, xyz, rpy)
        if T is not None:
            assert T.shape == (4, 4) and np.all(np.isfinite(T)), T
            back = call(piperik.pose_to_xyz_rpy, T)
            if back is not None:
                T2 = piperik.pose_from_xyz_rpy(*back)
                assert np.abs(T2 - T).max() <= 1e-9 * max(1.0, np.abs(T).max()), (T, T2)
            units = call(piperik.pose_to_piper_units, T)
            if units is not None:
                units = np.asarray(units)
                assert units.shape == (6,) and units.dtype.kind == "i", units
                T3 = piperik.pose_from_piper_units(units)
                assert np.abs(T3[:3, 3] - T[:3, 3]).max() <= 1e-6, (T, T3)
        q = np.array(data.draw(st.lists(reals, min_size=6, max_size=6), label="q"))
        mdeg = call(piperik.q_to_mdeg, q)
        if mdeg is not None:
            assert np.asarray(mdeg).dtype.kind == "i"
            assert np.abs(piperik.q_from_mdeg(mdeg) - q).max() <= math.radians(0.0005) + 1e-12, (q, mdeg)
        tool = call(piperik.tool_matrix, data.draw(st.one_of(st.lists(reals, min_size=6, max_size=6),
                                                             st.just("tool"), st.none()), label="tool"))
        if tool is not None:
            assert tool.shape == (4, 4) and np.all(np.isfinite(tool)), tool
        kw = data.draw(st.dictionaries(st.sampled_from(["limit_margin_rad", "singularity_margin",
                                                        "branch_penalty", "max_step_rad", "weights", "search_budget"]),
                                       st.one_of(reals, st.lists(reals, min_size=6, max_size=6), st.just("x"),
                                                 st.integers(-5, 2**40)),
                                       max_size=3), label="SelectOptions")
        opts = call(piperik.SelectOptions, **kw)
        if opts is not None:
            assert 0 <= opts.search_budget <= 10**9, opts
        # timing: a short joint path with arbitrary limits and rate must time or refuse, never
        # allocate without bound
        n = data.draw(st.integers(1, 4), label="n")
        path = np.array([[data.draw(st.one_of(st.floats(-3, 3), reals)) for _ in range(6)] for _ in range(n)])
        vmax, amax, rate = data.draw(reals, label="vmax"), data.draw(reals, label="amax"), data.draw(reals, label="rate")
        traj = call(time_parameterize, path, vmax, amax, rate)
        if traj is not None:
            assert np.all(np.isfinite(traj.t_s)) and np.all(np.isfinite(traj.q_rad)) and \
                np.all(np.isfinite(traj.qd_rad_s)) and np.all(np.isfinite(traj.qdd_rad_s2)), "non-finite trajectory"
            assert np.all(np.abs(traj.qdd_rad_s2) <= abs(amax) * (1 + 1e-9) + 1e-12), "acceleration limit"
            assert np.all(np.abs(traj.qd_rad_s) <= abs(vmax) * (1 + 1e-9) + 1e-12), "velocity limit"
        # a Cartesian line from a reachable pose to an arbitrary offset
        q0 = in_limit_q(arm, data.draw)
        T0 = arm.fk(q0)
        T1 = T0.copy()
        T1[:3, 3] += np.array([data.draw(st.one_of(st.floats(-0.05, 0.05), reals)) for _ in range(3)])
        try:
            plan = plan_cartesian(arm, [T0, T1], q0, max_samples=20_000)
        except (ValueError, TypeError) as e:
            assert str(e).strip()
        else:
            check_rows(arm, plan.q[-1:], T1, "plan_cartesian", limits=True)
            assert np.all(np.isfinite(plan.q))

    attack()
    print(f"fuzz helpers: {n_examples} examples, ok")


def same_angles(a, b, tol: float) -> bool:
    d = (np.asarray(a) - np.asarray(b) + np.pi) % (2 * np.pi) - np.pi
    return bool(np.all(np.abs(d) <= tol))


def run_models(n_examples: int) -> None:
    """Arms built from parameters (Arm6.from_opw, Arm7.from_lengths) with arbitrary values: a
    ValueError naming the rule, or an arm whose ik_all rows reproduce its fk exactly; for arms of
    plausible size (lengths 0 or 1 cm - 2 m) away from singularities, ik_all also returns the
    configuration that made the pose."""
    length = st.one_of(st.just(0.0), st.floats(0.01, 2.0), st.floats(-2.0, -0.01), reals)
    plausible = st.one_of(st.just(0.0), st.floats(0.01, 2.0), st.floats(-2.0, -0.01))
    positive = st.floats(0.01, 2.0)
    signs = st.one_of(st.none(), st.lists(st.sampled_from([1, -1]), min_size=7, max_size=7),
                      st.lists(st.sampled_from([1, -1]), min_size=7, max_size=7),
                      st.lists(reals, min_size=7, max_size=7))
    offsets = st.one_of(st.none(), st.lists(st.floats(-4, 4), min_size=7, max_size=7),
                        st.lists(reals, min_size=7, max_size=7))

    def recovered(arm, Q, q, what):
        assert any(same_angles(row, q, 1e-6) for row in Q), f"{what}: the generating q {q} is not among {Q}"

    @settings(max_examples=n_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def attack(data):
        sane = data.draw(st.booleans(), label="plausible")
        names = ("a1", "a2", "b", "c1", "c2", "c3", "c4")
        kw = {n: data.draw((positive if n == "c2" else plausible) if sane else length, label=n) for n in names}
        sg, off = data.draw(signs, label="signs6"), data.draw(offsets, label="offsets6")
        arm = call(piperik.Arm6.from_opw, **kw, signs=None if sg is None else sg[:6],
                   offsets_rad=None if off is None else off[:6])
        if arm is not None:
            for _ in range(3):
                q = np.array([data.draw(st.floats(-3.1, 3.1)) for _ in range(6)])
                T = arm.fk(q)
                Q = arm.ik_all(T, q)
                check_rows(arm, Q, T, "from_opw ik_all", limits=False)
                if sane and all(isinstance(v, int) for v in (sg or [1])) and arm.singularity(q) > 1e-3:
                    recovered(arm, Q, q, f"from_opw({kw})")
        names7 = ("d_bs_m", "d_se_m", "d_ew_m", "d_wf_m")
        kw7 = {n: data.draw((positive if n in ("d_se_m", "d_ew_m") else plausible) if sane else length, label=n)
               for n in names7}
        sg7, off7 = data.draw(signs, label="signs7"), data.draw(offsets, label="offsets7")
        arm7 = call(piperik.Arm7.from_lengths, **kw7, signs=sg7, offsets_rad=off7)
        if arm7 is not None:
            for _ in range(3):
                q = np.array([data.draw(st.floats(-3.1, 3.1)) for _ in range(7)])
                T = arm7.fk(q)
                psi = arm7.arm_angle(q)
                Q = arm7.ik_all(T, psi, q)
                check_rows(arm7, Q, T, "from_lengths ik_all", limits=False)
                if sane and arm7.singularity(q) > 1e-3:
                    recovered(arm7, Q, q, f"from_lengths({kw7})")

    attack()
    print(f"fuzz models: {n_examples} examples, ok")


def run_protocol(n_examples: int) -> None:
    """The wire: every firmware_bridge.protocol encoder with arbitrary arguments raises ValueError /
    TypeError or returns a payload that one frame carries and the C parser gives back unchanged;
    the parser takes any bytes (a frame split anywhere, garbage between frames) without crashing;
    decode of any payload is a message or a ValueError."""
    from firmware_bridge import protocol as P
    from piperik import proto

    ints = st.one_of(st.integers(-2**40, 2**40), st.sampled_from([0, 1, -1, 2**31 - 1, -2**31, 2**31, 2**32,
                                                                  65535, 65536, 255, 256, True, 1.5, 2.0,
                                                                  math.inf, -math.inf, math.nan, 1e300]), reals)
    int_lists = st.one_of(st.lists(ints, max_size=14), st.just("abc"), st.none())

    @settings(max_examples=n_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def attack(data):
        which = data.draw(st.sampled_from(["setpoint", "traj_segment", "heartbeat", "enable", "config", "limits",
                                           "pose_setpoint", "tool"]), label="encoder")
        if which == "setpoint":
            args = (data.draw(int_lists), data.draw(ints), data.draw(ints))
        elif which == "traj_segment":
            k, n = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 8))
            args = (np.array([[data.draw(ints) for _ in range(n)] for _ in range(k)], dtype=object), data.draw(ints),
                    data.draw(ints))
        elif which in ("heartbeat",):
            args = (data.draw(ints),)
        elif which == "enable":
            args = (data.draw(st.one_of(st.booleans(), ints)),)
        elif which in ("config", "limits"):
            n = data.draw(st.integers(0, 9))
            L = np.array([[data.draw(ints), data.draw(ints)] for _ in range(n)], dtype=object)
            args = (data.draw(ints), L, data.draw(st.booleans())) if which == "config" else (L, data.draw(ints))
        else:
            args = (data.draw(int_lists), data.draw(int_lists)) + ((data.draw(ints),) if which == "pose_setpoint" else ())
        payload = call(getattr(P, which), *args)
        if payload is not None:
            assert isinstance(payload, bytes) and len(payload) <= proto.MAX_PAYLOAD, (which, len(payload))
            seq = data.draw(st.integers(0, 65535))
            wire = proto.encode(getattr(P, which.upper()) if hasattr(P, which.upper()) else 0, seq, payload)
            got = proto.Parser().feed(wire)
            assert len(got) == 1 and got[0][0] == "frame" and got[0][2] == seq and got[0][3] == payload, got
        # the parser on arbitrary bytes, a frame cut at any point, and a valid frame after garbage
        junk = data.draw(st.binary(max_size=600), label="junk")
        parser = proto.Parser()
        out = parser.feed(junk)
        assert isinstance(out, list)
        wire = proto.encode(0x01, 7, b"\x01\x02")
        cut = data.draw(st.integers(0, len(wire)))
        out = parser.feed(b"\x00" + wire[:cut]) + parser.feed(wire[cut:])
        assert out and out[-1][0] == "frame" and out[-1][2] == 7, out
        msg_type = data.draw(st.sampled_from([P.ACK, P.NACK, P.STATE, P.BOOT, 0, 0x7F, 255]), label="type")
        call(P.decode, msg_type, junk[:64])

    attack()
    print(f"fuzz protocol: {n_examples} examples, ok")


def run_cli(n_examples: int) -> None:
    """The `piperik` command (ik, fk, path, check -n) with arbitrary numbers: it prints a result, an
    error message with a non-zero status, or argparse's usage error (SystemExit 2). Any other
    exception would be a traceback in the user's terminal."""
    import contextlib
    import io

    from piperik import cli

    num = st.one_of(st.floats(-3.0, 3.0).map(repr), st.floats(0.05, 0.6).map(repr),
                    st.sampled_from(["nan", "inf", "-inf", "1e308", "-1e308", "0", "1e3", "x", "", "1e-320"]))

    @settings(max_examples=n_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def attack(data):
        robot = data.draw(st.sampled_from(["piper", "nero", "iiwa14"]), label="robot")
        dof = 6 if robot == "piper" else 7
        cmd = data.draw(st.sampled_from(["ik", "fk", "path"]), label="command")
        argv = [cmd, "--robot", robot]
        if data.draw(st.booleans()):
            argv.append("--deg")
        if data.draw(st.integers(0, 4)) == 0:
            argv += ["--tool"] + [data.draw(num) for _ in range(6)]
        if cmd == "ik":
            argv += ["--xyz"] + [data.draw(num) for _ in range(3)] + ["--rpy"] + [data.draw(num) for _ in range(3)]
            if data.draw(st.booleans()):
                argv += ["--q-current"] + [data.draw(num) for _ in range(data.draw(st.sampled_from([dof, dof - 1])))]
            if dof == 7 and data.draw(st.booleans()):
                argv += ["--psi", data.draw(num)]
        elif cmd == "fk":
            argv += ["--"] + [data.draw(num) for _ in range(data.draw(st.sampled_from([dof, dof + 1])))]
        else:
            for flag in ("--from", "--to"):
                argv += [flag] + [data.draw(num) for _ in range(6)]
            argv += ["--rate", data.draw(st.sampled_from(["200", "0", "-5", "nan", "1e9", "1e-300"]))]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(argv)
            except SystemExit as e:  # argparse's usage error (2), or SystemExit("piperik: ...") (1)
                rc = e.code
                if isinstance(rc, str):
                    assert rc.startswith("piperik"), (argv, rc)
                    err.write(rc)
                    rc = 1
        assert isinstance(rc, int), (argv, rc)
        if rc != 0:
            assert err.getvalue().strip() or out.getvalue().strip(), f"{argv}: status {rc} without a message"
            assert "Traceback" not in err.getvalue(), (argv, err.getvalue())

    attack()
    print(f"fuzz cli: {n_examples} examples, ok")


if __name__ == "__main__":
    if sys.argv[1] == "cli":
        run_cli(int(sys.argv[2]) if len(sys.argv) > 2 else 300)
    elif sys.argv[1] == "protocol":
        run_protocol(int(sys.argv[2]) if len(sys.argv) > 2 else 300)
    elif sys.argv[1] == "models":
        run_models(int(sys.argv[2]) if len(sys.argv) > 2 else 300)
    elif sys.argv[1] == "helpers":
        run_helpers(int(sys.argv[2]) if len(sys.argv) > 2 else 300)
    else:
        run(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 300)
