"""Wire protocol v1 on the host side (PROTOCOL.md): payload layouts and packing, on piperik's codec.

Framing (COBS, CRC-16/CCITT-FALSE, the byte-at-a-time parser) is the C codec of the core
(csrc/src/pik_proto.c), reached through its public Python face :mod:`piperik.proto`; the constants
come from its header, the single source of truth. This module defines the payload layouts once
(:data:`LAYOUTS`, checked byte for byte against the C codec and field by field against
PROTOCOL.md's message table by tests/test_protocol_layouts.py) and packs and unpacks payloads with them.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from piperik.poses import INT32_MAX, INT32_MIN, MDEG_PER_RAD, q_to_mdeg  # re-exported: the wire's units
from piperik.proto import CONSTANTS as C  # noqa: N812 - the header's constants, as C["SETPOINT"]
from piperik.proto import MAX_FRAME, VERSION, Parser, crc16, encode  # re-exported: the codec

# message types
SETPOINT, TRAJ_SEGMENT, HEARTBEAT, ENABLE, CONFIG, ESTOP, POSE_SETPOINT, GET_STATE, LIMITS, GET_BOOT, TOOL = (
    C["SETPOINT"], C["TRAJ_SEGMENT"], C["HEARTBEAT"], C["ENABLE"], C["CONFIG"], C["ESTOP"],
    C["POSE_SETPOINT"], C["GET_STATE"], C["LIMITS"], C["GET_BOOT"], C["TOOL"])
ACK, NACK, STATE, BOOT = C["ACK"], C["NACK"], C["STATE"], C["BOOT"]

STATES = {C["STATE_DISABLED"]: "DISABLED", C["STATE_ENABLED"]: "ENABLED", C["STATE_HOLD"]: "HOLD",
          C["STATE_FAULT"]: "FAULT"}
NACK_REASONS = {C["NACK_CRC"]: "CRC", C["NACK_LEN"]: "LEN", C["NACK_VER"]: "VER", C["NACK_STALE"]: "STALE",
                C["NACK_TYPE"]: "TYPE", C["NACK_QUEUE_FULL"]: "QUEUE_FULL", C["NACK_LIMIT"]: "LIMIT",
                C["NACK_DISABLED"]: "DISABLED", C["NACK_NO_IK"]: "NO_IK"}
#: BOOT.caps bits: what the device implements beyond the base message set
CAPS = {C["CAP_TRAJ"]: "TRAJ_SEGMENT", C["CAP_POSE"]: "POSE_SETPOINT", C["CAP_GET_STATE"]: "GET_STATE",
        C["CAP_THIN_ACK"]: "THIN_ACK", C["CAP_LIMITS"]: "LIMITS", C["CAP_GET_BOOT"]: "GET_BOOT",
        C["CAP_TOOL"]: "TOOL"}
FAULT_BITS = {C["FAULT_WATCHDOG"]: "WATCHDOG", C["FAULT_LIMIT"]: "LIMIT", C["FAULT_ESTOP"]: "ESTOP",
              C["FAULT_RX_OVERFLOW"]: "RX_OVERFLOW"}

#: Every payload's layout, the one place Python spells it: (fixed head, repeated item) as
#: little-endian ``struct`` formats; the item repeats for each joint / point / limit pair, BOOT's
#: head is followed by the firmware id in ASCII. Field names follow pik_proto.h's pik_msg_* structs.
LAYOUTS = {
    "SETPOINT": ("<IBB", "i"),        # t_mcu_us, n, flags | q_mdeg[n]
    "TRAJ_SEGMENT": ("<IHBB", "i"),   # t0_mcu_us, dt_us, n, k | q_mdeg[k * n], row-major
    "HEARTBEAT": ("<I", ""),          # host_us
    "ENABLE": ("<B", ""),             # on
    "CONFIG": ("<HBB", "ii"),         # watchdog_ms, n, flags | (min_mdeg, max_mdeg)[n]
    "POSE_SETPOINT": ("<I3i3i", ""),  # t_mcu_us, xyz_um[3], rpy_mdeg[3] (optional psi_mdeg i32: unused)
    "LIMITS": ("<BB", "ii"),          # first, n | (min_mdeg, max_mdeg)[n]
    "TOOL": ("<3i3i", ""),            # xyz_um[3], rpy_mdeg[3]: flange -> TCP (all 0: the flange)
    "ACK": ("<HBBIIB", ""),           # acked_seq, state, faults, mcu_us, echo_host_us, queue_free
    "NACK": ("<HB", ""),              # seq, reason
    "STATE": ("<BBIB", "i"),          # state, faults, mcu_us, n | q_mdeg[n]
    "BOOT": ("<BBHI", ""),            # proto_ver, reset_cause, boot_count, caps | firmware id
}


def _pack(name: str, head: Sequence[int], items: Sequence[int] = ()) -> bytes:
    """A payload of LAYOUTS[name]: the head's fields, then the item repeated over ``items``."""
    head_fmt, item_fmt = LAYOUTS[name]
    count = len(items) // len(item_fmt) if item_fmt else 0
    return struct.pack(head_fmt + item_fmt * count, *head, *items)


