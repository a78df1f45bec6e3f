"""Work-groups that run together as one unit of lanes (docs/native.md, "Work-groups
together"): a kernel without local memory, work-group barriers, work-group collectives or
atomics runs several consecutive work-groups of dimension 0 in one lock-step unit. Every
built-in a work-item reads is its own work-group's (computed here from the NDRange with
NumPy; kernels reading their local or group ids run one work-group at a time), sub-group collectives stay within one work-group's sub-groups, a loop with a
shuffle inside gives the GEMM's result, and a fault names its own work-item. Run on both
backends by the differential suite; which launches group their work-groups is checked on
the native backend's own records."""

import numpy as np
import pytest

from sgvm import KernelMemoryError
from sgvm.engine.native import backend as native_backend
from sgvm.engine.native import regions

from .helpers import assert_native, build, run, sub_groups, total

SOURCE = r"""
#define REQ __attribute__((intel_reqd_sub_group_size(SG)))

REQ kernel void ids(global uint *out) {
  size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);
  global uint *o = out + 8 * i;
  o[0] = get_global_id(0); o[1] = get_global_id(1); o[2] = get_global_linear_id();
  o[3] = get_sub_group_id(); o[4] = get_sub_group_local_id(); o[5] = get_num_sub_groups();
  o[6] = get_sub_group_size();
  o[7] = sub_group_reduce_add((uint)get_global_id(0))
         + 1000u * intel_sub_group_shuffle((uint)get_global_id(1), SG - 1);
}

REQ kernel void own_ids(global uint *out) {
  size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);
  out[3 * i] = get_local_id(0); out[3 * i + 1] = get_group_id(0);
  out[3 * i + 2] = get_local_linear_id();
}

REQ kernel void gemm(global const float *A, global const float *B, global float *C, int K) {
  int col = get_global_id(0), row = get_global_id(1), N = get_global_size(0);
  int lane = get_sub_group_local_id();
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += SG) {
    float a = A[row * K + k0 + lane];
    for (int j = 0; j < SG; j++) acc += intel_sub_group_shuffle(a, j) * B[(k0 + j) * N + col];
  }
  C[row * N + col] = acc;
}

REQ kernel void store(global int *out) {
  out[get_global_id(0)] = (int)get_sub_group_id();
}

REQ kernel void with_local(global uint *out) {
  local uint t[64];
  uint l = get_local_id(0);
  t[l] = (uint)get_global_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = t[get_local_size(0) - 1 - l];
}
"""

S = 8
# (global size, local size) of launches whose work-groups run together: work-groups of one
# row (the unit is one row of their lanes), of two rows, and of one sub-group
SHAPES = {"rows": ((64, 3), (16, 1)), "planes": ((32, 4), (8, 2)), "one": ((48, 2), (8, 1)),
          "wide": ((1024, 2), (256, 1))}  # a bundle each: together, as a kernel of one block


@pytest.fixture(scope="module")
def module():
    return build(SOURCE, f"-cl-std=CL2.0 -DSG={S}")


def _grouped(module, kernel: str, gs, ls) -> int:
    """How many work-groups the native backend runs together for this launch."""
    _, kernels = native_backend.compiled(module, S, True)
    info = kernels[kernel]
    lanes = regions.STRAIGHT if info.straight else regions.BUNDLE
    return regions.groups(ls, gs, S, lanes) if info.groupable else 1


def test_how_many_run_together():
    assert regions.groups((16, 1), (64, 3), 8) == 4  # 64 lanes: all four of a row
    assert regions.groups((16, 1), (768, 192), 16) == 16  # the benchmark's GEMM: 256 lanes
    assert regions.groups((16, 1), (48 * 16, 1), 16) == 16
    assert regions.groups((16, 1), (7 * 16, 1), 16) == 7  # 7 groups across: a divisor of 7
    assert regions.groups((256,), (1024,), 16) == 1  # a bundle already
    assert regions.groups((12,), (96,), 8) == 1  # a partial sub-group in each
    assert regions.groups((16,), (100,), 8) == 1  # a non-uniform last work-group
    assert regions.groups((256,), (1 << 22,), 16, regions.STRAIGHT) == 8  # one block: 2048


