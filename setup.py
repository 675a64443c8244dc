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

# The package description (PyPI's page, the METADATA of every wheel): README.md's opening and the
# sections a new user starts with, not the whole file (84 KB, 32 KB compressed: a tenth of a wheel).
# Links to README sections become "text (README.md)"; the last paragraph says where the rest is.
DESCRIPTION_SECTIONS = ("Why", "Install and try", "Quickstart")


def package_description(readme: str) -> str:
    intro, *sections = re.split(r"^(?=## )", readme, flags=re.M)
    # the opening without its table of contents, each chosen section without its ### subsections
    parts = [re.sub(r"^Contents: .*?\n\n", "", intro, flags=re.M | re.S)]
    for section in sections:
        if section.splitlines()[0][3:].strip() in DESCRIPTION_SECTIONS:
            parts.append(re.split(r"^(?=### )", section, flags=re.M)[0])
    text = "".join(parts).rstrip() + "\n"
    text = re.sub(r"\[([^\]]+)\]\(#[^)]*\)", r"\1 (README.md)", text)
    return text + (
        "\n## More\n\nThe full documentation (wheels for a Raspberry Pi, the command line, the 7-DOF arms, "
        "selection and motions, streaming to a microcontroller, driving a real PiPER, the model, accuracy, "
        "benchmarks, the C core and vendoring it into firmware, tests) is README.md in the source "
        "distribution.\n"
    )


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
EXT_LINK_ARGS = []
if sys.platform != "win32":
    LIBRARIES.insert(0, ("piperik_fw", {"sources": [f"{FW_DIR}/fw_core.c", f"{FW_DIR}/fw_posix.c"],
                                         "include_dirs": [INCLUDE, FW_DIR],
                                         "cflags": C_FLAGS + ["-D_DEFAULT_SOURCE"]}))
    EXT_LIBS = ["piperik_fw", "piperik_core"] + (["util"] if sys.platform.startswith("linux") else [])
    EXT_MACROS = [("PIK_WITH_FW_SIM", "1")]
    EXT_LINK_ARGS = ["-pthread"]  # fw_sim_run's firmware thread (older glibc keeps it in libpthread)



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
    long_description=package_description((ROOT / "README.md").read_text(encoding="utf-8")),
    long_description_content_type="text/markdown",
    libraries=LIBRARIES,
    ext_modules=[
        Pybind11Extension(
            "piperik._core",
            ["csrc/bindings/module.cpp", "csrc/bindings/bind_proto.cpp", "csrc/bindings/bind_fw_sim.cpp",
             "csrc/bindings/bench_hooks.cpp"],
            include_dirs=[INCLUDE],
            cxx_std=17,
            libraries=EXT_LIBS,
            define_macros=EXT_MACROS,
            extra_link_args=EXT_LINK_ARGS,
        )
    ],
    cmdclass={"build_ext": build_ext, "build_py": build_py_with_headers},
)
