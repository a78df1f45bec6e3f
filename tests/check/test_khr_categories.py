"""Families 10 (cl_khr_subgroup_* undefined results and uniform arguments): a kernel that
triggers each category, with the offender count by hand, and a clean twin. N = 64
work-items in work-groups of 32: four sub-groups of 16."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm.cl as cl

from .helpers import buf, line_of
from .test_categories import _source

# (name, body, trigger text, category, severity, count, clean body)
CASES = [
    ("khr_shuffle", "  out[i] = sub_group_shuffle(x, sl + 4);\n", "sub_group_shuffle(",
     "khr-shuffle-out-of-range", "warning", 4 * 4,  # lanes 12..15 of four sub-groups
     "  out[i] = sub_group_shuffle(x, (sl + 4) % 16);\n"),
    ("khr_shuffle_down", "  out[i] = sub_group_shuffle_down(x, 2);\n", "sub_group_shuffle_down",
     "khr-shuffle-out-of-range", "warning", 4 * 2,  # l + 2 >= 16 for l = 14, 15
     "  out[i] = sub_group_shuffle_down(x, sl < 14 ? 2 : 0);\n"),
    ("khr_shuffle_inactive", "  if (sl < 8) out[i] = sub_group_shuffle_xor(x, 8);\n",
     "sub_group_shuffle_xor", "khr-shuffle-source-inactive", "warning", 4 * 8,
     "  if (sl < 8) out[i] = sub_group_shuffle_xor(x, 4);\n"),
    ("rotate_inactive", "  if (sl < 8) out[i] = sub_group_rotate(x, 1);\n", "sub_group_rotate",
     "rotate-source-inactive", "warning", 4,  # lane 7 reads lane 8
     "  if (sl < 8) out[i] = sub_group_clustered_rotate(x, 1, 8);\n"),
    ("rotate_delta", "  out[i] = sub_group_rotate(x, sl & 1);\n", "sub_group_rotate",
     "rotate-delta-not-uniform", "error", 4,
     "  out[i] = sub_group_rotate(x, 3);\n"),
    ("nu_broadcast_index", "  out[i] = sub_group_non_uniform_broadcast(x, sl & 1);\n",
     "sub_group_non_uniform_broadcast", "non-uniform-broadcast-index-not-uniform", "error", 4,
     "  out[i] = sub_group_non_uniform_broadcast(x, 1);\n"),
    ("nu_broadcast_inactive", "  if (sl > 3) out[i] = sub_group_non_uniform_broadcast(x, 2);\n",
     "sub_group_non_uniform_broadcast", "non-uniform-broadcast-lane-invalid", "warning", 4,
     "  if (sl > 3) out[i] = sub_group_non_uniform_broadcast(x, 5);\n"),
    ("inverse_ballot", "  out[i] = sub_group_inverse_ballot((uint4)(sl, 0, 0, 0));\n",
     "sub_group_inverse_ballot", "inverse-ballot-value-not-uniform", "error", 4,
     "  out[i] = sub_group_inverse_ballot((uint4)(0x5555, 0, 0, 0));\n"),
    ("bit_extract", "  out[i] = sub_group_ballot_bit_extract(sub_group_ballot(x > 5), sl + 8);\n",
     "sub_group_ballot_bit_extract", "ballot-bit-extract-out-of-range", "warning", 4 * 8,
     "  out[i] = sub_group_ballot_bit_extract(sub_group_ballot(x > 5), sl ^ 8);\n"),
    ("find_lsb", "  out[i] = sub_group_ballot_find_lsb(sub_group_ballot(x < 0));\n",
     "sub_group_ballot_find_lsb", "ballot-find-no-bit", "warning", 4 * 16,
     "  out[i] = sub_group_ballot_find_lsb(sub_group_ballot(x >= 0));\n"),
]
CASES += [
    ("cluster_not_power_of_two", "  out[i] = sub_group_clustered_reduce_add(x, 3);\n",
     "sub_group_clustered_reduce_add", "cluster-size-invalid", "error", 4,
     "  out[i] = sub_group_clustered_reduce_add(x, 4);\n"),
    ("cluster_not_constant", "  out[i] = sub_group_clustered_rotate(x, 1, (uint)in[4]);\n",
     "sub_group_clustered_rotate", "cluster-size-invalid", "error", 4,
     "  out[i] = sub_group_clustered_rotate(x, 1, 4);\n"),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_trigger(check, case) -> None:
    _, body, text, category, severity, count, _ = case
    src = _source(body)
    found = [f for f in check(src, buf(), buf(), options="-cl-std=CL3.0") if f.category == category]
    assert len(found) == 1, found
    f = found[0]
    assert (f.severity, f.line, f.count) == (severity, line_of(src, text), count)
    assert f.kernel == "k" and f.offenders and f.clause


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_clean_twin(check, case) -> None:
    assert check(_source(case[6]), buf(), buf(), options="-cl-std=CL3.0") == []


def test_divergent_non_uniform_calls_are_not_sub_group_divergence(check) -> None:
    """The khr functions "need not be encountered by all work items in a sub-group"."""
    src = _source("  if (sl < 8) out[i] = sub_group_non_uniform_reduce_add(x) + sub_group_elect()"
                  " + sub_group_ballot_bit_count(sub_group_ballot(x & 1));\n")
    assert check(src, buf(), buf(), options="-cl-std=CL3.0") == []


MEDIA = """kernel void k(read_only image2d_t im, global uint *out, int x, int w) {
  out[get_global_id(0)] = intel_sub_group_media_block_read_ui(
      (int2)(x, get_group_id(0)), WIDTH, 2, im);
}
"""
# (name, width expression, image (order, type, channels, dtype), x, category, count, clean
# (width expression, image, x)); 64 work-items in groups of 32: four sub-groups of 16.
R_U8 = (cl.channel_order.R, cl.channel_type.UNSIGNED_INT8, 1, np.uint8)
R_U32 = (cl.channel_order.R, cl.channel_type.UNSIGNED_INT32, 1, np.uint32)
RGBA_F32 = (cl.channel_order.RGBA, cl.channel_type.FLOAT, 4, np.float32)
MEDIA_CASES = [
    # Table 6.X: a dword region 9 wide is 36 bytes, over the 32-byte limit
    ("width_outside_table", "9", R_U32, 0, "media-block-size-invalid", 4, ("8", R_U32, 0)),
    # "The width and height of the region must be compile-time constants."
    ("width_not_constant", "w", R_U32, 0, "media-block-size-invalid", 4, ("1", R_U32, 0)),
    # "The source byte x-offset and width must be 4 byte aligned."
    ("x_misaligned", "1", R_U32, 2, "media-block-x-misaligned", 4, ("1", R_U32, 4)),
    # "The behavior is undefined for images with greater than dword sized texels"
    ("wide_format", "1", RGBA_F32, 0, "media-block-wide-format", 4, ("1", R_U32, 0)),
]


def _media_image(ctx, image: tuple, width: int = 16) -> cl.Image:
    order, ctype, channels, dtype = image
    shape = (4, width) if channels == 1 else (4, width, channels)
    return cl.Image(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                    cl.ImageFormat(order, ctype), hostbuf=np.zeros(shape, dtype))


@pytest.mark.parametrize("case", MEDIA_CASES, ids=[c[0] for c in MEDIA_CASES])
def test_media_block_rule(check, ctx, case) -> None:
    _, width, image, x, category, count, (clean_width, clean_image, clean_x) = case
    src = MEDIA.replace("WIDTH", width)
    found = [f for f in check(src, _media_image(ctx, image), np.zeros(64, np.uint32), np.int32(x),
                              np.int32(1)) if f.category == category]
    assert len(found) == 1 and (found[0].severity, found[0].count) == ("error", count)
    assert found[0].line == line_of(src, "intel_sub_group_media_block_read_ui")
    clean = MEDIA.replace("WIDTH", clean_width)
    assert check(clean, _media_image(ctx, clean_image), np.zeros(64, np.uint32), np.int32(clean_x),
                 np.int32(1)) == []


def test_media_block_narrow_element_past_the_edge(check, ctx) -> None:
    """Byte reads of dword texels past the right edge: "The out-of-bound behavior is
    undefined for larger sized texels with the "_uc" builtin-functions."; twin: byte texels."""
    src = """kernel void k(read_only image2d_t im, global uchar *out) {
  out[get_global_id(0)] = intel_sub_group_media_block_read_uc((int2)(64, 0), 4, 4, im);
}
"""
    (f,) = check(src, _media_image(ctx, R_U32), np.zeros(64, np.uint8))
    assert (f.category, f.count) == ("media-block-out-of-bounds", 64)  # every lane
    assert check(src, _media_image(ctx, R_U8, 64), np.zeros(64, np.uint8)) == []
