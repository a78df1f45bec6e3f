"""Buffer block reads/writes (global and local), stride = max sub-group size even in a
partial sub-group, out-of-bounds errors; image block IO with edge clamping, dropped
writes and images created from a buffer with a row pitch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sgvm
from sgvm.runtime.images import Image, ImageFormat, channel_order, channel_type
from sgvm.runtime.images.enums import mem_object_type
from sgvm.runtime.memory import Allocation

from .helpers import SIZES, build, local, run, sub_groups

# suffix → (element type, NumPy dtype, widths)
BLOCK = {"": ("uint", np.uint32, (1, 2, 4, 8)), "_uc": ("uchar", np.uint8, (1, 2, 4, 8, 16)),
         "_us": ("ushort", np.uint16, (1, 2, 4, 8, 16)), "_ul": ("ulong", np.uint64, (1, 2, 4, 8))}
CASES = [(suf, w) for suf, (_, _, ws) in BLOCK.items() for w in ws]


def _kernel(suf: str, w: int, S: int) -> str:
    t = BLOCK[suf][0]
    W = "" if w == 1 else str(w)
    T = f"{t}{W}"
    st_ = "o[i] = v;" if w == 1 else f"vstore{w}(v, i, o);"
    return (f"__attribute__((intel_reqd_sub_group_size({S})))\n"
            f"kernel void blk{suf}{W}_{S}(global const {t}* p, global {t}* o, global {t}* q,\n"
            f"                          uint off, local {t}* tmp) {{\n"
            f"  size_t i = get_global_id(0);\n"
            f"  size_t base = get_sub_group_id() * get_max_sub_group_size() * {w};\n"
            f"  {T} v = intel_sub_group_block_read{suf}{W}(p + off + base);\n  {st_}\n"
            f"  intel_sub_group_block_write{suf}{W}(tmp + base, v);\n"
            f"  barrier(CLK_LOCAL_MEM_FENCE);\n"
            f"  {T} u = intel_sub_group_block_read{suf}{W}(tmp + base);\n"
            f"  intel_sub_group_block_write{suf}{W}(q + base, u);\n}}\n")


@pytest.fixture(scope="module")
def module():
    return build("".join(_kernel(suf, w, S) for suf, w in CASES for S in SIZES))


def _name(suf: str, w: int, S: int) -> str:
    return f"blk{suf}{'' if w == 1 else w}_{S}"


def check(module, suf: str, w: int, S: int, n: int, off: int) -> None:
    dt = np.dtype(BLOCK[suf][1])
    nsg = -(-n // S)
    span = nsg * S * w
    p = np.arange(span + off, dtype=np.uint64).astype(dt) + dt.type(1)
    q = np.zeros(span, dt)
    (_, o, q), _ = run(module, _name(suf, w, S), [p, np.zeros((n, w), dt), q, np.uint32(off),
                                                    local(span * dt.itemsize)], (n,), (n,))
    qref = np.zeros(span, dt)
    for sg, ids in enumerate(sub_groups((n,), (n,), S)):
        base = sg * S * w
        for l, gid in enumerate(ids):
            for i in range(w):  # "p[ sub_group_local_id + i * max_sub_group_size ]"
                assert o[gid, i] == p[off + base + l + i * S]
                qref[base + l + i * S] = p[off + base + l + i * S]
    np.testing.assert_array_equal(q, qref)  # missing lanes of a partial sub-group write nothing


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("suf,w", CASES, ids=[f"{s or '_ui'}{w}" for s, w in CASES])
def test_block_read_write(module, suf, w, S):
    check(module, suf, w, S, n=2 * S + 3, off=0)  # the last sub-group is partial


@settings(max_examples=20, deadline=None)
@given(S=st.sampled_from(SIZES), case=st.sampled_from(CASES), n=st.integers(1, 64),
       off=st.integers(0, 8))
def test_block_layout_property(module, S, case, n, off):
    suf, w = case
    size = np.dtype(BLOCK[suf][1]).itemsize
    off = off * max(1, 4 // size)  # reads need 4-byte alignment
    check(module, suf, w, S, n, off)


def test_block_read_out_of_bounds(module):
    p = np.zeros(20, np.uint32)  # sub-group 16 reads 32 uints
    with pytest.raises(sgvm.KernelMemoryError, match="out-of-bounds"):
        run(module, "blk2_16", [p, np.zeros((16, 2), np.uint32), np.zeros(32, np.uint32),
                                np.uint32(0), local(128)], (16,), (16,))


IMAGE_SRC = r"""
__attribute__((intel_reqd_sub_group_size(8)))
kernel void img_rw(read_only image2d_t src, write_only image2d_t dst, global uint* o, int x, int y) {
  uint2 v = intel_sub_group_block_read2(src, (int2)(x, y));
  vstore2(v, get_global_id(0), o);
  intel_sub_group_block_write2(dst, (int2)(x & ~3, y), v);
}
__attribute__((intel_reqd_sub_group_size(8)))
kernel void img_uc(read_only image2d_t src, global uchar* o, int x, int y) {
  vstore4(intel_sub_group_block_read_uc4(src, (int2)(x, y)), get_global_id(0), o);
}
"""


def _image(width: int, height: int, fmt: ImageFormat, data: np.ndarray, **kw) -> Image:
    img = Image(fmt, mem_object_type.IMAGE2D, (width, height), **kw)
    img.write_host((0, 0), (width, height), data, row_pitch=kw.get("row_pitch", 0))
    return img


@pytest.mark.parametrize("x,y", [(0, 0), (8, 3), (20, 5), (36, 6), (-8, -1), (3, 2)])
def test_image_block_edges(x, y):
    """4-byte texels: reads past the edge return the edge texel (clamp-to-edge),
    writes past it are dropped (cl_intel_subgroups.txt, note on bounds checking)."""
    m = build(IMAGE_SRC)
    W, H = 12, 7
    fmt = ImageFormat(channel_order.R, channel_type.UNSIGNED_INT32)
    a = (np.arange(W * H, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32).reshape(H, W)
    src, dst = _image(W, H, fmt, a), _image(W, H, fmt, np.zeros((H, W), np.uint32))
    (o,), _ = run(m, "img_rw", [src, dst, np.zeros((8, 2), np.uint32), np.int32(x), np.int32(y)],
                  (8,), (8,))
    raw = a.view(np.uint8).reshape(H, W * 4)
    wexp = np.zeros((H, W), np.uint32)
    for lane in range(8):
        for i in range(2):
            row = min(max(y + i, 0), H - 1)
            bytes_ = [raw[row, min(max((x + 4 * lane + k) // 4, 0), W - 1) * 4 + (x + 4 * lane + k) % 4]
                      for k in range(4)]
            assert o[lane, i] == np.array(bytes_, np.uint8).view(np.uint32)[0]
            wx, wy = (x & ~3) // 4 + lane, y + i
            if 0 <= wx < W and 0 <= wy < H:
                wexp[wy, wx] = o[lane, i]
    got = dst.read_host((0, 0), (W, H)).reshape(H, W * 4).view(np.uint32)
    np.testing.assert_array_equal(got, wexp)


def test_image_from_buffer_with_row_pitch():
    """A 1-byte-texel image made from a buffer whose rows are 64 bytes apart."""
    m = build(IMAGE_SRC)
    W, H, pitch = 40, 6, 64
    buf = np.random.default_rng(3).integers(0, 256, pitch * H, dtype=np.uint8)
    fmt = ImageFormat(channel_order.R, channel_type.UNSIGNED_INT8)
    img = Image(fmt, mem_object_type.IMAGE2D, (W, H), row_pitch=pitch,
                data=Allocation(buf.copy(), "global", "buf"))
    (o,), _ = run(m, "img_uc", [img, np.zeros((8, 4), np.uint8), np.int32(4), np.int32(1)],
                  (8,), (8,))
    for lane in range(8):
        for i in range(4):
            assert o[lane, i] == buf[(1 + i) * pitch + 4 + lane]


def test_local_block_io_partial(module):
    """Partial sub-group through local memory: stride is still the max size."""
    check(module, "_us", 4, 32, n=37, off=2)
