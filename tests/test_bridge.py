"""firmware_bridge: the C codec (vectors, a Python reference, property-based fuzz), the C firmware
tests, and end to end: the Python streamer against the reference firmware on a pseudo-terminal.

Timing assertions use generous margins: this machine is shared and noisy.
"""
import binascii
import os
import signal
import re
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

serial = pytest.importorskip("serial")
from hypothesis import given, settings, strategies as st  # noqa: E402

from firmware_bridge import protocol as P  # noqa: E402
from firmware_bridge.streamer import BridgeError, DeviceError, Streamer  # noqa: E402
from piperik import _core  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------- references


def ref_cobs_encode(data: bytes) -> bytes:
    """Textbook COBS (Cheshire & Baker), written independently of the C codec."""
    out, block = bytearray(), bytearray()
    for b in data:
        if b == 0:
            out += bytes([len(block) + 1]) + block
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out += bytes([255]) + block
                block = bytearray()
    out += bytes([len(block) + 1]) + block
    return bytes(out) + b"\x00"


def ref_frame(msg_type: int, seq: int, payload: bytes, ver: int = 1) -> bytes:
    body = struct.pack("<BBH", ver, msg_type, seq) + payload
    return ref_cobs_encode(body + struct.pack("<H", binascii.crc_hqx(body, 0xFFFF)))


# ---------------------------------------------------------------------------------------------- codec


def test_crc_check_value_and_stdlib_agreement():
    assert P.crc16(b"123456789") == 0x29B1 == binascii.crc_hqx(b"123456789", 0xFFFF)
    rng = np.random.default_rng(1)
    for n in (0, 1, 7, 58, 64, 300):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert P.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


@pytest.mark.parametrize("payload", [b"", b"\x00", b"\x00\x00\x00", b"\x01" * 58, b"\x00" * 58,
                                     bytes(range(58)), b"\xff\x00" * 29])
def test_encoder_matches_reference_and_round_trips(payload):
    wire = P.encode(P.SETPOINT, 0x1234, payload)
    assert wire == ref_frame(P.SETPOINT, 0x1234, payload)
    assert wire.count(0) == 1 and wire[-1] == 0  # the only zero is the delimiter
    assert P.Parser().feed(wire) == [("frame", P.SETPOINT, 0x1234, payload)]


def test_payload_too_long_is_refused():
    with pytest.raises(ValueError, match="payload"):
        P.encode(P.SETPOINT, 1, b"\x01" * 59)


def test_parser_resynchronises_at_every_delimiter():
    a, b = P.encode(P.HEARTBEAT, 1, b"abcd"), P.encode(P.ENABLE, 2, b"\x01")
    out = P.Parser().feed(b"\x07\x08\x09\x00" + a + b"\x00\x00" + a[:5] + b"\x00" + b)
    frames = [x for x in out if x[0] == "frame"]
    assert frames == [("frame", P.HEARTBEAT, 1, b"abcd"), ("frame", P.ENABLE, 2, b"\x01")]
    assert [x[0] for x in out].count("error") == 2  # the garbage and the cut-off frame, once each
    # garbage glued to a frame (no delimiter between) spoils that frame only
    out = P.Parser().feed(b"\x07\x08" + a + b)
    assert out[0][0] == "error" and out[1] == ("frame", P.ENABLE, 2, b"\x01")


def test_overlong_garbage_is_one_length_error():
    out = P.Parser().feed(bytes([0x55]) * 200 + b"\x00" + P.encode(P.HEARTBEAT, 3, b"wxyz"))
    errors = [x for x in out if x[0] == "error"]
    assert len(errors) == 1 and errors[0][1] == P.C["NACK_LEN"]
    assert out[-1] == ("frame", P.HEARTBEAT, 3, b"wxyz")


def test_wrong_version_is_reported_with_its_seq():
    out = P.Parser().feed(ref_frame(P.SETPOINT, 77, b"", ver=2))
    assert out == [("error", P.C["NACK_VER"], 77)]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_random_bytes_never_crash_and_only_valid_frames_pass(data):
    for item in P.Parser().feed(data):
        if item[0] == "frame":
            _, t, seq, payload = item
            # anything accepted re-encodes to a frame whose CRC the reference confirms
            assert P.Parser().feed(ref_frame(t, seq, payload)) == [item]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=58), st.integers(0, 0xFFFF), st.integers(0, 10_000), st.integers(1, 255))
