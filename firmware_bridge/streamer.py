"""Stream joint setpoints to a microcontroller over serial (pyserial), protocol v1 (PROTOCOL.md).

    with Streamer("/dev/ttyACM0") as link:          # or "loop://", "spy:///dev/ttyUSB0", "2e8a:000a"
        link.configure(watchdog_ms=100, limits_mdeg=...)
        link.enable()
        stats = link.stream(q_samples_rad, rate_hz=500)   # fixed rate, never blocks on replies
        print(stats.summary())

Delivery: setpoints are latest-value (never resent; a stale one is refused by the device), CONFIG,
ENABLE and TOOL are acknowledged and resent on timeout. Replies are read without blocking between
setpoints. A device reset (a BOOT frame, or its boot count changing) or a lost link (a serial error,
no reply for ``link_timeout_s``) stops the stream: the streamer reconnects with back-off, repeats the
handshake and requires an explicit :meth:`enable` again, so motion never resumes by itself.
"""
from __future__ import annotations

import collections
import glob
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Union

import numpy as np

from piperik import tool_matrix
from piperik.poses import UM_PER_M, finite_vector, pose_from_xyz_rpy, pose_to_xyz_rpy, q_from_mdeg, q_to_mdeg  # public

from . import protocol as P

#: the joint units :meth:`Streamer.stream` accepts: radians, or the wire's millidegrees (0.001 deg)
STREAM_UNITS = ("rad", "mdeg")


try:
    import serial
    import serial.tools.list_ports
except ImportError as exc:  # pragma: no cover - pyserial is a dependency
    raise ImportError("firmware_bridge needs pyserial: pip install pyserial") from exc


class LinkError(RuntimeError):
    """Any failure of the serial link: the base of :class:`BridgeError` (detected by the host) and
    :class:`DeviceError` (reported by the device). ``except LinkError`` catches both."""


class BridgeError(LinkError):
    """Detected by the host: no answer, a lost link, a handshake that failed."""


class DeviceError(LinkError):
    """Reported by the device: a NACK, a fault or a state that forbids the request."""


def _tool_wire(tool):
    """tool (None, a 4x4 or (x, y, z, roll, pitch, yaw) in m / rad) as the wire's (xyz_um, rpy_mdeg)
    integers, rounded to nearest; ValueError naming ``tool`` for what the arms refuse
    (:func:`piperik.tool_matrix`, the C core's rule)."""
    T = tool_matrix(tool)
    if T is None:
        return [0, 0, 0], [0, 0, 0]
    xyz, rpy = pose_to_xyz_rpy(T)
    return np.rint(xyz * UM_PER_M).astype(np.int64).tolist(), q_to_mdeg(rpy).tolist()


@dataclass
class Stats:
    """What happened to the setpoints sent (counts since the streamer was created)."""

    sent: int = 0
    acked: int = 0
    nacked: Dict[str, int] = field(default_factory=dict)
    rtt_us: List[float] = field(default_factory=list)
    resets: int = 0
    reconnects: int = 0
    crc_errors_seen: int = 0   # device frames the host could not decode
    broken_frames_reported: int = 0  # NACKs with seq 0xFFFF: host frames the device could not read

    @property
    def nacked_total(self) -> int:
        return sum(self.nacked.values())

    @property
    def stale(self) -> int:
        return self.nacked.get("STALE", 0)

    @property
    def drops(self) -> int:
        """Setpoints neither acknowledged nor refused (lost, or still unanswered)."""
        return self.sent - self.acked - self.nacked_total

    def rtt_percentile_us(self, p: float) -> float:
        return float(np.percentile(self.rtt_us, p)) if self.rtt_us else float("nan")

    def summary(self) -> str:
        reasons = ",".join(f"{k}:{v}" for k, v in sorted(self.nacked.items())) or "-"
        return (f"sent {self.sent} acked {self.acked} nacked {self.nacked_total} ({reasons}) stale {self.stale} "
                f"rtt p50 {self.rtt_percentile_us(50):.0f} us p99 {self.rtt_percentile_us(99):.0f} us "
                f"drops {self.drops} resets {self.resets} reconnects {self.reconnects}")


