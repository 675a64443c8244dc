"""The last safety stage before the CAN bus: joint commands in the PiPER's 0.001 deg integers,
inside the joint limits with a margin, with bounded velocity and acceleration between ticks.

``MotionLimiter.step(target)`` returns the next command. A target the limits let it reach is
commanded as it is (a timed trajectory passes unchanged); a target that jumps is approached: each
joint accelerates, cruises and brakes toward it (time-optimal per joint, with the target's own
velocity fed forward when it moves smoothly), and never overshoots a joint limit. ``step(None)``
brakes to rest. The rules, for every joint and every tick (c = the command, dt = 1 / rate):

* position: inside ``[lower + margin, upper - margin]``; a joint that starts inside the margin band
  (the PiPER's rest pose has joints 2 and 3 on their limits) may only move inward, never further out,
  and never past ``[lower, upper]``;
* velocity: ``|c[k] - c[k-1]| <= max_velocity * dt``;
* acceleration: ``|c[k] - 2 c[k-1] + c[k-2]| <= max_acceleration * dt^2``.

The limits hold exactly on the limiter's own (real-valued) command; the wire carries it rounded to
0.001 deg, which adds at most one count to a step and two to a second difference (at 500 Hz and
2.5 rad/s^2 the acceleration bound itself is only 0.57 counts per tick^2, so rounding cannot be
avoided there). The position band is exact on the integers (its edges are rounded inward).
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence

import numpy as np

from ..poses import MDEG_PER_RAD


def _vec(value, n: int, name: str, positive: bool = False) -> np.ndarray:
    arr = np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: must be finite, got {value!r}")
    if positive and not np.all(arr > 0):
        raise ValueError(f"{name}: must be > 0 for every joint, got {value!r}")
    return arr


class MotionLimiter:
    """Joint command shaping at a fixed rate (see the module docstring for the rules).

    Parameters are in SI units (rad, rad/s, rad/s^2, Hz); commands are int 0.001 deg.
    """

    def __init__(self, lower_rad: Sequence[float], upper_rad: Sequence[float], *, margin_rad: float,
                 max_velocity_rad_s, max_acceleration_rad_s2, rate_hz: float) -> None:
        lower = np.asarray(lower_rad, dtype=float)
        n = lower.shape[0]
        upper = _vec(upper_rad, n, "upper_rad")
        if not (math.isfinite(margin_rad) and margin_rad >= 0):
            raise ValueError(f"margin_rad: must be finite and >= 0, got {margin_rad!r}")
        if not np.all(upper - lower > 2 * margin_rad):
            raise ValueError(f"margin_rad: {margin_rad} leaves no room between a joint's limits")
        if not (math.isfinite(rate_hz) and rate_hz > 0):
            raise ValueError(f"rate_hz: must be finite and > 0, got {rate_hz!r}")
        self.dof = n
        self.rate_hz = float(rate_hz)
        self.dt_s = 1.0 / self.rate_hz
        self.margin_rad = float(margin_rad)
        vmax = _vec(max_velocity_rad_s, n, "max_velocity_rad_s", positive=True)
        amax = _vec(max_acceleration_rad_s2, n, "max_acceleration_rad_s2", positive=True)
        self.max_velocity_rad_s = vmax
        self.max_acceleration_rad_s2 = amax
        # everything below in 0.001 deg
        self._lo_hard = [math.ceil(x * MDEG_PER_RAD) for x in lower]
        self._hi_hard = [math.floor(x * MDEG_PER_RAD) for x in upper]
        self._lo_band = [math.ceil((x + margin_rad) * MDEG_PER_RAD) for x in lower]
        self._hi_band = [math.floor((x - margin_rad) * MDEG_PER_RAD) for x in upper]
        self._vmax = [float(x) * MDEG_PER_RAD for x in vmax]
        self._amax = [float(x) * MDEG_PER_RAD for x in amax]
        self._dv = [a * self.dt_s for a in self._amax]
        self._k2 = [2.0 / (a * self.dt_s * self.dt_s) for a in self._amax]
        self._c: List[float] = [0.0] * n   # last command, before rounding to the wire's integers
        self._v: List[float] = [0.0] * n   # (c[k] - c[k-1]) / dt
        self._p_prev: Optional[List[float]] = None
        self._ready = False

    # ------------------------------------------------------------------------------------ state
    def reset(self, q_rad: Sequence[float]) -> None:
        """Start at rest at q_rad (the measured joints)."""
        q = _vec(q_rad, self.dof, "q_rad")
        self._c = [float(round(x * MDEG_PER_RAD)) for x in q]
        self._v = [0.0] * self.dof
        self._p_prev = None
        self._ready = True

    @property
    def command_mdeg(self) -> List[int]:
        """The last command [0.001 deg], as sent."""
        return [int(round(x)) for x in self._c]

    @property
    def command_rad(self) -> np.ndarray:
        return np.rint(self._c) / MDEG_PER_RAD

    @property
    def velocity_rad_s(self) -> np.ndarray:
        return np.asarray(self._v) / MDEG_PER_RAD

    @property
    def at_rest(self) -> bool:
        return all(v == 0.0 for v in self._v)

    def in_band(self, q_rad: Sequence[float], reference_rad: Optional[Sequence[float]] = None) -> Optional[str]:
        """None if every joint of q_rad is inside the margin band (or, for a joint of
        ``reference_rad`` that is itself inside the margin, no further out than it); else why not."""
        for j, x in enumerate(q_rad):
            m = x * MDEG_PER_RAD
            lo, hi = self._lo_band[j], self._hi_band[j]
            if reference_rad is not None:
                r = reference_rad[j] * MDEG_PER_RAD
                lo, hi = max(self._lo_hard[j], min(lo, r)), min(self._hi_hard[j], max(hi, r))
            if not (lo - 0.5 <= m <= hi + 0.5):
                return (f"joint {j + 1} = {x:.4f} rad is within limit_margin_rad = {self.margin_rad:.4g} of its "
                        f"limits [{self._lo_hard[j] / MDEG_PER_RAD:.4f}, {self._hi_hard[j] / MDEG_PER_RAD:.4f}] rad")
        return None

    # ------------------------------------------------------------------------------------ step
    def step(self, target_rad: Optional[Sequence[float]]) -> List[int]:
        """The next command [0.001 deg] toward ``target_rad`` (None: brake to rest)."""
        if not self._ready:
            raise RuntimeError("MotionLimiter.step: call reset(q_measured) first")
        dt = self.dt_s
        if target_rad is None:
            p = None
            self._p_prev = None
            jump = True
        else:
            p = [x * MDEG_PER_RAD for x in target_rad]
            # a target that moves faster than a joint may is a jump: approach it as a fixed point
            jump = self._p_prev is None or any(
                abs(p[j] - self._p_prev[j]) > 1.5 * self._vmax[j] * dt for j in range(self.dof))
        out = [0] * self.dof
        sqrt = math.sqrt
        for j in range(self.dof):
            c, v, vmax = self._c[j], self._v[j], self._vmax[j]
            dv, k2 = self._dv[j], self._k2[j]     # amax dt; 2 / (amax dt^2)
            lo = max(self._lo_hard[j], min(self._lo_band[j], c))   # the band, widened to where the joint is
            hi = min(self._hi_hard[j], max(self._hi_band[j], c))
            if p is None:
                v_des = 0.0
            else:
                pj = min(max(p[j], lo), hi)
                vt = 0.0 if jump else (p[j] - self._p_prev[j]) / dt
                u = pj - c - vt * dt               # what remains after moving with the target
                au = abs(u)
                w = min(dv * (sqrt(0.25 + k2 * au) - 0.5), au / dt)   # stoppable within |u|, no overshoot
                v_des = vt + w if u >= 0 else vt - w
            v_new = min(max(v_des, v - dv, -vmax), v + dv, vmax)
            if v_new > 0.0:    # can stop before the band's edge (see _stoppable)
                v_new = min(v_new, dv * (sqrt(0.25 + k2 * max(hi - c, 0.0)) - 0.5))
            elif v_new < 0.0:
                v_new = max(v_new, -dv * (sqrt(0.25 + k2 * max(c - lo, 0.0)) - 0.5))
            x = min(max(c + v_new * dt, lo), hi)
            self._v[j] = (x - c) / dt
            self._c[j] = x
            out[j] = int(round(x))
        self._p_prev = p
        return out


def _stoppable(distance: float, amax: float, dt: float) -> float:
    """The largest speed at which, after one more tick, braking by amax*dt per tick stops within
    ``distance`` (all in the same length unit): w dt / 2 + w^2 / (2 amax) <= distance."""
    a_dt = amax * dt
    return a_dt * (math.sqrt(0.25 + 2.0 * distance / (amax * dt * dt)) - 0.5)
