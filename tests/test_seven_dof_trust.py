"""7-DOF selection you can trust: holding still at every singular family, a solution whenever the
feasible arm angles are not empty, the nearest choice checked against a brute-force psi scan, and
paths through singular crossings (issue 9).

The brute-force reference scans psi on a 0.25 degree grid with ``ik_all`` (all branches), applies the
documented 2 pi shift and limit rules, and refines the best grid points by golden section; the
selection must never be farther from ``q_current`` than that reference by more than 1e-9 rad.
"""
import numpy as np
import pytest

import piperik
from piperik.trajectory import plan_cartesian
from conftest import brute_force_nearest_distance

ARMS = [piperik.Nero, piperik.Iiwa14]
#: Singular families: joints (0-based) set to exactly 0 (q2 shoulder, q4 elbow, q6 wrist, combinations).
FAMILIES = {"none": [], "q2": [1], "q4": [3], "q6": [5], "q2q4": [1, 3], "q4q6": [3, 5], "q2q6": [1, 5],
            "q2q4q6": [1, 3, 5]}


def _family_q(arm, rng, joints):
    q = rng.uniform(0.9 * arm.lower, 0.9 * arm.upper)
    q[joints] = 0.0
    return q


@pytest.mark.parametrize("cls", ARMS)
@pytest.mark.parametrize("family", list(FAMILIES))
def test_holding_still_returns_q_current(cls, family):
    """ik(fk(q), q) == q with the default options, at every singular family (the penalties only
    charge for getting closer to a limit or a singularity than q_current is)."""
    arm = cls()
    rng = np.random.default_rng(hash(family) % 2**32)
    worst = 0.0
    for _ in range(60):
        q = _family_q(arm, rng, FAMILIES[family])
        got = arm.ik(arm.fk(q), q)
        worst = max(worst, float(np.abs(got - q).max()))
    assert worst < 1e-7, f"{cls.__name__} {family}: ik(fk(q), q) moved by {worst:.3g} rad"


@pytest.mark.parametrize("cls", ARMS)
def test_path_over_identical_poses_holds(cls):
    arm = cls()
    rng = np.random.default_rng(7)
    for family in ([1], [5], [3], [1, 3, 5]):
        q = _family_q(arm, rng, family)
        T = arm.fk(q)
        Q = arm.ik_path(np.stack([T, T]), q).q
        assert np.abs(Q - q).max() < 1e-7


def test_iiwa_home_pose_without_q_current():
    arm = piperik.Iiwa14()
    T = arm.fk(np.zeros(7))
    assert arm.feasible_arm_angles(T)
    for policy in (None, "widest", "max_margin"):
        q = arm.ik(T, policy=policy) if policy else arm.ik(T)
        assert np.all(q >= arm.lower) and np.all(q <= arm.upper)
        assert np.allclose(arm.fk(q), T, atol=1e-9)
    Q, ok = arm.ik_batch(np.stack([T, T]))
    assert ok.all()
    assert arm.select(T).q.shape == (7,)


def test_given_arm_angle_of_q_returns_q():
    arm = piperik.Iiwa14()
    q = np.array([0.3, 0, -0.2, 1.0, 0.4, 0.3, 0.2])
    got = arm.ik(arm.fk(q), q, psi=arm.arm_angle(q))
    assert np.abs(got - q).max() < 1e-9


@pytest.mark.parametrize("cls", ARMS)
@pytest.mark.parametrize("family", ["none", "q2", "q4", "q6", "q2q4q6"])
def test_a_solution_whenever_feasible_arm_angles_exist(cls, family):
    """Every policy, with and without q_current, finds a solution when feasible_arm_angles is not
    empty (the crashing and failing families of issue 9 included)."""
    arm = cls()
    rng = np.random.default_rng(11 + len(family))
    for i in range(40):
        q = _family_q(arm, rng, FAMILIES[family])
        T = arm.fk(q)
        assert arm.feasible_arm_angles(T), "the generating q is in limits"
        qc = q if i % 2 == 0 else rng.uniform(arm.lower, arm.upper)
        for policy in ("nearest", "widest", "max_margin"):
            sel = arm.select(T, qc, policy=policy)
            assert np.allclose(arm.fk(sel.q), T, atol=1e-9)
            assert np.all(sel.q >= arm.lower) and np.all(sel.q <= arm.upper)
        sel = arm.select(T, qc, options=piperik.SelectOptions.nearest())
        assert np.allclose(arm.fk(sel.q), T, atol=1e-9)


