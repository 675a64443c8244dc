"""Build: the C core as its own static library with C99 flags, then the pybind11 module linking it.

Keeping the two apart means C flags never reach the C++ compiler and vice versa (DESIGN.md section 3).
The version comes from csrc/include/piperik/piperik.h, its single source of truth.
"""
import re
import sys
from pathlib import Path

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup
from setuptools.command.build_py import build_py

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



class build_py_with_headers(build_py):
    """Ships the public C headers as piperik/include/piperik/*.h, for piperik.get_include() (the
    Cython declarations piperik/ccore.pxd and C extensions using the core's capsule need them).
    They stay in csrc/include in the repository: one copy in git, copied only into the build."""

    def run(self):
        super().run()
        if self.dry_run:
            return
        dest = Path(self.build_lib) / "piperik" / "include" / "piperik"
        dest.mkdir(parents=True, exist_ok=True)
        for header in sorted((ROOT / INCLUDE / "piperik").glob("*.h")):
            self.copy_file(str(header), str(dest / header.name))


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
    cmdclass={"build_ext": build_ext, "build_py": build_py_with_headers},
)