def open_port(port: str, baudrate: int = 921600, timeout: float = 0.0) -> "serial.Serial":
    """A serial port from a device path, a pyserial URL (loop://, spy://, socket://, hwgrep://) or
    a USB "VID:PID" (hex), which is looked up among the attached ports."""
    if len(port.split(":")) == 2 and all(len(p) == 4 for p in port.split(":")) and "/" not in port:
        vid, pid = (int(p, 16) for p in port.split(":"))
        matches = [p.device for p in serial.tools.list_ports.comports() if p.vid == vid and p.pid == pid]
        if not matches:
            raise BridgeError(f"no serial port with USB id {port} (attached: "
                              f"{[p.device for p in serial.tools.list_ports.comports()]})")
        port = matches[0]
    s = serial.serial_for_url(port, baudrate=baudrate, timeout=timeout, write_timeout=0.5, do_not_open=True)
    s.dsrdtr = False  # do not pulse DTR: many boards reset on it
    s.open()
    check_ftdi_latency(getattr(s, "port", port) or port)
    return s


def check_ftdi_latency(port: str) -> Optional[int]:
    """Warn when an FTDI adapter's latency timer is above 1 ms (default 16 ms: it caps request/
    reply rates near 60 Hz). Returns the timer [ms] or None for other ports."""
    try:
        real = os.path.realpath(port)
    except (TypeError, ValueError):
        return None
    name = os.path.basename(real)
    paths = glob.glob(f"/sys/bus/usb-serial/devices/{name}/latency_timer")
    if not paths:
        return None
    try:
        value = int(open(paths[0]).read().strip())
    except (OSError, ValueError):
        return None
    if value > 1:
        warnings.warn(f"{port}: FTDI latency_timer is {value} ms; set it to 1 "
                      f"(echo 1 > {paths[0]}, or a udev rule) for fast round trips", stacklevel=3)
    return value


