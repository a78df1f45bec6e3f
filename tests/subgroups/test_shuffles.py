"""Intel shuffles for every type and vector width, sub-group sizes 8/16/32, partial
sub-groups and per-lane (non-uniform) indices, against a per-lane loop that reads
cl_intel_subgroups' index rules literally; hypothesis draws the indices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .helpers import build, run, sub_groups

SCALARS = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
           "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
           "half": np.float16, "float": np.float32, "double": np.float64}
VECTOR_BASES = ("char", "short", "int", "float")
WIDTHS = (2, 3, 4, 8, 16)
TYPES = [(t, 1) for t in SCALARS] + [(t, w) for t in VECTOR_BASES for w in WIDTHS]
SIZES = (8, 16, 32)


def _name(t: str, w: int) -> str:
    return t if w == 1 else f"{t}{w}"


def _kernel(t: str, w: int, S: int) -> str:
    T = _name(t, w)
    load = "a[i]" if w == 1 else f"vload{w}(i, a)"
    loadb = "b[i]" if w == 1 else f"vload{w}(i, b)"
    store = (lambda k, e: f"o[{k} * n + i] = {e};") if w == 1 else \
        (lambda k, e: f"vstore{w}({e}, {k} * n + i, o);")
    return (f"__attribute__((intel_reqd_sub_group_size({S})))\n"
            f"kernel void shf_{T}_{S}(global const {t}* a, global const {t}* b, global {t}* o,\n"
            f"                     global const uint* idx) {{\n"
            f"  size_t i = get_global_id(0), n = get_global_size(0);\n"
            f"  {T} x = {load}, y = {loadb};\n  uint k = idx[i];\n"
            f"  {store(0, 'intel_sub_group_shuffle(x, k)')}\n"
            f"  {store(1, 'intel_sub_group_shuffle_down(x, y, k)')}\n"
            f"  {store(2, 'intel_sub_group_shuffle_up(x, y, k)')}\n"
            f"  {store(3, 'intel_sub_group_shuffle_xor(x, k)')}\n}}\n")


UNIFORM = "".join(
    f"__attribute__((intel_reqd_sub_group_size({S})))\n"
    f"kernel void shfu_{S}(global const int* a, global const int* b, global int* o, uint k) {{\n"
    "  size_t i = get_global_id(0), n = get_global_size(0);\n  int x = a[i], y = b[i];\n"
    "  o[i] = intel_sub_group_shuffle(x, k);\n"
    "  o[n + i] = intel_sub_group_shuffle_down(x, y, k);\n"
    "  o[2 * n + i] = intel_sub_group_shuffle_up(x, y, k);\n"
    "  o[3 * n + i] = intel_sub_group_shuffle_xor(x, k);\n}\n"
    for S in SIZES)


@pytest.fixture(scope="module")
def module():
    return build("".join(_kernel(t, w, S) for t, w in TYPES for S in SIZES) + UNIFORM)


def expected(a: np.ndarray, b: np.ndarray, idx: np.ndarray, S: int, n: int):
    """Per lane, literally cl_intel_subgroups.txt; None where the result is undefined
    (out of range, or reading a work item that does not exist in a partial sub-group)."""
    out = {op: [None] * n for op in ("shuffle", "down", "up", "xor")}
    for sg in sub_groups((n,), (n,), S):
        size = len(sg)
        for l, gid in enumerate(sg):
            k = int(idx[gid])
            if k < size:  # "value of data for the work item identified by sub_group_local_id"
                out["shuffle"][gid] = a[sg[k]]
            j = l + k  # "sub_group_local_id plus the specified delta"
            if j < S and j < size:  # "less than the max_sub_group_size": current
                out["down"][gid] = a[sg[j]]
            elif S <= j < 2 * S and j - S < size:  # "minus the max_sub_group_size": next
                out["down"][gid] = b[sg[j - S]]
            j = l - k  # "sub_group_local_id minus the specified delta"
            if 0 <= j < size:
                out["up"][gid] = b[sg[j]]
            elif -S <= j < 0 and j + S < size:  # "plus the max_sub_group_size": previous
                out["up"][gid] = a[sg[j + S]]
            j = l ^ k
            if j < size:
                out["xor"][gid] = a[sg[j]]
    return out


def _data(t: str, w: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    dt = np.dtype(SCALARS[t])
    rng = np.random.default_rng(seed)
    shape = (n,) if w == 1 else (n, w)
    if dt.kind == "f":
        return tuple(rng.standard_normal(shape).astype(dt) for _ in range(2))
    return tuple(rng.integers(0, 100, shape).astype(dt) for _ in range(2))


def check(module, t: str, w: int, S: int, n: int, idx: np.ndarray) -> None:
    a, b = _data(t, w, n, seed=n + S)
    T = _name(t, w)
    # shuffle_up reads (previous, current) = (x, y): "current" is y, "previous" is x
    (_, _, o, _), _ = run(module, f"shf_{T}_{S}", [a, b, np.zeros((4,) + a.shape, a.dtype), idx],
                          (n,), (n,))
    ref = expected(a, b, idx, S, n)
    for k, op in enumerate(("shuffle", "down", "up", "xor")):
        for gid in range(n):
            if ref[op][gid] is not None:
                np.testing.assert_array_equal(o[k][gid], ref[op][gid], err_msg=f"{op} lane {gid}")


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("t,w", TYPES, ids=[_name(t, w) for t, w in TYPES])
def test_shuffles(module, t, w, S):
    n = 2 * S + S // 2 + 1  # two full sub-groups and a partial one
    idx = np.random.default_rng(S).integers(0, 2 * S, n).astype(np.uint32)
    check(module, t, w, S, n, idx)


@settings(max_examples=25, deadline=None)
@given(S=st.sampled_from(SIZES), data=st.data())
def test_shuffle_index_rules(module, S, data):
    n = data.draw(st.integers(1, 3 * S), label="work-group size")
    idx = np.array(data.draw(st.lists(st.integers(0, 2 * S - 1), min_size=n, max_size=n)),
                   np.uint32)
    check(module, "int", 1, S, n, idx)


def test_shuffle_in_divergent_code():
    """A shuffle inside an ``if`` only odd lanes take: they read among themselves."""
    m = build(r"""
