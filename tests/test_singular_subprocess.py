"""Crash test: singular poses through every Python entry point, in a child process.

At singular S-R-S poses (iiwa14 q = 0, q4 = q6 = 0, q2 = 0, the poses below) the arm-angle selection
used to feed non-unit (sin, cos) pairs into the table atan2, which then read outside its table: a
SIGSEGV that would take the pytest process down with it. Here a child process runs the families
and prints each pose before calling; a crash (negative return code: a signal) fails the test naming
the last pose the child announced. NoSolutionError is an accepted outcome (this is a crash test);
whatever is returned must be finite and reproduce the pose (FK) to 1e-9 m / rad.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from conftest import REPO_ROOT

CHILD = textwrap.dedent(r"""
    import sys
    import numpy as np
    import piperik

    TOL = 1e-9
    bad = []
    n_calls = 0
    current = ""

    def announce(desc):
        global current
        current = desc
        print("POSE " + desc, flush=True)

    def fk_err(arm, q, T):
        F = arm.fk(q)
        dp = float(np.linalg.norm(F[:3, 3] - T[:3, 3]))
        dr = float(np.linalg.norm(F[:3, :3] - T[:3, :3]) / np.sqrt(2.0))
        return dp, dr

    def check_q(arm, q, T, what):
        if q is None:  # NoSolutionError: accepted
            return
        q = np.asarray(q, dtype=float)
        if q.size == 0:
            return
        for row in np.atleast_2d(q):
            if not np.all(np.isfinite(row)):
                bad.append(f"{current} {what}: non-finite {row.tolist()}")
                continue
            dp, dr = fk_err(arm, row, T)
            if not (dp <= TOL and dr <= TOL):
                bad.append(f"{current} {what}: off the pose by {dp:.3e} m / {dr:.3e} rad, q = {row.tolist()}")

    def call(fn, *args, **kw):
        global n_calls
        n_calls += 1
        try:
            return fn(*args, **kw)
        except piperik.NoSolutionError:
            return None

    def run(arm, name, q, full=True):
        q = np.asarray(q, dtype=float)
        T = arm.fk(q)
        desc = f"{name} q={q.tolist()}"
        announce(desc + " arm_angle")
        psi = arm.arm_angle(q)
        if not np.isfinite(psi):
            bad.append(f"{desc}: arm_angle {psi}")
            psi = 0.0
        for p in ([psi, 0.0, np.pi, -np.pi, psi + 1e-9] if full else [psi]):
            announce(desc + f" ik_all psi={p!r}")
            check_q(arm, call(arm.ik_all, T, p), T, "ik_all")
            announce(desc + f" ik_all psi={p!r} seed")
            check_q(arm, call(arm.ik_all, T, p, q), T, "ik_all(seed)")
        announce(desc + " feasible_arm_angles")
        fa = arm.feasible_arm_angles(T, per_branch=True)
        union, per = fa
        for iv in [union, *per.values()]:
            a = np.asarray(iv, dtype=float)
            if a.size and not np.all(np.isfinite(a)):
                bad.append(f"{desc}: feasible_arm_angles non-finite {a.tolist()}")
        announce(desc + " ik nearest q_current=q")
        check_q(arm, call(arm.ik, T, q), T, "ik(q)")
        if full:
            for pol in ("nearest", "widest", "max_margin"):
                announce(desc + f" ik policy={pol}")
                check_q(arm, call(arm.ik, T, policy=pol), T, f"ik({pol})")
                announce(desc + f" select policy={pol} q_current=q")
                sel = call(arm.select, T, q, policy=pol)
                if sel is not None:
                    check_q(arm, sel.q, T, f"select({pol})")
            announce(desc + " ik q_current=q+1e-6")
            check_q(arm, call(arm.ik, T, q + 1e-6), T, "ik(q+1e-6)")
            for p in (psi, np.pi, -np.pi):
                announce(desc + f" ik psi={p!r}")
                check_q(arm, call(arm.ik, T, q, psi=p), T, "ik(psi)")
            announce(desc + " ik_batch")
            Ts = np.stack([T, T])
            Q, ok = arm.ik_batch(Ts, q)
            for k in range(2):
                if ok[k]:
                    check_q(arm, Q[k], T, "ik_batch")
            announce(desc + " ik_batch policy=widest")
            Q, ok = arm.ik_batch(Ts, None, policy="widest")
            for k in range(2):
                if ok[k]:
                    check_q(arm, Q[k], T, "ik_batch(widest)")
            announce(desc + " ik_path through q")
            dq = np.linspace(-1.0, 1.0, 7)[:, None] * 0.005 * np.sign(np.arange(arm.dof) % 3 - 1.0)
            path_q = q + dq
            PT = arm.fk(path_q)
            path = call(arm.ik_path, PT, path_q[0])
            if path is not None:
                for k in range(len(PT)):
                    check_q(arm, path.q[k], PT[k], "ik_path")

    rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    n_random = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    iiwa, nero = piperik.Iiwa14(), piperik.Nero()
    named = [
        (iiwa, "iiwa14", [0, -1.6, -2.3, 0, -0.9, 0, -2.2]),
        (iiwa, "iiwa14", [0.0] * 7),
        (iiwa, "iiwa14", [0.3, 0.5, -0.2, 0, 0.4, 0, 0.2]),
        (nero, "nero", [0.0] * 7),
    ]
    for arm, name, q in named:
        run(arm, name, q)
    # the named max_margin pose, exactly as reported
    announce("iiwa14 ik(fk([0.3, 0.5, -0.2, 0, 0.4, 0, 0.2]), policy='max_margin')")
    T = iiwa.fk([0.3, 0.5, -0.2, 0, 0.4, 0, 0.2])
    check_q(iiwa, call(iiwa.ik, T, policy="max_margin"), T, "ik(max_margin)")
    # q2 = 0 families of both arms, and random iiwa14 poses with q4 = q6 = 0
    for arm, name in ((iiwa, "iiwa14"), (nero, "nero")):
        for i in range(40):
            q = rng.uniform(arm.lower, arm.upper)
            q[1] = 0.0
            run(arm, name + " q2=0", q, full=(i % 4 == 0))
    for i in range(n_random):
        q = rng.uniform(iiwa.lower, iiwa.upper)
        q[3] = q[5] = 0.0
        run(iiwa, "iiwa14 q4=q6=0", q, full=(i % 20 == 0))
    for i in range(100):
        q = rng.uniform(nero.lower, nero.upper)
        q[3] = q[5] = 0.0
        run(nero, "nero q4=q6=0", q, full=(i % 20 == 0))
    # PiPER: q5 = 0, q = 0
    piper = piperik.Piper()
    for i in range(50):
        q = np.zeros(6) if i == 0 else rng.uniform(piper.lower, piper.upper)
        q[4] = 0.0
        T = piper.fk(q)
        desc = f"piper q5=0 q={q.tolist()}"
        announce(desc + " ik_all")
        check_q(piper, call(piper.ik_all, T), T, "ik_all")
        announce(desc + " ik")
        check_q(piper, call(piper.ik, T, q), T, "ik")
        announce(desc + " ik no q_current")
        check_q(piper, call(piper.ik, T), T, "ik()")
        announce(desc + " ik_batch")
        Q, ok = piper.ik_batch(np.stack([T, T]), q)
        for k in range(2):
            if ok[k]:
                check_q(piper, Q[k], T, "ik_batch")
    for b in bad[:20]:
        print("BAD " + b, flush=True)
    print(f"DONE calls={n_calls} bad={len(bad)}", flush=True)
""")


def test_singular_poses_do_not_crash(tmp_path):
    script = tmp_path / "singular_child.py"
    script.write_text(CHILD)
    # cwd outside the checkout would also work for an installed package; the editable install
    # resolves either way
    run = subprocess.run([sys.executable, str(script), "1", "1000"], capture_output=True, text=True, timeout=900,
                         cwd=str(REPO_ROOT))
    lines = run.stdout.splitlines()
    poses = [l[5:] for l in lines if l.startswith("POSE ")]
    last = poses[-1] if poses else "(none announced)"
    assert run.returncode >= 0, (f"the child process died of signal {-run.returncode} at the pose: {last}\n"
                                 f"{run.stderr[-3000:]}")
    assert run.returncode == 0, f"the child failed (exit {run.returncode}) after the pose: {last}\n{run.stderr[-3000:]}"
    bad = [l for l in lines if l.startswith("BAD ")]
    assert not bad, "returned solutions not finite or not FK-exact:\n" + "\n".join(bad)
    assert lines and lines[-1].startswith("DONE calls="), run.stdout[-2000:]
