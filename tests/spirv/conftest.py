"""Shared fixtures: the compiled corpus (once per session) and hand-built modules."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .corpus import compile_corpus
from .handmade import big_endian, handmade

BIG_ENDIAN = ("subgroups -cl-std=CL2.0", "constants -cl-std=CL2.0 -g", "handmade spec")
SPIRV_DIS = Path(sys.executable).with_name("spirv-dis")


@pytest.fixture(scope="session")
def corpus() -> dict[str, bytes]:
    """Compiled kernels plus hand-assembled modules and big-endian copies."""
    modules = compile_corpus()
    modules.update(handmade())
    for name in BIG_ENDIAN:
        if name in modules:
            modules[f"{name} (big-endian)"] = big_endian(modules[name])
    return modules


def spirv_dis(data: bytes, *args: str) -> str:
    """The reference disassembly by SPIRV-Tools' spirv-dis."""
    exe = str(SPIRV_DIS) if SPIRV_DIS.exists() else shutil.which("spirv-dis")
    if exe is None:
        pytest.skip("spirv-dis not installed")
    proc = subprocess.run([exe, *args, "-"], input=data, capture_output=True, check=True)
    return proc.stdout.decode()
