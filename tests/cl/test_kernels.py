"""Kernel arguments, work sizes and launches through the PyOpenCL-style API."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm.cl as cl

from .conftest import raises_cl

mf = cl.mem_flags

SOURCE = """
typedef struct { float scale; int shift; float4 bias; } params_t;

__kernel void affine(__global const float *x, __global float *y, params_t p, float3 v)
{
    int i = get_global_id(0);
    y[i] = x[i] * p.scale + p.shift + p.bias.w + v.z;
}

__kernel void ids(__global int *out, uint n)
{
    size_t i = get_global_id(0) - get_global_offset(0);
    if (i < n) out[i] = (int)(get_global_id(0) * 1000 + get_local_size(0));
}

__kernel void grid(__global int *out)
{
    out[get_global_id(1) * get_global_size(0) + get_global_id(0)] =
        (int)(get_group_id(0) + 100 * get_local_id(1));
}

__kernel void maybe(__global int *p, int v) { if (p) p[get_global_id(0)] = v; }

__kernel void stage(__global const float *x, __global float *y, __local float *tmp)
{
    int l = get_local_id(0), n = get_local_size(0);
    tmp[l] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    y[get_global_id(0)] = tmp[n - 1 - l];
}

__kernel __attribute__((reqd_work_group_size(8, 1, 1))) void fixed8(__global int *out)
{
    out[get_global_id(0)] = (int)get_local_size(0);
}
"""

# get_local_size of 60 work-items in groups of 16: the remainder group has 12.
REMAINDER_LOCAL = np.where(np.arange(60) < 48, 16, 12)
PARAMS = np.dtype([("scale", np.float32), ("shift", np.int32), ("pad", np.int32, 2),
                   ("bias", np.float32, 4)])


@pytest.fixture
def prg(ctx: cl.Context) -> cl.Program:
    return cl.Program(ctx, SOURCE).build()


def _out(ctx: cl.Context, n: int, dtype=np.int32) -> tuple[np.ndarray, cl.Buffer]:
    host = np.zeros(n, dtype)
    return host, cl.Buffer(ctx, mf.READ_WRITE | mf.USE_HOST_PTR, hostbuf=host)


def test_struct_and_vector_by_value(ctx: cl.Context, queue: cl.CommandQueue, prg: cl.Program) -> None:
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    xg = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    y, yg = _out(ctx, 64, np.float32)
    p = np.zeros((), PARAMS)
    p["scale"], p["shift"], p["bias"] = 3.0, 2, [0, 0, 0, 0.5]
    v = np.array([0, 0, 0.25, 0], np.float32)
    prg.affine(queue, x.shape, (16,), xg, yg, p, v)
    queue.finish()
    np.testing.assert_allclose(y, x * np.float32(3) + np.float32(2.75), rtol=1e-6)
    with raises_cl("CL_INVALID_ARG_SIZE"):
        prg.affine(queue, x.shape, None, xg, yg, np.zeros((), [("scale", np.float32), ("shift", np.int32)]), v)
    with raises_cl("CL_INVALID_ARG_SIZE"):
        prg.affine(queue, x.shape, None, xg, yg, p, v[:3])


def test_argument_errors(ctx: cl.Context, queue: cl.CommandQueue, prg: cl.Program) -> None:
    _, buf = _out(ctx, 16)
    knl = prg.ids
    with raises_cl("CL_INVALID_ARG_VALUE"):
        knl(queue, (16,), None, buf, 16)  # a Python int has no size
    with raises_cl("CL_INVALID_ARG_SIZE"):
        knl(queue, (16,), None, buf, np.int64(16))
    with raises_cl("CL_INVALID_MEM_OBJECT"):
        knl(queue, (16,), None, np.zeros(16, np.int32), np.uint32(16))
    with raises_cl("CL_INVALID_ARG_VALUE"):
        knl(queue, (16,), None, buf, buf)
    with raises_cl("CL_INVALID_ARG_INDEX"):
        knl.set_arg(2, np.uint32(1))
    with raises_cl("CL_INVALID_KERNEL_ARGS"):
        knl(queue, (16,), None, buf)
    fresh = cl.Kernel(prg, "ids")
    fresh.set_arg(0, buf)
    with raises_cl("CL_INVALID_KERNEL_ARGS"):
        cl.enqueue_nd_range_kernel(queue, fresh, (16,), None)
    with raises_cl("CL_INVALID_ARG_VALUE"):
        prg.stage(queue, (16,), None, buf, buf, buf)
    with raises_cl("CL_INVALID_ARG_SIZE"):
        prg.stage(queue, (16,), None, buf, buf, cl.LocalMemory(0))


def test_scalar_arg_dtypes_allow_python_numbers(ctx: cl.Context, queue: cl.CommandQueue,
                                                prg: cl.Program) -> None:
    out, buf = _out(ctx, 32)
    knl = prg.ids
    knl.set_scalar_arg_dtypes([None, np.uint32])
    knl(queue, (32,), (8,), buf, 20)
    queue.finish()
    np.testing.assert_array_equal(out, np.where(np.arange(32) < 20, np.arange(32) * 1000 + 8, 0))


def test_null_buffer_argument(ctx: cl.Context, queue: cl.CommandQueue, prg: cl.Program) -> None:
    prg.maybe(queue, (4,), None, None, np.int32(5))
    out, buf = _out(ctx, 4)
    prg.maybe(queue, (4,), None, buf, np.int32(5))
    queue.finish()
    np.testing.assert_array_equal(out, 5)


def test_global_offset_and_local_memory(ctx: cl.Context, queue: cl.CommandQueue, prg: cl.Program) -> None:
    out, buf = _out(ctx, 16)
    prg.ids(queue, (16,), (4,), buf, np.uint32(16), global_offset=(100,))
    queue.finish()
    np.testing.assert_array_equal(out, (np.arange(16) + 100) * 1000 + 4)
    x = np.arange(32, dtype=np.float32)
    y, yg = _out(ctx, 32, np.float32)
    prg.stage(queue, (32,), (8,), cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x), yg,
              cl.LocalMemory(8 * 4))
    queue.finish()
    np.testing.assert_array_equal(y, x.reshape(4, 8)[:, ::-1].ravel())


def test_two_dimensional_range(ctx: cl.Context, queue: cl.CommandQueue, prg: cl.Program) -> None:
    out, buf = _out(ctx, 12 * 6)
    prg.grid(queue, (12, 6), (4, 3), buf)
    queue.finish()
    gx, gy = np.meshgrid(np.arange(12), np.arange(6))
    np.testing.assert_array_equal(out.reshape(6, 12), gx // 4 + 100 * (gy % 3))
    prg.grid(queue, (3, 2), (4, 3), buf, g_times_l=True)  # global (12, 6)
    queue.finish()
    np.testing.assert_array_equal(out.reshape(6, 12), gx // 4 + 100 * (gy % 3))


def test_automatic_local_size(ctx: cl.Context, queue: cl.CommandQueue, prg: cl.Program) -> None:
    out, buf = _out(ctx, 96)
    prg.ids(queue, (96,), None, buf, np.uint32(96))
    queue.finish()
    assert np.all(out % 1000 == 96)
    out, buf = _out(ctx, 2000)
    prg.ids(queue, (2000,), None, buf, np.uint32(2000))
    queue.finish()
    assert np.all(out % 1000 == 400)  # largest divisor <= 1024 that is a multiple of 16
    out, buf = _out(ctx, 16)
    prg.fixed8(queue, (16,), None, buf)
    queue.finish()
    np.testing.assert_array_equal(out, 8)


def test_work_size_errors(ctx: cl.Context, queue: cl.CommandQueue, prg: cl.Program) -> None:
    _, buf = _out(ctx, 64)
    n = np.uint32(64)
    with raises_cl("CL_INVALID_WORK_GROUP_SIZE"):
        prg.ids(queue, (60,), (16,), buf, n)  # OpenCL C 1.2: uniform work-groups only
    with raises_cl("CL_INVALID_WORK_GROUP_SIZE"):
        prg.ids(queue, (2048,), (2048,), buf, n)
    with raises_cl("CL_INVALID_WORK_GROUP_SIZE"):
        prg.fixed8(queue, (16,), (16,), buf)
    with raises_cl("CL_INVALID_WORK_GROUP_SIZE"):
        prg.ids(queue, (16,), (0,), buf, n)
    with raises_cl("CL_INVALID_GLOBAL_WORK_SIZE"):
        prg.ids(queue, (0,), None, buf, n)
    with raises_cl("CL_INVALID_GLOBAL_WORK_SIZE"):
        prg.ids(queue, (-4,), None, buf, n)
    with raises_cl("CL_INVALID_WORK_DIMENSION"):
        prg.ids(queue, (2, 2, 2, 2), None, buf, n)
    with raises_cl("CL_INVALID_WORK_DIMENSION"):
        prg.ids(queue, (), None, buf, n)
    with raises_cl("CL_INVALID_GLOBAL_OFFSET"):
        prg.ids(queue, (16,), None, buf, n, global_offset=(-1,))
    with raises_cl("CL_INVALID_VALUE"):
        prg.ids(queue, (16, 1), (16,), buf, n)
    ev = prg.ids(queue, (0,), None, buf, n, allow_empty_ndrange=True)
    assert ev.command_type == cl.command_type.NDRANGE_KERNEL


def test_non_uniform_work_groups_with_opencl_2(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    prg = cl.Program(ctx, SOURCE).build("-cl-std=CL2.0")
    out, buf = _out(ctx, 60)
    prg.ids(queue, (60,), (16,), buf, np.uint32(60))
    queue.finish()
    np.testing.assert_array_equal(out, np.arange(60) * 1000 + REMAINDER_LOCAL)
    uniform = cl.Program(ctx, SOURCE).build("-cl-std=CL2.0 -cl-uniform-work-group-size")
    with raises_cl("CL_INVALID_WORK_GROUP_SIZE"):
        uniform.ids(queue, (60,), (16,), buf, np.uint32(60))


def test_kernel_from_spirv_program(ctx: cl.Context, queue: cl.CommandQueue, prg: cl.Program) -> None:
    il = cl.Program(ctx, prg.binaries[0]).build()
    out, buf = _out(ctx, 60)
    il.ids(queue, (60,), (16,), buf, np.uint32(60))  # SPIR-V: non-uniform groups allowed
    queue.finish()
    np.testing.assert_array_equal(out, np.arange(60) * 1000 + REMAINDER_LOCAL)


def test_cltypes_vectors_by_value(ctx: cl.Context, queue: cl.CommandQueue, prg: cl.Program) -> None:
    x = np.arange(16, dtype=np.float32)
    y, yg = _out(ctx, 16, np.float32)
    p = np.zeros((), PARAMS)
    p["scale"] = 1.0
    v = cl.cltypes.make_float3(0, 0, 0.5)
    assert v.dtype.itemsize == 16
    prg.affine(queue, x.shape, None, cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x), yg, p, v)
    queue.finish()
    np.testing.assert_array_equal(y, x + np.float32(0.5))
