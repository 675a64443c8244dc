"""Tool (TCP) frames (issue 11, item 1): every arm takes ``tool=`` (4x4 flange -> TCP, or x, y, z,
roll, pitch, yaw); fk returns the TCP pose and every IK entry point takes TCP poses, composed in the
C core. Checked against Pinocchio with a TCP frame added to the shipped URDF, and against the
flange solver on the stripped pose (T_tcp inv(T_tool)) as an independent composition in numpy."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import piperik
from piperik.trajectory import plan_cartesian

ARMS = [piperik.Piper, piperik.Nero, piperik.Iiwa14]
#: a gripper-like tool: 14.5 cm along the flange z, slightly tilted and off-axis
TOOL_XYZ_RPY = (0.012, -0.02, 0.145, 0.1, -0.2, 0.3)


def _q_in_limits(arm, rng, n):
    return rng.uniform(arm.lower, arm.upper, size=(n, arm.dof))


def _ik_all(arm, T, q):
    """Every solution at q's arm angle, q as the seed (at a singular pose it supplies the free joint)."""
    return arm.ik_all(T, seed=q) if arm.dof == 6 else arm.ik_all(T, arm.arm_angle(q), seed=q)


def _wrapped(D):
    return np.abs((np.asarray(D) + np.pi) % (2 * np.pi) - np.pi)


#: a configuration of each arm well inside its workspace (the CLI demo's first)
HOME = {piperik.Piper: [0.0, 1.2, -1.0, 0.0, 0.6, 0.0], piperik.Nero: [0.0, 0.5, 0.0, 1.2, 0.0, 0.3, 0.0],
        piperik.Iiwa14: [0.0, 0.6, 0.0, -1.2, 0.0, 0.8, 0.0]}


@pytest.mark.parametrize("cls", ARMS)
def test_fk_is_flange_times_tool(cls):
    rng = np.random.default_rng(11)
    flange, tcp = cls(), cls(tool=TOOL_XYZ_RPY)
    T_tool = piperik.pose_from_xyz_rpy(TOOL_XYZ_RPY[:3], TOOL_XYZ_RPY[3:])
    assert np.array_equal(tcp.tool, T_tool)
    Q = _q_in_limits(flange, rng, 500)
    assert np.abs(tcp.fk(Q) - flange.fk(Q) @ T_tool).max() <= 1e-15
    # a 4x4 tool is the same tool
    assert np.array_equal(cls(tool=T_tool).fk(Q[:5]), tcp.fk(Q[:5]))


@pytest.mark.parametrize("cls", ARMS)
def test_fk_with_tool_equals_pinocchio_tcp_frame(cls):
    pin = pytest.importorskip("pinocchio")
    arm = cls(tool=TOOL_XYZ_RPY)
    model = pin.buildModelFromUrdf(str(arm.urdf_path))
    ee = model.frames[model.getFrameId(arm.ee_frame)]
    tcp_placement = ee.placement * pin.SE3(arm.tool)
    frame_type = pin.FrameType.OP_FRAME
    tcp_id = model.addFrame(pin.Frame("tcp", ee.parentJoint, ee.parentFrame, tcp_placement, frame_type))
    data = model.createData()
    rng = np.random.default_rng(12)
    worst = 0.0
    for q in _q_in_limits(arm, rng, 200):
        pin.framesForwardKinematics(model, data, q)
        worst = max(worst, np.abs(data.oMf[tcp_id].homogeneous - arm.fk(q)).max())
    assert worst <= 1e-12


@pytest.mark.parametrize("cls", ARMS)
def test_every_ik_entry_point_takes_tcp_poses(cls):
    rng = np.random.default_rng(13)
    arm, flange = cls(tool=TOOL_XYZ_RPY), cls()
    T_tool_inv = np.linalg.inv(arm.tool)
    Q = _q_in_limits(arm, rng, 100)
    Ts = arm.fk(Q)
    for q, T in zip(Q, Ts):
        # all solutions: the generating one is among them, each reproduces the TCP pose
        S = _ik_all(arm, T, q)
        assert np.abs(S - q).max(axis=1).min() <= 1e-9
        assert np.abs(arm.fk(S) - T).max() <= 1e-9
        # the same set as the flange solver on the stripped pose
        S_flange = _ik_all(flange, T @ T_tool_inv, q)
        assert S.shape == S_flange.shape and np.abs(S - S_flange).max() <= 1e-9
        # nearest choice holds q; select agrees
        assert np.abs(arm.ik(T, q) - q).max() <= 1e-9
        assert np.abs(arm.select(T, q).q - q).max() <= 1e-9
    Qb, ok = arm.ik_batch(Ts, Q)
    assert ok.all() and np.abs(Qb - Q).max() <= 1e-9
    if arm.dof == 7:
        for q, T in zip(Q[:20], Ts[:20]):
            A, B = arm.feasible_arm_angles(T), flange.feasible_arm_angles(T @ T_tool_inv)
            assert len(A) == len(B) and np.allclose(A, B, rtol=0, atol=1e-9)


