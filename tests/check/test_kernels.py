"""Real kernels for the rules the category table leaves out: image block IO (category 5)
on cl.Image objects, block-read alignment, broadcast lane ids, uninitialised private
memory, INT_MIN / -1 and stores to CL_MEM_READ_ONLY buffers — each with a clean twin."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm.cl as cl

from .helpers import buf, line_of
from .test_categories import HEAD

MF = cl.mem_flags
ORDER, TYPE = cl.channel_order, cl.channel_type

WRITE = """kernel void k(write_only image2d_t im, int x) {
  intel_sub_group_block_write(im, (int2)(x, get_group_id(0)), (uint)get_global_id(0));
}
"""
READ = """kernel void k(read_only image2d_t im, global uint *out, int x) {
  out[get_global_id(0)] = intel_sub_group_block_read(im, (int2)(x, get_group_id(0)));
}
"""


def _image(ctx, order: int, ctype: int, width: int, dtype, channels: int = 1) -> cl.Image:
    """A zero-filled ``width`` × 4 image."""
    shape = (4, width) if channels == 1 else (4, width, channels)
    return cl.Image(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, cl.ImageFormat(order, ctype),
                    hostbuf=np.zeros(shape, dtype))


# (name, source, image (order, type, width, dtype, channels), x, category, count); the clean
# twin changes only ``x`` or the image. 64 work-items in groups of 32: 4 sub-groups of 16.
IMAGE_CASES = [
    # "the x-component of the byte coordinate for the image block write functions must be a
    # multiple of four": one offender per sub-group
    ("write_x_not_multiple_of_4", WRITE, (ORDER.R, TYPE.UNSIGNED_INT32, 64, np.uint32, 1), 2, 4,
     "image-block-write-misaligned", 4),
    # "undefined for images with an element size greater than four bytes (such as CL_RGBA +
    # CL_FLOAT)"; twin: CL_R + CL_FLOAT (4 bytes)
    ("wide_format", READ, (ORDER.RGBA, TYPE.FLOAT, 16, np.float32, 4), 0, 0,
     "image-block-wide-format", 4),
    # 1-byte texels, 64 wide: lanes 12..15 of each sub-group read bytes 64..79
    ("narrow_out_of_bounds", READ, (ORDER.R, TYPE.UNSIGNED_INT8, 64, np.uint8, 1), 16, 0,
     "image-block-out-of-bounds", 4 * 4),
]
TWIN_IMAGE = {"wide_format": (ORDER.R, TYPE.FLOAT, 16, np.float32, 1)}


def _image_args(ctx, src: str, image: tuple, x: int) -> list:
    args = [_image(ctx, *image)]
    if src is READ:
        args.append(np.zeros(64, np.uint32))
    return args + [np.int32(x)]


@pytest.mark.parametrize("case", IMAGE_CASES, ids=[c[0] for c in IMAGE_CASES])
def test_image_block_rule(check, ctx, case) -> None:
    name, src, image, x, clean_x, category, count = case
    (f,) = check(src, *_image_args(ctx, src, image, x))
    assert (f.category, f.severity, f.count) == (category, "error", count)
    assert f.line == line_of(src, "intel_sub_group_block")
    assert check(src, *_image_args(ctx, src, TWIN_IMAGE.get(name, image), clean_x)) == []


# (name, body, trigger text, category, count, clean body, build options)
CASES = [
    ("block_read_misaligned",
     "  out[i] = intel_sub_group_block_read((const global uint *)((const global char *)in + 2));\n",
     "intel_sub_group_block_read", "block-read-misaligned", 4,  # one per sub-group
     "  out[i] = intel_sub_group_block_read((const global uint *)in + 1);\n", ""),
    ("broadcast_lane_out_of_range", "  out[i] = sub_group_broadcast(x, 20);\n",
     "sub_group_broadcast", "broadcast-lane-invalid", 4,
     "  out[i] = sub_group_broadcast(x, 15);\n", ""),
    # -cl-opt-disable keeps the private array; odd lanes read a[1], never written
    ("uninitialized_private", "  int a[4]; a[0] = x; a[2] = x; out[i] = a[lid & 1];\n",
     "out[i] = a[lid & 1]", "uninitialized-read", 32,
     "  int a[4]; a[0] = x; a[1] = x; out[i] = a[lid & 1];\n", "-cl-opt-disable"),
    ("int_min_div_minus_one",
     "  int a = lid == 5 ? INT_MIN : x; int d = lid == 5 ? -1 : 1; out[i] = a / d;\n",
     "out[i] = a / d", "division-overflow", 2,  # lid 5 of each work-group
     "  int a = lid == 5 ? INT_MIN : x; int d = lid == 5 ? -2 : 1; out[i] = a / d;\n", ""),
    ("int_min_rem_minus_one",
     "  int a = lid == 5 ? INT_MIN : x; int d = lid == 5 ? -1 : 1; out[i] = a % d;\n",
     "out[i] = a % d", "division-overflow", 2,
     "  int a = lid == 5 ? INT_MIN : x; int d = lid == 5 ? -2 : 1; out[i] = a % d;\n", ""),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_kernel_rule(check, case) -> None:
    _, body, text, category, count, clean, options = case
    src = HEAD + body + "}\n"
    found = [f for f in check(src, buf(), buf(), options=options) if f.category == category]
    assert len(found) == 1, found
    assert found[0].count == count and found[0].line == line_of(src, text)
    assert check(HEAD + clean + "}\n", buf(), buf(), options=options) == []


@pytest.mark.parametrize("flags,found", [(MF.READ_ONLY, 3), (MF.READ_WRITE, 0)])
def test_store_to_read_only_buffer(check, ctx, flags, found) -> None:
    """clCreateBuffer: "Writing to a buffer or image object created with CL_MEM_READ_ONLY
    inside a kernel is undefined." The store is skipped and reported."""
    src = HEAD + "  if (i < 3) out[i] = x;\n}\n"
    host = np.zeros(64, np.int32)
    out = cl.Buffer(ctx, flags | MF.COPY_HOST_PTR, hostbuf=host)
    findings = check(src, out, buf())
    assert [(f.category, f.count, f.line) for f in findings] == \
        ([("read-only-write", found, line_of(src, "out[i] = x"))] if found else [])


