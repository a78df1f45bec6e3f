"""A plain C host program (tests/icd/host.c, compiled with the ziglang wheel's clang) on the sgvm
platform through the ICD loader PyPI's pyopencl wheel ships."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import run_sgvm

HERE = Path(__file__).parent
KERNEL = """\
__kernel void sg_reverse(__global const int *in, __global int *out) {
    int gid = get_global_id(0);
    uint n = get_max_sub_group_size();
    out[gid] = intel_sub_group_shuffle(in[gid], n - 1 - get_sub_group_local_id())
              + 1000 * (int)get_sub_group_id();
}
"""


def _loader() -> Path:
    pyopencl = pytest.importorskip("pyopencl")
    found = sorted((Path(pyopencl.__file__).parent / ".libs").glob("libOpenCL*.so*"))
    if not found:
        pytest.skip("this pyopencl wheel ships no ICD loader")
    return found[0]


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    loader = _loader()
    exe = tmp_path_factory.mktemp("host") / "host"
    subprocess.run([sys.executable, "-m", "ziglang", "cc", "-O1", str(HERE / "host.c"), str(loader),
                    f"-Wl,-rpath,{loader.parent}", "-o", str(exe)], check=True, capture_output=True)
    return exe


@pytest.fixture(scope="module")
def env(icd_env):
    """Outside a Python process PyOpenCL's loader needs PYOPENCL_HOME (it crashes without it)."""
    return dict(icd_env, PYOPENCL_HOME=str(_loader().parent.parent))


def test_lists_the_platform_and_its_sub_group_sizes(host, env):
    env = {k: v for k, v in env.items() if k != "SGVM_DEVICE"}  # the default device first
    out = subprocess.run([str(host), "list"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["platform: sgvm", "device: sgvm native", "sub-group sizes: 8 16 32"]


@pytest.mark.parametrize("size", ["8", "16"])
def test_sub_group_kernel_from_source_and_spirv(host, env, tmp_path, size):
    cl = tmp_path / "sg.cl"
    cl.write_text(KERNEL)
    spv = tmp_path / "sg.spv"
    assert run_sgvm("compile", str(cl), "-o", str(spv), env=env).returncode == 0
    env = dict(env, SGVM_SUB_GROUP_SIZE=size)
    out = subprocess.run([str(host), "run", str(spv)], env=env, capture_output=True, text=True, timeout=300)
    # host.c compares every element with the sub-group reversal computed on the host
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines() == [f"source: sub-group size {size}, ok", f"SPIR-V: sub-group size {size}, ok"]


def test_exec_check_reports_an_out_of_bounds_write(host, env):
    out = run_sgvm("exec", "--check", "--", str(host), "oob", env=env)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "<kernel>:3:18:" in out.stderr  # out[gid + 1] = gid; in host.c's OOB_SOURCE
    assert "[out-of-bounds] out-of-bounds store of 4 bytes at byte offset 256 of argument #0 'out'" in out.stderr
    assert out.stderr.count("kernel 'past_the_end'") == 1  # one report, at the end


def test_exec_check_portability_reports_the_sub_group_size_dependence(host, env, tmp_path):
    """sg_reverse reverses each sub-group and adds 1000 * its id: right at every size (host.c
    says "ok"), but its output differs from one legal sub-group size to the next."""
    spv = tmp_path / "sg.spv"
    (tmp_path / "sg.cl").write_text(KERNEL)
    assert run_sgvm("compile", str(tmp_path / "sg.cl"), "-o", str(spv), env=env).returncode == 0
    out = run_sgvm("exec", "--check=portability", "--", str(host), "run", str(spv), env=env)
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stdout.splitlines() == ["source: sub-group size 16, ok", "SPIR-V: sub-group size 16, ok"]
    assert out.stderr.count("error: [sub-group-size] the outputs depend on the sub-group size") == 2
    # KERNEL's lines 3, 4 and 5 (the SPIR-V program has no source lines)
    assert ("depends on get_max_sub_group_size() at <kernel>:3; depends on get_sub_group_local_id() at "
            "<kernel>:4; depends on get_sub_group_id() at <kernel>:5") in out.stderr
    assert "sub-group-size 8: 'out': 64 of 64 elements differ; first: [0] 108 vs 52" in out.stderr
    assert "2 portability findings: 2 error(s)" in out.stderr


def test_an_unchecked_fault_is_told_and_returned_as_an_error(host, env):
    out = subprocess.run([str(host), "oob"], env=env, capture_output=True, text=True, timeout=120)
    assert "launch status -5" in out.stdout  # CL_OUT_OF_RESOURCES
    assert "KernelMemoryError" in out.stderr


def _system_loader() -> Path | None:
    import ctypes.util

    name = ctypes.util.find_library("OpenCL")
    if name is None:
        return None
    for folder in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"):
        if (Path(folder) / name).exists():
            return Path(folder) / name
    return None


@pytest.mark.skipif(_system_loader() is None, reason="no system ICD loader (apt-get install ocl-icd-libopencl1)")
def test_the_system_loader_under_sgvm_exec(tmp_path, icd_env):
    exe = tmp_path / "host"
    subprocess.run([sys.executable, "-m", "ziglang", "cc", "-O1", str(HERE / "host.c"), str(_system_loader()),
                    "-o", str(exe)], check=True, capture_output=True)
    env = {k: v for k, v in icd_env.items() if k != "SGVM_DEVICE"}  # the default device first
    out = run_sgvm("exec", "--", str(exe), "list", env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[:2] == ["platform: sgvm", "device: sgvm native"]