def test_fuzz_single_byte_corruption_is_never_accepted(payload, seq, where, xor):
    wire = bytearray(P.encode(P.SETPOINT, seq, payload))
    i = where % (len(wire) - 1)  # any byte but the delimiter
    wire[i] ^= xor
    if wire[i] == 0:
        wire[i] = 0x01 if xor != 0x01 else 0x02  # a new zero would only split the frame
    if bytes(wire) == P.encode(P.SETPOINT, seq, payload):
        return
    for item in P.Parser().feed(bytes(wire)):
        assert item[0] == "error", f"a corrupted frame was accepted: {item}"


def test_constants_agree_with_protocol_md():
    """PROTOCOL.md's message table and the C header (exposed as _core.PROTO) agree."""
    text = (ROOT / "firmware_bridge" / "PROTOCOL.md").read_text()
    for name in ("SETPOINT", "TRAJ_SEGMENT", "HEARTBEAT", "ENABLE", "CONFIG", "ESTOP", "POSE_SETPOINT",
                 "GET_STATE", "LIMITS", "GET_BOOT", "TOOL", "ACK", "NACK", "STATE", "BOOT"):
        m = re.search(rf"0x([0-9A-Fa-f]{{2}})\W+`?{name}`?\b", text)
        assert m, f"{name} missing from PROTOCOL.md's message table"
        assert int(m.group(1), 16) == _core.PROTO[name], name
    assert P.VERSION == 1 and P.MAX_FRAME == 64


def test_wire_bytes_per_setpoint():
    assert P.wire_bytes_per_setpoint(6) == 4 + 6 + 24 + 2 + 2  # header, head, joints, crc, COBS + 0x00
    assert P.wire_bytes_per_setpoint(7) == 42


# ---------------------------------------------------------------------------------------------- C tests


def _cc():
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on PATH")
    return cc


# LeakSanitizer stops the whole run with this line where it cannot work: under qemu-user emulation
# (a Raspberry Pi check on an x86 machine, tools/pi_check.sh) or under a ptrace-ing tracer.
LSAN_UNAVAILABLE = "LeakSanitizer has encountered a fatal error"
_C_TEST_BUILDS: dict[tuple[str, bool], Path] = {}


def _c_test_exe(tmp_path_factory, program: str, sanitized: bool) -> Path:
    """A C test program built once per session: strict -O2, or ASan + UBSan + float-cast-overflow."""
    key = (program, sanitized)
    if key not in _C_TEST_BUILDS:
        cc = _cc()
        fw = ROOT / "firmware_bridge" / "firmware"
        src = ROOT / "csrc" / "src"
        if program == "codec":
            sources = [src / "pik_proto.c", src / "pik_status.c", ROOT / "csrc" / "tests" / "test_proto.c"]
        else:
            sources = sorted(src.glob("*.c")) + [ROOT / "tables" / "pik_trig_table.c", fw / "fw_core.c", fw / "test_fw.c"]
        flags = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-D_DEFAULT_SOURCE", "-O2"]
        if sanitized:
            flags = flags[:-1] + ["-O1", "-g", "-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all"]
        exe = tmp_path_factory.mktemp("ctest") / f"test_{program}_{'sanitized' if sanitized else 'strict'}"
        r = subprocess.run([cc, *flags, f"-I{ROOT / 'csrc' / 'include'}", f"-I{fw}", *map(str, sources), "-lm",
                            "-o", str(exe)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-3000:]
        _C_TEST_BUILDS[key] = exe
    return _C_TEST_BUILDS[key]


@pytest.mark.parametrize("variant", ["strict", "sanitizers", "leaks"])
@pytest.mark.parametrize("program", ["codec", "firmware"])
def test_c_tests(tmp_path_factory, program, variant):
    """The codec's C tests (csrc/tests/test_proto.c: only pik_proto.c and pik_status.c) and the
    firmware's (firmware_bridge/firmware/test_fw.c with the whole core), both on the shared
    harness csrc/tests/test_support.h: plain -O2 with every warning an error; under ASan + UBSan +
    float-cast-overflow with leak checking off (runs everywhere, emulation included); and the same
    sanitized binary with LeakSanitizer on, which skips, quoting LeakSanitizer, only where
    LeakSanitizer itself reports that it cannot run."""
    exe = _c_test_exe(tmp_path_factory, program, sanitized=variant != "strict")
    env = dict(os.environ)
    if variant != "strict":
        env["ASAN_OPTIONS"] = "detect_leaks=1" if variant == "leaks" else "detect_leaks=0"
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env)
    if variant == "leaks" and run.returncode != 0 and LSAN_UNAVAILABLE in run.stderr:
        hint = [ln.split("==", 2)[-1] for ln in run.stderr.splitlines() if "HINT" in ln and "ptrace" in ln]
        pytest.skip(f"LeakSanitizer cannot run in this environment (qemu-user emulation or a tracer): "
                    f"{LSAN_UNAVAILABLE}; {' '.join(hint)}")
    lines = run.stdout.strip().splitlines()
    last = lines[-1] if lines else "<no output on stdout>"
    assert run.returncode == 0 and re.fullmatch(r"[1-9]\d* passed, 0 failed", last), (
        f"exit {run.returncode}, last line {last!r}\n" + run.stdout[-3000:] + run.stderr[-2000:])
    assert not [line for line in lines if line.startswith("FAIL")], run.stdout[-3000:]


