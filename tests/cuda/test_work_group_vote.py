"""work_group_any/all on the GPU after a loop whose body holds a sub-group collective.

The CUDA backend rendered them as ``__syncthreads_or``/``__syncthreads_and`` (PTX
``bar.red``), which needs every warp converged; after the gotos of a scheduled function
ptxas does not reconverge the warp, and the GPU stopped the kernel with an illegal
instruction (the first program of ``sgvm fuzz --seeds 0:100 --backends cpu,cuda``, seed 3
at sub-group size 32, found on an H200). They now take plain barriers (``wg_vote``).
The GPU runs (``gpu``) are skipped without CuPy and a GPU; the CPU run and the renderer
check run everywhere. OpenCL C 2.0 s6.13.15: work_group_all "evaluates predicate for all
work-items in the work-group and returns a non-zero value if predicate evaluates to
non-zero for all work-items in the work-group"; work_group_any "... for any work-item".
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from word_kernels import build, run_words

from sgvm import errors
from sgvm.engine.cuda.render import Renderer
from sgvm.engine.cuda.runtime import available
from sgvm.runtime.device import CPU_DEVICE, CUDA_DEVICE

gpu = [pytest.mark.gpu, pytest.mark.skipif(not available(), reason="needs CuPy and an NVIDIA GPU")]
DEVICES = [CPU_DEVICE, pytest.param(CUDA_DEVICE, marks=gpu)]

VOTE = """
__attribute__((intel_reqd_sub_group_size(32)))
kernel void vote_after_loop(global const uint *in, global uint *out) {
  uint g = get_global_id(0);
  uint x = in[g];
  uint n = work_group_any((in[get_group_id(0) * get_local_size(0)] & 1u) != 0u) ? 3u : 2u;
  uint s = 0u;
  for (uint i = 0u; i < n; i++) s += sub_group_scan_inclusive_add(x + i);
  uint any = work_group_any(s > 0x7FFFFFFFu) ? 1u : 0u;
  uint all = work_group_all(s > 64u) ? 1u : 0u;
  out[g] = s * 4u + any * 2u + all;
}
"""
# The fuzz kernel as generated (sgvm.fuzz.generator, seed 3, sub-group size 32, no khr).
FUZZ = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
static inline uint mix(uint h, uint x) { return (h ^ x) * 16777619u + 0x9e3779b9u; }
__attribute__((intel_reqd_sub_group_size(32)))
kernel void k3_32(global const uint *in, global uint *out, global uint *blk) {
  local uint lm[128];
  const uint o = (uint)get_global_id(0) * 16u;
  const uint sgr = ((uint)get_group_id(0) * get_num_sub_groups() + get_sub_group_id()) * 2048u;
  uint acc0 = 0u, acc1 = 0u;
  lm[get_local_id(0)] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint v1 = in[get_global_id(0)];
  uint v2 = in[get_group_id(0) + 7u];
  uchar t3 = intel_sub_group_scan_exclusive_add((uchar)v2);
  uint v4 = (uint)t3;
  uint v5 = (work_group_any((v2 & 1u) != 0u) != 0) ? 1u : 0u;
  half t6 = work_group_scan_inclusive_min(((half)(float)(v4 & 15u) - (half)8.0f));
  uint v7 = (uint)as_ushort(t6);
  for (uint i8 = 0u; i8 < (v5 & 3u) + 2u; i8++) {
    uint v9 = v7 & (v1 | 1u);
    int t10 = sub_group_scan_inclusive_add(((int)(v9 & 0xFFFFFu) - 0x80000));
    uint v11 = (uint)t10;
  }
  intel_sub_group_block_write8((global uint *)(blk + sgr + 0u), (uint8)((v4 ^ 0u), (v4 ^ 754u), (v4 ^ 1508u), (v4 ^ 2262u), (v4 ^ 3016u), (v4 ^ 3770u), (v4 ^ 4524u), (v4 ^ 5278u)));
  for (uint i12 = 0u; i12 < (v5 & 3u) + 1u; i12++) {
    ulong t13 = sub_group_scan_inclusive_add(((ulong)v5 * 0x9E3779B97F4A7C15UL));
    uint v14 = (uint)((ulong)t13 ^ ((ulong)t13 >> 32));
    acc0 = mix(acc0, v2);
  }
  lm[get_local_id(0)] = v1;
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  uint v15 = lm[get_sub_group_id() * get_max_sub_group_size() + v2 % get_sub_group_size()];
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  half t16 = intel_sub_group_shuffle_down(((half)(float)(v4 & 15u) - (half)8.0f), ((half)(float)(v4 & 15u) - (half)8.0f), v7 % 33u);
  uint v17 = (uint)as_ushort(t16);
  uint t18 = sub_group_broadcast(v4, v2 % get_sub_group_size());
  uint v19 = (uint)t18;
  long t20 = intel_sub_group_shuffle_down(as_long((ulong)v15 * 0x9E3779B97F4A7C15UL), as_long((ulong)v1 * 0x9E3779B97F4A7C15UL), v4 % 33u);
  uint v21 = (uint)((ulong)t20 ^ ((ulong)t20 >> 32));
  uint v22 = (work_group_any((v19 & 7u) != 0u) != 0) ? 1u : 0u;
  uint v23 = (uint)get_local_id(0);
  uint v24 = rotate(v17, ((v7 & 15u) + (v7 >> 28)));
  ushort t25 = intel_sub_group_block_read_us((const global ushort *)(in + (v19 & 127u) * 16u));
  uint v26 = (uint)t25;
  char t27 = intel_sub_group_scan_exclusive_max(as_char((uchar)v7));
  uint v28 = (uint)t27;
  lm[get_local_id(0)] = v21;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint v29 = lm[v28 % get_local_size(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[o + 14u] = acc0;
  out[o + 15u] = acc1;
}
"""
L = 128


