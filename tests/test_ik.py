"""Inverse kinematics without Pinocchio: singular families, workspace boundary, selection, batches.

The reference FK is an independent pure-numpy Craig modified-DH chain built from ``arm.geometry``
(``conftest.dh_fk``: T = prod RotX(alpha_{i-1}) TransX(a_{i-1}) RotZ(q_i + offset_i) TransZ(d_i),
alpha = (0, -pi/2, 0, pi/2, -pi/2, pi/2), a = (0, 0, a2, a3, 0, 0), d = (d1, 0, 0, d4, 0, d6)); it
is first shown to equal ``arm.fk`` and then used to check that solutions are exact.

Singular families (DESIGN.md section 4: "finite, FK-exact solutions with a flag, never NaN"):
  wrist     q5 = 0: axes 4 and 6 aligned, only q4 + q6 is determined; q4 comes from the seed.
  elbow     theta3 + phi = pi/2, phi = atan2(a3, d4): arm stretched, the two elbow roots coincide.
  shoulder  wrist centre on the base axis: every q1 works; q1 comes from the seed.
Selection (DESIGN.md section 5) is checked against a brute force over ``ik_all``.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import piperik

NEAREST = piperik.SelectOptions.nearest()  # pure distance / margin: what the brute force computes
from conftest import (
    FK_TOL_POS_M,
    FK_TOL_ROT_RAD,
    TEST_COUNT,
    angle_diff,
    dh_fk,
    max_angle_diff,
    pose_error,
    random_q_full,
    random_q_in_limits,
    random_rotation,
    recovery_tol,
    rows_containing,
)

#: cases per named singular family
N_SINGULAR = max(200, TEST_COUNT // 20)
#: cases of the selection brute-force sweeps
N_SELECT = max(200, TEST_COUNT // 5)

LIMIT_TOL = 1e-10


def assert_fk_exact(arm, Q, T, context=""):
    """Every row of Q reproduces T (reference FK) to the package's 1e-9 m / rad promise."""
    Q = np.asarray(Q).reshape(-1, 6)
    assert np.all(np.isfinite(Q)), f"{context}: non-finite solution {Q}"
    if len(Q) == 0:
        return
    dp, dr = pose_error(dh_fk(arm, Q), np.asarray(T)[None])
    assert dp.max() <= FK_TOL_POS_M and dr.max() <= FK_TOL_ROT_RAD, (
        f"{context}: max position error {dp.max():.3e} m, rotation error {dr.max():.3e} rad; rows {Q.tolist()}"
    )


def assert_recovered(S, q, tol, context=""):
    """q is among the rows of S (angle-wise within tol): exactly once at tol = 1e-9; near a
    singularity (tol = 2e-6) two almost-equal roots may both qualify. Returns the matching indices."""
    idx = rows_containing(S, q, tol)
    assert len(idx) >= 1, f"{context}: q={q.tolist()} not among the rows (tol {tol:g}): {np.asarray(S).tolist()}"
    if tol <= 1e-9:
        assert len(idx) == 1, f"{context}: q={q.tolist()} matches {len(idx)} rows: {np.asarray(S).tolist()}"
    return idx


def wrap(a):
    return (a + math.pi) % (2 * math.pi) - math.pi


def elbow_stretched_q3(arm) -> float:
    """q3 with theta3 + phi = pi/2 (wrist centre at maximum distance from the shoulder)."""
    g = arm.geometry
    phi = math.atan2(g["a3_m"], g["d4_m"])
    return wrap(math.pi / 2 - phi - g["theta_offset_rad"][2])


def shoulder_singular_q2(arm, q3: float, back: bool = False) -> float:
    """q2 that puts the wrist centre on the base axis, given q3 (rho = c2 u - s2 v = 0)."""
    g = arm.geometry
    t3 = q3 + g["theta_offset_rad"][2]
    u = g["a2_m"] + g["a3_m"] * math.cos(t3) + g["d4_m"] * math.sin(t3)
    v = g["a3_m"] * math.sin(t3) - g["d4_m"] * math.cos(t3)
    t2 = math.atan2(u, v) + (math.pi if back else 0.0)
    return wrap(t2 - g["theta_offset_rad"][1])


def in_limits_clipped(arm, Q):
    """(mask of rows within the limits +- 1e-10, rows clipped onto the limits)."""
    Q = np.asarray(Q).reshape(-1, 6)
    inside = np.all((Q >= arm.lower - LIMIT_TOL) & (Q <= arm.upper + LIMIT_TOL), axis=1)
    return inside, np.clip(Q, arm.lower, arm.upper)


def limit_margin(arm, q):
    return float(np.min(np.minimum(q - arm.lower, arm.upper - q)))