# ------------------------------------------------------------------------------------------ payloads
#
# Every field is range-checked before packing: a value that does not fit its wire type raises
# ValueError naming the argument and the allowed range (never struct.error). Ranges:
#   joint positions and limits [mdeg], pose angles [mdeg], pose position [0.001 mm]: int32
#   watchdog_ms, dt_us: 0 .. 65535 (uint16); flags, first joint index: 0 .. 255 (uint8)


def _int32s(values, name: str, unit: str) -> List[int]:
    """Integers of an int32 wire field; floats are rounded to nearest (never truncated). Python ints,
    the common case on the streaming path, pass with two comparisons each."""
    vals = values.ravel().tolist() if isinstance(values, np.ndarray) else list(values)
    out = []
    for v in vals:
        if type(v) is not int:
            if isinstance(v, (float, np.floating)):
                if not np.isfinite(v):
                    raise ValueError(f"{name}: expected finite numbers [{unit}], got {v!r}")
                v = round(float(v))
            elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                v = int(v)
            else:
                raise ValueError(f"{name}: expected integers [{unit}], got {v!r}")
        if v < INT32_MIN or v > INT32_MAX:
            raise ValueError(f"{name}: each value must lie in the int32 range [{INT32_MIN}, {INT32_MAX}] "
                             f"{unit}, got {v}")
        out.append(v)
    return out


def _integer(value) -> Optional[int]:
    """value as an int when it is one (an integral float too; not a bool or a string), else None."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return None
    if isinstance(value, (float, np.floating)) and not (math.isfinite(value) and value == int(value)):
        return None
    return int(value)


def _uint(value, bits: int, name: str, unit: str = "") -> int:
    hi = (1 << bits) - 1
    iv = _integer(value)
    if iv is None:
        raise ValueError(f"{name}: expected an integer in [0, {hi}]{unit}, got {value!r}")
    if not 0 <= iv <= hi:
        raise ValueError(f"{name}: must be an integer in [0, {hi}]{unit}, got {iv}")
    return iv


def _time_us(value, name: str) -> int:
    """A uint32 time stamp [us]: an integer (an integral float too), wrapped modulo 2**32 as the
    device's microsecond counter wraps."""
    iv = _integer(value)
    if iv is None:
        raise ValueError(f"{name}: expected an integer number of microseconds (wrapped modulo 2**32), "
                         f"got {value!r}")
    return iv & 0xFFFFFFFF


def setpoint(q_mdeg: Sequence[int], t_mcu_us: int = 0, flags: int = 0) -> bytes:
    q = _int32s(q_mdeg, "q_mdeg", "mdeg")
    if len(q) > 255:
        raise ValueError(f"q_mdeg: at most 255 joints, got {len(q)}")
    return _pack("SETPOINT", (_time_us(t_mcu_us, "t_mcu_us"), len(q), _uint(flags, 8, "flags")), q)


def traj_segment(points_mdeg: np.ndarray, dt_us: int, t0_mcu_us: int = 0) -> bytes:
    P = np.asarray(points_mdeg)
    if P.ndim != 2:
        raise ValueError(f"points_mdeg: expected shape (k, n), got {P.shape}")
    k, n = P.shape
    vals = _int32s(P, "points_mdeg", "mdeg")
    return _pack("TRAJ_SEGMENT", (_time_us(t0_mcu_us, "t0_mcu_us"), _uint(dt_us, 16, "dt_us", " us"),
                                  _uint(n, 8, "points_mdeg joints"), _uint(k, 8, "points_mdeg points")), vals)


def heartbeat(host_us: int) -> bytes:
    return _pack("HEARTBEAT", (_time_us(host_us, "host_us"),))


def enable(on: bool) -> bytes:
    return _pack("ENABLE", (1 if on else 0,))


