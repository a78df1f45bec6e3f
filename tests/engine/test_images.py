"""Image instructions through whole kernels run via the host API (sgvm.cl), against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm.cl as cl
from sgvm import KernelMemoryError

from .harness import OPTS

pytestmark = pytest.mark.usefixtures("runs_natively")  # images run natively since this round

mf = cl.mem_flags
CO, CT = cl.channel_order, cl.channel_type
RGBA_F32 = cl.ImageFormat(CO.RGBA, CT.FLOAT)
RGBA_U8 = cl.ImageFormat(CO.RGBA, CT.UNORM_INT8)
R_S16 = cl.ImageFormat(CO.R, CT.SIGNED_INT16)
RG_U32 = cl.ImageFormat(CO.RG, CT.UNSIGNED_INT32)


@pytest.fixture
def ctx(backend) -> cl.Context:
    """A context on the variant's device (``SGVM_DEVICE``, set by the ``backend`` fixture;
    one per module ran every variant on the device of the first)."""
    return cl.create_some_context(interactive=False)


@pytest.fixture
def queue(ctx: cl.Context) -> cl.CommandQueue:
    return cl.CommandQueue(ctx)


# (OpenCL C type, coordinate type, coordinate expression, is_array, NumPy shape (slowest first))
TYPES = {
    "image1d_t": ("int", "x", False, (7,)),
    "image1d_buffer_t": ("int", "x", False, (9,)),
    "image1d_array_t": ("int2", "(int2)(x, y)", True, (3, 5)),
    "image2d_t": ("int2", "(int2)(x, y)", False, (4, 6)),
    "image2d_array_t": ("int4", "(int4)(x, y, z, 0)", True, (2, 3, 5)),
    "image3d_t": ("int4", "(int4)(x, y, z, 0)", False, (3, 4, 5)),
}

COPY = """
__kernel void copy(read_only {T} src, write_only {T} dst, read_only {T} isrc, write_only {T} idst)
{{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    {C} p = {P};
    write_imagef(dst, p, read_imagef(src, p) * 2.0f + (float4)(1.0f, 0.0f, -1.0f, 0.5f));
    write_imagei(idst, p, read_imagei(isrc, p) - 3);
}}
"""


def _image(ctx, fmt, host, name, is_array, flags=mf.READ_WRITE):
    if name == "image1d_buffer_t":
        buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(host))
        return cl.Image(ctx, flags, fmt, shape=host.shape[:1], buffer=buf)
    return cl.Image(ctx, flags | mf.COPY_HOST_PTR, fmt, hostbuf=np.ascontiguousarray(host),
                    is_array=is_array)


def _read_back(queue, img, like):
    out = np.empty_like(like)
    cl.enqueue_copy(queue, out, img, origin=(0,) * len(img.shape), region=img.shape)
    return out


@pytest.mark.parametrize("opts", OPTS)
@pytest.mark.parametrize("name", list(TYPES))
def test_read_write_every_image_type(ctx, queue, name, opts) -> None:
    ctype, coord, is_array, shape = TYPES[name]
    rng = np.random.default_rng(3)
    fsrc = rng.random(shape + (4,), dtype=np.float32)
    isrc = rng.integers(-3000, 3000, shape).astype(np.int16)
    src = _image(ctx, RGBA_F32, fsrc, name, is_array)
    dst = _image(ctx, RGBA_F32, np.zeros_like(fsrc), name, is_array)
    isrc_img = _image(ctx, R_S16, isrc, name, is_array)
    idst = _image(ctx, R_S16, np.zeros_like(isrc), name, is_array)
    prg = cl.Program(ctx, COPY.format(T=name, C=ctype, P=coord)).build(opts)
    prg.copy(queue, shape[::-1], None, src, dst, isrc_img, idst)
    want = fsrc * np.float32(2) + np.array([1, 0, -1, 0.5], np.float32)
    np.testing.assert_array_equal(_read_back(queue, dst, fsrc), want)
    np.testing.assert_array_equal(_read_back(queue, idst, isrc), isrc - 3)


SATURATE = """
__kernel void sat(write_only image2d_t u8, write_only image2d_t s16, write_only image2d_t u32,
                  __global const float4 *f, __global const int *i)
{
    int x = get_global_id(0);
    write_imagef(u8, (int2)(x, 0), f[x]);
    write_imagei(s16, (int2)(x, 0), (int4)(i[x], 0, 0, 0));
    write_imageui(u32, (int2)(x, 0), (uint4)((uint)i[x], 7u, 0u, 0u));
}
"""


@pytest.mark.parametrize("opts", OPTS)
def test_write_conversions_saturate(ctx, queue, opts) -> None:
    n = 16
    rng = np.random.default_rng(4)
    f = rng.uniform(-0.5, 1.5, (n, 4)).astype(np.float32)
    i = rng.integers(-100000, 100000, n).astype(np.int32)
    u8 = cl.Image(ctx, mf.WRITE_ONLY, RGBA_U8, shape=(n, 1))
    s16 = cl.Image(ctx, mf.WRITE_ONLY, R_S16, shape=(n, 1))
    u32 = cl.Image(ctx, mf.WRITE_ONLY, RG_U32, shape=(n, 1))
    fb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=f)
    ib = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=i)
    cl.Program(ctx, SATURATE).build(opts).sat(queue, (n,), None, u8, s16, u32, fb, ib)
    np.testing.assert_array_equal(_read_back(queue, u8, np.zeros((1, n, 4), np.uint8))[0],
                                  np.clip(np.rint(f * 255), 0, 255).astype(np.uint8))
    np.testing.assert_array_equal(_read_back(queue, s16, np.zeros((1, n), np.int16))[0],
                                  np.clip(i, -32768, 32767).astype(np.int16))
    got = _read_back(queue, u32, np.zeros((1, n, 2), np.uint32))[0]
    np.testing.assert_array_equal(got[:, 0], i.view(np.uint32))
    np.testing.assert_array_equal(got[:, 1], 7)


BLUR = """
__kernel void blur(read_only image2d_t src, write_only image2d_t dst, sampler_t s)
{
    int x = get_global_id(0), y = get_global_id(1);
    float2 size = (float2)(get_image_width(src), get_image_height(src));
    float4 acc = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            acc += read_imagef(src, s, ((float2)(x + 0.5f, y + 0.5f) + 0.75f * (float2)(dx, dy)) / size);
    write_imagef(dst, (int2)(x, y), acc / 9.0f);
}
"""


def _bilinear(img: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """CLAMP_TO_EDGE linear filtering at unnormalized (u, v), OpenCL's formulas in float32."""
    h, w = img.shape[:2]
    u0, v0 = np.floor(u - np.float32(0.5)), np.floor(v - np.float32(0.5))
    a = ((u - np.float32(0.5)) - u0)[..., None]
    b = ((v - np.float32(0.5)) - v0)[..., None]
    i0, j0 = u0.astype(int), v0.astype(int)
    i1, j1 = np.clip(i0 + 1, 0, w - 1), np.clip(j0 + 1, 0, h - 1)
    i0, j0 = np.clip(i0, 0, w - 1), np.clip(j0, 0, h - 1)
    one = np.float32(1)
    return ((one - a) * (one - b) * img[j0, i0] + a * (one - b) * img[j0, i1]
            + (one - a) * b * img[j1, i0] + a * b * img[j1, i1])


