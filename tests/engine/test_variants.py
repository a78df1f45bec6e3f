"""The implementation-defined choices as launch settings (runtime.variant): each against
hand-derived or NumPy expectations (docs/portability.md)."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm
import sgvm.cl as cl
from sgvm.runtime.device import CPU_DEVICE
from sgvm.runtime.profiles import with_all_sub_group_sizes
from sgvm.runtime.quick import _context
from sgvm.runtime.variant import PATTERN_BYTE, Variant, slot_local_ids

from . import harness
from .harness import O2, Local, build, run

# Choices other than sgvm's own run on the CPU device only (the CUDA device refuses them:
# tests/cuda/test_cuda.py), and the GPU decides the order of work-groups and atomics
# (docs/cuda.md); the default reduction order, lanes, holds on every device.
CPU_ONLY = pytest.mark.skipif(harness.DEVICE.engine == "cuda",
                              reason="a choice only the CPU device makes")
ORDERS = ["lanes", pytest.param("tree", marks=CPU_ONLY), pytest.param("reversed", marks=CPU_ONLY)]

SRC = r"""
kernel void ids(global int *out) {
  size_t i = get_global_id(0) + get_global_id(1) * get_global_size(0)
           + get_global_id(2) * get_global_size(0) * get_global_size(1);
  global int *o = out + 6 * i;
  o[0] = get_sub_group_id(); o[1] = get_sub_group_local_id(); o[2] = get_num_sub_groups();
  o[3] = get_sub_group_size(); o[4] = get_local_linear_id(); o[5] = get_enqueued_num_sub_groups();
}
kernel void wg(global const int *x, global int *out) {
  size_t i = get_global_id(0) + get_global_id(1) * get_global_size(0);
  out[3 * i] = work_group_scan_inclusive_add(x[i]);
  out[3 * i + 1] = work_group_broadcast(x[i], 3, 2);
  out[3 * i + 2] = work_group_scan_exclusive_max(x[i]);
}
kernel void fsum(global const float *x, global float *r, global float *inc, global float *exc) {
  size_t i = get_global_id(0);
  r[i] = sub_group_reduce_add(x[i]);
  inc[i] = sub_group_scan_inclusive_add(x[i]);
  exc[i] = work_group_scan_exclusive_add(x[i]);
}
kernel void khr_sum(global const float *x, global float *r, global float *c) {
  size_t i = get_global_id(0);
  r[i] = sub_group_non_uniform_reduce_add(x[i]);
  c[i] = sub_group_clustered_reduce_add(x[i], 8);
}
kernel void log_groups(global int *ctr, global int *log) {
  if (get_local_id(0) == 0) log[atomic_inc(ctr)] = get_group_id(0);
}
kernel void unwritten(global int *out, int n, local int *t) {
  if (get_local_id(0) < n) t[get_local_id(0)] = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = t[get_local_id(0)];
}
kernel void slots(global int *ctr, global int *out) {
  out[atomic_inc(ctr)] = get_global_id(0);
}
"""


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


def _ids(module, size, mapping, S=16):
    n = int(np.prod(size))
    (out,), _ = run(module, "ids", [np.zeros(6 * n, np.int32)], size, size,
                    variant=Variant(sub_group_size=S, mapping=mapping), device=with_all_sub_group_sizes(CPU_DEVICE))
    return out.reshape(size[::-1] + (6,))  # [z][y][x]


def test_rows_mapping_5x7(module):
    """Intel's CPU runtime: each row of dimension 0 is its own sub-group: a 5×7 group has 7."""
    o = _ids(module, (5, 7), "rows")
    y, x = np.mgrid[0:7, 0:5]
    assert (o[..., 0] == y).all() and (o[..., 1] == x).all()
    assert (o[..., 2] == 7).all() and (o[..., 3] == 5).all() and (o[..., 5] == 7).all()
    assert (o[..., 4] == x + 5 * y).all()