IMAGE_RW = """kernel void k(read_only image2d_t src, write_only image2d_t dst, int dx, int dy) {
  int x = get_global_id(0) % 16, y = get_global_id(0) / 16;
  float4 v = read_imagef(src, (int2)(x, y + dy));
  write_imagef(dst, (int2)(x + dx, y), v);
}
"""


@pytest.mark.parametrize("dx, dy, category, severity, text", [
    (1, 0, "image-write-out-of-bounds", "error", "write_imagef"),
    (0, -1, "image-read-out-of-bounds", "warning", "read_imagef"),
])
def test_image_access_outside_the_image(check, ctx, dx, dy, category, severity, text) -> None:
    """OpenCL C: write_image* outside the image is undefined behaviour, a sampler-less read
    outside it (CLK_ADDRESS_NONE) an undefined result; 64 work-items on a 16 x 4 image:
    x + 1 leaves it in column 15 (4 work-items), y - 1 in row 0 (16)."""
    fmt = cl.ImageFormat(ORDER.R, TYPE.FLOAT)
    images = [cl.Image(ctx, MF.READ_WRITE, fmt, shape=(16, 4)) for _ in range(2)]
    (f,) = check(IMAGE_RW, *images, np.int32(dx), np.int32(dy))
    assert (f.category, f.severity, f.count) == (category, severity, 4 if dx else 16)
    assert f.line == line_of(IMAGE_RW, text)
    assert "outside argument #" in f.message and "(16 x 4 texels)" in f.message
    assert check(IMAGE_RW, *images, np.int32(0), np.int32(0)) == []
