"""The ICD library, built once per test session, and the environment that points an ICD
loader at it (the loader reads OCL_ICD_VENDORS once, when the process first asks for platforms)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cffi")


@pytest.fixture(scope="session")
def icd():
    import sysconfig

    from sgvm.icd import build

    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        pytest.skip("this Python has no shared libpython, which the ICD embeds")
    return build()


@pytest.fixture(scope="session")
def icd_env(icd):
    """The environment of a child process that sees the sgvm platform only."""
    from sgvm.cli.exec_cmd import child_environment

    env = child_environment(icd.vendors_dir)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def run_sgvm(*args: str, env: dict[str, str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sgvm", *args], env=env, capture_output=True, text=True,
                          timeout=300, **kw)
