"""Pose and unit helpers in the PiPER's conventions.

The PiPER firmware and piper_sdk describe an end pose as X, Y, Z and RX, RY, RZ with
R = Rz(RZ) @ Ry(RY) @ Rx(RX) (extrinsic x-y-z, i.e. roll-pitch-yaw), in integer units of
0.001 mm and 0.001 deg; joint angles travel as integers of 0.001 deg ("millidegrees").
"""
from __future__ import annotations

import math
from typing import Sequence, Tuple

import numpy as np

from ._core import check_pose

MDEG_PER_RAD = 180_000.0 / math.pi  # 0.001 deg per rad, from the exact pi (not 3.14)
UM_PER_M = 1_000_000.0               # the PiPER's 0.001 mm unit
#: The PiPER's integer units (joint and end-pose millidegrees, end-pose 0.001 mm) are int32 on its
#: CAN bus and on the firmware_bridge wire: values outside this range are not representable.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def finite_vector(value, n: int, name: str) -> np.ndarray:
    """``value`` as n finite float64 numbers, else ``ValueError`` naming the argument ``name``: the
    check every pose and joint argument of piperik and its bridge goes through."""
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != (n,):
        raise ValueError(f"{name}: expected {n} numbers, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or infinity")
    return arr


def pose_from_xyz_rpy(xyz_m: Sequence[float], rpy_rad: Sequence[float]) -> np.ndarray:
    """4x4 pose from a position [m] and roll, pitch, yaw [rad] with R = Rz(yaw) Ry(pitch) Rx(roll)."""
    x = finite_vector(xyz_m, 3, "xyz_m")
    roll, pitch, yaw = finite_vector(rpy_rad, 3, "rpy_rad")
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    T = np.eye(4)
    T[:3, :3] = [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
    T[:3, 3] = x
    return T


def pose_to_xyz_rpy(T) -> Tuple[np.ndarray, np.ndarray]:
    """Position [m] and roll, pitch, yaw [rad] of a pose, the inverse of :func:`pose_from_xyz_rpy`.

    Pitch is in [-pi/2, pi/2]; at pitch = +-pi/2 roll is set to 0 (only roll -+ yaw is defined).
    """
    M = _matrix(T)
    return M[:3, 3].copy(), np.array(_rpy_of(M[:3, :3]))


def _rotation_angle(A: np.ndarray, B: np.ndarray) -> float:
    """Angle [rad] of the rotation between two poses' orientations, accurate near 0 and near pi
    (atan2 of the antisymmetric part's norm against the trace, not acos of the trace)."""
    E = A[:3, :3].T @ B[:3, :3]
    return float(np.arctan2(np.linalg.norm(E - E.T) / (2 * math.sqrt(2)), (np.trace(E) - 1) / 2))


def _rpy_of(R: np.ndarray) -> Tuple[float, float, float]:
    """(roll, pitch, yaw) with R = Rz(yaw) Ry(pitch) Rx(roll); roll = 0 at pitch = +-pi/2."""
    pitch = math.atan2(-R[2, 0], math.hypot(R[0, 0], R[1, 0]))
    if not (math.hypot(R[0, 0], R[1, 0]) >= 1e-12):  # NaN-safe: a NaN takes this branch
        return 0.0, pitch, math.atan2(-R[0, 1], R[1, 1])
    return math.atan2(R[2, 1], R[2, 2]), pitch, math.atan2(R[1, 0], R[0, 0])


def pose_from_piper_units(end_pose: Sequence[int]) -> np.ndarray:
    """4x4 pose from the PiPER's end-pose integers (X, Y, Z in 0.001 mm; RX, RY, RZ in 0.001 deg)."""
    v = finite_vector(end_pose, 6, "end_pose")
    return pose_from_xyz_rpy(v[:3] / UM_PER_M, np.radians(v[3:] / 1000.0))


def pose_to_piper_units(T) -> np.ndarray:
    """The PiPER's end-pose integers (X, Y, Z in 0.001 mm; RX, RY, RZ in 0.001 deg), rounded."""
    xyz, rpy = pose_to_xyz_rpy(T)
    with np.errstate(over="ignore"):  # an overflow to inf is refused just below, with the range
        um = np.rint(xyz * UM_PER_M)
    if not np.all(np.abs(um) <= INT32_MAX):
        raise ValueError(f"T: position must be within +-{INT32_MAX / UM_PER_M:.0f} m to be represented in "
                         f"0.001 mm int32 units, got {xyz.tolist()} m")
    return np.concatenate([um, np.rint(np.degrees(rpy) * 1000.0)]).astype(np.int64)


def q_to_mdeg(q_rad) -> np.ndarray:
    """Joint angles [rad] to the PiPER's integer millidegrees (0.001 deg), rounded to nearest.

    The result must fit the int32 of the PiPER's CAN bus and the firmware_bridge wire, i.e.
    |q| <= (2**31 - 1) mdeg (about 37480 rad); anything else raises ``ValueError``.
    """
    q = np.asarray(q_rad, dtype=np.float64)
    if not np.all(np.isfinite(q)):
        raise ValueError("q_rad: contains NaN or infinity")
    with np.errstate(over="ignore"):  # an overflow to inf is refused just below, with the range
        mdeg = np.rint(q * MDEG_PER_RAD)
    if not np.all((mdeg >= INT32_MIN) & (mdeg <= INT32_MAX)):
        worst = float(q.flat[int(np.argmax(np.abs(q)))])
        raise ValueError(f"q_rad: must lie within +-{INT32_MAX / MDEG_PER_RAD:.1f} rad to be represented as int32 "
                         f"millidegrees [{INT32_MIN}, {INT32_MAX}], got {worst!r}")
    return mdeg.astype(np.int64)


def q_from_mdeg(q_mdeg) -> np.ndarray:
    """Joint angles from integer millidegrees (0.001 deg) to radians."""
    q = np.asarray(q_mdeg, dtype=np.float64)
    if not np.all(np.isfinite(q)):
        raise ValueError("q_mdeg: contains NaN or infinity")
    return q / MDEG_PER_RAD


def _matrix(T) -> np.ndarray:
    """T as a new validated 4x4 float64 array: the C core's pose rules and messages
    (piperik._core.check_pose; a pinocchio.SE3 is taken through its ``homogeneous``)."""
    return check_pose(T)