# ---------------------------------------------------------------------------------------------- end to end


class Sim:
    """The reference firmware on a pty (`piperik firmware-sim --link PATH`), killable and restartable."""

    def __init__(self, tmp_path: Path, robot: str = "piper"):
        self.link = tmp_path / f"tty_{robot}"
        self.robot = robot
        self.boot_count = 0
        self.proc = None

    def start(self):
        self.boot_count += 1
        env = dict(os.environ, FW_BOOT_COUNT=str(self.boot_count))
        # cwd outside the checkout: `-m piperik` must import the installed package, not the sources
        self.proc = subprocess.Popen([sys.executable, "-m", "piperik", "firmware-sim", "--robot", self.robot,
                                      "--link", str(self.link)], stdout=subprocess.PIPE, env=env, text=True,
                                     cwd=str(self.link.parent))
        first = self.proc.stdout.readline().strip()
        assert first.startswith("/dev/"), first
        deadline = time.monotonic() + 5
        while not self.link.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return first

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=5)
            self.proc = None

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.kill()
            self.proc = None


@pytest.fixture
def sim(tmp_path):
    if not _core.HAVE_FW_SIM:
        pytest.skip("the firmware simulator needs a POSIX system")
    s = Sim(tmp_path)
    s.start()
    yield s
    s.stop()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_firmware_sim_stops_cleanly_on_a_signal(tmp_path, sig):
    """`piperik firmware-sim` ends with status 0 within a second of SIGTERM or Ctrl-C and removes its
    --link (the stop reaches the firmware thread through Python's signal handling, no C global)."""
    if not _core.HAVE_FW_SIM:
        pytest.skip("the firmware simulator needs a POSIX system")
    s = Sim(tmp_path, "nero")
    s.start()
    try:
        assert s.link.exists()
        s.proc.send_signal(sig)
        assert s.proc.wait(timeout=5) == 0
        assert not s.link.exists()
    finally:
        s.kill()


def _limits_mdeg():
    import piperik

    arm = piperik.Piper()
    return np.stack([np.ceil(np.degrees(arm.lower) * 1000), np.floor(np.degrees(arm.upper) * 1000)], axis=1)


def _wait_for(pred, timeout_s, link=None):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if link is not None:
            link.poll()
        if pred():
            return True
        time.sleep(0.001)
    return False


def _sway(n, rate, q0=None):
    t = np.arange(n) / rate
    base = np.array([0.0, 1.0, -1.0, 0.0, 0.3, 0.0]) if q0 is None else q0
    return base[None] + 0.1 * np.sin(2 * np.pi * 0.5 * t)[:, None]


def test_boot_handshake_and_refusal_until_enabled(sim):
    with Streamer(str(sim.link)) as link:
        assert link.boot.proto_ver == 1 and link.boot.boot_count == 1 and "piper" in link.boot.firmware_id
        assert link.needs_enable and link.device_state == P.C["STATE_DISABLED"]
        with pytest.raises(DeviceError, match="enable"):
            link.stream(_sway(5, 100), 100)
        seq = link.send_setpoint([0, 57000, -57000, 0, 0, 0])
        assert _wait_for(lambda: link.stats.nacked.get("DISABLED", 0) == 1, 1.0, link), link.stats.summary()
        assert seq not in link._outstanding