@pytest.mark.parametrize("opts", OPTS)
def test_linear_blur_normalized_clamp_to_edge(ctx, queue, opts) -> None:
    h, w = 24, 40
    host = np.random.default_rng(5).random((h, w, 4), dtype=np.float32)
    src = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, RGBA_F32, hostbuf=host)
    dst = cl.Image(ctx, mf.WRITE_ONLY, RGBA_F32, shape=(w, h))
    s = cl.Sampler(ctx, True, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.LINEAR)
    cl.Program(ctx, BLUR).build(opts).blur(queue, (w, h), None, src, dst, s)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    size = np.array([w, h], np.float32)
    want = np.zeros_like(host)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            sx = (x + np.float32(0.5) + np.float32(0.75) * dx) / size[0]
            sy = (y + np.float32(0.5) + np.float32(0.75) * dy) / size[1]
            want += _bilinear(host, sx * size[0], sy * size[1])
    np.testing.assert_allclose(_read_back(queue, dst, host), want / np.float32(9), rtol=1e-5, atol=1e-6)


SAMPLERS = """
__constant sampler_t border = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

float4 helper(read_only image2d_t img, sampler_t s, float2 c) { return read_imagef(img, s, c); }

__kernel void samplers(read_only image2d_t img, __global float4 *out, __global int4 *iout)
{
    int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
    const sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
    out[2 * (y * w + x)] = read_imagef(img, border, (int2)(x - 2, y - 2));
    out[2 * (y * w + x) + 1] = helper(img, edge, (float2)(x - 1.5f, y + 0.25f));
    iout[y * w + x] = read_imagei(img, edge, (int2)(x, y));
}
"""


