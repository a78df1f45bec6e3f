"""The CUDA backend against the CPU engine (``gpu`` tests: skipped without CuPy and a GPU),
and renderer checks that need no GPU (rendered CUDA C, local memory layout, printf records).

On the GPU machine (no clang) run with the build archive (docs/cuda.md)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import sgvm
from sgvm.engine.clower import printf as clower_printf
from sgvm.engine.cuda.render import Renderer
from sgvm.engine.cuda.runtime import available
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg, ImageArg, KernelArg, SamplerArg, ValueArg
from sgvm.runtime.device import CPU_DEVICE, CUDA_DEVICE
from sgvm.runtime.images import Image, ImageFormat, Sampler, channel_order, channel_type
from sgvm.runtime.images.enums import addressing_mode, filter_mode, mem_object_type
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import Module, read

gpu = pytest.mark.skipif(not available(), reason="needs CuPy and an NVIDIA GPU")

SOURCES = {
    "vadd": """
kernel void vadd(global const float *a, global const float *b, global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}""",
    "subgroups": """
__attribute__((intel_reqd_sub_group_size(16)))
kernel void sg(global const int *x, global int *red, global int *scan, global int *shuf) {
  size_t i = get_global_id(0);
  int v = x[i];
  red[i] = sub_group_reduce_add(v);
  scan[i] = sub_group_scan_exclusive_max(v);
  shuf[i] = intel_sub_group_shuffle_down(v, v * 3, get_sub_group_local_id() % 5 + 1);
}""",
    "images": """
kernel void blur(read_only image2d_t src, sampler_t s, write_only image2d_t dst,
                 global uint *blocks) {
  int x = get_global_id(0), y = get_global_id(1);
  float2 p = (float2)((x + 0.3f) / get_image_width(src), (y + 0.7f) / get_image_height(src));
  write_imagef(dst, (int2)(x, y), read_imagef(src, s, p) * 0.5f);
}
__attribute__((intel_reqd_sub_group_size(8)))
kernel void block(read_only image2d_t src, global uint *o, int x, int y) {
  uint2 v = intel_sub_group_block_read2(src, (int2)(x, y));
  vstore2(v, get_global_id(0), o);
}""",
    "oob": """
global int table[4] = {1, 2, 3, 4};
global int *entries[2] = {table + 1, table + 3};
kernel void copy(global const int *src, global int *dst, int shift) {
  size_t i = get_global_id(0);
  dst[i] = src[i + shift] + *entries[i & 1];
}""",
    "printf": """
kernel void hello(global const float *f) {
  int i = get_global_id(0);
  if (i % 3 != 2) printf("wi %d: %.2f %s %v2hld\\n", i, f[i], "ok", (int2)(i, -i));
}""",
    "local": """
kernel void ka(global int *o) { local int a[10240]; a[get_local_id(0)] = 1;
  barrier(CLK_LOCAL_MEM_FENCE); o[0] = a[0]; }
