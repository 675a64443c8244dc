"""The AgileX PiPER family as presets (issue 11, item 2, its AgileX part) and arms of the PiPER's
layout from a modified-DH table (calibrated lengths and zeros).

References, independent of the C core: the firmware tables AgileX publishes (pyAgxArm
ROBOT_MDH_PRESET, vendored as tests/data/mdh_presets.json), evaluated here in numpy, and AgileX's
own URDFs of the PiPER H and L (tests/data, MIT) through Pinocchio."""
from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import piperik

DATA = Path(__file__).resolve().parent / "data"
PRESETS = json.loads((DATA / "mdh_presets.json").read_text())


def mdh_fk(rows, q) -> np.ndarray:
    """FK of a modified-DH table, rows (d, a, alpha, theta_offset): prod Rx(alpha) Tx(a) Rz(q + o) Tz(d)."""
    T = np.eye(4)
    for (d, a, alpha, offset), qi in zip(rows, q):
        ca, sa = math.cos(alpha), math.sin(alpha)
        ct, st = math.cos(qi + offset), math.sin(qi + offset)
        A = np.array([[ct, -st, 0, a], [ca * st, ca * ct, -sa, -sa * d], [sa * st, sa * ct, ca, ca * d], [0, 0, 0, 1]])
        T = T @ A
    return T


@pytest.mark.parametrize("variant, preset", [(None, "piper"), ("h", "piper_h"), ("l", "piper_l")])
def test_preset_fk_equals_the_firmware_table(variant, preset):
    arm = piperik.Piper(variant=variant)
    rng = np.random.default_rng(21)
    Q = rng.uniform(arm.lower, arm.upper, size=(500, 6))
    worst = max(np.abs(arm.fk(q) - mdh_fk(PRESETS[preset], q)).max() for q in Q)
    assert worst <= 1e-12


@pytest.mark.parametrize("variant", ["h", "l"])
def test_variant_ik_round_trips_and_selects(variant):
    arm = piperik.Piper(variant=variant)
    rng = np.random.default_rng(22)
    for q in rng.uniform(arm.lower, arm.upper, size=(300, 6)):
        T = arm.fk(q)
        Q = arm.ik_all(T, seed=q)
        assert np.abs(Q - q).max(axis=1).min() <= 1e-9
        assert np.abs(arm.fk(Q) - T).max() <= 1e-9
        assert np.abs(arm.ik(T, q) - q).max() <= 1e-9


@pytest.mark.parametrize("variant, urdf", [("h", "agilex_piper_h.urdf"), ("l", "agilex_piper_l.urdf")])
def test_variant_matches_agilex_urdf(variant, urdf):
    """AgileX's URDFs round the table's angles to 7 digits: their link6 agrees to ~1e-7 m."""
    pin = pytest.importorskip("pinocchio")
    arm = piperik.Piper(variant=variant)
    model = pin.buildModelFromUrdf(str(DATA / urdf))
    data = model.createData()
    fid = model.getFrameId("link6")
    rng = np.random.default_rng(23)
    worst_p = worst_r = 0.0
    for q in rng.uniform(arm.lower, arm.upper, size=(300, 6)):
        pin.framesForwardKinematics(model, data, q)
        T_pin = data.oMf[fid].homogeneous
        T = arm.fk(q)
        worst_p = max(worst_p, np.abs(T_pin[:3, 3] - T[:3, 3]).max())
        worst_r = max(worst_r, np.abs(T_pin[:3, :3] - T[:3, :3]).max())
    assert worst_p <= 1e-6 and worst_r <= 1e-6, (worst_p, worst_r)


