"""The serial-link codec of the C core (csrc/src/pik_proto.c, csrc/include/piperik/pik_proto.h).

Framing of protocol v1 (firmware_bridge/PROTOCOL.md): COBS frames ended by 0x00, header
``ver u8 | type u8 | seq u16``, little-endian payload, CRC-16/CCITT-FALSE trailer, at most 64 decoded
bytes. The same C serves the reference firmware and the microcontroller; this module is its public
Python face, on which ``firmware_bridge`` builds its payloads and its streamer.

>>> from piperik import proto
>>> wire = proto.encode(proto.CONSTANTS["HEARTBEAT"], 1, b"abcd")
>>> proto.Parser().feed(wire)
[('frame', 3, 1, b'abcd')]
"""
from __future__ import annotations

from types import MappingProxyType
from typing import List, Mapping, Tuple

from . import _core

#: The constants of pik_proto.h (message types, states, NACK reasons, fault bits, flags, limits),
#: read from the compiled header: the single source of truth for C and Python. Read-only.
CONSTANTS: Mapping[str, int] = MappingProxyType(dict(_core.PROTO))
VERSION: int = CONSTANTS["VERSION"]
MAX_FRAME: int = CONSTANTS["MAX_FRAME"]
MAX_PAYLOAD: int = CONSTANTS["MAX_PAYLOAD"]


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (the C codec's; equals binascii.crc_hqx(data, 0xFFFF))."""
    return _core.proto_crc16(bytes(data))


def encode(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """One frame on the wire: COBS(ver | type | seq | payload | crc) + 0x00.

    ValueError (naming ``payload``) when the payload exceeds MAX_PAYLOAD bytes."""
    return _core.proto_encode(int(msg_type), int(seq) & 0xFFFF, bytes(payload))


class Parser:
    """Byte-stream decoder (the C state machine): feed bytes, get complete frames and errors."""

    def __init__(self) -> None:
        self._p = _core.ProtoParser()

    def feed(self, data: bytes) -> List[Tuple]:
        """Returns [("frame", type, seq, payload) | ("error", reason_code, seq)] in arrival order."""
        return self._p.feed(bytes(data))

    def counters(self):
        """The C parser's diagnostic counters (frames, CRC, length, overflow and version errors)."""
        return self._p.counters()


__all__ = ["CONSTANTS", "MAX_FRAME", "MAX_PAYLOAD", "Parser", "VERSION", "crc16", "encode"]
