"""Format conversions with hand-derived values (OpenCL C "Conversion Rules")."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.errors import LogicError
from sgvm.runtime.images import (
    Image,
    ImageFormat,
    addressing_mode,
    border_color,
    channel_order,
    channel_type,
    decode,
    encode,
    filter_mode,
    mem_object_type,
    supported_formats,
)

O, T, M = channel_order, channel_type, mem_object_type


def texel(*values: int, dtype: str) -> np.ndarray:
    """One texel's bytes (1, element_size) from its stored channel values."""
    return np.array(values, dtype=dtype).view(np.uint8).reshape(1, -1)


def test_enum_values() -> None:
    assert (O.R, O.RGBA, O.BGRA, O.sRGBA, O.ABGR) == (0x10B0, 0x10B5, 0x10B6, 0x10C1, 0x10C3)
    assert (T.SNORM_INT8, T.UNORM_INT8, T.HALF_FLOAT, T.FLOAT) == (0x10D0, 0x10D2, 0x10DD, 0x10DE)
    assert (M.IMAGE2D, M.IMAGE3D, M.IMAGE1D, M.IMAGE1D_BUFFER) == (0x10F1, 0x10F2, 0x10F4, 0x10F6)
    assert addressing_mode.MIRRORED_REPEAT == 0x1134 and filter_mode.LINEAR == 0x1141
    assert T.to_string(0x10D2) == "UNORM_INT8"
    assert O.to_string(0x1, "<{:#x}>") == "<0x1>"
    with pytest.raises(ValueError):
        O.to_string(0x1)


@pytest.mark.parametrize(("order", "ctype", "size", "channels"), [
    (O.R, T.UNORM_INT8, 1, 1), (O.RG, T.SNORM_INT16, 4, 2), (O.RGBA, T.FLOAT, 16, 4),
    (O.BGRA, T.UNORM_INT8, 4, 4), (O.RGBA, T.HALF_FLOAT, 8, 4), (O.RGB, T.UNORM_SHORT_565, 2, 3),
    (O.RGBx, T.UNORM_INT_101010, 4, 3), (O.INTENSITY, T.FLOAT, 4, 1), (O.RA, T.SIGNED_INT32, 8, 2),
])
def test_element_size(order: int, ctype: int, size: int, channels: int) -> None:
    fmt = ImageFormat(order, ctype)
    assert (fmt.element_size, fmt.num_channels) == (size, channels)


def test_unsupported_formats_raise() -> None:
    with pytest.raises(LogicError) as err:
        ImageFormat(O.BGRA, T.FLOAT).check()  # the spec allows BGRA only with 8-bit types
    assert err.value.code_name == "CL_IMAGE_FORMAT_NOT_SUPPORTED"
    with pytest.raises(LogicError) as err:
        Image(ImageFormat(0x1234, T.FLOAT), M.IMAGE2D, (2, 2))
    assert err.value.code_name == "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"


def test_supported_formats() -> None:
    fmts = supported_formats(M.IMAGE2D)
    for order in (O.R, O.RG, O.RGBA):
        for ctype in (T.UNORM_INT8, T.UNORM_INT16, T.SNORM_INT8, T.SNORM_INT16, T.SIGNED_INT8,
                      T.SIGNED_INT16, T.SIGNED_INT32, T.UNSIGNED_INT8, T.UNSIGNED_INT16,
                      T.UNSIGNED_INT32, T.HALF_FLOAT, T.FLOAT):
            assert ImageFormat(order, ctype) in fmts
    assert ImageFormat(O.BGRA, T.UNORM_INT8) in fmts
    assert ImageFormat(O.DEPTH, T.FLOAT) in fmts
    assert ImageFormat(O.DEPTH, T.FLOAT) not in supported_formats(M.IMAGE3D)
    assert all(f.supported for f in fmts)


