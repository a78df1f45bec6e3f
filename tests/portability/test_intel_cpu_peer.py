"""The ``intel-cpu`` profiles against Intel's CPU runtime for OpenCL itself (the
``intel-opencl-rt`` wheel, run through PyOpenCL in a child process): the same sub-group
ids, sizes and counts for 2-D and 3-D work-groups, with and without a required size, and
the same sizes accepted. The profile is the one of this host's kind: ``intel-cpu`` where
the runtime chooses sub-groups of 16 (AVX-512), ``intel-cpu-avx2`` where it chooses 8.
Skipped where the runtime or PyOpenCL is not installed."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

import sgvm
import sgvm.cl as cl
from sgvm.runtime.quick import _context

ID_SRC = """kernel void ids(global int *out) {
  size_t i = get_global_id(0) + get_global_id(1) * get_global_size(0)
           + get_global_id(2) * get_global_size(0) * get_global_size(1);
  out[4 * i] = get_sub_group_id(); out[4 * i + 1] = get_sub_group_local_id();
  out[4 * i + 2] = get_num_sub_groups(); out[4 * i + 3] = get_sub_group_size();
}
"""
# (required size or 0, work-group size): the NDRange is one work-group
CASES = [(0, [5, 7]), (0, [8, 6]), (0, [20, 3]), (0, [3, 2, 2]), (0, [64]),
         (4, [5, 7]), (8, [20, 3]), (32, [40, 2]), (64, [70]), (128, [8, 8])]


def _intel_library() -> Path | None:
    lib = Path(sysconfig.get_paths()["data"]) / "lib" / "libintelocl.so"
    return lib if lib.exists() else None


@pytest.fixture(scope="module")
def intel(tmp_path_factory):
    pytest.importorskip("pyopencl")
    lib = _intel_library()
    if lib is None:
        pytest.skip("Intel's CPU runtime (pip install intel-opencl-rt) is not installed")
    d = tmp_path_factory.mktemp("intel")
    (d / "vendors").mkdir()
    (d / "vendors" / "intel.icd").write_text(f"{lib}\n")
    (d / "ids.cl").write_text(ID_SRC)
    env = {"LD_LIBRARY_PATH": str(lib.parent), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("intel_cpu_worker.py")),
                           str(d / "vendors"), str(d / "ids.cl"), json.dumps(CASES)],
                          capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode != 0:
        pytest.skip(f"Intel's CPU runtime did not run here: {proc.stderr.strip()[-300:]}")
    return json.loads(proc.stdout)


def test_profile_matches_intel_cpu_runtime(intel, monkeypatch):
    default = intel[CASES.index((0, [64]))]["ids"][3]  # the runtime's vector width
    profile = {16: "intel-cpu", 8: "intel-cpu-avx2"}.get(default)
    if profile is None:
        pytest.skip(f"Intel's CPU runtime chose sub-groups of {default} on this host; the "
                    "profiles model it where it chooses 16 (AVX-512) or 8 (AVX2)")
    monkeypatch.setenv("SGVM_PROFILE_DEVICE", profile)
    ctx, _ = _context()
    dev = ctx.devices[0]
    for (required, local), theirs in zip(CASES, intel, strict=True):
        attr = f"__attribute__((intel_reqd_sub_group_size({required})))\n" if required else ""
        try:
            prg = cl.Program(ctx, attr + ID_SRC).build("-cl-std=CL3.0")
        except sgvm.BuildError:
            assert theirs is None, f"Intel's CPU runtime builds size {required}, sgvm does not"
            continue
        assert theirs is not None, f"sgvm builds size {required}, Intel's CPU runtime does not"
        out = np.zeros(4 * int(np.prod(local)), np.int32)
        sgvm.run(prg, "ids", tuple(local), tuple(local), out)
        assert out.tolist() == theirs["ids"], (required, local)
        count = cl.Kernel(prg, "ids").get_sub_group_info(
            dev, cl.kernel_sub_group_info.SUB_GROUP_COUNT_FOR_NDRANGE, tuple(local))
        assert count == theirs["count"], (required, local)
