"""Pointers: generic address space, pointer differences and comparisons, local
memory through generic pointers, program-scope globals and constant tables."""

import numpy as np
import pytest

from sgvm.engine.native import backend as native_backend

from .harness import OPTS, Local, build, run

SRC = r"""
constant float weights[4] = {0.5f, 1.5f, 2.5f, 3.5f};
global int counter = 5;

int sum3(int* p) { return p[0] + p[1] + p[2]; }

kernel void ptrs(global int* a, local int* scratch, global long* out) {
  int i = get_global_id(0), l = get_local_id(0);
  scratch[l] = a[i] * 2;
  barrier(CLK_LOCAL_MEM_FENCE);
  int* g = (l & 1) ? (int*)&scratch[l] : (int*)&a[i];
  int* h = (l & 1) ? (int*)&scratch[0] : (int*)&a[i - l];
  out[i * 4 + 0] = (l + 3 < get_local_size(0)) ? sum3(g) : *g;
  out[i * 4 + 1] = g - h;
  out[i * 4 + 2] = (long)(weights[i & 3] * 2.0f) + (to_local(g) != 0) * 100;
  out[i * 4 + 3] = counter + (g == h);
}
"""


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


def test_generic_pointers(module):
    n, ls = 64, 16
    a = np.arange(n, dtype=np.int32) * 3 + 1
    (a_out, out), _ = run(module, "ptrs", [a, Local(ls * 4), np.zeros(n * 4, np.int64)], n, ls)
    out = out.reshape(n, 4)
    i = np.arange(n)
    l = i % ls
    scratch = a * 2
    src = np.where(l & 1, scratch, a)
    s3 = np.array([src[k] + (scratch if l[k] & 1 else a)[k + 1] + (scratch if l[k] & 1 else a)[k + 2]
                   if l[k] + 3 < ls else src[k] for k in range(n)])
    np.testing.assert_array_equal(out[:, 0], s3)
    np.testing.assert_array_equal(out[:, 1], l)
    np.testing.assert_array_equal(out[:, 2], (np.array([0.5, 1.5, 2.5, 3.5])[i & 3] * 2).astype(int)
                                  + (l & 1) * 100)
    np.testing.assert_array_equal(out[:, 3], 5 + (l == 0))


# Addresses through integers: OpConvertPtrToU / OpConvertUToPtr on program-scope
# constants and globals, local variables and private arrays. clang folds
# `(ulong)table` into a module-scope OpSpecConstantOp ConvertPtrToU.
INT_SRC = r"""
constant int tbl[8] = {1, 2, 3, 4, 5, 6, 7, 8};
global int gtab[4] = {10, 20, 30, 40};
global int *gptr = gtab;

kernel void via_ulong(global int *out, int z) {
  int i = get_global_id(0), l = get_local_id(0);
  local int sc[16];
  sc[l] = i * 3;
  barrier(CLK_LOCAL_MEM_FENCE);
  int pr[4] = {i, i + 1, i + 2, i + 3};
  global int *c = (global int *)((ulong)tbl + z);
  global int *g = (global int *)((ulong)gtab + z);
  local int *s = (local int *)((ulong)sc + z);
  int *p = (int *)((ulong)pr + z);
  out[i * 5 + 0] = c[i & 3];
  out[i * 5 + 1] = g[i & 1];
  out[i * 5 + 2] = s[l & 7];
  out[i * 5 + 3] = p[i & 1];
  out[i * 5 + 4] = *gptr + (int)((ulong)gptr - (ulong)gtab);
}

kernel void store_via_ulong(int z) {
  global int *g = (global int *)((ulong)gtab + z);
  g[get_global_id(0)] = (int)get_global_id(0) + 100;
}
"""


@pytest.mark.parametrize("opts", OPTS)
def test_pointer_integer_round_trip(opts):
    module = build(INT_SRC, opts)
    n, ls, z = 64, 16, 4
    (out,), _ = run(module, "via_ulong", [np.zeros(n * 5, np.int32), np.int32(z)], n, ls)
    out = out.reshape(n, 5)
    i = np.arange(n)
    l = i % ls
    tbl, gtab = np.arange(1, 9), np.array([10, 20, 30, 40])
    np.testing.assert_array_equal(out[:, 0], tbl[1 + (i & 3)])
    np.testing.assert_array_equal(out[:, 1], gtab[1 + (i & 1)])
    np.testing.assert_array_equal(out[:, 2], ((i - l) + 1 + (l & 7)) * 3)
    np.testing.assert_array_equal(out[:, 3], i + 1 + (i & 1))
    np.testing.assert_array_equal(out[:, 4], 10)