@pytest.mark.parametrize("variant", ["h", "l"])
def test_variant_shipped_urdf_and_limits(variant):
    arm = piperik.Piper(variant=variant)
    assert arm.urdf_path.exists() and arm.name == f"piper_{variant}"
    ET.parse(arm.urdf_path)  # strict XML
    # AgileX's URDF limits for these arms are the PiPER's in whole degrees (j5 +-70 deg); piperik uses
    # piper_sdk's soft limits, the same ones rounded to its digits (at most 1.8e-3 rad: 1.22 for 70 deg)
    maker = ET.parse(DATA / f"agilex_piper_{variant}.urdf").getroot()
    lims = np.array([(float(j.find("limit").get("lower")), float(j.find("limit").get("upper")))
                     for j in maker.iter("joint") if j.get("type") == "revolute"])
    assert np.abs(arm.lower - lims[:, 0]).max() <= 2e-3 and np.abs(arm.upper - lims[:, 1]).max() <= 2e-3


def test_variant_arguments_are_checked():
    with pytest.raises(ValueError, match="variant: the PiPER X has an offset wrist"):
        piperik.Piper(variant="x")
    with pytest.raises(ValueError, match="variant: expected None"):
        piperik.Piper(variant="m")
    with pytest.raises(ValueError, match="legacy_zero: the old joint zeros exist for the original PiPER only"):
        piperik.Piper(legacy_zero=True, variant="h")
    assert "variant='l'" in repr(piperik.Piper(variant="L"))
    assert piperik.Piper(variant="h", tool=(0, 0, 0.1, 0, 0, 0)).with_tool(None).variant == "h"


def test_from_dh_of_the_presets_is_the_preset():
    rng = np.random.default_rng(24)
    for variant, preset in ((None, "piper"), ("h", "piper_h"), ("l", "piper_l")):
        ref, arm = piperik.Piper(variant=variant), piperik.Piper.from_dh(PRESETS[preset])
        Q = rng.uniform(ref.lower, ref.upper, size=(200, 6))
        assert np.abs(arm.fk(Q) - ref.fk(Q)).max() <= 1e-14
        assert arm.variant == "custom" and arm.urdf_path is None


def test_from_dh_calibrated_unit_round_trips():
    """A calibrated PiPER: lengths off by millimetres, joint zeros off by a few tenths of a degree
    (units differ by 2-3 cm on the same trajectory, piper_sdk #127)."""
    rng = np.random.default_rng(25)
    rows = np.array(PRESETS["piper"])
    rows[:, 0] += np.where(rows[:, 0] != 0, rng.uniform(-0.003, 0.003, 6), 0)
    rows[:, 1] += np.where(rows[:, 1] != 0, rng.uniform(-0.003, 0.003, 6), 0)
    rows[:, 3] += rng.uniform(-0.005, 0.005, 6)
    arm = piperik.Piper.from_dh(rows, tool=(0, 0, 0.145, 0, 0, 0))
    T_tool = arm.tool
    for q in rng.uniform(arm.lower, arm.upper, size=(300, 6)):
        T = arm.fk(q)
        assert np.abs(T - mdh_fk(rows, q) @ T_tool).max() <= 1e-12
        assert np.abs(arm.ik_all(T, seed=q) - q).max(axis=1).min() <= 1e-9
    assert "from_dh" in repr(arm)


@pytest.mark.parametrize("edit, rule", [
    (lambda R: R.__setitem__((2, 2), 0.1), r"dh\[2\]\.alpha = 0.1: the PiPER layout needs 0.0"),
    (lambda R: R.__setitem__((0, 1), 0.05), r"dh\[0\]\.a = 0.05: axis 1 must pass through the base origin"),
    (lambda R: R.__setitem__((4, 1), 0.07), r"dh\[4\]\.a = 0.07: an offset wrist"),
    (lambda R: R.__setitem__((4, 0), 0.01), r"dh\[4\]\.d = 0.01: the wrist axes must meet"),
    (lambda R: R.__setitem__((3, 0), np.nan), r"dh: every entry must be finite"),
    (lambda R: R.__setitem__((2, 1), 0.0), r"model: lengths must be finite"),
])
def test_from_dh_refuses_other_shapes_naming_the_rule(edit, rule):
    rows = np.array(PRESETS["piper"])
    edit(rows)
    with pytest.raises(ValueError, match=rule):
        piperik.Piper.from_dh(rows)


