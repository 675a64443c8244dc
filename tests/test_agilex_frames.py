"""piperik.agilex's CAN frames against piper_sdk's own encoders and decoders, both ways, and the
simulated arm read by the unmodified SDK over python-can's virtual bus (units: 0.001 deg, 0.001 mm).
"""
import time
import uuid

import numpy as np
import pytest

can = pytest.importorskip("can")
pytest.importorskip("piper_sdk")
from piper_sdk import C_PiperInterface_V2  # noqa: E402
from piper_sdk.piper_msgs.msg_v2 import PiperMessage  # noqa: E402
from piper_sdk.protocol.protocol_v2.piper_protocol_v2 import C_PiperParserV2  # noqa: E402

import piperik  # noqa: E402
from piperik.agilex import SimulatedPiper, firmware_is_legacy  # noqa: E402
from piperik.agilex import frames as F  # noqa: E402
from piperik.poses import MDEG_PER_RAD, pose_to_piper_units  # noqa: E402

INT32 = (-(2**31), 2**31 - 1)


def sdk_decode(cid, data):
    msg = PiperMessage()
    assert C_PiperParserV2().DecodeMessage(can.Message(arbitration_id=cid, data=data, timestamp=1.0), msg)
    return msg


def channel():
    return f"piperik-test-{uuid.uuid4().hex[:10]}"


def sdk_on(ch):
    piper = C_PiperInterface_V2(ch, judge_flag=False, can_auto_init=False)
    piper.CreateCanBus(ch, bustype="virtual")
    piper.ConnectPort(can_init=False, piper_init=False)
    return piper


# ---------------------------------------------------------------------------------- arm -> host


@pytest.mark.parametrize("values", [[0, 1, -1, 123456, -2967000, 2618000], [INT32[0], INT32[1], 7, -7, 90000, -90000]])
def test_joint_feedback_frames_read_by_sdk(values):
    got = []
    for cid, data in F.six_frames(F.JOINT_FEEDBACK, values):
        m = sdk_decode(cid, data).arm_joint_feedback
        got.append({0x2A5: (m.joint_1, m.joint_2), 0x2A6: (m.joint_3, m.joint_4), 0x2A7: (m.joint_5, m.joint_6)}[cid])
    assert [v for pair in got for v in pair] == values


def test_end_pose_feedback_frames_read_by_sdk():
    values = [250000, -50000, 300000, 180000, -40000, 170000]   # 0.001 mm, 0.001 deg
    msgs = [sdk_decode(cid, data).arm_end_pose for cid, data in F.six_frames(F.END_POSE_FEEDBACK, values)]
    assert (msgs[0].X_axis, msgs[0].Y_axis, msgs[1].Z_axis, msgs[1].RX_axis, msgs[2].RY_axis, msgs[2].RZ_axis) == tuple(values)


def test_status_frame_read_by_sdk():
    err = (1 << 8 + 4) | (1 << 2)          # joint 5 angle limit, joint 3 communication
    st = sdk_decode(F.STATUS_FEEDBACK, F.encode_status(0x01, 0x07, 0x01, 0, 1, 3, err)).arm_status_msgs
    assert (st.ctrl_mode.value, st.arm_status.value, st.mode_feed.value, st.motion_status.value, st.trajectory_num) == (1, 7, 1, 1, 3)
    assert st.err_code == err
    assert st.err_status.joint_5_angle_limit and st.err_status.communication_status_joint_3
    assert not st.err_status.joint_1_angle_limit and not st.err_status.communication_status_joint_5
    assert F.describe_error_bits(err) == "joint 5 angle limit exceeded, joint 3 communication error"


def test_low_speed_frame_enable_bit_read_by_sdk():
    on = sdk_decode(0x263, F.encode_low_speed(240, 31, -5, F.DRIVER_ENABLED_BIT, 1500)).arm_low_spd_feedback_3
    assert on.foc_status.driver_enable_status and (on.vol, on.foc_temp, on.motor_temp, on.bus_current) == (240, 31, -5, 1500)
    off = sdk_decode(0x263, F.encode_low_speed(240, 31, 30, 0, 0)).arm_low_spd_feedback_3
    assert not off.foc_status.driver_enable_status


# ---------------------------------------------------------------------------------- host -> arm


def sent_by_sdk(action):
    """Frames the SDK puts on a virtual bus when ``action(piper)`` runs, as (id, bytes)."""
    ch = channel()
    listener = can.Bus(channel=ch, interface="virtual")
    piper = sdk_on(ch)
    try:
        action(piper)
        out = []
        while (m := listener.recv(timeout=0.2)) is not None:
            out.append((m.arbitration_id, bytes(m.data)))
        return out
    finally:
        piper.DisconnectPort()
        listener.shutdown()


def test_sdk_joint_ctrl_decoded_by_our_codec():
    values = [150000, 1000, -170000, -100000, 69999, INT32[0]]
    frames = sent_by_sdk(lambda p: p.JointCtrl(*values))
    assert [cid for cid, _ in frames] == list(F.JOINT_CTRL)
    assert [v for _, d in frames for v in F.unpack_pair(d)] == values
    # ... and the SDK's parser reads our encoding of the same command identically
    assert [d for _, d in frames] == [d for _, d in F.six_frames(F.JOINT_CTRL, values)]


