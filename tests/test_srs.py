"""7-DOF S-R-S arms (AgileX NERO, KUKA iiwa 14): arm-angle IK, feasible arm angles, psi selection.

References independent of the solver: Pinocchio FK of the shipped URDFs (and of the makers' files),
a dense brute-force scan of the arm angle, and brute-force nearest solutions. Counts and seeds come
from PIPERIK_TEST_COUNT (halved per arm, at least 5000 by default) and PIPERIK_TEST_SEED.
"""
import os
from pathlib import Path

import numpy as np
import pytest

import piperik
from conftest import brute_force_nearest_distance, pose_error

ROOT = Path(__file__).resolve().parents[1]
#: the makers' URDFs, vendored with their sources and licences (tests/data/README.md)
MAKER_MODELS = ROOT / "tests" / "data"
COUNT = max(int(os.environ.get("PIPERIK_TEST_COUNT", "10000")) // 2, 1)
SEED = int(os.environ.get("PIPERIK_TEST_SEED", "20261130"))
ARMS = [piperik.Nero, piperik.Iiwa14]


def ang_diff(a, b):
    return np.abs((np.asarray(a) - np.asarray(b) + np.pi) % (2 * np.pi) - np.pi)


def random_q(arm, rng, n):
    return rng.uniform(arm.lower, arm.upper, (n, 7))


@pytest.fixture(params=ARMS, ids=lambda A: A.__name__)
def arm(request):
    return request.param()


# ---------------------------------------------------------------------------------------------- Pinocchio


def _pin_model(path, frame):
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(path))
    assert model.existFrame(frame), f"{frame} missing from {path}"
    data = model.createData()
    fid = model.getFrameId(frame)

    def fk(q):
        pin.framesForwardKinematics(model, data, np.asarray(q, dtype=float))
        return data.oMf[fid].homogeneous.copy()

    return model, fk


