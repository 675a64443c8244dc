"""Hypothesis over every argument of every IK entry point (fk, singularity, arm_angle, ik_all, ik,
select, feasible_arm_angles, ik_batch, ik_path), per arm, with and without a tool, and of the
helpers (pose and unit conversions, tool_matrix, SelectOptions, time_parameterize, plan_cartesian),
of the model builders (Arm6.from_opw, Arm7.from_lengths, whose arms must then solve exactly) and
of the wire (firmware_bridge.protocol's encoders, the C parser, decode) and of the `piperik` command
(ik, fk, path: a result, a message with a status, or a usage error, never a traceback): arbitrary reals
(NaN, infinities, 1e308, 5e-324), wrong shapes and types, valid poses with one entry spoiled, poses
of the singular families. The properties are in tests/_fuzz_entry_points.py. It runs in a child
process, so a crash (a signal) fails the test with its output instead of ending the run."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO_ROOT

pytest.importorskip("hypothesis")

CHILD = REPO_ROOT / "tests" / "_fuzz_entry_points.py"


@pytest.mark.parametrize("arm", ["piper", "piper_tool", "nero", "iiwa14", "iiwa14_tool", "helpers", "models", "protocol", "cli"])
def test_entry_points_hold_their_contract_on_arbitrary_arguments(arm):
    run = subprocess.run([sys.executable, str(CHILD), arm, "1000"], capture_output=True, text=True, timeout=900,
                         cwd=str(REPO_ROOT))
    out = (run.stdout + run.stderr)[-6000:]
    assert run.returncode >= 0, f"the child died of signal {-run.returncode}:\n{out}"
    assert run.returncode == 0, out
    assert f"fuzz {arm}: 1000 examples, ok" in run.stdout, out
