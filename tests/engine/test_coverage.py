"""Every grammar instruction an OpenCL kernel can use is implemented or listed in docs/engine.md."""

import re
from pathlib import Path

import sgvm.engine.cpu  # noqa: F401  (registers the builders)
from sgvm.engine.cpu.decode import IGNORED
from sgvm.engine.cpu.extinst import ENGINE_INSTRUCTIONS, OPENCL_STD
from sgvm.engine.cpu.registry import BUILDERS
from sgvm.spirv import grammar

CLASSES = {"Arithmetic", "Bit", "Relational_and_Logical", "Conversion", "Composite", "Memory",
           "Control-Flow", "Function", "Atomic", "Barrier", "Miscellaneous"}
KERNEL_CAPS = {"Kernel", "Addresses", "Int64Atomics", "Float16", "Float64", "Int64", "Int16",
               "Int8", "GenericPointer", "Float16Buffer", "Linkage", "AtomicFloat32AddEXT",
               "AtomicFloat64AddEXT", "AtomicFloat16AddEXT", "AtomicFloat32MinMaxEXT",
               "AtomicFloat64MinMaxEXT", "AtomicFloat16MinMaxEXT"}
STRUCTURE = {"OpPhi", "OpLabel", "OpFunction", "OpFunctionEnd", "OpFunctionParameter", "OpBranch",
             "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpUnreachable"}


def _listed() -> set[str]:
    text = (Path(__file__).parents[2] / "docs" / "engine.md").read_text()
    section = text.split("## Deliberately unsupported instructions", 1)[1]
    return set(re.findall(r"^\| (Op\w+) \|", section, re.M))


def test_core_instructions_handled_or_listed():
    g = grammar.load()
    listed = _listed()
    missing = []
    for name, info in g.by_name.items():
        if info.opname != name or info.op_class not in CLASSES:
            continue
        if info.capabilities and not set(info.capabilities) & KERNEL_CAPS:
            continue
        if name in BUILDERS or name in IGNORED or name in STRUCTURE or name in listed:
            continue
        missing.append(name)
    assert not missing


def test_listed_instructions_are_really_unhandled():
    assert not _listed() & set(BUILDERS)


def test_opencl_std_covered():
    ext = grammar.load().ext_sets["OpenCL.std"]
    assert set(ext.by_name) <= set(OPENCL_STD) | ENGINE_INSTRUCTIONS


KHR_CAPS = {"GroupNonUniform", "GroupNonUniformVote", "GroupNonUniformBallot",
            "GroupNonUniformShuffle", "GroupNonUniformShuffleRelative",
            "GroupNonUniformArithmetic", "GroupNonUniformClustered", "GroupNonUniformRotateKHR",
            "DotProduct", "SubgroupImageMediaBlockIOINTEL"}


def test_khr_sub_group_instructions_on_every_backend():
    """What the cl_khr_subgroup_* extensions, cl_khr_integer_dot_product and
    cl_intel_media_block_io lower to: implemented by the CPU engine, the CUDA renderer and
    the native renderer (media block IO: before, on the NumPy engine)."""
    from sgvm.engine.clower import dot, images, ops  # noqa: F401  (dot registers into ops.OPS)
    from sgvm.engine.cuda import render_images, render_non_uniform
    from sgvm.engine.native import collectives, non_uniform

    cuda = set(ops.OPS) | set(render_non_uniform.OPS) | set(render_images.OPS)
    native = set(ops.OPS) | set(non_uniform.COLLECTIVES) | set(non_uniform.LANE_OPS) | \
        set(images.OPS) | set(collectives.IMAGE_BLOCKS)
    wanted = {name for name, info in grammar.load().by_name.items()
              if info.opname == name and set(info.capabilities) & KHR_CAPS}
    assert len(wanted) >= 40
    assert not wanted - set(BUILDERS)
    assert not wanted - cuda
    assert not wanted - native