@pytest.mark.parametrize("cls", ARMS)
def test_ik_path_and_plan_cartesian_move_the_tcp(cls):
    """A straight TCP line: plan_cartesian's samples are on the line in TCP space (the flange of a
    tilted, offset tool is not), and ik_path follows a TCP path from its joint path."""
    arm = cls(tool=TOOL_XYZ_RPY)
    q0 = np.array(HOME[cls])
    T0 = arm.fk(q0)
    T1 = T0.copy()
    T1[:3, 3] += [0.05, -0.04, 0.03]
    plan = plan_cartesian(arm, [T0, T1], q0, max_joint_step_rad=0.02)
    P = arm.fk(plan.q)[:, :3, 3]
    d = T1[:3, 3] - T0[:3, 3]
    off_line = np.linalg.norm(np.cross(P - T0[:3, 3], d / np.linalg.norm(d)), axis=1)
    assert off_line.max() <= 1e-9
    assert np.abs(arm.fk(plan.q[-1]) - T1).max() <= 1e-9
    Q = q0 + np.linspace(0, 0.3, 60)[:, None] * np.sin(np.arange(arm.dof) + 1.0)
    Ts = arm.fk(Q)
    P = arm.ik_path(Ts, Q[0]).q
    assert np.abs(arm.fk(P) - Ts).max() <= 1e-9
    assert np.abs(np.diff(P, axis=0)).max() <= 2 * np.abs(np.diff(Q, axis=0)).max()
    if arm.dof == 6:
        assert np.abs(P - Q).max() <= 1e-9


@pytest.mark.parametrize("cls", ARMS)
def test_with_tool_and_tool_property(cls):
    arm = cls()
    assert np.array_equal(arm.tool, np.eye(4))
    with_tool = arm.with_tool(TOOL_XYZ_RPY)
    assert not np.array_equal(with_tool.tool, np.eye(4))
    assert np.array_equal(with_tool.lower, arm.lower)
    assert np.array_equal(with_tool.with_tool(None).tool, np.eye(4))
    T = with_tool.tool
    T[0, 3] = 99.0  # a copy: the arm keeps its tool
    assert with_tool.tool[0, 3] == TOOL_XYZ_RPY[0]
    assert "tool=" in repr(with_tool) and "tool=" not in repr(arm)
    if cls is not piperik.Piper:
        limited = cls(lower=arm.lower + 0.1, upper=arm.upper - 0.1).with_tool(TOOL_XYZ_RPY)
        assert np.allclose(limited.lower, arm.lower + 0.1)


@pytest.mark.parametrize("cls", ARMS)
@pytest.mark.parametrize("tool, rule", [
    (np.eye(3), "tool: expected a 4x4"),
    (np.diag([1.0, 1.0, 2.0, 1.0]), "tool: expected a rigid transform"),
    (np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]]), "tool: expected a rigid transform"),
    (np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 1, 1.0]]), "tool: the last row"),
    ((0, 0, 1e3, 0, 0, 0), "tool: expected a rigid transform"),
    ((0, 0, np.nan, 0, 0, 0), "tool: (x, y, z, roll, pitch, yaw) must be finite"),
    ("gripper", "tool: "),  # Piper: no named tools; S-R-S arms: not one of theirs (checked below)
    ((1, 2, 3), "tool: expected a 4x4 transform or"),
])
def test_bad_tool_is_refused_naming_the_rule(cls, tool, rule):
    with pytest.raises(ValueError) as exc:
        cls(tool=tool)
    assert rule in str(exc.value)
    if isinstance(tool, str):
        assert ("expected a 4x4 transform or" in str(exc.value)) != ("is not a named tool" in str(exc.value))


@settings(max_examples=60, deadline=None)
@given(xyz=st.tuples(*[st.floats(-0.5, 0.5)] * 3), rpy=st.tuples(*[st.floats(-np.pi, np.pi)] * 3),
       q_unit=st.tuples(*[st.floats(0.0, 1.0)] * 7), which=st.sampled_from(ARMS))
def test_any_tool_round_trips(xyz, rpy, q_unit, which):
    arm = which(tool=(*xyz, *rpy))
    q = arm.lower + (arm.upper - arm.lower) * np.asarray(q_unit[:arm.dof])
    T = arm.fk(q)
    S = _ik_all(arm, T, q)
    assert len(S) and _wrapped(S - q).max(axis=1).min() <= 1e-8
    assert np.abs(arm.fk(S) - T).max() <= 1e-9


def test_cli_tool_option_gives_the_tcp_pose(tmp_path):
    # cwd outside the checkout: the installed package, not the source tree (no built _core there)
    run = subprocess.run([sys.executable, "-m", "piperik", "fk", "0", "1", "-1", "0", "0.5", "0", "--tool", "0", "0",
                          "0.145", "0", "0", "0"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "TCP pose (--tool)" in run.stdout
    T = piperik.Piper(tool=(0, 0, 0.145, 0, 0, 0)).fk([0, 1, -1, 0, 0.5, 0])
    assert f"{T[0, 3]:.6f}" in run.stdout
