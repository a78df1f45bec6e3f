"""Memory isolation: every work-group's local objects and every work-item's private
objects are allocations of their own for bounds checks; negative offsets name the
argument they came from; private memory is sized per kernel; reversed int indexes."""

import numpy as np
import pytest

from sgvm import KernelMemoryError
from sgvm.errors import LogicError
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg, NullArg, ValueArg
from sgvm.runtime.device import CPU_DEVICE
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation, zeroed
from sgvm.runtime.ndrange import NDRange

from . import harness
from .harness import DEVICE, O0, OPTS, Local, build, run

# The CUDA backend checks local memory per work-group (each block has its own) but not per
# variable, and leaves private memory unchecked (docs/cuda.md, "Memory errors").
CPU_ONLY = pytest.mark.skipif(DEVICE is not CPU_DEVICE,
                              reason="per-object local and private bounds: CPU engine only")

SRC = r"""
kernel void local_overrun(global int* out, int shift) {
  local int t[64];
  int l = get_local_id(0);
  t[l + shift] = l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = t[l];
}
kernel void local_into_next(global int* out, int shift) {
  local int t[64];
  local int u[64];
  int l = get_local_id(0);
  t[l] = l;
  u[l] = -l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = t[l + shift] + u[l];
}
kernel void local_arg_overrun(local int* t, global int* out, int shift) {
  int l = get_local_id(0);
  t[l] = l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = t[l + shift];
}
kernel void private_overrun(global int* out, int mask) {
  int i = get_global_id(0);
  int a[4];
  for (int k = 0; k < 4; k++) a[k] = i * 10 + k;
  out[i] = a[i & mask];
}
kernel void negative_offset(global const float* a, global const float* b, global float* out) {
  int i = get_global_id(0);
  out[i] = a[i] + b[i - 1];
}
kernel void odd_stride(global const int* in, global int* out) {
  int i = get_global_id(0);
  if (i % 2 == 0) out[i] = *(global const int*)((global const char*)in + 2 * i);
}
kernel void far_store(global int* a, global int* b, long d) {
  if (get_global_id(0) == 0) b[d] = 7;
}
kernel void null_first(global int* maybe, global int* out, int shift) {
  int i = get_global_id(0);
  if (maybe) maybe[i] = i;
  out[i + shift] = i;
}
kernel void through_address(global int* a, global int* b, int pick) {
  global int* p = a;
  global int** q = &p;
  if (pick) *q = b;
  p[get_global_id(0)] = 1;
}
kernel void private_wide(global long* out, int k) {
  int a = k;
  out[get_global_id(0)] = *(long*)&a;
}
kernel void tiny(global int* out) {
  out[get_global_id(0)] = 7;
}
kernel void big_private(global int* out, int n) {
  int a[16384];
  for (int k = 0; k < n; k++) a[k] = k;
  out[get_global_id(0)] = a[n - 1];
}
kernel void huge_private(global int* out, int n) {
  int a[1 << 24];
  for (int k = 0; k < n; k++) a[k] = k;
  out[get_global_id(0)] = a[n - 1];
}
"""


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


def test_local_array_overrun_into_the_next_work_group_is_out_of_bounds(module):
    """t[l + 64] of work-group 0 lands in work-group 1's copy of t: it must raise, naming
    the variable and the offset from work-group 0's copy."""
    with pytest.raises(KernelMemoryError) as e:
        run(module, "local_overrun", [np.zeros(256, np.int32), np.int32(64)], 256, 64)
    msg = str(e.value)
    assert "byte offset 256 of" in msg and "global id (0,)" in msg, msg
    if DEVICE is CPU_DEVICE:
        assert "local variable '" in msg and "t'" in msg, msg
        assert "256 bytes per work-group" in msg, msg


@CPU_ONLY
def test_local_array_overrun_into_the_next_local_variable_is_out_of_bounds(module):
    """t[l + 64] lands in the work-group's next local variable: still outside t, so an
    error naming t, as for an overrun into another work-group's copy."""
    with pytest.raises(KernelMemoryError) as e:
        run(module, "local_into_next", [np.zeros(64, np.int32), np.int32(64)], 64, 64)
    msg = str(e.value)
    assert "byte offset 256 of" in msg and "global id (0,)" in msg, msg
    (out, ), _ = run(module, "local_into_next", [np.zeros(64, np.int32), np.int32(0)], 64, 64)
    np.testing.assert_array_equal(out, np.zeros(64))


def test_local_array_in_bounds_runs(module):
    (out, ), _ = run(module, "local_overrun", [np.zeros(256, np.int32), np.int32(0)], 256, 64)
    np.testing.assert_array_equal(out, np.arange(256) % 64)


