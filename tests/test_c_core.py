"""The portable C99 core, tested directly with the system C compiler (DESIGN.md sections 3 and 7).

* csrc/tests/test_core.c (its own long-double references for trig and kinematics) is built with
  ``-std=c99 -pedantic -Wall -Wextra -Werror`` together with the core sources, once per compile-time
  option set (default, PIK_USE_LIBM=1, PIK_WITH_STATUS_STRINGS=0) and once under AddressSanitizer +
  UndefinedBehaviorSanitizer, then run with PIPERIK_TEST_COUNT / PIPERIK_TEST_SEED; it must exit 0
  and end with "N passed, 0 failed".
* csrc/tests/test_nearest.c compares the 7-DOF nearest choice with a brute-force arm-angle scan
  (5,000 random poses per arm plus every singular family) and must end with "N passed, 0 failed".
* The core sources alone compile warning-free under the strict flags, and their object files
  define no writable global data (the core keeps no mutable state, so it is reentrant and the
  bindings may release the GIL): only text and read-only data.

Skipped only when no C compiler (cc / gcc) is installed.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from conftest import REPO_ROOT, TEST_COUNT, TEST_SEED

CC = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler (cc or gcc) on PATH")

INCLUDE = REPO_ROOT / "csrc" / "include"
CORE_SOURCES = sorted((REPO_ROOT / "csrc" / "src").glob("*.c")) + [REPO_ROOT / "tables" / "pik_trig_table.c"]
TEST_PROGRAM = REPO_ROOT / "csrc" / "tests" / "test_core.c"
STRICT = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror"]
# float-cast-overflow is not part of -fsanitize=undefined: it catches a NaN or out-of-range value
# converted to int (a trig table index computed from a non-unit or NaN input).
SANITIZE = ["-O1", "-g", "-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all"]
SINGULAR_PROGRAM = REPO_ROOT / "csrc" / "tests" / "test_singular.c"

VARIANTS = {
    "default": (["-O2"], TEST_COUNT),
    "libm": (["-O2", "-DPIK_USE_LIBM=1"], TEST_COUNT),
    "no_status_strings": (["-O2", "-DPIK_WITH_STATUS_STRINGS=0"], TEST_COUNT),
    "sanitizers": (SANITIZE, min(TEST_COUNT, 3000)),
    "sanitizers_float": (SANITIZE + ["-DPIK_FLOAT=1"], min(TEST_COUNT, 3000)),
    "sanitizers_libm": (SANITIZE + ["-DPIK_USE_LIBM=1"], min(TEST_COUNT, 3000)),
}
SANITIZER_ENV = {
    # the core allocates nothing; LeakSanitizer also needs ptrace, which CI containers often forbid
    "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}


def _run(cmd, cwd, env=None, timeout=300):
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_sources_exist():
    assert TEST_PROGRAM.is_file()
    assert len(CORE_SOURCES) >= 6 and all(p.is_file() for p in CORE_SOURCES)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_c_test_program(variant, tmp_path):
    """Build csrc/tests/test_core.c with the core under one option set, run it, require '0 failed'."""
    flags, n = VARIANTS[variant]
    exe = tmp_path / "test_core"
    cmd = [CC, *STRICT, *flags, "-D_DEFAULT_SOURCE", f"-I{INCLUDE}", TEST_PROGRAM, *CORE_SOURCES, "-o", exe, "-lm"]
    build = _run(cmd, REPO_ROOT)
    assert build.returncode == 0, f"build failed: {' '.join(map(str, cmd))}\n{build.stdout}\n{build.stderr}"
    assert build.stderr.strip() == "", f"compiler output:\n{build.stderr}"
    env = dict(os.environ, PIK_TEST_COUNT=str(n), PIK_TEST_SEED=str(TEST_SEED))
    if variant.startswith("sanitizers"):
        env.update(SANITIZER_ENV)
    run = _run([exe, n, TEST_SEED], tmp_path, env=env)
    lines = run.stdout.strip().splitlines()
    tail = "\n".join(lines[-30:])
    assert run.returncode == 0, f"{variant}: exit {run.returncode}\n{tail}\n{run.stderr[-4000:]}"
    assert lines, f"{variant}: no output"
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", lines[-1].strip())
    assert m, f"{variant}: unexpected last line {lines[-1]!r}"
    assert int(m.group(2)) == 0 and int(m.group(1)) > 0, tail
    assert "runtime error" not in run.stderr and "AddressSanitizer" not in run.stderr, run.stderr[-4000:]
    assert f"n={n} seed={TEST_SEED}" in run.stdout, "the program did not take the count and seed given"
    if variant == "libm":
        assert "PIK_USE_LIBM=1" in run.stdout


# ---- singular families through every entry point (csrc/tests/test_singular.c) --------------------

SINGULAR_BUILDS = {"double": [], "float": ["-DPIK_FLOAT=1"], "libm": ["-DPIK_USE_LIBM=1"]}


def _run_singular(build, tmp_path):
    exe = tmp_path / "test_singular"
    cmd = [CC, *STRICT, *SANITIZE, *SINGULAR_BUILDS[build], "-DPIK_TEST_SELECT_STRICT=1", "-D_DEFAULT_SOURCE",
           f"-I{INCLUDE}", SINGULAR_PROGRAM, *CORE_SOURCES, "-o", exe, "-lm"]
    res = _run(cmd, REPO_ROOT)
    assert res.returncode == 0, f"build failed: {' '.join(map(str, cmd))}\n{res.stderr}"
    assert res.stderr.strip() == "", f"compiler output:\n{res.stderr}"
    n = min(TEST_COUNT, 3000)
    run = _run([exe, n, TEST_SEED], tmp_path, env=dict(os.environ, **SANITIZER_ENV))
    return run


@pytest.mark.parametrize("build", list(SINGULAR_BUILDS))
def test_singular_families_sanitized(build, tmp_path):
    """Singular families (PiPER q5 = 0 / elbow stretched / wrist centre on the axis, S-R-S q2 / q4 /
    q6 = 0 and the reference-plane singularity, q = 0, limits, 1e-12..1e-6 perturbations) through
    every C entry point under ASan + UBSan + float-cast-overflow: no sanitizer report, documented
    statuses only, finite and FK-exact outputs, and (PIK_TEST_SELECT_STRICT=1) selection with
    q_current = the generating configuration, WIDEST and MAX_MARGIN returning PIK_OK whenever the
    generating configuration is inside the limits."""
    run = _run_singular(build, tmp_path)
    lines = run.stdout.strip().splitlines()
    strict = "\n".join(l for l in lines if l.startswith("strict") or l.startswith("FAIL"))
    assert "runtime error" not in run.stderr and "AddressSanitizer" not in run.stderr, run.stderr[-4000:]
    assert run.returncode == 0, f"{build}: exit {run.returncode}\n{strict[-4000:]}\n{run.stderr[-4000:]}"
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", lines[-1].strip())
    assert m and int(m.group(2)) == 0 and int(m.group(1)) > 0, "\n".join(lines[-30:])
    assert "pik_srs_select" in run.stdout and "pik_arm6_path" in run.stdout
    assert "strict: S-R-S pik_srs_select NEAREST" in run.stdout, "the strict selection checks did not run"


# ---- the 7-DOF nearest choice against a brute-force arm-angle scan (csrc/tests/test_nearest.c) -----

NEAREST_PROGRAM = REPO_ROOT / "csrc" / "tests" / "test_nearest.c"
#: random poses per arm (issue 9: >= 5,000), plus every singular family of test_singular.c
NEAREST_POSES = 5000


def test_nearest_against_brute_force(tmp_path):
    """pik_srs_select(NEAREST) with SelectOptions.nearest()'s options against a brute force (psi on a
    0.1 deg grid x 8 branches via pik_srs_ik, dense sampling where joints move fast, refined at
    minima and limit edges), for 5,000 random poses per arm with perturbed and unrelated q_current
    and every singular family: never farther from q_current by more than 1e-9 rad, never "none in
    limits" when the brute force found a solution, every choice in the limits and FK-exact.
    Double build only (the bound means nothing at float precision)."""
    exe = tmp_path / "test_nearest"
    cmd = [CC, *STRICT, "-O2", "-fno-math-errno", "-D_DEFAULT_SOURCE", f"-I{INCLUDE}", NEAREST_PROGRAM,
           *CORE_SOURCES, "-o", exe, "-lm"]
    build = _run(cmd, REPO_ROOT)
    assert build.returncode == 0, f"build failed: {' '.join(map(str, cmd))}\n{build.stderr}"
    assert build.stderr.strip() == "", f"compiler output:\n{build.stderr}"
    run = _run([exe, NEAREST_POSES, TEST_SEED], tmp_path, timeout=600)
    lines = run.stdout.strip().splitlines()
    summary = "\n".join(l for l in lines if not l.startswith("FAIL farther"))
    assert lines, f"no output\n{run.stderr[-4000:]}"
    assert f"n={NEAREST_POSES} seed={TEST_SEED}" in run.stdout, "the program did not take the count and seed given"
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", lines[-1].strip())
    assert run.returncode == 0 and m and int(m.group(2)) == 0 and int(m.group(1)) > 0, (
        summary[-6000:] + "\n" + "\n".join(l for l in lines if l.startswith("FAIL farther"))[:6000])


# ---- the core alone -------------------------------------------------------------------------------

OPTION_SETS = {
    "default": [],
    "libm": ["-DPIK_USE_LIBM=1"],
    "no_status_strings": ["-DPIK_WITH_STATUS_STRINGS=0"],
}

#: nm symbol types of writable data: initialised data (D/d), BSS (B/b), common (C), small data (G/g, S/s)
WRITABLE_TYPES = set("DdBbCGgSs")


def _section_of(obj, symbol):
    """The section of a symbol according to objdump -t, or None when objdump is unavailable."""
    objdump = shutil.which("objdump")
    if objdump is None:
        return None
    out = _run([objdump, "-t", obj], obj.parent).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[-1] == symbol and len(parts) >= 5:
            for p in parts:
                if p.startswith("."):
                    return p
    return None


@pytest.fixture(scope="module", params=list(OPTION_SETS))
def core_objects(request, tmp_path_factory):
    """Compile each core source alone with the strict flags: (option set, [object files])."""
    out = tmp_path_factory.mktemp(f"core_{request.param}")
    objs = []
    for src in CORE_SOURCES:
        obj = out / (src.stem + ".o")
        cmd = [CC, *STRICT, "-O2", *OPTION_SETS[request.param], f"-I{INCLUDE}", "-c", src, "-o", obj]
        res = _run(cmd, REPO_ROOT)
        assert res.returncode == 0, f"{src.name} does not build with {' '.join(map(str, cmd))}:\n{res.stderr}"
        assert res.stderr.strip() == "", f"{src.name}: compiler output:\n{res.stderr}"
        objs.append(obj)
    return request.param, objs


def test_core_builds_strict_c99(core_objects):
    """Every core source compiles on its own with -std=c99 -pedantic -Wall -Wextra -Werror."""
    _, objs = core_objects
    assert all(o.is_file() and o.stat().st_size > 0 for o in objs)


def test_core_has_no_mutable_globals(core_objects):
    """nm: the core objects define only text and read-only data, no writable globals or statics.

    Symbols of type D/d (initialised data), B/b (BSS), C (common), G/g/S/s (small data) would be
    mutable state. One exception is genuine: with the distribution default -fPIE, const data that
    holds pointers (the model structs' name strings) lands in .data.rel.ro, which nm also labels
    "d" but which is read-only after relocation; objdump tells the section apart.
    """
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) not available")
    option_set, objs = core_objects
    offenders = []
    defined = 0
    for obj in objs:
        res = _run([nm, obj], obj.parent)
        assert res.returncode == 0, res.stderr
        for line in res.stdout.splitlines():
            parts = line.split()
            if len(parts) != 3:
                continue  # undefined symbols have no address
            _, kind, name = parts
            defined += 1
            if kind in WRITABLE_TYPES:
                section = _section_of(obj, name)
                if kind in "Dd" and section is not None and section.startswith(".data.rel.ro"):
                    continue
                offenders.append(f"{obj.name}: {kind} {name} ({section or 'section unknown'})")
    assert defined > 0
    assert not offenders, f"[{option_set}] writable data in the core:\n" + "\n".join(offenders)


def test_core_tables_are_read_only(core_objects):
    """The generated trig tables are const data (nm type R), as DESIGN.md section 4 requires."""
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) not available")
    _, objs = core_objects
    table_obj = next(o for o in objs if o.stem == "pik_trig_table")
    kinds = {}
    for line in _run([nm, table_obj], table_obj.parent).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            kinds[parts[2]] = parts[1]
    for name in ("pik_sincos_table", "pik_sincos_table_f32", "pik_atan_table"):
        assert kinds.get(name) == "R", f"{name}: nm type {kinds.get(name)!r}, expected 'R'"
