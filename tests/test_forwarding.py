"""The arm methods that only forward to the compiled model (``@_forwards`` in robots.py) are bound
straight to it on each instance, so a control-loop call runs no Python frame (issue 10: that frame
was 10-20 % of an ``ik_all`` call). Checked here: every such method is the model's own on the
instance, takes the Python method's parameter names, returns what the class's method returns, and
follows the model when ``with_tool`` makes a new one; a subclass's override is never shadowed."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import piperik
from piperik import robots

DATA = Path(__file__).parent / "data"


def _arms():
    return [piperik.Piper(), piperik.Nero(), piperik.Iiwa14(),
            piperik.from_urdf(DATA / "piper_agilex.urdf", "base_link", "link6"),  # polished: near the class
            piperik.Iiwa14(tool=(0.0, 0.01, 0.12, 0.0, 0.2, 0.0))]


def _forwarded(cls):
    return sorted(n for n in dir(cls) if getattr(getattr(cls, n, None), "_forwards_to_core", False))


def _core_params(core_method):
    """Parameter names of a pybind11 method from its signature line, without self."""
    first = core_method.__doc__.splitlines()[0]
    inner = re.match(r"\w+\((.*)\)\s*->", first).group(1)
    names = [p.split(":")[0].strip() for p in inner.split(",")]
    return names[1:]


def _call_args(arm, name, rng):
    q = rng.uniform(arm.lower, arm.upper)
    T = arm.fk(q)
    if name in ("fk", "singularity", "wrist_center", "arm_angle"):
        return {"q": q}
    if name == "feasible_arm_angles":
        return {"T": T, "per_branch": True}
    if name == "ik_all":
        return {"T": T, "seed": q} if arm.dof == 6 else {"T": T, "psi": float(arm.arm_angle(q)), "seed": q}
    raise AssertionError(f"no arguments for the forwarded method {name}: add them to this test")


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return a == b


@pytest.mark.parametrize("arm", _arms(), ids=lambda a: repr(a))
def test_forwarded_methods_are_the_models_own_and_agree_with_the_class(arm):
    names = _forwarded(type(arm))
    assert {"fk", "ik_all", "singularity"} <= set(names)
    rng = np.random.default_rng(5)
    for name in names:
        bound = getattr(arm, name)
        assert getattr(bound, "__self__", None) is arm._arm, name
        py_params = list(inspect.signature(getattr(type(arm), name)).parameters)[1:]
        assert _core_params(bound) == py_params, name
        for _ in range(5):
            kwargs = _call_args(arm, name, rng)
            assert _same(bound(**kwargs), getattr(type(arm), name)(arm, **kwargs)), name


def test_with_tool_binds_the_new_models_methods():
    arm = piperik.Nero()
    tooled = arm.with_tool((0.0, 0.0, 0.145, 0.0, 0.0, 0.0))
    q = np.array([0.1, 0.5, -0.2, 1.2, 0.3, 0.4, -0.1])
    assert tooled.fk.__self__ is tooled._arm and arm.fk.__self__ is arm._arm
    assert np.allclose(tooled.fk(q), arm.fk(q) @ tooled.tool, atol=1e-14)
    assert not np.allclose(tooled.fk(q), arm.fk(q))
    T = tooled.fk(q)
    assert any(np.allclose(tooled.fk(row), T, atol=1e-12) for row in tooled.ik_all(T, float(tooled.arm_angle(q))))


def test_a_subclass_override_is_not_shadowed():
    class Logged(piperik.Piper):
        calls = 0

        def fk(self, q):
            Logged.calls += 1
            return super().fk(q)

    arm = Logged()
    assert "fk" not in vars(arm) and "ik_all" in vars(arm)
    arm.fk(np.zeros(6))
    assert Logged.calls == 1


def test_only_pass_through_methods_are_marked():
    """A marked method's body is one line: return self._arm.<its name>(<its parameters>)."""
    for cls in (robots.Arm6, robots._SrsArm, robots._Arm):
        for name in _forwarded(cls):
            src = inspect.getsource(getattr(cls, name))
            body = [ln.strip() for ln in src.split('"""')[-1].splitlines() if ln.strip()]
            params = list(inspect.signature(getattr(cls, name)).parameters)[1:]
            assert body == [f"return self._arm.{name}({', '.join(params)})"], (cls.__name__, name, body)
