"""A simulated PiPER on python-can's in-process ``virtual`` bus, for tests and for users without an arm.

    sim = SimulatedPiper("piperik-sim")                # its own thread; a PiPER at rest at q = 0
    piper = C_PiperInterface_V2("piperik-sim", judge_flag=False, can_auto_init=False)
    piper.CreateCanBus("piperik-sim", bustype="virtual")
    piper.ConnectPort(can_init=False, piper_init=False)  # piper_sdk, unmodified, on the same channel

What it does, the way the arm does it (piper_sdk 0.6.2's frames; see :mod:`piperik.agilex.frames`):

* decodes the enable / disable frame (0x471), the motion-control frames (0x150 emergency stop /
  resume, 0x151 control and move mode, speed percent, MIT flag), the joint commands (0x155-0x157,
  0.001 deg) and the firmware query (0x4AF, answered with its version string);
* moves its joints toward the commanded targets only when enabled and in CAN control with MOVE J
  (or MOVE M), each joint limited to ``speed_percent`` % of ``max_velocity_rad_s`` and to
  ``max_acceleration_rad_s2`` (in MIT mode 0xAD at the full speed), never past the joint limits;
  a command outside the limits is clamped and reported (arm status 0x04, the joint's limit bit);
* publishes at ``feedback_rate_hz`` (200 Hz like the arm) the status (0x2A1), the joints (0x2A5-0x2A7,
  0.001 deg) and the flange pose (0x2A2-0x2A4, 0.001 mm / 0.001 deg, piperik's FK of the model its
  firmware version implies), and every fifth period the motors' low-speed frames (0x261-0x266, with
  the driver-enabled bit).

It records end-pose commands (0x152-0x154) but does not execute them (no firmware IK), and ignores
MIT torque commands, the gripper and teaching.
Faults for tests: :meth:`inject_fault`, :meth:`pause_feedback`. Everything it received is kept:
:meth:`joint_commands` (complete J1..J6 commands in order), :attr:`limit_violations`,
:attr:`incomplete_commands`.
"""
from __future__ import annotations

import re
import threading
import time
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from ..poses import MDEG_PER_RAD, pose_to_piper_units
from ..robots import Piper
from . import frames as F
from .limiter import MotionLimiter

FIRMWARE_RE = re.compile(r"S-V(\d+)\.(\d+)-(\d+)")


def firmware_is_legacy(version: str) -> bool:
    """True for firmware before S-V1.6-3 (piper_sdk ``dh_is_offset=0``: the old joint-2/3 zeros)."""
    m = FIRMWARE_RE.search(version)
    if not m:
        raise ValueError(f"firmware version: expected 'S-V<major>.<minor>-<patch>', got {version!r}")
    return tuple(int(x) for x in m.groups()) < (1, 6, 3)