@pytest.mark.realtime
def test_1000_setpoints_at_500_hz_all_accounted(sim):
    with Streamer(str(sim.link)) as link:
        link.configure(watchdog_ms=100, limits_mdeg=_limits_mdeg())
        link.enable()
        stats = link.stream(_sway(1000, 500.0), 500.0)
        assert stats.sent == 1000 and stats.acked == 1000 and stats.drops == 0, stats.summary()
        assert stats.nacked_total == 0 and stats.resets == 0
        assert len(stats.rtt_us) == 1000 and stats.rtt_percentile_us(50) < 50_000
        state = link.state()
        np.testing.assert_array_equal(state.q_mdeg, P.q_to_mdeg(_sway(1000, 500.0)[-1]))


def test_corrupted_bytes_are_nacked_then_the_link_resynchronises(sim):
    with Streamer(str(sim.link)) as link:
        bad = bytearray(P.encode(P.HEARTBEAT, 500, P.heartbeat(1)))
        bad[3] ^= 0x40
        link._ser.write(bytes(bad))
        assert _wait_for(lambda: link.stats.broken_frames_reported >= 1, 1.0, link)
        link._ser.write(bytes([0x33]) * 150 + b"\x00")  # noise longer than any frame
        assert _wait_for(lambda: link.stats.broken_frames_reported >= 2, 1.0, link)
        link.configure(watchdog_ms=100)  # reliable request right after: accepted
        link.enable()
        link.send_setpoint(P.q_to_mdeg([0.0, 1.0, -1.0, 0.0, 0.3, 0.0]))
        assert _wait_for(lambda: link.stats.acked == 1, 1.0, link), link.stats.summary()


def test_stale_and_out_of_order_setpoints_are_refused(sim):
    with Streamer(str(sim.link)) as link:
        link.configure(watchdog_ms=500, limits_mdeg=_limits_mdeg())
        link.enable()
        q_new, q_old = [1000, 57000, -57000, 0, 0, 0], [2000, 57000, -57000, 0, 0, 0]
        link._ser.write(P.encode(P.SETPOINT, 900, P.setpoint(q_new)))
        link._ser.write(P.encode(P.SETPOINT, 899, P.setpoint(q_old)))   # older: refused
        link._ser.write(P.encode(P.SETPOINT, 900, P.setpoint(q_old)))   # same: refused
        assert _wait_for(lambda: list(link.nacks) == [(899, "STALE"), (900, "STALE")], 1.0, link), list(link.nacks)
        assert tuple(link.state().q_mdeg) == tuple(q_new)  # nothing applied out of order
        # through the streamer's own bookkeeping: a setpoint never goes out twice, and a newer
        # seq always wins; after the raw seq 900 our next one (seq > 900) is accepted
        link._seq = 950
        link.send_setpoint(q_old)
        assert _wait_for(lambda: link.stats.acked == 1, 1.0, link), link.stats.summary()
        assert tuple(link.state().q_mdeg) == tuple(q_old)


@pytest.mark.realtime
def test_watchdog_holds_within_its_period(sim):
    with Streamer(str(sim.link)) as link:
        link.configure(watchdog_ms=100, limits_mdeg=_limits_mdeg())
        link.enable()
        link.stream(_sway(20, 200.0), 200.0)
        t_last = time.monotonic()
        assert _wait_for(lambda: link.device_state == P.C["STATE_HOLD"], 2.0, link)
        elapsed = time.monotonic() - t_last
        assert 0.08 <= elapsed <= 1.0, f"HOLD after {elapsed * 1000:.0f} ms (watchdog 100 ms)"
        assert link.device_faults & P.C["FAULT_WATCHDOG"]
        assert link.needs_enable
        link.send_setpoint(P.q_to_mdeg(_sway(1, 200.0)[0]))
        assert _wait_for(lambda: link.stats.nacked.get("DISABLED", 0) >= 1, 1.0, link)
        link.enable()  # explicit enable clears the latched fault
        assert _wait_for(lambda: link.device_state == P.C["STATE_ENABLED"] and link.device_faults == 0, 1.0, link)


