"""firmware_bridge: stream joint setpoints to a microcontroller over serial (protocol v1).

PROTOCOL.md (next to this file in the repository) specifies the wire format; the C codec and the
reference firmware share piperik's C core. Python side: :mod:`firmware_bridge.protocol` (payloads,
constants from the C header) and :class:`firmware_bridge.streamer.Streamer` (pyserial).
"""
from .protocol import MAX_FRAME, VERSION
from .streamer import BridgeError, DeviceError, Stats, Streamer, open_port

__all__ = ["BridgeError", "DeviceError", "MAX_FRAME", "Stats", "Streamer", "VERSION", "open_port"]
