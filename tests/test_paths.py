"""Selection policy, joint paths, Cartesian lines and timing (PiPER, NERO, iiwa 14).

Seeded random lines and waypoint paths; every claim checked against an independent computation:
FK of the samples, the segment geometry, brute-force scans of the selection cost, and finite
differences of the timed trajectory.
"""
import math
import os

import numpy as np
import pytest

import piperik
from conftest import pose_error
from piperik.trajectory import interpolate_poses, line_poses, plan_cartesian, time_parameterize

SEED = int(os.environ.get("PIPERIK_TEST_SEED", "20261130"))
N_PATHS = max(int(os.environ.get("PIPERIK_TEST_COUNT", "10000")) // 500, 4)  # 20 lines per arm by default
ARMS = [piperik.Piper, piperik.Nero, piperik.Iiwa14]


@pytest.fixture(params=ARMS, ids=lambda A: A.__name__)
def arm(request):
    return request.param()


def _interior_q(arm, rng, margin=0.25):
    lo, hi = arm.lower + margin * (arm.upper - arm.lower), arm.upper - margin * (arm.upper - arm.lower)
    return rng.uniform(lo, hi)


def _random_line(arm, rng, length=0.08):
    """A start configuration and a short line from its pose (orientation turning up to 0.3 rad)."""
    q0 = _interior_q(arm, rng)
    T0 = arm.fk(q0)
    d = rng.normal(size=3)
    T1 = T0.copy()
    T1[:3, 3] += length * d / np.linalg.norm(d)
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    ang = rng.uniform(-0.3, 0.3)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    T1[:3, :3] = T0[:3, :3] @ (np.eye(3) + math.sin(ang) * K + (1 - math.cos(ang)) * K @ K)
    return q0, T0, T1


def _plan_or_none(arm, waypoints, q0, **kw):
    try:
        return plan_cartesian(arm, waypoints, q0, **kw)
    except piperik.NoSolutionError:
        return None


# ---------------------------------------------------------------------------------------------- lines


def test_random_lines_are_exact_straight_bounded_and_on_one_branch(arm):
    rng = np.random.default_rng(SEED)
    solved = 0
    for _ in range(N_PATHS):
        q0, T0, T1 = _random_line(arm, rng)
        plan = _plan_or_none(arm, [T0, T1], q0, max_joint_step_rad=0.02)
        if plan is None:
            continue  # the line leaves the workspace or the limits: checked separately below
        solved += 1
        # every sample is exact for its pose ...
        dp, dr = pose_error(arm.fk(plan.q), plan.poses)
        assert dp.max() <= 1e-9 and dr.max() <= 1e-9
        # ... and its pose is on the segment: p = (1 - s) p0 + s p1, R = SLERP(s)
        expect = interpolate_poses(T0, T1, plan.s)
        dp2, dr2 = pose_error(plan.poses, expect)
        assert dp2.max() <= 1e-12 and dr2.max() <= 1e-12
        p = arm.fk(plan.q)[:, :3, 3]
        u = (T1[:3, 3] - T0[:3, 3]) / np.linalg.norm(T1[:3, 3] - T0[:3, 3])
        off_line = np.linalg.norm(np.cross(p - T0[:3, 3], u), axis=1)
        assert off_line.max() <= 1e-9, f"FK of samples leaves the line by {off_line.max():.2e} m"
        # joint steps bounded, limits kept, one branch (these lines stay clear of singularities)
        steps = np.abs(np.diff(plan.q, axis=0)).max()
        assert steps <= 0.02 + 1e-12
        assert np.all(plan.q >= arm.lower - 1e-12) and np.all(plan.q <= arm.upper + 1e-12)
        if plan.report.min_singularity > 0.05:
            assert plan.report.branch_changes == 0
        np.testing.assert_array_equal(plan.q[0], arm.ik_path(T0[None], q0).q[0])
    assert solved >= N_PATHS // 2, f"only {solved} of {N_PATHS} random short lines were solvable"


def test_waypoint_paths(arm):
    rng = np.random.default_rng(SEED + 1)
    for _ in range(max(N_PATHS // 4, 2)):
        q0 = _interior_q(arm, rng)
        Ws = [arm.fk(q0)]
        for _ in range(3):
            W = Ws[-1].copy()
            W[:3, 3] += rng.uniform(-0.03, 0.03, 3)
            Ws.append(W)
        plan = _plan_or_none(arm, Ws, q0)
        if plan is None:
            continue
        # the waypoints themselves are samples, in order
        for k, W in enumerate(Ws):
            i = np.flatnonzero(np.isclose(plan.segment + plan.s, k))
            assert len(i) == 1
            dp, dr = pose_error(arm.fk(plan.q[i[0]]), W)
            assert dp <= 1e-9 and dr <= 1e-9
        assert np.all(np.diff(plan.segment + plan.s) > 0)


def test_limit_margin_is_kept_along_a_path(arm):
    rng = np.random.default_rng(SEED + 2)
    margin = 0.05
    opts = piperik.SelectOptions(limit_margin_rad=margin)
    for _ in range(6):
        q0, T0, T1 = _random_line(arm, rng)
        plan = _plan_or_none(arm, [T0, T1], q0, options=opts)
        if plan is None:
            continue
        m = np.minimum(plan.q - arm.lower, arm.upper - plan.q).min()
        assert m >= margin - 1e-12, f"margin {m:.4f} < {margin}"


def test_timed_trajectory_respects_limits(arm):
    rng = np.random.default_rng(SEED + 3)
    checked = 0
    for _ in range(20):
        if checked >= 8:
            break
        q0, T0, T1 = _random_line(arm, rng, length=0.12)
        plan = _plan_or_none(arm, [T0, T1], q0)
        if plan is None:
            continue
        for rate in (200.0, 500.0):
            tr = time_parameterize(plan.q, arm.max_velocity, arm.max_acceleration, rate_hz=rate)
            dt = 1.0 / rate
            assert np.allclose(np.diff(tr.t_s), dt, atol=1e-12) or len(tr.t_s) <= 2
            assert np.all(np.abs(tr.qd_rad_s) <= arm.max_velocity * (1 + 1e-9))
            assert np.all(np.abs(tr.qdd_rad_s2) <= arm.max_acceleration * (1 + 1e-9))
            fd_v = np.abs(np.diff(tr.q_rad, axis=0)) / dt
            fd_a = np.abs(np.diff(tr.q_rad, 2, axis=0)) / dt ** 2
            assert np.all(fd_v <= arm.max_velocity * (1 + 1e-9))
            assert np.all(fd_a <= arm.max_acceleration * (1 + 1e-9))
            # starts and ends at rest on the path's ends; passes through every path sample's joints
            np.testing.assert_array_equal(tr.q_rad[0], plan.q[0])
            np.testing.assert_array_equal(tr.q_rad[-1], plan.q[-1])
            assert np.all(tr.qd_rad_s[[0, -1]] == 0.0)
            # synchronised: every joint leaves and reaches its end together (one path parameter)
            lo = np.minimum(plan.q.min(axis=0), tr.q_rad.min(axis=0))
            assert np.all(tr.q_rad.min(axis=0) >= lo - 1e-12)
            checked += 1
    assert checked >= 4


def test_time_parameterize_bad_input():
    with pytest.raises(ValueError, match="q_path"):
        time_parameterize(np.array([[0.0, np.nan]]), 1.0, 1.0)
    with pytest.raises(ValueError, match="max_velocity"):
        time_parameterize(np.zeros((3, 2)), [1.0, 0.0], 1.0)
    with pytest.raises(ValueError, match="rate_hz"):
        time_parameterize(np.zeros((3, 2)), 1.0, 1.0, rate_hz=0.0)
    still = time_parameterize(np.zeros((5, 6)), 3.0, 5.0)
    assert still.duration_s == 0.0 and len(still.t_s) == 1


# ---------------------------------------------------------------------------------------------- singularities


def test_piper_line_through_wrist_singularity_is_continuous():
    """A straight line whose middle sample has q5 = 0 exactly: the path holds q4, moves q6, no flip."""
    arm = piperik.Piper()
    rng = np.random.default_rng(SEED + 4)
    crossings = 0
    for _ in range(10):
        qm = _interior_q(arm, rng, margin=0.3)
        qm[4] = 0.0
        Tm = arm.fk(qm)
        d = rng.normal(size=3)
        d *= 0.03 / np.linalg.norm(d)
        T0, T1 = Tm.copy(), Tm.copy()
        T0[:3, 3] -= d
        T1[:3, 3] += d
        Ts = line_poses(T0, T1, 101)  # sample 50 is Tm
        try:
            q0 = arm.ik(T0, qm)
            rep = arm.ik_path(Ts, q0)
            Q = rep.q
        except piperik.NoSolutionError:
            continue
        steps = np.abs(np.diff(Q, axis=0))
        assert steps.max() <= 0.05, f"a jump of {steps.max():.3f} rad on a 0.6 mm step through q5 = 0"
        assert abs(Q[50, 4]) <= 1e-9, "the middle sample is the singular one"
        assert abs(Q[50, 3] - Q[49, 3]) <= 0.01, "q4 is held through the singularity"
        if np.sign(Q[40, 4]) != np.sign(Q[60, 4]):
            crossings += 1
            assert rep.branch_changes >= 1  # the wrist-flip label changed, continuously
        assert rep.min_singularity <= 1e-9
    assert crossings >= 3, f"only {crossings} lines actually crossed q5 = 0"


# ---------------------------------------------------------------------------------------------- failures


def test_unreachable_middle_sample_is_reported_with_its_index(arm):
    rng = np.random.default_rng(SEED + 5)
    q0 = _interior_q(arm, rng)
    T0 = arm.fk(q0)
    Ts = np.repeat(T0[None], 21, axis=0)
    Ts[:, 0, 3] += np.linspace(0.0, 0.01, 21)
    Ts[13, :3, 3] = [3.0, 0.0, 0.5]  # far outside the workspace
    with pytest.raises(piperik.NoSolutionError, match=r"sample 13 of 21: .*workspace"):
        arm.ik_path(Ts, q0)
    rep = arm._path(Ts, q0, 0.25, True, None)
    Q = rep.q
    assert rep.failed_index == 13 and np.isnan(Q[13:]).all() and np.isfinite(Q[:13]).all()


def test_plan_names_the_segment_that_leaves_the_workspace(arm):
    rng = np.random.default_rng(SEED + 6)
    q0 = _interior_q(arm, rng)
    A = arm.fk(q0)
    B = A.copy()
    B[:3, 3] = A[:3, 3] * 4.0  # the line runs out of reach partway
    with pytest.raises(piperik.NoSolutionError, match=r"segment 0 \(waypoint 0 -> 1\) at s = 0\.\d+"):
        plan_cartesian(arm, [A, B], q0)


def test_jump_above_the_bound_is_reported_not_taken():
    """Two poses whose only in-limit solutions are far apart: a path with a small bound refuses."""
    arm = piperik.Piper()
    qa = np.array([0.0, 1.2, -1.0, 0.0, 0.6, 0.0])
    qb = np.array([1.5, 1.2, -1.0, 0.0, 0.6, 0.0])
    Ts = arm.fk(np.stack([qa, qb]))
    with pytest.raises(piperik.NoSolutionError, match="sample 1 of 2: .*step"):
        arm.ik_path(Ts, qa, max_step_rad=0.5)
    Q = arm.ik_path(Ts, qa, max_step_rad=np.inf).q  # no bound: taken
    np.testing.assert_allclose(Q[1], qb, atol=1e-9)
    # ik reports it through the same option
    opts = piperik.SelectOptions(max_step_rad=0.5)
    with pytest.raises(piperik.NoSolutionError, match="max_step_rad"):
        arm.ik(Ts[1], qa, options=opts)
    sel = arm.select(Ts[1], qa, options=opts)
    assert sel.step_exceeded and abs(sel.max_step_rad - 1.5) <= 1e-9 and sel.max_step_joint == 0
    res = arm.ik_batch(Ts[1:], qa, options=opts)
    Qb, ok, status = res.q, res.ok, res.status
    assert not ok[0] and status[0] == -4


# ---------------------------------------------------------------------------------------------- selection policy


def _cost(arm, q, qc, o, branch_q, branch_c, sing):
    m = np.minimum(q - arm.lower, arm.upper - q)
    if m.min() < o.limit_margin_rad:
        return math.inf
    cost = float(np.sum((q - qc) ** 2))
    cost += o.limit_penalty * float(np.sum(np.maximum(o.soft_limit_margin_rad - m, 0.0) ** 2))
    cost += o.singularity_penalty * max(o.singularity_margin - sing, 0.0) ** 2
    if branch_q != branch_c and np.abs(q - qc).max() > o.continuous_step_rad:
        cost += o.branch_switch_penalty
    return cost


def test_default_policy_matches_its_brute_force_cost():
    """The default SelectOptions cost (distance + soft margin + singularity + branch penalties),
    recomputed in numpy over ik_all's in-limit rows, is minimised by select()."""
    arm = piperik.Piper()
    o = piperik.SelectOptions()
    rng = np.random.default_rng(SEED + 7)
    for _ in range(300):
        q = rng.uniform(arm.lower, arm.upper)
        qc = rng.uniform(arm.lower, arm.upper) if rng.uniform() < 0.5 else q + rng.normal(0, 0.05, 6)
        T = arm.fk(q)
        sols = [s for s in arm.solutions(T, seed=qc) if s.in_limits]
        if not sols:
            continue
        bc = arm.select(T, qc, options=piperik.SelectOptions.nearest())  # only to get qc's branch below
        branch_c = _branch_of(arm, qc)
        costs = [_cost(arm, np.clip(s.q, arm.lower, arm.upper), qc, o, s.flags & 7, branch_c, arm.singularity(s.q))
                 for s in sols]
        sel = arm.select(T, qc)
        mine = _cost(arm, sel.q, qc, o, _branch_of(arm, sel.q), branch_c, arm.singularity(sel.q))
        assert mine <= min(costs) + 1e-9, (mine, min(costs))
        assert bc.q is not None


def _branch_of(arm, q):
    """Branch bits of q, from the solution of fk(q) that equals q."""
    for s in arm.solutions(arm.fk(q), seed=q):
        if np.max(np.abs((s.q - q + np.pi) % (2 * np.pi) - np.pi)) <= 1e-6:
            return s.flags & 7
    raise AssertionError("q not among its own solutions")


def test_branch_penalty_prefers_the_current_branch():
    """Near a branch boundary the other branch may be a little closer; the penalty keeps the current
    one unless the step is continuous, and SelectOptions.nearest() switches."""
    arm = piperik.Piper()
    rng = np.random.default_rng(SEED + 8)
    kept = 0
    for _ in range(3000):
        q = rng.uniform(arm.lower, arm.upper)
        T = arm.fk(q)
        sols = [s for s in arm.solutions(T) if s.in_limits]
        if len(sols) < 2:
            continue
        a, b = sols[0], sols[1]
        qc = a.q + 0.55 * (b.q - a.q)  # slightly nearer to b, on a's branch side? check with the rule
        if np.abs(b.q - qc).max() <= 0.1 or _branch_of(arm, np.clip(a.q, arm.lower, arm.upper)) == (b.flags & 7):
            continue
        near = arm.select(T, np.clip(qc, arm.lower, arm.upper), options=piperik.SelectOptions.nearest())
        pen = arm.select(T, np.clip(qc, arm.lower, arm.upper), options=piperik.SelectOptions(branch_switch_penalty=100.0))
        branch_c = _branch_of(arm, np.clip(qc, arm.lower, arm.upper))
        if (near.q is not None) and (_branch_of(arm, near.q) != branch_c) and (_branch_of(arm, pen.q) == branch_c):
            kept += 1
    assert kept >= 1, "the branch-switch penalty never kept the current branch"


def test_options_validation():
    with pytest.raises(ValueError, match="limit_penalty"):
        piperik.SelectOptions(limit_penalty=-1.0)
    with pytest.raises(ValueError, match="weights"):
        piperik.SelectOptions(weights=[1, -1, 1, 1, 1, 1])
    arm = piperik.Nero()
    with pytest.raises(ValueError, match="weights"):
        arm.ik(arm.fk(np.zeros(7)), np.zeros(7), options=piperik.SelectOptions(weights=np.ones(6)))
    o = piperik.SelectOptions.nearest()
    assert o.branch_switch_penalty == 0 and o.limit_penalty == 0 and o.singularity_penalty == 0


# ---------------------------------------------------------------------------------------------- CLI


def test_cli_path_writes_csv_and_plot(tmp_path, capsys):
    from piperik.cli import main

    csv = tmp_path / "p.csv"
    png = tmp_path / "p.png"
    args = ["path", "--robot", "piper", "--from", "0.25", "0.0", "0.33", "180", "49", "180",
            "--to", "0.30", "0.1", "0.28", "180", "49", "180", "--deg", "--rate", "200", "--csv", str(csv)]
    try:
        import matplotlib  # noqa: F401
        args += ["--plot", str(png)]
    except ImportError:
        png = None
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "setpoints" in out
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert data.shape[1] == 1 + 12 and np.allclose(np.diff(data[:, 0]), 1 / 200, atol=1e-6)
    if png is not None:
        assert png.stat().st_size > 1000
    assert main(["path", "--from", "0.25", "0", "0.33", "180", "49", "180", "--to", "3", "0", "0.3", "180", "49",
                 "180", "--deg"]) == 2
    assert "segment 0" in capsys.readouterr().err


@pytest.mark.parametrize("make", [piperik.Piper, piperik.Nero], ids=["piper", "nero"])
def test_path_result_names_what_the_c_loop_reports(make):
    """ik_path returns a PathResult with named fields (one shape for every arm class; psi only for
    a 7-DOF arm) that are the joint path's own: its largest step is the largest row difference, at
    the joint and sample it names. On failure the NoSolutionError carries the status and the
    partial PathResult, NaN from the failing sample on."""
    import copy
    import pickle

    arm = make()
    q0 = np.array([0.2, 1.2, -1.0, 0.3, 0.6, 0.1] if arm.dof == 6 else [0.2, 0.5, -0.3, 1.0, 0.2, 0.3, 0.1])
    Qg = q0 + 0.2 * np.linspace(0, 1, 30)[:, None] ** 2 * np.linspace(0.5, 1.0, arm.dof)  # last step largest
    assert min(arm.singularity(q) for q in Qg) > 0.05  # no singularity crossed: no branch change
    path = arm.ik_path(arm.fk(Qg), Qg[0])
    assert isinstance(path, piperik.PathResult) and path.ok and path.failed_index == -1
    assert path.status == 0 and path.q.shape == (30, arm.dof)
    steps = np.abs(np.diff(np.vstack([Qg[0], path.q]), axis=0))
    assert path.max_step_rad == pytest.approx(steps.max(), abs=1e-12)
    k, j = np.unravel_index(np.argmax(steps), steps.shape)
    assert (path.max_step_index, path.max_step_joint) == (k, j)
    assert path.min_singularity == pytest.approx(min(arm.singularity(q) for q in path.q), abs=1e-12)
    assert path.branch_changes == 0
    if arm.dof == 7:
        assert path.psi.shape == (30,)
        np.testing.assert_allclose(path.psi, arm.arm_angle(path.q), atol=1e-9)
    else:
        assert path.psi is None
    with pytest.raises(AttributeError):
        path.nope
    with pytest.raises(Exception):  # frozen: the result is what the solver found
        path.status = 1
    back = pickle.loads(pickle.dumps(path))
    assert isinstance(back, piperik.PathResult) and back.max_step_rad == path.max_step_rad
    assert copy.deepcopy(path).failed_index == -1
    assert "PathResult(n=30, ok" in repr(path)

    Ts = arm.fk(Qg)
    Ts[20, 0, 3] = 50.0  # unreachable: the path stops there
    with pytest.raises(piperik.NoSolutionError, match="sample 20 of 30: the pose is outside the arm.s workspace") as info:
        arm.ik_path(Ts, Qg[0])
    err = info.value
    assert err.status == piperik._core.STATUS_CODE["UNREACHABLE"] and err.path.failed_index == 20
    assert not err.path.ok and np.isnan(err.path.q[20:]).all() and np.isfinite(err.path.q[:20]).all()
    if arm.dof == 7:
        assert np.isnan(err.path.psi[20:]).all()