def test_estop_faults_the_device(sim):
    with Streamer(str(sim.link)) as link:
        link.enable()
        link.estop()
        assert _wait_for(lambda: link.device_state == P.C["STATE_FAULT"], 1.0, link)
        assert link.device_faults & P.C["FAULT_ESTOP"]
        with pytest.raises(DeviceError):
            link.stream(_sway(5, 100.0), 100.0)


def test_firmware_restart_is_noticed_and_needs_enable(sim):
    with Streamer(str(sim.link), link_timeout_s=0.3, max_reconnect_s=10.0) as link:
        link.configure(watchdog_ms=100, limits_mdeg=_limits_mdeg())
        link.enable()

        def samples():
            for i, q in enumerate(_sway(5000, 200.0)):
                if i == 100:
                    sim.kill()
                    sim.start()  # boot count 2, same stable path
                yield q

        stats = link.stream(samples(), 200.0)
        assert stats.sent < 5000, "the stream should stop when the device restarts"
        assert stats.reconnects >= 1 or stats.resets >= 1, stats.summary()
        if link._ser is None or link.boot is None or link.boot.boot_count != 2:
            link._reconnect("test")
        assert link.boot.boot_count == 2 and link.needs_enable
        with pytest.raises(DeviceError, match="enable"):
            link.stream(_sway(5, 200.0), 200.0)
        link.enable()
        more = link.stream(_sway(50, 200.0), 200.0)
        assert more.drops == 0


def test_pose_setpoint_runs_ik_on_the_device(sim):
    import piperik

    arm = piperik.Piper()
    with Streamer(str(sim.link)) as link:
        link.enable()
        q = np.array([0.1, 1.1, -1.0, 0.1, 0.4, 0.1])
        T = arm.fk(q)
        xyz, rpy = piperik.pose_to_xyz_rpy(T)
        link.send_pose(xyz, rpy)
        assert _wait_for(lambda: link.stats.acked == 1, 1.0, link), link.stats.summary()
        state = link.state()
        assert state is not None and state.mcu_us > 0, state  # the device's clock, not a placeholder
        q_dev = np.radians(np.asarray(state.q_mdeg) / 1000.0)
        dp = np.linalg.norm(arm.fk(q_dev)[:3, 3] - T[:3, 3])
        assert dp < 1e-4, f"device IK lands {dp * 1e3:.3f} mm away (millidegree rounding allows ~0.02 mm)"
        # a pose that is not a pose is refused on the host, before anything is sent
        sent = link.stats.sent
        with pytest.raises(ValueError, match="xyz_m"):
            link.send_pose([np.nan, 0.0, 0.3], rpy)
        with pytest.raises(ValueError, match="rpy_rad"):
            link.send_pose(xyz, [0.0, np.inf, 0.0])
        with pytest.raises(ValueError, match="rpy_rad"):
            link.send_pose(xyz, [0.0, 0.0])
        assert link.stats.sent == sent


def _q_device(link):
    state = link.state()
    assert state is not None
    return np.radians(np.asarray(state.q_mdeg) / 1000.0)


