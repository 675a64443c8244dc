"""Build: the C core as its own static library with C99 flags, then the pybind11 module linking it.

Keeping the two apart means C flags never reach the C++ compiler and vice versa (DESIGN.md section 3).
The version comes from csrc/include/piperik/piperik.h, its single source of truth.
"""
import re
import sys
from pathlib import Path

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

ROOT = Path(__file__).resolve().parent
INCLUDE = "csrc/include"

VERSION = re.search(
    r'#define PIK_VERSION_STRING "([^"]+)"', (ROOT / INCLUDE / "piperik" / "piperik.h").read_text()
).group(1)

CORE_SOURCES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "csrc" / "src").glob("*.c")) + [
    "tables/pik_trig_table.c"
]

if sys.platform == "win32":
    C_FLAGS = ["/O2"]
else:
    # Portable flags only: no -march=native, never -ffast-math (the trig tables and the IK rely on
    # IEEE rounding). -fno-math-errno lets sqrt compile to one instruction.
    C_FLAGS = ["-std=c99", "-O2", "-fPIC", "-fno-math-errno", "-Wall", "-Wextra", "-pedantic"]

setup(
    version=VERSION,
    libraries=[
        (
            "piperik_core",
            {"sources": CORE_SOURCES, "include_dirs": [INCLUDE], "cflags": C_FLAGS},
        )
    ],
    ext_modules=[
        Pybind11Extension(
            "piperik._core",
            ["csrc/bindings/module.cpp"],
            include_dirs=[INCLUDE],
            cxx_std=17,
            libraries=["piperik_core"],
        )
    ],
    cmdclass={"build_ext": build_ext},
)
