"""Bad input: every rule gives a ValueError naming the argument, nothing crashes, nothing is silent.

DESIGN.md section 2: wrong shape, NaN/inf, a rotation that is not orthonormal (|R^T R - I| > 1e-6)
or has det -1, a bottom row other than [0 0 0 1], joint vectors of the wrong length all raise
``ValueError`` whose message starts with the argument's name ("T:", "q:", "q_current:", "seed:",
"Ts[3]:" ...). Slightly non-orthonormal rotations (rounding, float32) are accepted and solved for
their projection onto SO(3). Any float64-convertible input is accepted: lists, float32, int,
Fortran-ordered and strided arrays.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import piperik
from conftest import FK_TOL_POS_M, FK_TOL_ROT_RAD, dh_fk, max_angle_diff, pose_error

Q_REF = np.array([0.3, 1.2, -1.1, 0.4, -0.6, 0.8])


@pytest.fixture(scope="module")
def T_ref(arm_module):
    return arm_module.fk(Q_REF)


@pytest.fixture(scope="module")
def arm_module():
    return piperik.Piper()


#: every entry point that takes one pose, called with a valid q_current/seed where it has one
def _pose_calls(arm):
    return {
        "ik_all": lambda T: arm.ik_all(T),
        "ik_all_seed": lambda T: arm.ik_all(T, seed=Q_REF),
        "solutions": lambda T: arm.solutions(T),
        "ik": lambda T: arm.ik(T),
        "ik_current": lambda T: arm.ik(T, Q_REF),
        "select": lambda T: arm.select(T, Q_REF),
    }


POSE_METHODS = ["ik_all", "ik_all_seed", "solutions", "ik", "ik_current", "select"]


def _bad_pose_cases():
    """(id, transform(T) -> bad T, message fragment)"""
    cases = [
        ("shape_3x3", lambda T: T[:3, :3].copy(), "shape"),
        ("shape_4x4x1", lambda T: T[:, :, None].copy(), "shape"),
        ("shape_16", lambda T: T.reshape(16).copy(), "shape"),
        ("shape_1x4x4", lambda T: T[None].copy(), "shape"),
        ("shape_4x3", lambda T: T[:, :3].copy(), "shape"),
        ("scalar", lambda T: 1.0, "shape"),
        ("empty", lambda T: np.zeros((0, 4)), "shape"),
        ("string", lambda T: "not a pose", ""),
        ("None", lambda T: None, ""),
        ("ragged_list", lambda T: [[1.0, 0.0], [0.0]], ""),
        ("dict", lambda T: {"R": 1}, ""),
        ("scaled_rotation_1e-3", lambda T: _scaled(T, 1.001), "orthonormal"),
        ("off_orthogonal_1e-5", lambda T: _nudged(T, 1e-5), "orthonormal"),
        ("mirrored", lambda T: _mirrored(T), "det"),
        ("bottom_row_x", lambda T: _with(T, (3, 0), 1e-3), "bottom row"),
        ("bottom_row_w", lambda T: _with(T, (3, 3), 2.0), "bottom row"),
        ("bottom_row_w0", lambda T: _with(T, (3, 3), 0.0), "bottom row"),
        ("zero_rotation", lambda T: _with_rot(T, np.zeros((3, 3))), "orthonormal"),
    ]
    return cases


def _with(T, idx, value):
    T = np.array(T, dtype=float)
    T[idx] = value
    return T


def _with_rot(T, R):
    T = np.array(T, dtype=float)
    T[:3, :3] = R
    return T


def _scaled(T, s):
    return _with_rot(T, np.asarray(T)[:3, :3] * s)


def _nudged(T, eps):
    R = np.array(T, dtype=float)[:3, :3]
    R[0, 1] += eps
    return _with_rot(T, R)


def _mirrored(T):
    return _with_rot(T, np.asarray(T)[:3, :3] @ np.diag([1.0, 1.0, -1.0]))


BAD_POSES = _bad_pose_cases()


@pytest.mark.parametrize("method", POSE_METHODS)
@pytest.mark.parametrize("case", BAD_POSES, ids=[c[0] for c in BAD_POSES])
def test_bad_pose_names_T(arm_module, T_ref, method, case):
    """Each malformed pose is a ValueError starting with 'T:' and naming the rule."""
    _, make, fragment = case
    bad = make(T_ref)
    with pytest.raises(ValueError) as info:
        _pose_calls(arm_module)[method](bad)
    msg = str(info.value)
    assert msg.startswith("T:"), msg
    assert fragment.lower() in msg.lower(), msg
    assert not isinstance(info.value, piperik.NoSolutionError), "bad input is not 'no solution'"


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("index", range(16))
def test_nonfinite_anywhere_in_T(arm_module, T_ref, index, value):
    """NaN or +-inf in any of the 16 entries: ValueError 'T: ... NaN or infinity' from every entry point."""
    bad = np.array(T_ref)
    bad.flat[index] = value
    for name, call in _pose_calls(arm_module).items():
        with pytest.raises(ValueError, match=r"^T: .*NaN or infinity"):
            call(bad)
    Ts = np.repeat(np.asarray(T_ref)[None], 5, axis=0)
    Ts[3].flat[index] = value
    with pytest.raises(ValueError, match=r"^Ts\[3\]: .*NaN or infinity"):
        arm_module.ik_batch(Ts)


def test_object_with_bad_homogeneous(arm_module):
    """An object whose .homogeneous is not a 4x4 pose is rejected like any other bad T."""

    class Fake:
        homogeneous = "garbage"

    class FakeShape:
        homogeneous = np.eye(3)

    for obj in (Fake(), FakeShape()):
        with pytest.raises(ValueError, match="^T:"):
            arm_module.ik_all(obj)
        with pytest.raises(ValueError, match="^T:"):
            arm_module.ik(obj)


@pytest.mark.parametrize("case", [c for c in BAD_POSES if c[0] in (
    "scaled_rotation_1e-3", "off_orthogonal_1e-5", "mirrored", "bottom_row_x", "bottom_row_w", "zero_rotation")],
    ids=lambda c: c[0])
def test_batch_bad_pose_names_index(arm_module, T_ref, case):
    """ik_batch with one bad pose at index 3 raises ValueError naming 'Ts[3]' and the rule."""
    _, make, fragment = case
    Ts = np.repeat(np.asarray(T_ref)[None], 6, axis=0)
    Ts[3] = make(T_ref)
    for current in (None, Q_REF, np.tile(Q_REF, (6, 1))):
        with pytest.raises(ValueError) as info:
            arm_module.ik_batch(Ts, current)
        msg = str(info.value)
        assert msg.startswith("Ts[3]:"), msg
        assert fragment.lower() in msg.lower(), msg


@pytest.mark.parametrize("bad", [np.eye(4), np.zeros((5, 4)), np.zeros((2, 4, 3)), np.zeros((2, 3, 4)),
                                 np.zeros((2, 4, 4, 1)), 3.0, "poses", None],
                         ids=["4x4", "5x4", "2x4x3", "2x3x4", "2x4x4x1", "scalar", "string", "None"])
def test_batch_bad_shape(arm_module, bad):
    with pytest.raises(ValueError, match=r"^Ts:"):
        arm_module.ik_batch(bad)


# ---- joint vectors --------------------------------------------------------------------------------

@pytest.mark.parametrize("q", [np.zeros(5), np.zeros(7), np.zeros((2, 5)), np.zeros((2, 6, 1)), 0.0, "abcdef", None,
                               [0, 0, 0, np.nan, 0, 0], [0, 0, 0, 0, 0, np.inf], np.full((3, 6), np.nan)],
                         ids=["len5", "len7", "2x5", "2x6x1", "scalar", "string", "None", "nan", "inf", "batch_nan"])
def test_fk_bad_q(arm_module, q):
    """fk: q of the wrong length or with NaN/inf is a ValueError starting with 'q:'."""
    with pytest.raises(ValueError, match=r"^q:"):
        arm_module.fk(q)


@pytest.mark.parametrize("q", [np.zeros(5), np.zeros((2, 6)), [0, np.nan, 0, 0, 0, 0], None],
                         ids=["len5", "2x6", "nan", "None"])
def test_wrist_center_bad_q(arm_module, q):
    with pytest.raises(ValueError, match=r"^q:"):
        arm_module.wrist_center(q)


@pytest.mark.parametrize("method", ["ik", "select", "ik_batch"])
@pytest.mark.parametrize("qc", [np.zeros(5), np.zeros(7), [0, 0, np.nan, 0, 0, 0], [np.inf] * 6, "abcdef",
                                np.zeros((3, 6))],
                         ids=["len5", "len7", "nan", "inf", "string", "3x6_wrong_rows"])
def test_bad_q_current(arm_module, T_ref, method, qc):
    """q_current of the wrong length/row count or with NaN/inf: ValueError starting with 'q_current:'."""
    if method == "ik_batch":
        call = lambda: arm_module.ik_batch(np.repeat(np.asarray(T_ref)[None], 2, axis=0), qc)  # noqa: E731
    else:
        call = lambda: getattr(arm_module, method)(T_ref, qc)  # noqa: E731
    with pytest.raises(ValueError, match=r"^q_current:"):
        call()


@pytest.mark.parametrize("method", ["ik", "select"])
def test_single_pose_rejects_per_row_q_current(arm_module, T_ref, method):
    """A single pose takes q_current of shape (6,), not (1, 6)."""
    with pytest.raises(ValueError, match=r"^q_current:"):
        getattr(arm_module, method)(T_ref, np.zeros((1, 6)))


@pytest.mark.parametrize("method", ["ik_all", "solutions"])
@pytest.mark.parametrize("seed", [np.zeros(5), [0, 0, np.nan, 0, 0, 0], "abcdef"], ids=["len5", "nan", "string"])
def test_bad_seed(arm_module, T_ref, method, seed):
    with pytest.raises(ValueError, match=r"^seed:"):
        getattr(arm_module, method)(T_ref, seed=seed)


@pytest.mark.parametrize("value", [1e6, 1e10, 1e300, 1e301, 1.7e308])
def test_fk_huge_finite_q(arm_module, value):
    """Huge but finite joint angles: fk either raises a ValueError naming q, or returns the right pose.

    It must not return stale or uninitialised memory (DESIGN.md: "nothing returns silently wrong
    numbers"). The reference is the numpy modified-DH chain (numpy's sin/cos reduce any argument).
    """
    q = np.array([value, 0.2, -0.4, 0.1, 0.3, -0.2])
    for call in (lambda: arm_module.fk(q), lambda: arm_module.fk(q[None])[0]):
        arm_module.fk(np.zeros(6))  # leave a plausible pose in freed memory
        try:
            got = call()
        except ValueError as e:
            assert str(e).startswith("q:"), str(e)
            continue
        ref = dh_fk(arm_module, q)
        assert np.abs(got - ref).max() <= 1e-9, f"fk(q1={value}) = {got.tolist()}, reference {ref.tolist()}"


@pytest.mark.parametrize("value", [1e301, 1.7e308])
def test_wrist_center_huge_finite_q(arm_module, value):
    """Same rule for wrist_center: a ValueError naming q, or the right point (never garbage)."""
    q = np.array([value, 0.2, -0.4, 0.1, 0.3, -0.2])
    try:
        got = arm_module.wrist_center(q)
    except ValueError as e:
        assert str(e).startswith("q:"), str(e)
        return
    T = dh_fk(arm_module, q)
    ref = T[:3, 3] - arm_module.geometry["d6_m"] * T[:3, 2]
    assert np.abs(got - ref).max() <= 1e-9, f"wrist_center(q1={value}) = {got.tolist()}, reference {ref.tolist()}"


@pytest.mark.parametrize("value", [1e301, 1.7e308])
def test_huge_seed_or_current_blames_the_right_argument(arm_module, T_ref, value):
    """A huge finite seed / q_current is either used or rejected naming *it*, never blamed on T."""
    v = np.array([value, 0, 0, 0, 0, 0], dtype=float)
    calls = [
        ("seed", lambda: arm_module.ik_all(T_ref, seed=v)),
        ("q_current", lambda: arm_module.ik(T_ref, v)),
        ("q_current", lambda: arm_module.ik_batch(np.asarray(T_ref)[None], v)),
    ]
    for name, call in calls:
        try:
            call()
        except ValueError as e:
            assert str(e).startswith(name + ":"), f"{name}={value}: message {str(e)!r}"


def test_huge_finite_position_is_unreachable_not_an_error(arm_module, T_ref):
    """A pose 1e200 m or 1e300 m away is finite and valid, just out of reach (no overflow to NaN)."""
    for dist in (1e3, 1e200, 1e300, 1.7e308):
        T = np.array(T_ref)
        T[0, 3] = dist
        assert arm_module.ik_all(T).shape == (0, 6)
        with pytest.raises(piperik.NoSolutionError, match="unreachable"):
            arm_module.ik(T)


def test_legacy_zero_must_be_bool():
    for bad in (1, "yes", None, 0.0):
        with pytest.raises(ValueError, match="legacy_zero"):
            piperik.Piper(legacy_zero=bad)


# ---- accepted input -------------------------------------------------------------------------------

def _projected(T):
    """T with its rotation replaced by the nearest rotation (polar decomposition via SVD)."""
    U, _, Vt = np.linalg.svd(np.asarray(T)[:3, :3])
    out = np.array(T, dtype=float)
    out[:3, :3] = U @ Vt
    return out


@pytest.mark.parametrize("eps", [1e-12, 1e-10, 1e-8, 5e-7])
def test_slightly_non_orthonormal_rotation_is_projected(arm_module, T_ref, rng, eps):
    """|R^T R - I| ~ eps below the 1e-6 tolerance: accepted, and every solution is exact for the
    rotation projected onto SO(3) (to 1e-9), hence within ~eps of the raw input."""
    for _ in range(50):
        T = np.array(T_ref)
        T[:3, :3] = T[:3, :3] @ (np.eye(3) + eps * rng.uniform(-0.5, 0.5, (3, 3)))
        err = np.abs(T[:3, :3].T @ T[:3, :3] - np.eye(3)).max()
        assert err <= 1e-6
        S = arm_module.ik_all(T)
        assert len(S) == 8
        P = _projected(T)
        dp, dr = pose_error(dh_fk(arm_module, S), P[None])
        assert dp.max() <= FK_TOL_POS_M and dr.max() <= FK_TOL_ROT_RAD, (
            f"eps={eps}: position {dp.max():.3e} m, rotation {dr.max():.3e} rad from the projected pose")
        assert np.abs(dh_fk(arm_module, S) - T[None]).max() <= 10 * eps + 1e-12
        q = arm_module.ik(T, Q_REF)
        assert max_angle_diff(q, Q_REF) <= 10 * eps + 1e-9


def test_nearly_orthonormal_at_tolerance_boundary(arm_module, T_ref):
    """Just below 1e-6 is accepted; just above is rejected with the measured error in the message."""
    T = _nudged(T_ref, 0.9e-6)
    assert len(arm_module.ik_all(T)) >= 1
    T = _nudged(T_ref, 2e-6)
    with pytest.raises(ValueError, match=r"^T: .*orthonormal.*measured"):
        arm_module.ik_all(T)


def test_float64_convertible_inputs_give_identical_results(arm_module, T_ref):
    """Lists, tuples, Fortran order, strided views and read-only arrays give bit-identical results."""
    T = np.asarray(T_ref)
    expected_all = arm_module.ik_all(T)
    expected_ik = arm_module.ik(T, Q_REF)
    big = np.zeros((4, 8))
    big[:, ::2] = T
    ro = T.copy()
    ro.flags.writeable = False
    variants = {
        "list": T.tolist(),
        "tuple": tuple(tuple(r) for r in T),
        "fortran": np.asfortranarray(T),
        "strided": big[:, ::2],
        "transposed_view": np.ascontiguousarray(T.T).T,
        "readonly": ro,
        "longdouble": T.astype(np.longdouble),
    }
    for name, v in variants.items():
        assert np.array_equal(arm_module.ik_all(v), expected_all), name
        assert np.array_equal(arm_module.ik(v, list(Q_REF)), expected_ik), name
    # q_current and fk inputs
    for qv in (list(Q_REF), tuple(Q_REF), np.asfortranarray(Q_REF), np.repeat(Q_REF, 2)[::2]):
        assert np.array_equal(arm_module.ik(T, qv), expected_ik)
        assert np.array_equal(arm_module.fk(qv), arm_module.fk(Q_REF))


def test_float32_and_int_inputs(arm_module, T_ref, rng):
    """float32 poses (rotation orthonormal only to ~1e-7) and int arrays are accepted and solved."""
    T32 = np.asarray(T_ref, dtype=np.float32)
    S = arm_module.ik_all(T32)
    assert len(S) == 8
    assert np.array_equal(S, arm_module.ik_all(T32.astype(np.float64)))
    dp, dr = pose_error(dh_fk(arm_module, S), _projected(T32.astype(np.float64))[None])
    assert dp.max() <= FK_TOL_POS_M and dr.max() <= FK_TOL_ROT_RAD
    # an integer pose: flange pointing along +x at the base origin height 0
    Ti = np.array([[0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 1]], dtype=np.int64)
    Si = arm_module.ik_all(Ti)
    assert np.array_equal(Si, arm_module.ik_all(Ti.astype(float)))
    assert len(Si) >= 1
    dp, dr = pose_error(dh_fk(arm_module, Si), Ti.astype(float)[None])
    assert dp.max() <= FK_TOL_POS_M and dr.max() <= FK_TOL_ROT_RAD
    # int / float32 joint vectors
    qi = np.array([0, 1, -1, 0, 1, 0])
    assert np.array_equal(arm_module.fk(qi), arm_module.fk(qi.astype(float)))
    q32 = Q_REF.astype(np.float32)
    assert np.array_equal(arm_module.fk(q32), arm_module.fk(q32.astype(float)))
    Q32 = rng.uniform(-1, 1, (10, 6)).astype(np.float32)
    assert np.array_equal(arm_module.fk(Q32), arm_module.fk(Q32.astype(float)))
    assert np.array_equal(arm_module.fk(np.asfortranarray(Q32)), arm_module.fk(Q32.astype(float)))


def test_batch_accepts_convertible_inputs(arm_module, rng):
    """ik_batch: nested lists, float32, Fortran-ordered and strided (N, 4, 4) stacks; (N, 6) lists."""
    Q0 = rng.uniform(arm_module.lower, arm_module.upper, (20, 6))
    Ts = arm_module.fk(Q0)
    ref_Q, ref_ok = arm_module.ik_batch(Ts, Q0)
    assert ref_ok.all()
    big = np.zeros((40, 4, 4))
    big[::2] = Ts
    for name, v in {"list": Ts.tolist(), "fortran": np.asfortranarray(Ts), "strided": big[::2]}.items():
        Q, ok = arm_module.ik_batch(v, Q0.tolist())
        assert np.array_equal(Q, ref_Q) and np.array_equal(ok, ref_ok), name
    T32 = Ts.astype(np.float32)
    Q, ok = arm_module.ik_batch(T32, Q0)
    assert ok.all()
    # float32 rounding moves the pose by ~1e-7 (relative); the solution is exact for the rounded,
    # projected pose and identical to passing the same numbers as float64
    Q64, ok64 = arm_module.ik_batch(T32.astype(np.float64), Q0)
    assert np.array_equal(Q, Q64) and np.array_equal(ok, ok64)
    for q, T in zip(Q, T32.astype(np.float64)):
        dp, dr = pose_error(dh_fk(arm_module, q), _projected(T))
        assert dp <= FK_TOL_POS_M and dr <= FK_TOL_ROT_RAD


# ---- pose helpers ---------------------------------------------------------------------------------

@pytest.mark.parametrize("xyz,rpy,name", [
    ([0, 0], [0, 0, 0], "xyz_m"),
    ([0, 0, 0, 0], [0, 0, 0], "xyz_m"),
    ([0, 0, np.nan], [0, 0, 0], "xyz_m"),
    ([0, 0, 0], [0, np.inf, 0], "rpy_rad"),
    ([0, 0, 0], [0, 0], "rpy_rad"),
    ([0, 0, 0], np.zeros((3, 1)), "rpy_rad"),
    (None, [0, 0, 0], "xyz_m"),
])
def test_pose_from_xyz_rpy_rejects(xyz, rpy, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        piperik.pose_from_xyz_rpy(xyz, rpy)


@pytest.mark.parametrize("bad", [np.eye(3), np.zeros(16), np.full((4, 4), np.nan), "pose"],
                         ids=["3x3", "16", "nan", "string"])
def test_pose_to_xyz_rpy_rejects_malformed(bad):
    with pytest.raises(ValueError):
        piperik.pose_to_xyz_rpy(bad)
    with pytest.raises(ValueError):
        piperik.pose_to_piper_units(bad)


@pytest.mark.parametrize("case", [c for c in BAD_POSES if c[0] in (
    "scaled_rotation_1e-3", "off_orthogonal_1e-5", "mirrored", "bottom_row_x", "bottom_row_w", "zero_rotation")],
    ids=lambda c: c[0])
def test_pose_to_xyz_rpy_rejects_invalid_transform(arm_module, T_ref, case):
    """A matrix that is not a rigid transform has no roll/pitch/yaw: converting it must raise
    ValueError naming T and the rule (DESIGN.md section 2), like the solver does, instead of
    returning angles of something that is not a rotation."""
    _, make, fragment = case
    bad = make(T_ref)
    for fn in (piperik.pose_to_xyz_rpy, piperik.pose_to_piper_units):
        with pytest.raises(ValueError) as info:
            fn(bad)
        assert str(info.value).startswith("T:") and fragment.lower() in str(info.value).lower(), str(info.value)


@pytest.mark.parametrize("fn,arg,name", [
    (piperik.pose_from_piper_units, [1, 2, 3], "end_pose"),
    (piperik.pose_from_piper_units, [0, 0, 0, 0, np.nan, 0], "end_pose"),
    (piperik.q_to_mdeg, [0.0, np.nan], "q_rad"),
    (piperik.q_to_mdeg, [np.inf], "q_rad"),
    (piperik.q_from_mdeg, [np.inf, 0], "q_mdeg"),
    (piperik.q_from_mdeg, [0, np.nan], "q_mdeg"),
])
def test_unit_helpers_reject(fn, arg, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        fn(arg)


def test_pose_helpers_accept_convertible_input():
    """Lists, tuples, ints and float32 work in the helpers too."""
    T1 = piperik.pose_from_xyz_rpy((0, 0, 1), (0, 0, 0))
    T2 = piperik.pose_from_xyz_rpy(np.array([0.0, 0.0, 1.0], dtype=np.float32), [0.0, 0.0, 0.0])
    assert np.array_equal(T1, T2)
    xyz, rpy = piperik.pose_to_xyz_rpy(T1.tolist())
    assert np.array_equal(xyz, [0, 0, 1]) and np.array_equal(rpy, [0, 0, 0])
    assert np.array_equal(piperik.q_to_mdeg([0, 1]), piperik.q_to_mdeg(np.array([0.0, 1.0])))
    np.testing.assert_array_equal(piperik.q_from_mdeg([0, 57296]), piperik.q_from_mdeg(np.array([0.0, 57296.0])))
    assert math.isclose(piperik.q_from_mdeg([180000])[0], math.pi, rel_tol=1e-15)
