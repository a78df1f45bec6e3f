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


TYPED = """
typedef struct { float a; int b; } pair;
__kernel void typed(__global float *f, __global const float4 *v, __global uint *u, __global half *h,
                    __global uchar *bytes, __global pair *s, int n)
{
    int i = get_global_id(0);
    f[i] = v[i].y + (float)u[i] + vload_half(i, h) + bytes[i] + s[i].a + (float)n;
}
"""


def _typed_args(n: int = 8) -> list:
    pair = np.dtype([("a", "f4"), ("b", "i4")])
    return [np.zeros(n, np.float32), np.ones((n, 4), np.float32), np.arange(n, dtype=np.uint32),
            np.full(n, 0.5, np.float16), np.full(n, 2, np.uint8), np.zeros(n, pair), np.int32(1)]


def test_run_accepts_arrays_of_the_pointee_type() -> None:
    args = _typed_args()
    args[2] = args[2].view(np.int32)  # same bits, other signedness
    args[4] = np.zeros(2, np.float32)  # a byte pointer takes any plain data
    args[4][:] = np.frombuffer(np.full(8, 2, np.uint8).tobytes(), np.float32)
    cl4 = np.zeros(8, cl.cltypes.float4)
    cl4["y"] = 1
    args[1] = cl4
    sgvm.run(TYPED, "typed", (8,), None, *args)
    np.testing.assert_array_equal(args[0], 1 + np.arange(8) + 0.5 + 2 + 0 + 1)


@pytest.mark.parametrize(("index", "array", "want"), [
    (0, np.zeros(8, np.float64), "float32"),
    (0, np.zeros(8, np.complex64), "float32"),
    (0, np.zeros(8, np.int32), "float32"),
    (1, np.zeros((8, 4), np.float64), "float32"),
    (2, np.zeros(8, np.float32), "uint32"),
    (2, np.zeros(8, np.int64), "uint32"),
    (3, np.zeros(8, np.float32), "float16"),
])
def test_run_refuses_arrays_of_another_type(index: int, array: np.ndarray, want: str) -> None:
    args = _typed_args()
    args[index] = array
    with raises_cl("CL_INVALID_ARG_VALUE") as info:
        sgvm.run(TYPED, "typed", (8,), None, *args)
    message = str(info.value)
    name = ["f", "v", "u", "h"][index]
    assert f"('{name}')" in message and f"dtype {array.dtype}" in message and f"astype(np.{want})" in message


def test_run_refuses_object_arrays_and_numbers_that_do_not_fit() -> None:
    args = _typed_args()
    args[0] = np.array([object()] * 8, dtype=object)
    with raises_cl("CL_INVALID_VALUE"):
        sgvm.run(TYPED, "typed", (8,), None, *args)
    args = _typed_args()
    for bad in (2**40, 2.5):
        args[-1] = bad
        with raises_cl("CL_INVALID_ARG_VALUE") as info:
            sgvm.run(TYPED, "typed", (8,), None, *args)
        assert "argument 6 ('n') is int" in str(info.value)


def test_run_takes_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "k.cl").write_text(SAXPY)
    x, y = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    sgvm.run(tmp_path / "k.cl", "saxpy", (8,), None, x, y, np.float32(2), np.int32(8))
    np.testing.assert_array_equal(y, 2 * x)
    monkeypatch.chdir(tmp_path)
    sgvm.run("k.cl", "saxpy", (8,), None, x, y, np.float32(1), np.int32(8))
    np.testing.assert_array_equal(y, 3 * x)
    (tmp_path / "k.spv").write_bytes(cl.Program(cl.create_some_context(), SAXPY).build().binaries[0])
    sgvm.run(str(tmp_path / "k.spv"), "saxpy", (8,), None, x, y, np.float32(1), np.int32(8))
    np.testing.assert_array_equal(y, 4 * x)
    (tmp_path / "bad.cl").write_text("kernel void k(global int *a) { a[0] = ; }")
    with pytest.raises(sgvm.BuildError) as info:
        sgvm.run(tmp_path / "bad.cl", "k", (1,), None, np.zeros(1, np.int32))
    assert "bad.cl:1:" in info.value.log
    with pytest.raises(FileNotFoundError):
        sgvm.run("missing.cl", "k", (1,))


@pytest.mark.parametrize("options", [["-b", "-cl-std=CL2.0"], ["--build-options", "-cl-std=CL2.0 -cl-mad-enable"],
                                     ["-b=-cl-std=CL2.0"]])
def test_cli_takes_option_like_build_options(tmp_path: Path, options: list[str]) -> None:
    """A prime global size needs a remainder work-group, which OpenCL C 1.2 (the default) forbids."""
    (tmp_path / "k.cl").write_text(SAXPY)
    proc = _sgvm("run", "k.cl", "-k", "saxpy", "-g", "7", "-l", "2", "-a", "x=zeros:7:float",
                 "-a", "y=zeros:7:float", "-a", "a=float:1", "-a", "n=int:7", *options, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_cli_refuses_arrays_of_another_type(tmp_path: Path) -> None:
    (tmp_path / "k.cl").write_text(SAXPY)
    np.save(tmp_path / "x.npy", np.zeros(8, np.float64))
    proc = _sgvm("run", "k.cl", "-k", "saxpy", "-g", "8", "-a", "x=x.npy", "-a", "y=zeros:8:float",
                 "-a", "a=float:1", "-a", "n=int:8", cwd=tmp_path)
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()
    assert "argument 0 ('x')" in line and "float64" in line and "a .npy file of dtype float32" in line
