"""Programs: building, build logs, SPIR-V programs, kernel objects and their queries."""

from __future__ import annotations

import pytest

import sgvm
import sgvm.cl as cl

from .conftest import raises_cl

SOURCE = """
typedef struct { float a; int b; } pair;
__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void fixed(__global const float * restrict src, __global float *dst, __local int *tmp,
           __constant float *table, pair p, uint n)
{
    dst[get_global_id(0)] = src[get_global_id(0)] + p.a;
}

__kernel __attribute__((intel_reqd_sub_group_size(16)))
void sg16(__global int *out, read_only image2d_t img, sampler_t s) { out[0] = 1; }
"""


def test_build_and_program_info(ctx: cl.Context, device: cl.Device) -> None:
    prg = cl.Program(ctx, SOURCE).build()
    assert prg.kernel_names == "fixed;sg16"
    assert prg.num_kernels == 2
    assert prg.get_info(cl.program_info.SOURCE) == SOURCE
    assert prg.get_build_info(device, cl.program_build_info.STATUS) == cl.build_status.SUCCESS
    assert prg.get_build_info(device, cl.program_build_info.OPTIONS) == ""
    (binary,) = prg.binaries
    assert binary[:4] == b"\x03\x02\x23\x07"
    assert [k.function_name for k in prg.all_kernels()] == ["fixed", "sg16"]


def test_build_failure_carries_the_log(ctx: cl.Context, device: cl.Device) -> None:
    prg = cl.Program(ctx, "__kernel void broken(__global int *p) { p[0] = undefined_name; }")
    with pytest.raises(cl.RuntimeError) as info:
        prg.build()
    err = info.value
    assert isinstance(err, sgvm.BuildError)
    assert err.code == -11 and "BUILD_PROGRAM_FAILURE" in str(err)
    assert "undefined_name" in err.log
    assert "undefined_name" in prg.get_build_info(device, cl.program_build_info.LOG)
    assert prg.get_build_info(device, cl.program_build_info.STATUS) == cl.build_status.ERROR


def test_invalid_build_options(ctx: cl.Context) -> None:
    with raises_cl("CL_INVALID_BUILD_OPTIONS"):
        cl.Program(ctx, SOURCE).build("-cl-no-such-option")


def test_build_options_as_list(ctx: cl.Context, device: cl.Device) -> None:
    prg = cl.Program(ctx, "__kernel void k(__global int *p) { p[0] = VALUE; }").build(["-D", "VALUE=3"])
    assert prg.get_build_info(device, cl.program_build_info.OPTIONS) == "-D VALUE=3"


def test_kernel_lookup(ctx: cl.Context) -> None:
    prg = cl.Program(ctx, SOURCE)
    with pytest.raises(AttributeError, match="build"):
        prg.fixed  # noqa: B018
    with raises_cl("CL_INVALID_PROGRAM_EXECUTABLE"):
        cl.Kernel(prg, "fixed")
    prg.build()
    with raises_cl("CL_INVALID_KERNEL_NAME"):
        cl.Kernel(prg, "missing")
    with pytest.raises(AttributeError, match="fixed, sg16"):
        prg.missing  # noqa: B018


def test_kernel_info_and_arg_info(ctx: cl.Context, device: cl.Device) -> None:
    knl = cl.Program(ctx, SOURCE).build().fixed
    assert knl.function_name == "fixed" and knl.num_args == 6
    assert knl.attributes == "reqd_work_group_size(8,1,1)"
    info = cl.kernel_arg_info
    names = [knl.get_arg_info(i, info.NAME) for i in range(6)]
    assert names == ["src", "dst", "tmp", "table", "p", "n"]
    assert [knl.get_arg_info(i, info.TYPE_NAME) for i in range(6)] == \
        ["float*", "float*", "int*", "float*", "pair", "uint"]
    aq = cl.kernel_arg_address_qualifier
    assert [knl.get_arg_info(i, info.ADDRESS_QUALIFIER) for i in range(6)] == \
        [aq.GLOBAL, aq.GLOBAL, aq.LOCAL, aq.CONSTANT, aq.PRIVATE, aq.PRIVATE]
    tq = cl.kernel_arg_type_qualifier
    assert knl.get_arg_info(0, info.TYPE_QUALIFIER) == tq.CONST | tq.RESTRICT
    assert knl.get_arg_info(3, info.TYPE_QUALIFIER) == tq.CONST
    with raises_cl("CL_INVALID_ARG_INDEX"):
        knl.get_arg_info(6, info.NAME)
    wg = cl.kernel_work_group_info
    assert knl.get_work_group_info(wg.WORK_GROUP_SIZE, device) == 8
    assert knl.get_work_group_info(wg.COMPILE_WORK_GROUP_SIZE, device) == [8, 1, 1]
    assert knl.get_work_group_info(wg.PREFERRED_WORK_GROUP_SIZE_MULTIPLE, device) == 16


def test_image_and_sampler_arg_info(ctx: cl.Context, device: cl.Device) -> None:
    knl = cl.Program(ctx, SOURCE).build().sg16
    info = cl.kernel_arg_info
    assert knl.get_arg_info(1, info.ACCESS_QUALIFIER) == cl.kernel_arg_access_qualifier.READ_ONLY
    assert knl.get_arg_info(1, info.TYPE_NAME) == "image2d_t"
    assert knl.get_arg_info(2, info.TYPE_NAME) == "sampler_t"
    ks = cl.kernel_sub_group_info
    assert knl.get_sub_group_info(device, ks.COMPILE_SUB_GROUP_SIZE_INTEL) == 16
    assert knl.get_sub_group_info(device, ks.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, (64,)) == 16
    assert knl.get_sub_group_info(device, ks.SUB_GROUP_COUNT_FOR_NDRANGE, (40,)) == 3
    assert knl.get_sub_group_info(device, ks.LOCAL_SIZE_FOR_SUB_GROUP_COUNT, 4) == [64, 1, 1]
    assert knl.get_work_group_info(cl.kernel_work_group_info.PREFERRED_WORK_GROUP_SIZE_MULTIPLE, device) == 16


def test_spirv_program(ctx: cl.Context) -> None:
    spirv = sgvm.compile(SOURCE)
    prg = cl.Program(ctx, spirv).build()
    assert prg.kernel_names == "fixed;sg16"
    assert prg.get_info(cl.program_info.IL) == spirv
    knl = prg.fixed
    assert knl.get_arg_info(0, cl.kernel_arg_info.NAME) == "argument 0"
    assert knl.get_arg_info(4, cl.kernel_arg_info.ADDRESS_QUALIFIER) == cl.kernel_arg_address_qualifier.PRIVATE
    again = cl.Program(ctx, ctx.devices, [spirv]).build()
    assert again.kernel_names == "fixed;sg16"
    with raises_cl("CL_INVALID_VALUE"):
        cl.Program(ctx, b"\x03\x02\x23\x07" + b"\0" * 8)
