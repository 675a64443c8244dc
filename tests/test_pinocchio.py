"""Cross-checks of piperik against Pinocchio, the independent oracle (DESIGN.md section 7).

* FK: ``arm.fk(q)`` equals Pinocchio's placement of ``arm.ee_frame`` in the URDF the package ships
  (``arm.urdf_path``) to 1e-12, for both joint-zero conventions, in and outside the joint limits.
* IK: every row of ``arm.ik_all(T)`` reproduces T under Pinocchio's FK to 1e-9 m / rad, the
  configuration that generated T is always among the rows, and a generic pose has all 8 solutions.
* AgileX's own URDF (tests/data/piper_agilex.urdf) is a CAD export that approximates the DH
  model; its ``link6`` must agree with ``Piper().fk`` to the documented ~0.14 mm, and must not be
  identical (otherwise the test would not be checking what it claims).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import piperik
from conftest import (
    FK_TOL_POS_M,
    NEAR_SINGULAR,
    NEAR_SINGULAR_RECOVERY_TOL,
    FK_TOL_ROT_RAD,
    REPO_ROOT,
    TEST_COUNT,
    make_rng,
    max_angle_diff,
    pose_error,
    random_q_full,
    random_q_in_limits,
    recovery_tol,
    rows_containing,
    singularity_distances,
)

pin = pytest.importorskip("pinocchio")

#: vendored with its source in tests/data/README.md (a clone of the repository is self-contained)
AGILEX_URDF = REPO_ROOT / "tests" / "data" / "piper_agilex.urdf"


class PinFK:
    """Pinocchio FK of one frame of a URDF, with the arm's six joints mapped by name."""

    def __init__(self, urdf_path, frame: str, joint_names=("joint1", "joint2", "joint3", "joint4", "joint5", "joint6")):
        self.model = pin.buildModelFromUrdf(str(urdf_path))
        self.data = self.model.createData()
        assert self.model.existFrame(frame), f"frame {frame!r} missing from {urdf_path}"
        self.frame_id = self.model.getFrameId(frame)
        self.idx_q = []
        for name in joint_names:
            assert self.model.existJointName(name), f"joint {name!r} missing from {urdf_path}"
            joint = self.model.joints[self.model.getJointId(name)]
            assert joint.nq == 1
            self.idx_q.append(joint.idx_q)
        self.q_neutral = pin.neutral(self.model)

    def se3(self, q):
        qq = self.q_neutral.copy()
        qq[self.idx_q] = q
        pin.forwardKinematics(self.model, self.data, qq)
        pin.updateFramePlacements(self.model, self.data)
        return self.data.oMf[self.frame_id].copy()

    def __call__(self, q) -> np.ndarray:
        """4x4 pose of the frame for the arm joints q (6,)."""
        qq = self.q_neutral.copy()
        qq[self.idx_q] = q
        pin.framesForwardKinematics(self.model, self.data, qq)
        return self.data.oMf[self.frame_id].homogeneous.copy()

    def many(self, Q) -> np.ndarray:
        return np.array([self(q) for q in np.asarray(Q).reshape(-1, 6)]).reshape(-1, 4, 4)


@pytest.fixture(scope="module")
def pin_fk():
    """PinFK per zero convention, built from the URDF the package ships for it."""
    cache = {}

    def get(arm: piperik.Piper) -> PinFK:
        key = str(arm.urdf_path)
        if key not in cache:
            cache[key] = PinFK(arm.urdf_path, arm.ee_frame)
        return cache[key]

    return get


def test_shipped_urdf_is_a_six_joint_chain(any_arm, pin_fk):
    """The shipped URDF has exactly the six revolute joints of the model, with the model's limits."""
    fk = pin_fk(any_arm)
    assert fk.model.nq == 6
    lower = fk.model.lowerPositionLimit[fk.idx_q]
    upper = fk.model.upperPositionLimit[fk.idx_q]
    np.testing.assert_allclose(lower, any_arm.lower, rtol=0, atol=1e-15)
    np.testing.assert_allclose(upper, any_arm.upper, rtol=0, atol=1e-15)


@pytest.mark.parametrize("sampling", ["in_limits", "full_circle"])
def test_fk_equals_pinocchio(any_arm, pin_fk, rng, sampling):
    """arm.fk(q) == Pinocchio's placement of arm.ee_frame in arm.urdf_path, to 1e-12 elementwise."""
    fk = pin_fk(any_arm)
    n = TEST_COUNT
    Q = random_q_in_limits(any_arm, rng, n) if sampling == "in_limits" else random_q_full(rng, n)
    ours = np.array([any_arm.fk(q) for q in Q])
    ref = fk.many(Q)
    err = np.abs(ours - ref).max(axis=(1, 2))
    worst = int(np.argmax(err))
    assert err.max() <= 1e-12, (
        f"{any_arm!r}: max |fk - pinocchio| = {err.max():.3e} over {n} configs ({sampling}); "
        f"worst q = {Q[worst].tolist()}"
    )


def test_fk_batch_equals_single_calls(any_arm, rng):
    """fk on (N, 6) returns (N, 4, 4), each slice identical to the single-configuration call."""
    Q = np.concatenate([random_q_in_limits(any_arm, rng, 500), random_q_full(rng, 500)])
    batch = any_arm.fk(Q)
    assert batch.shape == (len(Q), 4, 4)
    single = np.array([any_arm.fk(q) for q in Q])
    assert np.array_equal(batch, single), f"max |batch - single| = {np.abs(batch - single).max():.3e}"
    # Edge batch sizes.
    assert any_arm.fk(np.zeros((0, 6))).shape == (0, 4, 4)
    assert np.array_equal(any_arm.fk(Q[:1]), single[:1])