def test_local_argument_overrun_names_the_argument(module):
    with pytest.raises(KernelMemoryError) as e:
        run(module, "local_arg_overrun", [Local(64 * 4), np.zeros(128, np.int32), np.int32(1)],
            128, 64)
    msg = str(e.value)
    assert "byte offset 256" in msg and "global id (63,)" in msg, msg
    if DEVICE is CPU_DEVICE:
        assert "argument #0" in msg and "(local)" in msg, msg


@CPU_ONLY
def test_private_array_overrun_into_a_neighbour_is_out_of_bounds(module):
    """a[i & 7] on int a[4] reads work-item i+1's a (same layout) without a check."""
    with pytest.raises(KernelMemoryError) as e:
        run(module, "private_overrun", [np.zeros(16, np.int32), np.int32(7)], 16, 16)
    msg = str(e.value)
    assert "private variable" in msg and "16 bytes per work-item" in msg, msg
    assert "byte offset 16 " in msg and "global id (4,)" in msg, msg
    (out, ), _ = run(module, "private_overrun", [np.zeros(16, np.int32), np.int32(3)], 16, 16)
    i = np.arange(16)
    np.testing.assert_array_equal(out, i * 10 + (i & 3))


@CPU_ONLY
def test_a_load_wider_than_its_private_variable_is_out_of_bounds():
    """``*(long*)&a`` on ``int a`` under -cl-opt-disable (clang drops the load otherwise):
    the variable's own address, but 8 bytes of its 4, so still checked (only accesses
    inside a private variable go unchecked)."""
    with pytest.raises(KernelMemoryError) as e:
        run(build(SRC, O0), "private_wide", [np.zeros(16, np.int64), np.int32(1)], 16, 16)
    msg = str(e.value)
    assert "out-of-bounds load of 8 bytes at byte offset 0 of private variable" in msg, msg
    assert "(4 bytes per work-item) by work-item with global id (0,)" in msg, msg


def test_negative_offset_names_the_argument_it_came_from(module):
    with pytest.raises(KernelMemoryError) as e:
        run(module, "negative_offset", [np.ones(16, np.float32), np.ones(16, np.float32),
                                        np.zeros(16, np.float32)], 16, 16)
    msg = str(e.value)
    assert "out-of-bounds load of 4 bytes at byte offset -4 of argument #1 (64 bytes)" in msg, msg
    assert "global id (0,)" in msg, msg


