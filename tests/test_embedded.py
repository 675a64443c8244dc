"""The C core on its embedded targets, through csrc/Makefile and emulation (the README, "Vendoring into firmware").

* ``make -C csrc test``: the host build matrix (double and float, lookup table and libm, status
  strings off, sanitizers) and the float-vs-double accuracy comparison.
* ``make -C csrc test-m4f`` / ``test-m7``: the C tests, built with gcc-arm-none-eabi and newlib,
  run under qemu-system-arm on the MPS2 AN386 (Cortex-M4F, float build) and AN500 (Cortex-M7,
  double build) boards with semihosting, and the reference firmware's C tests; on the M4F also the
  accuracy comparison and the check that the float IK links no software double routine.
* ``make -C csrc test-aarch64``: the C tests cross-compiled with gcc-aarch64-linux-gnu, run under
  qemu-aarch64 (a Raspberry Pi 4/5 class CPU).
* ``make -C csrc footprint``: flash, RAM, worst-case stack and instructions per IK call.
* The sdist: built with setuptools, its compile flags are portable (nothing x86-only, no
  -march=native, no -ffast-math), and its C sources, compiled with exactly those flags for aarch64,
  pass the C tests under qemu-aarch64.

Each make target must exit 0 with "N passed, 0 failed" as its last line. A test whose toolchain or
emulator is missing is skipped, naming what to install (the Debian packages of the README, "Vendoring into firmware").
All builds go to one temporary directory (BUILD=...), shared by the tests of this module.
"""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

from conftest import REPO_ROOT

CSRC = REPO_ROOT / "csrc"
JOBS = str(max(1, min(4, os.cpu_count() or 1)))
A64_SYSROOT = "/usr/aarch64-linux-gnu"
FW_TESTS = REPO_ROOT / "firmware_bridge" / "firmware" / "test_fw.c"


def _missing(tools: dict[str, str]) -> list[str]:
    """The Debian packages whose tool (key: an executable on PATH) is missing."""
    return sorted({pkg for tool, pkg in tools.items() if shutil.which(tool) is None})


def _newlib_missing() -> bool:
    """arm-none-eabi-gcc without newlib prints a bare file name for libc.a."""
    gcc = shutil.which("arm-none-eabi-gcc")
    if gcc is None:
        return True
    out = subprocess.run([gcc, "-print-file-name=libc.a"], capture_output=True, text=True).stdout.strip()
    return not os.path.isabs(out) or not os.path.isfile(out)


def _skip_unless(tools: dict[str, str], newlib: bool = False, a64_libc: bool = False) -> None:
    missing = _missing(tools)
    if newlib and _newlib_missing():
        missing.append("libnewlib-arm-none-eabi")
    if a64_libc and not os.path.isfile(os.path.join(A64_SYSROOT, "lib", "libc.so.6")):
        missing.append("libc6-dev-arm64-cross")
    if missing:
        absent = [t for t in tools if shutil.which(t) is None] or ["a library"]
        pytest.skip(f"needs the Debian package(s) {', '.join(sorted(set(missing)))} ({', '.join(absent)} not found)")


HOST = {"make": "make", "cc": "gcc"}
ARM = {"make": "make", "arm-none-eabi-gcc": "gcc-arm-none-eabi", "qemu-system-arm": "qemu-system-arm"}
A64 = {"make": "make", "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu", "qemu-aarch64": "qemu-user"}


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("csrc_build")


