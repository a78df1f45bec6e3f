"""Image objects: geometry, buffers, host copies, kernel writes, samplers."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.errors import LogicError
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
    supported_formats,
    write,
)
from sgvm.runtime.memory import Allocation

A, Fm, M, O, T = addressing_mode, filter_mode, mem_object_type, channel_order, channel_type
RGBA8 = ImageFormat(O.RGBA, T.UNSIGNED_INT8)


@pytest.mark.parametrize(("image_type", "shape", "queries"), [
    (M.IMAGE1D, (9,), (9, 0, 0, 0)),
    (M.IMAGE1D_ARRAY, (9, 3), (9, 0, 0, 3)),
    (M.IMAGE2D, (9, 5), (9, 5, 0, 0)),
    (M.IMAGE2D_ARRAY, (9, 5, 3), (9, 5, 0, 3)),
    (M.IMAGE3D, (9, 5, 2), (9, 5, 2, 0)),
])
def test_queries_and_default_pitches(image_type: int, shape: tuple[int, ...],
                                     queries: tuple[int, ...]) -> None:
    image = Image(RGBA8, image_type, shape)
    assert (image.width, image.height, image.depth, image.array_size) == queries
    assert image.channel_order == O.RGBA and image.channel_data_type == T.UNSIGNED_INT8
    assert image.row_pitch == 36
    expected_slice = {M.IMAGE1D_ARRAY: 36, M.IMAGE2D_ARRAY: 180, M.IMAGE3D: 180}
    assert image.slice_pitch == expected_slice.get(image_type, 0)
    assert image.data.size == int(np.prod(shape)) * 4
    assert image.data.space == "global"


def test_dim() -> None:
    assert Image(RGBA8, M.IMAGE2D, (4, 3)).dim == (4, 3)
    assert Image(RGBA8, M.IMAGE2D_ARRAY, (4, 3, 2)).dim == (4, 3)
    assert Image(RGBA8, M.IMAGE3D, (4, 3, 2)).dim == (4, 3, 2, 0)


def test_bad_descriptors() -> None:
    with pytest.raises(LogicError, match="INVALID_IMAGE_SIZE"):
        Image(RGBA8, M.IMAGE2D, (4,))
    with pytest.raises(LogicError, match="INVALID_IMAGE_DESCRIPTOR"):
        Image(RGBA8, M.IMAGE2D, (4, 4), row_pitch=15)
    with pytest.raises(LogicError, match="INVALID_IMAGE_DESCRIPTOR"):
        Image(RGBA8, M.IMAGE2D, (4, 4), slice_pitch=64)
    with pytest.raises(LogicError, match="INVALID_IMAGE_DESCRIPTOR"):
        Image(RGBA8, M.IMAGE3D, (4, 4, 2), slice_pitch=60)
    with pytest.raises(LogicError, match="INVALID_IMAGE_DESCRIPTOR"):
        Image(RGBA8, M.IMAGE1D_BUFFER, (4,))
    with pytest.raises(LogicError, match="INVALID_IMAGE_DESCRIPTOR"):
        Image(RGBA8, M.BUFFER, (4,))


def test_explicit_pitches_lay_out_storage() -> None:
    image = Image(ImageFormat(O.R, T.UNSIGNED_INT16), M.IMAGE3D, (3, 2, 2),
                  row_pitch=10, slice_pitch=24)
    write(image, np.array([[2, 1, 1]], np.int32), np.array([[0xABCD, 0, 0, 0]], np.uint32), "ui")
    assert image.data.size == 48
    assert image.data.data[24 + 10 + 4 : 24 + 10 + 6].view(np.uint16)[0] == 0xABCD


def test_2d_image_from_buffer_with_row_pitch() -> None:
    buf = Allocation(np.zeros(200, dtype=np.uint8), "global", "buf")
    fmt = ImageFormat(O.R, T.UNSIGNED_INT8)
    image = Image(fmt, M.IMAGE2D, (5, 3), row_pitch=8, data=buf)
    assert image.buffer is buf and image.data.size == 24
    assert np.shares_memory(image.data.data, buf.data)
    buf.data[:24] = np.arange(24, dtype=np.uint8)
    got = read(image, np.array([[0, 0], [4, 0], [0, 1], [3, 2]], np.int32), None, "ui")
    assert got[:, 0].tolist() == [0, 4, 8, 19]
    write(image, np.array([[1, 2]], np.int32), np.array([[99, 0, 0, 0]], np.uint32), "ui")
    assert buf.data[17] == 99
    with pytest.raises(LogicError, match="INVALID_IMAGE_DESCRIPTOR"):
        Image(fmt, M.IMAGE2D, (5, 3), row_pitch=6, data=buf)  # pitch alignment: 4 texels
    with pytest.raises(LogicError, match="INVALID_IMAGE_SIZE"):
        Image(fmt, M.IMAGE2D, (5, 30), row_pitch=8, data=buf)
    with pytest.raises(LogicError, match="INVALID_IMAGE_DESCRIPTOR"):
        Image(fmt, M.IMAGE3D, (5, 3, 2), data=buf)


def test_1d_buffer_image() -> None:
    buf = Allocation(np.arange(64, dtype=np.uint8), "global", "buf")
    image = Image(ImageFormat(O.RG, T.UNSIGNED_INT16), M.IMAGE1D_BUFFER, (16,), data=buf)
    got = read(image, np.array([0, 15], np.int32), None, "ui")
    expected = buf.data.view(np.uint16).reshape(16, 2)[[0, 15]]
    assert got[:, :2].tolist() == expected.tolist()
    assert got[:, 2:].tolist() == [[0, 1], [0, 1]]


def test_host_copies_with_origin_and_region() -> None:
    image = Image(RGBA8, M.IMAGE3D, (5, 4, 3))
    block = np.arange(2 * 3 * 4 * 4, dtype=np.uint8).reshape(2, 3, 4, 4)  # [z][y][x][c]
    image.write_host((1, 1, 1), (4, 3, 2), block)
    out = image.read_host((0, 0, 0), (5, 4, 3)).reshape(3, 4, 5, 4)
    np.testing.assert_array_equal(out[1:, 1:, 1:], block)
    assert out[0].sum() == 0 and out[:, 0].sum() == 0 and out[:, :, 0].sum() == 0
    np.testing.assert_array_equal(image.read_host((2, 1, 1), (2, 2, 1)).reshape(2, 2, 4),
                                  block[0, :2, 1:3])
    # Kernel reads see host writes: texel (x, y, z) = block[z-1][y-1][x-1].
    got = read(image, np.array([[3, 2, 2, 0]], np.int32), None, "ui")
    assert got.tolist() == [block[1, 1, 2].tolist()]


def test_host_pitches() -> None:
    image = Image(ImageFormat(O.R, T.UNSIGNED_INT8), M.IMAGE2D_ARRAY, (3, 2, 2))
    host = np.arange(40, dtype=np.uint8)
    image.write_host((0, 0, 0), (3, 2, 2), host, row_pitch=5, slice_pitch=20)
    out = image.read_host((0, 0, 0), (3, 2, 2))
    assert out.tolist() == [[[0, 1, 2], [5, 6, 7]], [[20, 21, 22], [25, 26, 27]]]
    with pytest.raises(LogicError, match="INVALID_VALUE"):
        image.write_host((0, 0, 0), (3, 2, 2), host[:26], row_pitch=5, slice_pitch=20)
    with pytest.raises(LogicError, match="INVALID_VALUE"):
        image.write_host((0, 0, 0), (3, 2, 2), host, row_pitch=2)
    with pytest.raises(LogicError, match="INVALID_VALUE"):
        image.read_host((1, 0, 0), (3, 1, 1))
    with pytest.raises(LogicError, match="INVALID_VALUE"):
        image.read_host((0, 0, 0), (0, 1, 1))


def test_1d_array_host_layers_are_slice_pitch_apart() -> None:
    image = Image(ImageFormat(O.R, T.UNSIGNED_INT8), M.IMAGE1D_ARRAY, (2, 3))
    image.write_host((0, 0), (2, 3), bytes(range(12)), slice_pitch=4)
    assert image.read_host((0, 0), (2, 3)).tolist() == [[[0, 1], [4, 5], [8, 9]]]


def test_fill() -> None:
    image = Image(ImageFormat(O.BGRA, T.UNORM_INT8), M.IMAGE2D, (3, 3))
    image.fill_host(np.float32([1.0, 0.5, 0.0, 1.0]), (1, 1), (2, 2))
    out = image.read_host((0, 0), (3, 3)).reshape(3, 3, 4)
    assert out[1:, 1:].reshape(-1, 4).tolist() == [[0, 128, 255, 255]] * 4
    assert out[0].sum() == 0 and out[:, 0].sum() == 0


def _expected_round_trip(fmt: ImageFormat, v: np.ndarray) -> np.ndarray:
    """What reading back ``write_imagef(v)`` gives, derived per channel type."""
    ctype = fmt.channel_data_type
    if ctype in (T.UNORM_INT8, T.UNORM_INT16):
        top = 255 if ctype == T.UNORM_INT8 else 65535
        return np.rint(np.clip(v * np.float32(top), 0, top)).astype(np.float32) / np.float32(top)
    if ctype in (T.SNORM_INT8, T.SNORM_INT16):
        top = 127 if ctype == T.SNORM_INT8 else 32767
        q = np.rint(np.clip(v * np.float32(top), -top - 1, top)).astype(np.float32)
        return np.maximum(q / np.float32(top), -1)
    if ctype == T.HALF_FLOAT:
        return v.astype(np.float16).astype(np.float32)
    return v


@pytest.mark.parametrize("fmt", [f for f in supported_formats(M.IMAGE2D)
                                 if f.channel_order in (O.RGBA, O.BGRA)], ids=repr)
def test_write_read_round_trip(fmt: ImageFormat) -> None:
    rng = np.random.default_rng(3)
    image = Image(fmt, M.IMAGE2D, (6, 5))
    coords = np.stack(np.meshgrid(np.arange(6), np.arange(5), indexing="ij"), -1).reshape(-1, 2)
    kind = fmt.kind
    if kind == "f":
        values = rng.uniform(-1.2, 1.2, size=(30, 4)).astype(np.float32)
        expected = _expected_round_trip(fmt, values)
    else:
        info = np.iinfo({T.SIGNED_INT8: np.int8, T.SIGNED_INT16: np.int16,
                         T.SIGNED_INT32: np.int32, T.UNSIGNED_INT8: np.uint8,
                         T.UNSIGNED_INT16: np.uint16, T.UNSIGNED_INT32: np.uint32}
                        [fmt.channel_data_type])
        values = rng.integers(info.min, info.max, size=(30, 4), endpoint=True)
        values = values.astype(np.int32 if kind == "i" else np.uint32)
        expected = values
    oob = write(image, coords.astype(np.int32), values, kind)
    assert not oob.any()
    np.testing.assert_array_equal(read(image, coords, None, kind), expected)


def test_write_active_lanes_collisions_and_out_of_range() -> None:
    image = Image(ImageFormat(O.R, T.SIGNED_INT32), M.IMAGE2D_ARRAY, (2, 2, 2))
    coords = np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0], [0, 0, 0], [2, 0, 0], [0, 0, 2],
                       [1, 0, 1]], dtype=np.int32)
    values = np.arange(7, dtype=np.int32)[:, None] * np.int32([1, 0, 0, 0]) + 10
    active = np.array([True, True, True, False, True, True, False])
    oob = write(image, coords.view(np.uint32), values.view(np.uint32), "i", active)
    assert oob.tolist() == [False, False, False, False, True, True, False]
    stored = image.read_host((0, 0, 0), (2, 2, 2)).view(np.int32).reshape(2, 2, 2)
    # Lanes 0 and 2 write texel (0, 0, 0): the highest active lane's value stays.
    assert stored.tolist() == [[[12, 0], [0, 0]], [[0, 0], [0, 11]]]


def test_write_uniform_values_and_h() -> None:
    image = Image(ImageFormat(O.RG, T.HALF_FLOAT), M.IMAGE1D, (4,))
    write(image, np.array([1, 3], np.int32), np.float16([0.5, -2, 7, 7]), "h")
    got = read(image, np.array([0, 1, 3], np.int32), None, "h")
    assert got.dtype == np.float16
    assert got.tolist() == [[0, 0, 0, 1], [0.5, -2, 0, 1], [0.5, -2, 0, 1]]
    # Uniform coordinates, per-lane values: the highest active lane's value stays.
    lanes = np.float16([[1, 0, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0]])
    write(image, np.int32(2), lanes, "h", np.array([True, True, False]))
    assert read(image, np.int32(2), None, "h").tolist() == [2, 0, 0, 1]


def test_float_coordinates_rejected_where_the_spec_has_none() -> None:
    image = Image(RGBA8, M.IMAGE2D, (2, 2))
    with pytest.raises(TypeError):
        write(image, np.float32([[0, 0]]), np.zeros((1, 4), np.uint32), "ui")
    with pytest.raises(TypeError):
        read(image, np.float32([[0, 0]]), None, "ui")
    with pytest.raises(ValueError):
        read(image, np.int32([[0], [1]]), None, "ui")


@pytest.mark.parametrize(("literal", "normalized", "mode", "filt"), [
    (0x10, False, A.NONE, Fm.NEAREST),
    (0x12, False, A.CLAMP_TO_EDGE, Fm.NEAREST),
    (0x14, False, A.CLAMP, Fm.NEAREST),
    (0x27, True, A.REPEAT, Fm.LINEAR),
    (0x29, True, A.MIRRORED_REPEAT, Fm.LINEAR),
])
def test_sampler_literals(literal: int, normalized: bool, mode: int, filt: int) -> None:
    sampler = Sampler.from_literal(literal)
    assert sampler == Sampler(normalized, mode, filt)
    assert sampler.literal == literal


def test_sampler_from_spirv() -> None:
    assert Sampler.from_spirv("RepeatMirrored", 1, "Linear") == Sampler(True, A.MIRRORED_REPEAT,
                                                                         Fm.LINEAR)
    assert Sampler.from_spirv("ClampToEdge", False, "Nearest") == Sampler(False, A.CLAMP_TO_EDGE,
                                                                           Fm.NEAREST)
    assert Sampler.from_spirv(2, 0, 0) == Sampler(False, A.CLAMP, Fm.NEAREST)
    assert Sampler.from_spirv("None", 0, "Nearest").addressing_mode == A.NONE
    with pytest.raises(LogicError, match="INVALID_SAMPLER"):
        Sampler.from_spirv("Wrap", 0, "Nearest")


@pytest.mark.parametrize("literal", [0x0, 0x30, 0x1A, 0x110, 0x1E])
def test_invalid_sampler_literals(literal: int) -> None:
    with pytest.raises(LogicError, match="INVALID_SAMPLER"):
        Sampler.from_literal(literal)


def test_invalid_sampler_modes() -> None:
    with pytest.raises(LogicError):
        Sampler(True, 0x1135, Fm.LINEAR)
    with pytest.raises(LogicError):
        Sampler(True, A.CLAMP, 0x1142)
