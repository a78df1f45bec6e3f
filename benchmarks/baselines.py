"""Time the same kernel on PoCL and Oclgrind, when they are installed.

Both run through PyOpenCL in a child process (Oclgrind as ``oclgrind python``),
so a missing or crashing implementation only blanks its column. Install them
with ``apt-get install pocl-opencl-icd oclgrind`` and ``pip install pyopencl``
in the virtual environment.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class Case:
    """One benchmark kernel launch, runnable by sgvm and by PyOpenCL."""

    name: str
    source: str
    kernel: str
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    args: list[Any] = field(default_factory=list)  # ndarrays, NumPy scalars, ("local", nbytes)
    options: str = ""


def _save(case: Case, path: Path) -> None:
    arrays = {}
    spec = []
    for i, a in enumerate(case.args):
        if isinstance(a, tuple):
            spec.append(["local", int(a[1])])
        elif isinstance(a, np.ndarray):
            arrays[f"a{i}"] = a
            spec.append(["buffer", f"a{i}"])
        else:
            arrays[f"a{i}"] = np.asarray(a)
            spec.append(["scalar", f"a{i}"])
    np.savez(path / "args.npz", **arrays)
    (path / "case.json").write_text(json.dumps({
        "source": case.source, "kernel": case.kernel, "global": list(case.global_size),
        "local": list(case.local_size) if case.local_size else None, "args": spec,
        "options": case.options}))


def pyopencl_available() -> bool:
    try:
        import pyopencl  # noqa: F401
    except ImportError:
        return False
    return True


def time_external(case: Case, which: str, timeout: float = 600.0) -> float | None:
    """Seconds for one warm launch on ``which`` ("pocl" or "oclgrind"), or None.

    Returns ``float("inf")`` when the run exceeded ``timeout`` (a lower bound).
    """
    if not pyopencl_available():
        return None
    cmd = [sys.executable, str(Path(__file__).with_name("_pyopencl_worker.py"))]
    if which == "oclgrind":
        if shutil.which("oclgrind") is None:
            return None
        cmd = ["oclgrind", *cmd]
    with tempfile.TemporaryDirectory() as tmp:
        _save(case, Path(tmp))
        # Oclgrind runs each launch once (it is slow); PoCL gets a warm-up launch.
        cmd += [tmp, "1" if which == "oclgrind" else "2"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return float("inf")
    if proc.returncode != 0:
        return None
    try:
        return float(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
