"""Arm models: the public Python API (DESIGN.md section 2).

Each method converts and validates its arguments in the compiled core (so a single call costs well
under a microsecond), which raises ``ValueError`` naming the argument and the rule it broke.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np

from . import _core
from .models import MODELS_DIR

_FLAGS = _core.FLAGS


def _branch_name(flags: int) -> str:
    return "shoulder={} elbow={} wrist={}".format(
        "back" if flags & _FLAGS["SHOULDER_BACK"] else "front",
        "B" if flags & _FLAGS["ELBOW_B"] else "A",
        "flip" if flags & _FLAGS["WRIST_FLIP"] else "noflip",
    )


def _singular_names(flags: int) -> Tuple[str, ...]:
    names = (("SING_SHOULDER", "shoulder"), ("SING_ELBOW", "elbow"), ("SING_WRIST", "wrist"))
    return tuple(label for key, label in names if flags & _FLAGS[key])


@dataclass(frozen=True)
class Solution:
    """One exact IK solution with what the solver knows about it."""

    q: np.ndarray                 #: joint angles [rad], each in (-pi, pi]
    flags: int                    #: raw flag bits (piperik._core.FLAGS)
    branch: str                   #: e.g. "shoulder=front elbow=A wrist=noflip"
    singular: Tuple[str, ...]     #: subset of ("shoulder", "elbow", "wrist")
    in_limits: bool               #: every joint within [lower, upper]
    pos_err_m: float              #: FK self-check: position residual [m]
    rot_err_rad: float            #: FK self-check: rotation residual [rad]


@dataclass(frozen=True)
class Selection:
    """The solution ``ik`` chose and why."""

    q: np.ndarray                 #: the chosen joint angles [rad]
    index: int                    #: its row in ``ik_all(T)``
    branch: str                   #: e.g. "shoulder=front elbow=A wrist=noflip"
    singular: Tuple[str, ...]     #: subset of ("shoulder", "elbow", "wrist")
    distance: float               #: weighted joint distance to q_current [rad] (0 without it)
    limit_margin_rad: float       #: smallest distance of any joint to its nearest limit [rad]


class Piper:
    """The AgileX PiPER (6-DOF, spherical wrist, 21.98 mm elbow offset).

    The model is piper_sdk's modified DH (lengths in metres). By default the joint zeros of firmware
    S-V1.6-3 and later (piper_sdk ``dh_is_offset=1``); ``legacy_zero=True`` selects the zeros of
    older firmware (``dh_is_offset=0``: joint 2 and 3 offsets -174.22 and -100.78 deg). A wrong
    choice costs about 10 mm at the flange. Joint limits are piper_sdk's soft limits.

    Poses are the flange (DH frame 6, URDF ``link6``, the firmware's "end pose") in the base frame.
    """

    dof: int = 6
    ee_frame: str = "link6"

    def __init__(self, legacy_zero: bool = False) -> None:
        if not isinstance(legacy_zero, (bool, np.bool_)):
            raise ValueError(f"legacy_zero: expected True or False, got {legacy_zero!r}")
        self._arm = _core.Arm6.piper(bool(legacy_zero))
        self.legacy_zero = bool(legacy_zero)
        self.name = self._arm.name
        lower, upper = self._arm.lower, self._arm.upper
        lower.flags.writeable = False
        upper.flags.writeable = False
        #: joint limits [rad], shape (6,)
        self.lower: np.ndarray = lower
        self.upper: np.ndarray = upper
        #: a URDF shipped in the package whose chain equals this model (Pinocchio FK of
        #: ``ee_frame`` equals :meth:`fk` to 1e-12)
        self.urdf_path: Path = MODELS_DIR / ("piper_legacy_zero.urdf" if legacy_zero else "piper.urdf")

    def __repr__(self) -> str:
        return f"Piper(legacy_zero={self.legacy_zero})"

    @property
    def geometry(self) -> dict:
        """The model's constants: d1_m, a2_m, a3_m, d4_m, d6_m and theta_offset_rad (modified DH)."""
        return self._arm.geometry

    # -- kinematics ---------------------------------------------------------------------------

    def fk(self, q) -> np.ndarray:
        """Flange pose(s): q of shape (6,) -> (4, 4); (N, 6) -> (N, 4, 4). q in rad."""
        return self._arm.fk(q)

    def wrist_center(self, q) -> np.ndarray:
        """Wrist centre (intersection of axes 4-6) [m] for joint angles q (6,)."""
        return self._arm.wrist_center(q)

    def ik_all(self, T, seed=None) -> np.ndarray:
        """Every exact solution for the flange pose T, shape (k, 6), k in 0..8, no limit filtering.

        k = 0 when the pose is unreachable. ``seed`` (6,) supplies the joint a singular pose leaves
        free (q1 with the wrist centre on the base axis, q4 with q5 = 0); 0 without it.
        Every row reproduces T to <= 1e-9 m / rad (checked before it is returned).
        """
        return self._arm.ik_all(T, seed)

    def solutions(self, T, seed=None) -> List[Solution]:
        """Like :meth:`ik_all`, with branch, singularity, limit and residual information per row."""
        Q, flags, pos, rot = self._arm.solutions(T, seed)
        in_limits = _FLAGS["IN_LIMITS"]
        return [
            Solution(Q[i], int(f), _branch_name(int(f)), _singular_names(int(f)), bool(f & in_limits),
                     float(pos[i]), float(rot[i]))
            for i, f in enumerate(flags)
        ]

    def ik(self, T, q_current=None, *, weights=None, limit_margin: float = 0.0) -> np.ndarray:
        """The in-limit solution a controller should use, shape (6,).

        With ``q_current`` (6,): the one nearest to it in sum_i w_i (q_i - q_current_i)^2 (joints
        may be shifted by 2 pi where the limits allow). Without: the one with the largest distance
        to the joint limits. ``limit_margin`` [rad] rejects solutions closer than that to a limit.
        Raises :class:`NoSolutionError` (a ``ValueError``) saying why when there is none.
        """
        return self._arm.ik(T, q_current, weights, limit_margin)

    def select(self, T, q_current=None, *, weights=None, limit_margin: float = 0.0) -> Selection:
        """Like :meth:`ik`, returning a :class:`Selection` that says which branch was taken."""
        q, flags, index, distance, margin = self._arm.select(T, q_current, weights, limit_margin)
        return Selection(q, int(index), _branch_name(flags), _singular_names(flags), float(distance),
                         float(margin))

    def ik_batch(self, Ts, q_current=None, *, weights=None, limit_margin: float = 0.0,
                 return_status: bool = False):
        """:meth:`ik` for many poses: Ts (N, 4, 4) -> (Q (N, 6), ok (N,) bool).

        Rows of Q are NaN where ok is False (unreachable, or no solution within the limits).
        ``q_current`` may be (6,) for all poses or (N, 6), one per pose. The loop runs in C with
        the GIL released. With ``return_status=True`` also returns the C status per pose
        (0 ok, -1 unreachable, -2 none within limits). A malformed pose raises ``ValueError``
        naming its index.
        """
        Q, ok, status = self._arm.ik_batch(Ts, q_current, weights, limit_margin)
        return (Q, ok, status) if return_status else (Q, ok)
