"""Images and samplers through the host API, including a kernel round trip."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm.cl as cl

from .conftest import raises_cl

mf = cl.mem_flags
RGBA_F32 = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)

COPY = """
__kernel void flip(read_only image2d_t src, write_only image2d_t dst, sampler_t s)
{
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    int w = WIDTH;
    float4 v = read_imagef(src, s, (int2)(w - 1 - p.x, p.y));
    write_imagef(dst, p, v * 2.0f);
}
"""


def test_supported_formats(ctx: cl.Context) -> None:
    formats = cl.get_supported_image_formats(ctx, mf.READ_WRITE, cl.mem_object_type.IMAGE2D)
    assert RGBA_F32 in formats
    assert cl.ImageFormat(cl.channel_order.R, cl.channel_type.UNSIGNED_INT8) in formats


def test_host_round_trip_and_info(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    host = np.random.default_rng(1).random((6, 10, 4), dtype=np.float32)  # height, width, channels
    img = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, RGBA_F32, hostbuf=host)
    assert img.shape == (10, 6)
    assert img.width == 10 and img.height == 6 and img.element_size == 16
    assert img.get_info(cl.mem_info.TYPE) == cl.mem_object_type.IMAGE2D
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, img, origin=(0, 0), region=(10, 6))
    np.testing.assert_array_equal(out, host)
    part = np.empty((2, 3, 4), np.float32)
    cl.enqueue_copy(queue, part, img, origin=(4, 1), region=(3, 2))
    np.testing.assert_array_equal(part, host[1:3, 4:7])


def test_image_errors(ctx: cl.Context) -> None:
    with raises_cl("CL_INVALID_HOST_PTR"):
        cl.Image(ctx, mf.READ_ONLY, RGBA_F32, shape=(4, 4), hostbuf=np.zeros((4, 4, 4), np.float32))
    with raises_cl("CL_INVALID_IMAGE_DESCRIPTOR"):
        cl.Image(ctx, mf.READ_ONLY, RGBA_F32)
    with pytest.raises(cl.LogicError):
        cl.Image(ctx, mf.READ_ONLY, cl.ImageFormat(cl.channel_order.RGB, cl.channel_type.FLOAT), shape=(4, 4))


def test_sampler_info(ctx: cl.Context) -> None:
    s = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
    assert s.addressing_mode == cl.addressing_mode.CLAMP_TO_EDGE
    assert s.get_info(cl.sampler_info.NORMALIZED_COORDS) is False
    with pytest.raises(cl.LogicError):
        cl.Sampler(ctx, False, 0x9999, cl.filter_mode.NEAREST)


def test_image_round_trip_through_a_kernel(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    host = np.random.default_rng(2).random((8, 16, 4), dtype=np.float32)
    src = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, RGBA_F32, hostbuf=host)
    dst = cl.Image(ctx, mf.WRITE_ONLY, RGBA_F32, shape=(16, 8))
    sampler = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
    prg = cl.Program(ctx, COPY).build("-cl-std=CL2.0 -DWIDTH=16")
    with raises_cl("CL_INVALID_ARG_VALUE"):
        prg.flip(queue, (16, 8), None, dst, src, sampler)  # read_only parameter, WRITE_ONLY image
    with raises_cl("CL_INVALID_SAMPLER"):
        prg.flip(queue, (16, 8), None, src, dst, None)
    prg.flip(queue, (16, 8), None, src, dst, sampler)
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, dst, origin=(0, 0), region=(16, 8))
    np.testing.assert_array_equal(out, host[:, ::-1] * np.float32(2))


def test_buffer_image_copies(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.UNSIGNED_INT16)
    data = np.arange(12, dtype=np.uint16)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=data)
    img = cl.Image(ctx, mf.READ_WRITE, fmt, shape=(4, 3))
    cl.enqueue_copy(queue, img, buf, offset=0, origin=(0, 0), region=(4, 3))
    other = cl.Image(ctx, mf.READ_WRITE, fmt, shape=(4, 3))
    cl.enqueue_copy(queue, other, img, src_origin=(0, 0), dest_origin=(0, 0), region=(4, 3))
    back = cl.Buffer(ctx, mf.READ_WRITE, data.nbytes)
    cl.enqueue_copy(queue, back, other, offset=0, origin=(0, 0), region=(4, 3))
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, back)
    np.testing.assert_array_equal(out, data)
    host = np.full((3, 4), 9, np.uint16)
    cl.enqueue_copy(queue, img, host, origin=(0, 0), region=(4, 3))
    cl.enqueue_copy(queue, out, img, origin=(0, 0), region=(4, 3))
    np.testing.assert_array_equal(out, 9)
