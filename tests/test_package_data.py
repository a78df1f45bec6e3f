"""Every file the package reads besides its modules is listed as package data in
pyproject.toml, so a non-editable install has it (the native backend's prelude was not)."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_every_data_file_is_package_data() -> None:
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["sgvm"]
    package = ROOT / "src" / "sgvm"
    data = [p.relative_to(package).as_posix() for p in package.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert data
    missing = [f for f in data if not any(fnmatch.fnmatch(f, g) for g in globs)]
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"
