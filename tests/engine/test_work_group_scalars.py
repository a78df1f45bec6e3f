"""Work-group scalars and the scheduler's known next block (docs/native.md, "Work-group
scalars"): values every live lane holds alike are one C variable on the native backend, and
a step after a branch every lane ran that took both edges runs the lower target without a
scan. Each kernel below has a value that looks the same for every lane but is not (a phi
joining two branches, a loop counter of per-lane trip counts, a counter leaving its loop
at different iterations, a local size that differs between work-groups), or a branch
whose lower target's lanes do not all go on to the higher target; results are compared
with NumPy computations, on both backends."""

import numpy as np
import pytest

from sgvm.engine.native import scalars
from sgvm.engine.native.render import Renderer

from .harness import O2, Local, benchmark_cases, build, run

SRC = r"""
kernel void pick(global int *out, global const int *in, global int *aux, global int *mark,
                 int a, int b) {
  int i = get_global_id(0), l = get_local_id(0), x;
  mark[i] = l;  // a write: the branches, which read, run in lane loops of their own
  if (l % 3 == 0) { x = a; aux[i] += in[i]; } else { x = b; atomic_or(aux + i, in[i]); }
  out[i] = x * 2 + 1;
}

kernel void trips(global int *out, global int *cnt, int k) {
  int l = get_local_id(0), acc = 0;
  for (int i = 0; i < l % 5 + k; i++) { acc += i * 3 + 1; atomic_inc(cnt); }
  out[get_global_id(0)] = acc;
}

kernel void temporal(global int *out, global int *cnt) {
  int l = get_local_id(0), j = 0;
  for (;;) { atomic_inc(cnt); if (j >= l % 4) break; j++; }
  out[get_global_id(0)] = j * 10 + (int)get_local_size(0);
}

kernel void nested(global int *out, global const int *in, global int *aux,
                   global int *mark, int s) {
  int i = get_global_id(0), l = get_local_id(0), v = l;
  mark[i] = l;  // a write: the inner branch's load runs in a lane loop of its own
  if (l < s) {
    if (in[i] > 0) { atomic_add(aux, 1); v += 100; }
    else { atomic_or(aux + 1, 4); v -= 1; }
  }
  out[i] = v;
  atomic_add(aux + 2, v);
}

kernel void runs(global int *out, global const int *in, global int *mark, int lo, int hi,
                 int from) {
  int i = get_global_id(0), l = get_local_id(0), v = l;
  mark[i] = l;  // a write: the branch's load runs in a lane loop of its own
  if ((l >= lo & l < hi) | l >= from) v = in[i] * 3;
  out[i] = v;
}
"""


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


def test_phi_joining_two_branches(module):
    """``x`` is ``a`` or ``b``, each the same for every lane, by a divergent branch."""
    x = np.arange(96, dtype=np.int32) * 7
    out, aux, mark = np.zeros(96, np.int32), np.full(96, 1, np.int32), np.zeros(96, np.int32)
    (got, _, a, m), _ = run(module, "pick", [out, x, aux, mark, np.int32(5), np.int32(-7)],
                            96, 48)
    sel = np.arange(96) % 48 % 3 == 0
    np.testing.assert_array_equal(got, np.where(sel, 11, -13))
    np.testing.assert_array_equal(a, np.where(sel, x + 1, x | 1))
    np.testing.assert_array_equal(m, np.arange(96) % 48)


