"""Sub-group queries: clGetKernelSubGroupInfo (OpenCL 3.0 API s5.9.3, cl_khr_subgroups,
cl_intel_subgroups, cl_intel_required_subgroup_size), the device's sub-group values, and
required sizes in programs built from SPIR-V.

Every expected value is worked out by hand from the spec's rules: sub-groups of the compiled
size S, the last one possibly partial, so a work-group of V work-items has ceil(V / S).
"""

from __future__ import annotations

import numpy as np
import pytest

import sgvm
import sgvm.cl as cl
from sgvm.runtime.device import CUDA_DEVICE
from sgvm.spirv import Operand, read, write
from sgvm.spirv import grammar as G
from sgvm.spirv.writer import make_instruction

from .conftest import raises_cl

ks = cl.kernel_sub_group_info

SOURCE = """
__kernel void plain(__global uint *out) {
    size_t g = get_global_id(0) + get_global_size(0) * get_global_id(1);
    out[2 * g] = get_num_sub_groups();
    out[2 * g + 1] = get_max_sub_group_size();
}
__kernel __attribute__((intel_reqd_sub_group_size(8))) void sg8(__global uint *out) { out[0] = 3; }
__kernel __attribute__((intel_reqd_sub_group_size(32))) void sg32(__global uint *out) { out[0] = 3; }
__kernel __attribute__((reqd_work_group_size(100, 1, 1))) void wg100(__global uint *out) { out[0] = 1; }
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void wg64(__global uint *out) { out[0] = 1; }
__kernel __attribute__((reqd_work_group_size(8, 8, 1))) void wg8x8(__global uint *out) { out[0] = 1; }
"""


@pytest.fixture(scope="module")
def prg() -> cl.Program:
    return cl.Program(cl.create_some_context(interactive=False), SOURCE).build()


def _with_mode(spirv: bytes, kernel: str, mode: str, operand: Operand) -> bytes:
    """``spirv`` with ``OpExecutionMode(Id) %kernel mode operand`` added (replacing one of that mode)."""
    g = G.load()
    module = read(spirv)
    fid = module.entry_point(kernel).function
    number = g.enum_value("ExecutionMode", mode)
    insts = [i for i in module.instructions if not (
        i.opname in ("OpExecutionMode", "OpExecutionModeId") and i.operands[0].value == fid
        and i.operands[1].value == number)]
    at = max(n for n, i in enumerate(insts) if i.opname == "OpEntryPoint") + 1
    opname = "OpExecutionModeId" if operand.kind == "IdRef" else "OpExecutionMode"
    insts.insert(at, make_instruction(opname, None, None, Operand("IdRef", fid),
                                      Operand("ExecutionMode", number), operand))
    module.instructions = insts
    return write(module)


# -- CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE / SUB_GROUP_COUNT_FOR_NDRANGE -----------------

@pytest.mark.parametrize(("local", "count"), [
    ((100, 1, 1), 7),   # 6 full sub-groups of 16 and one of 4
    ((100,), 7),        # the dimensions come from the input's length
    ((64,), 4),
    ((65,), 5),
    ((8, 8), 4),        # 64 work-items
    ((10, 10, 3), 19),  # 300 = 18 * 16 + 12
    ((4,), 1),          # smaller than one sub-group
    ((1024,), 64),
])
def test_count_and_max_size_for_ndrange(prg: cl.Program, local: tuple[int, ...], count: int) -> None:
    device = prg.context.devices[0]
    assert prg.plain.get_sub_group_info(device, ks.SUB_GROUP_COUNT_FOR_NDRANGE, local) == count
    assert prg.plain.get_sub_group_info(device, ks.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, local) == 16


@pytest.mark.parametrize(("kernel", "size", "count_100"), [("sg8", 8, 13), ("sg32", 32, 4)])
def test_required_size_rules_the_queries(prg: cl.Program, kernel: str, size: int, count_100: int) -> None:
    knl, device = getattr(prg, kernel), prg.context.devices[0]
    assert knl.get_sub_group_info(device, ks.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, (100,)) == size
    assert knl.get_sub_group_info(device, ks.SUB_GROUP_COUNT_FOR_NDRANGE, (100,)) == count_100
    assert knl.get_sub_group_info(device, ks.COMPILE_SUB_GROUP_SIZE_INTEL) == size
    assert knl.get_sub_group_info(device, ks.MAX_NUM_SUB_GROUPS) == 1024 // size


