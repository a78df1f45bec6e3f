"""Lanes that return from a kernel while the rest of their sub-group runs on.

The CUDA backend ended a returning lane's thread at once, leaving the others' ``*_sync``
masks naming an exited thread; in the program of `sgvm fuzz` seeds 120-129 (sub-group
sizes 8/16/32, no khr) that stopped an H200 with an illegal instruction at seed 127,
sub-group size 8 (the same kernel built alone ran). Returned lanes now leave ``sg_in`` in
a scheduler round before they exit (render_sched). The GPU run (``gpu``) is skipped
without CuPy and a GPU and compares with the NumPy engine; the renderer check runs
everywhere.
"""

from __future__ import annotations

import functools

import pytest

import sgvm
from sgvm.engine.cuda.render import Renderer
from sgvm.engine.cuda.runtime import available
from sgvm.fuzz.backends import SgvmBackend
from sgvm.fuzz.campaign import OPTIONS, compare, kernels_for, launch_of
from sgvm.fuzz.generator import program_source
from sgvm.spirv import read

EARLY_RETURN = """
__attribute__((intel_reqd_sub_group_size(8)))
kernel void early(global const uint *in, global uint *out) {
  uint i = get_global_id(0), x = in[i];
  if (x & 1u) return;
  uint s = 0u;
  for (uint k = 0u; k < (x & 3u) + 1u; k++) s += sub_group_reduce_add(x + k);
  out[i] = s;
}
"""


@functools.cache
def fuzz_program() -> tuple[bytes, list]:
    kernels = kernels_for(range(120, 130), [8, 16, 32], 20, frozenset({"khr"}))
    return sgvm.compile(program_source(kernels), OPTIONS), kernels


def test_returned_lanes_leave_the_sub_group_before_they_exit() -> None:
    src, _ = Renderer(read(sgvm.compile(EARLY_RETURN)), 8).render()
    body = src[src.index("sg_sched:;"):]
    assert "u32 live_ = __ballot_sync(sg_in, sg_pc != SG_EXIT);" in body
    assert body.index("if (sg_pc == SG_EXIT) return;") < body.index("sg_in = live_;")
    # no block ends the thread by itself: every return goes through the scheduler
    blocks = src[:src.index("sg_sched:;")]
    assert "return;" not in blocks[blocks.rindex("__device__"):]


@pytest.mark.gpu
@pytest.mark.skipif(not available(), reason="needs CuPy and an NVIDIA GPU")
def test_fuzz_program_runs_on_the_gpu_as_on_the_cpu() -> None:
    spirv, kernels = fuzz_program()
    launches = [launch_of(k) for k in kernels]
    cpu = SgvmBackend("cpu").run(spirv, launches)
    gpu = SgvmBackend("cuda").run(spirv, launches)
    for k, a, b in zip(kernels, cpu, gpu, strict=True):
        assert a.error is None, a.error
        assert compare(k, a, b) is None, (k.seed, k.launch.sub_group_size, compare(k, a, b))
