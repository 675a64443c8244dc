"""Generated files are fresh and versions have one source of truth (STYLE.md practices 4 and 7).

* tables/pik_trig_table.c is what tables/gen_trig_tables.py produces (``--check`` exits 0), and the
  check really fails on a tampered copy.
* The URDFs shipped in piperik/models are what ``python -m piperik.urdf_gen`` renders from the C
  model (``--check`` exits 0).
* The version lives in csrc/include/piperik/piperik.h; piperik.__version__, setup.py (which reads
  the header) and the installed distribution metadata agree with it, and pyproject.toml declares
  the version dynamic instead of repeating it.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from importlib import metadata

import pytest

import piperik
from conftest import REPO_ROOT

HEADER = REPO_ROOT / "csrc" / "include" / "piperik" / "piperik.h"
GENERATOR = REPO_ROOT / "tables" / "gen_trig_tables.py"
TABLE = REPO_ROOT / "tables" / "pik_trig_table.c"
TRIG_IMPL = REPO_ROOT / "csrc" / "src" / "pik_trig_impl.h"


def _run(args, cwd=REPO_ROOT):
    return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_trig_tables_are_fresh():
    """python tables/gen_trig_tables.py --check exits 0: the committed table is the generator's output."""
    res = _run([GENERATOR, "--check"])
    assert res.returncode == 0, f"stale trig table:\n{res.stdout}\n{res.stderr}"


def test_trig_table_check_detects_tampering(tmp_path):
    """The freshness check is not a no-op: one altered table digit in a copy makes --check exit non-zero."""
    shutil.copy(GENERATOR, tmp_path / GENERATOR.name)
    text = TABLE.read_text()
    needle = "0.024541228522912288"  # sin(2pi/256), the second table entry
    assert needle in text
    (tmp_path / TABLE.name).write_text(text.replace(needle, "0.024541228522912289", 1))
    res = _run([tmp_path / GENERATOR.name, "--check", "--c-header", TRIG_IMPL], cwd=tmp_path)
    assert res.returncode != 0 and "stale" in res.stderr, f"--check accepted a tampered table:\n{res.stdout}\n{res.stderr}"


def test_trig_check_detects_tampered_reduction_constant(tmp_path):
    """--check also compares the C header's PIK_STEP_* literals with the generator's exact values."""
    text = TRIG_IMPL.read_text()
    needle = "#define PIK_STEP_LO 9.495469541415925e-13"
    assert needle in text
    # the old x87 long-double value, wrong in its 10th digit: the check must see it
    (tmp_path / TRIG_IMPL.name).write_text(text.replace(needle, "#define PIK_STEP_LO 9.495469545335112e-13"))
    res = _run([GENERATOR, "--check", "--c-header", tmp_path / TRIG_IMPL.name])
    assert res.returncode != 0 and "PIK_STEP_LO" in res.stderr, res.stdout + res.stderr


def _table_doubles(name: str) -> list[float]:
    body = re.search(rf"{name}\[[^]]*\] = \{{(.*?)\}};", TABLE.read_text(), re.S).group(1)
    return [float(tok.rstrip("f")) for tok in body.replace(",", " ").split()]


@pytest.mark.parametrize("name", ["pik_sincos_table", "pik_sincos_table_f32"])
def test_trig_table_exact_at_quarter_turns(name):
    """sin and cos of multiples of pi/2 are exactly 0 and +-1 (the 80-bit long double generator wrote
    +-2.5e-20 ... 1.8e-19 there), and the quadrants are exact copies of each other with swapped signs."""
    tab = _table_doubles(name)
    assert len(tab) == 512
    sin, cos = tab[0::2], tab[1::2]
    assert [(sin[k], cos[k]) for k in (0, 64, 128, 192)] == [(0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0)]
    for k in range(256):
        assert (sin[(k + 64) % 256], cos[(k + 64) % 256]) == (cos[k], -sin[k]), k


def test_shipped_urdfs_are_fresh(tmp_path):
    """python -m piperik.urdf_gen --check exits 0: the shipped URDFs match the compiled model.

    Run outside the checkout so that the installed package (with its compiled core) is the one
    imported, also when it was installed non-editable as CI does.
    """
    res = _run(["-m", "piperik.urdf_gen", "--check"], cwd=tmp_path)
    assert res.returncode == 0, f"stale URDFs:\n{res.stdout}\n{res.stderr}"


def test_urdf_paths_exist(any_arm):
    assert any_arm.urdf_path.is_file()
    text = any_arm.urdf_path.read_text()
    assert f'<link name="{any_arm.ee_frame}"/>' in text
    assert "GENERATED" in text


def _header_version():
    text = HEADER.read_text()
    string = re.search(r'#define PIK_VERSION_STRING "([^"]+)"', text).group(1)
    parts = [int(re.search(rf"#define PIK_VERSION_{k} (\d+)", text).group(1)) for k in ("MAJOR", "MINOR", "PATCH")]
    return string, parts


def test_version_single_source():
    """piperik.__version__ == PIK_VERSION_STRING == MAJOR.MINOR.PATCH in piperik.h."""
    string, parts = _header_version()
    assert string == ".".join(map(str, parts))
    assert piperik.__version__ == string


def test_build_reads_version_from_header():
    """setup.py takes the version from the header and pyproject.toml declares it dynamic, not literal."""
    setup_py = (REPO_ROOT / "setup.py").read_text()
    assert "PIK_VERSION_STRING" in setup_py and "piperik.h" in setup_py
    assert re.search(r"version\s*=\s*VERSION", setup_py)
    assert not re.search(r"version\s*=\s*['\"]\d", setup_py), "setup.py hard-codes a version"
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        tomllib = None
    if tomllib is not None:
        project = tomllib.loads(pyproject)["project"]
        assert "version" in project.get("dynamic", []), "pyproject.toml must declare the version dynamic"
        assert "version" not in project, "pyproject.toml repeats the version"
    else:
        assert re.search(r'dynamic\s*=\s*\[[^\]]*"version"', pyproject)


def test_installed_metadata_version():
    """The installed distribution carries the header's version (rebuild if this fails after a bump)."""
    try:
        installed = metadata.version("piperik")
    except metadata.PackageNotFoundError:
        pytest.fail("piperik is importable but not installed as a distribution (pip install -e .)")
    assert installed == _header_version()[0]
