"""Cartesian motions -> continuous joint paths -> timed joint trajectories.

    poses = line_poses(T0, T1, 50)                         # straight line, SLERP orientation
    plan = plan_cartesian(arm, [T0, T1, T2], q_start)      # adaptive: joint steps <= a bound
    traj = time_parameterize(plan.q, arm.max_velocity, arm.max_acceleration, rate_hz=200)

The joint path is solved by the arm's ``ik_path`` (C): one branch throughout, continuous through
singularities, an error naming the first sample that cannot be reached. The timing is a
synchronised profile along the path: every joint follows the same path parameter u(t), whose speed
is limited by each joint's velocity and acceleration limits (a forward-backward pass over the
samples, the classic bang-bang profile of time-optimal path following), and q(u) is a C1 cubic
(Catmull-Rom) through the samples so that accelerations stay bounded at the samples. The result is
checked sample by sample and slowed down uniformly if a limit would be exceeded.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Sequence

import numpy as np

from ._core import MAX_JOINT_RAD, STATUS_CODE, NoSolutionError
from .poses import _matrix, _rotation_angle
from .robots import PathResult, _no_solution


# ---------------------------------------------------------------------------------------------- poses


def _quat_from_matrix(R: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method, stable everywhere)."""
    tr = np.trace(R)
    if tr > 0.0:
        s = 2.0 * math.sqrt(tr + 1.0)
        q = [0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(max(1.0 + R[i, i] - R[j, j] - R[k, k], 0.0))
        q = [0.0, 0.0, 0.0, 0.0]
        q[0] = (R[k, j] - R[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + k] = (R[k, i] + R[i, k]) / s
    q = np.array(q)
    return q / np.linalg.norm(q)


def _matrix_from_quat(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _slerp(q0: np.ndarray, q1: np.ndarray, s: np.ndarray) -> np.ndarray:
    d = float(np.dot(q0, q1))
    if d < 0.0:  # the shorter way round
        q1, d = -q1, -d
    if d > 1.0 - 1e-12:
        out = q0[None] + s[:, None] * (q1 - q0)[None]
    else:
        theta = math.acos(d)
        out = (np.sin((1 - s) * theta)[:, None] * q0 + np.sin(s * theta)[:, None] * q1) / math.sin(theta)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def interpolate_poses(T0, T1, s) -> np.ndarray:
    """Poses at parameters s in [0, 1] between T0 and T1: position on the straight segment,
    orientation by SLERP (constant angular velocity about one axis). Returns (len(s), 4, 4)."""
    A, B = _matrix(T0), _matrix(T1)
    s = np.atleast_1d(np.asarray(s, dtype=float))
    if not np.all(np.isfinite(s)) or s.min() < 0.0 or s.max() > 1.0:
        raise ValueError("s: parameters must lie in [0, 1]")
    quats = _slerp(_quat_from_matrix(A[:3, :3]), _quat_from_matrix(B[:3, :3]), s)
    out = np.tile(np.eye(4), (len(s), 1, 1))
    for i, qt in enumerate(quats):
        out[i, :3, :3] = _matrix_from_quat(qt)
    out[:, :3, 3] = (1 - s)[:, None] * A[:3, 3] + s[:, None] * B[:3, 3]
    # the ends exactly as given
    if s[0] == 0.0:
        out[0] = A
    if s[-1] == 1.0:
        out[-1] = B
    return out


def line_poses(T0, T1, n: int) -> np.ndarray:
    """n evenly spaced poses (n >= 2) from T0 to T1 on a straight line with SLERP orientation."""
    if int(n) != n or n < 2:
        raise ValueError(f"n: need an integer >= 2, got {n!r}")
    return interpolate_poses(T0, T1, np.linspace(0.0, 1.0, int(n)))


# ---------------------------------------------------------------------------------------------- planning


@dataclass
class CartesianPlan:
    """A Cartesian motion solved into joints: one row per sample."""

    poses: np.ndarray      #: (N, 4, 4) flange poses on the segments between the waypoints
    q: np.ndarray          #: (N, dof) joint path [rad], q[0] is the first waypoint's solution
    segment: np.ndarray    #: (N,) index of the waypoint segment each sample belongs to
    s: np.ndarray          #: (N,) parameter of the sample on its segment, 0..1
    report: PathResult     #: ik_path's result on these samples (max step, branch changes, min singularity, ...)


def _poses_at(Ws: List[np.ndarray], g: np.ndarray) -> np.ndarray:
    """Poses at global parameters g in [0, len(Ws) - 1]: segment floor(g), local s = g - floor(g)."""
    seg = np.minimum(np.floor(g).astype(int), len(Ws) - 2)
    out = np.empty((len(g), 4, 4))
    for k in np.unique(seg):
        sel = seg == k
        out[sel] = interpolate_poses(Ws[k], Ws[k + 1], g[sel] - k)
    return out


def plan_cartesian(arm, waypoints: Sequence, q_start, *, max_joint_step_rad: float = 0.02,
                   sample_m: float = 0.01, sample_rad: float = 0.05, max_samples: int = 200_000,
                   keep_branch: bool = True, options=None) -> CartesianPlan:
    """Straight lines with SLERP orientation through ``waypoints`` (>= 2 poses), solved into a
    continuous joint path starting from ``q_start``.

    Segments are first sampled every ``sample_m`` metres / ``sample_rad`` radians of rotation; then
    every interval in which a joint moves more than ``max_joint_step_rad``, or the branch changes,
    is bisected until no joint step exceeds the bound. On a 7-DOF arm, where the nearest-previous
    choice fails or jumps however finely the line is sampled (a branch point), the refinement
    continues with :meth:`ik_path`'s global arm-angle search on every sampling (seconds, not
    microseconds), so a continuous path is found where one exists. A branch change that stays a jump however
    finely the line is sampled (``keep_branch``), an unreachable or out-of-limits sample, raises
    :class:`NoSolutionError` naming the segment and its parameter. The number of samples is counted
    before anything is allocated: above ``max_samples``, a waypoint without any solution within the
    limits raises :class:`NoSolutionError` naming it (``waypoints[k]: unreachable ...``; a target
    1e8 m away), else ``ValueError`` naming ``max_samples``.
    """
    Ws = [_matrix(W) for W in waypoints]
    if len(Ws) < 2:
        raise ValueError("waypoints: need at least 2 poses")
    if not (max_joint_step_rad > 0.0) or not (sample_m > 0.0) or not (sample_rad > 0.0):
        raise ValueError("max_joint_step_rad, sample_m, sample_rad: must be > 0")
    if not (isinstance(max_samples, (int, np.integer)) and max_samples >= len(Ws)):
        raise ValueError(f"max_samples: need an integer >= {len(Ws)} (one sample per waypoint), got {max_samples!r}")
    q_start = np.asarray(q_start, dtype=float)
    counts = []
    for A, B in zip(Ws[:-1], Ws[1:]):
        r = max(math.hypot(*(B[:3, 3] - A[:3, 3])) / sample_m, _rotation_angle(A, B) / sample_rad)  # no overflow
        counts.append(max(1.0, math.ceil(r)) if r <= 1e15 else r)  # ceil(inf) would raise OverflowError
    total = 1.0 + sum(counts)  # floats: a huge count is compared, never allocated
    if not (total <= max_samples):
        # Usually a target far out of reach (1e8 m is 1e10 samples): say so, naming the waypoint,
        # before blaming the sampling. A waypoint without any solution within the limits cannot be
        # on the path whatever the sampling.
        for k, W in enumerate(Ws):
            try:
                arm.ik(W)
            except NoSolutionError as exc:
                raise NoSolutionError(f"waypoints[{k}]: {exc}") from None
        raise ValueError(f"max_samples: sampling every {sample_m} m / {sample_rad} rad needs {total:.3g} samples, "
                         f"more than max_samples = {max_samples}")
    g = [np.array([0.0])]
    for k, n in enumerate(counts):
        g.append(k + np.arange(1, int(n) + 1) / int(n))
    g = np.concatenate(g)

    def where(i: int) -> str:
        k = min(int(g[i]), len(Ws) - 2)
        return f"segment {k} (waypoint {k} -> {k + 1}) at s = {g[i] - k:.4f} (sample {i})"

    # The nearest-previous (greedy) path first: cheap, and right for lines that meet no branch point.
    # Where it fails, or jumps however finely the line is sampled, a 7-DOF arm may still have a
    # continuous path through another arm angle: the rest of the refinement then runs ik_path's
    # global arm-angle search on every sampling (seconds for hundreds of samples, so only then).
    use_global = False
    can_search = getattr(arm, "dof", 6) == 7
    for _ in range(400):
        if len(g) > max_samples:
            raise ValueError(f"max_samples: more than {max_samples} samples needed for joint steps "
                             f"<= {max_joint_step_rad} rad")
        poses = _poses_at(Ws, g)
        # No step bound while refining: a large step only says where to sample more finely.
        path = arm._path(poses, q_start, math.inf, keep_branch, options, global_search=use_global)
        Q, i = path.q, path.failed_index
        if i >= 0:
            # A branch change that is a jump at this sampling may be a continuous crossing of a
            # singularity at a finer one: bisect before giving up.
            if path.status == STATUS_CODE["BRANCH_SWITCH"] and i > 0 and g[i] - g[i - 1] > 1e-9:
                g = np.sort(np.append(g, 0.5 * (g[i - 1] + g[i])))
                continue
            if can_search and not use_global:
                use_global = True
                continue
            raise _no_solution(f"{where(i)}: {path.reason}", path.status)
        steps = np.abs(np.diff(Q, axis=0)).max(axis=1) if len(Q) > 1 else np.zeros(0)
        too_big = np.nonzero(steps > max_joint_step_rad)[0]  # between sample i and i + 1
        if len(too_big) == 0:
            seg = np.minimum(np.floor(g).astype(int), len(Ws) - 2)
            return CartesianPlan(poses, Q, seg, g - seg, path)
        tiny = too_big[g[too_big + 1] - g[too_big] <= 1e-9]
        if len(tiny) and can_search and not use_global:
            use_global = True
            continue
        if len(tiny):
            raise NoSolutionError(f"{where(int(tiny[0]) + 1)}: the joints jump by {steps[tiny[0]]:.3f} rad "
                                  "however finely the line is sampled (a singularity or a limit in the way)")
        g = np.sort(np.concatenate([g, 0.5 * (g[too_big] + g[too_big + 1])]))
    raise NoSolutionError(f"joint steps stay above {max_joint_step_rad} rad after 400 refinements: "
                          "the path passes (too) close to a singularity")


# ---------------------------------------------------------------------------------------------- timing


@dataclass
class Trajectory:
    """A timed joint trajectory at a fixed control rate."""

    t_s: np.ndarray        #: (M,) times [s], 0, 1/rate, ...
    q_rad: np.ndarray      #: (M, dof) positions
    qd_rad_s: np.ndarray   #: (M, dof) velocities
    qdd_rad_s2: np.ndarray #: (M, dof) accelerations
    rate_hz: float

    @property
    def duration_s(self) -> float:
        return float(self.t_s[-1])


def _hermite(Q: np.ndarray):
    """Catmull-Rom tangents (per sample of u) for the path Q (N, dof); one-sided at the ends."""
    m = np.zeros_like(Q)
    if len(Q) > 2:
        m[1:-1] = 0.5 * (Q[2:] - Q[:-2])
    m[0] = Q[1] - Q[0]
    m[-1] = Q[-1] - Q[-2]
    return m


def _eval(Q, m, k, t):
    """q, dq/du, d2q/du2 of the cubic Hermite segment k at local t in [0, 1] (vectorised over k, t)."""
    p0, p1, m0, m1 = Q[k], Q[k + 1], m[k], m[k + 1]
    t = t[:, None]
    t2, t3 = t * t, t * t * t
    q = (2 * t3 - 3 * t2 + 1) * p0 + (t3 - 2 * t2 + t) * m0 + (-2 * t3 + 3 * t2) * p1 + (t3 - t2) * m1
    dq = (6 * t2 - 6 * t) * p0 + (3 * t2 - 4 * t + 1) * m0 + (-6 * t2 + 6 * t) * p1 + (3 * t2 - 2 * t) * m1
    ddq = (12 * t - 6) * p0 + (6 * t - 4) * m0 + (-12 * t + 6) * p1 + (6 * t - 2) * m1
    return q, dq, ddq


def _sample_count(T_end_s: float, dt_s: float, max_samples: int) -> int:
    """Samples of a T_end_s long trajectory every dt_s, the last at or past the end; a ValueError
    when more than max_samples (checked before anything is allocated)."""
    with np.errstate(over="ignore"):
        n = T_end_s / dt_s
    if not (math.isfinite(n) and n - 1e-9 < max_samples - 1):
        raise ValueError(f"time_parameterize: the motion takes {T_end_s:.6g} s, {n:.6g} samples at "
                         f"{1.0 / dt_s:.6g} Hz, more than max_samples={max_samples}: raise the velocity and "
                         f"acceleration limits, lower rate_hz, or raise max_samples")
    return int(math.ceil(n - 1e-9)) + 1


def _line_trajectory(q0: np.ndarray, q1: np.ndarray, vmax: np.ndarray, amax: np.ndarray,
                     rate_hz: float, max_samples: int) -> Trajectory:
    """The time-optimal rest-to-rest motion along the straight joint line q0 -> q1: q = q0 + s(t) (q1 - q0)
    with a trapezoidal speed profile of s (a triangle when the cruise speed is never reached), its
    speed and acceleration limited by the tightest joint. Sampled every 1/rate_hz s; the last sample
    is q1 at rest (it may lie up to one period past the end of the motion).

    Finite differences of the samples are averages of the exact velocity and acceleration, so they
    stay within the limits too.
    """
    dt = 1.0 / rate_hz
    D = q1 - q0
    moving = D != 0.0
    # the path parameter's limits; the 1e-12 keeps rounding from reaching a limit's last ulp
    sv = float(np.min(vmax[moving] / np.abs(D[moving]))) * (1.0 - 1e-12)
    sa = float(np.min(amax[moving] / np.abs(D[moving]))) * (1.0 - 1e-12)
    for _ in range(20):
        if sv * sv / sa >= 1.0:  # triangle: accelerate over half the path, brake over the other half
            t_acc = math.sqrt(1.0 / sa)
            v_peak, t_cruise = sa * t_acc, 0.0
        else:                     # trapezoid: reach sv, cruise, brake
            t_acc = sv / sa
            v_peak, t_cruise = sv, (1.0 - sv * t_acc) / sv
        T_end = 2.0 * t_acc + t_cruise
        M = _sample_count(T_end, dt, max_samples)
        t = np.arange(M) * dt
        tc = np.minimum(t, T_end)
        s_acc = 0.5 * sa * t_acc * t_acc
        acc = tc < t_acc
        dec = tc > t_acc + t_cruise
        rem = T_end - tc
        s = np.where(acc, 0.5 * sa * tc * tc,
                     np.where(dec, 1.0 - 0.5 * sa * rem * rem, s_acc + v_peak * (tc - t_acc)))
        sd = np.where(acc, sa * tc, np.where(dec, sa * rem, v_peak))
        sdd = np.where(acc, sa, np.where(dec, -sa, 0.0))
        sd[t >= T_end] = 0.0
        sdd[t >= T_end] = 0.0
        sd[0] = 0.0
        sd[-1] = sdd[-1] = 0.0  # at rest on the last sample (it is at or past T_end up to rounding)
        q = q0[None] + s[:, None] * D[None]
        q[-1] = q1
        # Rounding of the sampled positions (not the profile) can put a second difference a few
        # 1e-10 above the limit at high rates: shave the limits by 0.1 % then.
        fd_v = float(np.max(np.abs(np.diff(q, axis=0)) / dt / vmax, initial=0.0))
        fd_a = float(np.max(np.abs(np.diff(q, 2, axis=0)) / dt ** 2 / amax, initial=0.0))
        if fd_v <= 1.0 and fd_a <= 1.0:
            break
        sv /= max(fd_v, 1.0) * 1.001
        sa /= max(fd_a, 1.0) * 1.001
    return Trajectory(t, q, sd[:, None] * D[None], sdd[:, None] * D[None], rate_hz)


def time_parameterize(q_path, max_velocity, max_acceleration, rate_hz: float = 200.0, *,
                      max_samples: int = 1_000_000) -> Trajectory:
    """Time a joint path (N, dof) under per-joint velocity [rad/s] and acceleration [rad/s^2] limits.

    All joints are synchronised on one path parameter; the profile starts and ends at rest. The
    returned samples (every 1/rate_hz s) are within both limits: velocities and accelerations
    are evaluated exactly at every sample, and finite differences of the positions are checked too.
    A motion that would need more than ``max_samples`` samples (83 min at 200 Hz, about 200 MB for
    6 joints) raises ``ValueError`` before anything is allocated.
    """
    Q = np.asarray(q_path, dtype=float)
    if Q.ndim != 2 or len(Q) < 1 or not np.all(np.isfinite(Q)):
        raise ValueError(f"q_path: expected a finite (N, dof) array, got shape {Q.shape}")
    if not np.all(np.abs(Q) <= MAX_JOINT_RAD):
        raise ValueError(f"q_path: joint angles must lie within +-{MAX_JOINT_RAD:g} rad, got "
                         f"{float(Q.flat[int(np.argmax(np.abs(Q)))])!r}")
    dof = Q.shape[1]
    vmax = np.broadcast_to(np.asarray(max_velocity, dtype=float), (dof,))
    amax = np.broadcast_to(np.asarray(max_acceleration, dtype=float), (dof,))
    if not (np.all(vmax > 0) and np.all(amax > 0) and np.all(np.isfinite(vmax)) and np.all(np.isfinite(amax))):
        raise ValueError("max_velocity, max_acceleration: must be finite and > 0")
    if not (rate_hz > 0 and math.isfinite(rate_hz) and math.isfinite(1.0 / rate_hz)):
        raise ValueError(f"rate_hz: must be finite and > 0 (with a finite period), got {rate_hz!r}")
    if isinstance(max_samples, bool) or not isinstance(max_samples, int) or max_samples < 2:
        raise ValueError(f"max_samples: must be an integer >= 2, got {max_samples!r}")
    dt = 1.0 / rate_hz
    if len(Q) == 1 or np.all(Q == Q[0]):
        z = np.zeros((1, dof))
        return Trajectory(np.zeros(1), Q[:1].copy(), z, z.copy(), rate_hz)

    if len(Q) == 2:
        # One segment cannot start and end at rest with one constant u'' (both knot speeds are 0:
        # this used to ask for a 2e300 s segment). Its cubic is the straight joint line: time it
        # exactly instead, time-optimally.
        return _line_trajectory(Q[0], Q[1], vmax, amax, rate_hz, max_samples)
    m = _hermite(Q)
    nseg = len(Q) - 1
    # Bounds of |dq/du| and |d2q/du2| on each cubic segment (both are extreme at the ends or, for
    # dq/du, at its vertex; 1.5 x the end values and the chord bounds it).
    d1 = np.maximum.reduce([np.abs(m[:-1]), np.abs(m[1:]), 1.5 * np.abs(Q[1:] - Q[:-1])])
    _, _, dd0 = _eval(Q, m, np.arange(nseg), np.zeros(nseg))
    _, _, dd1 = _eval(Q, m, np.arange(nseg), np.ones(nseg))
    d2 = np.maximum(np.abs(dd0), np.abs(dd1))
    with np.errstate(divide="ignore"):
        # Half of each acceleration limit for the curvature term d2q u'^2, half for dq u''.
        v_seg = np.min(np.where(d1 > 0, vmax / d1, np.inf), axis=1)
        v_seg = np.minimum(v_seg, np.min(np.where(d2 > 0, np.sqrt(0.5 * amax / d2), np.inf), axis=1))
        a_seg = np.min(np.where(d1 > 0, 0.5 * amax / d1, np.inf), axis=1)
    v_seg = np.minimum(v_seg, 1e12)
    a_seg = np.minimum(a_seg, 1e12)
    # knot speeds: each bounded by its neighbouring segments; rest at both ends
    v = np.empty(nseg + 1)
    v[0] = 0.0
    v[-1] = 0.0
    v[1:-1] = np.minimum(v_seg[:-1], v_seg[1:])
    for k in range(nseg):  # forward: accelerate within a segment's limit over one unit of u
        v[k + 1] = min(v[k + 1], math.sqrt(v[k] ** 2 + 2 * a_seg[k]))
    for k in range(nseg - 1, -1, -1):  # backward: be able to stop
        v[k] = min(v[k], math.sqrt(v[k + 1] ** 2 + 2 * a_seg[k]))
    seg_t = 2.0 / np.maximum(v[:-1] + v[1:], 1e-300)  # constant u'' within a segment
    t_knots = np.concatenate([[0.0], np.cumsum(seg_t)])

    scale = 1.0
    for _ in range(30):
        T_end = t_knots[-1] * scale
        M = _sample_count(T_end, dt, max_samples)
        t = np.arange(M) * dt  # the last sample may lie past T_end: the arm is at rest there
        tau_all = np.minimum(t, T_end) / scale
        k = np.clip(np.searchsorted(t_knots, tau_all, side="right") - 1, 0, nseg - 1)
        tau = tau_all - t_knots[k]
        acc = (v[k + 1] ** 2 - v[k] ** 2) / 2.0
        u_loc = np.clip(v[k] * tau + 0.5 * acc * tau * tau, 0.0, 1.0)
        ud = np.maximum(v[k] + acc * tau, 0.0) / scale
        udd = acc / scale ** 2
        q, dq, ddq = _eval(Q, m, k, u_loc)
        qd = dq * ud[:, None]
        qdd = ddq * (ud ** 2)[:, None] + dq * udd[:, None]
        q[-1], qd[-1], qdd[-1] = Q[-1], 0.0, 0.0  # at rest on the last sample
        qd[0] = 0.0
        fd_v = np.abs(np.diff(q, axis=0)) / dt
        fd_a = np.abs(np.diff(q, 2, axis=0)) / dt ** 2 if M > 2 else np.zeros((0, dof))
        ratio_v = max(float(np.max(np.abs(qd) / vmax)), float(np.max(fd_v / vmax, initial=0.0)))
        ratio_a = max(float(np.max(np.abs(qdd) / amax)), float(np.max(fd_a / amax, initial=0.0)))
        if ratio_v <= 1.0 and ratio_a <= 1.0:
            return Trajectory(t, q, qd, qdd, rate_hz)
        scale *= max(ratio_v, math.sqrt(ratio_a), 1.0) * 1.02
    raise RuntimeError("time_parameterize: could not meet the limits")  # not reached in practice