@pytest.mark.parametrize("cls", ARMS)
@pytest.mark.parametrize("family", ["none", "q2", "q4", "q6", "q2q4q6"])
def test_nearest_is_global_against_brute_force(cls, family):
    """The nearest choice over all arm angles and branches is never farther from q_current than a
    brute-force psi scan by more than 1e-9 (q_current near the pose's solution, moderately off, and
    unrelated)."""
    arm = cls()
    rng = np.random.default_rng(101 + 7 * len(FAMILIES[family]))
    opts = piperik.SelectOptions.nearest()
    for i in range(9):
        q = _family_q(arm, rng, FAMILIES[family])
        T = arm.fk(q)
        spread = (0.02, 0.5, None)[i % 3]
        qc = q + rng.uniform(-spread, spread, 7) if spread else rng.uniform(arm.lower, arm.upper)
        ref = brute_force_nearest_distance(arm, T, qc)
        sel = arm.select(T, qc, options=opts)
        got = float(np.linalg.norm(sel.q - qc))
        assert got <= ref + 1e-9, f"{cls.__name__} {family}: q={q.tolist()} qc={qc.tolist()}: {got} > {ref}"


def test_ik_path_through_wrist_singularity_keeps_branch_rule():
    """A smooth joint sine path of the iiwa that crosses q6 = 0: ik_path (keep_branch=True) follows
    it with steps no larger than twice the generating path's."""
    arm = piperik.Iiwa14()
    s = np.linspace(0, 1, 400)
    Q = np.tile(np.array([0.3, 0.6, -0.4, 1.2, 0.5, 0.0, 0.2]), (400, 1))
    Q[:, 5] = 0.6 * np.sin(2 * np.pi * s)
    Q[:, 0] += 0.3 * np.sin(2 * np.pi * s)
    P = arm.ik_path(arm.fk(Q), Q[0]).q
    P = P[0] if isinstance(P, tuple) else P
    gen = np.abs(np.diff(Q, axis=0)).max()
    got = np.abs(np.diff(np.vstack([Q[0], P]), axis=0)).max()
    assert got <= 2 * gen


@pytest.mark.parametrize("cls", ARMS)
def test_feasible_interval_counts_within_bound(cls):
    """The interval sets never overflow: counts stay within the proven bound over random and singular
    poses (an overflow would be an error status, never a silent drop)."""
    arm = cls()
    rng = np.random.default_rng(5)
    for i in range(300):
        q = _family_q(arm, rng, list(FAMILIES.values())[i % len(FAMILIES)])
        union, per = arm.feasible_arm_angles(arm.fk(q), per_branch=True)
        assert len(union) <= 34 and all(len(v) <= 17 for v in per.values())


def _sweeping_path(arm, rng, n=400, frac=0.45):
    """A smooth joint path sweeping `frac` of every range, q2, q4 and q6 centred on 0 (so each
    crosses its singular value), in the limits; n samples."""
    mid = 0.5 * (arm.lower + arm.upper)
    half = 0.5 * (arm.upper - arm.lower) * frac
    phase = rng.uniform(0, 2 * np.pi, 7)
    freq = rng.uniform(0.5, 1.5, 7)
    s = np.linspace(0.0, 1.0, n)[:, None]
    Q = mid + half * np.sin(2 * np.pi * freq * s + phase)
    for j in (1, 3, 5):
        Q[:, j] = half[j] * np.sin(2 * np.pi * freq[j] * s[:, 0] + phase[j])
    return Q


@pytest.mark.parametrize("cls", [piperik.Iiwa14, piperik.Nero])
def test_ik_path_follows_sweeping_paths_through_every_singularity(cls):
    """Issue 9: on smooth joint paths through q2 = q4 = q6 = 0, ik_path succeeds and its largest
    step is at most twice the generating path's (the greedy nearest-previous choice drifts into
    limits or swings next to singular points; the global arm-angle search must not)."""
    arm = cls()
    rng = np.random.default_rng(20261201)
    checked = 0
    for _ in range(20):  # with the global search's trigger at 3x the mean step, 3 of these 40 failed
        Q = _sweeping_path(arm, rng)
        assert np.all(Q >= arm.lower) and np.all(Q <= arm.upper)
        crossings = [np.any(np.diff(np.sign(Q[:, j])) != 0) for j in (1, 3, 5)]
        assert all(crossings), "the generator must cross every singular joint value"
        Ts = arm.fk(Q)
        report = arm.ik_path(Ts, Q[0])
        P = report.q
        gen_step = np.abs(np.diff(Q, axis=0)).max()
        steps = np.abs(np.diff(np.vstack([Q[0], P]), axis=0)).max()
        assert steps <= 2 * gen_step, f"largest step {steps:.4f} rad, generating path {gen_step:.4f}"
        assert np.all(P >= arm.lower - 1e-9) and np.all(P <= arm.upper + 1e-9)
        dp = np.linalg.norm(arm.fk(P)[:, :3, 3] - Ts[:, :3, 3], axis=1).max()
        assert dp <= 1e-9
        assert report.max_step_rad == pytest.approx(steps, abs=1e-12)
        checked += 1
    assert checked == 20