@pytest.mark.parametrize("shape", list(SHAPES))
def test_each_work_item_sees_its_own_group(module, shape, backend):
    gs, ls = SHAPES[shape]
    n = total(gs)
    (out,), _ = run(module, "ids", [np.zeros(8 * n, np.uint32)], gs, ls)
    assert_native(module, "ids")
    if backend == "native":
        assert _grouped(module, "ids", gs, ls) > 1
        assert native_backend.compiled(module, S, True)[1]["ids"].straight
    got = out.reshape(gs[1], gs[0], 8)
    y, x = np.mgrid[0:gs[1], 0:gs[0]]
    linear = x % ls[0] + y % ls[1] * ls[0]
    want = [x, y, x + y * gs[0], linear // S, linear % S,
            np.full_like(x, ls[0] * ls[1] // S), np.full_like(x, S)]
    for k, w in enumerate(want):
        np.testing.assert_array_equal(got[..., k], w, err_msg=f"built-in {k}")
    for ids in sub_groups(gs, ls, S):
        flat = got.reshape(-1, 8)[ids]
        np.testing.assert_array_equal(flat[:, 7], flat[:, 0].sum() + 1000 * flat[-1, 1])


def test_own_ids_keep_groups_apart(module, backend):
    """A kernel reading its local or group id runs one work-group at a time."""
    gs, ls = SHAPES["rows"]
    (out,), _ = run(module, "own_ids", [np.zeros(3 * total(gs), np.uint32)], gs, ls)
    assert_native(module, "own_ids")
    if backend == "native":
        assert _grouped(module, "own_ids", gs, ls) == 1
    x = np.tile(np.arange(gs[0]), gs[1])
    np.testing.assert_array_equal(out.reshape(-1, 3), np.stack([x % 16, x // 16, x % 16], 1))


@pytest.mark.parametrize("rows", [1, 2])
def test_shuffle_gemm_in_a_loop(module, rows, backend):
    M, N, K = 6, 6 * S, 4 * S
    rng = np.random.default_rng(rows)
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    (_, _, C), _ = run(module, "gemm", [A, B, np.zeros((M, N), np.float32), np.int32(K)],
                       (N, M), (S, rows))
    assert_native(module, "gemm")
    if backend == "native":
        assert _grouped(module, "gemm", (N, M), (S, rows)) == 6
    np.testing.assert_allclose(C, A.astype(np.float64) @ B, rtol=1e-4, atol=1e-4)


def test_fault_names_its_work_item(module, backend, monkeypatch):
    """The buffer ends at element 40: work-items 40 to 63 store past it, the first in the
    third work-group of the unit of four (on the native backend, its own record: no re-run
    on the NumPy engine)."""
    if backend == "native":
        monkeypatch.setattr(native_backend, "_explain", lambda request: None)
        assert _grouped(module, "store", (64,), (16,)) == 4
    with pytest.raises(KernelMemoryError, match=r"store .*byte offset 160 .*global id \(40,\)"):
        run(module, "store", [np.zeros(40, np.int32)], (64,), (16,))
    (out,), _ = run(module, "store", [np.zeros(64, np.int32)], (64,), (16,))
    np.testing.assert_array_equal(out, np.arange(64) % 16 // S)


def test_local_memory_keeps_groups_apart(module, backend):
    (out,), _ = run(module, "with_local", [np.zeros(64, np.uint32)], (64,), (16,))
    assert_native(module, "with_local")
    if backend == "native":
        assert _grouped(module, "with_local", (64,), (16,)) == 1
    i = np.arange(64)
    np.testing.assert_array_equal(out, i // 16 * 16 + 15 - i % 16)
