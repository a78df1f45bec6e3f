"""Work-group barriers reached by the lanes of one warp on different paths.

The CUDA backend's work-group barriers, votes, broadcasts, reductions and scans were
``__syncthreads()``: PTX ``bar.sync``, which PTX defines as ``barrier.sync.aligned`` --
every thread of a warp must execute the same barrier instruction, converged. The gotos of
a scheduled function leave a warp's lanes diverged (several sub-groups of one warp, each
under its own scheduler; lanes split by a branch), and a warp counted as arrived when its
first lanes did. Fuzz seed 295 at sub-group size 8 (19 work-items, one warp holding three
sub-groups) found it on an H200: two work-items whose own predicate was false read the
``work_group_any`` result before the others had voted and got 0 where the rest of their
group got 1, a silent wrong answer. The barriers are now ``barrier.sync`` (``sg_barrier``),
which from sm_70 on "causes executing thread to wait for all non-exited threads from its
warp" (PTX ISA, barrier). OpenCL C 2.0 s6.13.15: work_group_any "returns a non-zero value
if predicate evaluates to non-zero for any work-item in the work-group". The GPU runs
(``gpu``) skip without CuPy and a GPU; the CPU runs and the renderer check run everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest
from word_kernels import build, run_words

from sgvm.engine.cuda.render import Renderer
from sgvm.engine.cuda.runtime import available
from sgvm.runtime.device import CPU_DEVICE, CUDA_DEVICE

gpu = [pytest.mark.gpu, pytest.mark.skipif(not available(), reason="needs CuPy and an NVIDIA GPU")]
DEVICES = [CPU_DEVICE, pytest.param(CUDA_DEVICE, marks=gpu)]

SPLIT = """
__attribute__((noinline)) uint byte_total(uint x) { return work_group_reduce_add(x & 0xFFu); }
__attribute__((intel_reqd_sub_group_size(8)))
kernel void split_votes(global const uint *in, global uint *out) {
  uint g = get_global_id(0);
  uint x = in[g];
  uint s = 0u;
  for (uint i = 0u; i < (x & 3u) + 1u; i++) s += sub_group_reduce_add(i + 1u);
  uint any = work_group_any((x & 7u) == 0u) ? 1u : 0u;
  uint all = work_group_all((x & 7u) != 0u) ? 1u : 0u;
  uint sum = byte_total(x);
  out[3u * g] = s;
  out[3u * g + 1u] = any * 2u + all;
  out[3u * g + 2u] = sum;
}
"""
# The fuzz kernel as generated (sgvm.fuzz.generator, seed 295, sub-group size 8, no khr).
FUZZ = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
static inline uint mix(uint h, uint x) { return (h ^ x) * 16777619u + 0x9e3779b9u; }
__attribute__((intel_reqd_sub_group_size(8)))
kernel void k295_8(global const uint *in, global uint *out, global uint *blk) {
  local uint lm[128];
  const uint o = (uint)get_global_id(0) * 16u;
  const uint sgr = ((uint)get_group_id(0) * get_num_sub_groups() + get_sub_group_id()) * 2048u;
  uint acc0 = 0u, acc1 = 0u;
  lm[get_local_id(0)] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint v1 = in[get_global_id(0)];
  uint v2 = in[get_group_id(0) + 7u];
  out[o + 0u] = v2;
  uint v3 = (work_group_any((v1 & 7u) != 0u) != 0) ? 1u : 0u;
  for (uint i4 = 0u; i4 < (v3 & 3u) + 2u; i4++) {
    uint v5 = (sub_group_any((v1 & 1u) != 0u) != 0) ? 1u : 0u;
    if ((v3 & 7u) == 2u) break;
    uint t6 = sub_group_broadcast(v3, v3 % get_sub_group_size());
    uint v7 = (uint)t6;
    if ((v1 & 1u) == 0u) {
      acc0 = mix(acc1, v3);
    } else {
      if ((v3 & 7u) < 5u) {
        uint v8 = popcount(i4) + clz(i4);
        out[o + 1u] = v2;
        uint v9 = v1 & (v7 | 85u);
      }
      out[o + 2u] = i4;
      if ((v2 & 7u) != 4u) {
        uint v10 = in[i4 & 4095u];
        uint v11 = in[v7 & 4095u];
      }
    }
  }
  if ((v2 & 7u) < 4u) {
    acc0 = mix(acc1, v2);
    char8 t12 = intel_sub_group_shuffle((char8)(as_char((uchar)(v2 ^ 0u)), as_char((uchar)(v2 ^ 754u)), as_char((uchar)(v2 ^ 1508u)), as_char((uchar)(v2 ^ 2262u)), as_char((uchar)(v2 ^ 3016u)), as_char((uchar)(v2 ^ 3770u)), as_char((uchar)(v2 ^ 4524u)), as_char((uchar)(v2 ^ 5278u))), v3 % get_sub_group_size());
    uint v13 = mix(mix(mix(mix(mix(mix(mix((uint)t12.s0, (uint)t12.s1), (uint)t12.s2), (uint)t12.s3), (uint)t12.s4), (uint)t12.s5), (uint)t12.s6), (uint)t12.s7);
    uint v14 = v1 >> ((v2 & 15u) + (v2 >> 28));
    uint t15 = work_group_scan_inclusive_min(v13);
    uint v16 = (uint)t15;
  }
  out[o + 14u] = acc0;
  out[o + 15u] = acc1;
}

"""
L, SG = 19, 8


