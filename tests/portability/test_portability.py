"""The portability check on kernels that are portable (no finding at any variant) and on one
kernel per kind of dependence (a finding naming the right kind and source line)."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm
import sgvm.cl as cl
from sgvm.check.portability import KINDS, LaunchReport
from sgvm.runtime.quick import _context

SRC = r"""
kernel void vadd(global const float *a, global const float *b, global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
kernel void group_sum(global const int *x, global int *total) {
  int s = sub_group_reduce_add(x[get_global_id(0)]);
  if (get_sub_group_local_id() == 0) atomic_add(&total[get_group_id(0)], s);
}
kernel void histogram(global const uint *x, global int *hist) {
  atomic_inc(&hist[x[get_global_id(0)] % 16]);
}
kernel void transpose(global const float *in, global float *out, local float *tile) {
  int x = get_local_id(0), y = get_local_id(1), w = get_local_size(0);
  int gx = get_global_id(0), gy = get_global_id(1), W = get_global_size(0);
  tile[y * w + x] = in[gy * W + gx];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[gx * get_global_size(1) + gy] = tile[y * w + x];
}
kernel void gemv8(global const float *a, global const float *x, global float *y) {
  int lane = get_sub_group_local_id();
  float v = a[get_global_id(0)] * x[lane % 8];
  float s = 0;
  for (int k = 0; k < 8; k++)
    s += intel_sub_group_shuffle(v, k);
  y[get_global_id(0)] = s;
}
__attribute__((intel_reqd_sub_group_size(16)))
kernel void by_sub_group(global const int *table, global int *out) {
  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
  out[i] = table[get_sub_group_id()];
}
__attribute__((intel_reqd_sub_group_size(16)))
kernel void fsum(global const float *x, global float *out) {
  float s = sub_group_reduce_add(x[get_global_id(0)]);
  if (get_sub_group_local_id() == 0) out[get_global_id(0) / 16] = s;
}
kernel void handoff(volatile global int *flag, global int *data, global int *out) {
  if (get_group_id(0) == 1 && get_local_id(0) == 0) { data[0] = 7; flag[0] = 1; }
  if (get_group_id(0) == 0 && get_local_id(0) == 0) {
    int tries = 0;
    while (flag[0] == 0 && tries < 100) tries++;
    out[0] = flag[0] ? data[0] : -1;
  }
}
kernel void accumulate(global const float *x, global float *out, local float *acc) {
  acc[get_local_id(0)] += x[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = acc[get_local_id(0)];
}
kernel void compact(global const int *x, global int *count, global int *out) {
  int v = x[get_global_id(0)];
  if (v > 0) out[atomic_inc(count)] = v;
}
"""


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(SRC.splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def program():
    ctx, _ = _context()
    prg = cl.Program(ctx, SRC).build("-cl-std=CL2.0", check="portability")
    prg.checker.echo = False
    return prg


def check(program, kernel: str, gsize, lsize, *args) -> LaunchReport:
    sgvm.run(program, kernel, gsize, lsize, *args)
    return program.checker.report.launches[-1]


def kinds_run(report: LaunchReport) -> set[str]:
    return {o.kind for o in report.ran}


def only(report: LaunchReport, kind: str):
    assert [f.kind for f in report.findings] == [kind], [f.kind for f in report.findings]
    return report.findings[0]


def lines(finding) -> list[int]:
    return [a.line for a in finding.attributions]


rng = np.random.default_rng(7)


# -- portable kernels: no finding at any variant --------------------------------------------

def test_vadd(program):
    a, b = rng.random(256).astype(np.float32), rng.random(256).astype(np.float32)
    c = np.zeros(256, np.float32)
    r = check(program, "vadd", (256,), (64,), a, b, c)
    assert r.findings == [] and (c == a + b).all()
    assert kinds_run(r) == {"sub-group-size"}  # work-groups share nothing: no order variants
    assert r.notes == ["work-group orders not run: no two work-groups touched the same global "
                       "memory with a write"]


def test_integer_group_sum(program):
    x = rng.integers(-1000, 1000, 256).astype(np.int32)
    total = np.zeros(4, np.int32)
    r = check(program, "group_sum", (256,), (64,), x, total)
    assert r.findings == [] and (total == x.reshape(4, 64).sum(axis=1)).all()
    assert kinds_run(r) == {"sub-group-size", "atomic-order"}


def test_histogram(program):
    x = rng.integers(0, 1000, 512).astype(np.uint32)
    hist = np.zeros(16, np.int32)
    r = check(program, "histogram", (512,), (64,), x, hist)
    assert r.findings == [] and (hist == np.bincount(x % 16, minlength=16)).all()
    assert "atomic-order" in kinds_run(r) and "group-order" in kinds_run(r)


def test_local_transpose_2d(program):
    a = rng.random((16, 32)).astype(np.float32)
    out = np.zeros(16 * 32, np.float32)
    r = check(program, "transpose", (32, 16), (8, 4), a, out, cl.LocalMemory(8 * 4 * 4))
    assert r.findings == [] and (out.reshape(32, 16) == a.T).all()
    assert kinds_run(r) == {"sub-group-size", "mapping", "memory-init"}


# -- one kernel per kind of dependence --------------------------------------------------------

def test_gemv_hard_coding_8_lanes(program):
    a, x = np.arange(64, dtype=np.float32), np.arange(1, 9, dtype=np.float32)
    y = np.zeros(64, np.float32)
    r = check(program, "gemv8", (64,), (32,), a, x, y)
    f = only(r, "sub-group-size")
    assert f.severity == "error"
    assert {o.label for o in f.outcomes} == {"sub-group-size 4", "sub-group-size 8",
                                             "sub-group-size 32", "sub-group-size 64"}
    assert line_of("int lane = get_sub_group_local_id()") in lines(f)
    assert line_of("intel_sub_group_shuffle(v, k)") in lines(f)
    assert f.attributions[0].what == "get_sub_group_local_id()"
    d = next(o for o in f.outcomes if o.label == "sub-group-size 8").differences[0]
    # by hand: at 16 lanes, lanes 0..7 of each sub-group sum a[l]*x[l] of lanes 0..7 of theirs;
    # at 8, work-items 8..15 form their own sub-group and sum their own products
    expect16 = sum(a[k] * x[k] for k in range(8))
    expect8 = sum(a[8 + k] * x[k] for k in range(8))
    assert d.output == "y" and d.first[0] == (8, float(expect16), float(expect8))
    assert d.count == 32 and d.total == 64


def test_sub_group_id_in_2d_group(program):
    table = (np.arange(8, dtype=np.int32) + 1) * 10
    out = np.zeros(8 * 6, np.int32)
    r = check(program, "by_sub_group", (8, 6), (8, 6), table, out)
    f = only(r, "mapping")
    assert f.severity == "error"
    assert {o.label for o in f.outcomes} == {"mapping rows", "mapping columns"}
    assert f.attributions[0].what == "get_sub_group_id()"
    assert f.attributions[0].line == line_of("table[get_sub_group_id()]")
    assert str(f.attributions[0]).startswith("depends on the mapping through get_sub_group_id()")
    rows = next(o for o in f.outcomes if o.label == "mapping rows").differences[0]
    # linear: work-item (x, y) is in sub-group (x + 8y) // 16 = y // 2; rows: sub-group y
    assert rows.first[0] == (8, 10, 20)  # (0, 1): sub-group 0 → table 10, rows: 1 → 20


def test_float_sum_is_information(program):
    x = (rng.standard_normal(256) * 10.0 ** rng.integers(-3, 4, 256)).astype(np.float32)
    out = np.zeros(16, np.float32)
    r = check(program, "fsum", (256,), (256,), x, out)
    f = only(r, "reduction-order")
    assert f.severity == "info" and "differ only in the last bits" in f.message
    worst = max(d.max_ulp for o in f.outcomes for d in o.differences)
    assert 1 <= worst <= 64 and f"at most {worst} ULP" in f.message
    assert f.attributions[0].what == "sub_group_reduce_add"
    assert f.attributions[0].line == line_of("float s = sub_group_reduce_add")


def test_work_group_waits_for_another(program):
    flag, data, out = np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32)
    r = check(program, "handoff", (32,), (16,), flag, data, out)
    f = only(r, "group-order")
    assert f.severity == "error"
    assert {line_of("while (flag[0] == 0"), line_of("out[0] = flag[0]")} & set(lines(f))
    assert all(str(a).startswith("reads data another work-group writes at <kernel>:")
               for a in f.attributions)
    changed = {o.label: o.differences[0].first[0] for o in f.outcomes}
    assert changed == {"group-order forward": (0, 7, -1)}  # group 0 first: gives up, -1


def test_local_memory_read_before_written(program):
    x = rng.random(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    r = check(program, "accumulate", (64,), (32,), x, out, cl.LocalMemory(32 * 4))
    f = only(r, "memory-init")
    assert f.severity == "error"
    assert f.attributions[0].line == line_of("acc[get_local_id(0)] +=")
    assert f.attributions[0].what == "local memory"


def test_atomic_results_in_output(program):
    x = np.array([3, -1, 4, 1, -5, 9, 2, -6] * 4, np.int32)
    count, out = np.zeros(1, np.int32), np.zeros(32, np.int32)
    r = check(program, "compact", (32,), (32,), x, count, out)
    f = only(r, "atomic-order")
    assert f.severity == "error" and line_of("out[atomic_inc(count)]") in lines(f)
    assert sorted(out[: count[0]].tolist()) == sorted(v for v in x.tolist() if v > 0)


def test_baseline_outputs_stay(program):
    """After the check the buffers hold the baseline's outputs, not the last variant's."""
    x = np.array([3, -1, 4, 1, -5, 9, 2, -6] * 4, np.int32)
    count, out = np.zeros(1, np.int32), np.zeros(32, np.int32)
    check(program, "compact", (32,), (32,), x, count, out)
    assert out[:20].tolist() == [v for v in x.tolist() if v > 0]  # lane order: the baseline


def test_variant_limit_and_budget(program):
    x = rng.integers(0, 1000, 512).astype(np.uint32)
    prg = program
    prg.checker.max_variants = 2
    try:
        r = check(prg, "histogram", (512,), (64,), x, np.zeros(16, np.int32))
    finally:
        prg.checker.max_variants = None
    assert len(r.ran) == 2 and r.not_run and r.why_not_run == "--variants 2"
    assert {o.kind for o in r.ran} == {"sub-group-size", "group-order"}  # one of each kind first
    prg.checker.budget = 0.0
    try:
        r = check(prg, "histogram", (512,), (64,), x, np.zeros(16, np.int32))
    finally:
        prg.checker.budget = None
    assert r.ran == [] and r.why_not_run == "budget of 0 s spent"
    assert len(r.not_run) == 4 + 3 + 2  # sizes, work-group orders, atomic orders


def test_kinds_documented():
    text = open("docs/portability.md", encoding="utf-8").read()
    assert all(f"`{k}`" in text for k in KINDS)


BLOCK_SRC = r"""
kernel void own(global uint *out) {
  size_t base = get_global_id(0) - get_sub_group_local_id();
  intel_sub_group_block_write(out + base, (uint)get_global_id(0));
}
kernel void same(global uint *out) {
  intel_sub_group_block_write(out, (uint)get_group_id(0));
}
"""


def test_sharing_through_block_writes():
    """Work-groups writing their own blocks share nothing (no order variants); writing one
    block from every work-group is sharing, and the order variants find it."""
    ctx, _ = _context()
    prg = cl.Program(ctx, BLOCK_SRC).build("-cl-std=CL2.0", check="portability")
    prg.checker.echo = False
    own = check(prg, "own", (64,), (16,), np.zeros(64, np.uint32))
    assert own.findings == [] and "group-order" not in kinds_run(own) and own.notes
    same = check(prg, "same", (64,), (16,), np.zeros(64, np.uint32))
    # the last work-group to run wins; and a block of S elements changes with the size
    assert [f.kind for f in same.findings] == ["sub-group-size", "group-order"]


FAIL_SRC = r"""
kernel void spin(volatile global int *flag, global int *data, global int *out) {
  if (get_group_id(0) == 1 && get_local_id(0) == 0) { data[0] = 7; flag[0] = 1; }
  if (get_group_id(0) == 0 && get_local_id(0) == 0) {
    while (flag[0] == 0) ;
    out[0] = data[0];
  }
}
kernel void lane_table(global const float *table, global float *out) {
  out[get_global_id(0)] = table[get_sub_group_local_id()];
}
"""


@pytest.fixture(scope="module")
def failing():
    ctx, _ = _context()
    prg = cl.Program(ctx, FAIL_SRC).build("-cl-std=CL2.0", check="portability")
    prg.checker.echo = False
    return prg


def test_waiting_without_end_hits_the_step_budget(failing):
    """Work-group 0 spins until work-group 1 sets a flag: run first and alone, it never ends;
    the variant stops at four times the baseline's steps and is reported."""
    flag, data, out = np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32)
    r = check(failing, "spin", (32,), (16,), flag, data, out)
    f = only(r, "group-order")
    assert f.severity == "error" and out[0] == 7  # the baseline's result stays
    forward = next(o for o in f.outcomes if o.label == "group-order forward")
    assert "ran past" in forward.failure and "waits for one that has not run" in forward.failure


def test_read_past_the_end_at_another_size(failing):
    """A 16-entry table indexed by the sub-group lane: at 32 and 64 lanes the read leaves it."""
    table, out = np.arange(16, dtype=np.float32), np.zeros(64, np.float32)
    r = check(failing, "lane_table", (64,), (64,), table, out)
    f = only(r, "sub-group-size")
    failed = {o.label for o in f.outcomes if o.failure.startswith("memory error")}
    assert failed == {"sub-group-size 32", "sub-group-size 64"}
    assert f.severity == "error" and (out == np.tile(np.arange(16), 4)).all()


def test_program_scope_globals_start_alike():
    """A program-scope counter keeps its value across launches (OpenCL); every variant starts
    from the value the launch started with, and the baseline's result stays."""
    ctx, _ = _context()
    src = ("global int hits = 0;\n"
           "kernel void k(global int *out) { if (get_global_id(0) == 0) out[0] = hits++; }\n")
    prg = cl.Program(ctx, src).build("-cl-std=CL2.0", check="portability")
    prg.checker.echo = False
    for launch_number in range(2):
        out = np.full(1, -1, np.int32)
        r = check(prg, "k", (64,), (32,), out)
        assert r.findings == [] and out[0] == launch_number


def test_cpu_device_only(program):
    """The variants are settings of the CPU engine: another device is refused, not ignored."""
    from sgvm.check.portability import check_portability
    from sgvm.runtime.device import CUDA_DEVICE
    from sgvm.runtime.ndrange import NDRange

    with pytest.raises(sgvm.UnsupportedError, match="runs on the CPU device, not 'sgvm CUDA'"):
        check_portability(program.module, "vadd", [], NDRange((64,), (64,)), device=CUDA_DEVICE)


def test_check_modes(monkeypatch):
    from sgvm.check.runner import check_mode

    assert check_mode(True) == "ub" and check_mode(False) == "" and check_mode("portability")
    monkeypatch.setenv("SGVM_CHECK", "Portability")
    assert check_mode() == "portability"
    monkeypatch.setenv("SGVM_CHECK", "off")
    assert check_mode() == ""
    monkeypatch.setenv("SGVM_CHECK", "races")
    ctx, _ = _context()
    with pytest.raises(cl.LogicError, match="SGVM_CHECK='races' is not a check: use 1"):
        cl.Program(ctx, SRC).build()


def test_runs_on_the_default_native_device(monkeypatch):
    """Native is the default device; the portability check runs its launches on the NumPy
    engine (it refused the native device before)."""
    monkeypatch.delenv("SGVM_DEVICE", raising=False)
    _context.cache_clear()  # sgvm.run's context, on the default device
    try:
        ctx, _ = _context()
        assert ctx.devices[0].backend == "native"
        prg = cl.Program(ctx, SRC).build("-cl-std=CL2.0", check="portability")
        prg.checker.echo = False
        a, b = rng.random(256).astype(np.float32), rng.random(256).astype(np.float32)
        c = np.zeros(256, np.float32)
        r = check(prg, "vadd", (256,), (64,), a, b, c)
    finally:
        _context.cache_clear()
    assert r.findings == [] and (c == a + b).all()
    assert kinds_run(r) == {"sub-group-size"}