kernel void kb(global int *o) { local int b[10240]; b[get_local_id(0)] = 2;
  barrier(CLK_LOCAL_MEM_FENCE); o[0] = b[0]; }""",
}


@functools.cache
def build(name: str) -> Module:
    return read(sgvm.compile(SOURCES[name], "-cl-std=CL2.0"))


def run_both(name: str, kernel: str, make_args, gsize, lsize) -> list[tuple[list, str]]:
    """Run on the CPU and on the GPU with fresh arguments; per device, the final contents
    of the buffers / images ``make_args`` returned and the printf output."""
    out = []
    for device in (CPU_DEVICE, CUDA_DEVICE):
        args, watch = make_args()
        res = launch(build(name), kernel, args, NDRange(gsize, lsize), device=device)
        results = []
        for a in watch:
            alloc = a.data if isinstance(a, Image) else a
            residency.host_access(alloc)
            results.append(alloc.data.copy())
        out.append((results, res.printf))
    return out


def _buffers(*arrays: np.ndarray) -> tuple[list[KernelArg], list[Allocation]]:
    allocs = [Allocation(np.ascontiguousarray(a).view(np.uint8).reshape(-1).copy(), "global", "")
              for a in arrays]
    return [BufferArg(a) for a in allocs], allocs


@gpu
@pytest.mark.gpu
def test_vector_add_matches_cpu() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.random(1000, np.float32), rng.random(1000, np.float32)
    (cpu, _), (gpu_, _) = run_both("vadd", "vadd", lambda: _buffers(a, b, np.zeros_like(a)),
                                   (1000,), (100,))
    np.testing.assert_array_equal(gpu_[2], cpu[2])
    np.testing.assert_array_equal(gpu_[2].view(np.float32), a + b)


@gpu
@pytest.mark.gpu
def test_sub_group_reduce_scan_shuffle_match_cpu() -> None:
    """Integer collectives are bit-identical; 60 work-items in groups of 20 leave partial
    sub-groups of 4."""
    x = np.random.default_rng(2).integers(-1000, 1000, 60).astype(np.int32)
    z = np.zeros_like(x)
    (cpu, _), (gpu_, _) = run_both("subgroups", "sg", lambda: _buffers(x, z, z, z), (60,), (20,))
    for c, g in zip(cpu[1:], gpu_[1:], strict=True):
        np.testing.assert_array_equal(g, c)


def _rgba_image(data: np.ndarray | None, h: int, w: int) -> Image:
    img = Image(ImageFormat(channel_order.RGBA, channel_type.UNORM_INT8), mem_object_type.IMAGE2D,
                (w, h))
    if data is not None:
        img.write_host((0, 0), (w, h), data)
    return img


@gpu
@pytest.mark.gpu
def test_linear_sampling_and_block_reads_match_cpu() -> None:
    h, w = 9, 13
    texels = np.random.default_rng(3).integers(0, 256, (h, w, 4), dtype=np.uint8)
    sampler = Sampler(True, addressing_mode.REPEAT, filter_mode.LINEAR)

    def blur_args() -> tuple[list[KernelArg], list]:
        src, dst = _rgba_image(texels, h, w), _rgba_image(None, h, w)
        return [ImageArg(src), SamplerArg(sampler), ImageArg(dst),
                BufferArg(Allocation(np.zeros(4, np.uint8), "global", ""))], [dst]

    (cpu, _), (gpu_, _) = run_both("images", "blur", blur_args, (w, h), (1, 1))
    np.testing.assert_array_equal(gpu_[0], cpu[0])

    def block_args() -> tuple[list[KernelArg], list]:
        buf = [Allocation(np.zeros(64, np.uint8), "global", "")]
        return [ImageArg(_rgba_image(texels, h, w)), BufferArg(buf[0]),
                ValueArg(np.int32(-6).tobytes()), ValueArg(np.int32(7).tobytes())], buf

    (cpu, _), (gpu_, _) = run_both("images", "block", block_args, (8,), (8,))
    np.testing.assert_array_equal(gpu_[0], cpu[0])  # clamped to the edge texels


@gpu
@pytest.mark.gpu
def test_printf_matches_cpu() -> None:
    f = np.linspace(-3, 3, 50, dtype=np.float32)
    (_, cpu), (_, gpu_) = run_both("printf", "hello", lambda: _buffers(f), (50,), (16,))
    assert gpu_ == cpu
    assert cpu.startswith("wi 0: -3.00 ok 0,0\n")


def test_buffer_parameters_are_device_pointers() -> None:
    _, kernels = Renderer(build("vadd"), 32).render()
    assert [p[0] for p in kernels["vadd"].params] == ["ptr", "ptr", "ptr"]


def test_rendered_module_uses_warp_collectives() -> None:
    src, kernels = Renderer(build("subgroups"), 16).render()
    assert "#define SG_SIZE 16" in src
    assert "sg_reduce<OpAdd<u32>, u32>" in src and "sg_shuffle_down(" in src
    assert kernels["sg"].params[0][0] == "ptr"


def test_image_block_reads_render_per_row() -> None:
    src, _ = Renderer(build("images"), 8).render()
    assert "sg_img_block_read<u32, 2>" in src
    assert "sg_img_read_f(" in src and "sg_img_write(" in src


def test_each_kernel_counts_only_its_own_local_memory() -> None:
    """Two kernels of 40 KiB each: each launches within 64 KiB (the two arrays overlap)."""
    _, kernels = Renderer(build("local"), 16).render()
    assert kernels["ka"].local_bytes == kernels["kb"].local_bytes == 40960


def test_printf_records_format_in_work_item_order() -> None:
    module = build("printf")
    r = Renderer(module, 16)
    _, kernels = r.render()
    info = kernels["hello"]
    site = info.printf_sites[0]
    fmt_vid, fmt = next((v, d) for v, d in info.strings.items() if d.startswith(b"wi "))
    ok_vid = next(v for v, d in info.strings.items() if d.startswith(b"ok"))
    base = {fmt_vid: 0x1000, ok_vid: 0x2000}
    strings = {base[v]: info.strings[v] for v in (fmt_vid, ok_vid)}

    def record(gl: int, x: float) -> list[int]:
        bits = int(np.float64(x).view(np.uint64)) if site[1].width == 64 else \
            int(np.float32(x).view(np.uint32))
        return [gl, 0, 0x1000, gl, bits, 0x2000, gl, (-gl) % 2**32]

    words = record(4, 1.5) + record(1, -2.25)
    records = np.array([len(words), clower_printf.CAPACITY, *words], dtype=np.uint64)
    out = clower_printf.format_records(records, info.printf_sites, strings)
    assert out == "wi 1: -2.25 ok 1,-1\nwi 4: 1.50 ok 4,-4\n"


@gpu
@pytest.mark.gpu
def test_out_of_bounds_reported_and_device_usable_after() -> None:
    """The fault names the argument, offset and lowest work-item as the CPU does; the
    faulting loads are skipped, so the context stays usable for the next launch."""
    module = build("oob")
    messages = []
    for device in (CPU_DEVICE, CUDA_DEVICE):
        args, _ = _buffers(np.arange(32, dtype=np.int32), np.zeros(32, np.int32))
        with pytest.raises(sgvm.KernelMemoryError) as e:
            launch(module, "copy", [*args, ValueArg(np.int32(8).tobytes())], NDRange((32,), (16,)),
                   device=device)
        messages.append(str(e.value))
    assert messages[1] == messages[0]
    assert "byte offset 128 of argument #0" in messages[0] and "global id (24,)" in messages[0]
    want = np.arange(32) + np.where(np.arange(32) & 1, 4, 2)
    for (_, dst), _ in run_both("oob", "copy", lambda: _with_shift(0), (32,), (16,)):
        np.testing.assert_array_equal(dst.view(np.int32), want)


def _with_shift(shift: int) -> tuple[list[KernelArg], list]:
    args, allocs = _buffers(np.arange(32, dtype=np.int32), np.zeros(32, np.int32))
    return [*args, ValueArg(np.int32(shift).tobytes())], allocs


def test_bounds_checks_render_only_when_asked() -> None:
    module = build("oob")
    plain, _ = Renderer(module, 16).render()
    checked, kernels = Renderer(module, 16, bounds=True).render()
    assert "sg_ok(sgc" not in plain and "sg_ok(sgc" in checked
    assert [g[1:] for g in kernels["copy"].globals] == [(16, False, "table"), (16, False, "entries")]


def test_addresses_inside_initialisers_become_pointer_members() -> None:
    src, _ = Renderer(build("oob"), 16).render()
    assert "char *p0; char *p8;" in src
    assert "((char*)&g" in src and " + 4LL)" in src and " + 12LL)" in src


def test_fault_below_a_buffer_names_that_buffer_with_a_negative_offset() -> None:
    """``b[i - 1]`` at ``i = 0`` faults 4 bytes below b: the record is named after b at
    offset -4 (the CPU engine's message), not after the buffer that ends before it."""
    from sgvm.engine.cuda import bounds

    regions = [bounds.Region(0x10000, 64, False, "argument #0"),
               bounds.Region(0x10200, 64, False, "argument #1"),
               bounds.Region(0x10400, 64, False, "argument #2")]
    load_oob = 4 | (0 << 32) | (3 << 40)
    nd = NDRange((16,), (16,))
    for addr, want in [(0x10200 - 4, "byte offset -4 of argument #1 (64 bytes)"),
                       (0x10000 + 64, "byte offset 64 of argument #0 (64 bytes)"),
                       (0x10400 + 80, "byte offset 80 of argument #2 (64 bytes)")]:
        rec = np.array([~np.uint64(0), 0, addr, load_oob], np.uint64)
        msg = str(bounds.error("k", rec, regions, 0, nd, {}, 1000))
        assert f"out-of-bounds load of 4 bytes at {want} by work-item with global id (0,)" in msg


def test_image_write_record_gives_the_cpu_message() -> None:
    """A write_image record (why 64: the image's handle, the coordinates) reads as the CPU
    device's message (engine/cpu/image_ops.py), coordinates signed."""
    from types import SimpleNamespace

    from sgvm.engine.cuda import bounds

    image = SimpleNamespace(coord_count=2, shape=(16, 4))
    rec = np.array([~np.uint64(15 + 16 * 2), 0, 0x7000, 1 << 32 | 64 << 40,
                    np.int64(-1).view(np.uint64), 2, 0, 0], np.uint64)
    msg = str(bounds.error("shift", rec, [], 0, NDRange((16, 4), (16, 1)),
                           {0x7000: ("argument #1", image)}, 1000))
    assert msg == ("kernel 'shift': write_image at coordinate (-1, 2) outside argument #1 "
                   "(16 x 4 texels) by work-item with global id (15, 2)")


@pytest.mark.parametrize("setting", [{"reduction_order": "tree"}, {"group_order": "reversed"},
                                     {"memory_init": "pattern"}, {"mapping": "rows"}])
def test_choices_other_than_sgvms_own_are_refused(setting: dict) -> None:
    """The CUDA device runs sgvm's own choices only; asking for others is an error, not a
    launch that ignores them (docs/portability.md)."""
    from sgvm.errors import UnsupportedError
    from sgvm.runtime.variant import Variant

    bufs = [BufferArg(Allocation(np.zeros(256, np.uint8), "global")) for _ in range(3)]
    with pytest.raises(UnsupportedError, match="only the CPU device runs other than sgvm's own"):
        launch(build("vadd"), "vadd", bufs, NDRange((64,), (64,)), device=CUDA_DEVICE,
               variant=Variant(**setting))


@pytest.mark.parametrize("profile", ["intel-cpu", "intel-gpu"])
def test_device_profiles_are_refused(profile: str, monkeypatch) -> None:
    """SGVM_PROFILE_DEVICE chooses as another implementation does on the CPU devices; the
    CUDA device refuses it rather than launching with its own choices."""
    from sgvm.errors import UnsupportedError

    monkeypatch.setenv("SGVM_PROFILE_DEVICE", profile)
    bufs = [BufferArg(Allocation(np.zeros(256, np.uint8), "global")) for _ in range(3)]
    with pytest.raises(UnsupportedError, match="device profiles apply to the CPU devices only"):
        launch(build("vadd"), "vadd", bufs, NDRange((64,), (64,)), device=CUDA_DEVICE)


def test_image_writes_record_outside_writes_only_when_checked() -> None:
    """With checks on, write_image passes the fault record and the work-item's id, so a write
    outside the image is reported (tests/engine/test_images.py runs it on the GPU)."""
    plain, _ = Renderer(build("images"), 8).render()
    checked, _ = Renderer(build("images"), 8, bounds=True).render()
    assert "(u64 *)0, 0);" in plain and "sgc.fault, sg_global_linear(sgc));" not in plain
    assert "sgc.fault, sg_global_linear(sgc));" in checked
