"""Blocks of straight code that the native backend runs sub-group by sub-group
(docs/native.md, "Sub-group by sub-group"): a block with sub-group collectives runs all its
segments for one sub-group before the next where every lane of the work-group runs it and
the rows hold whole sub-groups. Expectations are computed with NumPy from the sub-group
mapping of helpers.py; every test runs on both backends (the differential suite).

* the benchmark's block read + shuffle_down + reduce and the scan + broadcast + shuffle_xor
  at sizes 8, 16 and 32, over 1-D work-groups with a non-uniform remainder, 2-D work-groups
  of one and of several sub-groups per row, and shapes with partial sub-groups (which run
  segment by segment);
* lanes of one sub-group passing values through memory inside the block (each segment
  must still run for the whole sub-group before the next);
* blocks that must keep the work-group's lock-step, whose results change when run sub-group
  by sub-group: two atomics around a sub-group reduction, a barrier between a local write
  and a read of another sub-group's element, a work-group reduction;
* faults: a store past the buffer's end (the pre-pass fails and the block runs segment by
  segment) and a block read past it in the middle of a sub-group, each naming the lowest
  faulting work-item; checks off.
"""

import numpy as np
import pytest

from sgvm import KernelMemoryError
from sgvm.engine.native import backend as native_backend
from sgvm.engine.native.render import Renderer

from .helpers import DEVICE, SIZES, assert_native, build, run, sub_groups, total

SOURCE = r"""
#define REQ __attribute__((intel_reqd_sub_group_size(SG)))

REQ kernel void reduce_down(global const uint *in, global uint *out) {
  size_t i = get_global_id(0);
  uint x = intel_sub_group_block_read(in + (i - get_sub_group_local_id()));
  uint y = intel_sub_group_shuffle_down(x, x, 1u);
  out[i] = sub_group_reduce_add(y) + x;
}

REQ kernel void scan_xor(global const uint *in, global uint *out) {
  size_t i = GID;
  uint x = in[i];
  uint s = sub_group_scan_inclusive_add(x);
  out[i] = s + 1000u * sub_group_broadcast(s, 0) + intel_sub_group_shuffle_xor(x, 1u);
}

REQ kernel void scan_partial(global const float *in, global float *out) {
  size_t i = GID;
  float x = in[i];
  out[i] = sub_group_scan_exclusive_add(x) + 100.0f * sub_group_reduce_max(x)
           + 10000.0f * sub_group_broadcast(x, 0);
}

REQ kernel void shuffles(global const int *in, global int *out, global long *out64,
                        global float2 *outf) {
  size_t i = GID, n = get_global_size(0) * get_global_size(1);
  int x = in[i], y = in[n + i];
  out[i] = intel_sub_group_shuffle_down(x, y, 3u);
  out[n + i] = intel_sub_group_shuffle_down(x, y, SG - 2u);
  out[2 * n + i] = intel_sub_group_shuffle_up(x, y, 5u);
  out[3 * n + i] = intel_sub_group_shuffle_up(x, y, (uint)SG);
  out[4 * n + i] = intel_sub_group_shuffle(y, SG - 1u);
  out[5 * n + i] = intel_sub_group_shuffle_xor(x, SG / 2u + 1u);
  out[6 * n + i] = intel_sub_group_shuffle(x, (uint)y & (SG - 1u));
  out64[i] = intel_sub_group_shuffle_xor((long)x * 4000000007L, 3u);
  outf[i] = intel_sub_group_shuffle_down((float2)(x, y), (float2)(y, x), 1u);
}

REQ kernel void int_scans(global const int *in, global uint *out, global ulong *out64) {
  size_t i = GID, n = get_global_size(0) * get_global_size(1);
  int x = in[i];
  long w = (long)x * 4000000007L;
  out[i] = (uint)sub_group_scan_inclusive_min(x);
  out[n + i] = (uint)sub_group_scan_exclusive_max(x);
  out[2 * n + i] = sub_group_scan_exclusive_add((uint)x);
  out[3 * n + i] = sub_group_scan_inclusive_max((uint)x);
  out[4 * n + i] = sub_group_scan_exclusive_min((uint)x);
  out[5 * n + i] = sub_group_scan_inclusive_add((uint)x);
  out64[i] = (ulong)sub_group_scan_inclusive_add(w);
  out64[n + i] = (ulong)sub_group_scan_exclusive_min(w);
  out64[2 * n + i] = sub_group_scan_inclusive_max((ulong)w);
}

REQ kernel void through_memory(global uint *buf, global uint *out) {
  size_t i = get_global_id(0);
  buf[i] = (uint)i * 3u;
  uint y = buf[i ^ 1];
  out[i] = y + sub_group_reduce_add(y);
}

REQ kernel void two_tickets(volatile global uint *counter, global uint *out) {
  size_t i = get_global_id(0), n = get_global_size(0);
  uint a = atomic_inc(counter);
  uint s = sub_group_reduce_add(a);
  uint b = atomic_inc(counter);
  out[i] = a; out[n + i] = b; out[2 * n + i] = s;
}

REQ kernel void across_barrier(global const uint *in, global uint *out) {
  local uint t[256];
  size_t l = get_local_id(0), n = get_local_size(0);
  t[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = t[(l + SG) % n] + 1000u * sub_group_reduce_add(t[l]);
}

REQ kernel void with_work_group(global const uint *in, global uint *out) {
  size_t i = get_global_id(0);
  uint x = in[i];
  out[i] = work_group_reduce_add(x) + 1000u * sub_group_reduce_add(x);
}
"""

