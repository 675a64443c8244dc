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

# The reference firmware's core and its POSIX pseudo-terminal HAL, for `piperik firmware-sim`
# (the same C the microcontroller runs; the simulator needs openpty, so POSIX only).
FW_DIR = "firmware_bridge/firmware"
LIBRARIES = [("piperik_core", {"sources": CORE_SOURCES, "include_dirs": [INCLUDE], "cflags": C_FLAGS})]
EXT_LIBS = ["piperik_core"]
EXT_MACROS = []
if sys.platform != "win32":
    LIBRARIES.insert(0, ("piperik_fw", {"sources": [f"{FW_DIR}/fw_core.c", f"{FW_DIR}/fw_posix.c"],
                                         "include_dirs": [INCLUDE, FW_DIR],
                                         "cflags": C_FLAGS + ["-D_DEFAULT_SOURCE"]}))
    EXT_LIBS = ["piperik_fw", "piperik_core"] + (["util"] if sys.platform.startswith("linux") else [])
    EXT_MACROS = [("PIK_WITH_FW_SIM", "1")]

setup(
    version=VERSION,
    libraries=LIBRARIES,
    ext_modules=[
        Pybind11Extension(
            "piperik._core",
            ["csrc/bindings/module.cpp"],
            include_dirs=[INCLUDE],
            cxx_std=17,
            libraries=EXT_LIBS,
            define_macros=EXT_MACROS,
        )
    ],
    cmdclass={"build_ext": build_ext},
)