def test_sdk_motion_ctrl_enable_firmware_query_decoded_by_our_codec():
    def act(p):
        p.MotionCtrl_2(0x01, 0x01, 73, 0xAD)
        p.EnableArm(7)
        p.DisableArm(7)
        p.MotionCtrl_1(0x01, 0, 0)
        p.SearchPiperFirmwareVersion()
    frames = sent_by_sdk(act)
    ids = [cid for cid, _ in frames]
    assert ids == [F.MOTION_CTRL_2, F.MOTOR_ENABLE, F.MOTOR_ENABLE, F.MOTION_CTRL_1, F.FIRMWARE_READ]
    m = F.decode_motion_ctrl_2(frames[0][1])
    assert (m.ctrl_mode, m.move_mode, m.speed_percent, m.mit_mode) == (F.CTRL_MODE_CAN, F.MOVE_J, 73, F.MIT_ON)
    assert frames[0][1] == F.encode_motion_ctrl_2(0x01, 0x01, 73, 0xAD)
    assert F.decode_enable(frames[1][1]) == (7, F.ENABLE_FLAG)
    assert F.decode_enable(frames[2][1]) == (7, F.DISABLE_FLAG)
    assert F.decode_motion_ctrl_1(frames[3][1])[0] == 0x01
    assert frames[4][1][0] == 0x01


# ---------------------------------------------------------------------------------- the simulated arm through the SDK


def test_sdk_reads_simulated_arm_units_both_ways():
    """Joints in 0.001 deg and the flange in 0.001 mm / 0.001 deg, as the SDK reports them."""
    ch = channel()
    q0 = np.array([0.3, 1.1, -0.9, 0.2, -0.5, 0.7])
    arm = piperik.Piper()
    with SimulatedPiper(ch, q0_rad=q0) as sim:
        piper = sdk_on(ch)
        try:
            assert sim.wait_until(lambda s: piper.GetArmJointMsgs().time_stamp > 0 and
                                  piper.GetArmEndPoseMsgs().time_stamp > 0, 5.0)
            time.sleep(0.05)
            js = piper.GetArmJointMsgs().joint_state
            mdeg = [js.joint_1, js.joint_2, js.joint_3, js.joint_4, js.joint_5, js.joint_6]
            assert mdeg == [int(round(x * MDEG_PER_RAD)) for x in q0]
            assert mdeg[0] == 17189                     # 0.3 rad = 17.189 deg
            ep = piper.GetArmEndPoseMsgs().end_pose
            got = [ep.X_axis, ep.Y_axis, ep.Z_axis, ep.RX_axis, ep.RY_axis, ep.RZ_axis]
            expect = pose_to_piper_units(arm.fk(np.asarray(mdeg) / MDEG_PER_RAD))
            assert got == expect.tolist()
            T = arm.fk(q0)
            assert abs(ep.X_axis - T[0, 3] * 1e6) < 10 and abs(ep.Z_axis - T[2, 3] * 1e6) < 10   # um
            # the SDK's own FK of the reported joints agrees with the reported end pose (mm, deg)
            piper.EnableFkCal()   # the SDK computes it on its next feedback frame (a few ms; longer emulated)
            assert sim.wait_until(lambda s: any(piper.GetFK("feedback")[-1]), 5.0)
            sdk_flange = piper.GetFK("feedback")[-1]
            assert np.allclose(sdk_flange[:3], np.asarray(got[:3]) / 1000.0, atol=0.01)
            # host -> arm: a JointCtrl in 0.001 deg moves the simulated joint to that angle in rad
            piper.EnableArm(7)
            assert sim.wait_until(lambda s: all(piper.GetArmEnableStatus()), 5.0)
            piper.MotionCtrl_2(0x01, 0x01, 100, 0x00)
            target = [20000, 60000, -45000, 0, 30000, -10000]
            piper.JointCtrl(*target)
            assert sim.wait_until(lambda s: np.allclose(s.q_rad, np.radians(np.asarray(target) / 1000.0), atol=1e-5), 5.0)
            assert sim.joint_commands()[-1].tolist() == target
            # the arm's status frame reports the mode set by MotionCtrl_2 (once the SDK has read one)
            assert sim.wait_until(lambda s: piper.GetArmStatus().arm_status.ctrl_mode.value == 0x01 and
                                  piper.GetArmStatus().arm_status.mode_feed.value == 0x01, 5.0), \
                piper.GetArmStatus().arm_status
        finally:
            piper.DisconnectPort()


def test_sdk_end_pose_command_in_0001_mm_decoded_by_simulator():
    """Host -> arm in 0.001 mm / 0.001 deg: piper_sdk's EndPoseCtrl, decoded by the simulated arm,
    is the pose piperik means by the same integers."""
    ch = channel()
    units = [250000, -50000, 300000, 180000, 40000, 170000]
    with SimulatedPiper(ch) as sim:
        piper = sdk_on(ch)
        try:
            piper.EndPoseCtrl(*units)
            assert sim.wait_until(lambda s: s.end_pose_command == units, 5.0)
        finally:
            piper.DisconnectPort()
    T = piperik.pose_from_piper_units(sim.end_pose_command)
    expect = piperik.pose_from_xyz_rpy([0.25, -0.05, 0.30], np.radians([180, 40, 170]))
    assert np.allclose(T, expect, atol=1e-12)
    assert pose_to_piper_units(expect).tolist() == units


@pytest.mark.parametrize("version, legacy", [("S-V1.6-2", True), ("S-V1.6-3", False), ("S-V1.8-5", False)])
def test_firmware_version_through_sdk(version, legacy):
    ch = channel()
    with SimulatedPiper(ch, firmware_version=version):
        piper = sdk_on(ch)
        try:
            got = None
            for _ in range(100):
                if _ % 20 == 0:
                    piper.SearchPiperFirmwareVersion()
                time.sleep(0.01)
                got = piper.GetPiperFirmwareVersion()
                if isinstance(got, str):
                    break
            assert got == version
            assert firmware_is_legacy(got) is legacy
        finally:
            piper.DisconnectPort()


def test_firmware_version_parse_errors():
    with pytest.raises(ValueError, match="firmware version"):
        firmware_is_legacy("V1.6")