def _make(target: str, build_dir, timeout: int = 600) -> subprocess.CompletedProcess:
    cmd = ["make", "--no-print-directory", "-C", str(CSRC), f"-j{JOBS}", target, f"BUILD={build_dir}",
           f"PYTHON={sys.executable}"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _assert_all_passed(res: subprocess.CompletedProcess, target: str) -> list[str]:
    lines = res.stdout.strip().splitlines()
    tail = "\n".join(lines[-60:])
    assert res.returncode == 0, f"make {target}: exit {res.returncode}\n{tail}\n{res.stderr[-3000:]}"
    assert lines, f"make {target}: no output"
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", lines[-1].strip())
    assert m, f"make {target}: last line {lines[-1]!r} is not 'N passed, N failed'\n{tail}"
    assert int(m.group(2)) == 0 and int(m.group(1)) > 0, tail
    return lines


def test_host_matrix(build_dir):
    """make -C csrc test: every option set on the host, the float build included, and the accuracy."""
    _skip_unless(HOST)
    res = _make("test", build_dir)
    lines = _assert_all_passed(res, "test")
    out = "\n".join(lines)
    for run in ("host-double", "host-float", "host-libm", "host-float-libm", "host-nostrings", "host-sanitize",
                "host-sanitize-float", "host-sanitize-libm", "singular-sanitize", "singular-sanitize-float",
                "singular-sanitize-libm", "host-accuracy", "host-proto", "proto-sanitize"):
        assert f"==== test: {run} ok:" in out, f"{run} did not run or pass"
    assert "config: real=float trig=table status_strings=1" in out


def test_cortex_m4f_float(build_dir):
    """make -C csrc test-m4f: the float build's C tests and accuracy under QEMU MPS2 AN386."""
    _skip_unless(ARM, newlib=True)
    res = _make("test-m4f", build_dir)
    lines = _assert_all_passed(res, "test-m4f")
    out = "\n".join(lines)
    for run in ("m4f", "m4f-libm", "m4f-accuracy", "m4f-no-double", "m4f-proto"):
        assert f"==== test-m4f: {run} ok:" in out, f"{run} did not run or pass"
    assert "config: real=float trig=table status_strings=1" in out
    assert "config: real=float trig=libm status_strings=0" in out
    assert "no software double routine" in out
    if FW_TESTS.is_file():
        assert "==== test-m4f: m4f-firmware ok:" in out, "the reference firmware's C tests did not pass on the M4F"


def test_cortex_m7_double(build_dir):
    """make -C csrc test-m7: the double build's C tests under QEMU MPS2 AN500, tables in flash and
    tables placed in RAM by PIK_TABLE_ATTR."""
    _skip_unless(ARM, newlib=True)
    res = _make("test-m7", build_dir)
    lines = _assert_all_passed(res, "test-m7")
    out = "\n".join(lines)
    assert "==== test-m7: m7 ok:" in out and "==== test-m7: m7-dtcm ok:" in out
    assert "==== test-m7: m7-proto ok:" in out, "the codec's C tests did not pass on the M7"
    assert "config: tables at 0x2" in out, "PIK_TABLE_ATTR did not move the tables to RAM"
    if FW_TESTS.is_file():
        assert "==== test-m7: m7-firmware ok:" in out, "the reference firmware's C tests did not pass on the M7"


def test_aarch64(build_dir):
    """make -C csrc test-aarch64: double and float builds under qemu-aarch64 user mode."""
    _skip_unless(A64, a64_libc=True)
    res = _make("test-aarch64", build_dir)
    lines = _assert_all_passed(res, "test-aarch64")
    out = "\n".join(lines)
    assert "==== test-aarch64: a64 ok:" in out and "==== test-aarch64: a64-float ok:" in out


def test_footprint(build_dir):
    """make -C csrc footprint: the table is printed with every number measured."""
    _skip_unless({**ARM, "python3": "python3"}, newlib=True)
    res = _make("footprint", build_dir)
    lines = _assert_all_passed(res, "footprint")
    out = "\n".join(lines)
    assert "| PiPER IK: pik_arm6_fk, pik_arm6_ik_ex, pik_select | flash " in out
    assert re.search(r"\| pik_arm6_ik \(all 8 solutions\) \| \d+ / \d+, \d+ B \| \d+ / \d+, \d+ B \|", out), out
    assert re.search(r"\| pik_arm6_ik_ex \+ pik_select \(PiPER, one control step\) \| \d+ B \| \d+ B \|", out), out
    assert "instructions per SysTick tick (calibrated)" in out
    if (REPO_ROOT / "firmware_bridge" / "firmware" / "fw_core.c").is_file():
        assert "| reference firmware: fw_core" in out


# ---- the sdist, with the flags a Raspberry Pi would use ------------------------------------------
NON_PORTABLE = re.compile(r"^(-m(arch|tune|cpu)=native|-m(sse|avx|fma|bmi|popcnt|mmx|3dnow|f16c|lzcnt|tbm|xop)"
                          r".*|-m(32|64|80387|fpmath=.*)|-ffast-math|-Ofast|-funsafe-math-optimizations|"
                          r"-ffinite-math-only)$")


def _c_flags_of(setup_py: str) -> list[list[str]]:
    """Every list literal assigned to C_FLAGS in setup.py."""
    found = []
    for node in ast.walk(ast.parse(setup_py)):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "C_FLAGS" for t in node.targets):
            found.append(list(ast.literal_eval(node.value)))
    return found