class Streamer:
    """A host-side link to one device running the reference firmware (or any protocol-v1 device)."""

    def __init__(self, port: Union[str, "serial.Serial"], *, baudrate: int = 921600, reply_timeout_s: float = 0.2,
                 link_timeout_s: float = 0.5, max_reconnect_s: float = 5.0,
                 port_opener: Optional[Callable[[], "serial.Serial"]] = None) -> None:
        self._port_spec = port
        self._baudrate = baudrate
        self._opener = port_opener
        self.reply_timeout_s = reply_timeout_s
        self.link_timeout_s = link_timeout_s
        self.max_reconnect_s = max_reconnect_s
        self.stats = Stats()
        self.device_state: Optional[int] = None
        self.device_faults: int = 0
        self.device_q_mdeg: Optional[tuple] = None
        self._last_state: Optional[P.State] = None  # the latest STATE frame, as decoded
        self.boot: Optional[P.Boot] = None
        self.needs_enable = True
        self._ser: Optional["serial.Serial"] = None
        self._parser = P.Parser()
        self._seq = 0
        self._outstanding: Dict[int, float] = {}   # setpoint seq -> send time
        self._last_setpoint_seq: Optional[int] = None
        self._replies: Dict[int, object] = {}       # seq -> Ack / Nack for reliable requests
        self._last_rx = 0.0
        self._boot_seen_event = False
        self._thin_acks = False
        #: the tool the device was last given (4x4, the rounded wire values), None before set_tool
        self.tool: Optional[np.ndarray] = None
        self._tool_payload: Optional[bytes] = None  # None or all zeros: the flange
        self._tool_on_device = True                 # False after a BOOT until set again
        #: the most recent NACKs as (seq, reason), for diagnostics
        self.nacks: "collections.deque" = collections.deque(maxlen=256)

    # ---------------------------------------------------------------------------------------- link

    def __enter__(self) -> "Streamer":
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> None:
        """Open the port and handshake (protocol version, device state, capabilities)."""
        if self._opener is not None:
            self._ser = self._opener()
        elif isinstance(self._port_spec, str):
            self._ser = open_port(self._port_spec, self._baudrate)
        else:
            self._ser = self._port_spec
        self._parser = P.Parser()
        self._handshake()

    def close(self) -> None:
        if self._ser is not None:
            try:
                self._ser.close()
            except Exception:  # noqa: BLE001 - closing a dead port must not raise
                pass
        self._ser = None

    def _handshake(self) -> None:
        # The device sent BOOT when it started, possibly before we opened the port: ask instead.
        ack = self._request(P.HEARTBEAT, P.heartbeat(self._host_us()))
        if not isinstance(ack, P.Ack):
            raise BridgeError("handshake: no ACK to HEARTBEAT")
        self.device_state = ack.state
        previous = self.boot
        self.boot = None
        self._request(P.GET_BOOT, b"")
        deadline = time.monotonic() + self.reply_timeout_s
        while self.boot is None and time.monotonic() < deadline:
            self.poll()
            time.sleep(0.0005)
        if self.boot is None:
            raise BridgeError("handshake: no BOOT in answer to GET_BOOT")
        if previous is not None and (self.boot.boot_count != previous.boot_count):
            self.stats.resets += 1  # the device restarted while we were away
        self._boot_seen_event = False
        if self.boot.proto_ver != P.VERSION:
            raise BridgeError(f"device speaks protocol {self.boot.proto_ver}, host {P.VERSION}")
        self.needs_enable = self.device_state != P.C["STATE_ENABLED"]

    def _reconnect(self, why: str) -> None:
        """Back-off reconnect; afterwards motion needs an explicit enable()."""
        self.close()
        self.needs_enable = True
        deadline = time.monotonic() + self.max_reconnect_s
        delay = 0.02
        while True:
            try:
                self.open()
                self.stats.reconnects += 1
                return
            except (OSError, serial.SerialException, LinkError):  # a refused handshake too
                if time.monotonic() + delay > deadline:
                    raise BridgeError(f"link lost ({why}) and not restored within {self.max_reconnect_s} s") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    @staticmethod
    def _host_us() -> int:
        return int(time.monotonic() * 1e6) & 0xFFFFFFFF

    def _next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFFFF
        return self._seq

    def _write(self, data: bytes) -> None:
        try:
            self._ser.write(data)
        except (OSError, serial.SerialException) as exc:
            raise BridgeError(f"write failed: {exc}") from exc

    # ---------------------------------------------------------------------------------------- replies

    def poll(self) -> None:
        """Read and handle whatever the device has sent, without blocking."""
        if self._ser is None:
            return
        try:
            n = self._ser.in_waiting
            data = self._ser.read(n) if n else b""
        except (OSError, serial.SerialException) as exc:
            raise BridgeError(f"read failed: {exc}") from exc
        if not data:
            return
        self._last_rx = time.monotonic()
        for item in self._parser.feed(data):
            if item[0] == "error":
                self.stats.crc_errors_seen += 1
                continue
            _, mtype, _seq, payload = item
            try:
                msg = P.decode(mtype, payload)
            except ValueError:
                self.stats.crc_errors_seen += 1
                continue
            self._handle(msg)

    def _handle(self, msg) -> None:
        now = time.monotonic()
        if isinstance(msg, P.Ack):
            self.device_state, self.device_faults = msg.state, msg.faults
            self._replies[msg.acked_seq] = msg
            t = self._outstanding.pop(msg.acked_seq, None)
            if t is not None:
                self.stats.acked += 1
                self.stats.rtt_us.append((now - t) * 1e6)
                if self._thin_acks:
                    # thinned ACKs: an ACK of a setpoint covers the earlier ones still outstanding
                    for s in [s for s in self._outstanding if ((msg.acked_seq - s) & 0xFFFF) < 0x8000]:
                        del self._outstanding[s]
                        self.stats.acked += 1
        elif isinstance(msg, P.Nack):
            self._replies[msg.seq] = msg
            reason = P.NACK_REASONS.get(msg.reason, str(msg.reason))
            self.nacks.append((msg.seq, reason))
            if self._outstanding.pop(msg.seq, None) is not None:
                self.stats.nacked[reason] = self.stats.nacked.get(reason, 0) + 1
            elif msg.seq == P.C["SEQ_UNKNOWN"]:
                self.stats.broken_frames_reported += 1  # the device saw a frame it could not read
        elif isinstance(msg, P.State):
            self.device_state, self.device_faults, self.device_q_mdeg = msg.state, msg.faults, msg.q_mdeg
            self._last_state = msg
            if msg.state != P.C["STATE_ENABLED"]:
                self.needs_enable = True
        elif isinstance(msg, P.Boot):
            if self.boot is not None:  # any BOOT after the first one we saw is a reset
                self.stats.resets += 1
                self._boot_seen_event = True
            self.boot = msg
            self._tool_on_device = self._tool_payload is None  # a (re)booted device has no tool
            self.device_state = P.C["STATE_DISABLED"]
            self.needs_enable = True
            self._outstanding.clear()  # a reset device never answers them
            self._last_setpoint_seq = None

    def _request(self, mtype: int, payload: bytes, retries: int = 3):
        """Reliable request: send, wait for the ACK/NACK of its seq, resend on timeout."""
        for _ in range(retries):
            seq = self._next_seq()
            self._replies.pop(seq, None)
            self._write(P.encode(mtype, seq, payload))
            deadline = time.monotonic() + self.reply_timeout_s
            while time.monotonic() < deadline:
                self.poll()
                if seq in self._replies:
                    return self._replies.pop(seq)
                time.sleep(0.0005)
        return None

    def _check_reply(self, reply, what: str) -> None:
        if reply is None:
            raise BridgeError(f"{what}: no reply")
        if isinstance(reply, P.Nack):
            raise DeviceError(f"{what}: refused ({P.NACK_REASONS.get(reply.reason, reply.reason)})")

    # ---------------------------------------------------------------------------------------- commands

    def configure(self, watchdog_ms: int = 100, limits_mdeg: Optional[np.ndarray] = None, thin_acks: bool = False) -> None:
        """Watchdog period and per-joint limits [(min, max) mdeg] (they may only narrow the
        device's own); acknowledged, resent on timeout."""
        L = None if limits_mdeg is None else np.asarray(limits_mdeg, dtype=np.int64)
        fits = L is None or len(L) <= P.C["MAX_CONFIG_JOINTS"]
        self._check_reply(self._request(P.CONFIG, P.config(watchdog_ms, L if fits else None, thin_acks)),
                          "configure")
        self._thin_acks = thin_acks
        if not fits:
            self._check_reply(self._request(P.LIMITS, P.limits(L)), "configure (limits)")

    def enable(self, on: bool = True) -> None:
        """ENABLE 1 (clears latched faults) or 0; acknowledged, resent on timeout. After a device
        reset or a reconnect, ENABLE 1 first gives the device the tool of :meth:`set_tool` again, so
        pose setpoints never fall back to flange poses."""
        if on and not self._tool_on_device:
            self._send_tool("enable (tool)")
        self._check_reply(self._request(P.ENABLE, P.enable(on)), "enable")
        self.needs_enable = not on
        self._boot_seen_event = False

    def estop(self) -> None:
        """ESTOP, sent three times back to back without waiting (the device enters FAULT)."""
        for _ in range(3):
            self._write(P.encode(P.ESTOP, self._next_seq()))
        self.needs_enable = True

    def heartbeat(self) -> None:
        self._write(P.encode(P.HEARTBEAT, self._next_seq(), P.heartbeat(self._host_us())))

    def state(self) -> Optional[P.State]:
        """Ask for the device's state (GET_STATE) and wait for it: the STATE frame as decoded, or None
        when none arrives within reply_timeout_s."""
        self._last_state = None
        self._request(P.GET_STATE, b"")
        deadline = time.monotonic() + self.reply_timeout_s
        while self._last_state is None and time.monotonic() < deadline:
            self.poll()
            time.sleep(0.0005)
        return self._last_state

    def send_setpoint(self, q_mdeg: Iterable[int], t_mcu_us: int = 0) -> int:
        """Send one SETPOINT now (latest-value, never resent) and return its seq."""
        payload = P.setpoint(q_mdeg, t_mcu_us)  # checked before a seq is used
        seq = self._next_seq()
        self._write(P.encode(P.SETPOINT, seq, payload))
        self._outstanding[seq] = time.monotonic()
        self._last_setpoint_seq = seq
        self.stats.sent += 1
        return seq

    def send_pose(self, xyz_m, rpy_rad, t_mcu_us: int = 0) -> int:
        """A POSE_SETPOINT: the device solves piperik's IK itself (R = Rz Ry Rx): a flange pose, or
        a pose of the tool centre point after :meth:`set_tool`."""
        xyz = finite_vector(xyz_m, 3, "xyz_m")
        if not np.all(np.abs(xyz) * UM_PER_M <= P.INT32_MAX):
            raise ValueError(f"xyz_m: each coordinate must lie within +-{P.INT32_MAX / UM_PER_M:.3f} m "
                             f"(int32 in 0.001 mm on the wire), got {xyz.tolist()}")
        xyz_um = np.rint(xyz * UM_PER_M).astype(np.int64)
        rpy_mdeg = q_to_mdeg(finite_vector(rpy_rad, 3, "rpy_rad"))
        seq = self._next_seq()
        self._write(P.encode(P.POSE_SETPOINT, seq, P.pose_setpoint(xyz_um, rpy_mdeg, t_mcu_us)))
        self._outstanding[seq] = time.monotonic()
        self.stats.sent += 1
        return seq

    def set_tool(self, tool) -> Optional[np.ndarray]:
        """Give the device a tool (TCP): afterwards :meth:`send_pose` poses are poses of the tool
        centre point, and the device solves IK for the flange pose ``T_tcp @ inv(tool)``.

        ``tool``: a 4x4 flange -> TCP transform or ``(x, y, z, roll, pitch, yaw)`` [m, rad]
        (R = Rz(yaw) Ry(pitch) Rx(roll)), as ``piperik.Piper(tool=...)`` takes; ``None`` (or the
        identity) returns to flange poses. The wire carries 0.001 mm and millidegrees, so the tool is
        rounded to them; returns the tool the device uses (the rounded 4x4, also :attr:`tool`; None
        for no tool). ``ValueError`` (naming ``tool``) for anything but a rigid transform (rotation
        orthonormal to 1e-12 with det +1, last row 0 0 0 1) or an offset above 100 m;
        ``DeviceError`` when the device refuses it or does not announce TOOL in its BOOT ``caps``.
        Acknowledged, resent on timeout; allowed in every device state. Remembered: :meth:`enable`
        sends it again after a device reset or a reconnect."""
        xyz_um, rpy_mdeg = _tool_wire(tool)
        if self.boot is not None and not self.boot.caps & P.C["CAP_TOOL"]:
            raise DeviceError(f"set_tool: the device ({self.boot.firmware_id!r}) does not implement TOOL "
                              f"(BOOT caps 0x{self.boot.caps:x}); its pose setpoints are flange poses")
        payload = P.tool(xyz_um, rpy_mdeg)
        previous = self._tool_payload, self._tool_on_device
        self._tool_payload, self._tool_on_device = payload, False
        try:
            self._send_tool("set_tool")
        except LinkError:
            self._tool_payload, self._tool_on_device = previous
            raise
        flange = not any(xyz_um) and not any(rpy_mdeg)
        self.tool = None if flange else pose_from_xyz_rpy(np.asarray(xyz_um) / UM_PER_M, q_from_mdeg(rpy_mdeg))
        return self.tool

    def _send_tool(self, what: str) -> None:
        self._check_reply(self._request(P.TOOL, self._tool_payload), what)
        self._tool_on_device = True

    # ---------------------------------------------------------------------------------------- streaming

    def stream(self, samples, rate_hz: Optional[float] = None, *, units: str = "rad", drain_s: float = 0.2,
               stop_on_reset: bool = True) -> Stats:
        """Send one setpoint per period from an array (N, n), an iterable or a generator of joint
        vectors, or a :class:`piperik.trajectory.Trajectory` (its positions, at its rate unless
        ``rate_hz`` is given), at ``rate_hz`` (absolute deadlines: a late period does not shift the
        next ones). Replies are handled between periods without blocking. Stops early (and requires
        :meth:`enable`) when the device resets or the link is lost; then reconnects.

        ``units`` says what the joint values are: ``"rad"`` (radians, converted to millidegrees
        rounded to nearest) or ``"mdeg"`` (the wire's 0.001 deg; integers are sent as they are,
        floats rounded to nearest). Anything else raises ``ValueError``; every value must fit the
        wire's int32 millidegrees (``ValueError`` naming the range otherwise)."""
        if units not in STREAM_UNITS:
            raise ValueError(f"units: expected one of {', '.join(repr(u) for u in STREAM_UNITS)}, got {units!r}")
        if hasattr(samples, "q_rad") and hasattr(samples, "rate_hz"):  # a timed trajectory
            rate_hz = samples.rate_hz if rate_hz is None else rate_hz
            samples = samples.q_rad
        if rate_hz is None or not (rate_hz > 0):
            raise ValueError("rate_hz: must be > 0")
        if self.needs_enable:
            raise DeviceError("stream: the device is not enabled (call enable() first)")
        period = 1.0 / rate_hz
        t_next = time.perf_counter()
        # millidegree floats rounded to nearest and the int32 range checked by the wire's own field check
        to_mdeg = P.q_to_mdeg if units == "rad" else (lambda q: P._int32s(q, "q_mdeg", "mdeg"))
        self._last_rx = time.monotonic()
        for q in samples:
            try:
                self.send_setpoint(to_mdeg(q))
                self.poll()
            except LinkError as exc:
                self._reconnect(str(exc))
                break
            if stop_on_reset and (self._boot_seen_event or self.needs_enable):
                break
            if time.monotonic() - self._last_rx > self.link_timeout_s:
                self._reconnect(f"no reply for {self.link_timeout_s} s")
                break
            t_next += period
            # Wait for the next period, reading replies as they come (short sleeps: the RTT is then
            # measured to ~0.2 ms instead of one period, and nothing ever waits for a reply).
            while True:
                delay = t_next - time.perf_counter()
                if delay <= 0:
                    break
                time.sleep(min(delay, 0.0002))
                try:
                    self.poll()
                except LinkError as exc:
                    self._reconnect(str(exc))
                    return self.stats
        deadline = time.monotonic() + drain_s
        while self._outstanding and time.monotonic() < deadline:
            try:
                self.poll()
            except LinkError:
                break
            time.sleep(0.001)
        return self.stats
