"""Sampled reads against a scalar reference of the spec's addressing and filtering formulas.

The reference below evaluates, lane by lane in plain Python, the formulas of
the OpenCL spec's "Image Addressing and Filtering" section (float32 where the
spec computes in float, the filter sum in float64).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from sgvm.runtime.images import (
    Image,
    ImageFormat,
    Sampler,
    addressing_mode,
    channel_order,
    channel_type,
    filter_mode,
    mem_object_type,
    read,
    read_with_bounds,
    undefined_use,
)

A, Fm, M = addressing_mode, filter_mode, mem_object_type
F32 = np.float32
RGBA_FLOAT = ImageFormat(channel_order.RGBA, channel_type.FLOAT)


def _nearest(s: F32, n: int, normalized: bool, mode: int) -> int:
    w = F32(n)
    if mode == A.REPEAT:
        u = (s - F32(math.floor(s))) * w
        i = math.floor(u)
        return i - n if i > n - 1 else i
    if mode == A.MIRRORED_REPEAT:
        sp = F32(2.0) * F32(np.rint(F32(0.5) * s))
        u = F32(abs(s - sp)) * w
        return min(math.floor(u), n - 1)
    u = s * w if normalized else s
    i = math.floor(u)
    if mode == A.CLAMP_TO_EDGE:
        return min(max(i, 0), n - 1)
    if mode == A.CLAMP:
        return min(max(i, -1), n)
    return i


def _linear(s: F32, n: int, normalized: bool, mode: int) -> tuple[int, int, float]:
    w = F32(n)
    if mode == A.REPEAT:
        u = (s - F32(math.floor(s))) * w
        i0 = math.floor(u - F32(0.5))
        i1 = i0 + 1
        if i0 < 0:
            i0 = n + i0
        if i1 > n - 1:
            i1 = i1 - n
    elif mode == A.MIRRORED_REPEAT:
        sp = F32(2.0) * F32(np.rint(F32(0.5) * s))
        u = F32(abs(s - sp)) * w
        i0 = math.floor(u - F32(0.5))
        i1 = i0 + 1
        i0, i1 = max(i0, 0), min(i1, n - 1)
    else:
        u = s * w if normalized else s
        i0 = math.floor(u - F32(0.5))
        i1 = i0 + 1
        if mode == A.CLAMP_TO_EDGE:
            i0, i1 = min(max(i0, 0), n - 1), min(max(i1, 0), n - 1)
        elif mode == A.CLAMP:
            i0, i1 = min(max(i0, -1), n), min(max(i1, -1), n)
    t = F32(u - F32(0.5))
    return i0, i1, float(t - F32(math.floor(t)))


def reference(texels: np.ndarray, coord: tuple[float, ...], sampler: Sampler,
              border: tuple[float, ...] = (0, 0, 0, 0)) -> np.ndarray:
    """One lane: ``texels`` indexed [x][y][z] (4,), coord per spatial dimension."""
    sizes = texels.shape[:-1]

    def texel(ijk: tuple[int, ...]) -> np.ndarray:
        if all(0 <= i < n for i, n in zip(ijk, sizes, strict=True)):
            return texels[ijk].astype(np.float64)
        return np.array(border, dtype=np.float64)

    args = [(F32(c), n, sampler.normalized_coords, sampler.addressing_mode)
            for c, n in zip(coord, sizes, strict=True)]
    if sampler.filter_mode == Fm.NEAREST:
        return texel(tuple(_nearest(*a) for a in args))
    picks = [_linear(*a) for a in args]
    total = np.zeros(4)
    for corner in itertools.product((0, 1), repeat=len(sizes)):
        weight = 1.0
        for bit, (_, _, frac) in zip(corner, picks, strict=True):
            weight *= frac if bit else 1.0 - frac
        total += weight * texel(tuple(p[bit] for bit, p in zip(corner, picks, strict=True)))
    return total


IMAGE_TYPES = [(M.IMAGE1D, (7,)), (M.IMAGE2D, (5, 4)), (M.IMAGE3D, (4, 3, 5))]
SAMPLERS = [Sampler(norm, mode, filt)
            for norm in (False, True)
            for mode in (A.NONE, A.CLAMP_TO_EDGE, A.CLAMP, A.REPEAT, A.MIRRORED_REPEAT)
            for filt in (Fm.NEAREST, Fm.LINEAR)
            if norm or mode not in (A.REPEAT, A.MIRRORED_REPEAT)]


def make_image(image_type: int, shape: tuple[int, ...], fmt: ImageFormat = RGBA_FLOAT,
               seed: int = 0) -> tuple[Image, np.ndarray]:
    """An image with random texels and the same texels indexed [x][y][z]."""
    rng = np.random.default_rng(seed)
    texels = rng.uniform(-1, 1, size=(*shape[::-1], 4)).astype(np.float32)
    image = Image(fmt, image_type, shape)
    image.write_host((0,) * len(shape), shape, texels)
    return image, texels.transpose(*range(len(shape))[::-1], len(shape))


def coords_for(shape: tuple[int, ...], normalized: bool, rng: np.random.Generator) -> np.ndarray:
    """Random coordinates reaching well outside the image, plus texel centres and edges."""
    n = np.array(shape, dtype=np.float64)
    lo, hi = (-1.6, 2.6) if normalized else (-3.0, None)
    random = rng.uniform(lo, hi if hi is not None else n + 3, size=(150, len(shape)))
    grid = np.stack(np.meshgrid(*[np.arange(-2, 2 * k + 3) * 0.5 for k in shape],
                                indexing="ij"), -1).reshape(-1, len(shape))
    if normalized:
        grid = grid / n
    return np.concatenate([random, grid]).astype(np.float32)


@pytest.mark.parametrize(("image_type", "shape"), IMAGE_TYPES)
@pytest.mark.parametrize("sampler", SAMPLERS, ids=lambda s: f"{s.literal:#x}")
def test_float_coords_match_reference(image_type: int, shape: tuple[int, ...],
                                      sampler: Sampler) -> None:
    image, texels = make_image(image_type, shape)
    coords = coords_for(shape, sampler.normalized_coords, np.random.default_rng(1))
    got = read(image, coords, sampler, "f")
    expected = np.array([reference(texels, tuple(c), sampler) for c in coords])
    assert got.dtype == np.float32 and got.shape == (len(coords), 4)
    if sampler.filter_mode == Fm.NEAREST:
        np.testing.assert_array_equal(got, expected.astype(np.float32))
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_linear_clamp_mixes_the_border_colour() -> None:
    # CL_R: border (0, 0, 0, 1). u = 0.0 → i0 = -1 (border), i1 = 0, a = frac(-0.5) = 0.5.
    image = Image(ImageFormat(channel_order.R, channel_type.UNORM_INT8), M.IMAGE1D, (2,))
    image.write_host((0,), (2,), np.array([255, 255], dtype=np.uint8))
    out = read(image, np.float32([0.0]), Sampler(False, A.CLAMP, Fm.LINEAR), "f")
    np.testing.assert_array_equal(out, [[0.5, 0, 0, 1]])


def test_linear_filters_converted_values() -> None:
    image = Image(ImageFormat(channel_order.RGBA, channel_type.UNORM_INT8), M.IMAGE2D, (2, 1))
    image.write_host((0, 0), (2, 1), np.array([0, 0, 0, 0, 255, 255, 51, 255], dtype=np.uint8))
    out = read(image, np.float32([[1.0, 0.5], [1.25, 0.5]]), Sampler(False, A.CLAMP_TO_EDGE,
                                                                       Fm.LINEAR), "f")
    np.testing.assert_allclose(out, [[0.5, 0.5, 0.1, 0.5], [0.75, 0.75, 0.15, 0.75]], rtol=1e-6)
    half = read(image, np.float32([[1.0, 0.5]]), Sampler(False, A.CLAMP, Fm.LINEAR), "h")
    assert half.dtype == np.float16 and half[0, 0] == np.float16(0.5)


@pytest.mark.parametrize(("image_type", "shape"), [(M.IMAGE1D_ARRAY, (6, 4)),
                                                   (M.IMAGE2D_ARRAY, (5, 3, 4))])
def test_array_layer_rounds_and_clamps(image_type: int, shape: tuple[int, ...]) -> None:
    image, texels = make_image(image_type, shape)
    d = len(shape) - 1
    sampler = Sampler(True, A.REPEAT, Fm.LINEAR)
    # "layer = clamp(rint(t), 0, array_size - 1)": 1.5 → 2, 2.5 → 2, -3 → 0, 9 → 3.
    for t, layer in ((1.5, 2), (2.5, 2), (0.49, 0), (-3.0, 0), (9.0, 3)):
        spatial = np.random.default_rng(int(t * 10) + 50).uniform(-1, 2, size=(20, d))
        coords = np.concatenate([spatial, np.full((20, 1), t)], axis=1).astype(np.float32)
        got = read(image, coords, sampler, "f")
        layer_texels = texels[..., layer, :]
        expected = np.array([reference(layer_texels, tuple(c[:d]), sampler) for c in coords])
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    ints = np.array([[1] * d + [7], [0] * d + [-2]], dtype=np.int32)
    got = read(image, ints, Sampler(False, A.CLAMP_TO_EDGE, Fm.NEAREST), "f")
    np.testing.assert_array_equal(got, [texels[(1,) * d + (3,)], texels[(0,) * d + (0,)]])


def test_integer_coords() -> None:
    image, texels = make_image(M.IMAGE2D, (5, 4))
    coords = np.array([[0, 0], [4, 3], [-1, 2], [5, 0], [2, 9]], dtype=np.int32)
    inside = [True, True, False, False, False]
    expected = np.array([texels[tuple(c)] if ok else np.zeros(4)
                         for c, ok in zip(coords, inside, strict=True)])
    # Sampler-less: out of range is undefined; sgvm returns the border colour and reports it.
    values, undefined = read_with_bounds(image, coords.view(np.uint32), None, "f")
    np.testing.assert_array_equal(values, expected)
    assert undefined.tolist() == [not ok for ok in inside]
    values, undefined = read_with_bounds(image, coords, Sampler(False, A.CLAMP, Fm.NEAREST), "f")
    np.testing.assert_array_equal(values, expected)
    assert not undefined.any()
    values, _ = read_with_bounds(image, coords, Sampler(False, A.NONE, Fm.NEAREST), "f")
    np.testing.assert_array_equal(values, expected)
    edge = read(image, coords, Sampler(False, A.CLAMP_TO_EDGE, Fm.NEAREST), "f")
    clamped = np.clip(coords, 0, [4, 3])
    np.testing.assert_array_equal(edge, [texels[tuple(c)] for c in clamped])
    # int4 coordinates of a 2D image: the extra components are ignored.
    wide = np.concatenate([coords, np.full((5, 2), 99, np.int32)], axis=1)
    np.testing.assert_array_equal(read(image, wide, None, "f"), expected)


def test_sampler_less_array_index_out_of_range_is_reported() -> None:
    image, texels = make_image(M.IMAGE1D_ARRAY, (3, 2))
    values, undefined = read_with_bounds(image, np.array([[1, 1], [1, 2]], np.int32), None, "f")
    assert undefined.tolist() == [False, True]
    np.testing.assert_array_equal(values, [texels[1, 1], np.zeros(4)])


def test_address_none_float_coords_report_outside_locations() -> None:
    image, _ = make_image(M.IMAGE1D, (4,))
    sampler = Sampler(True, A.NONE, Fm.LINEAR)
    _, undefined = read_with_bounds(image, np.float32([0.0, 0.99, 1.0, -0.01]), sampler, "f")
    assert undefined.tolist() == [False, False, True, True]


def test_uniform_and_scalar_coords() -> None:
    image, texels = make_image(M.IMAGE1D, (4,))
    np.testing.assert_array_equal(read(image, np.array([2, 3], np.int32), None, "f"), texels[[2, 3]])
    np.testing.assert_array_equal(read(image, np.int32(1), None, "f"), texels[1])
    image2, texels2 = make_image(M.IMAGE2D, (4, 3))
    np.testing.assert_array_equal(read(image2, np.array([3, 2], np.int32), None, "f"),
                                  texels2[3, 2])


def test_nan_and_infinite_coords_are_safe() -> None:
    image, texels = make_image(M.IMAGE2D, (4, 3))
    coords = np.float32([[np.nan, 0.5], [np.inf, -np.inf]])
    out = read(image, coords, Sampler(True, A.CLAMP_TO_EDGE, Fm.LINEAR), "f")
    np.testing.assert_array_equal(out, [texels[0, 1], texels[3, 0]])
    out = read(image, coords, Sampler(True, A.REPEAT, Fm.NEAREST), "f")
    assert np.isfinite(out).all()


def test_integer_reads_ignore_linear_filtering() -> None:
    fmt = ImageFormat(channel_order.R, channel_type.SIGNED_INT16)
    image = Image(fmt, M.IMAGE1D, (2,))
    image.write_host((0,), (2,), np.array([-10, 30], dtype=np.int16))
    out = read(image, np.float32([1.4, 5.0]), Sampler(False, A.CLAMP, Fm.LINEAR), "i")
    assert out.dtype == np.int32 and out.tolist() == [[30, 0, 0, 1], [0, 0, 0, 1]]


def test_unnormalized_repeat_wraps_every_size_texels() -> None:
    image, texels = make_image(M.IMAGE1D, (4,))
    out = read(image, np.float32([5.5, -0.5]), Sampler(False, A.REPEAT, Fm.NEAREST), "f")
    np.testing.assert_array_equal(out, texels[[1, 3]])


def test_undefined_use() -> None:
    fimg = Image(RGBA_FLOAT, M.IMAGE2D, (2, 2))
    iimg = Image(ImageFormat(channel_order.RGBA, channel_type.SIGNED_INT8), M.IMAGE2D, (2, 2))
    nearest = Sampler(False, A.CLAMP, Fm.NEAREST)
    assert undefined_use(fimg, "f") is None
    assert undefined_use(fimg, "h", nearest, float_coords=True) is None
    assert undefined_use(iimg, "i", nearest) is None
    assert "SIGNED_INT8" in undefined_use(iimg, "f")
    assert undefined_use(fimg, "ui") is not None
    assert "NEAREST" in undefined_use(iimg, "i", Sampler(False, A.CLAMP, Fm.LINEAR), True)
    assert "integer coordinates" in undefined_use(fimg, "f", Sampler(True, A.CLAMP, Fm.NEAREST))
    assert "integer coordinates" in undefined_use(fimg, "f", Sampler(False, A.REPEAT, Fm.NEAREST))
    assert "normalized" in undefined_use(fimg, "f", Sampler(False, A.REPEAT, Fm.NEAREST), True)
    assert undefined_use(fimg, "f", Sampler(True, A.REPEAT, Fm.LINEAR), True) is None
