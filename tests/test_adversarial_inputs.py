"""Regression tests for defects found by adversarial input (one section per defect).

Each test failed before its fix: huge finite pose entries, two-sample timing, unreachable path
targets, stream units, argument ranges and types, pik_wrap_pi above 7 pi, option and unit edge
cases, shared class-level arrays, "--" in URDF comments, and test data outside the repository.
"""
from __future__ import annotations

import math
import shutil
import subprocess
import sys
import xml.dom.minidom
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import piperik
from conftest import REPO_ROOT
from firmware_bridge import protocol as P
from firmware_bridge.streamer import Streamer
from piperik import cli
from piperik.trajectory import plan_cartesian, time_parameterize

Q_PIPER = np.array([0.0, 1.2, -1.0, 0.0, 0.6, 0.0])
Q_IIWA = np.array([0.1, 0.5, 0.2, -1.0, 0.3, 0.4, 0.5])


# ------------------------------------------------------------------------- 1. non-finite intermediates


def _overflowing_poses():
    """Finite entries whose R^T R overflows: inf - inf = NaN intermediates (and plain inf)."""
    out = []
    T = np.eye(4)
    T[0, 0], T[0, 1], T[1, 0], T[1, 1] = 1e308, 1e308, -1e308, 1e308  # c01 = inf - inf = NaN
    out.append(T)
    T = np.eye(4)
    T[:3, :3] = 1e308
    out.append(T)
    T = np.eye(4)
    T[2, 0], T[2, 2] = 1.7e308, -1.7e308
    out.append(T)
    return out


@pytest.mark.parametrize("k", range(3))
def test_overflowing_rotation_is_rejected_everywhere(k):
    T = _overflowing_poses()[k]
    with pytest.raises(ValueError, match=r"^T: rotation is not orthonormal"):
        piperik.pose_to_xyz_rpy(T)
    with pytest.raises(ValueError, match=r"^T: rotation is not orthonormal"):
        piperik.pose_to_piper_units(T)
    with pytest.raises(ValueError, match=r"^T:"):
        piperik.Piper().ik_all(T)
    with pytest.raises(ValueError, match=r"^T:"):
        piperik.Iiwa14().ik_all(T, 0.0)
    with pytest.raises(ValueError, match=r"^Ts\[0\]:"):
        piperik.Piper().ik_batch(T[None])


def test_pose_to_piper_units_rejects_positions_beyond_int32():
    T = np.eye(4)
    T[0, 3] = 5000.0  # 5 km: 5e9 um does not fit int32
    with pytest.raises(ValueError, match=r"^T: position"):
        piperik.pose_to_piper_units(T)


# ------------------------------------------------------------------------- 2. timing of short moves


@pytest.mark.parametrize("d", [1e-9, 1e-3, 0.05, 0.5, 3.0])
@pytest.mark.parametrize("rate", [200.0, 1000.0])
def test_two_sample_path_gets_a_finite_time_optimal_profile(d, rate):
    arm = piperik.Piper()
    vmax, amax = arm.max_velocity, arm.max_acceleration
    D = np.array([d, -0.5 * d, 0.0, d / 3, 0.0, 0.0])
    tr = time_parameterize(np.array([np.zeros(6), D]), vmax, amax, rate_hz=rate)
    dt = 1.0 / rate
    assert np.isfinite(tr.duration_s) and len(tr.t_s) < 10_000
    assert np.array_equal(tr.q_rad[0], np.zeros(6)) and np.array_equal(tr.q_rad[-1], D)
    assert np.all(tr.qd_rad_s[[0, -1]] == 0.0)
    assert np.all(np.abs(tr.qd_rad_s) <= vmax * (1 + 1e-9))
    assert np.all(np.abs(tr.qdd_rad_s2) <= amax * (1 + 1e-9))
    if len(tr.t_s) > 2:
        assert np.all(np.abs(np.diff(tr.q_rad, axis=0)) / dt <= vmax * (1 + 1e-9))
        assert np.all(np.abs(np.diff(tr.q_rad, 2, axis=0)) / dt ** 2 <= amax * (1 + 1e-9))
    # time-optimal rest-to-rest along the line, limited by joint 1 (3 rad/s, 5 rad/s^2 for the PiPER)
    v, a = 3.0, 5.0
    t_opt = 2 * math.sqrt(d / a) if d < v * v / a else d / v + v / a
    assert t_opt - 1e-9 <= tr.duration_s <= t_opt * 1.01 + dt + 1e-9


