"""Shared fixtures and helpers of the piperik test suite.

The random tests are seeded and sized from the environment so that CI and a developer hunting a
rare failure run the same code:

    PIPERIK_TEST_COUNT   number of random cases of the large sweeps (default 10000)
    PIPERIK_TEST_SEED    seed of every random generator (default 20261130)

Helpers here are deliberately independent of the code under test: angle differences, pose errors
and rotation matrices are plain numpy.
"""
from __future__ import annotations

import functools
import math
import os
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import piperik

#: Repository root (tests/..): the C sources, the tables and tests/data live relative to it.
REPO_ROOT = Path(__file__).resolve().parent.parent

TEST_COUNT = int(os.environ.get("PIPERIK_TEST_COUNT", "10000"))
TEST_SEED = int(os.environ.get("PIPERIK_TEST_SEED", "20261130"))

#: The package's own promise for every returned solution (DESIGN.md section 2).
FK_TOL_POS_M = 1e-9
FK_TOL_ROT_RAD = 1e-9


def make_rng(salt: int = 0) -> np.random.Generator:
    """A generator seeded from PIPERIK_TEST_SEED; ``salt`` separates independent streams."""
    return np.random.default_rng([TEST_SEED, salt])


@functools.lru_cache(maxsize=None)
def qemu_user_emulator() -> str | None:
    """The qemu-user program this Python runs under (tools/pi_check.sh), or None on real hardware.

    qemu-user answers a process's questions about itself (/proc/self/exe names the guest program),
    not about another process: a child reading /proc/<this pid>/exe gets the kernel's answer, which
    names the emulator. On hardware it names the Python binary, and nothing is skipped.
    """
    if not sys.platform.startswith("linux"):
        return None
    probe = f"import os; print(os.readlink('/proc/{os.getpid()}/exe'))"
    try:
        exe = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if os.path.basename(exe).startswith("qemu-") else None


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "realtime: asserts wall-clock deadlines (setpoint rates, watchdog periods); "
                   "skipped under qemu-user emulation, where they do not apply")


def pytest_runtest_setup(item):
    if item.get_closest_marker("realtime") is not None:
        emulator = qemu_user_emulator()
        if emulator:
            pytest.skip(f"real-time deadlines (setpoint rates, watchdog periods, control ticks) do not hold under "
                        f"qemu-user emulation ({emulator}); this test runs on the hardware")


@pytest.fixture
def test_count() -> int:
    """How many random cases a large sweep should use (PIPERIK_TEST_COUNT)."""
    return TEST_COUNT


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A seeded RNG; each test gets its own stream (salted with its name) so tests stay independent."""
    return make_rng(zlib.crc32(request.node.name.encode()))


@pytest.fixture(scope="session")
def arm() -> piperik.Piper:
    """The default PiPER model (firmware >= S-V1.6-3 joint zeros)."""
    return piperik.Piper()


@pytest.fixture(scope="session")
def legacy_arm() -> piperik.Piper:
    """The PiPER with the joint zeros of firmware before S-V1.6-3."""
    return piperik.Piper(legacy_zero=True)


@pytest.fixture(scope="session", params=[False, True], ids=["default_zero", "legacy_zero"])
def any_arm(request) -> piperik.Piper:
    """Both PiPER zero conventions."""
    return piperik.Piper(legacy_zero=request.param)


# ---- random configurations --------------------------------------------------------------------

def random_q_in_limits(arm: piperik.Piper, rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 6) joint angles drawn uniformly inside the arm's joint limits."""
    return rng.uniform(arm.lower, arm.upper, size=(n, arm.dof))


def random_q_full(rng: np.random.Generator, n: int, dof: int = 6) -> np.ndarray:
    """(n, dof) joint angles drawn uniformly in [-pi, pi], ignoring limits."""
    return rng.uniform(-math.pi, math.pi, size=(n, dof))


# ---- independent reference FK ------------------------------------------------------------------