def test_ik_all_against_pinocchio(any_arm, pin_fk, rng):
    """Every ik_all row reproduces the pose under Pinocchio's FK; the generating q is always a row.

    T is produced by Pinocchio (not by arm.fk), so the round trip shares no code with the solver.
    """
    fk = pin_fk(any_arm)
    n = TEST_COUNT
    Q = random_q_in_limits(any_arm, rng, n)
    Ts = fk.many(Q)
    max_pos = max_rot = 0.0
    max_recover = 0.0
    missing, counts = [], {}
    not_eight = []
    near = 0
    for q, T in zip(Q, Ts):
        S = any_arm.ik_all(T)
        assert S.ndim == 2 and S.shape[1] == 6 and 1 <= len(S) <= 8, f"q={q.tolist()}: shape {S.shape}"
        assert np.all(np.isfinite(S)), f"q={q.tolist()}: non-finite solution {S}"
        counts[len(S)] = counts.get(len(S), 0) + 1
        dp, dr = pose_error(fk.many(S), T[None])
        max_pos = max(max_pos, float(dp.max()))
        max_rot = max(max_rot, float(dr.max()))
        d = float(max_angle_diff(S, q[None]).min())
        tol = recovery_tol(any_arm, q)
        if tol == 1e-9:
            max_recover = max(max_recover, d)
        else:
            near += 1
        if d > tol:
            missing.append(q)
        # Generic (>= 1e-5 from every singularity): 2 shoulder x 2 elbow x 2 wrist solutions.
        generic = min(singularity_distances(any_arm, q).values()) >= NEAR_SINGULAR
        if generic and len(S) != 8:
            not_eight.append((q.tolist(), len(S)))
    summary = (f"{any_arm!r}, {n} poses: max position error {max_pos:.3e} m, max rotation error "
               f"{max_rot:.3e} rad, max recovery error of the generating q {max_recover:.3e} rad "
               f"({near} poses within {NEAR_SINGULAR} of a singularity allowed {NEAR_SINGULAR_RECOVERY_TOL}), "
               f"solution counts {dict(sorted(counts.items()))}")
    assert max_pos <= FK_TOL_POS_M and max_rot <= FK_TOL_ROT_RAD, summary
    assert not missing, f"{summary}; generating q not among the rows for {len(missing)} poses, e.g. {missing[0].tolist()}"
    assert not not_eight, f"{summary}; generic poses without 8 solutions: {not_eight[:3]}"
    assert near <= max(5, n // 1000), summary


def test_ik_accepts_pinocchio_se3(arm, pin_fk, rng):
    """A pinocchio.SE3 is accepted wherever a 4x4 pose is (it has ``.homogeneous``)."""
    fk = pin_fk(arm)
    for q in random_q_in_limits(arm, rng, 50):
        M = fk.se3(q)
        assert isinstance(M, pin.SE3)
        T = M.homogeneous
        S_se3 = arm.ik_all(M)
        S = arm.ik_all(T)
        assert np.array_equal(S_se3, S)
        assert len(rows_containing(S_se3, q, 1e-9)) >= 1
        q_sel = arm.ik(M, q)
        assert max_angle_diff(q_sel, q) <= 1e-9, f"ik(SE3, q) = {q_sel.tolist()} for q = {q.tolist()}"
        assert [s.branch for s in arm.solutions(M)] == [s.branch for s in arm.solutions(T)]
        assert arm.select(M, q).index == arm.select(T, q).index
    # batch: an (N, 4, 4) array built from SE3 objects, and a q_current per row
    Q = random_q_in_limits(arm, rng, 20)
    Ts = np.array([fk.se3(q).homogeneous for q in Q])
    Qb, ok = arm.ik_batch(Ts, Q)
    assert ok.all()
    assert max_angle_diff(Qb, Q).max() <= 1e-9


def test_agilex_urdf_close_to_model(arm):
    """AgileX's published URDF ``link6`` agrees with Piper().fk to ~0.1 mm, but is not identical.

    The URDF is a CAD export (rounded constants, axis 6 passing 0.088 mm from axis 5), so it differs
    from the DH model the firmware uses by a fraction of a millimetre; notes/piper.md documents
    "<= 0.14 mm / <= 0.004 deg" over 5000 in-limit configurations.
    """
    assert AGILEX_URDF.is_file(), f"vendored test data missing: {AGILEX_URDF}"
    fk = PinFK(AGILEX_URDF, "link6")
    rng = make_rng(2000)
    Q = random_q_in_limits(arm, rng, 2000)
    ours = arm.fk(Q)
    ref = fk.many(Q)
    dp, dr = pose_error(ours, ref)
    msg = (f"AgileX URDF link6 vs Piper().fk over 2000 in-limit configs: position max {dp.max() * 1e3:.4f} mm, "
           f"mean {dp.mean() * 1e3:.4f} mm; rotation max {dr.max():.3e} rad ({math.degrees(dr.max()):.4f} deg)")
    assert dp.max() <= 0.2e-3, msg
    assert dp.max() >= 0.05e-3, msg + " (suspiciously identical: is the right file being compared?)"
    assert 0.05e-3 <= dp.mean() <= 0.15e-3, msg
    assert dr.max() <= 1e-3, msg
