"""docs/ARCHITECTURE.md stays true: every file it names exists, and every source file is named.

Source files: csrc/src, csrc/include and csrc/bindings; piperik/**/*.py and piperik/*.pxd; firmware_bridge/**
*.py / *.c / *.h; tables/*.py and *.c. A file counts as named when its repository path appears in
backticks on the page.
"""
from __future__ import annotations

import re

from conftest import REPO_ROOT

PAGE = REPO_ROOT / "docs" / "ARCHITECTURE.md"
SOURCE_GLOBS = [
    "csrc/src/*.c", "csrc/src/*.h", "csrc/include/piperik/*.h", "csrc/bindings/*.cpp", "csrc/bindings/*.h",
    "piperik/**/*.py", "piperik/*.pxd",
    "firmware_bridge/**/*.py", "firmware_bridge/**/*.c", "firmware_bridge/**/*.h",
    "tables/*.py", "tables/*.c",
]
# a repository path in backticks: at least one directory and a file extension
NAMED = re.compile(r"`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.[A-Za-z0-9]+)`")


def _named_paths():
    return set(NAMED.findall(PAGE.read_text()))


def _source_files():
    return {p.relative_to(REPO_ROOT).as_posix() for g in SOURCE_GLOBS for p in REPO_ROOT.glob(g) if p.is_file()}


def test_every_named_file_exists():
    missing = sorted(p for p in _named_paths() if not (REPO_ROOT / p).exists())
    assert not missing, f"docs/ARCHITECTURE.md names files that do not exist: {missing}"


def test_every_source_file_is_named():
    sources = _source_files()
    assert len(sources) > 30, sorted(sources)  # the globs found the tree
    unnamed = sorted(sources - _named_paths())
    assert not unnamed, f"source files missing from docs/ARCHITECTURE.md (add a line saying what each owns): {unnamed}"


def test_one_page():
    assert len(PAGE.read_text().splitlines()) <= 130, "keep docs/ARCHITECTURE.md to one page"
