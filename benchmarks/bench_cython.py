"""Per-call time of the C core from a user's Cython nogil loop (benchmarks/cython_ik_loop.pyx, built
against the installed piperik through piperik/ccore.pxd), beside the Python ik_all call.

    python benchmarks/bench_cython.py [--poses 2000] [--repeats 20]

Needs Cython and a C compiler (pip install ".[test]"). Prints a Markdown table; the README's
"C core from Cython" section quotes it.
"""
from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

import piperik

HERE = Path(__file__).resolve().parent


def build(work: Path):
    shutil.copy(HERE / "cython_ik_loop.pyx", work / "cython_ik_loop.pyx")
    (work / "setup.py").write_text(textwrap.dedent(f"""
        import piperik
        from Cython.Build import cythonize
        from setuptools import Extension, setup
        setup(name="cython_ik_loop", ext_modules=cythonize(
            [Extension("cython_ik_loop", ["cython_ik_loop.pyx"], include_dirs=[piperik.get_include()])],
            include_path=[{str(Path(piperik.__file__).resolve().parents[1])!r}], quiet=True))
    """))
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=work, check=True,
                   capture_output=True)
    so = next(iter(sorted(work.glob("cython_ik_loop*.so")) + sorted(work.glob("cython_ik_loop*.pyd"))))
    spec = importlib.util.spec_from_file_location("cython_ik_loop", so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def median_ns_per_pose(fn, n_poses: int, repeats: int, passes: int = 7) -> float:
    times = []
    for _ in range(passes):
        t0 = time.perf_counter()
        fn(repeats)
        times.append((time.perf_counter() - t0) / (repeats * n_poses) * 1e9)
    return float(np.median(times))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--poses", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ext = build(Path(tmp))
        rng = np.random.default_rng(1)
        print("| arm | Cython nogil loop (capsule table), per call | C core alone (bench hook), per call "
              "| Python ik_all, per call |")
        print("|---|---|---|---|")
        for name, arm in (("piper", piperik.Piper()), ("nero", piperik.Nero()), ("iiwa14", piperik.Iiwa14())):
            q = rng.uniform(arm.lower, arm.upper, (args.poses, arm.dof))
            Ts = np.ascontiguousarray(arm.fk(q))
            Q = np.empty((args.poses, 8, arm.dof))
            count = np.zeros(args.poses, dtype=np.intc)
            if arm.dof == 6:
                cy = median_ns_per_pose(lambda r: ext.piper_ik_all(Ts, Q, count, r), args.poses, args.repeats)
                py = median_ns_per_pose(lambda r: [arm.ik_all(T) for _ in range(r) for T in Ts], args.poses, 1)
                c = float(np.median([arm._arm.bench_ik_ns(Ts, args.repeats) for _ in range(7)]))
            else:
                psi = np.array([arm.arm_angle(qi) for qi in q])
                cy = median_ns_per_pose(lambda r: ext.srs_ik_all(name, Ts, psi, Q, count, r), args.poses, args.repeats)
                py = median_ns_per_pose(lambda r: [arm.ik_all(T, p) for _ in range(r) for T, p in zip(Ts, psi)],
                                        args.poses, 1)
                c = float(np.median([arm._arm.bench_ns("ik", Ts, psi, q, args.repeats) for _ in range(7)]))
            print(f"| {name} | {cy:.0f} ns | {c:.0f} ns | {py:.0f} ns |")


if __name__ == "__main__":
    main()
