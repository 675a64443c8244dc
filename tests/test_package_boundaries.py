"""The dependency between the two packages runs one way (issue 10, part 3).

* firmware_bridge imports only piperik's public names: no module or name with a leading underscore
  (``piperik._core``, ``piperik.poses._vector``).
* piperik never imports firmware_bridge; the bridge's CLI commands arrive through the
  ``piperik.commands`` entry point and ``piperik stream`` still exists.
* DeviceError and BridgeError are siblings under LinkError.
"""
from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from conftest import REPO_ROOT


def _imports(path):
    """(module, name or None) for every import statement of a Python file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                yield node.module, alias.name


BRIDGE_FILES = sorted((REPO_ROOT / "firmware_bridge").rglob("*.py"))
PIPERIK_FILES = sorted((REPO_ROOT / "piperik").rglob("*.py"))


@pytest.mark.parametrize("path", BRIDGE_FILES, ids=lambda p: p.name)
def test_bridge_uses_only_public_piperik_names(path):
    private = []
    for module, name in _imports(path):
        parts = module.split(".")
        if parts[0] != "piperik":
            continue
        if any(p.startswith("_") for p in parts) or (name is not None and name.startswith("_")):
            private.append(f"{module}.{name}" if name else module)
    assert not private, f"{path.name} imports private piperik names: {private}"


@pytest.mark.parametrize("path", PIPERIK_FILES, ids=lambda p: p.name)
def test_piperik_never_imports_the_bridge(path):
    assert not [m for m, _ in _imports(path) if m.split(".")[0] == "firmware_bridge"], path.name
    assert "firmware_bridge.streamer" not in path.read_text()


def test_importing_the_cli_does_not_import_the_bridge_until_commands_are_built():
    code = ("import sys, piperik.cli; assert 'firmware_bridge' not in sys.modules; "
            "ap = piperik.cli.build_parser(); assert 'firmware_bridge.cli' in sys.modules; "
            "ap.parse_args(['stream', '--port', 'loop://', '--demo'])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO_ROOT.parent))
    assert r.returncode == 0, r.stderr[-3000:]


def test_errors_are_siblings_under_one_base():
    from firmware_bridge import BridgeError, DeviceError, LinkError

    assert issubclass(BridgeError, LinkError) and issubclass(DeviceError, LinkError)
    assert not issubclass(DeviceError, BridgeError) and not issubclass(BridgeError, DeviceError)
    assert issubclass(LinkError, RuntimeError)