__attribute__((intel_reqd_sub_group_size(16)))
kernel void odd(global const int* a, global int* o) {
  uint l = get_sub_group_local_id();
  int v = a[get_global_id(0)];
  o[get_global_id(0)] = -1;
  if (l & 1) o[get_global_id(0)] = intel_sub_group_shuffle(v, l ^ 2u) + sub_group_reduce_add(v);
}
""")
    a = np.arange(32, dtype=np.int32) * 10
    (_, o), _ = run(m, "odd", [a, np.zeros(32, np.int32)], (32,), (32,))
    for g in (0, 16):
        odd_sum = a[g + 1:g + 16:2].sum()  # the reduction sees only the lanes that reached it
        for l in range(16):
            assert o[g + l] == (-1 if l % 2 == 0 else a[g + (l ^ 2)] + odd_sum)


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("k", [0, 3, 7, 8, 13, 40])
def test_uniform_index_shuffles(module, S, k):
    """A uniform index / delta / mask (one source for all sub-groups)."""
    n = 3 * S - 2
    a, b = _data("int", 1, n, seed=k)
    (_, _, o), _ = run(module, f"shfu_{S}", [a, b, np.zeros((4, n), np.int32), np.uint32(k)],
                       (n,), (n,))
    ref = expected(a, b, np.full(n, k, np.uint32), S, n)
    for j, op in enumerate(("shuffle", "down", "up", "xor")):
        for gid in range(n):
            if ref[op][gid] is not None:
                assert o[j][gid] == ref[op][gid], (op, gid)
