"""The PiPER's CAN frames that the driver and the simulated arm use: identifiers and byte layouts.

Facts from AgileX's protocol as piper_sdk 0.6.2 implements it (CAN 2.0, standard 11-bit ids,
8-byte payloads, big-endian integers); the encoders and decoders here are piperik's own. The tests
check them both ways against piper_sdk's parser (``C_PiperParserV2``).

Units on the wire: joint angles int32 in 0.001 deg ("millidegrees"); end-pose X, Y, Z int32 in
0.001 mm and RX, RY, RZ int32 in 0.001 deg with R = Rz(RZ) Ry(RY) Rx(RX).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

# ------------------------------------------------------------------------------------- identifiers
#: host -> arm
MOTION_CTRL_1 = 0x150        #: emergency stop / resume, trajectory and drag-teach commands
MOTION_CTRL_2 = 0x151        #: control mode, move mode, speed percent, MIT flag, installation
END_POSE_CTRL = (0x152, 0x153, 0x154)   #: X,Y / Z,RX / RY,RZ (firmware IK; the driver never sends these)
JOINT_CTRL = (0x155, 0x156, 0x157)      #: J1,J2 / J3,J4 / J5,J6 in 0.001 deg
GRIPPER_CTRL = 0x159
MOTOR_ENABLE = 0x471         #: motor number (1..6, 7 = all) and flag (0x01 disable, 0x02 enable)
FIRMWARE_READ = 0x4AF        #: query (host -> arm, first byte 0x01) and the answer's ASCII bytes
#: arm -> host
STATUS_FEEDBACK = 0x2A1      #: control mode, arm status, mode feedback, ..., error bits
END_POSE_FEEDBACK = (0x2A2, 0x2A3, 0x2A4)
JOINT_FEEDBACK = (0x2A5, 0x2A6, 0x2A7)
HIGH_SPEED_FEEDBACK = tuple(range(0x251, 0x257))   #: per motor: speed, current, position
LOW_SPEED_FEEDBACK = tuple(range(0x261, 0x267))    #: per motor: voltage, temperatures, driver status

# ------------------------------------------------------------------------------------- codes
CTRL_MODE_STANDBY = 0x00
CTRL_MODE_CAN = 0x01
MOVE_P, MOVE_J, MOVE_L, MOVE_C, MOVE_M, MOVE_CPV = 0x00, 0x01, 0x02, 0x03, 0x04, 0x05
MIT_OFF = 0x00               #: position-velocity mode: the controller smooths each joint command
MIT_ON = 0xAD                #: MIT / fast joint mode: commands are passed on without smoothing
ENABLE_FLAG, DISABLE_FLAG = 0x02, 0x01
ALL_MOTORS = 7
#: driver status bit 6 of the low-speed feedback: the motor driver is enabled
DRIVER_ENABLED_BIT = 1 << 6

#: arm status codes (byte 1 of 0x2A1), as AgileX names them
ARM_STATUS_NAMES: Dict[int, str] = {
    0x00: "normal", 0x01: "emergency stop", 0x02: "no solution", 0x03: "singularity",
    0x04: "target angle exceeds the limit", 0x05: "joint communication error",
    0x06: "joint brake not released", 0x07: "collision", 0x08: "overspeed during drag teaching",
    0x09: "joint status error", 0x0A: "other error", 0x0B: "teaching record", 0x0C: "teaching execution",
    0x0D: "teaching pause", 0x0E: "main controller NTC over temperature",
    0x0F: "release resistor NTC over temperature",
}


def describe_error_bits(err_code: int) -> str:
    """The 16-bit error field of 0x2A1 in words: high byte = joint angle limit exceeded (bit j-1 for
    joint j), low byte = joint communication error."""
    parts = [f"joint {j + 1} angle limit exceeded" for j in range(6) if err_code & (1 << (8 + j))]
    parts += [f"joint {j + 1} communication error" for j in range(6) if err_code & (1 << j)]
    return ", ".join(parts) if parts else "none"


# ------------------------------------------------------------------------------------- payloads
_PAIR = struct.Struct(">ii")
_STATUS = struct.Struct(">BBBBBBH")
_LOW_SPEED = struct.Struct(">HhbBH")
_HIGH_SPEED = struct.Struct(">hhi")


def pack_pair(first: int, second: int) -> bytes:
    """Two signed int32, big-endian: the payload of joint and end-pose frames."""
    return _PAIR.pack(int(first), int(second))


def unpack_pair(data: bytes) -> Tuple[int, int]:
    if len(data) != 8:
        raise ValueError(f"data: expected an 8-byte payload, got {len(data)} bytes")
    return _PAIR.unpack(bytes(data))


def six_frames(ids: Sequence[int], values: Sequence[int]) -> List[Tuple[int, bytes]]:
    """Six int32 values (joints 1..6 in 0.001 deg, or X, Y, Z, RX, RY, RZ) as three (id, payload)."""
    if len(values) != 6:
        raise ValueError(f"values: expected 6 integers, got {len(values)}")
    return [(ids[i], pack_pair(values[2 * i], values[2 * i + 1])) for i in range(3)]


@dataclass(frozen=True)
class MotionCtrl2:
    """Decoded 0x151."""

    ctrl_mode: int
    move_mode: int
    speed_percent: int
    mit_mode: int
    residence_time: int
    installation_pos: int


def decode_motion_ctrl_2(data: bytes) -> MotionCtrl2:
    d = bytes(data)
    return MotionCtrl2(d[0], d[1], d[2], d[3], d[4], d[5])


def encode_motion_ctrl_2(ctrl_mode: int, move_mode: int, speed_percent: int, mit_mode: int = MIT_OFF,
                         residence_time: int = 0, installation_pos: int = 0) -> bytes:
    if not 0 <= speed_percent <= 100:
        raise ValueError(f"speed_percent: must be in [0, 100], got {speed_percent}")
    return bytes([ctrl_mode, move_mode, speed_percent, mit_mode, residence_time, installation_pos, 0, 0])


def decode_motion_ctrl_1(data: bytes) -> Tuple[int, int, int]:
    """0x150: (emergency_stop 0x01 stop / 0x02 resume, trajectory command, drag-teach command)."""
    d = bytes(data)
    return d[0], d[1], d[2]


def decode_enable(data: bytes) -> Tuple[int, int]:
    """0x471: (motor number 1..6 or 7 = all, flag 0x02 enable / 0x01 disable)."""
    d = bytes(data)
    return d[0], d[1]


def encode_status(ctrl_mode: int, arm_status: int, mode_feed: int, teach_status: int = 0,
                  motion_status: int = 0, trajectory_num: int = 0, err_code: int = 0) -> bytes:
    """0x2A1: six uint8 then the uint16 error field (high byte joint-limit bits, low byte
    communication bits)."""
    return _STATUS.pack(ctrl_mode, arm_status, mode_feed, teach_status, motion_status, trajectory_num, err_code)


def decode_status(data: bytes) -> Tuple[int, int, int, int, int, int, int]:
    return _STATUS.unpack(bytes(data))


def encode_low_speed(voltage_dv: int, driver_temp_c: int, motor_temp_c: int, driver_status: int,
                     bus_current_ma: int) -> bytes:
    """0x261..0x266: voltage uint16 [0.1 V], driver temperature int16 [C], motor temperature int8 [C],
    driver status uint8 (bit 6 enabled, bit 5 error, ...), bus current uint16 [mA]."""
    return _LOW_SPEED.pack(voltage_dv, driver_temp_c, motor_temp_c, driver_status, bus_current_ma)


def encode_high_speed(speed_mrad_s: int, current_ma: int, position: int) -> bytes:
    """0x251..0x256: motor speed int16 [0.001 rad/s], current int16 [0.001 A], position int32."""
    return _HIGH_SPEED.pack(speed_mrad_s, current_ma, position)


def firmware_frames(version: str) -> List[bytes]:
    """The firmware answer on 0x4AF: the version string's ASCII bytes in 8-byte frames, zero padded
    (piper_sdk looks for ``S-V`` in what it received and reads 8 characters)."""
    raw = version.encode("ascii")
    raw += b"\x00" * (-len(raw) % 8)
    return [raw[i:i + 8] for i in range(0, len(raw), 8)]