def test_set_tool_then_tcp_pose_setpoints_drive_the_joints(sim):
    """TOOL through the firmware simulator: after set_tool, a pose setpoint of the TCP pose fk_tcp(q)
    commands q (to the wire's rounding); set_tool(None) returns to flange poses; a device reset
    forgets the tool and enable() gives it back."""
    import piperik

    tool = (0.02, -0.015, 0.145, 0.2, -0.3, 0.5)
    q = np.array([0.3, 1.2, -1.0, 0.4, 0.6, -0.5])
    near = q + np.array([0.05, -0.05, 0.05, 0.05, -0.05, 0.05])  # the selection's reference: q's branch
    with Streamer(str(sim.link)) as link:
        assert link.boot.caps & P.C["CAP_TOOL"] and P.CAPS[P.C["CAP_TOOL"]] == "TOOL"
        applied = link.set_tool(tool)  # while DISABLED: TOOL is not motion
        assert np.allclose(applied, piperik.pose_from_xyz_rpy(tool[:3], tool[3:]), atol=2e-5)
        arm = piperik.Piper(tool=applied)  # the tool exactly as the device has it
        T_tcp = arm.fk(q)
        link.enable()

        def pose_to(T, seq_start):
            link.send_setpoint(P.q_to_mdeg(near))
            xyz, rpy = piperik.pose_to_xyz_rpy(T)
            link.send_pose(xyz, rpy)
            assert _wait_for(lambda: link.stats.acked == seq_start + 2, 1.0, link), link.stats.summary()
            return _q_device(link)

        q_dev = pose_to(T_tcp, 0)
        assert np.max(np.abs(q_dev - q)) < np.radians(0.002), np.degrees(q_dev - q) * 1000  # < 2 mdeg
        # the flange again: the same pose is now the flange's, reached by other joints
        assert link.set_tool(None) is None
        q_flange = pose_to(T_tcp, 2)
        assert np.max(np.abs(q_flange - q)) > 0.05
        assert np.linalg.norm(piperik.Piper().fk(q_flange)[:3, 3] - T_tcp[:3, 3]) < 1e-4
        # a restarted device has no tool; enable() sends it again before enabling
        link.set_tool(tool)
        sim.stop()
        sim.start()  # boot count 2, same stable path
        link._reconnect("test: firmware restarted")
        assert link.boot.boot_count == 2 and link.needs_enable
        link.enable()
        q_dev = pose_to(T_tcp, 4)
        assert np.max(np.abs(q_dev - q)) < np.radians(0.002)


def test_set_tool_refuses_what_is_not_a_rigid_tool_before_sending():
    link = Streamer("loop://")  # never opened: every refusal happens on the host
    for bad, why in [(np.diag([1.0, 1.0, 2.0, 1.0]), "rigid"), (np.diag([1.0, 1.0, -1.0, 1.0]), "det"),
                     ((0.0, 0.0, 101.0, 0.0, 0.0, 0.0), "100 m"), ((0.0, 0.0, 0.1, 0.0, np.nan, 0.0), "finite"),
                     ((0.0, 0.1), "shape"), ("gripper", "4x4")]:
        with pytest.raises(ValueError, match=rf"^tool: .*{why}"):
            link.set_tool(bad)
    T = np.eye(4)
    T[3, 2] = 1e-3
    with pytest.raises(ValueError, match=r"^tool: .*last row"):
        link.set_tool(T)
    with pytest.raises(ValueError, match=r"^xyz_um:"):
        P.tool([2 ** 31, 0, 0], [0, 0, 0])
    with pytest.raises(ValueError, match=r"^rpy_mdeg:"):
        P.tool([0, 0, 0], [0, 0.5j, 0])
    assert link.tool is None


@pytest.mark.realtime
def test_cli_stream_demo(sim):
    r = subprocess.run([sys.executable, "-m", "piperik", "stream", "--port", str(sim.link), "--robot", "piper",
                        "--demo", "--rate", "500", "--seconds", "1"], capture_output=True, text=True, timeout=60,
                       cwd=str(sim.link.parent))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "sent 500 acked 500" in r.stdout and "drops 0" in r.stdout


def test_open_by_url_and_errors():
    s = serial.serial_for_url("loop://", timeout=0)
    link = Streamer(s, reply_timeout_s=0.05)
    with pytest.raises(BridgeError, match="handshake"):
        link.open()  # a loopback echoes our own frames: no device answers
    with pytest.raises(BridgeError, match="USB id"):
        Streamer("ffff:fffe").open()


@pytest.mark.realtime
def test_stream_a_timed_trajectory(sim):
    import piperik
    from piperik.trajectory import plan_cartesian, time_parameterize

    arm = piperik.Piper()
    q0 = np.array([0.2, 1.2, -1.0, 0.3, 0.6, 0.1])
    T0 = arm.fk(q0)
    T1 = T0.copy()
    T1[:3, 3] += [0.0, 0.03, 0.0]
    traj = time_parameterize(plan_cartesian(arm, [T0, T1], q0).q, arm.max_velocity, arm.max_acceleration, 250.0)
    with Streamer(str(sim.link)) as link:
        link.configure(watchdog_ms=100, limits_mdeg=_limits_mdeg())
        link.enable()
        stats = link.stream(traj)  # its own rate
        assert stats.sent == len(traj.t_s) and stats.drops == 0, stats.summary()
        np.testing.assert_array_equal(link.state().q_mdeg, P.q_to_mdeg(traj.q_rad[-1]))
