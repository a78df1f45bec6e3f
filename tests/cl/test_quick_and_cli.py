"""``sgvm.run``, ``sgvm run`` and PyOpenCL's documentation demo, end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sgvm
import sgvm.cl as cl

from .conftest import raises_cl

ROOT = Path(__file__).resolve().parents[2]
SAXPY = """
__kernel void saxpy(__global const float *x, __global float *y, float a, int n)
{
    int i = get_global_id(0);
    if (i < n) y[i] += a * x[i];
}
__kernel void hello(int v) { if (get_global_id(0) < 2) printf("item %d says %d\\n", (int)get_global_id(0), v); }
"""


def _sgvm(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sgvm", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_pyopencl_docs_demo_runs_unchanged() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "pyopencl_docs_demo.py")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "0.0"


def test_run_updates_arrays_in_place() -> None:
    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, np.float32)
    result = sgvm.run(SAXPY, "saxpy", (100,), None, x, y, np.float32(0.5), np.int32(90))
    expect = np.ones(100, np.float32)
    expect[:90] += np.float32(0.5) * x[:90]
    np.testing.assert_array_equal(y, expect)
    assert result.printf == ""
    strided = np.ones(200, np.float32)[::2]
    sgvm.run(SAXPY, "saxpy", (100,), (10,), x, strided, 2.0, 100)  # Python numbers take the parameter type
    np.testing.assert_array_equal(strided, 1 + 2 * x)


def test_run_errors_and_programs() -> None:
    ctx = cl.create_some_context()
    prg = cl.Program(ctx, SAXPY).build()
    x = np.zeros(8, np.float32)
    with raises_cl("CL_INVALID_KERNEL_ARGS"):
        sgvm.run(prg, "saxpy", (8,), None, x, x)
    with raises_cl("CL_INVALID_ARG_SIZE"):
        sgvm.run(prg, "saxpy", (8,), None, x, x, np.float64(1), np.int32(8))
    with raises_cl("CL_INVALID_KERNEL_NAME"):
        sgvm.run(prg, "nope", (8,))
    sgvm.run(prg.binaries[0], "saxpy", (8,), None, np.ones(8, np.float32), x, np.float32(2), np.int32(8))
    np.testing.assert_array_equal(x, 2)


def test_printf_goes_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    result = sgvm.run(SAXPY, "hello", (4,), None, np.int32(7))
    assert result.printf == "item 0 says 7\nitem 1 says 7\n"
    assert capsys.readouterr().out == result.printf


def test_cli_runs_and_saves(tmp_path: Path) -> None:
    (tmp_path / "k.cl").write_text(SAXPY)
    x = np.linspace(0, 1, 64, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    proc = _sgvm("run", "k.cl", "--kernel", "saxpy", "--global", "64", "--local", "16",
                 "--arg", "x=x.npy", "--arg", "y=zeros:64:float32", "--arg", "a=float32:3",
                 "--arg", "n=int32:60", "--save", "y=y.npy", "--print", "y", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    expect = np.where(np.arange(64) < 60, np.float32(3) * x, 0).astype(np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), expect)
    assert proc.stdout.startswith("y = [")
    by_index = _sgvm("run", "k.cl", "-k", "saxpy", "-g", "64", "-a", "0=x.npy", "-a", "1=zeros:64:float",
                     "-a", "2=float:1", "-a", "3=int:64", "--save", "y=y2.npy", cwd=tmp_path)
    assert by_index.returncode == 0, by_index.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "y2.npy"), x)


@pytest.mark.parametrize(("args", "message"), [
    (["--arg", "x=x.npy", "--arg", "y=zeros:8:float", "--arg", "a=float:1"],
     "missing --arg for kernel 'saxpy' parameter(s): n (int)"),
    (["--arg", "x=x.npy", "--arg", "y=zeros:8:float", "--arg", "a=float:1", "--arg", "n=int:8",
      "--arg", "z=int:1"], "kernel 'saxpy' has no parameter 'z' (parameters: x, y, a, n)"),
    (["--arg", "x=x.npy", "--arg", "x=x.npy"], "parameter 'x' is given twice"),
    (["--arg", "x=bogus:1:2:3"], "--arg value 'bogus:1:2:3': use FILE.npy, zeros:COUNT:DTYPE"),
    (["--arg", "x=x.npy", "--arg", "y=zeros:8:float", "--arg", "a=double:1", "--arg", "n=int:8"],
     "INVALID_ARG_SIZE"),
    (["--arg", "x=x.npy", "--arg", "y=zeros:8:float", "--arg", "a=float:1", "--arg", "n=int:8",
      "--local", "3"], "INVALID_WORK_GROUP_SIZE"),
])
def test_cli_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "k.cl").write_text(SAXPY)
    np.save(tmp_path / "x.npy", np.zeros(8, np.float32))
    proc = _sgvm("run", "k.cl", "--kernel", "saxpy", "--global", "8", *args, cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sgvm: error: ") and message in lines[0], proc.stderr


def test_cli_needs_a_kernel_name(tmp_path: Path) -> None:
    (tmp_path / "k.cl").write_text(SAXPY)
    proc = _sgvm("run", "k.cl", "--global", "8", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip() == "sgvm: error: k.cl has kernels saxpy, hello; choose one with --kernel"
