"""Drive a PiPER over CAN through AgileX's piper_sdk: poses in, limit-safe joint commands out.

    from piperik.agilex import PiperDriver
    with PiperDriver.from_channel("can0") as drv:       # enables the arm, joint mode (MOVE J)
        drv.move_to_pose(T)                              # a straight line from where the arm is
        drv.follow(lambda t_s: T_teleop(t_s), rate_hz=200, duration_s=10)   # teleoperation

Every tick of every verb goes through the same loop: read the joint feedback (0.001 deg) and the
arm status, check both (stale feedback -> :class:`FeedbackStaleError`, an error status ->
:class:`ArmFaultError`, both leave the arm holding its last command), compute the target
(a timed trajectory sample, or ``ik(T, q_prev)`` of the pose), shape it with
:class:`~piperik.agilex.limiter.MotionLimiter` (joint limits with a margin, velocity and
acceleration between ticks), and send it as one ``JointCtrl`` (three frames, never interrupted).
An IK failure, an unreachable pose or a branch jump holds the last target and is reported
(:attr:`DriveReport.holds`, and ``on_status``). An exception from the caller's pose source brakes to
rest, then propagates. Ctrl-C (SIGINT, when the loop runs in the main thread)
brakes to rest within the acceleration limits, then raises ``KeyboardInterrupt``; a second Ctrl-C
stops at once, after the command being sent.
"""
from __future__ import annotations

import math
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._core import NoSolutionError
from ..poses import MDEG_PER_RAD, _matrix
from ..robots import Piper, SelectOptions
from ..trajectory import plan_cartesian, time_parameterize
from . import frames as F
from .limiter import MotionLimiter
from .sim import FIRMWARE_RE, firmware_is_legacy


class DriveError(RuntimeError):
    """The driver stopped streaming; the arm holds its last command."""


class FeedbackStaleError(DriveError):
    """No joint feedback for longer than ``feedback_timeout_s``."""


class ArmFaultError(DriveError):
    """The arm reports an error status (0x2A1)."""

    def __init__(self, message: str, arm_status: int, err_code: int) -> None:
        super().__init__(message)
        self.arm_status = arm_status
        self.err_code = err_code


@dataclass
class Hold:
    """Consecutive ticks at which the target was held instead of followed, and why."""

    tick: int          #: the first tick held (counting the ticks sent in this motion, from 0)
    reason: str
    ticks: int = 1     #: how many consecutive ticks held for this reason


@dataclass
class DriveReport:
    """What one motion did: timing of every tick and the safety events."""

    rate_hz: float
    ticks: int = 0
    t_tick_s: List[float] = field(default_factory=list)     #: tick start times (perf_counter)
    compute_s: List[float] = field(default_factory=list)    #: feedback checks + IK + selection + shaping, wall time
    compute_cpu_s: List[float] = field(default_factory=list)  #: the same, CPU time of the loop's thread
    check_cpu_s: List[float] = field(default_factory=list)    #: of which the feedback and status checks
    target_cpu_s: List[float] = field(default_factory=list)   #: ... the target (follow: IK + selection + jump check)
    limit_cpu_s: List[float] = field(default_factory=list)    #: ... the MotionLimiter step
    send_s: List[float] = field(default_factory=list)       #: the JointCtrl call (three frames), wall time
    send_cpu_s: List[float] = field(default_factory=list)   #: the same, CPU time
    holds: List[Hold] = field(default_factory=list)
    overruns: int = 0                                        #: ticks skipped because one ran late
    min_margin_rad: float = math.inf                         #: smallest distance of a command to a limit
    min_margin_joint: int = -1                               #: its joint, 1-based
    interrupted: bool = False

    @property
    def period_error_s(self) -> np.ndarray:
        """|actual period - 1/rate| of every tick after the first [s]."""
        t = np.asarray(self.t_tick_s)
        return np.abs(np.diff(t) - 1.0 / self.rate_hz) if len(t) > 1 else np.zeros(0)

    @property
    def achieved_rate_hz(self) -> float:
        t = self.t_tick_s
        return (len(t) - 1) / (t[-1] - t[0]) if len(t) > 1 and t[-1] > t[0] else 0.0

    def summary(self) -> str:
        pe = self.period_error_s * 1e3
        comp = np.asarray(self.compute_cpu_s) * 1e6
        p50, p99 = (np.percentile(pe, [50, 99]) if len(pe) else (0.0, 0.0))
        c50 = float(np.median(comp)) if len(comp) else 0.0
        margin = (f"{math.degrees(self.min_margin_rad):.1f} deg (joint {self.min_margin_joint})"
                  if self.min_margin_joint > 0 else "-")
        return (f"{self.ticks} ticks at {self.achieved_rate_hz:.1f} Hz (asked {self.rate_hz:g}); period error "
                f"p50 {p50:.3f} ms p99 {p99:.3f} ms; checks + IK + limits p50 {c50:.0f} us CPU; holds {len(self.holds)}; "
                f"overruns {self.overruns}; smallest joint margin {margin}")


