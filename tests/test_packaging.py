"""What an installed piperik carries (issue 13: wheels a Raspberry Pi installs without a compiler).

* The installed files hold no test sources and none of the firmware's C sources (those build only
  with csrc/, which the sdist and the repository have and a wheel has not).
* No docstring of the compiled module names a C++ type, neither demangled (``std::vector<double>``,
  ``(anonymous namespace)::Arm6``) nor mangled (``N12_GLOBAL__N_14Arm6E``): every type a binding
  takes or returns has a Python binding. The manylinux wheels of tools/build_wheels.sh rely on this,
  as they link no C++ demangler (tools/wheel_no_demangle.cpp), and tools/pi_check.sh runs this test
  on such a wheel.
"""
from __future__ import annotations

import inspect
import re
from importlib import metadata
from pathlib import Path

import pytest

from piperik import _core

# A C++ type name as pybind11 would print it: demangled (scope operator, anonymous namespace,
# template brackets next to a name) or as typeid().name() spells it in the Itanium ABI.
CXX_NAME = re.compile(
    r"::|\(anonymous namespace\)|\b(?:std|pik|pybind11)\w*<"  # demangled
    r"|_GLOBAL__N|\bN(?:St)?\d+[A-Za-z_]\w*E\b|\bSt\d+[A-Za-z_]\w*|\b_Z\w+"  # mangled
)


def _docstrings(module) -> dict[str, str]:
    docs: dict[str, str] = {}
    seen: set[int] = set()

    def walk(obj, prefix):
        for name in dir(obj):
            if name.startswith("__") and name not in ("__init__", "__call__"):
                continue
            value = getattr(obj, name, None)
            doc = getattr(value, "__doc__", None)
            if isinstance(doc, str):
                docs[prefix + name] = doc
            if inspect.isclass(value) and id(value) not in seen:
                seen.add(id(value))
                walk(value, f"{prefix}{name}.")

    walk(module, "")
    return docs


@pytest.mark.parametrize("text, is_cxx", [
    ("N12_GLOBAL__N_14Arm6E", True),            # typeid name of a class in an anonymous namespace
    ("NSt3__16vectorIdNS_9allocatorIdEEEE", True),
    ("St6vectorIdSaIdEE", True),
    ("(arg0: std::vector<double, std::allocator<double> >) -> None", True),
    ("(self: piperik._core.Arm6, T: numpy.ndarray[numpy.float64]) -> numpy.ndarray[numpy.float64]", False),
    ("Every exact solution, (k, 6) with k <= 8; N poses (N, 4, 4) in 2 ms at 1e-9 m", False),
])
def test_cxx_name_pattern(text, is_cxx):
    """The pattern below is not a no-op: it finds C++ names and passes ordinary signatures and prose."""
    assert bool(CXX_NAME.search(text)) is is_cxx


def test_no_cxx_type_names_in_docstrings():
    docs = _docstrings(_core)
    assert len(docs) > 30, sorted(docs)  # the walk really reached the bindings
    offenders = {k: CXX_NAME.search(v).group(0) for k, v in docs.items() if CXX_NAME.search(v)}
    assert not offenders, offenders


def _installed_files():
    dist = metadata.distribution("piperik")
    files = [str(f) for f in (dist.files or [])]
    if not any(re.search(r"piperik/_core\..*(so|pyd)$", f) for f in files):
        pytest.skip("editable or development install: its RECORD lists no package files to inspect")
    return files


def test_installed_files_carry_no_test_or_firmware_sources():
    files = _installed_files()
    # what the package promises is there: the URDFs, the C headers of get_include(), the Cython .pxd
    for promised in ("piperik/models/piper.urdf", "piperik/models/iiwa14.urdf", "piperik/models/nero.urdf",
                     "piperik/include/piperik/piperik.h", "piperik/include/piperik/pik_capi.h", "piperik/ccore.pxd"):
        assert promised in files, promised
    tests = [f for f in files if f.rsplit("/", 1)[-1].startswith("test_") or "/tests/" in f]
    # the firmware's C sources and its wire specification are in the sdist and the repository
    firmware = [f for f in files if f.startswith("firmware_bridge/firmware/") or f == "firmware_bridge/PROTOCOL.md"]
    assert not tests, tests
    assert not firmware, firmware


def test_package_description_is_the_readme_opening():
    """The METADATA description (PyPI's page; every wheel carries it) is README.md's opening, Why,
    Install and Quickstart (setup.py package_description), not the whole README."""
    description = metadata.metadata("piperik").get_payload()
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert description.startswith(readme.split("\n", 1)[0] + "\n"), description[:200]
    for heading in ("## Why", "## Install and try", "## Quickstart", "## More"):
        assert f"\n{heading}\n" in description, heading
    for left_out in ("### On a Raspberry Pi", "## Vendoring into firmware", "## Benchmark", "Contents: "):
        assert left_out not in description, left_out
    assert "](#" not in description  # links to README sections are plain text there
    assert len(description) < len(readme) / 5, len(description)