def test_fk_equals_pinocchio_on_shipped_urdf(arm):
    model, pin_fk = _pin_model(arm.urdf_path, arm.ee_frame)
    assert model.nq == 7
    rng = np.random.default_rng(SEED)
    Q = np.concatenate([random_q(arm, rng, COUNT), rng.uniform(-np.pi, np.pi, (COUNT // 10 + 1, 7))])
    T_ours = arm.fk(Q)
    T_pin = np.array([pin_fk(q) for q in Q])
    err = np.abs(T_ours - T_pin).max()
    assert err <= 1e-9, f"fk vs Pinocchio on {arm.urdf_path.name}: max {err:.2e}"
    np.testing.assert_allclose(np.array([arm.fk(q) for q in Q[:50]]), T_ours[:50], atol=0, rtol=0)


def test_ik_against_pinocchio(arm):
    """Every solution FK-exact (Pinocchio) to 1e-9; the generating q recovered via its arm angle."""
    _, pin_fk = _pin_model(arm.urdf_path, arm.ee_frame)
    rng = np.random.default_rng(SEED + 1)
    Q = random_q(arm, rng, COUNT)
    worst_p = worst_r = 0.0
    missing = []
    counts = np.zeros(9, int)
    for q in Q:
        T = pin_fk(q)
        psi = arm.arm_angle(q)
        sols = arm.ik_all(T, psi)
        counts[len(sols)] += 1
        T_sol = np.array([pin_fk(s) for s in sols])
        dp, dr = pose_error(T_sol, np.broadcast_to(T, T_sol.shape))
        worst_p, worst_r = max(worst_p, dp.max()), max(worst_r, dr.max())
        if not np.any(np.all(ang_diff(sols, q) <= 1e-9, axis=1)):
            missing.append(q)
    assert worst_p <= 1e-9 and worst_r <= 1e-9, f"worst residual {worst_p:.2e} m, {worst_r:.2e} rad"
    assert not missing, f"{len(missing)} of {COUNT} generating configurations not recovered, e.g. {missing[0]}"
    assert counts[8] == COUNT, f"solution counts {counts}"


def test_makers_nero_urdf_difference_is_as_documented():
    """AgileX's NERO URDF rounds pi/2 (1.5707963, and 1.5708 at the flange): ~6e-8 m, ~5e-6 rad."""
    path = MAKER_MODELS / "nero.urdf"
    assert path.exists(), f"vendored test data missing: {path}"
    arm = piperik.Nero(tool="gripper_flange")  # open_nero's flange, a named tool since the firmware's is the default
    _, pin_fk = _pin_model(path, "gripper_flange")
    rng = np.random.default_rng(SEED + 2)
    Q = random_q(arm, rng, 2000)
    dp, dr = pose_error(np.array([pin_fk(q) for q in Q]), arm.fk(Q))
    assert 1e-9 < dp.max() <= 2e-7, f"position difference {dp.max():.2e} m"
    assert 1e-7 < dr.max() <= 1e-5, f"rotation difference {dr.max():.2e} rad"


def test_iiwa_shipped_urdf_is_drakes():
    ours = (ROOT / "piperik" / "models" / "iiwa14.urdf").read_bytes()
    theirs = MAKER_MODELS / "iiwa14.urdf"
    assert theirs.exists(), f"vendored test data missing: {theirs}"
    assert ours == theirs.read_bytes()
    assert (ROOT / "piperik" / "models" / "iiwa14.LICENSE.txt").exists()


# ---------------------------------------------------------------------------------------------- exactness


def test_arm_angle_round_trip_and_all_solutions_exact(arm):
    rng = np.random.default_rng(SEED + 3)
    Q = random_q(arm, rng, 2000)
    for q in Q:
        T = arm.fk(q)
        for psi in (arm.arm_angle(q), rng.uniform(-np.pi, np.pi)):
            sols = arm.ik_all(T, psi)
            assert len(sols) >= 1 and np.all(np.isfinite(sols))
            dp, dr = pose_error(arm.fk(sols), np.broadcast_to(T, (len(sols), 4, 4)))
            assert dp.max() <= 1e-9 and dr.max() <= 1e-9
            # every solution sits at the arm angle it was asked for
            assert np.all(ang_diff(arm.arm_angle(sols), psi) <= 1e-7)
    # batch arm_angle equals single calls
    np.testing.assert_allclose(arm.arm_angle(Q[:20]), [arm.arm_angle(q) for q in Q[:20]], atol=0)


def _wrist_on_base_axis(arm, theta):
    """Canonical angles with the wrist centre straight above the shoulder and the elbow bent:
    t3 = 0 and t2 = sign(t4) * phi, phi the shoulder angle of the shoulder-elbow-wrist triangle."""
    g = arm.geometry
    theta = theta.copy()
    theta[2] = 0.0
    L = np.sqrt(g["d_se_m"] ** 2 + g["d_ew_m"] ** 2 + 2 * g["d_se_m"] * g["d_ew_m"] * np.cos(theta[3]))
    phi = np.arccos((g["d_se_m"] ** 2 + L ** 2 - g["d_ew_m"] ** 2) / (2 * g["d_se_m"] * L))
    theta[1] = np.sign(theta[3]) * phi
    return theta


def _canonical_q(arm, theta):
    g = arm.geometry
    return np.angle(np.exp(1j * (np.asarray(theta) - g["offset_rad"]) * g["sign"]))


@pytest.mark.parametrize("family", ["elbow_stretched", "shoulder", "wrist", "reference_plane"])
def test_singular_families(arm, family):
    """Finite, FK-exact solutions with the flag; the generating q recovered with itself as seed."""
    g = arm.geometry
    rng = np.random.default_rng(SEED + 4)
    flag = {"elbow_stretched": "elbow", "shoulder": "shoulder", "wrist": "wrist", "reference_plane": "reference"}[family]
    for _ in range(200):
        q = random_q(arm, rng, 1)[0]
        theta = g["sign"] * q + g["offset_rad"]
        if family == "elbow_stretched":
            theta[3] = 0.0
        elif family == "shoulder":
            theta[1] = 0.0
        elif family == "wrist":
            theta[5] = 0.0
        else:
            theta = _wrist_on_base_axis(arm, theta)
        q = _canonical_q(arm, theta)
        T = arm.fk(q)
        psi = arm.arm_angle(q)
        sols = arm.solutions(T, psi, seed=q)
        assert sols, f"{family}: no solution"
        Q = np.array([s.q for s in sols])
        assert np.all(np.isfinite(Q))
        dp, dr = pose_error(arm.fk(Q), np.broadcast_to(T, (len(Q), 4, 4)))
        assert dp.max() <= 1e-9 and dr.max() <= 1e-9, f"{family}: residual {dp.max():.1e} m {dr.max():.1e} rad"
        match = [s for s in sols if np.all(ang_diff(s.q, q) <= 1e-6)]
        assert match, f"{family}: generating q not recovered"
        assert flag in match[0].singular, f"{family}: flag {flag!r} missing: {match[0].singular}"


def test_reference_plane_convention_is_consistent(arm):
    """Wrist centre on the base axis: psi is measured from azimuth 0 by ik and arm_angle alike."""
    g = arm.geometry
    rng = np.random.default_rng(SEED + 5)
    for _ in range(100):
        theta = _wrist_on_base_axis(arm, g["sign"] * random_q(arm, rng, 1)[0] + g["offset_rad"])
        q = _canonical_q(arm, theta)
        T = arm.fk(q)
        sols = arm.solutions(T, arm.arm_angle(q), seed=q)
        assert all("reference" in s.singular for s in sols)
        assert any(np.all(ang_diff(s.q, q) <= 1e-6) for s in sols)


def test_unreachable(arm):
    T = arm.fk(np.zeros(7))
    T[:3, 3] = [2.0, 0.0, 0.5]
    assert arm.ik_all(T, 0.0).shape == (0, 7)
    assert arm.feasible_arm_angles(T) == []
    with pytest.raises(piperik.NoSolutionError, match="unreachable"):
        arm.ik(T, np.zeros(7))
    res = arm.ik_batch(T[None], np.zeros(7))
    Q, ok, status, psi = res.q, res.ok, res.status, res.psi
    assert not ok[0] and status[0] == -1 and np.isnan(Q).all() and np.isnan(psi[0])


# ---------------------------------------------------------------------------------------------- intervals


def _brute_in_limits(arm, T, psis):
    """(len(psis), 8) bool: branch b has an in-limit solution at psi."""
    out = np.zeros((len(psis), 8), bool)
    for i, psi in enumerate(psis):
        for s in arm.solutions(T, psi):
            if s.in_limits:
                out[i, s.flags & 7] = True
    return out


def _inside(intervals, x):
    return any(lo <= x <= hi for lo, hi in intervals)


def _near_edge(intervals, x, tol):
    return any(abs(x - lo) < tol or abs(x - hi) < tol for lo, hi in intervals)


def test_feasible_intervals_match_brute_force_scan(arm):
    rng = np.random.default_rng(SEED + 6)
    psis = -np.pi + (np.arange(1440) + 0.5) * (2 * np.pi / 1440)
    mismatches = []
    for q in random_q(arm, rng, 60):
        T = arm.fk(q)
        union, per_branch = arm.feasible_arm_angles(T, per_branch=True)
        assert union == arm.feasible_arm_angles(T)
        brute = _brute_in_limits(arm, T, psis)
        for i, psi in enumerate(psis):
            for b in range(8):
                if not _near_edge(per_branch[b], psi, 1e-4) and brute[i, b] != _inside(per_branch[b], psi):
                    mismatches.append((q, b, psi, brute[i, b]))
            if not _near_edge(union, psi, 1e-4) and brute[i].any() != _inside(union, psi):
                mismatches.append((q, "union", psi, brute[i].any()))
        # the generating configuration's arm angle is feasible
        assert _inside(union, arm.arm_angle(q)) or _near_edge(union, arm.arm_angle(q), 1e-5)
        for lo, hi in union:
            assert -np.pi <= lo < hi <= np.pi
    assert not mismatches, f"{len(mismatches)} disagreements with the scan, first {mismatches[0]}"


# ---------------------------------------------------------------------------------------------- selection


def test_selection_is_nearest_in_limit_solution(arm):
    rng = np.random.default_rng(SEED + 7)
    worse = []
    for k, q in enumerate(random_q(arm, rng, 40)):
        T = arm.fk(q)
        q_current = q + rng.uniform(-0.3, 0.3, 7) if k % 2 else random_q(arm, rng, 1)[0]
        sel = arm.select(T, q_current, options=piperik.SelectOptions.nearest())
        assert np.all(sel.q >= arm.lower - 1e-12) and np.all(sel.q <= arm.upper + 1e-12)
        dp, dr = pose_error(arm.fk(sel.q), T)
        assert dp <= 1e-9 and dr <= 1e-9
        assert abs(arm.arm_angle(sel.q) - sel.psi) <= 1e-7 or abs(abs(arm.arm_angle(sel.q) - sel.psi) - 2 * np.pi) <= 1e-7
        np.testing.assert_array_equal(arm.ik(T, q_current, options=piperik.SelectOptions.nearest()), sel.q)
        brute = brute_force_nearest_distance(arm, T, q_current)
        if sel.distance > brute + 1e-9:
            worse.append((k, sel.distance, brute))
    assert not worse, f"selection farther than the brute-force scan: {worse}"


def test_search_budget_bounds_the_search_and_says_so(arm):
    """SelectOptions(search_budget=N): a jump (q_current random in the limits) returns an exact in-limit
    solution flagged search_cut, never nearer than the brute-force optimum and never "no solution"
    where the full search has one; an uncut search is the full one; a control step is never cut; the
    budget is an int >= 0."""
    rng = np.random.default_rng(SEED + 29)
    budget = piperik.SelectOptions(search_budget=8)
    cut = 0
    for q in random_q(arm, rng, 24):
        T, q_current = arm.fk(q), random_q(arm, rng, 1)[0]
        full = arm.select(T, q_current)
        sel = arm.select(T, q_current, options=budget)
        assert not full.search_cut
        assert np.all(sel.q >= arm.lower - 1e-12) and np.all(sel.q <= arm.upper + 1e-12)
        dp, dr = pose_error(arm.fk(sel.q), T)
        assert dp <= 1e-9 and dr <= 1e-9
        assert sel.distance >= full.distance - 1e-9
        if sel.search_cut:
            cut += 1
        else:
            np.testing.assert_array_equal(sel.q, full.q)
        np.testing.assert_array_equal(arm.ik(T, q_current, options=budget), sel.q)
    assert cut > 0, "no search was cut: the budget path is not exercised"
    # a control step (q_current 5 mrad from a solution) is searched in full: the same choice, not cut
    for q in random_q(arm, rng, 12):
        T, q_current = arm.fk(q), q + rng.uniform(-0.005, 0.005, 7)
        sel = arm.select(T, q_current, options=budget)
        assert not sel.search_cut
        np.testing.assert_array_equal(sel.q, arm.select(T, q_current).q)
    # the brute force bounds a budgeted choice from below too
    q = random_q(arm, rng, 1)[0]
    T, q_current = arm.fk(q), random_q(arm, rng, 1)[0]
    nearest_budget = piperik.SelectOptions.nearest(search_budget=4)
    assert (nearest_budget.search_budget, nearest_budget.limit_penalty, nearest_budget.singularity_penalty,
            nearest_budget.branch_switch_penalty, nearest_budget.soft_limit_margin_rad) == (4, 0, 0, 0, 0)
    assert arm.select(T, q_current, options=nearest_budget).distance >= brute_force_nearest_distance(arm, T, q_current) - 1e-9
    assert piperik.SelectOptions().search_budget == 0
    assert "search_budget=8" in repr(budget)
    for bad, err in ((-1, ValueError), (2**40, ValueError), (1.5, TypeError), ("3", TypeError), (True, TypeError),
                     (None, TypeError)):
        with pytest.raises(err, match=r"^search_budget:"):
            piperik.SelectOptions(search_budget=bad)
        with pytest.raises(err, match=r"^search_budget:"):
            piperik.SelectOptions.nearest(search_budget=bad)


def test_selection_next_to_current_configuration(arm):
    """A control loop: q_current a little off the pose's solution -> the result is that solution."""
    rng = np.random.default_rng(SEED + 8)
    for q in random_q(arm, rng, 300):
        T = arm.fk(q)
        q_current = np.clip(q + rng.uniform(-1e-3, 1e-3, 7), arm.lower, arm.upper)
        q_sel = arm.ik(T, q_current)
        assert np.max(np.abs(q_sel - q)) <= 0.02, (q, q_sel)


def test_selection_policies(arm):
    rng = np.random.default_rng(SEED + 9)
    for q in random_q(arm, rng, 30):
        T = arm.fk(q)
        union, per_branch = arm.feasible_arm_angles(T, per_branch=True)
        widest = arm.select(T)  # no q_current: centre of the widest interval
        assert _inside(union, widest.psi)
        assert widest.distance == 0.0
        margin = arm.select(T, policy="max_margin")
        assert margin.limit_margin_rad >= widest.limit_margin_rad - 1e-9 or margin.limit_margin_rad > 0
        psi = arm.arm_angle(q)
        given = arm.select(T, q, psi=psi)
        assert abs(given.psi - psi) < 1e-12
        np.testing.assert_allclose(given.q, q, atol=1e-9)
        for s in (widest, margin, given):
            dp, dr = pose_error(arm.fk(s.q), T)
            assert dp <= 1e-9 and dr <= 1e-9
            assert np.all(s.q >= arm.lower - 1e-12) and np.all(s.q <= arm.upper + 1e-12)


def test_limit_margin_and_weights(arm):
    rng = np.random.default_rng(SEED + 10)
    q = random_q(arm, rng, 1)[0]
    T = arm.fk(q)
    sel = arm.select(T, q, limit_margin=0.05)
    assert sel.limit_margin_rad >= 0.05 - 1e-12
    arm.ik(T, q, weights=[1, 1, 1, 1, 0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match="weights"):
        arm.ik(T, q, weights=[1, 1, 1, -1, 1, 1, 1])
    with pytest.raises(ValueError, match="limit_margin"):
        arm.ik(T, q, limit_margin=-0.1)
    with pytest.raises(piperik.NoSolutionError):
        arm.ik(T, q, limit_margin=10.0)


def test_ik_batch_equals_single_calls(arm):
    rng = np.random.default_rng(SEED + 11)
    Q = random_q(arm, rng, 50)
    Ts = arm.fk(Q)
    Qc = Q + 0.01
    res = arm.ik_batch(Ts, Qc)
    Qb, ok, status, psi = res.q, res.ok, res.status, res.psi
    assert ok.all() and (status == 0).all()
    for i in range(len(Q)):
        np.testing.assert_array_equal(Qb[i], arm.ik(Ts[i], Qc[i]))
    Qg, okg = arm.ik_batch(Ts, Qc, psi=arm.arm_angle(Q))
    assert okg.all()
    np.testing.assert_allclose(Qg, Q, atol=1e-9)


# ---------------------------------------------------------------------------------------------- bad input


def test_bad_input(arm):
    T = arm.fk(np.zeros(7))
    with pytest.raises(ValueError, match="T:"):
        arm.ik_all(np.eye(3), 0.0)
    bad = T.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        arm.ik_all(bad, 0.0)
    bad = T.copy()
    bad[:3, 0] *= -1
    with pytest.raises(ValueError, match="det"):
        arm.feasible_arm_angles(bad)
    bad = T.copy()
    bad[:3, :3] *= 1.001
    with pytest.raises(ValueError, match="orthonormal"):
        arm.ik(bad, np.zeros(7))
    with pytest.raises(ValueError, match="psi"):
        arm.ik_all(T, np.inf)
    with pytest.raises(ValueError, match="q_current"):
        arm.ik(T, np.zeros(6))
    with pytest.raises(ValueError, match="q"):
        arm.fk(np.zeros(6))
    with pytest.raises(ValueError, match="q"):
        arm.arm_angle([0, 0, 0, np.inf, 0, 0, 0])
    with pytest.raises(ValueError, match="policy"):
        arm.ik(T, policy="fastest")
    with pytest.raises(ValueError, match="policy"):
        arm.ik(T, psi=0.1, policy="widest")
    Ts = np.repeat(T[None], 5, axis=0)
    Ts[3, 3, 3] = 2.0
    with pytest.raises(ValueError, match=r"Ts\[3\]"):
        arm.ik_batch(Ts, np.zeros(7))


def test_custom_limits():
    lo, hi = piperik.Nero.PYAGXARM_DOC_LIMITS
    arm = piperik.Nero(lower=lo, upper=hi)
    np.testing.assert_array_equal(arm.lower, lo)
    assert piperik.Nero().upper[3] == 2.14  # the default is untouched
    with pytest.raises(ValueError, match="lower"):
        piperik.Nero(lower=hi, upper=lo)


@pytest.mark.parametrize("make", [piperik.Piper, piperik.Nero, piperik.Iiwa14], ids=["piper", "nero", "iiwa14"])
def test_batch_result_names_what_the_c_loop_reports(make):
    """ik_batch's BatchResult unpacks as (Q, ok) and names the status (and a 7-DOF arm's psi) per
    pose, the same as single ik calls; rows that fail are NaN with their status."""
    import pickle

    arm = make()
    rng = np.random.default_rng(3)
    Q = rng.uniform(arm.lower, arm.upper, (40, arm.dof))
    Ts = arm.fk(Q)
    Ts[5, 0, 3] = 50.0  # unreachable
    res = arm.ik_batch(Ts, Q)
    q_out, ok = res
    assert isinstance(res, piperik.BatchResult) and len(res) == 2
    assert q_out is res.q and ok is res.ok
    for i in (0, 17, 39):
        np.testing.assert_array_equal(res.q[i], arm.ik(Ts[i], Q[i]))
    with pytest.raises(TypeError):
        arm.ik_batch(Ts, Q, return_status=True)  # removed: BatchResult names every field
    assert res.status[5] == -1 and not res.ok[5] and np.isnan(res.q[5]).all()
    assert np.all(res.ok == (res.status == 0))
    if arm.dof == 7:
        assert res.psi.shape == (40,) and np.isnan(res.psi[5])
        assert np.all(np.abs(res.psi[res.ok]) <= np.pi)
        assert res.psi[17] == arm.select(Ts[17], Q[17]).psi
    else:
        assert res.psi is None
    back = pickle.loads(pickle.dumps(res))
    assert isinstance(back, piperik.BatchResult)
    np.testing.assert_array_equal(back.status, res.status)
    assert "BatchResult(n=40" in repr(res)


def test_no_solution_error_carries_the_core_status():
    """NoSolutionError (a ValueError) names the core's reason in .status: -1 unreachable, -2 none
    within the limits, -4 a step above max_step_rad; ik_path's errors too; None where Python raised
    one without a status."""
    codes = piperik._core.STATUS_CODE
    piper, nero = piperik.Piper(), piperik.Nero()
    far = np.eye(4)
    far[0, 3] = 9.0
    cases = [
        (lambda: piper.ik(far), codes["UNREACHABLE"]),
        (lambda: nero.ik(far, np.zeros(7)), codes["UNREACHABLE"]),
        (lambda: piper.ik(np.eye(4)), codes["NONE_IN_LIMITS"]),
        (lambda: nero.ik(nero.fk(np.zeros(7)), np.zeros(7), psi=3.0), codes["NONE_IN_LIMITS"]),
        (lambda: nero.ik(nero.fk(np.full(7, 0.4)), np.zeros(7),
                         options=piperik.SelectOptions(max_step_rad=0.1)), codes["STEP_TOO_LARGE"]),
        (lambda: nero.ik_path(np.array([nero.fk(np.zeros(7)), far]), np.zeros(7)), codes["UNREACHABLE"]),
    ]
    for call, status in cases:
        with pytest.raises(piperik.NoSolutionError) as info:
            call()
        assert isinstance(info.value, ValueError)
        assert info.value.status == status, (str(info.value), info.value.status, status)
    assert piperik.NoSolutionError("raised by hand").status is None