def test_queries_agree_with_the_launch(prg: cl.Program) -> None:
    ctx = prg.context
    queue = cl.CommandQueue(ctx)
    out = np.zeros(2 * 200 * 3, np.uint32)
    buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY | cl.mem_flags.USE_HOST_PTR, hostbuf=out)
    prg.plain(queue, (200, 3), (100, 1), buf)
    queue.finish()
    device = ctx.devices[0]
    assert set(out[0::2]) == {prg.plain.get_sub_group_info(device, ks.SUB_GROUP_COUNT_FOR_NDRANGE, (100, 1))}
    assert set(out[1::2]) == {prg.plain.get_sub_group_info(device, ks.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, (100, 1))}
    assert set(out) == {7, 16}


def test_build_option_and_environment_set_the_size(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = cl.create_some_context(interactive=False)
    device = ctx.devices[0]
    knl = cl.Program(ctx, SOURCE).build("-sgvm-sub-group-size=32").plain
    assert knl.get_sub_group_info(device, ks.SUB_GROUP_COUNT_FOR_NDRANGE, (100,)) == 4
    assert knl.get_sub_group_info(device, ks.COMPILE_SUB_GROUP_SIZE_INTEL) == 0  # not required
    plain = cl.Program(ctx, SOURCE).build().plain
    monkeypatch.setenv("SGVM_SUB_GROUP_SIZE", "8")
    assert plain.get_sub_group_info(device, ks.SUB_GROUP_COUNT_FOR_NDRANGE, (100,)) == 13
    assert plain.get_work_group_info(cl.kernel_work_group_info.PREFERRED_WORK_GROUP_SIZE_MULTIPLE, device) == 8
    for bad in ("12", "sixteen"):  # one rule with the launch: a bad size is an error, never ignored
        monkeypatch.setenv("SGVM_SUB_GROUP_SIZE", bad)
        with raises_cl("CL_INVALID_BUILD_OPTIONS"):
            plain.get_sub_group_info(device, ks.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, (64,))


# -- CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT --------------------------------------------------

@pytest.mark.parametrize(("kernel", "count", "local"), [
    ("plain", 1, [16, 1, 1]),
    ("plain", 4, [64, 1, 1]),
    ("plain", 7, [112, 1, 1]),
    ("plain", 64, [1024, 1, 1]),  # the device's maximum work-group size
    ("plain", 65, [0, 0, 0]),     # 1040 work-items: no work-group that large
    ("plain", 0, [0, 0, 0]),      # no work-group has no sub-groups
    ("sg8", 128, [1024, 1, 1]),
    ("sg32", 33, [0, 0, 0]),
    ("wg64", 4, [64, 1, 1]),      # the required size gives exactly 4 full sub-groups
    ("wg64", 3, [0, 0, 0]),
    ("wg100", 7, [0, 0, 0]),      # 100 leaves a partial sub-group; 112 is not allowed
    ("wg8x8", 4, [0, 0, 0]),      # the answer has one dimension; (64, 1, 1) is not allowed
])
def test_local_size_for_sub_group_count(prg: cl.Program, kernel: str, count: int, local: list[int]) -> None:
    knl = getattr(prg, kernel)
    assert knl.get_sub_group_info(prg.context.devices[0], ks.LOCAL_SIZE_FOR_SUB_GROUP_COUNT, count) == local


# -- CL_KERNEL_MAX_NUM_SUB_GROUPS, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, COMPILE_SUB_GROUP_SIZE_INTEL -

@pytest.mark.parametrize(("kernel", "max_num"), [
    ("plain", 64),  # 1024 / 16
    ("sg8", 128),
    ("sg32", 32),
    ("wg100", 7),   # the kernel's work-group size is 100
    ("wg64", 4),
    ("wg8x8", 4),
])
def test_max_num_sub_groups(prg: cl.Program, kernel: str, max_num: int) -> None:
    knl, device = getattr(prg, kernel), prg.context.devices[0]
    assert knl.get_sub_group_info(device, ks.MAX_NUM_SUB_GROUPS) == max_num
    assert knl.get_sub_group_info(device, ks.MAX_NUM_SUB_GROUPS, (64,)) == max_num  # input ignored
    assert knl.get_sub_group_info(device, ks.COMPILE_NUM_SUB_GROUPS) == 0
    assert knl.get_sub_group_info(None, ks.MAX_NUM_SUB_GROUPS) == max_num  # one device: NULL allowed


def test_compile_num_sub_groups_from_spirv() -> None:
    """OpenCL C cannot ask for a number of sub-groups; SPIR-V can (SubgroupsPerWorkgroup)."""
    ctx = cl.create_some_context(interactive=False)
    device = ctx.devices[0]
    spirv = sgvm.compile("__kernel void k(__global uint *o) { o[get_global_id(0)] = 9u; }")
    literal = _with_mode(spirv, "k", "SubgroupsPerWorkgroup", Operand("LiteralInteger", 4))
    knl = cl.Program(ctx, literal).build().k
    assert knl.get_sub_group_info(device, ks.COMPILE_NUM_SUB_GROUPS) == 4
    assert knl.get_sub_group_info(device, ks.COMPILE_SUB_GROUP_SIZE_INTEL) == 0
    module = read(spirv)
    nine = next(c.id for c in module.constants.values() if c.type.op == "Int" and c.value == 9)
    by_id = _with_mode(spirv, "k", "SubgroupsPerWorkgroupId", Operand("IdRef", nine))
    assert cl.Program(ctx, by_id).build().k.get_sub_group_info(device, ks.COMPILE_NUM_SUB_GROUPS) == 9


# -- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("param", [ks.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, ks.SUB_GROUP_COUNT_FOR_NDRANGE])
@pytest.mark.parametrize("bad", [None, (), (8, 8, 1, 1), 64, (-1,), (16.0,), "64"])
def test_ndrange_queries_need_a_local_size(prg: cl.Program, param: int, bad: object) -> None:
    """CL_INVALID_VALUE: input_value NULL, or input_value_size not 1 to 3 size_t values."""
    with raises_cl("CL_INVALID_VALUE"):
        prg.plain.get_sub_group_info(prg.context.devices[0], param, bad)


@pytest.mark.parametrize("bad", [None, (4,), -1, 4.0])
def test_local_size_query_needs_a_count(prg: cl.Program, bad: object) -> None:
    """CL_INVALID_VALUE: input_value NULL, or not one size_t."""
    with raises_cl("CL_INVALID_VALUE"):
        prg.plain.get_sub_group_info(prg.context.devices[0], ks.LOCAL_SIZE_FOR_SUB_GROUP_COUNT, bad)


def test_unknown_param_and_foreign_device(prg: cl.Program) -> None:
    device = prg.context.devices[0]
    with raises_cl("CL_INVALID_VALUE"):
        prg.plain.get_sub_group_info(device, cl.kernel_work_group_info.WORK_GROUP_SIZE)
    other = cl.Device(device.platform, CUDA_DEVICE, "other")
    with raises_cl("CL_INVALID_DEVICE"):
        prg.plain.get_sub_group_info(other, ks.MAX_NUM_SUB_GROUPS)


# -- device info -----------------------------------------------------------------------------

def test_device_sub_group_info(prg: cl.Program) -> None:
    device = prg.context.devices[0]
    assert device.get_info(cl.device_info.SUB_GROUP_SIZES_INTEL) == [8, 16, 32]
    assert device.sub_group_sizes_intel == [8, 16, 32]
    assert device.max_num_sub_groups == 128  # 1024 work-items in sub-groups of 8
    assert device.max_num_sub_groups == device.max_work_group_size // min(device.sub_group_sizes_intel)
    for name in ("cl_khr_subgroups", "cl_intel_subgroups", "cl_intel_required_subgroup_size",
                 "cl_intel_subgroups_char", "cl_intel_subgroups_short", "cl_intel_subgroups_long",
                 "cl_intel_spirv_subgroups"):
        assert name in device.extensions.split()
        assert name in device.platform.extensions.split()


# -- programs from SPIR-V: required sizes are checked at build time --------------------------

def test_spirv_program_with_a_size_the_device_lacks_fails_to_build() -> None:
    ctx = cl.create_some_context(interactive=False)
    device = ctx.devices[0]
    spirv = sgvm.compile(SOURCE)
    assert cl.Program(ctx, spirv).build().sg8.get_sub_group_info(device, ks.COMPILE_SUB_GROUP_SIZE_INTEL) == 8
    bad = cl.Program(ctx, _with_mode(spirv, "sg8", "SubgroupSize", Operand("LiteralInteger", 64)))
    with pytest.raises(sgvm.BuildError) as info:
        bad.build()
    assert info.value.log.startswith("CL_INVALID_BUILD_OPTIONS:")
    assert "kernel 'sg8': intel_reqd_sub_group_size(64)" in info.value.log
    assert bad.get_build_info(device, cl.program_build_info.STATUS) == cl.build_status.ERROR
    assert bad.get_build_info(device, cl.program_build_info.LOG) == info.value.log
    with raises_cl("CL_INVALID_PROGRAM_EXECUTABLE"):
        bad.all_kernels()
    with pytest.raises(sgvm.BuildError, match="-sgvm-sub-group-size=12"):
        cl.Program(ctx, spirv).build("-sgvm-sub-group-size=12")
    good = cl.Program(ctx, spirv).build("-sgvm-sub-group-size=32")
    assert good.plain.get_sub_group_info(device, ks.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, (64,)) == 32
