"""Arm models: the public Python API (DESIGN.md section 2).

Each method converts and validates its arguments in the compiled core (so a single call costs well
under a microsecond), which raises ``ValueError`` naming the argument and the rule it broke.

Argument ranges (larger values are caller mistakes that would overflow the selection's arithmetic):
joint vectors (``q``, ``q_current``, ``q_start``, ``seed``) finite with |q| <= 1e3 rad; the arm angle
``psi`` finite with |psi| <= 1e6 rad (a chosen psi is always reported in [-pi, pi]); every
:class:`SelectOptions` value (penalties, margins, weights, step bounds) finite and in [0, 1e12]
(``max_step_rad``: 0 or inf for no bound, NaN refused). A string where a number is expected
(``psi``, ``limit_margin``) raises ``TypeError`` naming it.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np

from . import _core
from .poses import pose_from_xyz_rpy
from ._core import NoSolutionError
from .models import MODELS_DIR

_FLAGS = _core.FLAGS

#: Selection options (the C core's pik_select_options). Defaults: soft limit margin 2 deg
#: (penalty 1 per rad^2), singularity margin 0.05 (penalty 1), branch switch penalty 1 (only for
#: a discontinuous change: a step above continuous_step_rad = 0.1 rad), no step bound.
#: ``SelectOptions.nearest()`` turns every penalty off (pure nearest / largest limit margin).
SelectOptions = _core.SelectOptions


# passing an object is ~0.4 us faster than None through pybind11 (which matches None to an object
# argument only after a failed lookup of a foreign module's type on it, in both overload passes)
_DEFAULT_OPTIONS = SelectOptions()


def _number(value, name: str, unit: str) -> float:
    """A real number as float, else TypeError naming the argument (a string is not a number here)."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name}: expected a number [{unit}], got {type(value).__name__} {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a number [{unit}], got {type(value).__name__}") from None


def _options(options, weights, limit_margin: Optional[float]):
    """The SelectOptions for a call: ``options`` with ``weights`` / ``limit_margin`` folded in
    (None leaves the field of ``options``, or of the defaults, as it is)."""
    if options is not None and not isinstance(options, SelectOptions):
        raise TypeError(f"options: expected a piperik.SelectOptions, got {type(options).__name__}")
    if limit_margin is not None:
        limit_margin = _number(limit_margin, "limit_margin", "rad")
    base = _DEFAULT_OPTIONS if options is None else options
    if weights is None and limit_margin is None:
        return base
    return base.replace(weights=weights, limit_margin_rad=limit_margin)


def _readonly(values) -> np.ndarray:
    """A new float64 array of this instance alone that cannot be written to: a read-only view of a
    read-only private copy (so ``arr.flags.writeable = True`` raises instead of unlocking it)."""
    base = np.array(values, dtype=np.float64)
    base.flags.writeable = False
    view = base.view()
    view.flags.writeable = False
    return view


class BatchResult(tuple):
    """What ``ik_batch`` returns: it unpacks as ``Q, ok`` (the two-value form of earlier releases)
    and names everything the C loop reports:

    - ``q`` (N, dof): the chosen solutions [rad], NaN rows where not ``ok``;
    - ``ok`` (N,) bool;
    - ``status`` (N,) int: the C status per pose (0 ok, -1 unreachable, -2 none within the limits,
      -3 branch switch, -4 step above ``max_step_rad``; names in ``piperik._core.STATUS_CODE``);
    - ``psi`` (N,): the chosen arm angles [rad] of a 7-DOF arm (None for a 6-DOF arm).
    """

    def __new__(cls, q: np.ndarray, ok: np.ndarray, status: np.ndarray, psi: Optional[np.ndarray] = None):
        self = super().__new__(cls, (q, ok))
        self.status = status
        self.psi = psi
        return self

    @property
    def q(self) -> np.ndarray:
        return self[0]

    @property
    def ok(self) -> np.ndarray:
        return self[1]

    @classmethod
    def _from_core(cls, out) -> "BatchResult":
        return cls(out.q, out.ok, out.status, out.psi)

    def __repr__(self) -> str:
        return (f"BatchResult(n={len(self.ok)}, ok={int(np.count_nonzero(self.ok))}"
                + (", psi" if self.psi is not None else "") + ")")

    def __reduce__(self):
        return (type(self), (self.q, self.ok, self.status, self.psi))


@dataclass(frozen=True)
class PathResult:
    """What ``ik_path`` returns: the joint path and what the solver found along it.

    ``ik_path`` raises :class:`NoSolutionError` when a sample cannot be solved; the error's ``path``
    is then the PathResult with ``failed_index`` set and NaN rows from it on.
    """

    q: np.ndarray                 #: (N, dof) joint path [rad]; NaN rows from ``failed_index`` on
    status: int                   #: 0 (ok) or the C status of the failing sample (``piperik._core.STATUS_CODE``)
    reason: str                   #: ``status`` in words ("ok", "joint step larger than the bound", ...)
    failed_index: int             #: the first sample that could not be solved, -1 when every one was
    max_step_rad: float           #: largest joint step between consecutive solved samples [rad]
    max_step_joint: int           #: its joint (0-based), -1 for an empty path
    max_step_index: int           #: the sample that step leads to
    branch_changes: int           #: continuous branch-label changes (singularity crossings)
    min_singularity: float        #: smallest singularity measure along the solved part, 0..1
    psi: Optional[np.ndarray] = None  #: 7-DOF: (N,) the arm angle per sample [rad]; None for 6-DOF

    @classmethod
    def _from_core(cls, out) -> "PathResult":
        return cls(out.q, int(out.status), out.reason, int(out.failed_index), float(out.max_step_rad),
                   int(out.max_step_joint), int(out.max_step_index), int(out.branch_changes),
                   float(out.min_singularity), out.psi)

    @property
    def ok(self) -> bool:
        """True when every sample was solved."""
        return self.failed_index < 0

    def __repr__(self) -> str:
        return (f"PathResult(n={len(self.q)}, {self.reason if self.failed_index >= 0 else 'ok'}, "
                f"max_step_rad={self.max_step_rad:.4g}, branch_changes={self.branch_changes})")


def _branch_name(flags: int) -> str:
    """6R branch: shoulder front/back, elbow root A/B, wrist noflip/flip."""
    return "shoulder={} elbow={} wrist={}".format(
        "back" if flags & _FLAGS["SHOULDER_BACK"] else "front",
        "B" if flags & _FLAGS["ELBOW_B"] else "A",
        "flip" if flags & _FLAGS["WRIST_FLIP"] else "noflip",
    )


def _gc_name(flags: int) -> str:
    """S-R-S branch as the global configuration: signs of the canonical t2, t4, t6."""
    return "gc2={} gc4={} gc6={}".format(
        "-1" if flags & _FLAGS["SRS_GC2_NEG"] else "+1",
        "-1" if flags & _FLAGS["SRS_GC4_NEG"] else "+1",
        "-1" if flags & _FLAGS["SRS_GC6_NEG"] else "+1",
    )


def _singular_names(flags: int) -> Tuple[str, ...]:
    names = (("SING_SHOULDER", "shoulder"), ("SING_ELBOW", "elbow"), ("SING_WRIST", "wrist"),
             ("SING_REFERENCE", "reference"))
    return tuple(label for key, label in names if flags & _FLAGS[key])