def test_cli_path_of_one_millimetre(capsys):
    arm = piperik.Piper()
    xyz, rpy = piperik.pose_to_xyz_rpy(arm.fk(Q_PIPER))
    start = [f"{v:.12g}" for v in [*xyz, *rpy]]
    to = [f"{v:.12g}" for v in [*(xyz + [0.001, 0.0, 0.0]), *rpy]]
    assert cli.main(["path", "--from", *start, "--to", *to]) == 0
    out = capsys.readouterr().out
    assert "setpoints" in out


# ------------------------------------------------------------------------- 3. unreachable path targets


@pytest.mark.parametrize("dist", [1e8, 1e300, 1.7e308])
@pytest.mark.parametrize("arm_cls", [piperik.Piper, piperik.Iiwa14])
def test_plan_to_a_far_target_is_unreachable_not_an_allocation(arm_cls, dist):
    arm = arm_cls()
    q0 = Q_PIPER if arm.dof == 6 else Q_IIWA
    T0 = arm.fk(q0)
    T1 = T0.copy()
    T1[0, 3] = dist
    with pytest.raises(piperik.NoSolutionError, match=r"^waypoints\[1\]: unreachable"):
        plan_cartesian(arm, [T0, T1], q0)


def test_plan_sample_count_is_bounded_before_allocating():
    arm = piperik.Piper()
    T0 = arm.fk(Q_PIPER)
    T1 = arm.fk(Q_PIPER + 0.05)
    with pytest.raises(ValueError, match=r"^max_samples:"):
        plan_cartesian(arm, [T0, T1], Q_PIPER, sample_m=1e-300)


@pytest.mark.parametrize("target", ["1e8", "1e300"])
def test_cli_path_to_a_far_target_says_unreachable(capsys, target):
    arm = piperik.Piper()
    xyz, rpy = piperik.pose_to_xyz_rpy(arm.fk(Q_PIPER))
    start = [f"{v:.12g}" for v in [*xyz, *rpy]]
    to = [target] + start[1:]
    assert cli.main(["path", "--from", *start, "--to", *to]) == 2
    assert "unreachable" in capsys.readouterr().err


# ------------------------------------------------------------------------- 4. stream units and rounding


class _Recorder(Streamer):
    """A Streamer with no device: setpoints are recorded instead of written."""

    def __init__(self):
        super().__init__("loop://")
        self.needs_enable = False
        self.sent_mdeg = []

    def send_setpoint(self, q_mdeg, t_mcu_us=0):
        self.sent_mdeg.append([int(v) for v in q_mdeg])
        P.setpoint(list(q_mdeg), t_mcu_us)  # and it must pack
        return 0

    def poll(self):
        pass


@pytest.mark.parametrize("units", ["deg", "radians", "RAD", "", "millidegrees", None])
def test_stream_rejects_undocumented_units(units):
    link = _Recorder()
    with pytest.raises(ValueError, match=r"^units:"):
        link.stream(np.zeros((2, 6)), 1000.0, units=units)
    assert link.sent_mdeg == []


def test_stream_units_rad_and_mdeg_round_to_nearest():
    link = _Recorder()
    link.stream(np.array([[0.1, -0.1, 0, 0, 0, 1.0]]), 1000.0, units="rad", drain_s=0.0)
    link.stream(np.array([[5729.58, -5729.58, 0.5, 1.5, 2, -2]]), 1000.0, units="mdeg", drain_s=0.0)
    link.stream([[1, 2, 3, 4, 5, 6]], 1000.0, units="mdeg", drain_s=0.0)
    assert link.sent_mdeg == [[5730, -5730, 0, 0, 0, 57296], [5730, -5730, 0, 2, 2, -2], [1, 2, 3, 4, 5, 6]]


# ------------------------------------------------------------------------- 5. argument ranges and types


@pytest.mark.parametrize("psi", [1e6 + 1, 1e7, 1e200, -1e300])
def test_out_of_range_psi_names_psi(psi):
    arm = piperik.Iiwa14()
    T = arm.fk(Q_IIWA)
    calls = [lambda: arm.ik_all(T, psi), lambda: arm.solutions(T, psi), lambda: arm.ik(T, Q_IIWA, psi=psi),
             lambda: arm.select(T, psi=psi), lambda: arm.ik_batch(T[None], Q_IIWA, psi=psi)]
    for call in calls:
        with pytest.raises(ValueError, match=r"^psi: must be a finite angle with \|psi\| <= 1e6 rad"):
            call()