def brute_force_select(arm, Q, q_current=None, weights=None, margin=0.0):
    """(index of the row ik should choose or None, {in-limit row index: its score}), DESIGN.md 5.

    Score: sum_i w_i (q_i - q_current_i)^2, or minus the smallest limit margin without q_current;
    rows closer than ``margin`` to a limit are skipped. Shifting a joint by 2 pi never brings a row
    (angles in (-pi, pi]) into the PiPER's limits, so the brute force does not try it.
    """
    assert np.all(arm.upper < math.pi) and np.all(arm.lower > -math.pi)  # so no 2 pi shift can help
    inside, Qc = in_limits_clipped(arm, Q)
    w = np.ones(6) if weights is None else np.asarray(weights, float)
    best, best_score = None, None
    scores = {}
    for i in np.flatnonzero(inside):
        m = limit_margin(arm, Qc[i])
        if m < margin:
            continue
        score = float(np.sum(w * (Qc[i] - q_current) ** 2)) if q_current is not None else -m
        scores[i] = score
        if best is None or score < best_score:
            best, best_score = i, score
    return best, scores


# ---- FK reference ---------------------------------------------------------------------------------

def test_numpy_dh_fk_equals_arm_fk(any_arm, rng):
    """The independent numpy modified-DH chain equals arm.fk to 1e-12 (in limits and full circle)."""
    Q = np.concatenate([random_q_in_limits(any_arm, rng, TEST_COUNT), random_q_full(rng, TEST_COUNT)])
    err = np.abs(dh_fk(any_arm, Q) - any_arm.fk(Q)).max(axis=(1, 2))
    assert err.max() <= 1e-12, f"max |dh_fk - arm.fk| = {err.max():.3e} at q = {Q[np.argmax(err)].tolist()}"


def test_geometry_is_piper_sdk_dh(any_arm):
    """The model constants are piper_sdk's modified DH (notes/piper.md section 2.1), in metres."""
    g = any_arm.geometry
    assert (g["d1_m"], g["a2_m"], g["a3_m"], g["d4_m"], g["d6_m"]) == (0.123, 0.28503, -0.02198, 0.25075, 0.091)
    offsets_deg = (-174.22, -100.78) if any_arm.legacy_zero else (-172.22, -102.78)
    np.testing.assert_allclose(g["theta_offset_rad"], np.radians([0.0, *offsets_deg, 0.0, 0.0, 0.0]), rtol=0, atol=1e-15)


def test_wrist_center_is_on_the_flange_axis(any_arm, rng):
    """wrist_center(q) = flange - d6 * z_flange (axes 4-6 meet there)."""
    for q in random_q_full(rng, 200):
        T = dh_fk(any_arm, q)
        expected = T[:3, 3] - any_arm.geometry["d6_m"] * T[:3, 2]
        assert np.abs(any_arm.wrist_center(q) - expected).max() <= 1e-12


# ---- generic poses ----------------------------------------------------------------------------------

