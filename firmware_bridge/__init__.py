"""firmware_bridge: stream joint setpoints to a microcontroller over serial (protocol v1).

PROTOCOL.md (next to this file in the repository) specifies the wire format; the C codec and the
reference firmware share piperik's C core. Python side: :mod:`firmware_bridge.protocol` (payloads,
constants from the C header) and :class:`firmware_bridge.streamer.Streamer` (pyserial).

Errors: :class:`LinkError` is the base of :class:`BridgeError` (detected by the host: timeout, lost
link, failed handshake) and :class:`DeviceError` (reported by the device: NACK, fault, state).
Only piperik's public API is used (``piperik.proto``, ``piperik.poses``, the arm classes); the
``piperik stream`` command is registered from :mod:`firmware_bridge.cli` through the
``piperik.commands`` entry point, so piperik never imports this package.
"""
from .protocol import MAX_FRAME, VERSION
from .streamer import BridgeError, DeviceError, LinkError, Stats, Streamer, open_port

__all__ = ["BridgeError", "DeviceError", "LinkError", "MAX_FRAME", "Stats", "Streamer", "VERSION", "open_port"]
