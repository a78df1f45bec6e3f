"""Which work-items take part in a sub-group collective: the lanes that reached it together
by the CPU engine's rule (docs/cuda.md, "Sub-groups"), on both devices, against counts
derived here by hand. The GPU runs (``gpu``) are skipped without CuPy and a GPU; the CPU
runs and the renderer checks run everywhere.

Before the CUDA backend followed the engine's schedule, a collective after a loop whose
trip count differs per lane saw only the lanes the warp had reconverged so far
(``__activemask()``): 8 of 16 with the bounds checks on, and softmax rows summing to 2."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np
import pytest

import sgvm
from sgvm.engine.cuda.render import Renderer
from sgvm.engine.cuda.runtime import available
from sgvm.runtime import quick
from sgvm.runtime.args import BufferArg, ValueArg
from sgvm.runtime.device import CPU_DEVICE, CUDA_DEVICE
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import Module, read

ROOT = Path(__file__).resolve().parents[2]
DEVICES = [CPU_DEVICE, pytest.param(CUDA_DEVICE, marks=[
    pytest.mark.gpu, pytest.mark.skipif(not available(), reason="needs CuPy and an NVIDIA GPU")])]
S = 16

SOURCE = """
__attribute__((intel_reqd_sub_group_size(16)))
kernel void after_loop(global int *count, global int *sum, global int *bcast, global int *shuf,
                       global int *scan, int base) {
  int lane = get_sub_group_local_id(), g = get_global_id(0);
  int acc = 0;
  for (int i = 0; i < base + (lane * 5) % 7; i++) acc += i ^ lane;
  count[g] = sub_group_reduce_add(1);
  sum[g] = sub_group_reduce_add(acc);
  bcast[g] = sub_group_broadcast(acc, 3);
  shuf[g] = intel_sub_group_shuffle(acc, (lane + 1) % 16);
  scan[g] = sub_group_scan_inclusive_add(1);
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void in_branch(global int *count, int base) {
  int lane = get_sub_group_local_id(), g = get_global_id(0);
  count[g] = -1;
  if (lane % 3 == 0) {
    int acc = 0;
    for (int i = 0; i < base + lane; i++) acc += i;
    count[g] = sub_group_reduce_add(acc >= 0 ? 1 : 0);
  }
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void in_loop(global int *count) {
  int lane = get_sub_group_local_id(), g = get_global_id(0);
  for (int k = 0; k < 4; k++) count[4 * g + k] = -1;
  for (int k = 0; k < lane % 4 + 1; k++) count[4 * g + k] = sub_group_reduce_add(1);
}

__attribute__((noinline)) int members_after(int trips) {
  int acc = 0;
  for (int i = 0; i < trips; i++) acc += i;
  return sub_group_reduce_add(acc >= 0 ? 1 : 0);
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void in_call(global int *count, int base) {
  int lane = get_sub_group_local_id(), g = get_global_id(0);
  count[g] = -1;
  if (lane < 10) count[g] = members_after(base + lane);
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void after_return(global int *count, int base) {
  int lane = get_sub_group_local_id(), g = get_global_id(0);
  count[g] = -1;
  if (lane >= 12) return;
  int acc = 0;
  for (int i = 0; i < base + lane; i++) acc += i;
  count[g] = sub_group_reduce_add(acc >= 0 ? 1 : 0);
}

__attribute__((noinline)) int free_tail(global int *o) {
  int s = sub_group_reduce_add(1);
  int lane = get_sub_group_local_id();
  for (int k = 0; k < lane % 5; k++) o[get_global_id(0)] += k + 1;  // no collective after
  return s;
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void after_free_tail(global int *count, global int *again, global int *o) {
  int g = get_global_id(0);
  count[g] = free_tail(o);
  again[g] = sub_group_reduce_add(1);
}
"""


@functools.cache
def module() -> Module:
    return read(sgvm.compile(SOURCE, "-cl-std=CL2.0"))


def run(device, kernel: str, n: int, local: int, outs: int, *scalars: int) -> list[np.ndarray]:
    allocs = [Allocation(np.zeros(n * (4 if kernel == "in_loop" else 1), np.int32).view(np.uint8), "global", "")
              for _ in range(outs)]
    args = [BufferArg(a) for a in allocs] + [ValueArg(np.int32(v).tobytes()) for v in scalars]
    launch(module(), kernel, args, NDRange((n,), (local,)), device=device)
    out = []
    for a in allocs:
        sgvm.runtime.residency.host_access(a)
        out.append(a.data.view(np.int32).copy())
    return out


def lanes(n: int, local: int) -> tuple[np.ndarray, np.ndarray]:
    """Each work-item's lane and its sub-group's size (work-group ``local``, S = 16)."""
    lid = np.arange(n) % local
    sg_start = lid // S * S
    size = np.minimum(S, local - sg_start)
    return lid % S, size


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("n", "local"), [(64, 32), (40, 20)])
def test_collective_after_loop_sees_the_whole_sub_group(device, n: int, local: int) -> None:
    base = 3
    count, total, bcast, shuf, scan = run(device, "after_loop", n, local, 5, base)
    lane, size = lanes(n, local)
    acc = np.array([sum(i ^ ln for i in range(base + (ln * 5) % 7)) for ln in lane])
    first = np.arange(n) - lane  # the global id of each work-item's lane 0
    np.testing.assert_array_equal(count, size)
    np.testing.assert_array_equal(total, [acc[f:f + s].sum() for f, s in zip(first, size, strict=True)])
    np.testing.assert_array_equal(bcast, acc[first + 3])
    src = (lane + 1) % S
    np.testing.assert_array_equal(shuf, np.where(src < size, acc[np.minimum(first + src, n - 1)], shuf))
    np.testing.assert_array_equal(scan, lane + 1)


@pytest.mark.parametrize("device", DEVICES)
def test_collective_in_a_branch_sees_the_lanes_that_took_it(device) -> None:
    (count,) = run(device, "in_branch", 48, 48, 1, 2)
    lane, _ = lanes(48, 48)
    np.testing.assert_array_equal(count, np.where(lane % 3 == 0, 6, -1))  # lanes 0, 3, …, 15


@pytest.mark.parametrize("device", DEVICES)
def test_collective_in_a_loop_sees_the_lanes_still_looping(device) -> None:
    (count,) = run(device, "in_loop", 32, 32, 1)
    lane, _ = lanes(32, 32)
    trips = lane % 4 + 1
    want = np.full((32, 4), -1)
    for k in range(4):
        want[trips > k, k] = (trips > k).reshape(2, 16).sum(axis=1).repeat(16)[trips > k]
    np.testing.assert_array_equal(count.reshape(32, 4), want)


@pytest.mark.parametrize("device", DEVICES)
def test_collective_in_a_called_function_sees_its_callers(device) -> None:
    (count,) = run(device, "in_call", 32, 32, 1, 1)
    lane, _ = lanes(32, 32)
    np.testing.assert_array_equal(count, np.where(lane < 10, 10, -1))


@pytest.mark.parametrize("device", DEVICES)
def test_collective_after_some_lanes_returned(device) -> None:
    (count,) = run(device, "after_return", 32, 32, 1, 2)
    lane, _ = lanes(32, 32)
    np.testing.assert_array_equal(count, np.where(lane < 12, 12, -1))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [200, 199, 193, 16])
def test_softmax_example_rows_sum_to_one(device, n: int) -> None:
    sys.path.insert(0, str(ROOT / "examples"))
    from softmax import SOURCE as SOFTMAX

    rows = 8
    x = (np.random.default_rng(n).standard_normal((rows, n)) * 4).astype(np.float32)
    args = [Allocation(x.view(np.uint8).reshape(-1).copy(), "global", "x"),
            Allocation(np.zeros(rows * n * 4, np.uint8), "global", "y")]
    launch(read(sgvm.compile(SOFTMAX)), "softmax", [BufferArg(a) for a in args] + [ValueArg(np.int32(n).tobytes())],
           NDRange((16, rows), (16, 1)), device=device)
    sgvm.runtime.residency.host_access(args[1])
    y = args[1].data.view(np.float32).reshape(rows, n)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=2e-5, atol=1e-7)


@pytest.mark.parametrize("device", DEVICES)
def test_run_updates_the_arrays(device, monkeypatch: pytest.MonkeyPatch) -> None:
    """sgvm.run's arrays hold the results after the launch on every device."""
    monkeypatch.setenv("SGVM_DEVICE", "cuda" if device is CUDA_DEVICE else "cpu")
    quick._context.cache_clear()
    try:
        out = np.zeros(1024, np.float32)
        x = np.arange(1024, dtype=np.float32)
        sgvm.run("kernel void scale(global const float *x, global float *y, float a) "
                 "{ size_t i = get_global_id(0); y[i] = a * x[i]; }", "scale", (1024,), None, x, out,
                 np.float32(2))
        np.testing.assert_array_equal(out, 2 * x)
    finally:
        quick._context.cache_clear()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("n", "local"), [(64, 32), (40, 20)])
def test_callers_meet_again_after_a_callee_s_free_tail(device, n: int, local: int) -> None:
    """The callee's loop after its last collective runs as plain gotos, per-lane trip counts
    apart; its lanes still return together, so the caller's next collective sees the whole
    sub-group."""
    count, again, o = run(device, "after_free_tail", n, local, 3)
    lane, size = lanes(n, local)
    m = lane % 5
    np.testing.assert_array_equal(count, size)
    np.testing.assert_array_equal(again, size)
    np.testing.assert_array_equal(o, m * (m + 1) // 2)


def test_branches_after_the_last_collective_are_plain_gotos() -> None:
    """After a function's last collective no ballot or scheduler is needed: ``if (lane == 0)
    out[...] = sum`` is a plain branch; a branch that can lead to a collective keeps both."""
    after, _ = Renderer(read(sgvm.compile(
        "kernel void k(global float *x, global float *o) {"
        "  float s = sub_group_reduce_add(x[get_global_id(0)]);"
        "  if (get_sub_group_local_id() == 0) o[get_global_id(0) / 16] = s; }")), S, True).render()
    assert "sg_reduce<" in after and "__ballot_sync(sg_m, c_)" not in after
    assert "sg_pc = 1u" not in after
    before, _ = Renderer(read(sgvm.compile(
        "kernel void k(global int *o) { int v = 0;"
        "  for (int i = 0; i < get_sub_group_local_id(); i++) v += o[i];"
        "  o[get_global_id(0)] = sub_group_reduce_add(v); }")), S, True).render()
    assert "__ballot_sync(sg_m, c_)" in before and "goto sg_sched;" in before


def test_only_functions_with_collectives_run_under_the_schedule() -> None:
    src, _ = Renderer(module(), S, True).render()
    helper = next(line for line in src.splitlines() if line.startswith("__device__ u32 f")
                  and line.endswith("{") and "u32 sg_in" in line)
    assert helper  # members_after takes the lanes that called it together
    assert "sg_m = __ballot_sync(sg_in, sg_pc == cur_);" in src
    assert "sg_reduce<OpAdd<u32>, u32>(sg_m, " in src
    plain, _ = Renderer(read(sgvm.compile("kernel void k(global int *a) { for (int i = 0; i < a[1]; i++) "
                                          "a[i + 2] = i; }")), S, True).render()
    assert "sg_sched" not in plain and "u32 sg_in" not in plain
