"""The C core from a user's own Cython extension (piperik/ccore.pxd, the capsule of pik_capi.h).

Builds benchmarks/cython_ik_loop.pyx in a temporary directory against the *installed* package
(headers from piperik.get_include(), the .pxd found on sys.path, nothing linked), runs its nogil
loops and requires exactly the rows of ``ik_all``: the same compiled functions, so bit-identical.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import piperik

pytest.importorskip("Cython", reason="Cython is in the test extra: pip install '.[test]'")

ROOT = Path(__file__).resolve().parents[1]
PYX = ROOT / "benchmarks" / "cython_ik_loop.pyx"


def _build(work: Path, module: str, source: str):
    """Builds module.pyx (source) in work against the installed piperik and imports it."""
    (work / f"{module}.pyx").write_text(source)
    (work / "setup.py").write_text(textwrap.dedent(f"""
        from pathlib import Path
        import piperik
        from Cython.Build import cythonize
        from setuptools import Extension, setup
        # include_path: where piperik/ccore.pxd is (an editable install is not a sys.path directory)
        setup(name="{module}", ext_modules=cythonize(
            [Extension("{module}", ["{module}.pyx"], include_dirs=[piperik.get_include()])],
            include_path=[str(Path(piperik.__file__).resolve().parents[1])], quiet=True))
    """))
    # cwd = the temporary directory: the build sees the installed piperik, not the checkout's sources
    r = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=work, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    built = sorted(work.glob(f"{module}*.so")) + sorted(work.glob(f"{module}*.pyd"))
    assert built, list(work.iterdir())
    spec = importlib.util.spec_from_file_location(module, built[0])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _need_cc():
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler on PATH")


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    _need_cc()
    return _build(tmp_path_factory.mktemp("cython_user"), "cython_ik_loop", PYX.read_text())


def test_headers_and_pxd_are_reachable():
    inc = Path(piperik.get_include())
    for name in ("piperik.h", "pik_capi.h", "pik_arm6.h", "pik_srs.h", "pik_types.h", "pik_config.h"):
        assert (inc / "piperik" / name).is_file(), name
    assert (Path(piperik.__file__).parent / "ccore.pxd").is_file()
    assert type(piperik._core._C_API).__name__ == "PyCapsule"
    assert "piperik._core._C_API" in repr(piperik._core._C_API)


def test_piper_nogil_loop_equals_ik_all(ext):
    arm = piperik.Piper()
    rng = np.random.default_rng(20261201)
    q = rng.uniform(arm.lower, arm.upper, (300, 6))
    Ts = np.ascontiguousarray(arm.fk(q))
    Ts[-1] = np.eye(4)
    Ts[-1, :3, 3] = [5.0, 0.0, 0.0]  # unreachable: no rows, as ik_all
    Q = np.full((len(Ts), 8, 6), np.nan)
    count = np.zeros(len(Ts), dtype=np.intc)
    assert ext.piper_ik_all(Ts, Q, count) == -1  # the last pose's status: PIK_UNREACHABLE
    assert ext.status_str(-1) == "the pose is outside the arm's workspace"
    for i, T in enumerate(Ts):
        expected = arm.ik_all(T)
        assert count[i] == len(expected), i
        np.testing.assert_array_equal(Q[i, :count[i]], expected, err_msg=f"pose {i}")
    assert count[-1] == 0 and count[:-1].min() >= 1


@pytest.mark.parametrize("name,cls", [("nero", piperik.Nero), ("iiwa14", piperik.Iiwa14)])
def test_srs_nogil_loop_equals_ik_all(ext, name, cls):
    arm = cls()
    rng = np.random.default_rng(7)
    q = rng.uniform(arm.lower, arm.upper, (200, 7))
    Ts = np.ascontiguousarray(arm.fk(q))
    psi = np.array([arm.arm_angle(qi) for qi in q]) + rng.uniform(-0.3, 0.3, len(q))
    Q = np.full((len(Ts), 8, 7), np.nan)
    count = np.zeros(len(Ts), dtype=np.intc)
    ext.srs_ik_all(name, Ts, psi, Q, count)
    for i, T in enumerate(Ts):
        expected = arm.ik_all(T, psi[i])
        assert count[i] == len(expected), i
        np.testing.assert_array_equal(Q[i, :count[i]], expected, err_msg=f"{name} pose {i}")
    assert count.min() >= 1


def test_bad_arguments_raise_value_error(ext):
    with pytest.raises(ValueError, match="arm"):
        ext.srs_ik_all("ur5", np.zeros((1, 4, 4)), np.zeros(1), np.zeros((1, 8, 7)), np.zeros(1, np.intc))
    with pytest.raises(ValueError, match="Q_out"):
        ext.piper_ik_all(np.zeros((2, 4, 4)), np.zeros((1, 8, 6)), np.zeros(2, np.intc))


def test_readme_cython_example_builds_and_runs(tmp_path):
    """The README's Cython block, as written, against the installed package."""
    _need_cc()
    blocks = re.findall(r"```cython\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) == 1
    mod = _build(tmp_path, "my_loop", blocks[0])
    arm = piperik.Piper()
    Ts = np.ascontiguousarray(arm.fk(np.random.default_rng(3).uniform(arm.lower, arm.upper, (50, 6))))
    count = np.zeros(len(Ts), dtype=np.intc)
    mod.solve_all(Ts, count)
    assert count.tolist() == [len(arm.ik_all(T)) for T in Ts]


def test_import_capi_refuses_a_table_of_another_abi(tmp_path, monkeypatch):
    """import_capi() checks the table it is given: another ABI version or real size -> ImportError
    saying to rebuild, never a call through a table of the wrong shape."""
    import ctypes

    _need_cc()
    mod = _build(tmp_path, "capi_check", "from piperik.ccore cimport import_capi\n\n"
                                         "def load():\n    import_capi()\n    return True\n")
    assert mod.load()  # the real table passes

    class Head(ctypes.Structure):  # the first fields of pik_capi
        _fields_ = [("abi_version", ctypes.c_int), ("struct_size", ctypes.c_size_t), ("real_size", ctypes.c_size_t)]

    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype, new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    name = ctypes.c_char_p(b"piperik._core._C_API")
    for fields, message in (((99, 4096, 8), "C API version 99"), ((piperik._core.CAPI_ABI_VERSION, 4096, 4), "4-byte reals")):
        head = Head(*fields)
        monkeypatch.setattr(piperik._core, "_C_API", new_capsule(ctypes.addressof(head), name, None))
        with pytest.raises(ImportError, match=message):
            mod.load()
