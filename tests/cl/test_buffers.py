"""Buffers, sub-buffers, copies, fills and maps."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm.cl as cl

from .conftest import raises_cl

mf = cl.mem_flags


def test_copy_host_ptr_copies(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    a = np.arange(100, dtype=np.int32)
    buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    assert buf.size == a.nbytes and buf.get_info(cl.mem_info.SIZE) == a.nbytes
    a[:] = -1
    out = np.empty(100, np.int32)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, np.arange(100))


def test_use_host_ptr_shares_memory(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    a = np.zeros(16, np.float32)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.USE_HOST_PTR, hostbuf=a)
    assert buf.hostbuf is a
    cl.enqueue_copy(queue, buf, np.full(16, 3, np.float32))
    queue.finish()
    np.testing.assert_array_equal(a, np.full(16, 3, np.float32))


def test_buffer_creation_errors(ctx: cl.Context) -> None:
    a = np.zeros(4, np.float32)
    with raises_cl("CL_INVALID_BUFFER_SIZE"):
        cl.Buffer(ctx, mf.READ_WRITE, 0)
    with raises_cl("CL_INVALID_BUFFER_SIZE"):
        cl.Buffer(ctx, mf.READ_WRITE, ctx.devices[0].max_mem_alloc_size + 1)
    with raises_cl("CL_INVALID_HOST_PTR"):
        cl.Buffer(ctx, mf.READ_WRITE, hostbuf=a)
    with raises_cl("CL_INVALID_HOST_PTR"):
        cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, 16)
    with raises_cl("CL_INVALID_VALUE"):
        cl.Buffer(ctx, mf.READ_WRITE | mf.USE_HOST_PTR | mf.COPY_HOST_PTR, hostbuf=a)
    with raises_cl("CL_INVALID_VALUE"):
        cl.Buffer(ctx, mf.READ_ONLY | mf.WRITE_ONLY, 16)
    with raises_cl("CL_INVALID_VALUE"):
        cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, 64, hostbuf=a)
    with pytest.raises(cl.LogicError) as info:
        cl.Buffer(ctx, mf.READ_WRITE, -5)
    assert info.value.code == -61


def test_buffer_to_buffer_copies_with_offsets(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    a = np.arange(64, dtype=np.uint8)
    src = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)
    dst = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(64, np.uint8))
    cl.enqueue_copy(queue, dst, src, src_offset=8, dst_offset=16, byte_count=10)
    out = np.empty(64, np.uint8)
    cl.enqueue_copy(queue, out, dst)
    expect = np.zeros(64, np.uint8)
    expect[16:26] = a[8:18]
    np.testing.assert_array_equal(out, expect)
    with raises_cl("CL_INVALID_VALUE"):
        cl.enqueue_copy(queue, dst, src, src_offset=60, byte_count=10)
    with raises_cl("CL_MEM_COPY_OVERLAP"):
        cl.enqueue_copy(queue, src, src, src_offset=0, dst_offset=4, byte_count=8)


def test_host_copies_with_device_offset(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    buf = cl.Buffer(ctx, mf.READ_WRITE, 32)
    cl.enqueue_copy(queue, buf, np.zeros(8, np.float32))
    cl.enqueue_copy(queue, buf, np.array([7, 8], np.float32), device_offset=8, is_blocking=False)
    out = np.empty(4, np.float32)
    cl.enqueue_copy(queue, out, buf, device_offset=4)
    np.testing.assert_array_equal(out, [0, 7, 8, 0])
    with raises_cl("CL_INVALID_VALUE"):
        cl.enqueue_copy(queue, np.empty(9, np.float32), buf)
    with raises_cl("CL_INVALID_VALUE"):
        cl.enqueue_copy(queue, np.empty(1), np.empty(1))


def test_sub_buffers(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    a = np.arange(512, dtype=np.float32)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)
    sub = buf.get_sub_region(512, 256)
    assert sub.size == 256 and sub.offset == 512 and sub.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT) is buf
    out = np.empty(64, np.float32)
    cl.enqueue_copy(queue, out, sub)
    np.testing.assert_array_equal(out, a[128:192])
    cl.enqueue_fill_buffer(queue, buf[1024:1280], np.float32(-1), 0, 256)
    whole = np.empty_like(a)
    cl.enqueue_copy(queue, whole, buf)
    expect = a.copy()
    expect[256:320] = -1
    np.testing.assert_array_equal(whole, expect)
    with raises_cl("CL_MISALIGNED_SUB_BUFFER_OFFSET"):
        buf.get_sub_region(4, 16)
    with raises_cl("CL_INVALID_VALUE"):
        buf.get_sub_region(1024, 4096)
    with raises_cl("CL_INVALID_BUFFER_SIZE"):
        buf.get_sub_region(0, 0)
    with raises_cl("CL_INVALID_MEM_OBJECT"):
        sub.get_sub_region(0, 16)


def test_fill_buffer(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    buf = cl.Buffer(ctx, mf.READ_WRITE, 64)
    cl.enqueue_fill_buffer(queue, buf, np.uint16(0xABCD), 0, 64)
    cl.enqueue_fill_buffer(queue, buf, np.uint32(7), 16, 16)
    out = np.empty(32, np.uint16)
    cl.enqueue_copy(queue, out, buf)
    expect = np.full(32, 0xABCD, np.uint16)
    expect[8:16] = np.full(4, 7, np.uint32).view(np.uint16)
    np.testing.assert_array_equal(out, expect)
    with raises_cl("CL_INVALID_VALUE"):
        cl.enqueue_fill_buffer(queue, buf, np.uint32(1), 2, 4)
    with raises_cl("CL_INVALID_VALUE"):
        cl.enqueue_fill_buffer(queue, buf, np.zeros(3, np.uint8), 0, 3)
    with raises_cl("CL_INVALID_VALUE"):
        cl.enqueue_fill_buffer(queue, buf, np.uint32(1), 60, 8)


def test_map_buffer(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.arange(16, dtype=np.int32))
    ary, ev = cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ | cl.map_flags.WRITE, 16, (4, 2), np.int32)
    np.testing.assert_array_equal(ary, np.arange(4, 12).reshape(4, 2))
    ary[:] = 0
    ary.base.release(queue)
    out = np.empty(16, np.int32)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, np.r_[0:4, np.zeros(8, np.int32), 12:16])


def test_legacy_transfer_names(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    src = cl.Buffer(ctx, mf.READ_WRITE, 16)
    dst = cl.Buffer(ctx, mf.READ_WRITE, 16)
    cl.enqueue_write_buffer(queue, src, np.arange(4, dtype=np.int32)).wait()
    cl.enqueue_copy_buffer(queue, src, dst)
    out = np.empty(4, np.int32)
    cl.enqueue_read_buffer(queue, dst, out, is_blocking=True)
    np.testing.assert_array_equal(out, np.arange(4))


ALIGNMENT_PROBE = """
kernel void where(global const uchar* a, global const uchar* b, global ulong* out) {
  out[0] = (ulong)a % 128; out[1] = (ulong)b % 128; out[2] = (ulong)out % 128;
}
"""


@pytest.mark.parametrize("which", [0, 1], ids=["native", "numpy"])
def test_buffers_start_at_the_base_address_alignment(which: int) -> None:
    """OpenCL C, "Alignment of Types": "a data item declared to be a data type in memory
    is always aligned to the size of the data type in bytes"; a kernel may read any buffer
    as ``long16``, so each starts at a multiple of 128 bytes, the
    CL_DEVICE_MEM_BASE_ADDR_ALIGN the device reports (the alignment sub-buffer origins keep).
    The native backend hands kernels the host address, which NumPy put 16 bytes into a
    line."""
    dev = cl.get_platforms()[0].get_devices()[which]
    align = dev.get_info(cl.device_info.MEM_BASE_ADDR_ALIGN) // 8
    assert align == 128
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, ALIGNMENT_PROBE).build()
    for size in (1, 100, 4096, 3 << 20):
        a = cl.Buffer(ctx, mf.READ_ONLY, size)
        b = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ones(size, np.uint8))
        out = cl.Buffer(ctx, mf.WRITE_ONLY, 24)
        prg.where(q, (1,), None, a, b, out)
        got = np.empty(3, np.uint64)
        cl.enqueue_copy(q, got, out)
        assert got.tolist() == [0, 0, 0], (dev.name, size)