def test_rows_mapping_row_wider_than_sub_group(module):
    """A row of 20 at S = 16 forms sub-groups of 16 and 4; 3 rows give 6."""
    o = _ids(module, (20, 3), "rows")
    y, x = np.mgrid[0:3, 0:20]
    assert (o[..., 0] == 2 * y + x // 16).all() and (o[..., 1] == x % 16).all()
    assert (o[..., 3] == np.where(x < 16, 16, 4)).all() and (o[..., 2] == 6).all()


@pytest.mark.parametrize("mapping", ["linear", "columns"])
def test_linear_and_columns_mapping(module, mapping):
    """linear: runs of 16 linear ids x + 5y; columns: runs of 16 of y + 7x (y fastest)."""
    o = _ids(module, (5, 7), mapping)
    y, x = np.mgrid[0:7, 0:5]
    order = x + 5 * y if mapping == "linear" else y + 7 * x
    assert (o[..., 0] == order // 16).all() and (o[..., 1] == order % 16).all()
    assert (o[..., 3] == np.where(order // 16 == 2, 3, 16)).all()  # 35 = 16 + 16 + 3
    assert (o[..., 2] == 3).all() and (o[..., 4] == x + 5 * y).all()


def test_mapping_3d(module):
    o = _ids(module, (3, 2, 2), "rows", S=4)
    z, y, x = np.mgrid[0:2, 0:2, 0:3]
    assert (o[..., 0] == y + 2 * z).all() and (o[..., 1] == x).all() and (o[..., 2] == 4).all()


@pytest.mark.parametrize("mapping", ["linear", pytest.param("rows", marks=CPU_ONLY),
                                     pytest.param("columns", marks=CPU_ONLY)])
def test_work_group_functions_keep_linear_order(module, mapping):
    """Scans run in linear-local-id order and broadcast finds local id (3, 2), whatever the
    mapping (opencl_c_work_group_functions.txt)."""
    rng = np.random.default_rng(4)
    x = rng.integers(-50, 50, 10 * 7).astype(np.int32)
    (_, out), _ = run(module, "wg", [x, np.zeros(3 * 70, np.int32)], (10, 7), (5, 7),
                      variant=Variant(mapping=mapping))
    out = out.reshape(7, 10, 3)
    g = x.reshape(7, 10)[:, :5].ravel()  # work-group 0 in linear-id order
    assert (out[:, :5, 0].ravel() == np.cumsum(g)).all()
    assert (out[:, :5, 1] == x.reshape(7, 10)[2, 3]).all()
    exp = np.concatenate([[np.iinfo(np.int32).min], np.maximum.accumulate(g)[:-1]])
    assert (out[:, :5, 2].ravel() == exp).all()


def _fold(values, order):
    v = [np.float32(a) for a in values]
    if order == "lanes":
        acc = v[0]
        for a in v[1:]:
            acc = np.float32(acc + a)
        return acc
    if order == "reversed":
        acc = v[-1]
        for a in v[-2::-1]:
            acc = np.float32(acc + a)
        return acc
    while len(v) > 1:  # tree
        v = [np.float32(v[k] + v[k + 1]) for k in range(0, len(v) - 1, 2)] + (
            [v[-1]] if len(v) % 2 else [])
    return v[0]


@pytest.mark.parametrize("order", ORDERS)
def test_reduction_orders(module, order):
    """Sub-group reduce, inclusive scan and work-group exclusive scan associate in ``order``:
    each lane's prefix folded by hand in float32."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(32) * 10.0 ** rng.integers(-3, 4, 32)).astype(np.float32)
    (_, r, inc, exc), _ = run(module, "fsum", [x] + [np.zeros(32, np.float32)] * 3, 32, 32,
                              variant=Variant(reduction_order=order))
    for sg in range(2):
        lanes = x[16 * sg:16 * sg + 16]
        assert (r[16 * sg:16 * sg + 16] == _fold(lanes, order)).all()
        if order != "tree":  # tree scans: Hillis-Steele strides, checked in semantics tests
            assert [inc[16 * sg + k] for k in range(16)] == [_fold(lanes[:k + 1], order)
                                                          for k in range(16)]
    if order != "tree":
        assert exc[0] == 0 and [exc[k] for k in range(1, 32)] == [_fold(x[:k], order)
                                                                  for k in range(1, 32)]


@pytest.mark.parametrize("order", ORDERS)
def test_khr_reductions_follow_the_order(module, order):
    """cl_khr_subgroup_non_uniform_arithmetic and clustered reductions take the same order."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(32) * 10.0 ** rng.integers(-3, 4, 32)).astype(np.float32)
    (_, r, c), _ = run(module, "khr_sum", [x, np.zeros(16, np.float32), np.zeros(16, np.float32)],
                       16, 16, variant=Variant(reduction_order=order))
    assert (r == _fold(x[:16], order)).all()
    assert (c[:8] == _fold(x[:8], order)).all() and (c[8:] == _fold(x[8:16], order)).all()


def test_orders_differ_on_this_data(module):
    """The data above really tells the orders apart (else the test above proves little)."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(32) * 10.0 ** rng.integers(-3, 4, 32)).astype(np.float32)
    for first in (0, 16):
        assert len({float(_fold(x[first:first + 16], o)) for o in ("lanes", "tree", "reversed")}) == 3


@CPU_ONLY
@pytest.mark.parametrize("order", ["lockstep", "forward", "reversed", "shuffle"])
def test_group_order(module, order):
    """Work-group 0's work-item 0 logs its group id through an atomic counter: the log is the
    order the groups ran in."""
    (_, log), _ = run(module, "log_groups", [np.zeros(1, np.int32), np.zeros(8, np.int32)],
                      64, 8, variant=Variant(group_order=order, seed=5))
    if order in ("lockstep", "forward"):
        assert log.tolist() == list(range(8))
    elif order == "reversed":
        assert log.tolist() == list(range(7, -1, -1))
    else:
        assert sorted(log.tolist()) == list(range(8)) and log.tolist() != list(range(8))
        (_, again), _ = run(module, "log_groups", [np.zeros(1, np.int32), np.zeros(8, np.int32)],
                            64, 8, variant=Variant(group_order=order, seed=5))
        (_, other), _ = run(module, "log_groups", [np.zeros(1, np.int32), np.zeros(8, np.int32)],
                            64, 8, variant=Variant(group_order=order, seed=6))
        assert (again == log).all() and (other != log).any()


@CPU_ONLY
@pytest.mark.parametrize("order", ["forward", "reversed"])
def test_group_order_in_steps(module, order):
    """40 work-groups run in 16 steps: step b holds positions b, b+16, b+32 of the order, in
    lock-step (logged in that order by the atomic's lane order)."""
    (_, log), _ = run(module, "log_groups", [np.zeros(1, np.int32), np.zeros(40, np.int32)],
                      40 * 8, 8, variant=Variant(group_order=order))
    sequence = list(range(40)) if order == "forward" else list(range(39, -1, -1))
    assert log.tolist() == [sequence[p] for b in range(16) for p in range(b, 40, 16)]


@CPU_ONLY
@pytest.mark.parametrize("init", ["zeros", "pattern"])
def test_memory_init(module, init):
    (out,), _ = run(module, "unwritten", [np.zeros(16, np.int32), np.int32(4), Local(64)], 16, 16,
                      variant=Variant(memory_init=init))
    unwritten = 0 if init == "zeros" else int.from_bytes(bytes([PATTERN_BYTE]) * 4, "little",
                                                         signed=True)
    assert out.tolist() == [1] * 4 + [unwritten] * 12


@CPU_ONLY
@pytest.mark.parametrize("order", ["lanes", "reversed", "shuffle"])
def test_atomic_order(module, order):
    """The value atomic_inc returns to each work-item is its place in the serial order."""
    (_, out), _ = run(module, "slots", [np.zeros(1, np.int32), np.zeros(8, np.int32)], 8, 8,
                      variant=Variant(atomic_order=order, seed=1))
    if order == "lanes":
        assert out.tolist() == list(range(8))
    elif order == "reversed":
        assert out.tolist() == list(range(7, -1, -1))
    else:
        assert sorted(out.tolist()) == list(range(8)) and out.tolist() != list(range(8))


def test_slot_ids_are_a_permutation():
    for mapping in ("linear", "rows", "columns"):
        for size in ((5, 7, 1), (3, 2, 2), (16, 4, 1), (20, 3, 1)):
            ids = slot_local_ids(mapping, size, 8)
            assert sorted(ids.tolist()) == list(range(len(ids))) and len(ids) % 8 == 0


# -- the knobs: build options, environment variables, device profiles -----------------------

KNOB_SRC = r"""
kernel void k(global int *out) {
  size_t i = get_global_id(0) + get_global_id(1) * get_global_size(0);
  out[i] = get_sub_group_id() * 100 + get_sub_group_size();
}
"""


@CPU_ONLY
def test_mapping_knob_option_and_environment(monkeypatch):
    out = np.zeros(35, np.int32)
    sgvm.run(KNOB_SRC, "k", (5, 7), (5, 7), out, options="-sgvm-sub-group-mapping=rows")
    assert (out.reshape(7, 5) == np.arange(7)[:, None] * 100 + 5).all()
    monkeypatch.setenv("SGVM_SUB_GROUP_MAPPING", "rows")
    out[:] = 0
    sgvm.run(KNOB_SRC, "k", (5, 7), (5, 7), out)
    assert (out.reshape(7, 5) == np.arange(7)[:, None] * 100 + 5).all()


def test_bad_knob_value_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("SGVM_REDUCTION_ORDER", "sideways")
    with pytest.raises(cl.LogicError, match="SGVM_REDUCTION_ORDER=sideways is not one of lanes, "
                                            "tree, reversed"):
        sgvm.run(KNOB_SRC, "k", (16,), (16,), np.zeros(16, np.int32))


@CPU_ONLY
def test_profile_intel_cpu(monkeypatch):
    """SGVM_PROFILE_DEVICE=intel-cpu: sizes 4..64, rows mapping, the sub-group count query."""
    monkeypatch.setenv("SGVM_PROFILE_DEVICE", "intel-cpu")
    ctx, _ = _context()
    dev = ctx.devices[0]
    assert dev.get_info(cl.device_info.SUB_GROUP_SIZES_INTEL) == [4, 8, 16, 32, 64]
    prg = cl.Program(ctx, "__attribute__((intel_reqd_sub_group_size(4)))\n" + KNOB_SRC).build()
    knl = cl.Kernel(prg, "k")
    count = knl.get_sub_group_info(dev, cl.kernel_sub_group_info.SUB_GROUP_COUNT_FOR_NDRANGE,
                                   (10, 5))
    assert count == 5 * 3  # rows of 10 at S = 4: 3 sub-groups each
    out = np.zeros(35, np.int32)
    sgvm.run(KNOB_SRC, "k", (5, 7), (5, 7), out)
    assert (out.reshape(7, 5) == np.arange(7)[:, None] * 100 + 5).all()
    plain = cl.Program(ctx, KNOB_SRC).build()
    assert cl.Kernel(plain, "k").get_sub_group_info(
        dev, cl.kernel_sub_group_info.SUB_GROUP_COUNT_FOR_NDRANGE, (10, 5)) == 5


@CPU_ONLY
def test_profile_intel_cpu_avx2(monkeypatch):
    """SGVM_PROFILE_DEVICE=intel-cpu-avx2: intel-cpu with sub-groups of 8 by default, as
    Intel's CPU runtime chooses on a host with AVX2 and no AVX-512 (measured:
    tests/portability/test_intel_cpu_peer.py)."""
    monkeypatch.setenv("SGVM_PROFILE_DEVICE", "intel-cpu-avx2")
    ctx, _ = _context()
    dev = ctx.devices[0]
    assert dev.get_info(cl.device_info.SUB_GROUP_SIZES_INTEL) == [4, 8, 16, 32, 64]
    knl = cl.Kernel(cl.Program(ctx, KNOB_SRC).build(), "k")
    assert knl.get_sub_group_info(dev, cl.kernel_sub_group_info.SUB_GROUP_COUNT_FOR_NDRANGE,
                                  (10, 5)) == 5 * 2  # rows of 10 at S = 8: 8 + 2 each
    out = np.zeros(50, np.int32)
    sgvm.run(KNOB_SRC, "k", (10, 5), (10, 5), out)
    row = [8] * 8 + [102, 102]  # sub-group 2y: 8 lanes of size 8; 2y + 1: 2 lanes of size 2
    assert out.reshape(5, 10).tolist() == [[v + 200 * y for v in row] for y in range(5)]


@CPU_ONLY
def test_profile_default_and_unknown(monkeypatch):
    ctx, _ = _context()
    knl = cl.Kernel(cl.Program(ctx, KNOB_SRC).build(), "k")
    assert knl.get_sub_group_info(ctx.devices[0],
                                  cl.kernel_sub_group_info.SUB_GROUP_COUNT_FOR_NDRANGE,
                                  (10, 5)) == 4  # ceil(50 / 16), linear
    with pytest.raises(sgvm.BuildError, match=r"intel_reqd_sub_group_size\(4\) is not a sub-group "
                                              r"size of device 'sgvm CPU' \(8, 16, 32\)"):
        cl.Program(ctx, "__attribute__((intel_reqd_sub_group_size(4)))\n" + KNOB_SRC).build()
    monkeypatch.setenv("SGVM_PROFILE_DEVICE", "intel-fpga")
    with pytest.raises(cl.LogicError, match="device profile 'intel-fpga' is unknown"):
        _ = ctx.devices[0].model
