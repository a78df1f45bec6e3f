"""Every built-in of the four specification documents, one tiny kernel per call.

Each case pairs a kernel calling one built-in in one type with the SPIR-V
instruction the call must become (a regular expression over ``spirv-dis``
text), written down from the specifications, not from the compiler:
cl_intel_subgroups, cl_intel_subgroups_char, SPV_INTEL_subgroups and the
OpenCL C 2.0 work-group functions (plus the _us/_ul/local block forms of
cl_intel_subgroups_short/_long and cl_intel_subgroup_local_block_io).
"""

from __future__ import annotations

from dataclasses import dataclass

# OpenCL C type -> SPIR-V scalar type name as spirv-dis prints it (Kernel ints are signless).
SPV = {"char": "uchar", "uchar": "uchar", "short": "ushort", "ushort": "ushort", "int": "uint",
       "uint": "uint", "long": "ulong", "ulong": "ulong", "half": "half", "float": "float",
       "double": "double"}
SIGNED = {"char", "short", "int", "long"}
FLOAT = {"half", "float", "double"}
SUBGROUP, WORKGROUP = 3, 2  # SPIR-V Scope values


@dataclass(frozen=True)
class Case:
    """One call: ``kernel`` is the kernel's name, ``expect`` a regex one instruction must match."""

    kernel: str
    builtin: str
    type: str
    source: str
    expect: str
    cl20_only: bool = False


def spv_type(t: str, n: str = "") -> str:
    return f"%v{n}{SPV[t]}" if n else f"%{SPV[t]}"


def _shuffles(cases: list[Case]) -> None:
    vec = ["char", "uchar", "short", "ushort", "int", "uint", "float"]
    types = [(t, n) for t in vec for n in ("", "2", "3", "4", "8", "16")]
    types += [(t, "") for t in ("long", "ulong", "half", "double")]
    calls = {
        "intel_sub_group_shuffle": ("p[1], c", "OpSubgroupShuffleINTEL"),
        "intel_sub_group_shuffle_down": ("p[1], p[2], c", "OpSubgroupShuffleDownINTEL"),
        "intel_sub_group_shuffle_up": ("p[1], p[2], c", "OpSubgroupShuffleUpINTEL"),
        "intel_sub_group_shuffle_xor": ("p[1], c", "OpSubgroupShuffleXorINTEL"),
    }
    for fn, (args, op) in calls.items():
        for t, n in types:
            k = f"k{len(cases)}"
            src = f"kernel void {k}(global {t}{n} *p, uint c) {{ p[0] = {fn}({args}); }}"
            cases.append(Case(k, fn, t + n, src, rf"= {op} {spv_type(t, n)} "))


BLOCK_FAMILIES = [("", "uint", ("", "2", "4", "8")), ("_ui", "uint", ("", "2", "4", "8")),
                  ("_uc", "uchar", ("", "2", "4", "8", "16")), ("_us", "ushort", ("", "2", "4", "8", "16")),
                  ("_ul", "ulong", ("", "2", "4", "8"))]


def _blocks(cases: list[Case]) -> None:
    for suf, t, widths in BLOCK_FAMILIES:
        for n in widths:
            rd, wr = f"intel_sub_group_block_read{suf}{n}", f"intel_sub_group_block_write{suf}{n}"
            ty = spv_type(t, n)
            for space in ("global", "local"):
                k = f"k{len(cases)}"
                src = f"kernel void {k}({space} {t} *p, global {t}{n} *o) {{ o[0] = {rd}(p); }}"
                cases.append(Case(k, rd, f"{space} {t}{n}", src, rf"= OpSubgroupBlockReadINTEL {ty} "))
                k = f"k{len(cases)}"
                src = f"kernel void {k}({space} {t} *p, global {t}{n} *o) {{ {wr}(p, o[1]); }}"
                cases.append(Case(k, wr, f"{space} {t}{n}", src, r"^OpSubgroupBlockWriteINTEL %\S+ %\S+$"))
            for rq, wq, only20 in (("read_only", "write_only", False), ("read_write", "read_write", True)):
                k = f"k{len(cases)}"
                src = f"kernel void {k}({rq} image2d_t im, int2 c, global {t}{n} *o) {{ o[0] = {rd}(im, c); }}"
                cases.append(Case(k, rd, f"{rq} image2d_t {t}{n}", src,
                                  rf"= OpSubgroupImageBlockReadINTEL {ty} ", only20))
                k = f"k{len(cases)}"
                src = f"kernel void {k}({wq} image2d_t im, int2 c, global {t}{n} *o) {{ {wr}(im, c, o[0]); }}"
                cases.append(Case(k, wr, f"{wq} image2d_t {t}{n}", src,
                                  r"^OpSubgroupImageBlockWriteINTEL %\S+ %\S+ %\S+$", only20))