def _within(value, arm_max, name: str, unit: str) -> np.ndarray:
    """Per-joint limits (a number or 6 numbers), each > 0 and at most the arm's own."""
    try:
        arr = np.broadcast_to(np.asarray(value, dtype=float), (6,)).copy()
    except ValueError:
        raise ValueError(f"{name}: expected a number or 6 numbers [{unit}], got {value!r}") from None
    top = np.asarray(arm_max, dtype=float)
    if not (np.all(np.isfinite(arr)) and np.all(arr > 0) and np.all(arr <= top)):
        raise ValueError(f"{name}: each must be > 0 and at most the arm's {top.tolist()} {unit}, got {arr.tolist()}")
    return arr


PoseSource = Union[Callable[[float], Optional[np.ndarray]], Iterable]


class PiperDriver:
    """A PiPER driven by joint commands computed on the host.

    ``piper``: a connected ``piper_sdk.C_PiperInterface_V2`` (or use :meth:`from_channel`).
    ``arm``: the kinematic model poses refer to (default ``piperik.Piper(legacy_zero=...)``). Any
    object with piperik's arm interface works (``fk``, ``select``, ``lower``, ``upper``).
    ``tool``: a flange -> TCP transform (4x4 or x, y, z, roll, pitch, yaw [m, rad]) for the default
    arm, ``Piper(legacy_zero=..., tool=tool)``: every pose is then the tool centre point's (or pass
    your own ``arm=piperik.Piper(tool=...)``). ``legacy_zero``: None reads the firmware version (0x4AF)
    and uses the old joint zeros before S-V1.6-3; True / False forces it.

    Safety settings: ``limit_margin_rad`` (commands stay this far inside the joint limits),
    ``max_velocity_rad_s`` / ``max_acceleration_rad_s2`` (per joint, between ticks; default half of
    the arm's 3 rad/s and 5 rad/s^2, and at most those), ``max_jump_rad`` (a new IK target farther than this from the
    previous one in any joint is a branch jump and is held), ``feedback_timeout_s`` (no joint
    feedback for this long stops streaming). ``fast_mode``: the SDK's MIT flag 0xAD on JointCtrl
    (the controller passes commands on without its own smoothing; lower latency, the host's limits
    are all there is). ``speed_percent``: the controller's own speed limit in position-velocity mode.
    ``on_status``: called about five times a second during a motion with a dict: ``tick``,
    ``rate_hz`` (achieved), ``period_error_p50_ms`` / ``period_error_p99_ms`` (last 200 ticks),
    ``q_measured_rad``, ``margins_rad`` (each commanded joint's distance to its nearer limit) and
    ``hold`` (why the target is held, or None); ``piperik drive`` prints it as its status line.
    """

    def __init__(self, piper, *, arm=None, legacy_zero: Optional[bool] = None, tool=None, rate_hz: float = 200.0,
                 limit_margin_rad: float = math.radians(1.0), max_velocity_rad_s=1.5,
                 max_acceleration_rad_s2=2.5, max_jump_rad: float = 1.0, feedback_timeout_s: float = 0.1,
                 speed_percent: int = 100, fast_mode: bool = False, enable: bool = True,
                 enable_timeout_s: float = 5.0, on_status: Optional[Callable[[dict], None]] = None) -> None:
        if not (isinstance(rate_hz, (int, float)) and math.isfinite(rate_hz) and 1.0 <= rate_hz <= 2000.0):
            raise ValueError(f"rate_hz: must be in [1, 2000] Hz, got {rate_hz!r}")
        if not (math.isfinite(feedback_timeout_s) and feedback_timeout_s > 0):
            raise ValueError(f"feedback_timeout_s: must be finite and > 0, got {feedback_timeout_s!r}")
        if not (isinstance(limit_margin_rad, (int, float)) and math.isfinite(limit_margin_rad) and limit_margin_rad >= 0):
            raise ValueError(f"limit_margin_rad: must be finite and >= 0, got {limit_margin_rad!r}")
        if not (math.isfinite(max_jump_rad) and max_jump_rad > 0):
            raise ValueError(f"max_jump_rad: must be finite and > 0, got {max_jump_rad!r}")
        if not (isinstance(speed_percent, int) and 1 <= speed_percent <= 100):
            raise ValueError(f"speed_percent: must be an integer in [1, 100], got {speed_percent!r}")
        if legacy_zero is not None and not isinstance(legacy_zero, (bool, np.bool_)):
            raise ValueError(f"legacy_zero: expected None (read the firmware version), True or False, got {legacy_zero!r}")
        self._piper = piper
        self.firmware_version: Optional[str] = None
        if arm is None:
            if legacy_zero is None:
                self.firmware_version = self.read_firmware_version()
                legacy_zero = firmware_is_legacy(self.firmware_version)
            arm = Piper(legacy_zero=bool(legacy_zero), tool=tool)
        elif tool is not None:
            raise ValueError("tool: give it to the arm (Piper(tool=...)) when you pass arm=")
        elif legacy_zero is not None and getattr(arm, "legacy_zero", legacy_zero) != legacy_zero:
            raise ValueError(f"legacy_zero: {legacy_zero} contradicts arm {arm!r}")
        if getattr(arm, "dof", 6) != 6:
            raise ValueError(f"arm: the PiPER has 6 joints, {arm!r} has {arm.dof}")
        self.arm = arm
        self.rate_hz = float(rate_hz)
        self.limit_margin_rad = float(limit_margin_rad)
        self.max_velocity_rad_s = _within(max_velocity_rad_s, arm.max_velocity, "max_velocity_rad_s", "rad/s")
        self.max_acceleration_rad_s2 = _within(max_acceleration_rad_s2, arm.max_acceleration,
                                               "max_acceleration_rad_s2", "rad/s^2")
        self.max_jump_rad = float(max_jump_rad)
        self.feedback_timeout_s = float(feedback_timeout_s)
        self.speed_percent = speed_percent
        self.fast_mode = bool(fast_mode)
        self.on_status = on_status
        # validates the limits and the margin
        MotionLimiter(arm.lower, arm.upper, margin_rad=self.limit_margin_rad, max_velocity_rad_s=self.max_velocity_rad_s,
                      max_acceleration_rad_s2=self.max_acceleration_rad_s2, rate_hz=self.rate_hz)
        self._options = SelectOptions()
        self._fb_stamp = None
        self._fb_seen_at = -math.inf
        self._last_cmd_mdeg: Optional[List[int]] = None
        self._stop_request = threading.Event()
        self._running = threading.Lock()
        self.last_report: Optional[DriveReport] = None
        self.last_hold_reason: Optional[str] = None
        self._hold_open = False
        if enable:
            self.enable(timeout_s=enable_timeout_s)

    # ------------------------------------------------------------------------------------ set-up
    @classmethod
    def from_channel(cls, channel: str = "can0", interface: str = "socketcan", **kwargs) -> "PiperDriver":
        """Create the piper_sdk interface on a CAN channel (python-can ``interface``: "socketcan" on
        Linux, "slcan" for a serial adapter, "virtual" for :class:`~piperik.agilex.SimulatedPiper`),
        connect it without the SDK's own initialisation, and wrap it. ``kwargs`` go to the constructor.

        piper_sdk keeps one interface per channel name in a process (``C_PiperInterface_V2`` is a
        per-name singleton); on the ``virtual`` interface its reader thread cannot be woken after a
        disconnect, so give every simulated arm in a process its own channel name."""
        from piper_sdk import C_PiperInterface_V2

        piper = C_PiperInterface_V2(channel, judge_flag=False, can_auto_init=False)
        piper.CreateCanBus(channel, bustype=interface, expected_bitrate=1_000_000,
                           judge_flag=(interface == "socketcan"))
        piper.ConnectPort(can_init=False, piper_init=False)
        return cls(piper, **kwargs)

    @property
    def piper(self):
        """The wrapped ``C_PiperInterface_V2``."""
        return self._piper

    def read_firmware_version(self, timeout_s: float = 2.0) -> str:
        """Ask the arm (0x4AF) and return its firmware version, e.g. ``"S-V1.8-5"``."""
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            self._piper.SearchPiperFirmwareVersion()
            t_ask = time.monotonic()
            while time.monotonic() < min(t_ask + 0.2, end):
                v = self._piper.GetPiperFirmwareVersion()
                if isinstance(v, str) and FIRMWARE_RE.search(v):
                    return FIRMWARE_RE.search(v).group(0)
                time.sleep(0.005)
        raise DriveError(f"no firmware version from the arm within {timeout_s} s (0x4AF); is it powered and on "
                         "this CAN channel? Pass legacy_zero=True (firmware before S-V1.6-3) or False to skip")

    def _mode(self) -> None:
        """CAN control, MOVE J, speed percent, MIT flag (0x151)."""
        self._piper.MotionCtrl_2(F.CTRL_MODE_CAN, F.MOVE_J, self.speed_percent,
                                 F.MIT_ON if self.fast_mode else F.MIT_OFF)

    def enable(self, timeout_s: float = 5.0) -> None:
        """Enable all motors (0x471) until every motor reports enabled, then select joint mode."""
        end = time.monotonic() + timeout_s
        while True:
            self._piper.EnableArm(F.ALL_MOTORS)
            if all(self._piper.GetArmEnableStatus()):
                break
            if time.monotonic() > end:
                raise DriveError(f"the arm did not report all six motors enabled within {timeout_s} s "
                                 f"(low-speed feedback 0x261-0x266: {self._piper.GetArmEnableStatus()})")
            time.sleep(0.02)
        self._mode()
        self.wait_for_feedback(timeout_s=max(0.5, end - time.monotonic()))

    def disable(self) -> None:
        """Disable all motors. On the real arm the joints go limp and the arm falls: support it first."""
        self._piper.DisableArm(F.ALL_MOTORS)

    def close(self) -> None:
        """Disconnect the SDK from the bus (the arm keeps holding its last command)."""
        try:
            self._piper.DisconnectPort()
        except Exception:  # pragma: no cover - the SDK's own errors on an already closed port
            pass

    def __enter__(self) -> "PiperDriver":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------------------------ feedback
    def _joint_msgs(self):
        msg = self._piper.GetArmJointMsgs()
        js = msg.joint_state
        return msg.time_stamp, (js.joint_1, js.joint_2, js.joint_3, js.joint_4, js.joint_5, js.joint_6)

    def wait_for_feedback(self, timeout_s: float = 1.0) -> np.ndarray:
        """Wait until a joint feedback frame arrives after this call; return the joints [rad]."""
        stamp0, _ = self._joint_msgs()
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            stamp, mdeg = self._joint_msgs()
            if stamp and stamp != stamp0:
                self._fb_stamp, self._fb_seen_at = stamp, time.monotonic()
                return np.asarray(mdeg, dtype=float) / MDEG_PER_RAD
            time.sleep(0.001)
        raise FeedbackStaleError(f"no joint feedback (0x2A5-0x2A7) within {timeout_s} s: is the arm powered, "
                                 "on this CAN channel, at 1 Mbit/s?")

    @property
    def q_measured_rad(self) -> np.ndarray:
        """The last joint feedback [rad] (0x2A5-0x2A7, 0.001 deg on the wire)."""
        return np.asarray(self._joint_msgs()[1], dtype=float) / MDEG_PER_RAD

    def measured_flange_pose(self) -> np.ndarray:
        """The arm's own end-pose feedback (0x2A2-0x2A4: 0.001 mm, 0.001 deg) as a 4x4 pose [m]."""
        from ..poses import pose_from_piper_units

        ep = self._piper.GetArmEndPoseMsgs().end_pose
        return pose_from_piper_units([ep.X_axis, ep.Y_axis, ep.Z_axis, ep.RX_axis, ep.RY_axis, ep.RZ_axis])

    def _check(self, now: float) -> np.ndarray:
        """Stale feedback or an arm error raises; else the measured joints [rad]."""
        stamp, mdeg = self._joint_msgs()
        if stamp != self._fb_stamp:
            self._fb_stamp, self._fb_seen_at = stamp, now
        elif now - self._fb_seen_at > self.feedback_timeout_s:
            raise FeedbackStaleError(
                f"joint feedback stale: no joint message (0x2A5-0x2A7) for {1e3 * (now - self._fb_seen_at):.0f} ms "
                f"(feedback_timeout_s = {self.feedback_timeout_s} s); stopped streaming, the arm holds its last command")
        st = self._piper.GetArmStatus().arm_status
        code = int(getattr(st.arm_status, "value", st.arm_status))
        err = int(st.err_code)
        if code != 0 or err != 0:
            raise ArmFaultError(
                f"arm error status: {F.ARM_STATUS_NAMES.get(code, hex(code))} (arm_status 0x{code:02X}), error bits "
                f"{F.describe_error_bits(err)} (0x{err:04X}); stopped streaming, the arm holds its last command",
                code, err)
        return np.asarray(mdeg, dtype=float) / MDEG_PER_RAD

    # ------------------------------------------------------------------------------------ the loop
    def _new_limiter(self, rate_hz: float) -> MotionLimiter:
        return MotionLimiter(self.arm.lower, self.arm.upper, margin_rad=self.limit_margin_rad,
                             max_velocity_rad_s=self.max_velocity_rad_s,
                             max_acceleration_rad_s2=self.max_acceleration_rad_s2, rate_hz=rate_hz)

    def _send(self, cmd_mdeg: Sequence[int]) -> None:
        self._piper.JointCtrl(*[int(c) for c in cmd_mdeg])
        self._last_cmd_mdeg = list(cmd_mdeg)

    def _loop(self, target_fn: Callable[[int, float, np.ndarray], Tuple[Optional[np.ndarray], bool]],
              rate_hz: float, settle: bool = True) -> DriveReport:
        """Run ticks at rate_hz. ``target_fn(k, t_s, q_measured) -> (target_rad or None to hold, done)``.
        After ``done`` (and with ``settle``), runs until the command is at rest on the last target."""
        if not self._running.acquire(blocking=False):
            raise DriveError("another motion is running on this driver")
        report = DriveReport(rate_hz=rate_hz)
        self.last_report = report
        self._stop_request.clear()
        interrupts = [0]
        old_handler = None
        in_main = threading.current_thread() is threading.main_thread()
        if in_main:
            def on_sigint(signum, frame):
                interrupts[0] += 1
            old_handler = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, on_sigint)
        try:
            lim = self._new_limiter(rate_hz)
            lim.reset(self._start_q())
            lower, upper = np.asarray(self.arm.lower), np.asarray(self.arm.upper)
            period = 1.0 / rate_hz
            target: Optional[np.ndarray] = None
            done = braking = False
            pending: Optional[BaseException] = None
            mode_every = max(1, int(round(0.1 * rate_hz)))  # 0x151 again every 100 ms
            self._mode()
            t0 = time.perf_counter()
            k = 0
            k_done = None
            settle_ticks = int(10.0 * rate_hz)   # a target out of reach is not waited for longer than 10 s
            while True:
                deadline = t0 + k * period
                delay = deadline - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                elif delay < -period:  # late by more than a period: skip ticks, never burst
                    skipped = int(-delay / period)
                    report.overruns += skipped
                    k += skipped
                t_start = time.perf_counter()
                cpu_start = time.thread_time()
                report.t_tick_s.append(t_start)
                if interrupts[0] >= 2:
                    report.interrupted = True
                    raise KeyboardInterrupt
                q_meas = self._check(time.monotonic())
                cpu_checked = time.thread_time()
                if (interrupts[0] or self._stop_request.is_set()) and not braking:
                    braking = True
                    report.interrupted = bool(interrupts[0])
                if not braking and not done:
                    try:
                        new_target, done = target_fn(k, k * period, q_meas)
                    except Exception as exc:   # the caller's pose source failed: brake, then raise it
                        pending, braking = exc, True
                    else:
                        if new_target is not None:
                            target = new_target
                cpu_target = time.thread_time()
                cmd = lim.step(None if braking else target)
                t_comp, cpu_comp = time.perf_counter(), time.thread_time()
                if k % mode_every == 0:
                    self._mode()
                self._send(cmd)
                t_sent, cpu_sent = time.perf_counter(), time.thread_time()
                report.compute_s.append(t_comp - t_start)
                report.compute_cpu_s.append(cpu_comp - cpu_start)
                report.check_cpu_s.append(cpu_checked - cpu_start)
                report.target_cpu_s.append(cpu_target - cpu_checked)
                report.limit_cpu_s.append(cpu_comp - cpu_target)
                report.send_s.append(t_sent - t_comp)
                report.send_cpu_s.append(cpu_sent - cpu_comp)
                report.ticks += 1
                c = np.asarray(cmd, dtype=float) / MDEG_PER_RAD
                margins = np.minimum(c - lower, upper - c)
                j = int(np.argmin(margins))
                if margins[j] < report.min_margin_rad:
                    report.min_margin_rad, report.min_margin_joint = float(margins[j]), j + 1
                if self.on_status is not None and report.ticks > 1 and k % max(1, int(rate_hz // 5)) == 0:
                    self.on_status(self._status(report, q_meas, margins))
                k += 1
                if braking and lim.at_rest:
                    if report.interrupted:
                        raise KeyboardInterrupt
                    if pending is not None:
                        raise pending
                    break
                if done and (not settle or (lim.at_rest and target is not None and
                                            np.array_equal(cmd, np.rint(target * MDEG_PER_RAD)))):
                    break
                if done and target is None:
                    break
                if done:
                    k_done = k if k_done is None else k_done
                    if k - k_done > settle_ticks:
                        self._hold(report, report.ticks, "did not settle on the last target within 10 s")
                        break
            return report
        finally:
            if in_main:
                signal.signal(signal.SIGINT, old_handler if old_handler is not None else signal.default_int_handler)
            self._running.release()

    def _status(self, report: DriveReport, q_meas: np.ndarray, margins: np.ndarray) -> dict:
        pe = report.period_error_s[-200:] * 1e3
        return {
            "tick": report.ticks, "rate_hz": report.achieved_rate_hz,
            "period_error_p50_ms": float(np.median(pe)) if len(pe) else 0.0,
            "period_error_p99_ms": float(np.percentile(pe, 99)) if len(pe) else 0.0,
            "q_measured_rad": q_meas, "margins_rad": margins,
            "hold": self.last_hold_reason,
        }

    def _hold(self, report: DriveReport, k: int, reason: str) -> None:
        self.last_hold_reason = reason
        last = report.holds[-1] if report.holds else None
        if last is not None and last.reason == reason and self._hold_open:
            last.ticks += 1
        else:
            report.holds.append(Hold(k, reason))
        self._hold_open = True

    # ------------------------------------------------------------------------------------ verbs
    def _stream(self, q_path: np.ndarray) -> DriveReport:
        traj = time_parameterize(q_path, self.max_velocity_rad_s, self.max_acceleration_rad_s2, rate_hz=self.rate_hz)
        Q = traj.q_rad
        n = len(Q)

        def target(k, t, q):
            # samples in order, one per tick sent: a late tick slows the motion, it never skips a sample
            i = self.last_report.ticks
            return Q[min(i, n - 1)], i >= n - 1

        return self._loop(target, self.rate_hz)

    def move_joints(self, q_rad) -> DriveReport:
        """Move to the joints ``q_rad`` (6,) [rad] on a straight joint-space line, timed within the
        velocity and acceleration limits; returns when the command is at rest there."""
        q = np.asarray(q_rad, dtype=float)
        if q.shape != (6,) or not np.all(np.isfinite(q)):
            raise ValueError(f"q_rad: expected 6 finite joint angles [rad], got {q_rad!r}")
        lim = self._new_limiter(self.rate_hz)
        why = lim.in_band(q)
        if why:
            raise ValueError(f"q_rad: {why}; nothing was sent")
        q0 = self._start_q()
        self.last_hold_reason = None
        return self._stream(np.stack([q0, q]))

    def _start_q(self) -> np.ndarray:
        q = self._check(time.monotonic())
        if self._last_cmd_mdeg is not None:
            last = np.asarray(self._last_cmd_mdeg, dtype=float) / MDEG_PER_RAD
            if np.allclose(last, q, atol=math.radians(2.0)):
                return last
        return q

    def move_to_pose(self, T, *, via: Sequence = (), max_joint_step_rad: float = 0.02) -> DriveReport:
        """Move the flange (the arm's pose frame) to ``T`` (4x4) on a straight line with SLERP
        orientation from where the arm is (``via``: poses to pass through, each segment straight):
        ``plan_cartesian`` from the measured joints, timed, streamed. The whole line is checked before
        anything is sent: an unreachable pose, a branch switch or a joint inside the limit margin
        raises ``NoSolutionError`` / ``ValueError`` and the arm does not move."""
        q0 = self._start_q()
        waypoints = [self.arm.fk(q0)] + [_matrix(W) for W in via] + [_matrix(T)]
        for name, W in [(f"via[{i}]", W) for i, W in enumerate(waypoints[1:-1])] + [("T", waypoints[-1])]:
            try:
                self.arm.ik(W, options=self._options.replace(limit_margin_rad=self.limit_margin_rad))
            except NoSolutionError as exc:
                raise NoSolutionError(f"{name}: {exc}; nothing was sent") from None
        plan = plan_cartesian(self.arm, waypoints, q0, max_joint_step_rad=max_joint_step_rad)
        lim = self._new_limiter(self.rate_hz)
        for i, q in enumerate(plan.q):
            why = lim.in_band(q, reference_rad=q0)
            if why:
                raise ValueError(f"T: the line passes where {why} (sample {i} of {len(plan.q)}); nothing was sent")
        self.last_hold_reason = None
        return self._stream(plan.q)

    def follow(self, source: PoseSource, rate_hz: Optional[float] = None, *, duration_s: Optional[float] = None,
               settle: bool = True) -> DriveReport:
        """Teleoperation: each tick take a pose and command ``ik(T, q_prev)``.

        ``source``: a callable ``source(t_s) -> 4x4 pose`` (None: the stream has ended) called every
        tick with the time since the start, or an iterable giving one pose per tick. Stops at the end of
        the source or after ``duration_s``, then (``settle``) waits until the command is at rest on the
        last target. A pose that cannot be solved within the limits and the margin, or whose solution
        is farther than ``max_jump_rad`` from the previous target in any joint, is not followed: the
        last target is held and :attr:`last_hold_reason` / :attr:`DriveReport.holds` say why. A target
        that jumps is approached within the velocity and acceleration limits.
        """
        rate = self.rate_hz if rate_hz is None else float(rate_hz)
        if not (math.isfinite(rate) and 1.0 <= rate <= 2000.0):
            raise ValueError(f"rate_hz: must be in [1, 2000] Hz, got {rate_hz!r}")
        if duration_s is not None and not (math.isfinite(duration_s) and duration_s >= 0):
            raise ValueError(f"duration_s: must be finite and >= 0, got {duration_s!r}")
        if callable(source):
            get = source
        else:
            it: Iterator = iter(source)

            def get(t_s):
                return next(it, None)
        options = self._options.replace(limit_margin_rad=self.limit_margin_rad)
        state = {"q_prev": None}
        self.last_hold_reason = None

        def target(k, t, q_meas):
            if state["q_prev"] is None:
                state["q_prev"] = self._start_q()
            if duration_s is not None and t > duration_s:
                return None, True
            T = get(t)
            if T is None:
                return None, True
            rep = self.last_report
            try:
                sel = self.arm.select(T, state["q_prev"], options=options)
            except (NoSolutionError, ValueError) as exc:
                self._hold(rep, rep.ticks, f"pose not followed: {exc}")
                return None, False
            step = np.abs(sel.q - state["q_prev"])
            j = int(np.argmax(step))
            if step[j] > self.max_jump_rad or sel.branch_switched:
                self._hold(rep, rep.ticks, f"pose not followed: branch jump, joint {j + 1} would move {step[j]:.3f} rad "
                                   f"(max_jump_rad = {self.max_jump_rad})"
                           + (" with a branch switch" if sel.branch_switched else ""))
                return None, False
            self.last_hold_reason = None
            self._hold_open = False
            state["q_prev"] = sel.q
            return sel.q, False

        return self._loop(target, rate, settle=settle)

    def hold(self) -> None:
        """Keep the arm where it is commanded: re-send the last command (the measured joints if none
        was sent), which the controller holds. While a motion runs (another thread), the same as
        :meth:`stop`: it brakes to rest, and the loop's last command is held."""
        if self._running.locked():
            self._stop_request.set()
            return
        if self._last_cmd_mdeg is None:
            q = self._check(time.monotonic())
            self._last_cmd_mdeg = [int(round(x * MDEG_PER_RAD)) for x in q]
        self._mode()
        self._send(self._last_cmd_mdeg)

    def stop(self) -> None:
        """Ask a running motion (from another thread or a callback) to brake to rest within the
        acceleration limits and return; without one, :meth:`hold`."""
        if self._running.locked():
            self._stop_request.set()
        else:
            self.hold()