@pytest.mark.parametrize("opts", OPTS)
def test_constant_samplers_and_integer_coordinates(ctx, queue, opts) -> None:
    h, w = 5, 6
    host = np.random.default_rng(6).random((h, w, 4), dtype=np.float32) * 100
    img = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, RGBA_F32, hostbuf=host)
    out = np.zeros((h, w, 2, 4), np.float32)
    iout = np.zeros((h, w, 4), np.int32)
    ob = cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
    ib = cl.Buffer(ctx, mf.WRITE_ONLY, iout.nbytes)
    cl.Program(ctx, SAMPLERS).build(opts).samplers(queue, (w, h), None, img, ob, ib)
    cl.enqueue_copy(queue, out, ob)
    cl.enqueue_copy(queue, iout, ib)
    y, x = np.mgrid[0:h, 0:w]
    inside = (x >= 2) & (y >= 2)
    border = np.where(inside[..., None], host[np.maximum(y - 2, 0), np.maximum(x - 2, 0)], 0)
    np.testing.assert_array_equal(out[:, :, 0], border)
    xs = np.clip(np.floor(x - 1.5).astype(int), 0, w - 1)
    ys = np.clip(np.floor(y + 0.25).astype(int), 0, h - 1)
    np.testing.assert_array_equal(out[:, :, 1], host[ys, xs])
    # read_imagei on a float image is undefined; sgvm converts rounding to nearest even.
    np.testing.assert_array_equal(iout, np.rint(host).astype(np.int32))


QUERIES = """
__kernel void q(read_only {T} img, __global int *out)
{{
    out[0] = get_image_width(img);
    out[1] = {H};
    out[2] = {D};
    out[3] = {A};
    out[4] = get_image_channel_data_type(img);
    out[5] = get_image_channel_order(img);
}}
"""


@pytest.mark.parametrize("opts", OPTS)
@pytest.mark.parametrize("name", list(TYPES))
def test_queries(ctx, queue, name, opts) -> None:
    _, _, is_array, shape = TYPES[name]
    spatial = shape[1:][::-1] if is_array else shape[::-1]
    has_h = len(spatial) >= 2
    src = QUERIES.format(
        T=name, H="get_image_height(img)" if has_h else "-1",
        D="get_image_depth(img)" if name == "image3d_t" else "-1",
        A="(int)get_image_array_size(img)" if is_array else "-1")
    fmt = cl.ImageFormat(CO.RG, CT.SNORM_INT16)
    img = _image(ctx, fmt, np.zeros(shape + (2,), np.int16), name, is_array)
    out = np.zeros(6, np.int32)
    ob = cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
    cl.Program(ctx, src).build(opts).q(queue, (1,), None, img, ob)
    cl.enqueue_copy(queue, out, ob)
    want = [spatial[0], spatial[1] if has_h else -1, spatial[2] if name == "image3d_t" else -1,
            shape[0] if is_array else -1, CT.SNORM_INT16, CO.RG]
    np.testing.assert_array_equal(out, want)


DIMS = """
__kernel void dims(read_only image2d_t a, read_only image3d_t b, read_only image2d_array_t c,
                   __global int *out)
{
    int2 da = get_image_dim(a);
    int4 db = get_image_dim(b);
    int2 dc = get_image_dim(c);
    out[0] = da.x; out[1] = da.y;
    out[2] = db.x; out[3] = db.y; out[4] = db.z; out[5] = db.w;
    out[6] = dc.x; out[7] = dc.y;
}
"""


@pytest.mark.parametrize("opts", OPTS)
def test_get_image_dim(ctx, queue, opts) -> None:
    a = cl.Image(ctx, mf.READ_ONLY, RGBA_F32, shape=(3, 4))
    b = cl.Image(ctx, mf.READ_ONLY, RGBA_F32, shape=(5, 6, 7))
    c = cl.Image(ctx, mf.READ_ONLY, RGBA_F32, shape=(8, 9, 2), is_array=True)
    out = np.zeros(8, np.int32)
    ob = cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
    cl.Program(ctx, DIMS).build(opts).dims(queue, (1,), None, a, b, c, ob)
    cl.enqueue_copy(queue, out, ob)
    np.testing.assert_array_equal(out, [3, 4, 5, 6, 7, 0, 8, 9])


FROM_BUFFER = """
__kernel void fill(write_only image2d_t img, write_only image1d_buffer_t line)
{
    int x = get_global_id(0), y = get_global_id(1);
    write_imageui(img, (int2)(x, y), (uint4)(x + 100 * y, 0, 0, 0));
    if (y == 0)
        write_imageui(line, x, (uint4)(3 * x + 1, 0, 0, 0));
}
"""