def test_psi_at_the_range_edge_is_accepted():
    arm = piperik.Iiwa14()
    assert arm.ik_all(arm.fk(Q_IIWA), 1e6).shape[1] == 7


@pytest.mark.parametrize("value", [1e3 + 1, 1e200, -1e300])
def test_huge_joint_vectors_are_rejected_naming_them(value):
    for arm in (piperik.Piper(), piperik.Iiwa14()):
        q = (Q_PIPER if arm.dof == 6 else Q_IIWA).copy()
        T = arm.fk(q)
        bad = q.copy()
        bad[1] = value
        with pytest.raises(ValueError, match=r"^q_current: joint angles must be finite with \|q\| <= 1e3 rad"):
            arm.ik(T, bad)
        with pytest.raises(ValueError, match=r"^q_current:"):
            arm.ik_batch(T[None], bad)
        with pytest.raises(ValueError, match=r"^q_start:"):
            arm.ik_path(T[None], bad)
        with pytest.raises(ValueError, match=r"^q:"):
            arm.fk(bad)


@pytest.mark.parametrize("name", ["limit_penalty", "singularity_penalty", "branch_switch_penalty",
                                  "soft_limit_margin_rad", "limit_margin_rad", "singularity_margin",
                                  "continuous_step_rad", "max_step_rad"])
@pytest.mark.parametrize("value", [1e12 * 1.0001, 1e308, -1.0, float("nan"), float("-inf")])
def test_option_values_are_finite_and_bounded(name, value):
    with pytest.raises(ValueError, match=rf"^{name}: must be"):
        piperik.SelectOptions(**{name: value})


def test_huge_weights_are_rejected():
    with pytest.raises(ValueError, match=r"^weights:"):
        piperik.SelectOptions(weights=[1e308] * 6)


def test_option_bounds_are_inclusive_and_inf_step_is_no_bound():
    o = piperik.SelectOptions(limit_penalty=1e12, max_step_rad=float("inf"))
    assert o.limit_penalty == 1e12 and o.max_step_rad == 0.0


@pytest.mark.parametrize("arm_cls", [piperik.Piper, piperik.Iiwa14])
def test_string_limit_margin_is_a_type_error_naming_it(arm_cls):
    arm = arm_cls()
    q = Q_PIPER if arm.dof == 6 else Q_IIWA
    with pytest.raises(TypeError, match=r"^limit_margin:"):
        arm.ik(arm.fk(q), q, limit_margin="0.1")
    with pytest.raises(TypeError, match=r"^limit_margin:"):
        arm.select(arm.fk(q), q, limit_margin="x")


def test_string_psi_is_a_type_error_naming_it():
    arm = piperik.Iiwa14()
    T = arm.fk(Q_IIWA)
    for call in (lambda: arm.ik(T, Q_IIWA, psi="x"), lambda: arm.select(T, psi="0.5"),
                 lambda: arm.ik_all(T, "x"), lambda: arm.solutions(T, "x")):
        with pytest.raises(TypeError, match=r"^psi:"):
            call()


@pytest.mark.parametrize("value", [2 ** 31, -(2 ** 31) - 1, 10 ** 20])
def test_setpoint_beyond_int32_names_the_range(value):
    with pytest.raises(ValueError, match=r"^q_mdeg: .*int32 range"):
        P.setpoint([0, value, 0, 0, 0, 0])
    with pytest.raises(ValueError, match=r"^limits_mdeg:"):
        P.limits(np.array([[0, value]]))
    with pytest.raises(ValueError, match=r"^points_mdeg:"):
        P.traj_segment(np.array([[0, value]]), 1000)
    assert len(P.setpoint([2 ** 31 - 1, -(2 ** 31)])) > 0  # the edges themselves fit


@pytest.mark.parametrize("wd", [70000, 65536, -1])
def test_watchdog_out_of_range(wd):
    with pytest.raises(ValueError, match=r"^watchdog_ms: must be an integer in \[0, 65535\]"):
        P.config(wd, None)


@pytest.mark.parametrize("wd", [float("inf"), float("nan"), 1.5, "ten", None])
def test_watchdog_not_an_integer(wd):
    """inf, NaN, fractions and non-numbers: ValueError with the range, never OverflowError."""
    with pytest.raises(ValueError, match=r"^watchdog_ms: expected an integer in \[0, 65535\]"):
        P.config(wd, None)