@pytest.mark.parametrize("opts", OPTS)
def test_store_through_integer_address(opts):
    module = build(INT_SRC, opts + " -DOWN_GLOBALS")  # a module of its own: gtab changes
    run(module, "store_via_ulong", [np.int32(4)], 3, 3)
    (out,), _ = run(module, "via_ulong", [np.zeros(16 * 5, np.int32), np.int32(0)], 16, 16)
    np.testing.assert_array_equal(out.reshape(16, 5)[:2, 1], [10, 100])
    np.testing.assert_array_equal(out.reshape(16, 5)[:, 4], 10)


ADDRESS_ONLY = r"""
global int gtab[4] = {10, 20, 30, 40};
global ulong addr = (ulong)gtab;
kernel void k(global int *out) { int i = get_global_id(0); out[i] = *(global int *)addr + i; }
"""


def test_an_address_held_as_ulong_by_a_program_scope_variable(backend):
    """Its initializer puts an address in the NumPy engine's storage (a tagged pointer),
    which both backends share: native code read it as a host address and raised a false
    KernelMemoryError (with checks off it would have crashed); it runs on the NumPy engine."""
    module = build(ADDRESS_ONLY, "-cl-std=CL2.0")
    (out,), _ = run(module, "k", [np.zeros(4, np.int32)], 4, 2)
    np.testing.assert_array_equal(out, [10, 11, 12, 13])
    if backend == "native":
        assert "addresses" in native_backend.fallback_reason(module, "k")


# Program-scope variables initialised with addresses inside aggregates: a struct member,
# array elements (clang folds `gtab + 1` into a byte-offset access chain on the global)
# and addresses stored as ulong.
AGG_SRC = r"""
global int gtab[4] = {10, 20, 30, 40};
constant int ctab[3] = {7, 8, 9};
typedef struct { global int *p; int n; constant int *c; } S;
global S sinit = { gtab + 1, 3, ctab + 2 };
global int *ptrs[3] = { gtab, gtab + 3, 0 };
global ulong addr[2] = { (ulong)gtab, (ulong)ctab };

kernel void aggregates(global int *out) {
  int i = get_global_id(0);
  out[i * 6 + 0] = sinit.p[i & 1] + sinit.n;
  out[i * 6 + 1] = *sinit.c;
  out[i * 6 + 2] = *ptrs[0] + *ptrs[1];
  out[i * 6 + 3] = ptrs[2] == 0;
  out[i * 6 + 4] = *(constant int *)addr[1];
  out[i * 6 + 5] = *(global int *)addr[0];
}
"""


@pytest.mark.parametrize("opts", OPTS)
def test_pointers_inside_initialised_aggregates(opts):
    module = build(AGG_SRC, opts)
    (out,), _ = run(module, "aggregates", [np.zeros(4 * 6, np.int32)], 4, 2)
    i = np.arange(4)
    want = np.stack([np.where(i & 1, 30, 20) + 3, np.full(4, 9), np.full(4, 50), np.ones(4, int),
                     np.full(4, 7), np.full(4, 10)], axis=1)
    np.testing.assert_array_equal(out.reshape(4, 6), want)


def test_a_pointer_stored_in_private_memory_writes_nothing_another_lane_sees():
    """At -O0 clang keeps each argument in a private variable. Storing a pointer there
    writes private memory only (segmentation.memory: the value stored is not the place
    written), so the entry block's stores share one lane loop; each ended a segment before,
    a loop per store."""
    from sgvm.engine.native.render import Renderer

    m = build("kernel void keep(global const int *a, global int *b, int n)"
              " { b[get_global_id(0)] = a[get_global_id(0)] + n; }",
              "-cl-std=CL2.0 -cl-opt-disable")
    r = Renderer(m, 16)
    r.render()
    first = r.segments[0][0]
    assert sum(i.opname == "OpStore" for i in first.insts) == 3 and not first.writes