@pytest.mark.parametrize("edit", [
    lambda R: R.__setitem__((1, 1), 0.05),   # shoulder offset (OPW a1)
    lambda R: R.__setitem__((2, 0), 0.02),   # lateral offset (OPW b) ...
    lambda R: R.__setitem__((1, 0), -0.03),  # ... in either row
])
def test_from_dh_accepts_the_opw_offsets(edit):
    """Tables of the OPW class beyond the PiPER's shape (a shoulder offset dh[1].a, a lateral offset
    dh[1].d + dh[2].d) are solved: FK equals the table (numpy) and ik_all recovers q."""
    rows = np.array(PRESETS["piper"])
    edit(rows)
    arm = piperik.Piper.from_dh(rows)
    rng = np.random.default_rng(27)
    for q in rng.uniform(arm.lower, arm.upper, size=(300, 6)):
        T = arm.fk(q)
        assert np.abs(T - mdh_fk(rows, q)).max() <= 1e-12
        Q = arm.ik_all(T, seed=q)
        assert np.abs(Q - q).max(axis=1).min() <= 1e-9
        assert np.abs(arm.fk(Q) - T).max() <= 1e-9


def test_from_dh_refuses_the_piper_x_and_bad_shapes():
    with pytest.raises(ValueError, match=r"dh\[1\]\.alpha"):
        piperik.Piper.from_dh(PRESETS["piper_x"])
    with pytest.raises(ValueError, match=r"dh: expected 6 rows"):
        piperik.Piper.from_dh(PRESETS["nero"])
    with pytest.raises(ValueError, match=r"dh: expected 6 rows"):
        piperik.Piper.from_dh("links")
    with pytest.raises(ValueError, match=r"lower, upper: joint|lower"):
        piperik.Piper.from_dh(PRESETS["piper"], lower=np.zeros(6), upper=-np.ones(6))


def test_nero_flange_is_the_firmwares():
    """Nero().fk is the end pose the NERO firmware reports: its table (pyAgxArm ROBOT_MDH_PRESET,
    evaluated in numpy) to 1e-12, and link7 of AgileX's current URDF through Pinocchio to the
    rounding of that URDF's angles (1.5708 for pi/2, 3.1415 for pi: ~1e-4)."""
    arm = piperik.Nero()
    rng = np.random.default_rng(26)
    Q = rng.uniform(arm.lower, arm.upper, size=(300, 7))
    assert max(np.abs(arm.fk(q) - mdh_fk(PRESETS["nero"], q)).max() for q in Q) <= 1e-12
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(DATA / "nero_agx.urdf"))
    data = model.createData()
    fid = model.getFrameId("link7")
    worst_p = worst_r = 0.0
    for q in Q:
        pin.framesForwardKinematics(model, data, q)
        D = data.oMf[fid].homogeneous - arm.fk(q)
        worst_p, worst_r = max(worst_p, np.abs(D[:3, 3]).max()), max(worst_r, np.abs(D[:3, :3]).max())
    # the URDF's 3.1415 for pi alone turns frames by 9e-5 rad
    assert 1e-7 < worst_p <= 1e-4 and worst_r <= 3e-4, (worst_p, worst_r)


def test_nero_named_gripper_flange_tool():
    old = piperik.Nero(tool="gripper_flange")
    assert np.allclose(old.tool[:3, 3], [0.032, 0.0, -0.0235])
    with pytest.raises(ValueError, match="tool: 'tcp' is not a named tool of Nero"):
        piperik.Nero(tool="tcp")
    with pytest.raises(ValueError, match="tool: 'gripper_flange' is not a named tool of Iiwa14"):
        piperik.Iiwa14(tool="gripper_flange")