def config(watchdog_ms: int, limits_mdeg: Optional[np.ndarray], thin_acks: bool = False) -> bytes:
    """CONFIG: watchdog period (0 keeps it), flags, limits of up to MAX_CONFIG_JOINTS joints (none:
    keep them; 7 joints do not fit one frame: use :func:`limits`)."""
    wd = _uint(watchdog_ms, 16, "watchdog_ms", " ms (0 keeps the current period)")
    L = np.zeros((0, 2), dtype=np.int64) if limits_mdeg is None else np.asarray(limits_mdeg)
    if len(L) > C["MAX_CONFIG_JOINTS"]:
        raise ValueError(f"limits_mdeg: CONFIG carries at most {C['MAX_CONFIG_JOINTS']} joints; use LIMITS")
    return _pack("CONFIG", (wd, len(L), C["CONFIG_F_THIN_ACK"] if thin_acks else 0),
                 _int32s(L, "limits_mdeg", "mdeg"))


def limits(limits_mdeg: np.ndarray, first: int = 0) -> bytes:
    """LIMITS: (min, max) mdeg of joints first .. first + n - 1 (up to MAX_LIMITS_JOINTS)."""
    L = np.asarray(limits_mdeg)
    return _pack("LIMITS", (_uint(first, 8, "first"), _uint(len(L), 8, "limits_mdeg joints")),
                 _int32s(L, "limits_mdeg", "mdeg"))


def pose_setpoint(xyz_um: Sequence[int], rpy_mdeg: Sequence[int], t_mcu_us: int = 0) -> bytes:
    xyz = _int32s(xyz_um, "xyz_um", "0.001 mm (about +-2147 m)")
    rpy = _int32s(rpy_mdeg, "rpy_mdeg", "mdeg")
    if len(xyz) != 3 or len(rpy) != 3:
        raise ValueError(f"xyz_um, rpy_mdeg: expected 3 values each, got {len(xyz)} and {len(rpy)}")
    return _pack("POSE_SETPOINT", (_time_us(t_mcu_us, "t_mcu_us"), *xyz, *rpy))


def tool(xyz_um: Sequence[int], rpy_mdeg: Sequence[int]) -> bytes:
    """TOOL: the flange -> TCP transform later POSE_SETPOINTs refer to, position in 0.001 mm and roll,
    pitch, yaw in mdeg (R = Rz(yaw) Ry(pitch) Rx(roll), as POSE_SETPOINT); all zeros: the flange."""
    xyz = _int32s(xyz_um, "xyz_um", "0.001 mm (about +-2147 m)")
    rpy = _int32s(rpy_mdeg, "rpy_mdeg", "mdeg")
    if len(xyz) != 3 or len(rpy) != 3:
        raise ValueError(f"xyz_um, rpy_mdeg: expected 3 values each, got {len(xyz)} and {len(rpy)}")
    return _pack("TOOL", (*xyz, *rpy))


@dataclass
class Ack:
    acked_seq: int
    state: int
    faults: int
    mcu_us: int
    echo_host_us: int
    queue_free: int


@dataclass
class Nack:
    seq: int
    reason: int


@dataclass
class State:
    state: int
    faults: int
    mcu_us: int
    q_mdeg: Tuple[int, ...]


@dataclass
class Boot:
    proto_ver: int
    reset_cause: int
    boot_count: int
    caps: int
    firmware_id: str


def decode(msg_type: int, payload: bytes):
    """The device->host message as a dataclass (Ack, Nack, State, Boot); ValueError when malformed."""
    try:
        if msg_type == ACK:
            return Ack(*struct.unpack_from(LAYOUTS["ACK"][0], payload))
        if msg_type == NACK:
            return Nack(*struct.unpack_from(LAYOUTS["NACK"][0], payload))
        if msg_type == STATE:
            head, item = LAYOUTS["STATE"]
            state, faults, mcu_us, n = struct.unpack_from(head, payload)
            return State(state, faults, mcu_us, struct.unpack_from("<" + item * n, payload, struct.calcsize(head)))
        if msg_type == BOOT:
            head = LAYOUTS["BOOT"][0]
            ver, cause, count, caps = struct.unpack_from(head, payload)
            return Boot(ver, cause, count, caps, payload[struct.calcsize(head):].decode("ascii", "replace"))
    except struct.error as exc:
        raise ValueError(f"malformed payload of type 0x{msg_type:02x}: {exc}") from None
    raise ValueError(f"unknown device message type 0x{msg_type:02x}")


def wire_bytes_per_setpoint(n_joints: int) -> int:
    """Bytes on the wire for one SETPOINT of n joints (COBS overhead and delimiter included)."""
    return len(encode(SETPOINT, 1, setpoint([0x01010101] * n_joints)))
