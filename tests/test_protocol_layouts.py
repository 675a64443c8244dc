"""firmware_bridge.protocol.LAYOUTS, the one Python spelling of the payloads, against the C codec
and against the message table of firmware_bridge/PROTOCOL.md.

A small C program (written here, compiled with the strict flags against csrc/src/pik_proto.c)
encodes one message of every type with pik_msg_*_encode and prints the bytes and the header's
payload sizes (PIK_PL_*). Python must produce the same bytes from the same field values, through
LAYOUTS and through the public packers (setpoint(), config(), ...), decode the device's messages
to the same fields, and agree on every fixed head's size.
"""
from __future__ import annotations

import re
import shutil
import struct
import subprocess

import pytest

from conftest import REPO_ROOT
from firmware_bridge import protocol as P

CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler (cc or gcc) on PATH")

# Field values with every sign and width edge in them (int32 extremes, 0xFFFF seq, high bits set).
Q7 = [-1, 2147483647, -2147483648, 123456, -654321, 0, 42]
VALUES = {
    "SETPOINT": ((0x89ABCDEF, 7, 0x05), Q7),
    "TRAJ_SEGMENT": ((0x01020304, 0xBEEF, 3, 2), [1, -2, 3, -4, 5, -6]),
    "HEARTBEAT": ((0xDEADBEEF,), []),
    "ENABLE": ((1,), []),
    "CONFIG": ((0x1234, 2, 1), [-100, 300, -200, 400]),   # (min, max) per joint
    "POSE_SETPOINT": ((0x11223344, 1, -2, 3, -4, 5, -6), []),
    "LIMITS": ((3, 2), [-7, 9, -8, 10]),
    "ACK": ((0xA1B2, 2, 5, 0x0BADF00D, 0xCAFEBABE, 17), []),
    "NACK": ((0xFFFF, 7), []),
    "STATE": ((1, 8, 0x76543210, 3), [-5, 6, 2147483647]),
    "BOOT": ((1, 3, 513, 0x80000001), []),
}
FW_ID = "piperik-test"

C_PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include "piperik/pik_proto.h"

static void show(const char *name, const uint8_t *p, int n)
{
    int i;
    printf("%s ", name);
    if (n < 0) { printf("error %d\n", n); return; }
    for (i = 0; i < n; ++i) printf("%02x", p[i]);
    printf("\n");
}

