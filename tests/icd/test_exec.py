"""``sgvm exec`` and the environment variables with a PyOpenCL program as the child."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import run_sgvm

pytest.importorskip("pyopencl")

SCRIPT = """
import numpy as np, pyopencl as cl
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, '''
__kernel void gather(__global const float *x, __global float *y) {
    int i = get_global_id(0);
    y[i] = x[(i * 17) % 256];
}''').build()
x = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 1024)
y = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 1024)
n = 257 if 'oob' in __import__('sys').argv else 256  # 'oob': one store past y
prg.gather(q, (n,), None, x, y)
q.finish()
print(ctx.devices[0].platform.name)
"""


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("exec") / "app.py"
    path.write_text(SCRIPT)
    return str(path)


def test_exec_check_and_profile_on_a_clean_program(icd_env, script):
    out = run_sgvm("exec", "--check", "--profile", "--", sys.executable, script, env=icd_env)
    assert out.returncode == 0, out.stderr
    assert "0 findings" in out.stderr or "no findings" in out.stderr.lower(), out.stderr
    assert out.stdout.strip() == "sgvm"
    rows = [line.split() for line in out.stderr.splitlines()]
    assert any(r[:2] == ["gather", "<kernel>:4"] for r in rows), out.stderr  # y[i] = x[(i * 17) % 256];
    assert any(r and r[0] == "total" for r in rows)


def test_environment_variables_work_without_exec(icd_env, script):
    profiled = subprocess.run([sys.executable, script], env=dict(icd_env, SGVM_PROFILE="1"), capture_output=True,
                              text=True, timeout=300)
    assert profiled.returncode == 0, profiled.stderr
    assert "sgvm message profile (SGVM_PROFILE=1)" in profiled.stderr and "gather" in profiled.stderr
    assert "Exception ignored" not in profiled.stderr  # PyOpenCL's releases at shutdown reach a live ICD
    checked = subprocess.run([sys.executable, script, "oob"], env=dict(icd_env, SGVM_CHECK="1"),
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr  # the checker reports and skips the bad store
    assert "<kernel>:4:10:" in checked.stderr and "[out-of-bounds] out-of-bounds store" in checked.stderr
    unchecked = subprocess.run([sys.executable, script, "oob"], env=icd_env, capture_output=True, text=True,
                               timeout=300)
    assert unchecked.returncode != 0 and "OUT_OF_RESOURCES" in unchecked.stderr


def test_exec_needs_a_command(icd_env):
    out = run_sgvm("exec", "--check", env=icd_env)
    assert out.returncode == 2 and "give the program to run" in out.stderr


@pytest.mark.parametrize("argv", [["--check=races", "--", "true"], ["--check", "./app"]])
def test_exec_check_takes_portability_or_nothing(icd_env, argv):
    out = run_sgvm("exec", *argv, env=icd_env)
    assert out.returncode == 2 and out.stderr.splitlines()[-1].endswith(
        "is not a check: use --check (the checker) or --check=portability, and put -- before the program")