# (global size, local size) whose rows hold whole sub-groups of every size tested: 1-D
# work-groups with a non-uniform remainder of 64 lanes, 2-D work-groups of one row per
# sub-group of 32 and of several sub-groups per row
FULL = {"1d": ((3 * 256 + 64,), (256,)), "2d": ((64, 6), (32, 3)), "2d-wide": ((128, 4), (64, 2))}
# rows that do not: a partial last sub-group, sub-groups across rows (segment by segment)
PARTIAL = {"1d-partial": ((120,), (60,)), "2d-rows": ((16, 8), (4, 8))}


@pytest.fixture(scope="module", params=SIZES)
def sized(request):
    S = request.param
    return S, build(SOURCE.replace("GID", "(get_global_id(0) + get_global_size(0) * "
                                          "get_global_id(1))"), f"-cl-std=CL2.0 -DSG={S}")


def _kernel_source(m, S: int, kernel: str, bounds: bool = True) -> str:
    """The native C of one kernel of module ``m``."""
    source, kernels = Renderer(m, S, bounds).render()
    symbol = kernels[kernel].symbol
    return source[source.index(f"int {symbol}_run("):source.index(f'extern "C" int {symbol}(')]


def test_which_blocks_run_by_sub_group(sized):
    S, m = sized
    for kernel in ("reduce_down", "scan_xor", "scan_partial", "through_memory", "shuffles",
                   "int_scans"):
        assert "sg_fuse" in _kernel_source(m, S, kernel), kernel
        assert "sg_fuse" in _kernel_source(m, S, kernel, bounds=False), kernel
    for kernel in ("two_tickets", "across_barrier", "with_work_group"):
        assert "sg_fuse" not in _kernel_source(m, S, kernel), kernel


@pytest.mark.parametrize("gs, ls", [FULL["1d"], ((5 * 128,), (128,))])
def test_block_read_shuffle_down_reduce(sized, gs, ls):
    S, m = sized
    n = total(gs)
    u = np.random.default_rng(S).integers(0, 1 << 20, n, dtype=np.uint32)
    (_, out), _ = run(m, "reduce_down", [u, np.zeros(n, np.uint32)], gs, ls)
    assert_native(m, "reduce_down")
    want = np.zeros(n, np.uint32)
    for ids in sub_groups(gs, ls, S):
        x = u[ids[0]:ids[0] + S]  # the block read: S elements from the sub-group's first
        want[ids] = np.roll(x, -1).sum(dtype=np.uint32) + x
    np.testing.assert_array_equal(out, want)


def _check_scan_xor(m, S: int, gs, ls) -> None:
    """Run ``scan_xor`` and compare each sub-group's lanes with NumPy's scan."""
    n = total(gs)
    u = np.random.default_rng(S + 1).integers(0, 1 << 20, n, dtype=np.uint32)
    (_, out), _ = run(m, "scan_xor", [u, np.zeros(n, np.uint32)], gs, ls)
    assert_native(m, "scan_xor")
    want = np.zeros(n, np.uint32)
    for ids in sub_groups(gs, ls, S):
        x = u[ids]
        s = np.cumsum(x, dtype=np.uint32)
        want[ids] = s + np.uint32(1000) * s[0] + x[np.arange(len(ids)) ^ 1]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("shape", list(FULL))
def test_scan_broadcast_shuffle_xor(sized, shape):
    S, m = sized
    _check_scan_xor(m, S, *FULL[shape])