int main(void)
{
    static const int32_t q7[7] = {-1, 2147483647, -2147483647 - 1, 123456, -654321, 0, 42};
    uint8_t b[PIK_PROTO_MAX_PAYLOAD];
    int i;
    pik_msg_setpoint sp; pik_msg_traj tr; pik_msg_heartbeat hb; pik_msg_enable en; pik_msg_config cf;
    pik_msg_pose po; pik_msg_limits li; pik_msg_ack ak; pik_msg_nack nk; pik_msg_state st; pik_msg_boot bo;
    memset(&sp, 0, sizeof sp); memset(&tr, 0, sizeof tr); memset(&cf, 0, sizeof cf); memset(&po, 0, sizeof po);
    memset(&li, 0, sizeof li); memset(&ak, 0, sizeof ak); memset(&st, 0, sizeof st); memset(&bo, 0, sizeof bo);

    sp.t_mcu_us = 0x89ABCDEFul; sp.n = 7; sp.flags = 0x05;
    for (i = 0; i < 7; ++i) sp.q_mdeg[i] = q7[i];
    show("SETPOINT", b, pik_msg_setpoint_encode(&sp, b, sizeof b));
    tr.t0_mcu_us = 0x01020304ul; tr.dt_us = 0xBEEF; tr.n = 3; tr.k = 2;
    for (i = 0; i < 6; ++i) tr.q_mdeg[i] = (i % 2 ? -1 : 1) * (i + 1);
    show("TRAJ_SEGMENT", b, pik_msg_traj_encode(&tr, b, sizeof b));
    hb.host_us = 0xDEADBEEFul;
    show("HEARTBEAT", b, pik_msg_heartbeat_encode(&hb, b, sizeof b));
    en.on = 1;
    show("ENABLE", b, pik_msg_enable_encode(&en, b, sizeof b));
    cf.watchdog_ms = 0x1234; cf.n = 2; cf.flags = PIK_CONFIG_F_THIN_ACK;
    cf.min_mdeg[0] = -100; cf.max_mdeg[0] = 300; cf.min_mdeg[1] = -200; cf.max_mdeg[1] = 400;
    show("CONFIG", b, pik_msg_config_encode(&cf, b, sizeof b));
    po.t_mcu_us = 0x11223344ul; po.xyz_um[0] = 1; po.xyz_um[1] = -2; po.xyz_um[2] = 3;
    po.rpy_mdeg[0] = -4; po.rpy_mdeg[1] = 5; po.rpy_mdeg[2] = -6; po.has_psi = 0;
    show("POSE_SETPOINT", b, pik_msg_pose_encode(&po, b, sizeof b));
    li.first = 3; li.n = 2; li.min_mdeg[0] = -7; li.max_mdeg[0] = 9; li.min_mdeg[1] = -8; li.max_mdeg[1] = 10;
    show("LIMITS", b, pik_msg_limits_encode(&li, b, sizeof b));
    ak.acked_seq = 0xA1B2; ak.state = 2; ak.faults = 5; ak.mcu_us = 0x0BADF00Dul; ak.echo_host_us = 0xCAFEBABEul;
    ak.queue_free = 17;
    show("ACK", b, pik_msg_ack_encode(&ak, b, sizeof b));
    nk.seq = 0xFFFF; nk.reason = 7;
    show("NACK", b, pik_msg_nack_encode(&nk, b, sizeof b));
    st.state = 1; st.faults = 8; st.mcu_us = 0x76543210ul; st.n = 3;
    st.q_mdeg[0] = -5; st.q_mdeg[1] = 6; st.q_mdeg[2] = 2147483647;
    show("STATE", b, pik_msg_state_encode(&st, b, sizeof b));
    bo.proto_ver = 1; bo.reset_cause = 3; bo.boot_count = 513; bo.caps = 0x80000001ul;
    bo.fw_id_len = (uint8_t)strlen("piperik-test"); memcpy(bo.fw_id, "piperik-test", bo.fw_id_len);
    show("BOOT", b, pik_msg_boot_encode(&bo, b, sizeof b));

    printf("head SETPOINT %d\nhead TRAJ_SEGMENT %d\nhead HEARTBEAT %d\nhead ENABLE %d\nhead CONFIG %d\n",
           PIK_PL_SETPOINT_HEAD, PIK_PL_TRAJ_HEAD, PIK_PL_HEARTBEAT, PIK_PL_ENABLE, PIK_PL_CONFIG_HEAD);
    printf("head POSE_SETPOINT %d\nhead LIMITS %d\nhead ACK %d\nhead NACK %d\nhead STATE %d\nhead BOOT %d\n",
           PIK_PL_POSE, PIK_PL_LIMITS_HEAD, PIK_PL_ACK, PIK_PL_NACK, PIK_PL_STATE_HEAD, PIK_PL_BOOT_HEAD);
    return 0;
}
"""


@pytest.fixture(scope="module")
def c_codec(tmp_path_factory):
    """{name: payload bytes} and {name: fixed head size} from the C codec."""
    work = tmp_path_factory.mktemp("layouts")
    (work / "layouts.c").write_text(C_PROGRAM)
    src = REPO_ROOT / "csrc" / "src"
    r = subprocess.run([CC, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", f"-I{REPO_ROOT / 'csrc' / 'include'}",
                        str(work / "layouts.c"), str(src / "pik_proto.c"), str(src / "pik_status.c"),
                        "-o", str(work / "layouts")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    out = subprocess.run([str(work / "layouts")], capture_output=True, text=True, check=True).stdout
    payloads, heads = {}, {}
    for line in out.splitlines():
        parts = line.split()
        if parts[0] == "head":
            heads[parts[1]] = int(parts[2])
        else:
            assert parts[1] != "error", line
            payloads[parts[0]] = bytes.fromhex(parts[1])
    return payloads, heads


def test_every_message_has_a_layout():
    assert set(P.LAYOUTS) == set(VALUES)
    for name in P.LAYOUTS:
        assert name in P.C, name  # the names are the header's message names


@pytest.mark.parametrize("name", sorted(VALUES))
def test_layout_packs_the_c_codec_bytes(c_codec, name):
    payloads, heads = c_codec
    head, items = VALUES[name]
    packed = P._pack(name, head, items)
    if name == "BOOT":
        packed += FW_ID.encode("ascii")
    assert packed.hex() == payloads[name].hex()
    assert struct.calcsize(P.LAYOUTS[name][0]) == heads[name]


def test_public_packers_equal_the_c_codec(c_codec):
    payloads, _ = c_codec
    assert P.setpoint(Q7, t_mcu_us=0x89ABCDEF, flags=0x05) == payloads["SETPOINT"]
    assert P.traj_segment([[1, -2, 3], [-4, 5, -6]], dt_us=0xBEEF, t0_mcu_us=0x01020304) == payloads["TRAJ_SEGMENT"]
    assert P.heartbeat(0xDEADBEEF) == payloads["HEARTBEAT"]
    assert P.enable(True) == payloads["ENABLE"]
    assert P.config(0x1234, [[-100, 300], [-200, 400]], thin_acks=True) == payloads["CONFIG"]
    assert P.pose_setpoint([1, -2, 3], [-4, 5, -6], t_mcu_us=0x11223344) == payloads["POSE_SETPOINT"]
    assert P.limits([[-7, 9], [-8, 10]], first=3) == payloads["LIMITS"]


def test_decoder_reads_the_c_codec_fields(c_codec):
    payloads, _ = c_codec
    assert P.decode(P.ACK, payloads["ACK"]) == P.Ack(0xA1B2, 2, 5, 0x0BADF00D, 0xCAFEBABE, 17)
    assert P.decode(P.NACK, payloads["NACK"]) == P.Nack(0xFFFF, 7)
    assert P.decode(P.STATE, payloads["STATE"]) == P.State(1, 8, 0x76543210, (-5, 6, 2147483647))
    assert P.decode(P.BOOT, payloads["BOOT"]) == P.Boot(1, 3, 513, 0x80000001, FW_ID)


# ---- PROTOCOL.md's message table, the spec's copy of the layouts ------------------------------------

WIRE_TYPES = {"u8": "B", "u16": "H", "u32": "I", "i32": "i"}


def _spec_layout(fields: str):
    """(head, item) struct formats of a payload column such as
    `u16 watchdog_ms, u8 n, u8 flags, n × (i32 min_mdeg, i32 max_mdeg)`."""
    head, item = "<", ""
    repeated = re.search(r"n × \((.*)\)", fields)
    if repeated:
        item = "".join(WIRE_TYPES[f.split()[0]] for f in repeated.group(1).split(", "))
        fields = fields[:repeated.start()].rstrip(", ")
    for field in filter(None, fields.split(", ")):
        kind, name = field.split()
        if kind == "char":  # BOOT's firmware id: the rest of the payload
            continue
        m = re.fullmatch(r"\w+\[(\w+)\](?:\[(\w+)\])?", name)
        if m and not m.group(1).isdigit():  # q_mdeg[n], q_mdeg[k][n]: the repeated item
            item = WIRE_TYPES[kind]
        else:
            head += (m.group(1) if m else "") + WIRE_TYPES[kind]
    return head, item


def test_protocol_md_message_table_agrees_with_layouts():
    text = (REPO_ROOT / "firmware_bridge" / "PROTOCOL.md").read_text()
    seen = set()
    for name, fields, size in re.findall(r"^\| 0x[0-9A-Fa-f]{2} \| (\w+) \| [^|]+ \| `([^`]*)`[^|(]*\((\d+)[^|]*\) \|",
                                         text, re.M):
        seen.add(name)
        head, item = _spec_layout(fields)
        assert struct.calcsize(head) == int(size), (name, fields, size)  # the spec's own byte count
        assert (head, item) == P.LAYOUTS[name], (name, fields)
    assert seen == set(P.LAYOUTS), f"PROTOCOL.md rows parsed: {sorted(seen)}"