def _group_op(op: str, t: str) -> str:
    if op == "add":
        return "OpGroupFAdd" if t in FLOAT else "OpGroupIAdd"
    kind = "F" if t in FLOAT else ("S" if t in SIGNED else "U")
    return f"OpGroup{kind}{op.capitalize()}"


def _collectives(cases: list[Case]) -> None:
    gentypes = ["int", "uint", "long", "ulong", "float", "half", "double"]
    kinds = {"reduce": "Reduce", "scan_inclusive": "InclusiveScan", "scan_exclusive": "ExclusiveScan"}
    groups = [("sub_group", SUBGROUP, gentypes, False), ("intel_sub_group", SUBGROUP,
              ["char", "uchar", "short", "ushort"], False), ("work_group", WORKGROUP, gentypes, True)]
    for prefix, scope, types, only20 in groups:
        for kind, group_op in kinds.items():
            for op in ("add", "min", "max"):
                fn = f"{prefix}_{kind}_{op}"
                for t in types:
                    k = f"k{len(cases)}"
                    src = f"kernel void {k}(global {t} *p) {{ p[0] = {fn}(p[1]); }}"
                    expect = rf"= {_group_op(op, t)} {spv_type(t)} %uint_{scope} {group_op} "
                    cases.append(Case(k, fn, t, src, expect, only20))
        for t in types:
            fn = f"{prefix}_broadcast"
            ids = ["i"] if prefix != "work_group" else ["i", "i, i", "i, i, i"]
            for id_args in ids:
                k = f"k{len(cases)}"
                idt = "ulong" if prefix == "work_group" else "uint"
                src = f"kernel void {k}(global {t} *p, {idt} i) {{ p[0] = {fn}(p[1], {id_args}); }}"
                cases.append(Case(k, fn, f"{t} ({id_args})", src,
                                  rf"= OpGroupBroadcast {spv_type(t)} %uint_{scope} ", only20))
    for prefix, scope, only20 in (("sub_group", SUBGROUP, False), ("work_group", WORKGROUP, True)):
        for vote, op in (("all", "OpGroupAll"), ("any", "OpGroupAny")):
            k = f"k{len(cases)}"
            src = f"kernel void {k}(global int *p) {{ p[0] = {prefix}_{vote}(p[1]); }}"
            cases.append(Case(k, f"{prefix}_{vote}", "int", src, rf"= {op} %bool %uint_{scope} ", only20))


QUERIES = {"get_sub_group_size": "SubgroupSize", "get_max_sub_group_size": "SubgroupMaxSize",
           "get_num_sub_groups": "NumSubgroups", "get_enqueued_num_sub_groups": "NumEnqueuedSubgroups",
           "get_sub_group_id": "SubgroupId", "get_sub_group_local_id": "SubgroupLocalInvocationId"}


def _queries_and_barriers(cases: list[Case]) -> None:
    for fn, builtin in QUERIES.items():
        k = f"k{len(cases)}"
        src = f"kernel void {k}(global uint *p) {{ p[0] = {fn}(); }}"
        cases.append(Case(k, fn, "uint", src, rf"= OpLoad %uint %__spirv_BuiltIn{builtin}\b",
                          fn == "get_enqueued_num_sub_groups"))
    # sub_group_barrier: Subgroup execution scope; memory scope sub_group unless given
    # (CLK_LOCAL_MEM_FENCE -> WorkgroupMemory 0x100, SequentiallyConsistent 0x10).
    k = f"k{len(cases)}"
    cases.append(Case(k, "sub_group_barrier", "(flags)",
                      f"kernel void {k}(global int *p) {{ sub_group_barrier(CLK_LOCAL_MEM_FENCE); }}",
                      r"^OpControlBarrier %uint_3 %uint_3 %uint_272$"))
    k = f"k{len(cases)}"
    cases.append(Case(k, "sub_group_barrier", "(flags, scope)",
                      f"kernel void {k}(global int *p) {{ sub_group_barrier(CLK_GLOBAL_MEM_FENCE, "
                      "memory_scope_work_group); }",
                      r"^OpControlBarrier %uint_3 %uint_2 %uint_528$", True))


def all_cases() -> list[Case]:
    cases: list[Case] = []
    _shuffles(cases)
    _blocks(cases)
    _collectives(cases)
    _queries_and_barriers(cases)
    return cases


CASES = all_cases()