def _run(source: str, kernel: str, arrays: list[np.ndarray], groups: int, device) -> list:
    return run_words(source, kernel, arrays, groups, L, device)


def _vote_expected(x: np.ndarray, groups: int) -> np.ndarray:
    """By hand: the scan of x + i over each sub-group of 32 is cumsum(x) + (lane + 1) * i."""
    out = np.empty_like(x)
    for g in range(groups):
        xs = x[g * L:(g + 1) * L].astype(np.uint64)
        n = 3 if xs[0] & 1 else 2
        lane = np.arange(L) % 32
        cums = np.concatenate([np.cumsum(xs[k:k + 32]) for k in range(0, L, 32)])
        s = (n * cums + (lane + 1).astype(np.uint64) * (n * (n - 1) // 2)) & 0xFFFFFFFF
        any_ = int(np.any(s > 0x7FFFFFFF))
        all_ = int(np.all(s > 64))
        out[g * L:(g + 1) * L] = (s * 4 + any_ * 2 + all_) & 0xFFFFFFFF
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_votes_after_a_loop_of_scans(device) -> None:
    groups = 6
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2**32, groups * L, dtype=np.uint32)
    x[L:3 * L] &= 0xF  # small values: some groups' predicates hold nowhere
    x[0] |= 1
    x[L] &= 0xFFFFFFFE  # both trip counts
    got = _run(VOTE, "vote_after_loop", [x, np.zeros_like(x)], groups, device)[1]
    np.testing.assert_array_equal(got, _vote_expected(x, groups))
    assert {int(v) & 3 for v in got} == {0, 3}  # the votes differ between groups


@pytest.mark.parametrize("device", DEVICES)
def test_fuzz_kernel_runs_alike(device) -> None:
    """The kernel that stopped the GPU, against the NumPy engine."""
    rng = np.random.default_rng(3)
    data = rng.integers(0, 2**32, 4096, dtype=np.uint32)
    data[rng.random(4096) < 0.25] &= 0xF
    arrays = [data, np.full(L * 16, 0xDEADBEEF, np.uint32),
              np.full(4 * 2048 * 8, 0xDEADBEEF, np.uint32)]
    want = _run(FUZZ, "k3_32", arrays, 1, CPU_DEVICE)
    got = _run(FUZZ, "k3_32", arrays, 1, device)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(g, w)


def test_votes_render_without_bar_red() -> None:
    for source in (VOTE, FUZZ):
        src, _ = Renderer(build(source), 32).render()
        assert "__syncthreads_or" not in src and "__syncthreads_and" not in src
        assert "wg_vote(" in src[src.index("wg_vote(") + 1:]  # called, not only defined


@pytest.mark.skipif(importlib.util.find_spec("cupy") is None, reason="needs CuPy")
def test_cuda_errors_become_cl_errors() -> None:
    import cupy

    from sgvm.engine.cuda.failures import cuda_failure

    err = cuda_failure(cupy.cuda.driver.CUDADriverError(715), "running kernel 'k'")
    assert isinstance(err, errors.RuntimeError) and err.code == -5  # CL_OUT_OF_RESOURCES
    assert "ILLEGAL_INSTRUCTION" in str(err) and "running kernel 'k'" in str(err)
    assert cuda_failure(ValueError("not CUDA's"), "x") is None


@pytest.mark.gpu
@pytest.mark.skipif(not available(), reason="needs CuPy and an NVIDIA GPU")
def test_a_failed_launch_raises_a_cl_error(monkeypatch) -> None:
    """What the fuzz kernel raised before: CuPy's CUDADriverError out of the launch."""
    import cupy

    from sgvm.engine.cuda.backend import BACKEND

    def stopped(*args, **kw):
        raise cupy.cuda.driver.CUDADriverError(715)

    monkeypatch.setattr(BACKEND, "_launch_cuda", stopped)
    x = np.zeros(L, np.uint32)
    with pytest.raises(errors.RuntimeError, match="vote_after_loop.*ILLEGAL_INSTRUCTION"):
        _run(VOTE, "vote_after_loop", [x, x], 1, CUDA_DEVICE)
