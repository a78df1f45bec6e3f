"""Source positions recovered for SPIR-V instructions (sgvm.compiler.lines).

Expected positions come from searching the kernel text, not from the compiler.
"""

from __future__ import annotations

import pytest

from sgvm.compiler import compile_with_log
from sgvm.compiler.lines import attach_locations, split_log
from sgvm.spirv import Instruction, Module

FILENAME = "kernels/demo.cl"

SOURCE = """\
float scale(float a, int d) {
    return a / (float)d;
}

__attribute__((intel_reqd_sub_group_size(16)))
__kernel void demo(__global const float *A, __global float *B, __global uint *C,
                   __global int *hist, int n, int d) {
    int gid = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < n; k++) {
        float a = A[gid * n + k];
        float b = intel_sub_group_shuffle(a, (uint)k & 15u);
        acc += b * scale(a, d);
        B[gid * n + k] = acc;
    }
    uint v = intel_sub_group_block_read((const __global uint *)C);
    int q = gid / d;
    atomic_add(&hist[q & 63], 1);
    barrier(CLK_GLOBAL_MEM_FENCE);
    C[gid] = v + (uint)q + (uint)acc;
}
"""

OPTIONS = {"O0": "-cl-opt-disable", "O2": ""}


def line_of(needle: str, source: str = SOURCE) -> int:
    """The 1-based number of the one source line containing ``needle``."""
    hits = [n for n, text in enumerate(source.splitlines(), 1) if needle in text]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def instructions(module: Module, opname: str) -> list[Instruction]:
    return [
        inst
        for fn in module.functions.values()
        for block in fn.blocks
        for inst in block.instructions
        if inst.opname == opname
    ]


def lines(module: Module, opname: str) -> set[int | None]:
    return {i.location.line if i.location else None for i in instructions(module, opname)}


@pytest.fixture(scope="module", params=sorted(OPTIONS))
def module(request: pytest.FixtureRequest) -> Module:
    return compile_with_log(SOURCE, OPTIONS[request.param] + " -g", filename=FILENAME).module()


def test_shuffle_line_and_column(module: Module) -> None:
    shuffles = instructions(module, "OpSubgroupShuffleINTEL")
    assert shuffles
    line = line_of("intel_sub_group_shuffle(")
    column = SOURCE.splitlines()[line - 1].index("intel_sub_group_shuffle(") + 1
    for inst in shuffles:
        assert inst.location is not None
        assert (inst.location.file, inst.location.line, inst.location.column) == (
            FILENAME, line, column,
        )


@pytest.mark.parametrize(
    ("opname", "needle"),
    [
        ("OpSubgroupBlockReadINTEL", "intel_sub_group_block_read("),
        ("OpSDiv", "gid / d"),
        ("OpFDiv", "a / (float)d"),  # inside the helper, inlined or not
        ("OpAtomicIAdd", "atomic_add("),  # through sgvm's header: the user's call
        ("OpControlBarrier", "barrier("),
    ],
)
def test_instruction_line(module: Module, opname: str, needle: str) -> None:
    assert lines(module, opname) == {line_of(needle)}


def test_global_stores(module: Module) -> None:
    """Stores to __global memory: the one in the loop and the final one."""
    stores = [
        inst.location.line if inst.location else None
        for inst in instructions(module, "OpStore")
        if module.type_of(inst.operands[0].value).storage_class == "CrossWorkgroup"
    ]
    assert set(stores) == {line_of("B[gid * n + k] = acc;"), line_of("C[gid] = v")}


def test_everything_in_user_file(module: Module) -> None:
    for fn in module.functions.values():
        for block in fn.blocks:
            for inst in block.instructions:
                assert inst.location is None or inst.location.file == FILENAME


def test_log_and_filename_map() -> None:
    """Diagnostics stay in the log; attach_locations renames files and counts."""
    source = '#warning "look here"\n' + SOURCE
    result = compile_with_log(source, "-g", filename=FILENAME)
    module, log = result.module(), result.log
    assert "look here" in log and "IR Dump" not in log
    assert lines(module, "OpSDiv") == {line_of("gid / d", source)}
    fake = (
        "# *** IR Dump After SPIRV Assembly Printer (spirv-asm-printer) ***:\n"
        "# Machine code for function scale: IsSSA\n"
        "bb.1 (%ir-block.2):\n"
        "  %5:fid = OpConvertSToF %3:type, %2:iid\n"
        "  %6:fid = OpFDivS %3:type, %1:fid, %5:fid, debug-location !9; tmp.cl:7:14\n"
        "  OpReturnValue %6:fid, debug-location !10; tmp.cl:7:5\n"
        "# End machine code for function scale.\n"
    )
    log2, dump = split_log("warning: w\n" + fake)
    assert log2 == "warning: w\n" and dump == fake
    assert attach_locations(module, dump, {"tmp.cl": "renamed.cl"}) == 3  # the FDiv's operand too
    renamed = [str(i.location) for i in instructions(module, "OpFDiv")
               if i.location and i.location.file == "renamed.cl"]
    assert renamed == ["renamed.cl:7:14"]


@pytest.mark.parametrize("where", ["absolute", "relative", "parent", "angle"])
def test_filename_exactly_as_given(where: str, tmp_path) -> None:
    """Locations carry the #line file name unchanged. clang shortens an absolute name by the
    directory it shares with the compilation directory (the build runs in /tmp/sgvm-build-*):
    /tmp/.../k.cl once showed as a path relative to /tmp."""
    filename = {
        "absolute": str(tmp_path / "pk" / "k.cl"),  # under /tmp, like the build directory
        "relative": "pk/k.cl",
        "parent": "../src/k.cl",
        "angle": "<kernel>",
    }[where]
    module = compile_with_log(SOURCE, "-g", filename=filename).module()
    files = {inst.location.file for fn in module.functions.values() for block in fn.blocks
             for inst in block.instructions if inst.location}
    assert files == {filename}
    assert lines(module, "OpSDiv") == {line_of("gid / d")}