#: Craig modified-DH twists alpha_{i-1} of the PiPER class
ALPHA = (0.0, -math.pi / 2, 0.0, math.pi / 2, -math.pi / 2, math.pi / 2)


def _rx(a):
    # exact 0 / +-1 entries at multiples of pi/2 so the reference carries no 6e-17 noise
    c, s = (1.0, 0.0) if a == 0.0 else (0.0, math.copysign(1.0, a))
    return np.array([[1.0, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def _tx(a):
    T = np.eye(4)
    T[0, 3] = a
    return T


def _tz(d):
    T = np.eye(4)
    T[2, 3] = d
    return T


def _rz_many(theta):
    n = len(theta)
    c, s = np.cos(theta), np.sin(theta)
    T = np.zeros((n, 4, 4))
    T[:, 0, 0] = c
    T[:, 0, 1] = -s
    T[:, 1, 0] = s
    T[:, 1, 1] = c
    T[:, 2, 2] = 1.0
    T[:, 3, 3] = 1.0
    return T


def dh_fk(arm: piperik.Piper, Q) -> np.ndarray:
    """Flange pose(s) by the modified-DH product, numpy only: (6,) -> (4,4), (N,6) -> (N,4,4)."""
    Q = np.asarray(Q, dtype=float)
    single = Q.ndim == 1
    Q = Q.reshape(-1, 6)
    g = arm.geometry
    a = (0.0, 0.0, g["a2_m"], g["a3_m"], 0.0, 0.0)
    d = (g["d1_m"], 0.0, 0.0, g["d4_m"], 0.0, g["d6_m"])
    off = g["theta_offset_rad"]
    T = np.broadcast_to(np.eye(4), (len(Q), 4, 4)).copy()
    for i in range(6):
        T = T @ (_rx(ALPHA[i]) @ _tx(a[i])) @ _rz_many(Q[:, i] + off[i]) @ _tz(d[i])
    return T[0] if single else T


# ---- angles and poses ----------------------------------------------------------------------------

def angle_diff(a, b) -> np.ndarray:
    """a - b wrapped into [-pi, pi] (elementwise): the difference of two angles modulo 2 pi."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    return (d + math.pi) % (2.0 * math.pi) - math.pi


def max_angle_diff(a, b, axis=-1) -> np.ndarray:
    """Largest |angle difference| over ``axis``."""
    return np.max(np.abs(angle_diff(a, b)), axis=axis)


def rotation_angle(R: np.ndarray) -> np.ndarray:
    """Rotation angle [rad] of rotation matrices (..., 3, 3), robust near 0 and pi."""
    R = np.asarray(R, dtype=float)
    # angle = atan2(|axis * sin|, cos): sin from the skew part, cos from the trace.
    skew = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]], axis=-1)
    s = 0.5 * np.linalg.norm(skew, axis=-1)
    c = 0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0)
    return np.arctan2(s, c)


def pose_error(A, B):
    """(position error [m], rotation error [rad]) between 4x4 poses A and B (broadcasts over (..., 4, 4)).

    Position: Euclidean distance of the translations. Rotation: angle of A_R^T B_R.
    """
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    dp = np.linalg.norm(A[..., :3, 3] - B[..., :3, 3], axis=-1)
    dR = np.swapaxes(A[..., :3, :3], -1, -2) @ B[..., :3, :3]
    return dp, rotation_angle(dR)


def rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """A uniformly random rotation matrix (from a random unit quaternion)."""
    q = rng.normal(size=4)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


#: Recovering the generating q to 1e-9 is asked everywhere except this close to a singularity.
NEAR_SINGULAR = 1e-5
#: ... where the pose fixes the joints only to ~1e-15 / distance, and where the solver snaps an elbow
#: within 1e-6 rad of stretched/folded onto the boundary (PIK_ELBOW_CLAMP_REL = 1e-12 on
#: cos^2(theta3 + phi)): the generating q is then recovered to about the distance, <= 2e-6 rad.
NEAR_SINGULAR_RECOVERY_TOL = 2e-6


def singularity_distances(arm: piperik.Piper, q) -> dict:
    """How far q is from each singularity: |cos(theta3 + phi)| (elbow), |sin q5| (wrist), and the
    wrist centre's distance from the base axis [m] (shoulder)."""
    g = arm.geometry
    t3 = q[2] + g["theta_offset_rad"][2]
    phi = math.atan2(g["a3_m"], g["d4_m"])
    wc = arm.wrist_center(q)
    return {"elbow": abs(math.cos(t3 + phi)), "wrist": abs(math.sin(q[4])), "shoulder": math.hypot(wc[0], wc[1])}


def recovery_tol(arm: piperik.Piper, q, ignore=()) -> float:
    """Tolerance for finding the generating q among the IK rows: 1e-9, or 2e-6 within 1e-5 of a
    singularity not listed in ``ignore`` (a named family that sits exactly on it and is seeded)."""
    d = singularity_distances(arm, q)
    near = any(v < NEAR_SINGULAR for k, v in d.items() if k not in ignore)
    return NEAR_SINGULAR_RECOVERY_TOL if near else 1e-9


def rows_containing(Q: np.ndarray, q: np.ndarray, tol: float) -> np.ndarray:
    """Indices of the rows of Q equal to q angle-wise (modulo 2 pi) within tol."""
    Q = np.asarray(Q, dtype=float).reshape(-1, 6)
    if len(Q) == 0:
        return np.zeros(0, dtype=int)
    return np.flatnonzero(max_angle_diff(Q, q[None, :]) <= tol)


# ---- 7-DOF brute-force reference ----------------------------------------------------------------

def _shifted_in_limits(arm, q, qc):
    q = q.copy()
    for j in range(arm.dof):
        for k in (-1, 1):
            alt = q[j] + 2 * np.pi * k
            if arm.lower[j] - 1e-10 <= alt <= arm.upper[j] + 1e-10 and abs(alt - qc[j]) < abs(q[j] - qc[j]):
                q[j] = alt
    if np.all(q >= arm.lower - 1e-10) and np.all(q <= arm.upper + 1e-10):
        return np.clip(q, arm.lower, arm.upper)
    return None


def _best_at(arm, T, psi, qc):
    best = np.inf
    for q in arm.ik_all(T, psi, seed=qc):
        qs = _shifted_in_limits(arm, q, qc)
        if qs is not None:
            best = min(best, float(np.sum((qs - qc) ** 2)))
    return best


def brute_force_nearest_distance(arm, T, qc, n=1440) -> float:
    """Reference for the 7-DOF nearest selection: the smallest joint distance from qc of an in-limit
    solution over a psi grid of n points (all branches of ik_all, the 2 pi shift toward qc, the 1e-10
    limit tolerance, as documented), the 5 best grid points refined by golden section."""
    grid = np.linspace(-np.pi, np.pi, n, endpoint=False)
    f = np.array([_best_at(arm, T, p, qc) for p in grid])
    best = float(f.min())
    h = 2 * np.pi / n
    for i in np.argsort(f)[:5]:
        if not np.isfinite(f[i]):
            continue
        lo, hi, r = grid[i] - h, grid[i] + h, 0.6180339887498949
        x1, x2 = hi - r * (hi - lo), lo + r * (hi - lo)
        f1, f2 = _best_at(arm, T, x1, qc), _best_at(arm, T, x2, qc)
        for _ in range(40):
            if f1 <= f2:
                hi, x2, f2 = x2, x1, f1
                x1 = hi - r * (hi - lo)
                f1 = _best_at(arm, T, x1, qc)
            else:
                lo, x1, f1 = x1, x2, f2
                x2 = lo + r * (hi - lo)
                f2 = _best_at(arm, T, x2, qc)
        best = min(best, f1, f2)
    return np.sqrt(best)