class SimulatedPiper:
    """A PiPER on a python-can virtual channel (see the module docstring).

    ``q0_rad``: the joints at start (default: the rest pose, zeros). ``max_velocity_rad_s`` and
    ``max_acceleration_rad_s2``: its joints' limits (default 3 rad/s and 5 rad/s^2, the firmware's
    maxima; scaled by the speed percent of 0x151). ``firmware_version``: what it
    answers to 0x4AF (S-V1.8-5 by default; before S-V1.6-3 it uses the legacy joint zeros for its
    end-pose feedback). ``enable_delay_s``: how long its motors take to report enabled.
    """

    def __init__(self, channel: str = "piperik-sim", *, q0_rad: Optional[Sequence[float]] = None,
                 firmware_version: str = "S-V1.8-5", max_velocity_rad_s: float = 3.0,
                 max_acceleration_rad_s2: float = 5.0, feedback_rate_hz: float = 200.0,
                 enable_delay_s: float = 0.02, start: bool = True) -> None:
        import can  # python-can: the extra piperik[agilex]

        if not (feedback_rate_hz > 0 and np.isfinite(feedback_rate_hz)):
            raise ValueError(f"feedback_rate_hz: must be finite and > 0, got {feedback_rate_hz!r}")
        self.channel = channel
        self.firmware_version = firmware_version
        self.legacy_zero = firmware_is_legacy(firmware_version)
        self.arm = Piper(legacy_zero=self.legacy_zero)
        self.feedback_rate_hz = float(feedback_rate_hz)
        self.max_velocity_rad_s = float(max_velocity_rad_s)
        self.max_acceleration_rad_s2 = float(max_acceleration_rad_s2)
        self.enable_delay_s = float(enable_delay_s)
        q0 = np.zeros(6) if q0_rad is None else np.asarray(q0_rad, dtype=float)
        if q0.shape != (6,) or not np.all(np.isfinite(q0)):
            raise ValueError(f"q0_rad: expected 6 finite joint angles [rad], got {q0_rad!r}")
        self._lock = threading.Lock()
        self._lo_mdeg = np.ceil(np.asarray(self.arm.lower) * MDEG_PER_RAD).astype(int)
        self._hi_mdeg = np.floor(np.asarray(self.arm.upper) * MDEG_PER_RAD).astype(int)
        self._speed_percent = 0
        self._mit = False
        self._model = self._make_model(q0)
        self._target_mdeg = [int(round(x * MDEG_PER_RAD)) for x in q0]
        self._target_known = False
        self.enabled = False
        self._enable_at: Optional[float] = None
        self.ctrl_mode = F.CTRL_MODE_STANDBY
        self.move_mode = F.MOVE_P
        self.arm_status = 0x00
        self.err_code = 0
        self._fault: Optional[Tuple[int, int]] = None
        self._feedback_paused = False
        self._firmware_reply_at: Optional[float] = None
        # what it received
        self._commands: List[Tuple[float, Tuple[int, ...]]] = []
        self._next_frame = 0          # index into JOINT_CTRL expected next
        self.incomplete_commands = 0  #: a J1..J6 command whose three frames did not arrive in order
        self.limit_violations: List[Tuple[int, int]] = []   #: (joint 1..6, commanded 0.001 deg)
        self.motion_ctrl_2_count = 0
        self._end_pose_cmd = [0] * 6
        self.frames_received = 0
        self.ticks = 0
        self._bus = can.Bus(channel=channel, interface="virtual")
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        if start:
            self.start()

    def _make_model(self, q0: np.ndarray) -> MotionLimiter:
        pct = 100 if self._mit else max(self._speed_percent, 1)
        m = MotionLimiter(self.arm.lower, self.arm.upper, margin_rad=0.0,
                          max_velocity_rad_s=self.max_velocity_rad_s * pct / 100.0,
                          max_acceleration_rad_s2=self.max_acceleration_rad_s2, rate_hz=self.feedback_rate_hz)
        m.reset(q0)
        return m

    # ------------------------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"SimulatedPiper({self.channel})", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the thread and leave the bus."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._bus.shutdown()

    def __enter__(self) -> "SimulatedPiper":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------------------------ state
    @property
    def q_rad(self) -> np.ndarray:
        """The simulated joints [rad] (what its joint feedback reports, before rounding)."""
        with self._lock:
            return np.asarray(self._model._c) / MDEG_PER_RAD

    @property
    def target_mdeg(self) -> List[int]:
        """The joint target it is moving toward [0.001 deg]."""
        with self._lock:
            return list(self._target_mdeg)

    @property
    def speed_percent(self) -> int:
        return self._speed_percent

    @property
    def mit_mode(self) -> bool:
        return self._mit

    def joint_commands(self) -> np.ndarray:
        """Every complete joint command (0x155, 0x156, 0x157 in order) received: (N, 6) int 0.001 deg."""
        with self._lock:
            return np.array([c for _, c in self._commands], dtype=np.int64).reshape(-1, 6)

    def joint_command_times(self) -> np.ndarray:
        """The bus time stamps [s] of the commands of :meth:`joint_commands` (their last frame)."""
        with self._lock:
            return np.array([t for t, _ in self._commands], dtype=float)

    @property
    def end_pose_command(self) -> List[int]:
        """The last end-pose command received (0x152-0x154: X, Y, Z in 0.001 mm, RX, RY, RZ in
        0.001 deg). Recorded, not executed: the simulator has no firmware IK."""
        with self._lock:
            return list(self._end_pose_cmd)

    def inject_fault(self, arm_status: int = 0x07, err_code: int = 0) -> None:
        """Report ``arm_status`` (default 0x07 collision) and ``err_code`` from now on and stop moving."""
        with self._lock:
            self._fault = (int(arm_status), int(err_code))

    def clear_fault(self) -> None:
        with self._lock:
            self._fault = None
            self.arm_status, self.err_code = 0, 0

    def pause_feedback(self, paused: bool = True) -> None:
        """Stop (or resume) publishing every feedback frame, as a cable pulled out would."""
        self._feedback_paused = bool(paused)

    def wait_until(self, predicate: Callable[["SimulatedPiper"], bool], timeout_s: float = 5.0) -> bool:
        """Poll ``predicate(self)`` every millisecond until it holds (True) or ``timeout_s`` passes (False)."""
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if predicate(self):
                return True
            time.sleep(0.001)
        return bool(predicate(self))

    # ------------------------------------------------------------------------------------ frames
    def _handle(self, msg, now: float) -> None:
        cid, data = msg.arbitration_id, bytes(msg.data)
        self.frames_received += 1
        if cid in F.JOINT_CTRL:
            i = F.JOINT_CTRL.index(cid)
            a, b = F.unpack_pair(data)
            self._target_mdeg[2 * i], self._target_mdeg[2 * i + 1] = a, b
            if i != self._next_frame:
                self.incomplete_commands += 1
            self._next_frame = (i + 1) % 3
            if i == 2:
                cmd = tuple(self._target_mdeg)
                self._commands.append((float(msg.timestamp), cmd))
                for j in range(6):
                    if not self._lo_mdeg[j] <= cmd[j] <= self._hi_mdeg[j]:
                        self.limit_violations.append((j + 1, cmd[j]))
                self._target_known = True
        elif cid in F.END_POSE_CTRL:
            i = F.END_POSE_CTRL.index(cid)
            self._end_pose_cmd[2 * i], self._end_pose_cmd[2 * i + 1] = F.unpack_pair(data)
        elif cid == F.MOTION_CTRL_2:
            m = F.decode_motion_ctrl_2(data)
            self.motion_ctrl_2_count += 1
            self.ctrl_mode, self.move_mode = m.ctrl_mode, m.move_mode
            mit = m.mit_mode == F.MIT_ON
            if m.speed_percent != self._speed_percent or mit != self._mit:
                self._speed_percent, self._mit = min(m.speed_percent, 100), mit
                q = np.asarray(self._model._c) / MDEG_PER_RAD
                v = list(self._model._v)
                self._model = self._make_model(q)
                self._model._v = v  # a new speed limit, the same motion
        elif cid == F.MOTOR_ENABLE:
            motor, flag = F.decode_enable(data)
            if motor == F.ALL_MOTORS and flag == F.ENABLE_FLAG and not self.enabled and self._enable_at is None:
                self._enable_at = now + self.enable_delay_s
            elif motor == F.ALL_MOTORS and flag == F.DISABLE_FLAG:
                self.enabled, self._enable_at = False, None
        elif cid == F.MOTION_CTRL_1:
            estop, _, _ = F.decode_motion_ctrl_1(data)
            if estop == 0x01:
                self.arm_status = 0x01
            elif estop == 0x02 and self.arm_status == 0x01:
                self.arm_status = 0x00
        elif cid == F.FIRMWARE_READ and data[:1] == b"\x01":
            self._firmware_reply_at = now + 0.002

    def _send(self, cid: int, data: bytes) -> None:
        import can

        self._bus.send(can.Message(arbitration_id=cid, data=data, is_extended_id=False))

    def _tick(self, now: float) -> None:
        while True:
            msg = self._bus.recv(timeout=0.0)
            if msg is None:
                break
            with self._lock:
                self._handle(msg, now)
        with self._lock:
            if self._enable_at is not None and now >= self._enable_at:
                self.enabled, self._enable_at = True, None
            if self._fault is not None:
                self.arm_status, self.err_code = self._fault
            elif self.limit_violations and self.arm_status == 0:
                self.arm_status = 0x04
                for j, _ in self.limit_violations:
                    self.err_code |= 1 << (8 + j - 1)
            moving = (self.enabled and self.ctrl_mode == F.CTRL_MODE_CAN and self.move_mode in (F.MOVE_J, F.MOVE_M)
                      and self.arm_status == 0 and self._target_known)
            model = self._model
            target = np.asarray(self._target_mdeg, dtype=float) / MDEG_PER_RAD if moving else None
            model.step(target)
            q_mdeg = model.command_mdeg
            in_motion = not model.at_rest
            status = F.encode_status(self.ctrl_mode, self.arm_status, self.move_mode, 0, int(in_motion), 0,
                                     self.err_code)
            enabled = self.enabled
            fw_due = self._firmware_reply_at is not None and now >= self._firmware_reply_at
            if fw_due:
                self._firmware_reply_at = None
        if fw_due:
            for chunk in F.firmware_frames(self.firmware_version):
                self._send(F.FIRMWARE_READ, chunk)
        if self._feedback_paused:
            return
        self._send(F.STATUS_FEEDBACK, status)
        for cid, data in F.six_frames(F.JOINT_FEEDBACK, q_mdeg):
            self._send(cid, data)
        pose = pose_to_piper_units(self.arm.fk(np.asarray(q_mdeg, dtype=float) / MDEG_PER_RAD))
        for cid, data in F.six_frames(F.END_POSE_FEEDBACK, [int(x) for x in pose]):
            self._send(cid, data)
        if self.ticks % 5 == 0:
            bits = F.DRIVER_ENABLED_BIT if enabled else 0
            for cid in F.LOW_SPEED_FEEDBACK:
                self._send(cid, F.encode_low_speed(240, 30, 30, bits, 0))

    def _run(self) -> None:
        period = 1.0 / self.feedback_rate_hz
        next_t = time.perf_counter()
        while not self._stop.is_set():
            try:
                self._tick(time.monotonic())
            except Exception:  # a closed bus during shutdown
                if self._stop.is_set():
                    break
                raise
            self.ticks += 1
            next_t += period
            delay = next_t - time.perf_counter()
            if delay > 0:
                self._stop.wait(delay)
            elif delay < -5 * period:   # far behind (a loaded machine): do not burst to catch up
                next_t = time.perf_counter()