def test_valid_accesses_through_an_odd_stride_are_not_errors(module):
    """Active lanes 0, 2, 4 … read aligned ints through a pointer stepping 2 bytes per lane
    (the inactive odd lanes would be misaligned): no error, and no "None load" message."""
    src = np.arange(64, dtype=np.int32)
    (_, out), _ = run(module, "odd_stride", [src, np.zeros(16, np.int32)], 16, 16)
    i = np.arange(16)
    np.testing.assert_array_equal(out, np.where(i % 2 == 0, i // 2, 0))


def _address(a: Allocation) -> int:
    """Where kernels see ``a``: its device copy on the CUDA backend, else its own bytes."""
    if harness.on_cuda():
        from sgvm.engine.cuda.mirrors import MIRRORS

        return int(MIRRORS.device(a).data.ptr)
    return a.data.ctypes.data


def test_a_pointer_stepped_into_another_buffer_is_out_of_bounds(module):
    """b[d], d the distance in ints from b to a: the address lies inside argument #0, but the
    pointer is argument #1's (under -cl-opt-disable kept in a private variable and loaded
    back), so the store is out of bounds, as on the NumPy engine, whose pointers carry their
    allocation; a is left as it was. (The native backend once checked such a pointer against
    every buffer of the launch and wrote a[0]; the CUDA backend did so for every pointer.)"""
    b, a = sorted((Allocation(zeroed(64), "global", "") for _ in range(2)), key=_address)
    d = (_address(a) - _address(b)) // 4  # > 0: the NumPy engine's offsets do not go below 0
    with pytest.raises(KernelMemoryError) as e:
        launch(module, "far_store", [BufferArg(a), BufferArg(b), ValueArg(np.int64(d).tobytes())],
               NDRange((16,), (16,)), device=harness.DEVICE)
    msg = str(e.value)
    assert f"out-of-bounds store of 4 bytes at byte offset {4 * d} of argument #1 (64 bytes) " \
        "by work-item with global id (0,)" in msg, msg
    residency.host_access(a)
    assert not a.data.any()


@pytest.mark.parametrize("pick", [0, 1])
def test_a_pointer_variable_whose_address_is_taken_may_point_anywhere(module, pick):
    """``p = a``, then ``*&p = b`` through another variable: a load of ``p`` may give either
    buffer (the variable's address escaped), so neither is its one object and the stores
    into ``b`` are no errors."""
    (a, b), _ = run(module, "through_address", [np.zeros(16, np.int32), np.zeros(16, np.int32),
                                                np.int32(pick)], 16, 16)
    np.testing.assert_array_equal(b if pick else a, np.ones(16))
    np.testing.assert_array_equal(a if pick else b, np.zeros(16))


def test_a_null_argument_keeps_the_next_buffers_checks_its_own(module):
    """A null pointer argument before a buffer: the buffer's accesses are checked against
    the buffer (the CUDA backend's table holds an empty region for the null argument, so
    each buffer's region keeps its place), and its overrun names it."""
    out = Allocation(zeroed(64), "global", "")

    def launch_with(shift: int) -> None:
        launch(module, "null_first", [NullArg(), BufferArg(out), ValueArg(np.int32(shift).tobytes())],
               NDRange((16,), (16,)), device=harness.DEVICE)

    launch_with(0)
    residency.host_access(out)
    np.testing.assert_array_equal(out.data.view(np.int32), np.arange(16))
    with pytest.raises(KernelMemoryError) as e:
        launch_with(1)
    assert "out-of-bounds store of 4 bytes at byte offset 64 of argument #1 (64 bytes) by " \
        "work-item with global id (15,)" in str(e.value), e.value


def test_private_memory_is_sized_for_the_launched_kernel(module):
    """Another kernel's int a[16384] does not make a tiny kernel allocate 64 KiB per lane."""
    (out,), _ = run(module, "tiny", [np.zeros(1 << 16, np.int32)], 1 << 16, 256)
    assert (out == 7).all()


@CPU_ONLY
def test_a_big_private_array_runs_in_smaller_batches(module):
    (out,), _ = run(module, "big_private", [np.zeros(4096, np.int32), np.int32(16384)], 4096, 256)
    assert (out == 16383).all()


def test_kernel_private_mem_size_counts_the_kernels_own_variables():
    import sgvm.cl as cl

    ctx = cl.create_some_context(interactive=False)
    prg = cl.Program(ctx, SRC).build("-cl-std=CL2.0")
    info = cl.kernel_work_group_info.PRIVATE_MEM_SIZE
    assert prg.tiny.get_work_group_info(info, ctx.devices[0]) == 0
    assert prg.big_private.get_work_group_info(info, ctx.devices[0]) == 16384 * 4


@CPU_ONLY
def test_private_memory_one_work_group_cannot_hold_is_out_of_resources(module):
    with pytest.raises(LogicError, match=r"OUT_OF_RESOURCES - kernel 'huge_private' needs "
                       r"671088\d\d bytes of private memory per work-item, \d+ for a work-group "
                       r"of 256 work-items"):
        run(module, "huge_private", [np.zeros(256, np.int32), np.int32(4)], 256, 256)


REVERSE = r"""
kernel void rev_int(global const int* in, global int* out) {
  int i = get_global_id(0);
  out[i] = in[63 - i];
}
kernel void rev_long(global const int* in, global int* out) {
  long i = get_global_id(0);
  out[i] = in[63 - i];
}
kernel void rev_short(global const int* in, global int* out) {
  short i = get_global_id(0);
  out[i] = in[(short)(63 - i)];
}
kernel void ramps(global int* out, global long* wide) {
  int i = get_global_id(0);
  out[4 * i] = -i;
  out[4 * i + 1] = 2147483647 - i;
  out[4 * i + 2] = (int)(0xFFFFFFFFu - (uint)i);
  out[4 * i + 3] = i * -3 + 5;
  wide[i] = (long)(63 - i) << 32;
}
"""


@pytest.fixture(scope="module", params=OPTS)
def reverse(request):
    return build(REVERSE, request.param)


@pytest.mark.parametrize("kernel", ["rev_int", "rev_long", "rev_short"])
def test_reversed_index(reverse, kernel):
    src = np.arange(64, dtype=np.int32) * 3 + 1
    (_, out), _ = run(reverse, kernel, [src, np.zeros(64, np.int32)], 64, 16)
    np.testing.assert_array_equal(out, src[::-1])


def test_decreasing_integer_sequences(reverse):
    """Lane sequences with negative strides and values at the type's limits."""
    (out, wide), _ = run(reverse, "ramps", [np.zeros(256, np.int32), np.zeros(64, np.int64)], 64,
                         64)
    i = np.arange(64, dtype=np.int64)
    expect = np.stack([-i, 2147483647 - i, (0xFFFFFFFF - i).astype(np.uint32).view(np.int32),
                       i * -3 + 5], axis=1).astype(np.int32)
    np.testing.assert_array_equal(out.reshape(64, 4), expect)
    np.testing.assert_array_equal(wide, (63 - i) << 32)