def test_cli_watchdog_out_of_range_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["stream", "--port", "loop://", "--demo", "--watchdog-ms", "70000"])
    assert exc.value.code == 2
    assert "[0, 65535]" in capsys.readouterr().err


def test_pose_of_5_km_is_a_value_error():
    link = Streamer("loop://")
    with pytest.raises(ValueError, match=r"^xyz_m:"):
        link.send_pose([5000.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"^xyz_um:"):
        P.pose_setpoint([5_000_000_000, 0, 0], [0, 0, 0])


# ------------------------------------------------------------------------- 6. pik_wrap_pi for large angles


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 10, 50, 150, -4, -150])
def test_arm_angle_is_periodic_in_every_joint(k):
    """q4 = -1 + 8 pi (and any 2 pi k within |q| <= 1e3 rad) gives the same arm angle as q4 = -1."""
    for arm in (piperik.Iiwa14(), piperik.Nero()):
        psi0 = arm.arm_angle(Q_IIWA)
        for j in range(7):
            q = Q_IIWA.copy()
            q[j] += 2 * math.pi * k
            assert abs(math.remainder(arm.arm_angle(q) - psi0, 2 * math.pi)) < 1e-9, (type(arm).__name__, j, k)
            T0, T1 = arm.fk(Q_IIWA), arm.fk(q)
            assert np.abs(T1 - T0).max() < 1e-9


_WRAP_C = r"""
#include <stdio.h>
#include "pik_math.h"
int main(void)
{
    static const double tests[] = {0.0, 1.0, -1.0, 3.14159265358979, -3.14159265358979, 7.0, 12.5, -12.5,
                                   22.0, -1.0 + 8 * 3.141592653589793, 25.0, 100.0, -100.0, 1e3, 1e6,
                                   -1e6, 1e15, -1e15, 1e30, 1e200, -1e200, 1.7e308, -1.7e308};
    unsigned i;
    int bad = 0;
    for (i = 0; i < sizeof tests / sizeof tests[0]; ++i) {
        pik_real a = (pik_real)tests[i];
        pik_real w;
        if (!(pik_fabs(a) <= PIK_REAL_BIG)) {
            continue; /* float build: 1e200 is inf as a float */
        }
        w = pik_wrap_pi(a);
        {
            /* reference in double: the exact remainder by the core's 2pi constant, into [-pi, pi] */
            const double two_pi = (double)PIK_TWO_PI, tol = PIK_FLOAT ? 1e-5 : 1e-12;
            double ref = fmod((double)a, two_pi), d;
            if (ref > two_pi / 2) {
                ref -= two_pi;
            } else if (ref < -two_pi / 2) {
                ref += two_pi;
            }
            d = fabs((double)w - ref);
            if (!(fabs((double)w) <= (double)PIK_PI * (1 + 1e-7)) || !(d <= tol || fabs(d - two_pi) <= tol)) {
                printf("bad wrap of %.17g: %.17g, expected %.17g\n", (double)a, (double)w, ref);
                bad = 1;
            }
        }
    }
    {
        volatile pik_real inf = PIK_HUGE;
        pik_real w = pik_wrap_pi(inf);
        if (w == w) {
            printf("wrap of inf is not NaN\n");
            bad = 1;
        }
    }
    return bad;
}
"""