@pytest.mark.parametrize(("ctype", "stored", "dtype", "expected"), [
    (T.UNORM_INT8, 128, "u1", 128 / 255),
    (T.UNORM_INT8, 255, "u1", 1.0),
    (T.UNORM_INT16, 32768, "u2", 32768 / 65535),
    (T.SNORM_INT8, 64, "i1", 64 / 127),
    (T.SNORM_INT8, -127, "i1", -1.0),
    (T.SNORM_INT8, -128, "i1", -1.0),  # max(-1.0f, -128/127.0f)
    (T.SNORM_INT16, -32768, "i2", -1.0),
    (T.SNORM_INT16, 1000, "i2", 1000 / 32767),
    (T.HALF_FLOAT, 0x3C00, "u2", 1.0),
    (T.HALF_FLOAT, 0xC100, "u2", -2.5),
    (T.FLOAT, 0x3EA00000, "u4", 0.3125),
])
def test_read_f_normalized_and_float(ctype: int, stored: int, dtype: str, expected: float) -> None:
    out = decode(ImageFormat(O.R, ctype), texel(stored, dtype=dtype), "f")
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.float32([[expected, 0, 0, 1]]))


@pytest.mark.parametrize(("ctype", "stored", "dtype", "kind", "expected"), [
    (T.SIGNED_INT8, -5, "i1", "i", -5),
    (T.SIGNED_INT16, -300, "i2", "i", -300),
    (T.SIGNED_INT32, -(2**31), "i4", "i", -(2**31)),
    (T.UNSIGNED_INT8, 200, "u1", "ui", 200),
    (T.UNSIGNED_INT16, 60000, "u2", "ui", 60000),
    (T.UNSIGNED_INT32, 2**32 - 1, "u4", "ui", 2**32 - 1),
])
def test_read_integer(ctype: int, stored: int, dtype: str, kind: str, expected: int) -> None:
    out = decode(ImageFormat(O.RG, ctype), texel(stored, 7, dtype=dtype), kind)
    assert out.dtype == (np.int32 if kind == "i" else np.uint32)
    assert out.tolist() == [[expected, 7, 0, 1]]