@dataclass(frozen=True)
class Solution:
    """One exact IK solution with what the solver knows about it."""

    q: np.ndarray                 #: joint angles [rad], each in (-pi, pi]
    flags: int                    #: raw flag bits (piperik._core.FLAGS)
    branch: str                   #: e.g. "shoulder=front elbow=A wrist=noflip"
    singular: Tuple[str, ...]     #: subset of ("shoulder", "elbow", "wrist", 7-DOF also "reference")
    in_limits: bool               #: every joint within [lower, upper]
    pos_err_m: float              #: FK self-check: position residual [m]
    rot_err_rad: float            #: FK self-check: rotation residual [rad]


@dataclass(frozen=True)
class Selection:
    """The solution ``ik`` chose and why."""

    q: np.ndarray                 #: the chosen joint angles [rad]
    index: int                    #: 6-DOF: its row in ``ik_all(T)``; 7-DOF: the branch value 0..7
    branch: str                   #: e.g. "shoulder=front elbow=A wrist=noflip"
    singular: Tuple[str, ...]     #: subset of ("shoulder", "elbow", "wrist", 7-DOF also "reference")
    distance: float               #: weighted joint distance to q_current [rad] (0 without it)
    limit_margin_rad: float       #: smallest distance of any joint to its nearest limit [rad]
    psi: Optional[float] = None   #: 7-DOF: the chosen arm angle [rad]
    singularity: float = 1.0      #: the solution's singularity measure, 0 (singular) .. 1
    max_step_rad: float = 0.0     #: largest |q_i - q_current_i| [rad]
    max_step_joint: int = -1      #: its joint (0-based), -1 without q_current
    step_exceeded: bool = False   #: max_step_rad above options.max_step_rad (reported, not raised)
    branch_switched: bool = False #: a discontinuous change of branch against q_current
    search_cut: bool = False      #: 7-DOF: ``options.search_budget`` ended the search: q is its best, not proven nearest

    @classmethod
    def _from_core(cls, out, branch_name) -> "Selection":
        flags = int(out.flags)
        return cls(out.q, int(out.index), branch_name(flags), _singular_names(flags), float(out.distance),
                   float(out.limit_margin_rad), None if out.psi is None else float(out.psi), float(out.singularity),
                   float(out.max_step_rad), int(out.max_step_joint), bool(out.step_exceeded),
                   bool(out.branch_switched), bool(out.search_cut))


def _tool_matrix(tool) -> Optional[np.ndarray]:
    """The tool argument of the arm constructors: None, a 4x4 transform, or (x, y, z, roll, pitch,
    yaw) in metres and radians (R = Rz(yaw) Ry(pitch) Rx(roll), as :func:`pose_from_xyz_rpy`)."""
    if tool is None:
        return None
    if hasattr(tool, "homogeneous"):  # pinocchio.SE3
        tool = tool.homogeneous
    try:
        arr = np.asarray(tool, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"tool: expected a 4x4 transform or (x, y, z, roll, pitch, yaw), got {tool!r}") from None
    if arr.shape == (6,):
        if not np.all(np.isfinite(arr)):
            raise ValueError("tool: (x, y, z, roll, pitch, yaw) must be finite")
        return pose_from_xyz_rpy(arr[:3], arr[3:])
    if arr.shape != (4, 4):
        raise ValueError(f"tool: expected a 4x4 transform or (x, y, z, roll, pitch, yaw), got shape {arr.shape}")
    return arr


def tool_matrix(tool) -> Optional[np.ndarray]:
    """A tool argument (None, a 4x4 flange -> TCP transform, or (x, y, z, roll, pitch, yaw) [m, rad])
    as the 4x4 the arms would use, checked by the C core's rule for tools (finite, rotation
    orthonormal to 1e-12 with det +1, last row 0 0 0 1, offset at most 100 m): ``ValueError`` naming
    ``tool`` otherwise. None stays None (no tool). For code that sends a tool elsewhere (the
    firmware bridge) and must refuse exactly what the arms refuse."""
    T = _tool_matrix(tool)
    return None if T is None else _core.Arm6.piper(False).with_tool(T).tool


def _six(values, name: str, unit: str, limit: float, n: int = 6) -> np.ndarray:
    """n (6) finite numbers with |v| <= limit, else ValueError naming ``name`` and the rule."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected {n} numbers [{unit}], got {values!r}") from None
    if arr.shape != (n,):
        raise ValueError(f"{name}: expected {n} numbers [{unit}], got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(np.abs(arr) > limit):
        raise ValueError(f"{name}: every entry must be finite with |{name}| <= {limit:g} {unit}, got {arr.tolist()}")
    return arr


def _signs_mask(signs) -> int:
    """Joint signs (6 values, each +1 or -1; None: all +1) as the C model's reversed_joints bits."""
    if signs is None:
        return 0
    try:
        arr = np.asarray(signs, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"signs: expected 6 values, each +1 or -1, got {signs!r}") from None
    if arr.shape != (6,) or not np.all((arr == 1) | (arr == -1)):
        raise ValueError(f"signs: expected 6 values, each +1 or -1, got {np.asarray(signs).tolist()!r}")
    return sum(1 << i for i in range(6) if arr[i] < 0)


def _limits(lower, upper, default_lower, default_upper) -> Tuple[np.ndarray, np.ndarray]:
    n = len(default_lower)
    lo = np.array(default_lower if lower is None else _six(lower, "lower", "rad", 1e3, n), dtype=float)
    hi = np.array(default_upper if upper is None else _six(upper, "upper", "rad", 1e3, n), dtype=float)
    bad = np.nonzero(lo > hi)[0]
    if bad.size:
        j = int(bad[0])
        raise ValueError(f"lower, upper: joint {j + 1} has lower = {float(lo[j])!r} > upper = {float(hi[j])!r}")
    return lo, hi


def _lengths(pairs) -> dict:
    """Named lengths [m]: each a finite number with |v| <= 1e6 m, else ValueError naming it."""
    vals = {}
    for name, value in pairs:
        if isinstance(value, (str, bytes)) or np.ndim(value) != 0:
            raise ValueError(f"{name}: expected a number [m], got {value!r}")
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{name}: expected a number [m], got {value!r}") from None
        if not math.isfinite(v) or abs(v) > 1e6:
            raise ValueError(f"{name} = {v!r}: must be finite with |{name}| <= 1e6 m")
        vals[name] = v
    return vals


def _dh_table(dh, rows: int) -> np.ndarray:
    """A DH table of ``rows`` rows (d, a, alpha, theta_offset), finite, else ValueError naming ``dh``."""
    try:
        D = np.asarray(dh, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"dh: expected {rows} rows (d, a, alpha, theta_offset) of numbers, got {dh!r}") from None
    if D.shape != (rows, 4):
        raise ValueError(f"dh: expected {rows} rows (d, a, alpha, theta_offset), got shape {D.shape}")
    if not np.all(np.isfinite(D)):
        raise ValueError("dh: every entry must be finite")
    return D


