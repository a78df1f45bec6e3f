"""cl_intel_media_block_io: intel_sub_group_media_block_read/write_{uc,us,ui}{,2,4,8,16}
for sub-group sizes 8/16/32, byte/word/dword texels, regions inside the image and across
every edge. The reference re-organises the region by hand: "The read-in texels in the 2D
region taken in row-major order are re-organized as another 2D region with the byte width
equal to the subgroup size. Then each work-item reads each byte column vector", replicates
edge texels ("for a boundary word B0B1B2B3, to replicate the left boundary byte texel, the
out of bound dwords have the format of B0B0B0B0") and drops out-of-bound writes."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.compiler.options import parse_options
from sgvm.runtime.images import Image, ImageFormat, channel_order, channel_type
from sgvm.runtime.images.enums import mem_object_type

from .helpers import SIZES, build, run

pytestmark = pytest.mark.usefixtures("runs_natively")  # images run natively since this round

SUFFIX = {"uc": ("uchar", 1), "us": ("ushort", 2), "ui": ("uint", 4)}
WIDTHS = {"uc": (1, 2, 4, 8, 16), "us": (1, 2, 4, 8, 16), "ui": (1, 2, 4, 8)}
FORMATS = {1: channel_type.UNSIGNED_INT8, 2: channel_type.UNSIGNED_INT16,
           4: channel_type.UNSIGNED_INT32}
MAX_HEIGHT = {4: 64, 8: 32, 12: 16, 16: 16, 20: 8, 24: 8, 28: 8, 32: 8}  # Table 6.X
IMAGE_BYTES, IMAGE_ROWS = 40, 24


def _regions(suf: str) -> list[tuple[int, int]]:
    """(width in elements, height) pairs from Table 6.X: narrow-tall to wide-short."""
    e = SUFFIX[suf][1]
    return [(wb // e, h) for wb, h in ((4, 5), (8, 32), (12, 3), (16, 16), (32, 8)) if h <= MAX_HEIGHT[wb]]


def _vec(n: int) -> str:
    return "" if n == 1 else str(n)


def _read_kernel(suf: str, n: int) -> str:
    t = SUFFIX[suf][0]
    calls = "".join(
        f"  {{ {t}{_vec(n)} r = intel_sub_group_media_block_read_{suf}{_vec(n)}((int2)(x, y), {w}, {h}, im);\n"
        f"    {'o[' + str(c) + ' * S + l] = r;' if n == 1 else f'vstore{n}(r, {c} * S + l, o);'} }}\n"
        for c, (w, h) in enumerate(_regions(suf)))
    return (f"kernel void mr_{suf}{n}(read_only image2d_t im, global {t}* o, int x, int y) {{\n"
            f"  uint l = get_sub_group_local_id(), S = get_max_sub_group_size();\n{calls}}}\n")


def _write_kernel(suf: str, n: int) -> str:
    t = SUFFIX[suf][0]
    w, h = _regions(suf)[-1]
    load = "d[l]" if n == 1 else f"vload{n}(l, d)"
    return (f"kernel void mw_{suf}{n}(write_only image2d_t im, global const {t}* d, int x, int y) {{\n"
            f"  uint l = get_sub_group_local_id();\n"
            f"  intel_sub_group_media_block_write_{suf}{_vec(n)}((int2)(x, y), {w}, {h}, {load}, im);\n}}\n")


SOURCE = "".join(_read_kernel(s, n) + _write_kernel(s, n) for s in SUFFIX for n in WIDTHS[s])


def _image(texel: int, data: np.ndarray) -> Image:
    fmt = ImageFormat(channel_order.R, FORMATS[texel])
    w = IMAGE_BYTES // texel
    img = Image(fmt, mem_object_type.IMAGE2D, (w, IMAGE_ROWS))
    img.write_host((0, 0), (w, IMAGE_ROWS), data.reshape(IMAGE_ROWS, IMAGE_BYTES).view(
        np.dtype(f"u{texel}")))
    return img


def _read_ref(raw: np.ndarray, texel: int, e: int, n: int, S: int, w: int, h: int, x: int, y: int):
    """(S, n) expected elements and a defined-mask (the tail past w*h is undefined, and so
    is an out-of-bound read of texels larger than the element)."""
    dt = np.dtype(f"u{e}")
    want = np.zeros((S, n), dtype=dt)
    defined = np.zeros((S, n), dtype=bool)
    cols = IMAGE_BYTES // texel
    for lane in range(S):
        for i in range(n):
            k = i * S + lane
            if k >= w * h:
                continue
            row, col = divmod(k, w)
            bx, by = x + col * e, y + row
            inside = 0 <= bx and bx + e <= IMAGE_BYTES and 0 <= by < IMAGE_ROWS
            if not inside and texel > e:
                continue
            r = min(max(by, 0), IMAGE_ROWS - 1)
            bytes_ = [raw[r, min(max((bx + j) // texel, 0), cols - 1) * texel + (bx + j) % texel]
                      for j in range(e)]
            want[lane, i] = np.array(bytes_, np.uint8).view(dt)[0]
            defined[lane, i] = True
    return want, defined


POSITIONS = [(8, 3), (-8, -2), (IMAGE_BYTES - 8, IMAGE_ROWS - 3), (0, IMAGE_ROWS - 1)]


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("suf", list(SUFFIX))
def test_media_block_read(suf: str, S: int) -> None:
    t, e = SUFFIX[suf]
    opts = f"-cl-std=CL2.0 -sgvm-sub-group-size={S}"
    module = build(SOURCE, opts)
    raw = np.random.default_rng(S + e).integers(0, 256, (IMAGE_ROWS, IMAGE_BYTES), dtype=np.uint8)
    compared = 0
    for texel in (1, 2, 4):
        img = _image(texel, raw)
        for n in WIDTHS[suf]:
            regions = _regions(suf)
            for x, y in POSITIONS:
                out = np.zeros(len(regions) * S * n, dtype=np.dtype(f"u{e}"))
                (o,), _ = run(module, f"mr_{suf}{n}", [img, out, np.int32(x), np.int32(y)], (S,), (S,),
                              options=parse_options(opts))
                o = o.reshape(len(regions), S, n)
                for c, (w, h) in enumerate(regions):
                    want, defined = _read_ref(raw, texel, e, n, S, w, h, x, y)
                    np.testing.assert_array_equal(
                        o[c][defined], want[defined],
                        err_msg=f"{suf}{n} S={S} texel={texel} region {w}x{h} at ({x}, {y})")
                    compared += int(defined.sum())
    assert compared > 0


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("suf", list(SUFFIX))
def test_media_block_write(suf: str, S: int) -> None:
    t, e = SUFFIX[suf]
    opts = f"-cl-std=CL2.0 -sgvm-sub-group-size={S}"
    module = build(SOURCE, opts)
    w, h = _regions(suf)[-1]
    dt = np.dtype(f"u{e}")
    for n in WIDTHS[suf]:
        for x, y in POSITIONS:
            data = np.random.default_rng(n * 100 + x + 50).integers(1, 2**(8 * e), (S, n), dtype=np.uint64).astype(dt)
            img = _image(e, np.zeros((IMAGE_ROWS, IMAGE_BYTES), np.uint8))
            run(module, f"mw_{suf}{n}", [img, data.copy(), np.int32(x), np.int32(y)], (S,), (S,),
                options=parse_options(opts))
            got = img.read_host((0, 0), (IMAGE_BYTES // e, IMAGE_ROWS)).reshape(IMAGE_ROWS, -1).view(dt)
            want = np.zeros((IMAGE_ROWS, IMAGE_BYTES // e), dtype=dt)
            for lane in range(S):
                for i in range(n):
                    k = i * S + lane
                    if k >= w * h:
                        continue  # "the tail elements of the region are dropped" / not written
                    row, col = divmod(k, w)
                    bx, by = x + col * e, y + row
                    if 0 <= bx < IMAGE_BYTES and 0 <= by < IMAGE_ROWS:  # "Out-of-bound writes are dropped."
                        want[by, bx // e] = data[lane, i]
            np.testing.assert_array_equal(got, want, err_msg=f"{suf}{n} S={S} at ({x}, {y})")


@pytest.mark.parametrize("S", SIZES)
def test_media_block_partial_sub_group(S: int) -> None:
    """A partial sub-group (S - 3 work-items): the live lanes read what a full one reads; the
    missing lanes' elements are not written (they hold no data)."""
    opts = f"-cl-std=CL2.0 -sgvm-sub-group-size={S}"
    module = build(SOURCE, opts)
    n, live = 2, S - 3
    raw = np.random.default_rng(S).integers(0, 256, (IMAGE_ROWS, IMAGE_BYTES), dtype=np.uint8)
    img = _image(4, raw)
    regions = _regions("ui")
    out = np.zeros(len(regions) * S * n, dtype=np.uint32)
    (o,), _ = run(module, f"mr_ui{n}", [img, out, np.int32(8), np.int32(3)], (live,), (live,),
                  options=parse_options(opts))
    o = o.reshape(len(regions), S, n)
    for c, (w, h) in enumerate(regions):
        want, defined = _read_ref(raw, 4, 4, n, S, w, h, 8, 3)
        keep = defined[:live]
        np.testing.assert_array_equal(o[c][:live][keep], want[:live][keep])
        assert not o[c][live:].any()
    w, h = regions[-1]
    data = np.arange(1, S * n + 1, dtype=np.uint32).reshape(S, n)
    img = _image(4, np.zeros((IMAGE_ROWS, IMAGE_BYTES), np.uint8))
    run(module, f"mw_ui{n}", [img, data.copy(), np.int32(0), np.int32(0)], (live,), (live,),
        options=parse_options(opts))
    got = img.read_host((0, 0), (IMAGE_BYTES // 4, IMAGE_ROWS)).reshape(IMAGE_ROWS, -1).view(np.uint32)
    want = np.zeros_like(got)
    for lane in range(live):
        for i in range(n):
            k = i * S + lane
            if k < w * h and (k % w) * 4 < IMAGE_BYTES:
                want[k // w, k % w] = data[lane, i]
    np.testing.assert_array_equal(got, want)
