"""Arms from robot descriptions: :func:`piperik.from_urdf` reads a URDF's chain, finds the closed-form
class it belongs to (or is near), and returns an arm every entry point solves exactly.

The two classes:

- **OPW 6R** (:class:`piperik.Arm6`): axis 1 perpendicular to axis 2, axes 2 and 3 parallel, axis 4
  perpendicular to them, axes 4, 5, 6 meeting in the wrist centre.
- **S-R-S 7R** (:class:`piperik.Arm7`): axes 1, 2, 3 meeting in the shoulder, 3, 4, 5 in the elbow,
  5, 6, 7 in the wrist; consecutive axes perpendicular.

Every such relation is between consecutive axes, so it holds in every configuration when it holds at
q = 0, where it is measured. The class model's lengths, joint signs and offsets, and its base and
flange frames, are fitted to the chain; then the two forward kinematics are compared on seeded
random configurations:

- equal to 1e-12 m / rad: the class model is the arm (``arm.polished`` is False);
- within the near-class bounds (axes that miss by at most :data:`NEAR_MAX_MISS_M`, angles off by at
  most :data:`NEAR_MAX_ANGLE_RAD`: rounded rpy, a fraction of a millimetre of wrist offset): the
  class model gives every branch in closed form and the C core polishes each solution by Newton
  steps on the URDF's own chain to 1e-12 (``arm.polished`` is True, each solution flagged
  ``polished``); a solution that does not converge is dropped, never returned inexact;
- otherwise a ``ValueError`` naming the relation that fails and by how much.

The reader is Python's XML parser (strict: a malformed file is refused) over the URDF elements a
kinematic chain needs: ``joint`` (``parent``, ``child``, ``origin xyz rpy``, ``axis xyz``,
``limit lower upper``), revolute and continuous joints moving, fixed joints folded into their
neighbours. Continuous joints get the limits [-pi, pi].
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

import numpy as np

#: largest axis miss [m] (wrist / shoulder / elbow axes that should meet) a near-class arm may have
NEAR_MAX_MISS_M = 2e-3
#: largest angle [rad] by which a near-class arm's axes may miss being parallel or perpendicular
NEAR_MAX_ANGLE_RAD = 2e-3
#: FK agreement [m, rad] of class model and chain below which the class model is the arm
EXACT_FK_TOL = 1e-12


# ------------------------------------------------------------------------------------------ reading

def _rot_rpy(r: float, p: float, y: float) -> np.ndarray:
    """URDF rpy: R = Rz(y) Ry(p) Rx(r)."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def _floats(text: Optional[str], n: int, what: str, default) -> List[float]:
    if text is None:
        return list(default)
    parts = text.split()
    try:
        vals = [float(v) for v in parts]
    except ValueError:
        raise ValueError(f"{what}: expected {n} numbers, got {text!r}") from None
    if len(vals) != n or not all(math.isfinite(v) for v in vals):
        raise ValueError(f"{what}: expected {n} finite numbers, got {text!r}")
    return vals


def _origin(elem, what: str) -> np.ndarray:
    T = np.eye(4)
    o = elem.find("origin")
    if o is not None:
        xyz = _floats(o.get("xyz"), 3, f"{what} origin xyz", (0, 0, 0))
        rpy = _floats(o.get("rpy"), 3, f"{what} origin rpy", (0, 0, 0))
        T[:3, :3] = _rot_rpy(*rpy)
        T[:3, 3] = xyz
    return T


def _rot_axis(axis: np.ndarray, q: float) -> np.ndarray:
    x, y, z = axis
    c, s = math.cos(q), math.sin(q)
    v = 1 - c
    return np.array([[c + v * x * x, v * x * y - s * z, v * x * z + s * y],
                     [v * y * x + s * z, c + v * y * y, v * y * z - s * x],
                     [v * z * x - s * y, v * z * y + s * x, c + v * z * z]])