def _frame(T, name: str) -> Optional[np.ndarray]:
    """A fixed frame argument: None or a 4x4 rigid transform (checked by the C core)."""
    if T is None:
        return None
    try:
        arr = np.asarray(T, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a 4x4 rigid transform, got {T!r}") from None
    if arr.shape != (4, 4):
        raise ValueError(f"{name}: expected a 4x4 rigid transform, got shape {arr.shape}")
    return arr


def _wrap(angle: float) -> float:
    """An angle in [-pi, pi)."""
    return float((angle + np.pi) % (2 * np.pi) - np.pi)


def _forwards(method):
    """Marks a method whose body only passes its arguments, under the same names, to the compiled
    model's method of the same name: :meth:`_Arm._set_arm` binds that one straight onto the instance."""
    method._forwards_to_core = True
    return method


class _Arm:
    """What every arm class shares: the compiled model (``_arm``), its per-instance read-only joint
    and timing limits, the tool (flange -> TCP), forward kinematics and the singularity measure.
    The subclasses add their inverse kinematics (:class:`Arm6`: 6R; :class:`_SrsArm`: 7-DOF S-R-S)."""

    dof: int = 0
    #: tools an arm class knows by name (``tool="name"``); none by default
    NAMED_TOOLS: dict = {}
    DEFAULT_MAX_VELOCITY: Tuple[float, ...] = ()
    DEFAULT_MAX_ACCELERATION: Tuple[float, ...] = ()

    def _set_arm(self, arm, tool, lower=None, upper=None) -> None:
        """Installs the compiled model ``arm``: ``lower`` / ``upper`` (dof,) replace its joint limits
        [rad] (None keeps the model's); ``tool`` is None, a 4x4 flange -> TCP transform,
        ``(x, y, z, roll, pitch, yaw)`` [m, rad] or a name in :attr:`NAMED_TOOLS`."""
        if lower is not None or upper is not None:
            arm = arm.with_limits(arm.lower if lower is None else lower, arm.upper if upper is None else upper)
        if isinstance(tool, str):
            if tool not in self.NAMED_TOOLS:
                raise ValueError(f"tool: {tool!r} is not a named tool of {type(self).__name__} "
                                 f"(named: {sorted(self.NAMED_TOOLS) or 'none'}); give a 4x4 or (x, y, z, roll, pitch, yaw)")
            tool = self.NAMED_TOOLS[tool]
        tool_T = _tool_matrix(tool)
        if tool_T is not None:
            arm = arm.with_tool(tool_T)
        self._arm = arm
        # The methods that only forward (@_forwards) are bound straight to the compiled model on the
        # instance, unless a subclass overrides them: a call then runs no Python frame, which was
        # 10-20 % of an ik_all call (issue 10). The class's methods stay for help() and the docs;
        # with_tool's copy gets its own model's methods here.
        cls = type(self)
        for name in dir(cls):
            if getattr(getattr(cls, name, None), "_forwards_to_core", False):
                setattr(self, name, getattr(arm, name))
        self.name = arm.name
        #: joint limits [rad], shape (dof,); per instance and read-only (the solver uses its own copy)
        self.lower: np.ndarray = _readonly(arm.lower)
        self.upper: np.ndarray = _readonly(arm.upper)
        #: timing limits [rad/s], [rad/s^2], shape (dof,), per instance and read-only
        #: (for other limits pass your own arrays to ``time_parameterize``)
        self.max_velocity: np.ndarray = _readonly(self.DEFAULT_MAX_VELOCITY)
        self.max_acceleration: np.ndarray = _readonly(self.DEFAULT_MAX_ACCELERATION)

    #: :func:`piperik.from_urdf` arms: how the URDF relates to its class (a ClassFit), else None
    class_fit = None
    #: largest FK difference [m], [rad] of the class model from the arm's description (0: exact)
    class_distance: Tuple[float, float] = (0.0, 0.0)

    @property
    def polished(self) -> bool:
        """True for an arm only near its closed-form class (:func:`piperik.from_urdf`): every
        solution is Newton-polished in the C core onto the description's own kinematics (flag
        ``polished``), and one that does not converge is dropped."""
        return bool(self._arm.polished)

    @property
    def tool(self) -> np.ndarray:
        """The flange -> TCP transform (4, 4); the identity without a tool. A copy."""
        return self._arm.tool

    def with_tool(self, tool):
        """A new arm like this one (same model and limits) whose poses are those of ``tool`` (4x4,
        x, y, z, r, p, y, or a name in :attr:`NAMED_TOOLS`; None: the flange)."""
        out = copy.copy(self)
        out._set_arm(self._arm.with_tool(None), tool)
        return out

    @property
    def geometry(self) -> dict:
        """The model's constants: for :class:`Arm6` d1_m, a1_m, a2_m, a3_m, b_m, d4_m, d6_m,
        theta_offset_rad and signs (modified DH, theta_i = signs[i] q_i + theta_offset_rad[i]); for
        the 7-DOF arms the canonical S-R-S d_bs_m, d_se_m, d_ew_m, d_wf_m, sign, offset_rad, T_base,
        T_flange."""
        return self._arm.geometry

    @_forwards
    def fk(self, q) -> np.ndarray:
        """Flange (or, with a tool, TCP) pose(s): q (dof,) -> (4, 4); (N, dof) -> (N, 4, 4). q in rad."""
        return self._arm.fk(q)

    @_forwards
    def singularity(self, q) -> float:
        """Singularity measure of q (dof,), 0 at a singularity: for :class:`Arm6` min(|sin t5|,
        |cos(t3 + phi)|, wrist-centre radius / reach); for the 7-DOF arms min(|sin t2|, |sin t4|,
        |sin t6|) (canonical angles)."""
        return self._arm.singularity(q)


class Arm6(_Arm):
    """A 6-DOF arm with a spherical wrist of the ortho-parallel-basis (OPW) class: the AgileX PiPER
    (:class:`Piper`) and most industrial 6R arms (KUKA KR, ABB IRB, FANUC, Staeubli, Yaskawa, ...).

    Build one with :meth:`from_opw` (the OPW parameters a1, a2, b, c1..c4, joint offsets and signs
    of Brandstoetter, Angerer, Hofbaur 2014, as ROS-Industrial's ``opw_kinematics`` publishes them)
    or :meth:`from_dh` (a modified-DH table of the PiPER's layout, with a shoulder offset a1 and a
    lateral offset b allowed). Every arm of the class has up to 8 exact solutions per pose, from the
    one closed-form solver of the C core (the same singular handling, flags, selection and paths as
    the PiPER). Arms outside the class (an offset wrist, axes 2 and 3 not parallel, ...) are
    refused with a ``ValueError`` naming the violated condition.

    Poses are the flange's (OPW: the frame after ``Tz(c4)``, ROS-Industrial's ``tool0``) in the
    base frame, or, with ``tool``, the tool centre point's, exactly as for :class:`Piper`.
    """

    dof: int = 6
    ee_frame: str = ""
    #: default timing limits [rad/s], [rad/s^2] (the PiPER firmware's; for another arm pass your
    #: own arrays to ``time_parameterize``)
    DEFAULT_MAX_VELOCITY: Tuple[float, ...] = (3.0,) * 6
    DEFAULT_MAX_ACCELERATION: Tuple[float, ...] = (5.0,) * 6
    #: Craig modified-DH twists of the layout (row i: Rx(alpha) Tx(a) Rz(s q + offset) Tz(d))
    DH_ALPHA_RAD: Tuple[float, ...] = (0.0, -np.pi / 2, 0.0, np.pi / 2, -np.pi / 2, np.pi / 2)
    #: default joint limits of :meth:`from_opw` / :meth:`Arm6.from_dh`: none (every solution,
    #: each joint in [-pi, pi], is admissible)
    _DEFAULT_LOWER: Tuple[float, ...] = (-np.pi,) * 6
    _DEFAULT_UPPER: Tuple[float, ...] = (np.pi,) * 6

    def __init__(self) -> None:
        raise TypeError("Arm6: build one with Arm6.from_opw(...) or Arm6.from_dh(...), or use piperik.Piper()")

    @classmethod
    def _from_core(cls, arm, tool, description: str):
        out = cls.__new__(cls)
        if isinstance(out, Piper):
            out.legacy_zero = False
            out.variant = "custom"
        out._set_arm(arm, tool)
        #: a URDF shipped in the package whose chain equals this model; None for a built model
        out.urdf_path = None
        out._description = description
        return out

    @classmethod
    def from_opw(cls, *, a1: float, a2: float, b: float, c1: float, c2: float, c3: float, c4: float,
                 offsets_rad=None, signs=None, lower=None, upper=None, tool=None, T_base=None,
                 T_flange=None) -> "Arm6":
        """An arm of the OPW class from its parameters [m, rad] (``opw_kinematics`` convention).

        Forward kinematics, with t_i = signs[i] * q_i - offsets_rad[i]::

            T = Rz(t1) Tz(c1) T(a1, b, 0) Ry(t2) Tz(c2) Ry(t3) T(a2, 0, c3) Rz(t4) Ry(t5) Rz(t6) Tz(c4)

        ``a1``: shoulder offset (axis 1 to axis 2, radially), ``a2``: elbow offset (axis 3 to the
        forearm), ``b``: lateral offset (along axis 2), ``c1``: base height of axis 2, ``c2``: upper
        arm (> 0), ``c3``: forearm (axis 3 to the wrist centre), ``c4``: wrist centre to flange.
        ``offsets_rad`` (6, default zeros) and ``signs`` (6 values +1 / -1, default all +1) map the
        arm's joint angles q to the model's. ``lower`` / ``upper``: joint limits [rad] (default
        +-pi: none). ``tool``: as in :class:`Piper`. ``T_base`` / ``T_flange`` (4x4, default
        none): a description's own frames, poses = ``T_base @ T_opw(q) @ T_flange`` (what
        :func:`piperik.from_urdf` fits). Rules, each a ``ValueError`` naming the
        argument: every number finite with |.| <= 1e6 m (offsets and limits <= 1e3 rad), ``c2 > 0``,
        ``a2`` and ``c3`` not both 0 (the wrist centre would lie on axis 3), ``c2 !=
        sqrt(a2^2 + c3^2)`` (the wrist centre could fold onto axis 2), ``lower <= upper``.

        Example, the KUKA KR 6 R700 sixx (ROS-Industrial's opw_kinematics parameters)::

            arm = piperik.Arm6.from_opw(a1=0.025, a2=-0.035, b=0.0, c1=0.400, c2=0.315, c3=0.365,
                                        c4=0.080, offsets_rad=[0, -np.pi / 2, 0, 0, 0, 0],
                                        signs=[-1, 1, 1, -1, 1, -1])
        """
        vals = _lengths((("a1", a1), ("a2", a2), ("b", b), ("c1", c1), ("c2", c2), ("c3", c3), ("c4", c4)))
        if not vals["c2"] > 0:
            raise ValueError(f"c2 = {vals['c2']!r}: the upper arm (axis 2 to axis 3) must be longer than 0")
        forearm = math.hypot(vals["a2"], vals["c3"])
        if not forearm > 1e-9:
            raise ValueError("a2, c3: must not both be 0 (the wrist centre would lie on axis 3, which would not move it)")
        if abs(vals["c2"] - forearm) < 1e-9:
            raise ValueError(f"c2 = {vals['c2']!r} equals sqrt(a2^2 + c3^2): the wrist centre could fold onto axis 2 "
                             "(q2 undetermined), outside the solver's class")
        offsets = np.zeros(6) if offsets_rad is None else _six(offsets_rad, "offsets_rad", "rad", 1e3)
        reversed_joints = _signs_mask(signs)
        lo, hi = _limits(lower, upper, cls._DEFAULT_LOWER, cls._DEFAULT_UPPER)
        # the model's modified DH (pik_arm6.h): theta = s q + theta_offset, t2 = theta2 + pi/2, t3 = theta3 - pi/2
        theta_offset = -offsets + np.array([0.0, -np.pi / 2, np.pi / 2, 0.0, 0.0, 0.0])
        arm = _core.Arm6.from_params(vals["c1"], vals["c2"], vals["a2"], vals["c3"], vals["c4"], theta_offset, lo, hi,
                                     a1_m=vals["a1"], b_m=vals["b"], reversed_joints=reversed_joints,
                                     T_base=_frame(T_base, "T_base"), T_flange=_frame(T_flange, "T_flange"))
        sig = [-1 if reversed_joints >> i & 1 else 1 for i in range(6)]
        desc = (f"{cls.__name__}.from_opw(a1={vals['a1']!r}, a2={vals['a2']!r}, b={vals['b']!r}, c1={vals['c1']!r}, "
                f"c2={vals['c2']!r}, c3={vals['c3']!r}, c4={vals['c4']!r}, offsets_rad={offsets.tolist()!r}, "
                f"signs={sig!r}")
        return cls._from_core(arm, tool, desc)

    @classmethod
    def from_dh(cls, dh, *, signs=None, lower=None, upper=None, tool=None) -> "Arm6":
        """An arm of the OPW class from its modified-DH table: calibrated lengths or joint zeros of
        your unit, or another arm of that shape.

        ``dh``: 6 rows ``(d, a, alpha, theta_offset)`` [m, rad], link transform ``Rx(alpha) Tx(a)
        Rz(s q + theta_offset) Tz(d)`` (the layout of AgileX's ``ROBOT_MDH_PRESET`` and of
        piper_sdk): alphas (0, -pi/2, 0, pi/2, -pi/2, pi/2); ``a`` free in row 2 (the shoulder
        offset, OPW a1), 3 (upper arm, > 0) and 4 (elbow offset), zero in rows 1, 5 and 6; ``d``
        free in rows 1 (base height), 2 and 3 (their sum is the lateral offset, OPW b), 4 (forearm)
        and 6 (flange), zero in row 5. A table of another shape is refused with a ``ValueError``
        naming the entry and the rule (an offset wrist, e.g. the PiPER X, is outside the class).
        ``signs``: 6 values +1 / -1 (s, default all +1). ``lower`` / ``upper``: joint limits [rad]
        (default: :class:`Arm6` none, :class:`Piper` the PiPER's). ``tool``: as in :class:`Piper`.
        """
        D = _dh_table(dh, 6)
        tol = 1e-9
        for i in range(6):
            d, a, alpha = (float(v) for v in D[i, :3])
            if abs(alpha - cls.DH_ALPHA_RAD[i]) > tol:
                raise ValueError(f"dh[{i}].alpha = {alpha!r}: the PiPER layout needs {cls.DH_ALPHA_RAD[i]!r} "
                                 "(alphas 0, -pi/2, 0, pi/2, -pi/2, pi/2; for another convention use Arm6.from_opw)")
            if i == 0 and abs(a) > tol:
                raise ValueError(f"dh[0].a = {a!r}: axis 1 must pass through the base origin (a base offset is "
                                 "outside the OPW class; the shoulder offset OPW a1 is dh[1].a)")
            if i in (4, 5) and abs(a) > tol:
                raise ValueError(f"dh[{i}].a = {a!r}: an offset wrist is outside the spherical-wrist class; "
                                 "rows 5 and 6 need a = 0")
            if i == 4 and abs(d) > tol:
                raise ValueError(f"dh[{i}].d = {d!r}: the wrist axes must meet (row 5 needs d = 0)")
        reversed_joints = _signs_mask(signs)
        lo, hi = _limits(lower, upper, cls._DEFAULT_LOWER, cls._DEFAULT_UPPER)
        arm = _core.Arm6.from_params(D[0, 0], D[2, 1], D[3, 1], D[3, 0], D[5, 0], D[:, 3], lo, hi,
                                     a1_m=D[1, 1], b_m=D[1, 0] + D[2, 0], reversed_joints=reversed_joints)
        out = cls._from_core(arm, tool, f"{cls.__name__}.from_dh({D.tolist()!r}"
                                 + (f", signs={np.asarray(signs).tolist()!r}" if signs is not None else ""))
        out._dh = D.copy()
        return out

    def __repr__(self) -> str:
        tool = f", tool={self.tool.tolist()}" if self._arm.has_tool else ""
        return f"{self._description}{tool})"

    @property
    def opw(self) -> dict:
        """The model as OPW parameters (keywords of :meth:`from_opw`): a1, a2, b, c1, c2, c3, c4 [m],
        offsets_rad (each in [-pi, pi)) and signs. ``Arm6.from_opw(**arm.opw)`` is the same arm."""
        g = self.geometry
        off = g["theta_offset_rad"]
        return {"a1": g["a1_m"], "a2": g["a3_m"], "b": g["b_m"], "c1": g["d1_m"], "c2": g["a2_m"], "c3": g["d4_m"],
                "c4": g["d6_m"],
                "offsets_rad": [_wrap(-off[0]), _wrap(-off[1] - np.pi / 2), _wrap(-off[2] + np.pi / 2),
                                _wrap(-off[3]), _wrap(-off[4]), _wrap(-off[5])],
                "signs": list(g["signs"])}

    # -- kinematics ---------------------------------------------------------------------------

    @_forwards
    def wrist_center(self, q) -> np.ndarray:
        """Wrist centre (intersection of axes 4-6) [m] for joint angles q (6,)."""
        return self._arm.wrist_center(q)

    @_forwards
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

    def ik(self, T, q_current=None, *, weights=None, limit_margin: Optional[float] = None,
           options: Optional[SelectOptions] = None) -> np.ndarray:
        """The in-limit solution a controller should use, shape (6,).

        With ``q_current`` (6,): the one nearest to it in sum_i w_i (q_i - q_current_i)^2 (joints
        may be shifted by 2 pi where the limits allow) plus the penalties of ``options``
        (:class:`SelectOptions`: soft limit margin, singularity margin, branch switch). Without:
        the one with the largest distance to the joint limits. ``limit_margin`` [rad] (default:
        ``options.limit_margin_rad``, 0) rejects solutions closer than that to a limit. Raises
        :class:`NoSolutionError` (a ``ValueError``)
        saying why when there is none, or when the step exceeds ``options.max_step_rad``.
        """
        if options is None and weights is None and limit_margin is None:
            return self._arm.ik(T, q_current, _DEFAULT_OPTIONS)  # the control-loop call: nothing to fold
        return self._arm.ik(T, q_current, _options(options, weights, limit_margin))

    def select(self, T, q_current=None, *, weights=None, limit_margin: Optional[float] = None,
               options: Optional[SelectOptions] = None) -> Selection:
        """Like :meth:`ik`, returning a :class:`Selection` that says which branch was taken, its
        margins, and whether the step exceeds ``options.max_step_rad`` (reported, not raised)."""
        return Selection._from_core(self._arm.select(T, q_current, _options(options, weights, limit_margin)),
                                    _branch_name)

    def ik_path(self, Ts, q_start, *, max_step_rad: float = 0.25, keep_branch: bool = True,
                options: Optional[SelectOptions] = None) -> "PathResult":
        """Joint path for the poses Ts (N, 4, 4), starting from q_start (6,): a :class:`PathResult`
        (``.q`` (N, 6), the largest step, branch changes, singularity margin).

        Each sample is the selection nearest the previous one (``options``), so the path keeps its
        branch; a branch label may change only continuously (through a singularity: at q5 = 0 the
        path holds q4 and moves q6). Raises :class:`NoSolutionError` naming the first sample that
        cannot be reached and why: unreachable, outside the limits, a branch switch, or a joint step
        above ``max_step_rad`` (``np.inf``: no bound); its ``path`` is the partial result. The loop
        runs in C.
        """
        return _solved_path(self._path(Ts, q_start, max_step_rad, keep_branch, options))

    def _path(self, Ts, q_start, max_step_rad, keep_branch, options, global_search=True) -> "PathResult":
        # global_search is the 7-DOF arm-angle search; a 6R arm has no self-motion to search over
        return PathResult._from_core(self._arm.path(Ts, q_start, _options(options, None, None),
                                                    float(max_step_rad), bool(keep_branch)))

    def ik_batch(self, Ts, q_current=None, *, weights=None, limit_margin: Optional[float] = None,
                 options: Optional[SelectOptions] = None) -> BatchResult:
        """:meth:`ik` for many poses: Ts (N, 4, 4) -> a :class:`BatchResult` (unpacks as ``Q, ok``:
        Q (N, 6), ok (N,) bool; ``.status`` per pose: 0 ok, -1 unreachable, -2 none within limits,
        -3 branch switch, -4 step too large).

        Rows of Q are NaN where ok is False (unreachable, no solution within the limits, or a step
        above ``options.max_step_rad``). ``q_current`` may be (6,) for all poses or (N, 6), one per
        pose. The loop runs in C with the GIL released. A malformed pose raises ``ValueError``
        naming its index.
        """
        return BatchResult._from_core(self._arm.ik_batch(Ts, q_current, _options(options, weights, limit_margin)))



class Piper(Arm6):
    """The AgileX PiPER (6-DOF, spherical wrist, 21.98 mm elbow offset): a preset of :class:`Arm6`.

    The model is piper_sdk's modified DH (lengths in metres). By default the joint zeros of firmware
    S-V1.6-3 and later (piper_sdk ``dh_is_offset=1``); ``legacy_zero=True`` selects the zeros of
    older firmware (``dh_is_offset=0``: joint 2 and 3 offsets -174.22 and -100.78 deg). A wrong
    choice costs about 10 mm at the flange. Joint limits are piper_sdk's soft limits.
    ``variant="h"`` / ``"l"``: the PiPER H / PiPER L (AgileX's firmware tables: the same layout with
    a longer forearm and flange (H) or upper arm and forearm (L)); the PiPER X has an offset wrist and
    is refused. :meth:`from_dh` builds one from a modified-DH table (calibrated lengths), as a
    ``Piper`` with the PiPER's limits by default; :meth:`Arm6.from_opw` from OPW parameters.
    ``lower`` / ``upper`` (6,) replace the joint limits [rad] (each may be None: the model's), as for
    the 7-DOF arms.

    Poses are the flange (DH frame 6, URDF ``link6``, the firmware's "end pose") in the base frame,
    or, with ``tool`` (a 4x4 flange -> TCP transform or ``(x, y, z, roll, pitch, yaw)`` [m, rad]),
    the tool centre point's: :meth:`fk` returns it and every IK entry point takes it, composed with
    the tool exactly in the C core. Example, AgileX's parallel gripper (its SDK demo's TCP, 0.145 m
    along the flange z; measure your own): ``Piper(tool=(0, 0, 0.145, 0, 0, 0))``.
    """

    ee_frame: str = "link6"
    #: default timing limits: the firmware's maximum joint speed (3 rad/s) and acceleration (5 rad/s^2);
    #: each instance has its own read-only copies as ``max_velocity`` / ``max_acceleration``
    DEFAULT_MAX_VELOCITY: Tuple[float, ...] = (3.0,) * 6
    DEFAULT_MAX_ACCELERATION: Tuple[float, ...] = (5.0,) * 6
    #: the default limits of :meth:`from_dh` / :meth:`from_opw` on Piper: piper_sdk's soft limits
    _DEFAULT_LOWER: Tuple[float, ...] = tuple(_core.Arm6.piper(False).lower)
    _DEFAULT_UPPER: Tuple[float, ...] = tuple(_core.Arm6.piper(False).upper)

    #: the AgileX arms of the PiPER's layout (spherical wrist): variant -> (core factory, URDF)
    _VARIANTS = {"h": ("piper_h", "piper_h.urdf"), "l": ("piper_l", "piper_l.urdf")}

    def __init__(self, legacy_zero: bool = False, *, variant: Optional[str] = None, lower=None, upper=None,
                 tool=None) -> None:
        if not isinstance(legacy_zero, (bool, np.bool_)):
            raise ValueError(f"legacy_zero: expected True or False, got {legacy_zero!r}")
        if variant is None:
            arm = _core.Arm6.piper(bool(legacy_zero))
            urdf = "piper_legacy_zero.urdf" if legacy_zero else "piper.urdf"
        elif isinstance(variant, str) and variant.lower() in self._VARIANTS:
            if legacy_zero:
                raise ValueError("legacy_zero: the old joint zeros exist for the original PiPER only, not variant "
                                 f"{variant!r}")
            factory, urdf = self._VARIANTS[variant.lower()]
            arm = getattr(_core.Arm6, factory)()
        elif isinstance(variant, str) and variant.lower() == "x":
            raise ValueError("variant: the PiPER X has an offset wrist (its last three axes do not meet: a4 = "
                             "0.27364 m, a5 = 0.07466 m, d6 = 0.03526 m in AgileX's table), outside the "
                             "spherical-wrist class piperik solves in closed form")
        else:
            raise ValueError(f"variant: expected None (the PiPER), 'h' (PiPER H) or 'l' (PiPER L), got {variant!r}")
        self.legacy_zero = bool(legacy_zero)
        #: None (the PiPER), "h" or "l", or "custom" for :meth:`from_dh` / :meth:`from_opw`
        self.variant = None if variant is None else variant.lower()
        self._set_arm(arm, tool, lower, upper)
        #: a URDF shipped in the package whose chain equals this model (Pinocchio FK of
        #: ``ee_frame`` equals :meth:`fk` to 1e-12); None for a model from :meth:`from_dh`
        self.urdf_path: Optional[Path] = MODELS_DIR / urdf

    @classmethod
    def from_dh(cls, dh, *, signs=None, lower=None, upper=None, tool=None) -> "Piper":
        """:meth:`Arm6.from_dh` as a ``Piper`` (``variant == "custom"``): a calibrated PiPER, or
        another arm of its layout; default limits the PiPER's. See :meth:`Arm6.from_dh` for the
        table's rules."""
        return super().from_dh(dh, signs=signs, lower=lower, upper=upper, tool=tool)

    def __repr__(self) -> str:
        if self.variant == "custom":
            return super().__repr__()
        tool = f", tool={self.tool.tolist()}" if self._arm.has_tool else ""
        variant = f", variant={self.variant!r}" if self.variant else ""
        return f"Piper(legacy_zero={self.legacy_zero}{variant}{tool})"


_PSI_POLICIES = _core.PSI_POLICIES
_NEAREST = _PSI_POLICIES["nearest"]


def _no_solution(message: str, status: Optional[int]) -> NoSolutionError:
    """A NoSolutionError carrying the core's status (as the ones the C++ layer raises)."""
    err = NoSolutionError(message)
    err.status = None if status is None else int(status)
    return err


def _solved_path(path: PathResult) -> PathResult:
    """The path, or NoSolutionError naming the first sample that failed (with ``.path`` = the partial
    result)."""
    i = path.failed_index
    if i >= 0:
        err = _no_solution(f"sample {i} of {len(path.q)}: {path.reason}"
                           + (f" (largest step so far {path.max_step_rad:.3g} rad)" if i > 0 else ""), path.status)
        err.path = path
        raise err
    return path


class _SrsArm(_Arm):
    """A 7-DOF S-R-S arm (spherical shoulder, elbow, spherical wrist), solved through the arm angle.

    The arm angle psi [rad] turns the shoulder-elbow-wrist plane about the shoulder->wrist line; it
    is measured from the plane the same arm would have with its third (canonical) joint at zero.
    For each pose and psi there are up to 8 solutions: the signs of the canonical joints 2, 4 and 6
    ("global configuration" gc2, gc4, gc6, reported as the branch). When the wrist centre lies on
    the base axis the reference plane's azimuth is fixed to 0 (flag "reference").

    ``lower`` / ``upper`` (7,) replace the joint limits [rad]; ``tool`` (a 4x4 flange -> TCP
    transform or ``(x, y, z, roll, pitch, yaw)`` [m, rad]) makes every pose the tool centre
    point's: :meth:`fk` returns it and every IK entry point (``ik_all``, ``ik``, ``select``,
    ``ik_batch``, ``ik_path``, ``feasible_arm_angles``, ``plan_cartesian``) takes it, composed with
    the tool exactly in the C core.
    """

    dof: int = 7
    ee_frame: str = ""
    _urdf_name: str = ""
    _factory = None

    def __init__(self, lower=None, upper=None, *, tool=None) -> None:
        self._set_arm(type(self)._factory(), tool, lower, upper)
        #: a URDF shipped in the package whose chain equals the model
        self.urdf_path: Path = MODELS_DIR / self._urdf_name

    def __repr__(self) -> str:
        tool = f"tool={self.tool.tolist()}" if self._arm.has_tool else ""
        return f"{type(self).__name__}({tool})"

    @_forwards
    def arm_angle(self, q):
        """The arm angle psi [rad] of a configuration (7,) (or (N, 7) -> (N,)): ik_all(fk(q), psi) contains q."""
        return self._arm.arm_angle(q)

    @_forwards
    def ik_all(self, T, psi: float, seed=None) -> np.ndarray:
        """Every exact solution for pose T at arm angle psi [rad], shape (k, 7), k <= 8, no limit filtering.

        ``seed`` (7,) supplies q1 at a shoulder singularity and q5 at a wrist singularity (else 0).
        Every row reproduces T to <= 1e-9 m / rad (checked before it is returned).
        """
        return self._arm.ik_all(T, psi, seed)

    def solutions(self, T, psi: float, seed=None) -> List[Solution]:
        """Like :meth:`ik_all`, with branch (gc2, gc4, gc6), singularity, limit and residual per row."""
        Q, flags, pos, rot = self._arm.solutions(T, psi, seed)
        in_limits = _FLAGS["IN_LIMITS"]
        return [
            Solution(Q[i], int(f), _gc_name(int(f)), _singular_names(int(f)), bool(f & in_limits),
                     float(pos[i]), float(rot[i]))
            for i, f in enumerate(flags)
        ]

    @_forwards
    def feasible_arm_angles(self, T, per_branch: bool = False):
        """Arm-angle intervals [(lo, hi), ...] in [-pi, pi] where a solution within the joint limits exists.

        Closed form: the psi at which a joint meets a limit are roots of a sin(psi) + b cos(psi) + c = 0;
        each piece between them is tested once. A 1e-6 rad neighbourhood of a shoulder/wrist
        singularity is excluded. Intervals touching -pi and pi join there. With ``per_branch=True``
        returns ``(union, {branch_value: intervals})``, branch_value = gc2<0 | gc4<0 << 1 | gc6<0 << 2.
        """
        return self._arm.feasible_arm_angles(T, per_branch)

    def _policy(self, psi, policy: Optional[str]) -> int:
        if psi is not None:
            if policy not in (None, "given"):
                raise ValueError(f"policy: {policy!r} conflicts with a given psi")
            return _PSI_POLICIES["given"]
        name = "nearest" if policy is None else policy
        if name not in _PSI_POLICIES or name == "given":
            raise ValueError(f"policy: expected one of 'nearest', 'widest', 'max_margin', got {policy!r}")
        return _PSI_POLICIES[name]

    def ik(self, T, q_current=None, *, psi: Optional[float] = None, policy: Optional[str] = None,
           weights=None, limit_margin: Optional[float] = None, options: Optional[SelectOptions] = None) -> np.ndarray:
        """The in-limit solution a controller should use, shape (7,); chooses psi and the branch.

        Default policy "nearest": the solution nearest ``q_current`` (weighted squared joint distance)
        over every feasible arm angle and branch; without ``q_current`` it becomes "widest": the centre
        of the widest feasible arm-angle interval. "max_margin": the feasible psi whose solution is
        farthest from the joint limits. ``psi=...``: that arm angle, choosing only the branch.
        ``options`` (:class:`SelectOptions`) adds the penalties of the 6-DOF selection to the cost
        minimised over psi. Raises :class:`NoSolutionError` (a ``ValueError``) with the reason when
        there is none. The nearest choice costs more the farther ``q_current`` is from the pose's
        solutions (in one run about 4x a control step with ``q_current`` 0.3 rad per joint away, 17-18x
        with an unrelated one): plan a far target with :meth:`ik_path` / ``plan_cartesian``.
        """
        if psi is None and policy is None and options is None and weights is None and limit_margin is None:
            # the control-loop call ik(T, q_current): no argument to check or fold
            return self._arm.ik(T, q_current, _NEAREST, None, _DEFAULT_OPTIONS)
        return self._arm.ik(T, q_current, self._policy(psi, policy), psi, _options(options, weights, limit_margin))

    def select(self, T, q_current=None, *, psi: Optional[float] = None, policy: Optional[str] = None,
               weights=None, limit_margin: Optional[float] = None, options: Optional[SelectOptions] = None) -> Selection:
        """Like :meth:`ik`, returning a :class:`Selection` with the branch and the chosen psi."""
        return Selection._from_core(self._arm.select(T, q_current, self._policy(psi, policy), psi,
                                                     _options(options, weights, limit_margin)), _gc_name)

    def ik_path(self, Ts, q_start, *, max_step_rad: float = 0.25, keep_branch: bool = True,
                options: Optional[SelectOptions] = None) -> PathResult:
        """Joint path for the poses Ts (N, 4, 4) from q_start (7,): a :class:`PathResult` (``.q`` (N, 7),
        ``.psi`` (N,) the arm angle per sample). Each sample's arm angle and
        branch are first chosen nearest the previous solution; where that fails or one step is more
        than 3x the mean step (2x where the path passes near a singularity; a branch point: q2, q4 or q6 through 0), a global search over the arm
        angles and branches of every sample takes the path with the smallest largest step, so a
        continuous in-limit path is found where one exists (0.5-3 s for hundreds of samples; the
        common case never runs it). Same rules and errors as the 6-DOF :meth:`Arm6.ik_path`."""
        return _solved_path(self._path(Ts, q_start, max_step_rad, keep_branch, options))

    def _path(self, Ts, q_start, max_step_rad, keep_branch, options, global_search=True) -> PathResult:
        return PathResult._from_core(self._arm.path(Ts, q_start, _options(options, None, None), float(max_step_rad),
                                                    bool(keep_branch), bool(global_search)))

    def ik_batch(self, Ts, q_current=None, *, psi=None, policy: Optional[str] = None, weights=None,
                 limit_margin: Optional[float] = None, options: Optional[SelectOptions] = None) -> BatchResult:
        """:meth:`ik` for many poses: Ts (N, 4, 4) -> a :class:`BatchResult` (unpacks as ``Q, ok``:
        Q (N, 7), rows NaN where not ok; ``.status`` and the chosen ``.psi`` per pose).

        ``q_current`` (7,) or (N, 7); ``psi`` a number or (N,) to fix the arm angle. The loop runs in
        C with the GIL released. Status per pose: 0 ok, -1 unreachable, -2 none within limits, -3
        branch switch, -4 step too large (names in ``piperik._core.STATUS_CODE``).
        """
        return BatchResult._from_core(self._arm.ik_batch(Ts, q_current, self._policy(psi, policy), psi,
                                                         _options(options, weights, limit_margin)))


class Nero(_SrsArm):
    """The AgileX NERO (7-DOF S-R-S): AgileX's open_nero URDF joints with pi/2 and pi exact.

    Flange: the one the NERO firmware and SDK report (``link7`` of AgileX's current description and
    its firmware table), 0.0235 m past the wrist centre along joint 7's axis, with the last joint
    frame's axes. open_nero's older ``gripper_flange`` (0.032 m from the wrist centre, permuted axes)
    is the named tool ``Nero(tool="gripper_flange")``. Joint limits: the URDF's (= pyAgxArm configs/nero.json); pass ``lower=``/``upper=``
    for others, e.g. ``Nero(*Nero.PYAGXARM_DOC_LIMITS)``. The wrist is singular at q6 = +-pi/2,
    outside its limits.
    """

    ee_frame = "flange"
    _urdf_name = "nero.urdf"
    #: tools by name (flange -> frame): open_nero's gripper_flange, piperik's NERO flange before 0.2
    NAMED_TOOLS = {"gripper_flange": np.array([[0.0, 0.0, 1.0, 0.032], [-1.0, 0.0, 0.0, 0.0],
                                               [0.0, -1.0, 0.0, -0.0235], [0.0, 0.0, 0.0, 1.0]])}
    #: default timing limits: AgileX publishes none for the NERO (its URDF's 5 rad/s is a
    #: placeholder); the PiPER firmware's 3 rad/s and 5 rad/s^2 are used
    DEFAULT_MAX_VELOCITY: Tuple[float, ...] = (3.0,) * 7
    DEFAULT_MAX_ACCELERATION: Tuple[float, ...] = (5.0,) * 7
    _factory = staticmethod(_core.Arm7.nero)
    #: the more precise limits of pyAgxArm's docs/nero/nero_api.md, as (lower, upper) [rad]
    PYAGXARM_DOC_LIMITS = (
        np.array([-2.705261, -1.745330, -2.757621, -1.012291, -2.757621, -0.733039, -1.570797]),
        np.array([2.705261, 1.745330, 2.757621, 2.146755, 2.757621, 0.959932, 1.570797]),
    )


class Iiwa14(_SrsArm):
    """The KUKA LBR iiwa 14 R820 (7-DOF S-R-S), Drake's URDF; flange ``iiwa_link_ee_kuka``."""

    ee_frame = "iiwa_link_ee_kuka"
    _urdf_name = "iiwa14.urdf"
    #: default timing limits: the URDF's velocities and Drake's accelerations
    DEFAULT_MAX_VELOCITY: Tuple[float, ...] = (1.4835298641951802, 1.4835298641951802, 1.7453292519943295,
                                               1.3089969389957472, 2.2689280275926285, 2.356194490192345,
                                               2.356194490192345)
    DEFAULT_MAX_ACCELERATION: Tuple[float, ...] = (8.57, 8.57, 8.74, 11.36, 12.23, 15.72, 15.72)
    _factory = staticmethod(_core.Arm7.iiwa14)


class Arm7(_SrsArm):
    """Any 7-DOF S-R-S arm (spherical shoulder, elbow, spherical wrist) from its parameters: the
    iiwa 7, other arms of the class, or a calibrated unit; the same solver, policies and paths as
    :class:`Nero` and :class:`Iiwa14`.

    Build one with :meth:`from_lengths` (the four link lengths, joint signs and offsets, fixed base
    and flange frames), :meth:`from_dh` (a standard-DH table of the canonical shape) or
    :func:`piperik.from_urdf` (a URDF). The canonical model (``csrc/include/piperik/pik_srs.h``):
    standard DH ``A_i = Rz(t_i) Tz(d_i) Rx(alpha_i)`` with alpha = (-pi/2, pi/2, pi/2, -pi/2,
    -pi/2, pi/2, 0), d = (d_bs, 0, d_se, 0, d_ew, 0, d_wf), a = 0, ``t_i = signs[i] q_i +
    offsets_rad[i]``; poses are ``T_base @ A_1 ... A_7 @ T_flange`` (and the tool, if any).
    """

    ee_frame = "flange"
    #: default timing limits [rad/s], [rad/s^2] (the PiPER firmware's, as for :class:`Arm6`)
    DEFAULT_MAX_VELOCITY: Tuple[float, ...] = (3.0,) * 7
    DEFAULT_MAX_ACCELERATION: Tuple[float, ...] = (5.0,) * 7
    #: standard-DH twists of the canonical S-R-S model
    DH_ALPHA_RAD: Tuple[float, ...] = (-np.pi / 2, np.pi / 2, np.pi / 2, -np.pi / 2, -np.pi / 2, np.pi / 2, 0.0)
    _DEFAULT_LOWER: Tuple[float, ...] = (-np.pi,) * 7
    _DEFAULT_UPPER: Tuple[float, ...] = (np.pi,) * 7

    def __init__(self) -> None:
        raise TypeError("Arm7: build one with Arm7.from_lengths(...), Arm7.from_dh(...) or piperik.from_urdf(...), "
                        "or use piperik.Nero() / piperik.Iiwa14()")

    @classmethod
    def _from_core(cls, arm, tool, description: str) -> "Arm7":
        out = cls.__new__(cls)
        out._set_arm(arm, tool)
        out.urdf_path = None
        out._description = description
        return out

    def __repr__(self) -> str:
        tool = f", tool={self.tool.tolist()}" if self._arm.has_tool else ""
        return f"{self._description}{tool})"

    @classmethod
    def from_lengths(cls, *, d_bs_m: float, d_se_m: float, d_ew_m: float, d_wf_m: float, signs=None,
                     offsets_rad=None, T_base=None, T_flange=None, lower=None, upper=None, tool=None) -> "Arm7":
        """An S-R-S arm from its link lengths [m]: ``d_bs_m`` base to shoulder centre, ``d_se_m``
        shoulder to elbow (> 0), ``d_ew_m`` elbow to wrist centre (> 0), ``d_wf_m`` wrist centre to
        the flange along axis 7. ``signs`` (7 values +1 / -1, default +1) and ``offsets_rad`` (7,
        default 0) map the arm's joints to the canonical angles; ``T_base`` / ``T_flange`` (4x4,
        default identity) the fixed base and flange frames; ``lower`` / ``upper`` joint limits [rad]
        (default +-pi); ``tool`` as for the other arms. Each rule broken is a ``ValueError`` naming
        the argument.

        Example, the KUKA LBR iiwa 7 R800 (0.34 / 0.40 / 0.40 / 0.126 m)::

            arm = piperik.Arm7.from_lengths(d_bs_m=0.34, d_se_m=0.40, d_ew_m=0.40, d_wf_m=0.126)
        """
        vals = _lengths((("d_bs_m", d_bs_m), ("d_se_m", d_se_m), ("d_ew_m", d_ew_m), ("d_wf_m", d_wf_m)))
        for name in ("d_se_m", "d_ew_m"):
            if not vals[name] > 0:
                raise ValueError(f"{name} = {vals[name]!r}: must be > 0 (the elbow lies between shoulder and wrist)")
        sign = np.ones(7) if signs is None else _six(signs, "signs", "", 1, 7)
        if not np.all(np.abs(sign) == 1):
            raise ValueError(f"signs: expected 7 values, each +1 or -1, got {sign.tolist()!r}")
        offsets = np.zeros(7) if offsets_rad is None else _six(offsets_rad, "offsets_rad", "rad", 1e3, 7)
        offsets = np.array([_wrap(o) for o in offsets])
        lo, hi = _limits(lower, upper, cls._DEFAULT_LOWER, cls._DEFAULT_UPPER)
        arm = _core.Arm7.from_params(vals["d_bs_m"], vals["d_se_m"], vals["d_ew_m"], vals["d_wf_m"], sign, offsets,
                                     _frame(T_base, "T_base"), _frame(T_flange, "T_flange"), lo, hi)
        desc = (f"Arm7.from_lengths(d_bs_m={vals['d_bs_m']!r}, d_se_m={vals['d_se_m']!r}, d_ew_m={vals['d_ew_m']!r}, "
                f"d_wf_m={vals['d_wf_m']!r}, signs={sign.astype(int).tolist()!r}, offsets_rad={offsets.tolist()!r}")
        return cls._from_core(arm, tool, desc)

    @classmethod
    def from_dh(cls, dh, *, signs=None, T_base=None, T_flange=None, lower=None, upper=None, tool=None) -> "Arm7":
        """An S-R-S arm from its standard-DH table: 7 rows ``(d, a, alpha, theta_offset)`` [m, rad],
        link transform ``Rz(s q + theta_offset) Tz(d) Tx(a) Rx(alpha)``, of the canonical shape:
        alphas (-pi/2, pi/2, pi/2, -pi/2, -pi/2, pi/2, 0), every ``a`` zero, ``d`` zero in rows 2,
        4 and 6 (``d`` of rows 1, 3, 5, 7: base-shoulder, shoulder-elbow, elbow-wrist, wrist-flange).
        A table of another shape is refused with a ``ValueError`` naming the entry (for another
        convention, give the URDF to :func:`piperik.from_urdf`). Other arguments as
        :meth:`from_lengths`."""
        D = _dh_table(dh, 7)
        tol = 1e-9
        for i in range(7):
            d, a, alpha = (float(v) for v in D[i, :3])
            if abs(alpha - cls.DH_ALPHA_RAD[i]) > tol:
                raise ValueError(f"dh[{i}].alpha = {alpha!r}: the canonical S-R-S table needs {cls.DH_ALPHA_RAD[i]!r} "
                                 "(alphas -pi/2, pi/2, pi/2, -pi/2, -pi/2, pi/2, 0; for another convention use "
                                 "piperik.from_urdf)")
            if abs(a) > tol:
                raise ValueError(f"dh[{i}].a = {a!r}: an S-R-S arm has no link offsets (every a is 0)")
            if i in (1, 3, 5) and abs(d) > tol:
                raise ValueError(f"dh[{i}].d = {d!r}: must be 0 (the shoulder / elbow / wrist axes meet)")
        out = cls.from_lengths(d_bs_m=D[0, 0], d_se_m=D[2, 0], d_ew_m=D[4, 0], d_wf_m=D[6, 0], signs=signs,
                               offsets_rad=D[:, 3], T_base=T_base, T_flange=T_flange, lower=lower, upper=upper,
                               tool=tool)
        out._description = f"Arm7.from_dh({D.tolist()!r}"
        return out