@pytest.mark.parametrize("opts", OPTS)
def test_images_from_buffers(ctx, queue, opts) -> None:
    w, h, pitch = 5, 3, 8  # row pitch: a multiple of the 4-texel pitch alignment
    fmt = cl.ImageFormat(CO.R, CT.UNSIGNED_INT32)
    buf2d = cl.Buffer(ctx, mf.READ_WRITE, pitch * h * 4)
    buf1d = cl.Buffer(ctx, mf.READ_WRITE, w * 4)
    img = cl.Image(ctx, mf.WRITE_ONLY, fmt, shape=(w, h), pitches=(pitch * 4,), buffer=buf2d)
    line = cl.Image(ctx, mf.WRITE_ONLY, fmt, shape=(w,), buffer=buf1d)
    cl.Program(ctx, FROM_BUFFER).build(opts).fill(queue, (w, h), None, img, line)
    rows = np.zeros((h, pitch), np.uint32)
    cl.enqueue_copy(queue, rows, buf2d)
    y, x = np.mgrid[0:h, 0:w]
    np.testing.assert_array_equal(rows[:, :w], x + 100 * y)
    out = np.zeros(w, np.uint32)
    cl.enqueue_copy(queue, out, buf1d)
    np.testing.assert_array_equal(out, 3 * np.arange(w) + 1)


HALF = """
__kernel void h(read_write image2d_t img)
{
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    half4 v = read_imageh(img, p);
    write_imageh(img, p, v * (half)2.0f);
}
"""


@pytest.mark.parametrize("opts", OPTS)
def test_read_write_imageh(ctx, queue, opts) -> None:
    host = np.random.default_rng(7).random((3, 4, 4)).astype(np.float16)
    fmt = cl.ImageFormat(CO.RGBA, CT.HALF_FLOAT)
    img = cl.Image(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, fmt, hostbuf=host)
    cl.Program(ctx, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" + HALF).build(opts).h(
        queue, (4, 3), None, img)
    np.testing.assert_array_equal(_read_back(queue, img, host), host * np.float16(2))


OUTSIDE = """
__kernel void shift(read_only image2d_t src, write_only image2d_t dst, int dx, int dy) {
    int x = get_global_id(0), y = get_global_id(1);
    write_imagef(dst, (int2)(x + dx, y), read_imagef(src, (int2)(x, y + dy)));
}
"""


def test_write_outside_the_image_is_a_memory_error(ctx, queue) -> None:
    """write_image* outside the image is undefined behaviour (OpenCL C): KernelMemoryError
    naming the argument, the coordinate and the work-item, and nothing is written outside.
    The NumPy engine stops at the faulting write (nothing is written); in compiled code (the
    native backend, the GPU) the other work-items' writes go ahead (docs/native.md and
    docs/cuda.md, "Memory errors")."""
    prg = cl.Program(ctx, OUTSIDE).build()
    host = np.arange(16 * 4, dtype=np.float32).reshape(4, 16)
    src = cl.Image(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, cl.ImageFormat(CO.R, CT.FLOAT),
                   hostbuf=host)
    dst = cl.Image(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, cl.ImageFormat(CO.R, CT.FLOAT),
                   hostbuf=np.zeros_like(host))
    with pytest.raises(KernelMemoryError) as e:
        prg.shift(queue, (16, 4), (16, 1), src, dst, np.int32(1), np.int32(0))
    msg = str(e.value)
    assert "write_image at coordinate (16, 0) outside argument #1" in msg, msg
    assert "(16 x 4 texels)" in msg and "global id (15, 0)" in msg, msg
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, dst, origin=(0, 0), region=(16, 4))
    if ctx.devices[0].backend in ("cuda", "native"):
        want = np.zeros_like(host)
        want[:, 1:] = host[:, :-1]
        np.testing.assert_array_equal(out, want)
    else:
        assert not out.any()


def test_sampler_less_read_outside_the_image_reads_the_border_colour(ctx, queue) -> None:
    """The result is undefined, not the behaviour: the border colour (docs/images.md),
    no error (the checker reports it as a warning)."""
    prg = cl.Program(ctx, OUTSIDE).build()
    host = np.arange(1, 16 * 4 + 1, dtype=np.float32).reshape(4, 16)
    src = cl.Image(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, cl.ImageFormat(CO.R, CT.FLOAT),
                   hostbuf=host)
    dst = cl.Image(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, cl.ImageFormat(CO.R, CT.FLOAT),
                   hostbuf=np.zeros_like(host))
    prg.shift(queue, (16, 4), (16, 1), src, dst, np.int32(0), np.int32(-1))
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, dst, origin=(0, 0), region=(16, 4))
    np.testing.assert_array_equal(out, np.vstack([np.zeros((1, 16), np.float32), host[:3]]))