@pytest.mark.parametrize("k", [0, 2])
def test_loop_counter_of_per_lane_trips(module, k):
    """``i`` starts at 0 for every lane; lanes leave the loop after l % 5 + k iterations."""
    out, cnt = np.zeros(64, np.int32), np.zeros(1, np.int32)
    (got, c), _ = run(module, "trips", [out, cnt, np.int32(k)], 64, 32)
    n = np.arange(64) % 32 % 5 + k
    np.testing.assert_array_equal(got, 3 * n * (n - 1) // 2 + n)
    assert int(c[0]) == int(n.sum())


def test_counter_leaving_its_loop_at_different_iterations(module):
    """``j`` grows alike in every lane still looping; lanes leave at j = l % 4. The last
    work-group is smaller: the local size differs between work-groups."""
    out, cnt = np.zeros(70, np.int32), np.zeros(1, np.int32)
    (got, c), _ = run(module, "temporal", [out, cnt], 70, 32)
    l = np.arange(70) % 32
    size = np.where(np.arange(70) < 64, 32, 6)
    np.testing.assert_array_equal(got, l % 4 * 10 + size)
    assert int(c[0]) == int((l % 4 + 1).sum())


@pytest.mark.parametrize("s,t", [(40, 13), (40, 0), (40, 64), (64, 64), (17, 0)])
def test_branch_inside_a_branch(module, s, t):
    """``l < s`` every lane runs, then a test of ``in`` (true below t) for the lanes below
    s: the lower target's lanes go on to a block that is not the higher target (all of
    them to one, when t is 0 or 64) before every lane meets again."""
    l = np.arange(128) % 64
    x = (l < t).astype(np.int32)
    (got, _, aux, _), _ = run(module, "nested", [np.zeros(128, np.int32), x,
                                                 np.zeros(3, np.int32), np.zeros(128, np.int32),
                                                 np.int32(s)], 128, 64)
    want = np.where(l < s, np.where(l < t, l + 100, l - 1), l)
    np.testing.assert_array_equal(got, want)
    assert aux.tolist() == [int(((l < s) & (l < t)).sum()),
                            4 if ((l < s) & (l >= t)).any() else 0, int(want.sum())]


@pytest.mark.parametrize("lo,hi,start", [(0, 13, 45), (5, 27, 45), (20, 45, 45), (0, 10, 30),
                                         (0, 45, 45), (3, 3, 44), (16, 32, 45), (1, 2, 40)])
def test_lanes_of_the_lower_target(module, lo, hi, start):
    """The lanes below ``hi`` from ``lo``, and those from ``start``, of 45-lane work-groups
    take the branch's lower edge: one run (from lane 0, inside, up to the last lane, across
    16-lane steps, one lane at the end), two runs (counted: the first run is not all of
    them), every lane."""
    l = np.arange(90) % 45
    x = np.arange(90, dtype=np.int32) - 40
    (got, _, _), _ = run(module, "runs", [np.zeros(90, np.int32), x, np.zeros(90, np.int32),
                                          np.int32(lo), np.int32(hi), np.int32(start)], 90, 45)
    np.testing.assert_array_equal(got, np.where(((l >= lo) & (l < hi)) | (l >= start), x * 3, l))


@pytest.mark.parametrize("n,groups,last", [(256, 3, 256), (48, 4, 20)])
def test_reduction_with_a_smaller_last_work_group(n, groups, last):
    """The local-memory reduction (benchmarks/cases.py): ``s`` halves from the work-group's
    own size, here 20 in the last work-group (a non-uniform remainder)."""
    x = np.random.default_rng(5).integers(-50, 50, n * (groups - 1) + last).astype(np.float32)
    tree = build(benchmark_cases().REDUCE, O2)
    (_, got), _ = run(tree, "reduce", [x, np.zeros(groups, np.float32), Local(4 * n)],
                         len(x), n)
    want = []
    for g in range(groups):
        t = x[g * n:g * n + (n if g < groups - 1 else last)].astype(np.float64).copy()
        s = len(t) // 2
        while s:
            t[:s] += t[s:2 * s]
            s //= 2
        want.append(t[0])
    np.testing.assert_array_equal(got, np.float32(want))


def _phis(module, kernel: str) -> set[int]:
    ep = next(e for e in module.entry_points if e.name == kernel)
    f = module.functions[ep.function]
    return {i.result_id for b in f.blocks for i in b.instructions if i.opname == "OpPhi"}


def _scalars(monkeypatch, module, *options) -> set[int]:
    """The work-group scalars ``scalars.find`` finds in rendering ``module`` (``options``:
    the Renderer's after the sub-group size)."""
    found: set[int] = set()
    original = scalars.find

    def find(*args):
        found.update(out := original(*args))
        return out
    monkeypatch.setattr(scalars, "find", find)
    Renderer(module, 16, *options).render()
    return found


def _instructions(module, kernel: str, opname: str):
    ep = next(e for e in module.entry_points if e.name == kernel)
    f = module.functions[ep.function]
    return [i for b in f.blocks for i in b.instructions if i.opname == opname]


def test_which_values_are_scalars(module, monkeypatch):
    """The reduction's ``s`` is a work-group scalar; none of the phis above is."""
    found = _scalars(monkeypatch, module)
    assert found and not found & set().union(*(_phis(module, k) for k in ("pick", "trips",
                                                                          "temporal")))
    tree = build(benchmark_cases().REDUCE, O2)
    assert _phis(tree, "reduce") <= _scalars(monkeypatch, tree)


# Kernels without barriers, collectives or atomics: each is one sub-group region, the whole
# kernel, which each bundle of 256 lanes runs from its entry by itself (regions.py).
REGION_SRC = r"""
kernel void uniform_loop(global float *x, int n) {
  int i = get_global_id(0);
  float v = x[i];
  for (int k = 0; k < n; k++) v = v * 0.5f + (float)k;
  x[i] = v;
}

kernel void lane_trips(global int *out, global const int *in, int k) {
  int l = get_local_id(0), acc = 0;
  for (int i = 0; i < l % 5 + k; i++) acc += in[(i + l) % 7];
  out[get_global_id(0)] = acc;
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void rotate(global float *out, global const float *in, int n) {
  int i = get_global_id(0);
  float x = in[i], acc = 0.0f;
  for (int j = 0; j < n; j++) acc = acc * 0.5f + intel_sub_group_shuffle(x, (j * 5) & 15);
  out[i] = acc;
}

kernel void late_exit(global int *out, global const int *in) {
  int l = get_local_id(0), j = 0;
  for (;;) { if (j >= in[l % 4]) break; j++; }
  out[get_global_id(0)] = j * 10 + (int)get_local_size(0);
}
"""


@pytest.fixture(scope="module")
def region_module():
    return build(REGION_SRC, O2)


@pytest.mark.parametrize("n", [0, 1, 7])
def test_uniform_loop_in_a_whole_kernel_region(region_module, n):
    """``k`` runs alike in every lane of every bundle: work-groups of 320 lanes (two bundles,
    the second of 64 lanes) and a last one of 60."""
    x = np.linspace(-3, 3, 700, dtype=np.float32)
    (got,), _ = run(region_module, "uniform_loop", [x, np.int32(n)], 700, 320)
    want = x.copy()
    for k in range(n):
        want = want * np.float32(0.5) + np.float32(k)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("k", [0, 3])
def test_per_lane_trips_in_a_whole_kernel_region(region_module, k):
    """``i`` starts alike but lanes leave after l % 5 + k iterations: not a scalar."""
    src = np.array([3, -1, 4, 1, -5, 9, 2], np.int32)
    (got, _), _ = run(region_module, "lane_trips", [np.zeros(600, np.int32), src, np.int32(k)],
                      600, 300)
    l = np.arange(600) % 300
    want = [sum(int(src[(i + x) % 7]) for i in range(x % 5 + k)) for x in l]
    np.testing.assert_array_equal(got, want)


def test_late_exit_in_a_whole_kernel_region(region_module):
    """``j`` grows alike in the lanes still looping; they leave at in[l % 4]."""
    src = np.array([2, 0, 5, 1], np.int32)
    (got, _), _ = run(region_module, "late_exit", [np.zeros(530, np.int32), src], 530, 264)
    l = np.arange(530) % 264
    size = np.where(np.arange(530) < 528, 264, 2)
    np.testing.assert_array_equal(got, src[l % 4] * 10 + size)


@pytest.mark.parametrize("local", [64, 16, 32])
def test_shuffle_index_a_uniform_loop_counter(region_module, local):
    """The index ``(j * 5) & 15`` is the same in every lane, a scalar: the shuffle reads
    one lane of each sub-group. Work-groups of 16, 32 and 64 lanes run 16, 8 and 4 at a
    time as one unit of lanes (regions.groups)."""
    x = np.random.default_rng(3).standard_normal(512).astype(np.float32)
    (got, _), _ = run(region_module, "rotate", [np.zeros(512, np.float32), x, np.int32(12)],
                      512, local)
    want = np.zeros(512, np.float32)
    for j in range(12):
        want = want * np.float32(0.5) + np.repeat(x.reshape(-1, 16)[:, j * 5 & 15], 16)
    np.testing.assert_array_equal(got, want)


def test_scalars_of_a_whole_kernel_region(region_module, monkeypatch):
    """The uniform loop's counter is a scalar though its kernel is one region; its value
    ``v`` and the other kernels' loop phis are not."""
    found = _scalars(monkeypatch, region_module)
    phis = _instructions(region_module, "uniform_loop", "OpPhi")
    ints = {i.result_id for i in phis if region_module.types[i.result_type].op == "Int"}
    assert ints and ints <= found
    assert not found & ({i.result_id for i in phis} - ints)
    assert not found & (_phis(region_module, "lane_trips") | _phis(region_module, "late_exit"))
    # work-groups run together: the shuffle's index is a scalar too
    found = _scalars(monkeypatch, region_module, True, True)
    index = _instructions(region_module, "rotate", "OpSubgroupShuffleINTEL")
    assert index and {i.ids()[-1] for i in index} <= found