@pytest.fixture(scope="module")
def sdist_tree(tmp_path_factory):
    """python setup.py sdist (setuptools; egg-info kept out of the checkout), unpacked."""
    out = tmp_path_factory.mktemp("sdist")
    res = subprocess.run([sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(out), "sdist",
                          "--formats=gztar", "--dist-dir", str(out)],
                         cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"sdist failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    archives = sorted(out.glob("piperik-*.tar.gz"))
    assert archives, f"no sdist in {out}: {list(out.iterdir())}"
    with tarfile.open(archives[-1]) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(out / "tree", filter="data")
        else:
            tar.extractall(out / "tree")
    (root,) = list((out / "tree").iterdir())
    return root


def test_sdist_flags_are_portable(sdist_tree):
    """The sdist's C flags suit any CPU pip may build on: no x86-only flag, no -march=native."""
    flags = _c_flags_of((sdist_tree / "setup.py").read_text())
    assert flags, "setup.py defines no C_FLAGS"
    for flag_list in flags:
        bad = [f for f in flag_list if NON_PORTABLE.match(f)]
        assert not bad, f"non-portable compile flags in the sdist's setup.py: {bad}"
    assert any("-O2" in fl for fl in flags)
    for path in ["csrc/include/piperik/piperik.h", "csrc/src/pik_math.h", "csrc/src/pik_trig_impl.h",
                 "csrc/src/pik_trig_kernels.h",
                 "tables/pik_trig_table.c", "csrc/tests/test_core.c", "csrc/bindings/module.cpp",
                 "csrc/bindings/bind_proto.cpp", "csrc/bindings/bindings.h"]:
        assert (sdist_tree / path).is_file(), f"{path} missing from the sdist"


def test_sdist_core_on_aarch64(sdist_tree, tmp_path):
    """The sdist's C sources (every csrc/src/*.c, as setup.py builds them) compile for aarch64 with
    exactly setup.py's flags, warning-free, and the C tests pass under qemu-aarch64. (The pybind11
    module needs an aarch64 Python and C++ toolchain, which this check does not assume.)"""
    _skip_unless(A64, a64_libc=True)
    (flags,) = [fl for fl in _c_flags_of((sdist_tree / "setup.py").read_text()) if "-std=c99" in fl]
    sources = sorted((sdist_tree / "csrc" / "src").glob("*.c")) + [sdist_tree / "tables" / "pik_trig_table.c"]
    objs = []
    for src in sources:
        obj = tmp_path / (src.stem + ".o")
        res = subprocess.run(["aarch64-linux-gnu-gcc", *flags, "-I", str(sdist_tree / "csrc" / "include"), "-c",
                              str(src), "-o", str(obj)], capture_output=True, text=True, timeout=300)
        assert res.returncode == 0 and not res.stderr.strip(), f"{src.name} with {flags}:\n{res.stderr}"
        objs.append(str(obj))
    exe = tmp_path / "test_core"
    res = subprocess.run(["aarch64-linux-gnu-gcc", *flags, "-D_DEFAULT_SOURCE", "-DPIK_TEST_TRIG_MIN=100000",
                          "-I", str(sdist_tree / "csrc" / "include"), str(sdist_tree / "csrc" / "tests" / "test_core.c"),
                          *objs, "-lm", "-o", str(exe)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    run = subprocess.run(["qemu-aarch64", "-L", A64_SYSROOT, str(exe), "2000"], capture_output=True, text=True,
                         timeout=600)
    lines = run.stdout.strip().splitlines()
    assert run.returncode == 0 and lines and re.fullmatch(r"\d+ passed, 0 failed", lines[-1]), run.stdout[-3000:]
    assert "config: real=double trig=table status_strings=1" in run.stdout