def test_plan_cartesian_through_branch_points_finds_the_continuous_path():
    """Issue 9 item 3 for plan_cartesian: waypoints on a joint path that sweeps through q2 = q4 =
    q6 = 0 (lines between 100 of its poses) are planned with steps <= the bound, in the limits and
    FK-exact, although the nearest-previous refinement alone fails on one of them (it is followed by
    ik_path's global arm-angle search there)."""
    arm = piperik.Nero()
    rng = np.random.default_rng(20261201)
    greedy_failures = 0
    for _ in range(3):
        Q = _sweeping_path(arm, rng, n=100)
        Ts = arm.fk(Q)
        greedy = arm._path(Ts, Q[0], np.inf, True, None, global_search=False)
        greedy_failures += greedy.failed_index >= 0
        plan = plan_cartesian(arm, list(Ts), Q[0], max_joint_step_rad=0.1)
        steps = np.abs(np.diff(plan.q, axis=0)).max()
        assert steps <= 0.1
        assert np.all(plan.q >= arm.lower - 1e-9) and np.all(plan.q <= arm.upper + 1e-9)
        assert np.abs(arm.fk(plan.q)[:, :3, 3] - plan.poses[:, :3, 3]).max() <= 1e-9
        assert np.allclose(arm.fk(plan.q[-1]), Ts[-1], atol=1e-9)
    assert greedy_failures >= 1, "the test no longer exercises the global fallback"


def test_nearest_finds_the_narrow_in_limit_stretch_beside_a_nearly_singular_shoulder():
    """NERO with q2 = 7e-10 (seed 777 of csrc/tests/test_nearest.c): within 1e-9 of psi = pi, q1 and
    q3 turn through a full turn, and the in-limit part of that turn nearest q_current is narrower
    than the arm-angle search's sampling there. ik returned a solution 3.625 rad away. The
    brute-force scan finds one 2.2176 rad away."""
    arm = piperik.Nero()
    q_target = np.array([0.043367958004227825, 7.0462232718479918e-10, 0.83874866471901488, 0.74607616253461206,
                         0.16422878587517312, -0.17091396738224116, 0.82004023917850366])
    q_current = np.array([-1.6713045574951912, 0.75440506011181419, -2.4359790879256722, 1.5947186216294151,
                          -0.0042024969858744932, -0.088514495565089057, -0.77091517105009544])
    T = arm.fk(q_target)
    q = arm.ik(T, q_current)
    assert np.abs(arm.fk(q) - T).max() < 1e-12
    assert np.all(q >= arm.lower) and np.all(q <= arm.upper)
    assert np.linalg.norm(q - q_current) <= 2.2177, np.linalg.norm(q - q_current)


def test_nearest_reaches_an_interior_minimum_beside_a_nearly_singular_shoulder():
    """NERO with q2 = 6e-7 (seed 1 of csrc/tests/test_nearest.c), the nearest options: next to
    psi = -pi the distance falls by 1e-5 rad over 1e-8 of psi, and the searches' bracket ended 6e-9
    of psi beside the minimum, 5e-7 rad farther than the brute force's 3.338725893279892."""
    arm = piperik.Nero()
    q_target = np.array([1.7758868152080738, -5.932556768394747e-07, -0.15981879069584726, 1.474119835846134,
                         -2.5465267107439642, 0.82482572839133084, 0.20505904612215034])
    q_current = np.array([-1.9041196367231012, 0.83030241416232653, 0.54334487658547648, -0.65601357591024334,
                          -2.6687095032450818, 0.9432911899632741, 1.4135547340589572])
    T = arm.fk(q_target)
    q = arm.ik(T, q_current, options=piperik.SelectOptions.nearest())
    assert np.abs(arm.fk(q) - T).max() < 1e-12
    assert np.all(q >= arm.lower) and np.all(q <= arm.upper)
    assert np.linalg.norm(q - q_current) <= 3.338725893279892 + 1e-9, np.linalg.norm(q - q_current)


def test_nearest_reaches_a_limit_edge_beside_a_nearly_singular_wrist():
    """iiwa 14 with q6 = 9e-7 and q7 on its limit (n = 150, seed 7 of csrc/tests/test_nearest.c), the
    nearest options: the distance falls all the way to the limit's edge, and the choice stopped
    1.1e-11 of psi short of it, 4.43e-7 rad from q_current against the brute force's 3.72e-7."""
    arm = piperik.Iiwa14()
    q_target = np.array([0.2422223618162862, -0.91051707013444771, -0.98254794263951217, -0.13690644287855216,
                         -1.6486022177911097, 9.0074089288417006e-07, -3.054326563931657])
    q_current = np.array([0.24222236154620633, -0.91051707027577211, -0.98254794254621813, -0.13690644244068031,
                          -1.6486022183391151, 9.0096902688004755e-07, -3.0543261909899999])
    T = arm.fk(q_target)
    q = arm.ik(T, q_current, options=piperik.SelectOptions.nearest())
    # on the edge, q7 is clamped onto its limit (README "Selection rules" 2: within 1e-10 rad
    # outside counts as inside), which moves the pose by up to that much
    assert np.abs(arm.fk(q) - T).max() < 1e-9
    assert np.all(q >= arm.lower) and np.all(q <= arm.upper)
    assert np.linalg.norm(q - q_current) <= 3.7232849092450642e-07 + 1e-9, np.linalg.norm(q - q_current)