@pytest.mark.parametrize("shape", [*FULL, *PARTIAL])
def test_float_scan_reduce_broadcast(sized, shape):
    """Partial sub-groups included: folds in lane order over the active lanes."""
    S, m = sized
    gs, ls = {**FULL, **PARTIAL}[shape]
    n = total(gs)
    x = np.random.default_rng(S + 2).standard_normal(n).astype(np.float32)
    (_, out), _ = run(m, "scan_partial", [x, np.zeros(n, np.float32)], gs, ls)
    assert_native(m, "scan_partial")
    want = np.zeros(n, np.float32)
    for ids in sub_groups(gs, ls, S):
        v = x[ids]
        ex = np.zeros(len(ids), np.float32)
        acc = np.float32(0)
        for k in range(len(ids)):  # float adds in lane order, each rounded to float
            ex[k] = acc
            acc = np.float32(acc + v[k])
        want[ids] = (ex + np.float32(100) * v.max()) + np.float32(10000) * v[0]
    np.testing.assert_array_equal(out, want)


def _shuffled(x: np.ndarray, y: np.ndarray, S: int) -> list[np.ndarray]:
    """The Intel shuffles of ``shuffles`` for one sub-group of ``S`` lanes (spec rules)."""
    j = np.arange(S)
    down = np.concatenate([x, y])
    up = np.concatenate([x, y])  # lane j - c of the current (y), below 0 the previous (x)
    return [down[j + 3], down[j + S - 2], up[S + j - 5], up[j], np.full(S, y[S - 1]),
            x[j ^ (S // 2 + 1)], x[y & (S - 1)]]


@pytest.mark.parametrize("shape", list(FULL))
def test_constant_shuffles(sized, shape):
    S, m = sized
    gs, ls = FULL[shape]
    n = total(gs)
    u = np.random.default_rng(S + 6).integers(-1 << 30, 1 << 30, 2 * n).astype(np.int32)
    (_, out, out64, outf), _ = run(m, "shuffles", [u, np.zeros(7 * n, np.int32),
                                                   np.zeros(n, np.int64),
                                                   np.zeros((n, 2), np.float32)], gs, ls)
    assert_native(m, "shuffles")
    x, y = u[:n], u[n:]
    out = out.reshape(7, n)
    for ids in sub_groups(gs, ls, S):
        for k, want in enumerate(_shuffled(x[ids], y[ids], S)):
            np.testing.assert_array_equal(out[k, ids], want, err_msg=f"shuffle {k}")
        w = x[ids].astype(np.int64) * 4000000007
        np.testing.assert_array_equal(out64[ids], w[np.arange(S) ^ 3])
        f = np.stack([x[ids], y[ids]], 1).astype(np.float32)
        np.testing.assert_array_equal(outf[ids], np.concatenate([f, f[:, ::-1]])[1:S + 1])


@pytest.mark.parametrize("shape", [*FULL, *PARTIAL])
def test_integer_scans(sized, shape):
    """Inclusive and exclusive scans of 32- and 64-bit integers, signed and unsigned, by add
    (wrapping), min and max: the identity at an exclusive scan's first lane."""
    S, m = sized
    gs, ls = {**FULL, **PARTIAL}[shape]
    n = total(gs)
    u = np.random.default_rng(S + 7).integers(-1 << 31, 1 << 31, n).astype(np.int32)
    (_, out, out64), _ = run(m, "int_scans", [u, np.zeros(6 * n, np.uint32),
                                              np.zeros(3 * n, np.uint64)], gs, ls)
    assert_native(m, "int_scans")
    out, out64 = out.reshape(6, n), out64.reshape(3, n)

    def ex(acc: np.ndarray, first) -> np.ndarray:
        return np.concatenate([np.array([first], acc.dtype), acc[:-1]])

    with np.errstate(over="ignore"):
        for ids in sub_groups(gs, ls, S):
            x = u[ids]
            xu = x.view(np.uint32)
            w = x.astype(np.int64) * np.int64(4000000007)
            want = [np.minimum.accumulate(x).view(np.uint32),
                    ex(np.maximum.accumulate(x), np.iinfo(np.int32).min).view(np.uint32),
                    ex(np.cumsum(xu, dtype=np.uint32), 0), np.maximum.accumulate(xu),
                    ex(np.minimum.accumulate(xu), np.iinfo(np.uint32).max),
                    np.cumsum(xu, dtype=np.uint32)]
            for k, v in enumerate(want):
                np.testing.assert_array_equal(out[k, ids], v, err_msg=f"scan {k}")
            want64 = [np.cumsum(w.view(np.uint64), dtype=np.uint64),
                      ex(np.minimum.accumulate(w), np.iinfo(np.int64).max).view(np.uint64),
                      np.maximum.accumulate(w.view(np.uint64))]
            for k, v in enumerate(want64):
                np.testing.assert_array_equal(out64[k, ids], v, err_msg=f"64-bit scan {k}")


@pytest.mark.parametrize("shape", ["1d", "1d-partial"])
def test_lanes_of_a_sub_group_through_memory(sized, shape):
    """Every lane stores, then every lane of the sub-group loads its neighbour's element:
    the store's segment runs for the whole sub-group before the load's."""
    S, m = sized
    gs, ls = {**FULL, **PARTIAL}[shape]
    n = total(gs)
    (buf, out), _ = run(m, "through_memory", [np.zeros(n, np.uint32), np.zeros(n, np.uint32)],
                        gs, ls)
    assert_native(m, "through_memory")
    i = np.arange(n, dtype=np.uint32)
    y = (i ^ 1) * np.uint32(3)
    np.testing.assert_array_equal(buf, i * 3)
    want = np.zeros(n, np.uint32)
    for ids in sub_groups(gs, ls, S):
        want[ids] = y[ids] + y[ids].sum(dtype=np.uint32)
    np.testing.assert_array_equal(out, want)


def test_atomics_keep_lock_step(sized):
    """Both atomic_incs run for the whole work-group in lane order: the first gives
    0 … L-1, the second L … 2L-1 (sub-group by sub-group, the second of the first sub-group
    would come before the first of the second)."""
    S, m = sized
    L = 512
    (counter, out), _ = run(m, "two_tickets", [np.zeros(1, np.uint32), np.zeros(3 * L, np.uint32)],
                            (L,), (L,))
    assert_native(m, "two_tickets")
    a, b, s = out.reshape(3, L)
    if DEVICE.engine == "cuda":  # the GPU orders atomics (docs/cuda.md): each ticket once
        np.testing.assert_array_equal(np.sort(np.concatenate([a, b])), np.arange(2 * L))
        return
    np.testing.assert_array_equal(a, np.arange(L))
    np.testing.assert_array_equal(b, np.arange(L, 2 * L))
    np.testing.assert_array_equal(s, np.repeat(a.reshape(-1, S).sum(1, dtype=np.uint32), S))
    assert counter[0] == 2 * L


def test_barrier_keeps_lock_step(sized):
    """Each work-item reads the element the next sub-group wrote before the barrier."""
    S, m = sized
    gs, ls = (512,), (256,)
    u = np.random.default_rng(S + 3).integers(0, 1 << 20, 512, dtype=np.uint32)
    (_, out), _ = run(m, "across_barrier", [u, np.zeros(512, np.uint32)], gs, ls)
    assert_native(m, "across_barrier")
    g = u.reshape(2, 256)
    l = np.arange(256)
    sums = np.repeat(g.reshape(2, -1, S).sum(2, dtype=np.uint32), S, axis=1)
    np.testing.assert_array_equal(out, (g[:, (l + S) % 256] + np.uint32(1000) * sums).reshape(-1))


def test_work_group_collective_keeps_lock_step(sized):
    S, m = sized
    u = np.random.default_rng(S + 4).integers(0, 1 << 20, 512, dtype=np.uint32)
    (_, out), _ = run(m, "with_work_group", [u, np.zeros(512, np.uint32)], (512,), (256,))
    assert_native(m, "with_work_group")
    g = u.reshape(2, 256)
    wg = g.sum(1, dtype=np.uint32)[:, None]
    sg = np.repeat(g.reshape(2, -1, S).sum(2, dtype=np.uint32), S, axis=1)
    np.testing.assert_array_equal(out, (wg + np.uint32(1000) * sg).reshape(-1))


# (elements of in, of out, the byte offset and work-item of the lowest fault): work-items
# 600 … 831 store past out (the pre-pass fails: the block runs segment by segment with its
# checks); the block read of the sub-group holding work-item 604 reads past in from that
# lane on (its first lanes read in bounds)
FAULTS = {"store": (832, 600, 2400, 600), "block read": (604, 832, 2416, 604)}


@pytest.mark.parametrize("own_record", [False, True])
@pytest.mark.parametrize("where", list(FAULTS))
def test_fault_names_lowest_work_item(sized, backend, monkeypatch, where, own_record):
    """``own_record``: the native backend's own message, without the re-run on the NumPy
    engine."""
    S, m = sized
    if own_record and backend != "native":
        pytest.skip("the native backend's own record")
    if own_record:
        monkeypatch.setattr(native_backend, "_explain", lambda request: None)
    n_in, n_out, offset, item = FAULTS[where]
    gs, ls = FULL["1d"]
    assert total(gs) == 832
    with pytest.raises(KernelMemoryError, match=rf"byte offset {offset} .*global id \({item},\)"):
        run(m, "reduce_down", [np.ones(n_in, np.uint32), np.zeros(n_out, np.uint32)], gs, ls)


def test_checks_off(sized, backend, monkeypatch):
    """``SGVM_BOUNDS=0``: the same results from the code without checks."""
    S, m = sized
    monkeypatch.setenv("SGVM_BOUNDS", "0")
    _check_scan_xor(m, S, *FULL["2d"])