def test_packed_formats() -> None:
    f565 = ImageFormat(O.RGB, T.UNORM_SHORT_565)
    words = np.array([0xF800, 0x07E0, 0x001F, (16 << 11) | (32 << 5) | 16], dtype=np.uint16)
    out = decode(f565, words.view(np.uint8).reshape(4, 2), "f")
    np.testing.assert_array_equal(out, np.float32([
        [1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [16 / 31, 32 / 63, 16 / 31, 1]]))
    f555 = ImageFormat(O.RGBx, T.UNORM_SHORT_555)
    word = np.array([0x8000 | (31 << 10) | 1], dtype=np.uint16)  # bit 15 is padding
    np.testing.assert_array_equal(decode(f555, word.view(np.uint8).reshape(1, 2), "f"),
                                  np.float32([[1, 0, 1 / 31, 1]]))
    f1010 = ImageFormat(O.RGB, T.UNORM_INT_101010)
    word = np.array([(512 << 20) | (1023 << 10)], dtype=np.uint32)
    np.testing.assert_array_equal(decode(f1010, word.view(np.uint8).reshape(1, 4), "f"),
                                  np.float32([[512 / 1023, 1, 0, 1]]))
    # Writes: convert_*_sat_rte(f * (2^bits - 1)) per channel.
    out = encode(f565, np.float32([[1.0, 0.5, -3.0, 0.0]]), "f").view(np.uint16)
    assert out.tolist() == [[(31 << 11) | (32 << 5) | 0]]  # 0.5*63 = 31.5 → 32 (even)
    out = encode(f1010, np.float32([[2.0, 0.0, 0.5, 1.0]]), "f").view(np.uint32)
    assert out.tolist() == [[(1023 << 20) | 512]]  # 511.5 → 512


@pytest.mark.parametrize(("order", "stored", "expected"), [
    (O.R, (10,), (10, 0, 0, 1)),
    (O.A, (10,), (0, 0, 0, 10)),
    (O.RG, (10, 20), (10, 20, 0, 1)),
    (O.RA, (10, 20), (10, 0, 0, 20)),
    (O.RGBA, (10, 20, 30, 40), (10, 20, 30, 40)),
    (O.BGRA, (10, 20, 30, 40), (30, 20, 10, 40)),
    (O.ARGB, (10, 20, 30, 40), (20, 30, 40, 10)),
    (O.ABGR, (10, 20, 30, 40), (40, 30, 20, 10)),
])
def test_channel_orders(order: int, stored: tuple[int, ...], expected: tuple[int, ...]) -> None:
    fmt = ImageFormat(order, T.UNSIGNED_INT8)
    raw = texel(*stored, dtype="u1")
    assert decode(fmt, raw, "ui").tolist() == [list(expected)]
    # Writing what was read stores the same bytes; unstored components are dropped.
    assert encode(fmt, np.array([expected], dtype=np.uint32), "ui").tolist() == raw.tolist()


def test_intensity_and_luminance() -> None:
    raw = texel(51, dtype="u1")
    intensity = ImageFormat(O.INTENSITY, T.UNORM_INT8)
    luminance = ImageFormat(O.LUMINANCE, T.UNORM_INT8)
    np.testing.assert_array_equal(decode(intensity, raw, "f"), np.float32([[0.2] * 4]))
    np.testing.assert_array_equal(decode(luminance, raw, "f"), np.float32([[0.2] * 3 + [1]]))
    # Both store the x component.
    for fmt in (intensity, luminance):
        assert encode(fmt, np.float32([[0.2, 0.9, 0.9, 0.9]]), "f").tolist() == [[51]]


def test_bgra_write_swizzle() -> None:
    fmt = ImageFormat(O.BGRA, T.UNORM_INT8)
    out = encode(fmt, np.float32([[1.0, 0.5, 0.0, 0.2]]), "f")
    assert out.tolist() == [[0, 128, 255, 51]]  # b, g, r, a; 0.5*255 = 127.5 → 128


@pytest.mark.parametrize(("ctype", "value", "expected"), [
    (T.UNORM_INT8, 0.5, 128),        # 127.5 → nearest even
    (T.UNORM_INT8, 2.0, 255),        # saturate
    (T.UNORM_INT8, -1.0, 0),
    (T.UNORM_INT8, float("nan"), 0),
    (T.UNORM_INT16, 0.5, 32768),     # 32767.5 → even
    (T.SNORM_INT8, 0.5, 64),         # 63.5 → even
    (T.SNORM_INT8, -0.5, -64),
    (T.SNORM_INT8, -1.0, -127),
    (T.SNORM_INT8, -5.0, -128),      # convert_char_sat_rte
    (T.SNORM_INT16, 1.5, 32767),
    (T.HALF_FLOAT, 1 / 3, float(np.float16(1 / 3))),
    (T.HALF_FLOAT, 65520.0, float("inf")),  # rounds to nearest even: past the largest half
    (T.FLOAT, 0.1, float(np.float32(0.1))),
])
def test_write_f_conversions(ctype: int, value: float, expected: float) -> None:
    fmt = ImageFormat(O.R, ctype)
    raw = encode(fmt, np.float32([[value, 9, 9, 9]]), "f")
    dtype = {T.UNORM_INT8: "u1", T.UNORM_INT16: "u2", T.SNORM_INT8: "i1", T.SNORM_INT16: "i2",
             T.HALF_FLOAT: "f2", T.FLOAT: "f4"}[ctype]
    assert raw.view(dtype)[0, 0] == expected


@pytest.mark.parametrize(("ctype", "kind", "value", "expected"), [
    (T.SIGNED_INT8, "i", 300, 127),
    (T.SIGNED_INT8, "i", -300, -128),
    (T.SIGNED_INT8, "i", np.uint32(0xFFFFFFFF), -1),  # the engine's unsigned int32 for -1
    (T.SIGNED_INT16, "i", 40000, 32767),
    (T.SIGNED_INT32, "i", -7, -7),
    (T.UNSIGNED_INT8, "ui", 300, 255),
    (T.UNSIGNED_INT8, "ui", np.uint32(0xFFFFFFFF), 255),
    (T.UNSIGNED_INT16, "ui", 70000, 65535),
    (T.UNSIGNED_INT32, "ui", 2**32 - 1, 2**32 - 1),
])
def test_write_integer_saturates(ctype: int, kind: str, value: int, expected: int) -> None:
    fmt = ImageFormat(O.R, ctype)
    dtype = np.uint32 if isinstance(value, np.uint32) or kind == "ui" else np.int32
    raw = encode(fmt, np.array([[value, 0, 0, 0]], dtype=dtype), kind)
    assert decode(fmt, raw, kind)[0, 0] == expected


def test_srgb() -> None:
    fmt = ImageFormat(O.sRGBA, T.UNORM_INT8)
    out = decode(fmt, texel(0, 10, 128, 128, dtype="u1"), "f")[0]
    np.testing.assert_allclose(out, [0.0, (10 / 255) / 12.92,
                                     ((128 / 255 + 0.055) / 1.055) ** 2.4, 128 / 255], rtol=1e-6)
    # 0.5 linear → 1.055 * 0.5^(1/2.4) - 0.055 = 0.73536 → 187.5 → 188; alpha stays linear.
    assert encode(fmt, np.float32([[0.5, 2.0, -1.0, 0.5]]), "f").tolist() == [[188, 255, 0, 128]]
    bgra = ImageFormat(O.sBGRA, T.UNORM_INT8)
    assert encode(bgra, np.float32([[0.5, 0.0, 1.0, 1.0]]), "f").tolist() == [[255, 0, 188, 255]]


def test_read_h() -> None:
    out = decode(ImageFormat(O.R, T.UNORM_INT8), texel(128, dtype="u1"), "h")
    assert out.dtype == np.float16
    assert out[0, 0] == np.float16(128 / 255)


def test_mismatched_kinds_convert_numerically() -> None:
    # Undefined in the spec; sgvm converts the stored channel value (docs/images.md).
    assert decode(ImageFormat(O.R, T.UNSIGNED_INT8), texel(200, dtype="u1"), "f")[0, 0] == 200.0
    assert decode(ImageFormat(O.R, T.UNORM_INT8), texel(200, dtype="u1"), "i")[0, 0] == 200
    assert decode(ImageFormat(O.R, T.FLOAT), texel(-2.5, dtype="f4"), "i")[0, 0] == -2
    assert decode(ImageFormat(O.R, T.FLOAT), texel(-2.5, dtype="f4"), "ui")[0, 0] == 0
    raw = encode(ImageFormat(O.R, T.SIGNED_INT8), np.float32([[2.5, 0, 0, 0]]), "f")
    assert raw.view(np.int8)[0, 0] == 2


def test_border_colors() -> None:
    assert border_color(ImageFormat(O.R, T.FLOAT), "f").tolist() == [0, 0, 0, 1]
    assert border_color(ImageFormat(O.RG, T.FLOAT), "f").tolist() == [0, 0, 0, 1]
    assert border_color(ImageFormat(O.RGB, T.UNORM_SHORT_565), "f").tolist() == [0, 0, 0, 1]
    assert border_color(ImageFormat(O.LUMINANCE, T.FLOAT), "f").tolist() == [0, 0, 0, 1]
    for order in (O.A, O.RA, O.RGBA, O.BGRA, O.INTENSITY, O.RGBx):
        ctype = T.UNORM_SHORT_565 if order == O.RGBx else T.UNORM_INT8
        assert border_color(ImageFormat(order, ctype), "f").tolist() == [0, 0, 0, 0]
    border = border_color(ImageFormat(O.R, T.SIGNED_INT32), "i")
    assert border.dtype == np.int32 and border.tolist() == [0, 0, 0, 1]