def test_ik_all_generic_random(any_arm, rng):
    """Random in-limit q: 8 exact solutions, q among them, each row distinct, each angle in (-pi, pi].

    (A configuration within 1e-5 of a singularity is rare here; it only has to be exact and found
    to conftest.recovery_tol.)
    """
    for q in random_q_in_limits(any_arm, rng, max(200, TEST_COUNT // 5)):
        T = any_arm.fk(q)
        S = any_arm.ik_all(T)
        assert_fk_exact(any_arm, S, T, f"q={q.tolist()}")
        assert np.all(S > -math.pi) and np.all(S <= math.pi), S
        tol = recovery_tol(any_arm, q)
        assert_recovered(S, q, tol, "random")
        if tol > 1e-9:
            continue
        assert S.shape == (8, 6), f"q={q.tolist()}: {S.shape}"
        pair = max_angle_diff(S[:, None, :], S[None, :, :])
        np.fill_diagonal(pair, np.inf)
        assert pair.min() > 1e-6, f"duplicate rows for q={q.tolist()}"


def test_ik_all_random_reachable_poses(arm, rng):
    """Random positions and orientations (not generated from q): whatever is returned is exact."""
    n_solved = 0
    n = max(200, TEST_COUNT // 5)
    for _ in range(n):
        T = np.eye(4)
        T[:3, :3] = random_rotation(rng)
        T[:3, 3] = rng.uniform([-0.7, -0.7, -0.5], [0.7, 0.7, 0.8])
        S = arm.ik_all(T)
        assert S.shape[1:] == (6,) and len(S) <= 8
        assert_fk_exact(arm, S, T, f"T={T.tolist()}")
        n_solved += len(S) > 0
    assert n_solved > n // 20, f"only {n_solved} of {n} random poses reachable: sampling box wrong?"


def test_solutions_metadata(arm, rng):
    """solutions() agrees with ik_all(), has unique branches and small, honest residuals."""
    for q in random_q_in_limits(arm, rng, 300):
        T = arm.fk(q)
        sols = arm.solutions(T)
        S = arm.ik_all(T)
        assert len(sols) == len(S)
        assert np.array_equal(np.array([s.q for s in sols]), S)
        assert len({s.branch for s in sols}) == len(sols)
        for s in sols:
            assert s.singular == ()
            assert 0.0 <= s.pos_err_m <= FK_TOL_POS_M and 0.0 <= s.rot_err_rad <= FK_TOL_ROT_RAD
            inside = bool(np.all((s.q >= arm.lower - LIMIT_TOL) & (s.q <= arm.upper + LIMIT_TOL)))
            assert s.in_limits == inside, f"{s}"


# ---- singular families ------------------------------------------------------------------------------

def test_wrist_singular_with_seed(any_arm, rng):
    """q5 = 0: ik_all(T, seed=q) contains q; its solution is flagged 'wrist'; all rows exact."""
    for q in random_q_in_limits(any_arm, rng, N_SINGULAR):
        q[4] = 0.0
        T = any_arm.fk(q)
        S = any_arm.ik_all(T, seed=q)
        assert_fk_exact(any_arm, S, T, f"wrist q={q.tolist()}")
        idx = assert_recovered(S, q, recovery_tol(any_arm, q, ignore=("wrist",)), "wrist")
        sols = any_arm.solutions(T, seed=q)
        assert "wrist" in sols[idx[0]].singular, f"q={q.tolist()}: flags {sols[idx[0]]}"
        # the aligned wrist has one solution, not a flip pair: at most 1 + 3 * 2 rows
        assert len(S) <= 7


def test_wrist_singular_without_seed(any_arm, rng):
    """q5 = 0 without a seed: exact rows; the singular one has q1..q3, q5 of q, q4 = 0, q4 + q6 = q's."""
    for q in random_q_in_limits(any_arm, rng, N_SINGULAR):
        q[4] = 0.0
        T = any_arm.fk(q)
        sols = any_arm.solutions(T)
        S = np.array([s.q for s in sols])
        assert_fk_exact(any_arm, S, T, f"wrist q={q.tolist()}")
        tol = recovery_tol(any_arm, q, ignore=("wrist",))
        same_arm = [s for s in sols if max_angle_diff(s.q[[0, 1, 2, 4]], q[[0, 1, 2, 4]]) <= tol]
        assert same_arm, f"wrist q={q.tolist()}: no row with its q1..q3, q5: {S.tolist()}"
        assert all("wrist" in s.singular for s in same_arm), f"q5 = 0 not flagged: q={q.tolist()}, {same_arm}"
        assert len(same_arm) == 1, f"aligned wrist should give one row, not a flip pair: q={q.tolist()}, {same_arm}"
        s = same_arm[0]
        assert abs(angle_diff(s.q[3] + s.q[5], q[3] + q[5])) <= tol, f"q4+q6: {s.q.tolist()} vs {q.tolist()}"
        assert abs(s.q[3]) <= 1e-12, f"q4 should default to 0 without a seed: {s.q.tolist()}"


def test_wrist_singular_ik_uses_q_current(arm, rng):
    """ik(T, q_current) at q5 = 0 keeps q_current's q4 (q_current doubles as the seed)."""
    for q in random_q_in_limits(arm, rng, N_SINGULAR):
        q[4] = 0.0
        T = arm.fk(q)
        got = arm.ik(T, q)
        tol = recovery_tol(arm, q, ignore=("wrist",))
        assert max_angle_diff(got, q) <= tol, f"ik(T, q) = {got.tolist()} for q = {q.tolist()}"
        assert "wrist" in arm.select(T, q).singular


@pytest.mark.parametrize("near", ["elbow", "shoulder"])
@pytest.mark.parametrize("delta", [1e-5, 1e-4, 1e-3])
def test_wrist_singular_near_other_singularity_honours_seed(any_arm, rng, near, delta):
    """q5 = 0 exactly while the elbow is delta from stretched (or q2 is delta from putting the wrist
    centre on the base axis): the seed's q4 must still be used, so ik_all(T, seed=q) contains q.

    Near those singularities q1..q3 carry rounding noise of ~1e-16 / delta, which makes
    |sin theta5| a small nonzero number (here ~1e-12 .. 1e-11) instead of 0; if that noise is taken
    for a real wrist direction, q4 becomes an arbitrary angle (q6 compensates, so the rows stay
    FK-exact) and the in-limit solution q can be lost: ik(T, q) then jumps to another branch.
    """
    q3_stretched = elbow_stretched_q3(any_arm)
    misses = []
    for k, q in enumerate(random_q_in_limits(any_arm, rng, 100)):
        q[4] = 0.0
        if near == "elbow":
            q[2] = q3_stretched - delta
        else:
            q[1] = shoulder_singular_q2(any_arm, q[2], back=bool(k % 2)) + (delta if k % 4 < 2 else -delta)
        T = any_arm.fk(q)
        S = any_arm.ik_all(T, seed=q)
        assert_fk_exact(any_arm, S, T, f"q={q.tolist()}")
        d = float(max_angle_diff(S, q[None]).min()) if len(S) else math.inf
        if d > 1e-6:
            misses.append((q.tolist(), d))
    assert not misses, (f"{len(misses)} of 100 wrist-singular poses {delta} from the {near} singularity "
                        f"lose the seeded solution; e.g. q = {misses[0][0]} (nearest row {misses[0][1]:.3f} rad away)")


def test_elbow_stretched(any_arm, rng):
    """theta3 + phi = pi/2: rows flagged 'elbow', exact, q recovered, no duplicate elbow roots."""
    q3 = elbow_stretched_q3(any_arm)
    assert any_arm.lower[2] <= q3 <= any_arm.upper[2]
    for q in random_q_in_limits(any_arm, rng, N_SINGULAR):
        q[2] = q3
        T = any_arm.fk(q)
        sols = any_arm.solutions(T, seed=q)
        S = np.array([s.q for s in sols]).reshape(-1, 6)
        assert_fk_exact(any_arm, S, T, f"elbow q={q.tolist()}")
        assert 1 <= len(S) <= 4, f"stretched elbow should have one root per shoulder: {S.tolist()}"
        assert all("elbow" in s.singular for s in sols), [s.singular for s in sols]
        tol = recovery_tol(any_arm, q, ignore=("elbow",))
        assert_recovered(S, q, tol, "elbow")
        assert max_angle_diff(any_arm.ik(T, q), q) <= tol


def test_shoulder_singular(any_arm, rng):
    """Wrist centre on the base axis: flagged 'shoulder', q1 from the seed, exact, q recovered."""
    for k, q in enumerate(random_q_in_limits(any_arm, rng, N_SINGULAR)):
        q[1] = shoulder_singular_q2(any_arm, q[2], back=bool(k % 2))
        assert math.hypot(*any_arm.wrist_center(q)[:2]) < 1e-15
        T = any_arm.fk(q)
        sols = any_arm.solutions(T, seed=q)
        S = np.array([s.q for s in sols]).reshape(-1, 6)
        assert_fk_exact(any_arm, S, T, f"shoulder q={q.tolist()}")
        assert all("shoulder" in s.singular for s in sols), [s.singular for s in sols]
        # q1 is the seed's, or the seed's + pi on the reach-back branch
        d1 = np.abs(angle_diff(S[:, 0], q[0]))
        assert np.all(np.minimum(d1, math.pi - d1) <= 1e-12), f"q1 not from the seed: {S[:, 0]} vs {q[0]}"
        tol = recovery_tol(any_arm, q, ignore=("shoulder",))
        assert_recovered(S, q, tol, "shoulder")
        # without a seed q1 is 0 (or pi) and everything is still exact
        S0 = any_arm.ik_all(T)
        assert_fk_exact(any_arm, S0, T, f"shoulder (no seed) q={q.tolist()}")
        d0 = np.abs(angle_diff(S0[:, 0], 0.0))
        assert np.all(np.minimum(d0, math.pi - d0) <= 1e-12)


def test_combined_singularities(any_arm, rng):
    """Stretched elbow + wrist centre on the base axis + q5 = 0 at once: still finite, exact, flagged."""
    q3 = elbow_stretched_q3(any_arm)
    for k, q in enumerate(random_q_in_limits(any_arm, rng, N_SINGULAR)):
        q[2] = q3
        q[1] = shoulder_singular_q2(any_arm, q3, back=bool(k % 2))
        if k % 3 == 0:
            q[4] = 0.0
        T = any_arm.fk(q)
        sols = any_arm.solutions(T, seed=q)
        S = np.array([s.q for s in sols]).reshape(-1, 6)
        assert_fk_exact(any_arm, S, T, f"combined q={q.tolist()}")
        assert_recovered(S, q, 1e-9, "combined")
        for s in sols:
            assert "shoulder" in s.singular and "elbow" in s.singular, s
        if q[4] == 0.0:
            assert "wrist" in sols[rows_containing(S, q, 1e-9)[0]].singular


@pytest.mark.parametrize("which", ["wrist", "elbow", "shoulder"])
@pytest.mark.parametrize("distance", [1e-15, 1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-3])
def test_near_singular_is_finite_and_exact(any_arm, rng, which, distance):
    """Poses at a small angular distance from each singularity: every returned row is finite and exact.

    Near a singularity the generating q need not be recovered to 1e-9 (its free joint is ill-
    conditioned), but whatever is returned must still reproduce the pose, and something must be.
    """
    q3_stretched = elbow_stretched_q3(any_arm)
    for k, q in enumerate(random_q_in_limits(any_arm, rng, 60)):
        sign = 1.0 if k % 2 else -1.0
        if which == "wrist":
            q[4] = sign * distance
        elif which == "elbow":
            q[2] = q3_stretched - abs(distance)  # stay on the reachable side, inside the limits
        else:
            q[1] = shoulder_singular_q2(any_arm, q[2], back=bool(k % 2)) + sign * distance
        T = any_arm.fk(q)
        for seed in (None, q):
            S = any_arm.ik_all(T, seed=seed)
            assert len(S) >= 1, f"{which} at {distance}: no solution for q={q.tolist()}"
            assert_fk_exact(any_arm, S, T, f"{which} at {distance}, q={q.tolist()}, seed={seed is not None}")


# ---- workspace boundary ----------------------------------------------------------------------------

def _push_wrist_centre(arm, T, rel):
    """T with the wrist centre moved away from the shoulder (0, 0, d1) by the factor 1 + rel."""
    g = arm.geometry
    z = T[:3, 2]
    wc = T[:3, 3] - g["d6_m"] * z
    shoulder = np.array([0.0, 0.0, g["d1_m"]])
    out = T.copy()
    out[:3, 3] = shoulder + (wc - shoulder) * (1.0 + rel) + g["d6_m"] * z
    return out


def test_just_beyond_stretched_boundary_is_clamped(any_arm, rng):
    """1e-13 (relative) beyond full stretch still solves: clamped onto the boundary, flagged, exact."""
    q3 = elbow_stretched_q3(any_arm)
    for q in random_q_in_limits(any_arm, rng, N_SINGULAR):
        q[2] = q3
        T = _push_wrist_centre(any_arm, any_arm.fk(q), 1e-13)
        sols = any_arm.solutions(T, seed=q)
        assert len(sols) >= 1, f"q={q.tolist()}: pose 1e-13 beyond the stretched boundary not solved"
        S = np.array([s.q for s in sols])
        assert_fk_exact(any_arm, S, T, f"1e-13 beyond, q={q.tolist()}")
        assert all("elbow" in s.singular for s in sols)
        assert_recovered(S, q, recovery_tol(any_arm, q, ignore=("elbow",)), "1e-13 beyond")


def test_beyond_stretched_boundary_is_unreachable(any_arm, rng):
    """1e-6 (relative) beyond full stretch: no solution, ik raises NoSolutionError('unreachable ...')."""
    q3 = elbow_stretched_q3(any_arm)
    Ts = []
    for q in random_q_in_limits(any_arm, rng, N_SINGULAR):
        q[2] = q3
        T = _push_wrist_centre(any_arm, any_arm.fk(q), 1e-6)
        Ts.append(T)
        S = any_arm.ik_all(T)
        assert S.shape == (0, 6), f"q={q.tolist()}: {S.shape}"
        assert any_arm.solutions(T) == []
        with pytest.raises(piperik.NoSolutionError, match="unreachable"):
            any_arm.ik(T, q)
        with pytest.raises(piperik.NoSolutionError, match="unreachable"):
            any_arm.ik(T)
    res = any_arm.ik_batch(np.array(Ts))
    Q, ok, status = res.q, res.ok, res.status
    assert not ok.any() and np.isnan(Q).all() and np.all(status == -1)


def test_slightly_inside_stretched_boundary_has_both_elbows(arm, rng):
    """1e-6 (relative) inside full stretch: regular poses with two distinct elbow roots, exact."""
    q3 = elbow_stretched_q3(arm)
    for q in random_q_in_limits(arm, rng, 100):
        q[2] = q3
        T = _push_wrist_centre(arm, arm.fk(q), -1e-6)
        sols = arm.solutions(T)
        assert len(sols) == 8 or any("wrist" in s.singular for s in sols)
        assert_fk_exact(arm, np.array([s.q for s in sols]), T)


def test_far_poses_unreachable(arm, rng):
    """Poses 2 m from the base are out of reach (max reach ~0.63 m)."""
    for _ in range(200):
        direction = rng.normal(size=3)
        T = np.eye(4)
        T[:3, :3] = random_rotation(rng)
        T[:3, 3] = 2.0 * direction / np.linalg.norm(direction)
        assert arm.ik_all(T).shape == (0, 6)
        with pytest.raises(piperik.NoSolutionError, match="unreachable"):
            arm.ik(T)


# ---- ik: selection ----------------------------------------------------------------------------------

def test_ik_returns_in_limit_exact_solution(any_arm, rng):
    """ik(T) and ik(T, q_current) return joints within the limits (+1e-10) that reproduce T."""
    for q in random_q_in_limits(any_arm, rng, N_SELECT):
        T = any_arm.fk(q)
        for qc in (None, rng.uniform(-math.pi, math.pi, 6)):
            got = any_arm.ik(T, qc)
            assert got.shape == (6,)
            assert np.all(got >= any_arm.lower - 1e-10) and np.all(got <= any_arm.upper + 1e-10), got
            assert_fk_exact(any_arm, got, T, f"ik q={q.tolist()}")


def test_ik_near_current_returns_generating_q(any_arm, rng):
    """q_current = q + small noise: ik returns q (whenever q is the nearest exact in-limit solution).

    The exception is a pose where another exact solution is about as near as q to q_current; that
    happens only within ~1e-3 rad of an elbow/shoulder singularity and must stay rare.
    """
    noise = 1e-3
    ambiguous = 0
    Q = random_q_in_limits(any_arm, rng, N_SELECT)
    for q in Q:
        qc = q + rng.uniform(-noise, noise, 6)
        T = any_arm.fk(q)
        S = any_arm.ik_all(T, seed=qc)
        inside, Sc = in_limits_clipped(any_arm, S)
        d = np.where(inside, np.linalg.norm(Sc - qc, axis=1), np.inf)
        tol = recovery_tol(any_arm, q)
        own = assert_recovered(S, q, tol, "near current")
        if tol > 1e-9:
            ambiguous += 1
            continue
        others = np.delete(d, own)
        if others.size and others.min() <= d[own[0]] + 1e-9:
            ambiguous += 1
            continue
        got = any_arm.ik(T, qc)
        assert max_angle_diff(got, q) <= 1e-9, f"ik(T, q + noise) = {got.tolist()} for q = {q.tolist()}"
    assert ambiguous <= 0.01 * len(Q), f"{ambiguous} of {len(Q)} poses ambiguous"


def test_ik_matches_brute_force_nearest(any_arm, rng):
    """With every penalty off, ik(T, q_current) is the in-limit row of ik_all nearest to q_current."""
    for q in random_q_in_limits(any_arm, rng, N_SELECT):
        T = any_arm.fk(q)
        qc = random_q_in_limits(any_arm, rng, 1)[0]
        S = any_arm.ik_all(T, seed=qc)
        best, scores = brute_force_select(any_arm, S, q_current=qc)
        assert best is not None
        sel = any_arm.select(T, qc, options=NEAREST)
        got = any_arm.ik(T, qc, options=NEAREST)
        assert np.array_equal(got, sel.q)
        if sel.index != best:  # only a numerical tie may pick another row
            assert abs(scores[sel.index] - scores[best]) <= 1e-12, (sel, scores, best)
        assert np.abs(got - np.clip(S[sel.index], any_arm.lower, any_arm.upper)).max() <= 1e-15
        assert abs(sel.distance - math.sqrt(scores[sel.index])) <= 1e-12


def test_ik_without_current_maximises_limit_margin(any_arm, rng):
    """ik(T) without q_current picks the in-limit row whose smallest distance to a limit is largest."""
    for q in random_q_in_limits(any_arm, rng, N_SELECT):
        T = any_arm.fk(q)
        S = any_arm.ik_all(T)
        best, scores = brute_force_select(any_arm, S)
        sel = any_arm.select(T, options=NEAREST)
        if sel.index != best:
            assert abs(scores[sel.index] - scores[best]) <= 1e-12, (sel, scores, best)
        assert np.array_equal(any_arm.ik(T, options=NEAREST), sel.q)
        assert abs(sel.limit_margin_rad - (-scores[sel.index])) <= 1e-15
        assert sel.distance == 0.0


def _pose_with_all_solutions_outside_limits(arm, rng):
    """A reachable pose none of whose exact solutions is within the joint limits."""
    for _ in range(10000):
        q = random_q_full(rng, 1)[0]
        T = arm.fk(q)
        sols = arm.solutions(T)
        if sols and not any(s.in_limits for s in sols):
            return T, sols
    raise AssertionError("no pose with every solution outside the limits found in 10000 tries")


def test_all_solutions_outside_limits(any_arm, rng):
    """Reachable but every solution violates a limit: NoSolutionError (a ValueError) saying 'limits'."""
    for _ in range(20):
        T, sols = _pose_with_all_solutions_outside_limits(any_arm, rng)
        S = np.array([s.q for s in sols])
        inside, _ = in_limits_clipped(any_arm, S)
        assert not inside.any()
        assert issubclass(piperik.NoSolutionError, ValueError)
        with pytest.raises(piperik.NoSolutionError, match="limits") as info:
            any_arm.ik(T)
        assert isinstance(info.value, ValueError)
        with pytest.raises(ValueError, match="limits"):
            any_arm.ik(T, np.zeros(6))
        res = any_arm.ik_batch(T[None])
        Q, ok, status = res.q, res.ok, res.status
        assert not ok[0] and np.isnan(Q).all() and status[0] == -2


def test_rest_pose_is_solvable(any_arm):
    """q = 0 (the folded rest pose, on the limits of joints 2 and 3) is solved by ik and gives ~0."""
    T = any_arm.fk(np.zeros(6))
    for qc in (None, np.zeros(6)):
        got = any_arm.ik(T, qc)
        assert np.abs(got).max() <= 1e-9, got
        assert np.all(got >= any_arm.lower) and np.all(got <= any_arm.upper)
    Q, ok = any_arm.ik_batch(T[None])
    assert ok[0] and np.abs(Q[0]).max() <= 1e-9
    sel = any_arm.select(T, np.zeros(6))
    assert sel.limit_margin_rad == 0.0


# ---- ik_batch -----------------------------------------------------------------------------------------

def _mixed_poses(arm, rng, n):
    """Reachable in-limit poses, unreachable ones (2 m away) and out-of-limit ones, interleaved."""
    Ts, kinds = [], []
    for k in range(n):
        kind = k % 5
        if kind == 3:
            T = np.eye(4)
            T[:3, 3] = [2.0, 0.0, 0.5]
            Ts.append(T)
            kinds.append(-1)
        elif kind == 4:
            T, _ = _pose_with_all_solutions_outside_limits(arm, rng)
            Ts.append(T)
            kinds.append(-2)
        else:
            Ts.append(arm.fk(random_q_in_limits(arm, rng, 1)[0]))
            kinds.append(0)
    return np.array(Ts), np.array(kinds)


def test_ik_batch_equals_single_ik(any_arm, rng):
    """ik_batch equals ik pose by pose, with NaN rows, ok False and status -1 / -2 where ik raises."""
    Ts, kinds = _mixed_poses(any_arm, rng, 500)
    qc = random_q_in_limits(any_arm, rng, 1)[0]
    qc_rows = random_q_in_limits(any_arm, rng, len(Ts))
    for current in (None, qc, qc_rows):
        res = any_arm.ik_batch(Ts, current)
        Q, ok, status = res.q, res.ok, res.status
        assert Q.shape == (len(Ts), 6) and ok.shape == (len(Ts),) and status.shape == (len(Ts),)
        assert ok.dtype == bool
        assert np.array_equal(status, kinds), f"status {status[status != kinds]} vs {kinds[status != kinds]}"
        assert np.array_equal(ok, kinds == 0)
        for i, T in enumerate(Ts):
            c = current[i] if (current is not None and current.ndim == 2) else current
            if kinds[i] == 0:
                assert np.array_equal(Q[i], any_arm.ik(T, c)), f"row {i}"
            else:
                assert np.isnan(Q[i]).all()
                with pytest.raises(piperik.NoSolutionError, match="unreachable" if kinds[i] == -1 else "limits"):
                    any_arm.ik(T, c)
        Q2, ok2 = any_arm.ik_batch(Ts, current)
        assert np.array_equal(Q2, Q, equal_nan=True) and np.array_equal(ok2, ok)


def test_ik_batch_per_row_current_tracks_each_row(arm, rng):
    """q_current of shape (N, 6): each pose is solved near its own row (here: its generating q)."""
    Q0 = random_q_in_limits(arm, rng, 500)
    Q, ok = arm.ik_batch(arm.fk(Q0), Q0)
    assert ok.all()
    tol = np.array([recovery_tol(arm, q) for q in Q0])
    assert np.all(max_angle_diff(Q, Q0) <= tol)


def test_ik_batch_empty(arm):
    res = arm.ik_batch(np.zeros((0, 4, 4)))
    Q, ok, status = res.q, res.ok, res.status
    assert Q.shape == (0, 6) and ok.shape == (0,) and status.shape == (0,)


def test_ik_batch_options_match_single(arm, rng):
    """weights and limit_margin mean the same in ik_batch as in ik."""
    Ts, _ = _mixed_poses(arm, rng, 100)
    w = np.array([3.0, 2.0, 1.5, 1.0, 0.5, 0.25])
    qc = random_q_in_limits(arm, rng, 1)[0]
    Q, ok = arm.ik_batch(Ts, qc, weights=w, limit_margin=0.05)
    for i, T in enumerate(Ts):
        try:
            expected = arm.ik(T, qc, weights=w, limit_margin=0.05)
        except piperik.NoSolutionError:
            assert not ok[i] and np.isnan(Q[i]).all()
        else:
            assert ok[i] and np.array_equal(Q[i], expected)


# ---- select, weights, margins ------------------------------------------------------------------------

def test_select_reports_branch_and_q(arm, rng):
    """select() returns the same q as ik(), and the branch / flags of the ik_all row it chose."""
    for q in random_q_in_limits(arm, rng, 300):
        T = arm.fk(q)
        qc = q + rng.uniform(-0.01, 0.01, 6)
        sel = arm.select(T, qc)
        assert isinstance(sel, piperik.Selection)
        assert np.array_equal(sel.q, arm.ik(T, qc))
        sols = arm.solutions(T, seed=qc)
        chosen = sols[sel.index]
        assert sel.branch == chosen.branch
        assert sel.singular == chosen.singular
        assert chosen.in_limits
        assert max_angle_diff(sel.q, chosen.q) <= 1e-10
        parts = dict(p.split("=") for p in sel.branch.split())
        assert set(parts) == {"shoulder", "elbow", "wrist"}
        assert parts["shoulder"] in ("front", "back") and parts["elbow"] in ("A", "B")
        assert parts["wrist"] in ("flip", "noflip")
        assert abs(sel.limit_margin_rad - limit_margin(arm, sel.q)) <= 1e-15


def test_weights_change_the_choice_as_brute_force_says(arm, rng):
    """With per-joint weights ik minimises sum_i w_i (q_i - q_current_i)^2 over the in-limit rows."""
    changed = 0
    for q in random_q_in_limits(arm, rng, N_SELECT):
        T = arm.fk(q)
        qc = random_q_in_limits(arm, rng, 1)[0]
        w = rng.uniform(0.05, 5.0, 6)
        S = arm.ik_all(T, seed=qc)
        best, scores = brute_force_select(arm, S, q_current=qc, weights=w)
        sel = arm.select(T, qc, weights=w, options=NEAREST)
        if sel.index != best:
            assert abs(scores[sel.index] - scores[best]) <= 1e-12, (sel, scores, best)
        assert abs(sel.distance - math.sqrt(scores[sel.index])) <= 1e-12
        changed += sel.index != arm.select(T, qc, options=NEAREST).index
    assert changed > 0, "weights never changed the choice: are they used?"


def test_limit_margin_rejects_solutions_near_limits(arm, rng):
    """limit_margin m: the choice is the brute-force one among rows at least m from every limit."""
    rejected = 0
    for q in random_q_in_limits(arm, rng, N_SELECT):
        T = arm.fk(q)
        qc = q + rng.uniform(-0.01, 0.01, 6)
        margin = float(rng.uniform(0.0, 0.3))
        S = arm.ik_all(T, seed=qc)
        best, scores = brute_force_select(arm, S, q_current=qc, margin=margin)
        if best is None:
            rejected += 1
            with pytest.raises(piperik.NoSolutionError, match="limits"):
                arm.ik(T, qc, limit_margin=margin)
            continue
        sel = arm.select(T, qc, limit_margin=margin, options=NEAREST)
        assert sel.limit_margin_rad >= margin
        if sel.index != best:
            assert abs(scores[sel.index] - scores[best]) <= 1e-12
    assert rejected > 0, "no pose was rejected by its margin: is limit_margin used?"


def test_impossible_margin_message(arm):
    """A margin no joint range allows (joint 5 spans +-1.22 rad) raises, naming the margin."""
    T = arm.fk(np.array([0.1, 1.0, -1.0, 0.1, 0.2, 0.1]))
    with pytest.raises(piperik.NoSolutionError, match="margin"):
        arm.ik(T, limit_margin=1.3)


def test_limit_margin_keyword_overrides_options(arm):
    """limit_margin=0.0 given explicitly wins over options.limit_margin_rad; omitted, the options hold."""
    T = arm.fk(np.array([0.1, 1.0, -1.0, 0.1, 0.2, 0.1]))
    strict = piperik.SelectOptions(limit_margin_rad=1.3)  # no joint-5 range allows it
    with pytest.raises(piperik.NoSolutionError, match="margin"):
        arm.ik(T, options=strict)
    q = arm.ik(T, options=strict, limit_margin=0.0)
    assert np.abs(arm.fk(q) - T).max() < 1e-9
    weighted = strict.replace(weights=[1, 1, 1, 0.5, 0.5, 0.5])
    assert weighted.limit_margin_rad == 1.3 and weighted.weights == [1, 1, 1, 0.5, 0.5, 0.5]
    with pytest.raises(ValueError, match="limit_margin"):
        strict.replace(limit_margin_rad=-1.0)


def _option_call(arm, method):
    T = arm.fk(np.array([0.1, 1.0, -1.0, 0.1, 0.2, 0.1]))
    call = getattr(arm, method)
    pose = T[None] if method == "ik_batch" else T
    return lambda **kw: call(pose, np.zeros(6), **kw)


@pytest.mark.parametrize("method", ["ik", "select", "ik_batch"])
def test_negative_weights_rejected(arm, method):
    """Negative weights are a ValueError naming 'weights', in every entry point (ik, select, ik_batch)."""
    call = _option_call(arm, method)
    for w in ([1, 1, 1, -1, 1, 1], -np.ones(6)):
        with pytest.raises(ValueError, match="weights"):
            call(weights=w)


@pytest.mark.parametrize("method", ["ik", "select", "ik_batch"])
def test_malformed_weights_rejected(arm, method):
    """weights of the wrong length or with NaN are a ValueError naming 'weights'."""
    call = _option_call(arm, method)
    for w in ([1, 1, 1], np.ones((2, 6)), [1, 1, 1, np.nan, 1, 1]):
        with pytest.raises(ValueError, match="weights"):
            call(weights=w)


@pytest.mark.parametrize("method", ["ik", "select", "ik_batch"])
def test_bad_limit_margin_rejected(arm, method):
    """A negative or non-finite limit_margin is a ValueError naming 'limit_margin'."""
    call = _option_call(arm, method)
    for m in (-1e-3, -np.inf, np.nan, np.inf):
        with pytest.raises(ValueError, match="limit_margin"):
            call(limit_margin=m)


def test_status_names_cover_every_code():
    """STATUS_CODE (name -> code) and STATUS (code -> message) describe the same C status codes."""
    from piperik import _core

    assert set(_core.STATUS_CODE.values()) == set(_core.STATUS)
    assert _core.STATUS_CODE["OK"] == 0 and _core.STATUS_CODE["BRANCH_SWITCH"] == -3
    assert _core.STATUS_CODE["STEP_TOO_LARGE"] == -4
    assert all(isinstance(msg, str) and msg for msg in _core.STATUS.values())