@pytest.mark.parametrize("float_build", [0, 1])
def test_wrap_pi_in_c_with_ubsan(tmp_path, float_build):
    """pik_wrap_pi wraps every finite angle, with no float->long overflow (-fsanitize=float-cast-overflow)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on PATH")
    src = tmp_path / "wrap.c"
    src.write_text(_WRAP_C)
    exe = tmp_path / "wrap"
    flags = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O1",
             "-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all", f"-DPIK_FLOAT={float_build}"]
    if float_build:
        flags.append("-Wdouble-promotion")
    cmd = [cc, *flags, "-I", str(REPO_ROOT / "csrc" / "include"), "-I", str(REPO_ROOT / "csrc" / "src"),
           str(src), "-lm", "-o", str(exe)]
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode != 0 and "sanitize" in built.stderr and "unrecognized" in built.stderr:
        pytest.skip("the compiler lacks -fsanitize=float-cast-overflow")
    assert built.returncode == 0, built.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


# ------------------------------------------------------------------------- 7. options and unit edge cases


def test_max_step_nan_is_rejected():
    with pytest.raises(ValueError, match=r"^max_step_rad:"):
        piperik.SelectOptions(max_step_rad=float("nan"))


@pytest.mark.parametrize("psi", [1e5, -1e5, 7.0, 2 * math.pi, 1e6])
def test_selected_psi_is_wrapped(psi):
    arm = piperik.Iiwa14()
    T = arm.fk(Q_IIWA)
    expected = math.remainder(psi, 2 * math.pi)
    try:
        sel = arm.select(T, Q_IIWA, psi=psi)
    except piperik.NoSolutionError:
        pytest.skip("no in-limit solution at this arm angle")
    assert -math.pi <= sel.psi <= math.pi
    assert abs(math.remainder(sel.psi - expected, 2 * math.pi)) < 1e-12
    res = arm.ik_batch(T[None], Q_IIWA, psi=psi)
    Q, ok, status, psis = res.q, res.ok, res.status, res.psi
    if ok[0]:
        assert -math.pi <= psis[0] <= math.pi


@pytest.mark.parametrize("q", [1e20, -1e20, 4e4, 1e10])
def test_q_to_mdeg_beyond_int32_is_a_value_error(q):
    with pytest.raises(ValueError, match=r"^q_rad: .*int32"):
        piperik.q_to_mdeg([0.0, q])


def test_q_to_mdeg_still_rounds_in_range():
    assert piperik.q_to_mdeg([0.1, -0.1, 37000.0]).tolist() == [5730, -5730, round(37000.0 * 180000 / math.pi)]


@pytest.mark.parametrize("n", ["0", "-3"])
def test_cli_check_requires_at_least_one_configuration(capsys, n):
    with pytest.raises(SystemExit) as exc:
        cli.main(["check", "-n", n])
    assert exc.value.code == 2
    assert ">= 1" in capsys.readouterr().err


# ------------------------------------------------------------------------- 8. per-instance read-only arrays


@pytest.mark.parametrize("arm_cls", [piperik.Piper, piperik.Nero, piperik.Iiwa14])
@pytest.mark.parametrize("attr", ["max_velocity", "max_acceleration", "lower", "upper"])
def test_limit_arrays_are_per_instance_and_read_only(arm_cls, attr):
    a, b = arm_cls(), arm_cls()
    before = getattr(b, attr).copy()
    arr = getattr(a, attr)
    assert arr is not getattr(b, attr)
    assert not np.shares_memory(arr, getattr(b, attr))
    with pytest.raises(ValueError):
        arr[0] = 123.0
    with pytest.raises(ValueError):
        arr.flags.writeable = True
    assert np.array_equal(getattr(b, attr), before)
    assert np.array_equal(getattr(arm_cls(), attr), before)


# ------------------------------------------------------------------------- 9. well-formed URDFs

SHIPPED_URDFS = sorted((REPO_ROOT / "piperik" / "models").glob("*.urdf"))


def test_strict_parsers_reject_double_hyphen_in_comments():
    """The parsers used below are strict about XML 1.0 comments (else the test would prove nothing)."""
    with pytest.raises(ET.ParseError):
        ET.fromstring("<a><!-- x -- y --></a>")
    with pytest.raises(Exception):
        xml.dom.minidom.parseString("<a><!-- x -- y --></a>")


@pytest.mark.parametrize("path", SHIPPED_URDFS, ids=lambda p: p.name)
def test_shipped_urdf_is_well_formed(path):
    root = ET.parse(path).getroot()
    assert root.tag == "robot"
    xml.dom.minidom.parse(str(path))


def test_all_models_shipped_and_generator_check_passes(tmp_path):
    assert {p.name for p in SHIPPED_URDFS} >= {"piper.urdf", "piper_legacy_zero.urdf", "nero.urdf", "iiwa14.urdf"}
    # Run outside the checkout: from its root the source tree (without the compiled _core of a
    # non-editable install) would shadow the installed package.
    run = subprocess.run([sys.executable, "-m", "piperik.urdf_gen", "--check"], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr


# ------------------------------------------------------------------------- 10. self-contained test data

DATA = REPO_ROOT / "tests" / "data"


def test_tests_use_no_files_outside_the_repository():
    for path in (REPO_ROOT / "tests").glob("*.py"):
        if path.name == Path(__file__).name:
            continue
        text = path.read_text()
        assert '"shared"' not in text and "/shared/" not in text and "parent / \"shared" not in text, path.name


@pytest.mark.parametrize("name", ["piper_agilex.urdf", "nero.urdf", "iiwa14.urdf"])
def test_vendored_maker_urdfs_are_present_documented_and_well_formed(name):
    path = DATA / name
    assert path.is_file()
    ET.parse(path)
    assert name in (DATA / "README.md").read_text()
    assert (DATA / "iiwa14.LICENSE.txt").is_file()


# ------------------------------------------------------------- time_parameterize allocates within a bound
# (found by tests/_fuzz_entry_points.py: a rate of 1e7 Hz, a velocity limit of 1e-300 or a joint path
# at 1e308 asked numpy for terabytes, and the kernel killed the process)


@pytest.mark.parametrize("vmax, amax, rate", [(1e-300, 1.0, 200.0), (1.0, 1e-300, 200.0), (1.0, 1.0, 1e300),
                                              (1.0, 1.0, 1e7), (1e-10, 1.0, 200.0)])
@pytest.mark.parametrize("n", [2, 3])
def test_time_parameterize_refuses_more_samples_than_max_samples(vmax, amax, rate, n):
    path = np.linspace(np.zeros(6), np.full(6, 1.0), n)
    with pytest.raises(ValueError, match=r"more than max_samples=1000000"):
        time_parameterize(path, vmax, amax, rate)


def test_time_parameterize_max_samples_is_checked_and_honoured():
    path = np.linspace(np.zeros(6), np.full(6, 1.0), 3)
    n = len(time_parameterize(path, 1.0, 1.0, 200.0).t_s)
    assert len(time_parameterize(path, 1.0, 1.0, 200.0, max_samples=n).t_s) == n
    with pytest.raises(ValueError, match=r"more than max_samples"):
        time_parameterize(path, 1.0, 1.0, 200.0, max_samples=n - 2)
    for bad in (1, 2.5, True, "10"):
        with pytest.raises(ValueError, match=r"^max_samples: must be an integer >= 2"):
            time_parameterize(path, 1.0, 1.0, 200.0, max_samples=bad)


@pytest.mark.parametrize("rate", [5e-324, 1e-310])
def test_time_parameterize_rate_needs_a_finite_period(rate):
    with pytest.raises(ValueError, match=r"^rate_hz: must be finite and > 0"):
        time_parameterize(np.linspace(np.zeros(6), np.ones(6), 3), 1.0, 1.0, rate)


@pytest.mark.parametrize("value", [1e3 + 1, 1.7e308, -1e300])
def test_time_parameterize_joint_range(value):
    path = np.zeros((3, 6))
    path[1, 2] = value
    with pytest.raises(ValueError, match=r"^q_path: joint angles must lie within \+-1000 rad"):
        time_parameterize(path, 1.0, 1.0, 200.0)


# ---------------------------------------------------------- protocol time stamps are checked like fields
# (found by tests/_fuzz_entry_points.py: an infinite t_mcu_us raised OverflowError, a float host_us a
# TypeError about '&', a NaN one "cannot convert float NaN to integer", none naming the argument)


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan, 1.5, "12", None, True])
def test_protocol_time_stamps_are_integers_naming_the_argument(bad):
    for fn, args, name in [(P.setpoint, ([1, 2], bad), "t_mcu_us"), (P.heartbeat, (bad,), "host_us"),
                           (P.pose_setpoint, ([1, 2, 3], [1, 2, 3], bad), "t_mcu_us"),
                           (P.traj_segment, ([[1, 2]], 10, bad), "t0_mcu_us")]:
        with pytest.raises(ValueError, match=rf"^{name}: expected an integer number of microseconds"):
            fn(*args)


def test_protocol_time_stamps_wrap_modulo_2_32():
    assert P.heartbeat(2**32 + 5) == P.heartbeat(5) == P.heartbeat(5.0)
    assert P.setpoint([1], -1) == P.setpoint([1], 2**32 - 1)


# ------------------------------------------------------------------- a bad --tool is a message, not a traceback
# (found by tests/_fuzz_entry_points.py: `piperik ik --tool 0 0 0 0 0 nan ...` ended in a traceback)


@pytest.mark.parametrize("robot", ["piper", "nero", "iiwa14"])
def test_cli_bad_tool_is_a_message(robot):
    with pytest.raises(SystemExit, match=r"^piperik: --tool: \(x, y, z, roll, pitch, yaw\) must be finite"):
        cli.main(["fk", "--robot", robot, "--tool", "0", "0", "0", "0", "0", "nan", "--", *["0"] * (6 if robot == "piper" else 7)])