@dataclass
class UrdfChain:
    """A URDF's revolute chain from ``base_link`` to ``tip_link``, fixed joints folded.

    ``origins[i]`` (4x4): joint i-1's frame (the base for i = 0) -> joint i's frame at q = 0;
    ``axes[i]`` its unit axis in its own frame; ``T_tip``: the last joint's frame -> ``tip_link``.
    """

    path: str
    base_link: str
    tip_link: str
    joint_names: List[str]
    origins: np.ndarray
    axes: np.ndarray
    T_tip: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    continuous: List[bool] = field(default_factory=list)

    @property
    def dof(self) -> int:
        return len(self.joint_names)

    def fk(self, q) -> np.ndarray:
        """``tip_link``'s pose in ``base_link`` at joint angles q (dof,) [rad] (numpy reference)."""
        T = np.eye(4)
        for i in range(self.dof):
            T = T @ self.origins[i]
            J = np.eye(4)
            J[:3, :3] = _rot_axis(self.axes[i], float(q[i]))
            T = T @ J
        return T @ self.T_tip

    def axis_lines(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """At q = 0: each joint axis as (unit direction, point) in the base frame, and the tip pose."""
        T = np.eye(4)
        dirs, points = [], []
        for i in range(self.dof):
            T = T @ self.origins[i]
            dirs.append(T[:3, :3] @ self.axes[i])
            points.append(T[:3, 3].copy())
        return np.array(dirs), np.array(points), T @ self.T_tip


def read_chain(path: Union[str, Path], base_link: str, tip_link: str) -> UrdfChain:
    """The revolute chain of a URDF file between two links (``ValueError`` naming what is wrong)."""
    path = str(path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise ValueError(f"path: {path} is not well-formed XML: {e}") from None
    except OSError as e:
        raise ValueError(f"path: cannot read {path}: {e.strerror or e}") from None
    if root.tag != "robot":
        raise ValueError(f"path: {path} is not a URDF (root element <{root.tag}>, expected <robot>)")
    links = {ln.get("name") for ln in root.findall("link")}
    for name, what in ((base_link, "base_link"), (tip_link, "tip_link")):
        if name not in links:
            raise ValueError(f"{what}: no link {name!r} in {path}; links: {', '.join(sorted(n for n in links if n))}")
    by_child: Dict[str, ET.Element] = {}
    for j in root.findall("joint"):
        child = j.find("child")
        if child is not None and child.get("link"):
            by_child[child.get("link")] = j
    # walk up from the tip
    chain_elems: List[ET.Element] = []
    link = tip_link
    while link != base_link:
        j = by_child.get(link)
        if j is None:
            raise ValueError(f"tip_link: {tip_link!r} is not below base_link {base_link!r} in {path} "
                             f"(link {link!r} has no parent joint)")
        chain_elems.append(j)
        parent = j.find("parent")
        link = parent.get("link") if parent is not None else None
        if link is None or len(chain_elems) > 1000:
            raise ValueError(f"path: joint {j.get('name')!r} has no parent link")
    chain_elems.reverse()
    names, origins, axes, lows, highs, cont = [], [], [], [], [], []
    pending = np.eye(4)  # fixed transforms since the last moving joint's frame
    for j in chain_elems:
        jname, jtype = j.get("name"), j.get("type")
        T = _origin(j, f"joint {jname!r}")
        if jtype == "fixed":
            pending = pending @ T
            continue
        if jtype not in ("revolute", "continuous"):
            raise ValueError(f"joint {jname!r} is {jtype!r}: piperik solves chains of revolute joints "
                             "(revolute, continuous; fixed joints are folded)")
        ax = np.array(_floats(j.find("axis").get("xyz") if j.find("axis") is not None else None, 3,
                              f"joint {jname!r} axis", (1, 0, 0)))
        n = np.linalg.norm(ax)
        if not n > 1e-9:
            raise ValueError(f"joint {jname!r}: its axis has zero length")
        origins.append(pending @ T)
        pending = np.eye(4)
        axes.append(ax / n)
        names.append(jname)
        if jtype == "continuous":
            lows.append(-math.pi)
            highs.append(math.pi)
            cont.append(True)
        else:
            lim = j.find("limit")
            if lim is None or lim.get("lower") is None or lim.get("upper") is None:
                raise ValueError(f"joint {jname!r}: a revolute joint needs <limit lower=... upper=...>")
            lo = _floats(lim.get("lower"), 1, f"joint {jname!r} limit lower", ())[0]
            hi = _floats(lim.get("upper"), 1, f"joint {jname!r} limit upper", ())[0]
            if not lo <= hi:
                raise ValueError(f"joint {jname!r}: limit lower {lo!r} > upper {hi!r}")
            lows.append(lo)
            highs.append(hi)
            cont.append(False)
    return UrdfChain(path, base_link, tip_link, names, np.array(origins).reshape(-1, 4, 4),
                     np.array(axes).reshape(-1, 3), pending, np.array(lows), np.array(highs), cont)


# ------------------------------------------------------------------------------------------ geometry

def _meet(dirs: np.ndarray, points: np.ndarray) -> Tuple[np.ndarray, float]:
    """The point nearest (least squares) to a set of lines, and its largest distance to one of them."""
    A = np.zeros((3, 3))
    b = np.zeros(3)
    for d, p in zip(dirs, points):
        P = np.eye(3) - np.outer(d, d)
        A += P
        b += P @ p
    x = np.linalg.lstsq(A, b, rcond=None)[0]
    miss = max(float(np.linalg.norm((np.eye(3) - np.outer(d, d)) @ (x - p))) for d, p in zip(dirs, points))
    return x, miss


def _angle_off_perpendicular(a: np.ndarray, b: np.ndarray) -> float:
    return abs(math.asin(max(-1.0, min(1.0, float(a @ b)))))


def _angle_off_parallel(a: np.ndarray, b: np.ndarray) -> float:
    return math.asin(min(1.0, float(np.linalg.norm(np.cross(a, b)))))


def _base_frame(d1: np.ndarray, p1: np.ndarray) -> Tuple[np.ndarray, int]:
    """A base frame for the class model: z along axis 1 (its sign the one nearer the URDF's z), x the
    URDF's x made perpendicular to it, origin the URDF base origin's projection on axis 1; and the
    sign of joint 1 relative to that z. The identity when the URDF's axis 1 is its z axis."""
    s1 = 1 if d1[2] >= 0 else -1
    z = s1 * d1
    ref = np.array([1.0, 0, 0]) if abs(z[0]) < 0.9 else np.array([0, 1.0, 0])
    x = ref - (ref @ z) * z
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    origin = p1 + ((np.zeros(3) - p1) @ d1) * d1
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = x, y, z, origin
    if np.abs(T - np.eye(4)).max() < 1e-15:
        T = np.eye(4)
    return T, s1


def _rz(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _ry(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])


def _rx(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def _wrap(a: float) -> float:
    return float((a + math.pi) % (2 * math.pi) - math.pi)


@dataclass
class ClassFit:
    """How a chain relates to a closed-form class: ``kind`` ("opw6" or "srs7"), the fitted
    parameters (keywords of :meth:`Arm6.from_opw` / :meth:`Arm7.from_lengths` without limits),
    the measured relations (``residuals``: name -> metres or radians) and the first one that
    breaks the class (``violation``: a sentence, or None)."""

    kind: str
    params: dict
    residuals: Dict[str, float]
    violation: Optional[str]
    max_miss_m: float
    max_angle_rad: float


def _check(residuals: Dict[str, float], labels: Dict[str, str]) -> Tuple[Optional[str], float, float]:
    miss = max([v for k, v in residuals.items() if k.endswith("_m")], default=0.0)
    ang = max([v for k, v in residuals.items() if k.endswith("_rad")], default=0.0)
    for key, text in labels.items():
        v = residuals[key]
        if key.endswith("_m") and v > NEAR_MAX_MISS_M:
            return f"{text}: closest approach {v * 1e3:.3g} mm (near-class polish accepts up to " \
                   f"{NEAR_MAX_MISS_M * 1e3:g} mm)", miss, ang
        if key.endswith("_rad") and v > NEAR_MAX_ANGLE_RAD:
            return f"{text}: off by {math.degrees(v):.3g} deg (near-class polish accepts up to " \
                   f"{math.degrees(NEAR_MAX_ANGLE_RAD):.2g} deg)", miss, ang
    return None, miss, ang


def fit_opw(chain: UrdfChain) -> ClassFit:
    """The OPW model nearest a 6-joint chain (see the module docstring)."""
    D, P, T_tip0 = chain.axis_lines()
    res = {
        "axes_1_2_perpendicular_rad": _angle_off_perpendicular(D[0], D[1]),
        "axes_2_3_parallel_rad": _angle_off_parallel(D[1], D[2]),
        "axes_3_4_perpendicular_rad": _angle_off_perpendicular(D[2], D[3]),
        "axes_4_5_perpendicular_rad": _angle_off_perpendicular(D[3], D[4]),
        "axes_5_6_perpendicular_rad": _angle_off_perpendicular(D[4], D[5]),
    }
    C, res["wrist_axes_4_5_6_miss_m"] = _meet(D[3:6], P[3:6])
    violation, miss, ang = _check(res, {
        "wrist_axes_4_5_6_miss_m": "axes 4, 5, 6 do not intersect (no spherical wrist)",
        "axes_2_3_parallel_rad": "axes 2 and 3 are not parallel",
        "axes_1_2_perpendicular_rad": "axes 1 and 2 are not perpendicular",
        "axes_3_4_perpendicular_rad": "axes 3 and 4 are not perpendicular",
        "axes_4_5_perpendicular_rad": "axes 4 and 5 are not perpendicular",
        "axes_5_6_perpendicular_rad": "axes 5 and 6 are not perpendicular",
    })
    T_base, s1 = _base_frame(D[0], P[0])
    Rb, ob = T_base[:3, :3], T_base[:3, 3]
    d = (Rb.T @ D.T).T
    p = (Rb.T @ (P - ob).T).T
    c = Rb.T @ (C - ob)
    t1 = math.atan2(-d[1][0], d[1][1])                 # axis 2 = Rz(t1) y
    M = _rz(-t1)
    d, p, c = (M @ d.T).T, (M @ p.T).T, M @ c
    # axis 2: its point nearest axis 1 gives a1 (radial) and c1 (height)
    w = d[1][0] ** 2 + d[1][1] ** 2
    a2pt = p[1] - ((p[1][0] * d[1][0] + p[1][1] * d[1][1]) / w) * d[1] if w > 1e-30 else p[1]
    a1, c1 = float(a2pt[0]), float(a2pt[2])
    s3 = 1 if d[2] @ d[1] >= 0 else -1
    a3pt = p[2] - (p[2][1] / d[2][1]) * d[2] if abs(d[2][1]) > 1e-12 else p[2]  # axis 3 in the plane y = 0
    c2 = math.hypot(a3pt[0] - a1, a3pt[2] - c1)
    t2 = math.atan2(a3pt[0] - a1, a3pt[2] - c1)
    t23 = math.atan2(d[3][0], d[3][2])                  # axis 4 = Ry(t2 + t3) z
    t3 = t23 - t2
    b = float(c[1])
    vx, vz = c[0] - a3pt[0], c[2] - a3pt[2]
    ca, sa = math.cos(t23), math.sin(t23)
    a2, c3 = ca * vx - sa * vz, sa * vx + ca * vz
    u5 = _ry(-t23) @ d[4]
    t4 = math.atan2(-u5[0], u5[1])                      # axis 5 = Ry(t23) Rz(t4) y
    u6 = _rz(-t4) @ _ry(-t23) @ d[5]
    t5 = math.atan2(u6[0], u6[2])                       # axis 6 = Ry(t23) Rz(t4) Ry(t5) z
    tip = Rb.T @ (T_tip0[:3, 3] - ob)
    c4 = float((M @ tip - c) @ d[5])
    params = dict(a1=a1, a2=float(a2), b=b, c1=c1, c2=float(c2), c3=float(c3), c4=c4,
                  offsets_rad=[-_wrap(t) for t in (t1, t2, t3, t4, t5, 0.0)],
                  signs=[s1, 1, s3, 1, 1, 1], T_base=T_base)
    return ClassFit("opw6", params, res, violation, miss, ang)


def fit_srs(chain: UrdfChain) -> ClassFit:
    """The S-R-S model nearest a 7-joint chain (see the module docstring)."""
    D, P, T_tip0 = chain.axis_lines()
    res = {f"axes_{i + 1}_{i + 2}_perpendicular_rad": _angle_off_perpendicular(D[i], D[i + 1]) for i in range(6)}
    S, res["shoulder_axes_1_2_3_miss_m"] = _meet(D[0:3], P[0:3])
    E, res["elbow_axes_3_4_5_miss_m"] = _meet(D[2:5], P[2:5])
    W, res["wrist_axes_5_6_7_miss_m"] = _meet(D[4:7], P[4:7])
    labels = {
        "shoulder_axes_1_2_3_miss_m": "7 joints but not S-R-S: the shoulder axes 1, 2, 3 do not meet",
        "wrist_axes_5_6_7_miss_m": "7 joints but not S-R-S: the wrist axes 5, 6, 7 do not meet",
        "elbow_axes_3_4_5_miss_m": "7 joints but not S-R-S: axes 3, 4, 5 do not meet at the elbow",
    }
    labels.update({f"axes_{i + 1}_{i + 2}_perpendicular_rad": f"axes {i + 1} and {i + 2} are not perpendicular"
                   for i in range(6)})
    violation, miss, ang = _check(res, labels)
    T_base, s1 = _base_frame(D[0], P[0])
    Rb, ob = T_base[:3, :3], T_base[:3, 3]
    d = (Rb.T @ D.T).T
    S, E, W = (Rb.T @ (v - ob) for v in (S, E, W))
    tip = Rb.T @ (T_tip0[:3, 3] - ob)
    alpha_sign = (-1, 1, 1, -1, -1, 1)
    signs = [s1] + [1] * 6
    # axis 3 points from the shoulder to the elbow, axis 5 from the elbow to the wrist (d_se, d_ew > 0)
    signs[2] = 1 if (E - S) @ d[2] >= 0 else -1
    signs[4] = 1 if (W - E) @ d[4] >= 0 else -1
    theta = []
    R = np.eye(3)
    for i in range(6):
        # axis i+2 = R Rz(t) Rx(alpha_i) z = R (a sin t, -a cos t, 0)
        a = alpha_sign[i]
        v = R.T @ (signs[i + 1] * d[i + 1])
        t = math.atan2(a * v[0], -a * v[1])
        if i + 1 not in (2, 4) and abs(t) > math.pi / 2:  # free sign: the smaller offset
            signs[i + 1] = -signs[i + 1]
            t = _wrap(t + math.pi)
        theta.append(t)
        R = R @ _rz(t) @ _rx(a * math.pi / 2)
    theta.append(0.0)
    params = dict(d_bs_m=float(S[2]), d_se_m=float(np.linalg.norm(E - S)), d_ew_m=float(np.linalg.norm(W - E)),
                  d_wf_m=float((tip - W) @ (signs[6] * d[6])), signs=signs, offsets_rad=[_wrap(t) for t in theta],
                  T_base=T_base)
    return ClassFit("srs7", params, res, violation, miss, ang)


def classify(chain: UrdfChain) -> ClassFit:
    """The class fit of a chain; ``ValueError`` when it has neither 6 nor 7 joints."""
    if chain.dof == 6:
        return fit_opw(chain)
    if chain.dof == 7:
        return fit_srs(chain)
    raise ValueError(f"{chain.dof} revolute joints between {chain.base_link!r} and {chain.tip_link!r} "
                     f"({', '.join(chain.joint_names)}): piperik solves 6 (OPW class) or 7 (S-R-S) in closed form")


# ------------------------------------------------------------------------------------------ building

def _fk_gap(arm, chain: UrdfChain, n: int = 200, seed: int = 0) -> Tuple[float, float]:
    """Largest difference [m, rad] between the arm's class FK and the chain's on seeded random q."""
    rng = np.random.default_rng(seed)
    lo = np.maximum(chain.lower, -math.pi)
    hi = np.minimum(chain.upper, math.pi)
    Q = rng.uniform(lo, hi, size=(n, chain.dof))
    Q[0] = 0
    Tm = arm.fk(Q)
    pos = rot = 0.0
    for q, T in zip(Q, Tm):
        Tc = chain.fk(q)
        pos = max(pos, float(np.linalg.norm(T[:3, 3] - Tc[:3, 3])))
        rot = max(rot, float(np.abs(T[:3, :3] - Tc[:3, :3]).max()))
    return pos, rot


def from_urdf(path: Union[str, Path], base_link: str, tip_link: str, *, tool=None, lower=None, upper=None):
    """An arm from a URDF's chain between ``base_link`` and ``tip_link`` (its flange): an
    :class:`~piperik.Arm6` (OPW class) or :class:`~piperik.Arm7` (S-R-S), exact or polished.

    Poses are ``tip_link``'s in ``base_link``'s frame (with ``tool``: the tool centre point's);
    joint limits are the URDF's unless ``lower`` / ``upper`` are given. ``arm.polished`` says
    whether the URDF is only near the class (each solution then Newton-polished onto the URDF's
    own kinematics to 1e-12), ``arm.class_fit`` holds the measured relations. Raises
    ``ValueError`` naming why for a chain outside both classes, e.g. "axes 4, 5, 6 do not
    intersect (no spherical wrist): closest approach 51.2 mm".

    Example (ROS-Industrial's KUKA KR 6 R700 sixx)::

        arm = piperik.from_urdf("kr6r700sixx.urdf", "base_link", "tool0")
        q = arm.ik(T, q_current)
    """
    from .robots import Arm6, Arm7  # the arm classes import nothing from here

    chain = read_chain(path, base_link, tip_link)
    fit = classify(chain)
    if fit.violation is not None:
        raise ValueError(f"{Path(str(path)).name} ({base_link} -> {tip_link}): {fit.violation}")
    lo = chain.lower if lower is None else lower
    hi = chain.upper if upper is None else upper
    params = dict(fit.params)
    T_base = params.pop("T_base")
    cls = Arm6 if fit.kind == "opw6" else Arm7
    build = cls.from_opw if fit.kind == "opw6" else cls.from_lengths
    kw = dict(T_base=None if np.array_equal(T_base, np.eye(4)) else T_base)
    arm = build(**params, lower=lo, upper=hi, **kw)
    # the flange: whatever the class model's frame 6 / 7 leaves to the URDF's tip at q = 0
    T0 = arm.fk(np.zeros(chain.dof))
    T_flange = np.linalg.inv(T0) @ chain.fk(np.zeros(chain.dof))
    T_flange[3] = (0, 0, 0, 1)
    U, _, Vt = np.linalg.svd(T_flange[:3, :3])
    T_flange[:3, :3] = U @ Vt
    if np.abs(T_flange - np.eye(4)).max() < 1e-15:
        T_flange = None
    arm = build(**params, lower=lo, upper=hi, T_flange=T_flange, **kw)
    gap_pos, gap_rot = _fk_gap(arm, chain)
    polished = not (gap_pos <= EXACT_FK_TOL and gap_rot <= EXACT_FK_TOL)
    core = arm._arm
    if polished:
        core = core.with_chain(chain.origins, chain.axes, chain.T_tip)
    arm._set_arm(core, tool)
    arm.urdf_path = Path(str(path))
    arm.ee_frame = tip_link
    arm.class_fit = fit
    #: largest FK difference [m], [rad] between the class model and the URDF (0 for an exact arm)
    arm.class_distance = (gap_pos, gap_rot)
    arm._description = (f"piperik.from_urdf({str(path)!r}, {base_link!r}, {tip_link!r}"
                        + (", polished" if polished else ""))
    return arm
