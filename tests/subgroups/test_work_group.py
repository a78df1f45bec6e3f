"""Work-group functions (OpenCL C 2.0 s6.13.15) over full, 2D/3D and non-uniform
work-groups, the sub-group queries and built-in variables, the sub-group size
selection, and sub_group_barrier / memory_scope_sub_group atomics."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm
from sgvm.compiler import parse_options

from .helpers import GID, SHAPES, SIZES, build, run, sub_groups, total, work_groups

WG_TYPES = {"int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
            "float": np.float32, "double": np.float64}
WG_OPS = ["reduce_add", "reduce_min", "reduce_max", "scan_inclusive_add", "scan_inclusive_max",
          "scan_exclusive_add", "scan_exclusive_min"]
NW = len(WG_OPS) + 3


def _wg_kernel(t: str) -> str:
    body = "".join(f"  o[{k}] = work_group_{op}(v);\n" for k, op in enumerate(WG_OPS))
    k = len(WG_OPS)
    return (f"kernel void wg_{t}(global const {t}* x, global {t}* out, global const ulong* id) {{\n"
            f"  size_t i = {GID};\n  {t} v = x[i];\n  global {t}* o = out + i * {NW};\n{body}"
            f"  o[{k}] = work_group_broadcast(v, id[0]);\n"
            f"  o[{k + 1}] = work_group_broadcast(v, id[0], id[1]);\n"
            f"  o[{k + 2}] = work_group_broadcast(v, id[0], id[1], id[2]);\n}}\n")


QUERIES = "".join(
    f"__attribute__((intel_reqd_sub_group_size({S})))\n"
    f"kernel void queries_{S}(global uint* out) {{\n"
    f"  size_t i = {GID};\n  global uint* o = out + i * 8;\n"
    "  o[0] = get_sub_group_size(); o[1] = get_max_sub_group_size(); o[2] = get_num_sub_groups();\n"
    "  o[3] = get_enqueued_num_sub_groups(); o[4] = get_sub_group_id(); o[5] = get_sub_group_local_id();\n"
    "  o[6] = work_group_all(1); o[7] = work_group_any(get_local_linear_id() == 0);\n}\n"
    for S in SIZES)

MISC = r"""
kernel void default_size(global uint* out) { out[get_global_id(0)] = get_max_sub_group_size(); }

__attribute__((intel_reqd_sub_group_size(8)))
kernel void sg_barrier(global int* x, global int* out) {
  local int tmp[64];
  size_t l = get_local_id(0);
  tmp[l] = x[get_global_id(0)];
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  int nb = tmp[get_sub_group_id() * 8 + ((get_sub_group_local_id() + 1) % get_sub_group_size())];
  sub_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_sub_group);
  atomic_fetch_add_explicit((volatile global atomic_int*)&out[get_sub_group_id()], nb,
                            memory_order_relaxed, memory_scope_sub_group);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_sub_group);
}
"""


@pytest.fixture(scope="module")
def module():
    return build("".join(_wg_kernel(t) for t in WG_TYPES) + QUERIES + MISC)


def _fold(x: np.ndarray, op: str) -> np.ndarray:
    kind, o = op.rsplit("_", 1)
    f = {"add": np.add, "min": np.minimum, "max": np.maximum}[o]
    inc = f.accumulate(x, dtype=x.dtype)
    if kind == "reduce":
        return np.full_like(x, inc[-1])
    if kind == "scan_inclusive":
        return inc
    ident = 0 if o == "add" else (np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).max)
    return np.concatenate(([x.dtype.type(ident)], inc[:-1])).astype(x.dtype)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("t", WG_TYPES)
def test_work_group_functions(module, t, shape):
    gs, ls = SHAPES[shape]
    dt = np.dtype(WG_TYPES[t])
    n = total(gs)
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(n) * 100).astype(dt) if dt.kind == "f" else \
        rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, n, dtype=dt, endpoint=True)
    lid = np.array([1, 1, 1], np.uint64)  # (1,1,1) exists in every work-group of SHAPES but 1d
    dims = len(ls)
    (_, out, _), _ = run(module, f"wg_{t}", [x, np.zeros(n * NW, dt), lid], gs, ls)
    out = out.reshape(n, NW)
    for idx in work_groups(gs, ls):
        for k, op in enumerate(WG_OPS):
            np.testing.assert_array_equal(out[idx, k], _fold(x[idx], op), err_msg=op)
        # the broadcast matching the launch's dimensions: local id (1[, 1[, 1]])
        gx = min(ls[0], len(idx))
        lx = ls[0] if dims == 1 else gx
        ly = ls[1] if dims > 1 else 1
        linear = [1, 1 + lx, 1 + lx + lx * ly][dims - 1]
        if linear < len(idx):
            np.testing.assert_array_equal(out[idx, len(WG_OPS) + dims - 1], x[idx[linear]])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("S", SIZES)
def test_sub_group_queries(module, S, shape):
    gs, ls = SHAPES[shape]
    n = total(gs)
    (out,), _ = run(module, f"queries_{S}", [np.zeros(n * 8, np.uint32)], gs, ls)
    out = out.reshape(n, 8)
    enqueued = -(-int(np.prod(ls)) // S)
    for wg in work_groups(gs, ls):
        count = -(-len(wg) // S)
        for sg in range(count):
            idx = wg[sg * S:(sg + 1) * S]
            expect = [len(idx), S, count, enqueued, sg]
            np.testing.assert_array_equal(out[idx, :5], np.tile(expect, (len(idx), 1)))
            np.testing.assert_array_equal(out[idx, 5], np.arange(len(idx)))
        assert (out[wg, 6] == 1).all() and (out[wg, 7] == 1).all()


def test_sub_group_size_selection(module, monkeypatch):
    """No intel_reqd_sub_group_size: -sgvm-sub-group-size=N, else SGVM_SUB_GROUP_SIZE, else 16."""
    def size(options=None) -> int:
        (out,), _ = run(module, "default_size", [np.zeros(32, np.uint32)], (32,), (32,),
                        options=options)
        return int(out[0])

    monkeypatch.delenv("SGVM_SUB_GROUP_SIZE", raising=False)
    assert size() == 16
    monkeypatch.setenv("SGVM_SUB_GROUP_SIZE", "32")
    assert size() == 32
    assert size(parse_options("-sgvm-sub-group-size=8")) == 8
    monkeypatch.setenv("SGVM_SUB_GROUP_SIZE", "12")
    with pytest.raises(sgvm.errors.LogicError, match="SGVM_SUB_GROUP_SIZE=12"):
        size()


def test_unsupported_required_size_fails_build():
    src = "__attribute__((intel_reqd_sub_group_size(12))) kernel void k(global int* p) { *p = 1; }"
    with pytest.raises(sgvm.BuildError, match=r"CL_INVALID_BUILD_OPTIONS.*intel_reqd_sub_group_size\(12\)"):
        sgvm.compile(src, "-cl-std=CL2.0")
    with pytest.raises(sgvm.BuildError, match="sgvm-sub-group-size=7"):
        sgvm.compile("kernel void k(global int* p) { *p = 1; }", "-sgvm-sub-group-size=7")


def test_sub_group_barrier_and_scope(module):
    x = np.arange(40, dtype=np.int32) * 3
    (_, out), _ = run(module, "sg_barrier", [x, np.zeros(5, np.int32)], (40,), (40,))
    expect = []
    for idx in sub_groups((40,), (40,), 8):
        expect.append(sum(x[idx[(k + 1) % len(idx)]] for k in range(len(idx))))
    np.testing.assert_array_equal(out, expect)
