"""Image block IO layout, bounds and undefined cases against cl_intel_subgroups."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sgvm.semantics import (
    image_block_coords,
    image_block_in_bounds,
    image_block_oob_undefined,
    image_block_read_bytes,
    image_block_write_dropped,
    image_block_write_misaligned,
    image_from_buffer_base_misaligned,
    image_from_buffer_pitch_invalid,
    texel_size_undefined,
)


def test_coords_ui() -> None:
    # intel_sub_group_block_read2 at byte_coord (8, 2), sub-group size 4:
    # lane 1 reads bytes 12..15 of rows 2 and 3.
    xs, ys = image_block_coords(8, 2, 4, 2, 4)
    assert xs.shape == ys.shape == (1, 4, 2)
    assert xs[0, :, 0].tolist() == [8, 12, 16, 20]
    assert xs[0, 1].tolist() == [12, 12] and ys[0, 1].tolist() == [2, 3]


def test_coords_uc_per_group() -> None:
    xs, ys = image_block_coords(np.array([0, 5]), np.array([0, 7]), 1, 16, 16)
    assert xs.shape == (2, 16, 16)
    assert xs[1, :, 0].tolist() == list(range(5, 21))
    assert ys[1, 0].tolist() == list(range(7, 23))


def test_in_bounds_and_dropped_writes() -> None:
    # RGBA8 image: 4 texels (16 bytes) wide, 2 rows. A uint write block of 8
    # lanes at x = 0 covers 32 bytes: lanes 4..7 fall off the right edge.
    xs, ys = image_block_coords(0, 1, 4, 2, 8)
    inside = image_block_in_bounds(xs, ys, 4, 4, 2, 4)
    assert inside[0, :, 0].tolist() == [True] * 4 + [False] * 4
    assert not inside[0, :, 1].any()  # row 2 is below the image
    assert np.array_equal(image_block_write_dropped(xs, ys, 4, 4, 2, 4), ~inside)
    xs, ys = image_block_coords(-4, 0, 4, 1, 4)
    assert image_block_in_bounds(xs, ys, 4, 4, 2, 4)[0, :, 0].tolist() == [False, True, True, True]


def test_read_clamps_to_edge_texel() -> None:
    # 4 texels of 4 bytes, 2 rows; uint block at (8, 1), 4 lanes, 2 rows.
    xs, ys = image_block_coords(8, 1, 4, 2, 4)
    bx, by = image_block_read_bytes(xs, ys, 4, 4, 2, 4)
    assert bx.shape == (1, 4, 2, 4)
    assert bx[0, :, 0].tolist() == [[8, 9, 10, 11], [12, 13, 14, 15], [12, 13, 14, 15], [12, 13, 14, 15]]
    assert by[0, 0].tolist() == [[1] * 4, [1] * 4]  # row 2 clamps to row 1
    xs, ys = image_block_coords(-8, -3, 4, 1, 4)
    bx, by = image_block_read_bytes(xs, ys, 4, 4, 2, 4)
    assert bx[0, :, 0, 0].tolist() == [0, 0, 0, 4]
    assert (by == 0).all()


def test_unaligned_read_straddling_the_edge() -> None:
    # Reads "may read from any arbitrary byte offset": at x = 2 lane 3 reads
    # bytes 14..17; 16 and 17 lie in texel 4, clamped to texel 3 (bytes 12..15).
    xs, ys = image_block_coords(2, 0, 4, 1, 4)
    bx, _ = image_block_read_bytes(xs, ys, 4, 4, 1, 4)
    assert bx[0, 3, 0].tolist() == [14, 15, 12, 13]
    assert bx[0, 2, 0].tolist() == [10, 11, 12, 13]
    assert image_block_in_bounds(xs, ys, 4, 4, 1, 4)[0, :, 0].tolist() == [True, True, True, False]


def test_uchar_read_of_rgba8_clamps_per_uint() -> None:
    # A _uc read of a 4-byte-texel image: byte 17 is byte 1 of texel 4 -> byte 1 of texel 3.
    xs, ys = image_block_coords(14, 0, 1, 1, 4)
    bx, _ = image_block_read_bytes(xs, ys, 1, 4, 1, 4)
    assert bx[0, :, 0, 0].tolist() == [14, 15, 12, 13]


def test_out_of_bounds_defined_only_for_4_byte_texels() -> None:
    inside = np.array([True, False])
    assert image_block_oob_undefined(inside, 4).tolist() == [False, False]
    assert image_block_oob_undefined(inside, 1).tolist() == [False, True]
    assert image_block_oob_undefined(inside, 2).tolist() == [False, True]
    assert [texel_size_undefined(n) for n in (1, 2, 4, 8, 16)] == [False, False, False, True, True]


def test_write_x_must_be_multiple_of_4() -> None:
    x = np.array([0, 4, -4, 64, 1, 2, 3, 6, -2])
    assert image_block_write_misaligned(x).tolist() == [False] * 4 + [True] * 5


def test_image_from_buffer_restrictions() -> None:
    assert [image_from_buffer_pitch_invalid(p) for p in (64, 128, 192, 32, 100)] == [False] * 3 + [True] * 2
    assert [image_from_buffer_base_misaligned(a) for a in (0, 32, 96, 16, 4)] == [False] * 3 + [True] * 2


@settings(max_examples=150, deadline=None)
@given(
    elem_size=st.sampled_from([1, 2, 4]),
    count=st.sampled_from([1, 2, 4, 8, 16]),
    max_size=st.sampled_from([8, 16]),
    texel_size=st.sampled_from([1, 2, 4]),
    width=st.integers(1, 40),
    height=st.integers(1, 20),
    x=st.integers(-40, 160),
    y=st.integers(-20, 30),
)
def test_layout_bounds_and_clamp_match_spec(
    elem_size, count, max_size, texel_size, width, height, x, y
) -> None:
    xs, ys = image_block_coords(x, y, elem_size, count, max_size)
    inside = image_block_in_bounds(xs, ys, elem_size, width, height, texel_size)
    bx, by = image_block_read_bytes(xs, ys, elem_size, width, height, texel_size)
    row_bytes = width * texel_size
    for lane in range(max_size):
        for i in range(count):
            # "the first value read is from the row specified in the y-component
            # [...] the second value [...] plus one, etc."; lanes side by side.
            x0, row = x + lane * elem_size, y + i
            assert (xs[0, lane, i], ys[0, lane, i]) == (x0, row)
            byte_xs = range(x0, x0 + elem_size)
            assert inside[0, lane, i] == (
                all(0 <= b < row_bytes for b in byte_xs) and 0 <= row < height
            )
            for k, b in enumerate(byte_xs):
                # CLAMP_TO_EDGE: nearest texel in the row, nearest row.
                texel = min(max(b // texel_size, 0), width - 1)
                assert bx[0, lane, i, k] == texel * texel_size + b % texel_size
                assert by[0, lane, i, k] == min(max(row, 0), height - 1)