def _run(source: str, kernel: str, arrays: list[np.ndarray], groups: int, device) -> list:
    return run_words(source, kernel, arrays, groups, L, device)


def _split_expected(x: np.ndarray, groups: int) -> np.ndarray:
    """By hand. In iteration i the lanes of a sub-group still looping are those whose trip
    count (x & 3) + 1 exceeds i; each adds (i + 1) times their number."""
    out = np.empty(3 * x.size, np.uint32)
    for g in range(groups):
        xs = x[g * L:(g + 1) * L]
        trips = (xs & 3) + 1
        for lid in range(L):
            first = lid // SG * SG
            members = trips[first:min(first + SG, L)]
            s = sum((i + 1) * int(np.sum(members > i)) for i in range(trips[lid]))
            k = 3 * (g * L + lid)
            out[k] = s
            out[k + 1] = 2 * int(np.any(xs & 7 == 0)) + int(np.all(xs & 7 != 0))
            out[k + 2] = int(np.sum(xs & 0xFF))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_votes_after_sub_groups_split(device) -> None:
    groups = 8
    rng = np.random.default_rng(295)
    x = rng.integers(0, 2**32, groups * L, dtype=np.uint32)
    x[: 2 * L] |= 1  # no predicate (x & 7) == 0 holds in groups 0 and 1: any 0, all 1
    x[2 * L + 5] &= 0xFFFFFFF8  # one work-item votes for any in group 2
    x[3 * L:4 * L] &= 0xFFFFFFF8  # all of group 3 votes for any
    got = _run(SPLIT, "split_votes", [x, np.zeros(3 * x.size, np.uint32)], groups, device)[1]
    np.testing.assert_array_equal(got, _split_expected(x, groups))
    assert {int(v) for v in got[1::3]} >= {1, 2}  # the votes differ between groups


@pytest.mark.parametrize("device", DEVICES)
def test_fuzz_kernel_runs_alike(device) -> None:
    """Seed 295's kernel with the fuzz campaign's buffers, against the NumPy engine."""
    rng = np.random.default_rng(295)
    data = rng.integers(0, 2**32, 4096, dtype=np.uint32)
    data[rng.random(4096) < 0.25] &= 0xF
    groups = 3
    arrays = [data, np.full(groups * L * 16, 0xA5A5A5A5, np.uint32),
              np.full(groups * 3 * 512 * 4, 0xA5A5A5A5, np.uint32)]
    want = _run(FUZZ, "k295_8", arrays, groups, CPU_DEVICE)
    got = _run(FUZZ, "k295_8", arrays, groups, device)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(g, w)


def test_work_group_barriers_render_unaligned() -> None:
    for source in (SPLIT, FUZZ):
        src, _ = Renderer(build(source), SG).render()
        assert "__syncthreads(" not in src and "bar.sync 0" not in src
        assert "sg_barrier();" in src and 'asm volatile("barrier.sync 0;"' in src


def test_lanes_reach_work_group_waits_together() -> None:
    """No lane of the split kernel jumps ahead, past the scheduler, into a block that waits
    for the work-group (directly or through the call to byte_total): each such jump is
    taken only when the whole sub-group takes it and no lane waits lower (``sg_wait``)."""
    src, _ = Renderer(build(SPLIT), SG).render()
    kernel = src[src.index("__device__ void f"):]
    assert kernel.count("wg_collective<") == 1 and "wg_vote(" in kernel
    assert "{ goto L" not in kernel  # every jump into a block is guarded
