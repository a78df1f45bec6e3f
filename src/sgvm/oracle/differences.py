"""The one list of ways the oracle may legitimately differ from sgvm, or is known to
deviate from the specifications (docs/oracle.md). Comparisons (tests/oracle, sgvm fuzz)
consult only this list; every entry says why, quoting the text it rests on."""

from __future__ import annotations

from dataclasses import dataclass

LEGAL = "legal"  # both follow the text; the comparison allows for the choice
UNDEFINED = "undefined"  # the text defines no result; excluded from comparison
DEVIATION = "oracle-deviation"  # the oracle contradicts the text; sgvm follows it
FRONT_END = "front-end"  # SPIR-V clang writes, which sgvm reads as clang means it


@dataclass(frozen=True)
class Difference:
    name: str
    kind: str
    rule: str  # what the comparison does
    source: str  # the specification and clause
    text: str  # the sentence
    # launches of modules with any of these instructions (an extended instruction as
    # "OpExtInst:<number>", a constant operation as "OpSpecConstantOp:<opcode>") are not
    # compared (tests/oracle)
    excludes: frozenset[str] = frozenset()


DIFFERENCES: dict[str, Difference] = {d.name: d for d in (
    Difference(
        "sub-group-mapping", LEGAL,
        "multi-dimensional work-groups run on the oracle only where the row-major linear "
        "mapping is forced (local size in x a multiple of the sub-group size); otherwise "
        "results that depend on the mapping are not compared",
        "cl_khr_subgroups (OpenCL C 3.0 s6.15.14)",
        "the mapping of work-items to sub-groups is implementation-defined"),
    Difference(
        "float-reduction-order", LEGAL,
        "floating-point sub-group/work-group add reductions and scans compare within "
        "n·ulp·Σ|x| (n = lanes combined) instead of bit for bit",
        "OpenCL C 2.0 s6.13.15 (work-group functions)",
        "The order of floating-point operations is not guaranteed for the "
        "work_group_reduce_<op>, work_group_scan_inclusive_<op> and "
        "work_group_scan_exclusive_<op> built-in functions that operate on half, float "
        "and double data types."),
    Difference(
        "vote-value", UNDEFINED,
        "sub_group_all/any and work_group_all/any compare as true/false, not by value",
        "OpenCL C 2.0 s6.13.15",
        "Returns a non-zero value if predicate evaluates to non-zero for all work-items in "
        "the work-group."),
    Difference(
        "partial-block-write", DEVIATION,
        "a sub-group block write of a partial sub-group: the oracle also writes the "
        "elements of the work-items the sub-group lacks (zeros or stale data); words only "
        "such phantom lanes could write are reported as this deviation",
        "cl_intel_subgroups, Sub Group Read and Write Functions",
        "Writes 1, 2, 4, or 8 uints of data for each work item in the subgroup to the "
        "specified pointer as a block operation."),
    Difference(
        "partial-block-read", DEVIATION,
        "sub-group block reads are not generated for the oracle in launches with partial "
        "sub-groups: there, depending on the surrounding code, the oracle's "
        "intel_sub_group_block_read_uc2 returns p[0] for every work-item and element",
        "cl_intel_subgroups, Sub Group Read and Write Functions",
        "The data is read strided, so the first value is read from: p[ sub_group_local_id ] "
        "and the second value is read from: p[ sub_group_local_id + max_sub_group_size ]"),
    Difference(
        "address-space-casts", DEVIATION,
        "launches of modules that cast generic pointers (to_global, to_local, to_private: "
        "OpGenericCastToPtrExplicit) are not compared: the oracle returns a non-null "
        "pointer for every cast, from OpenCL C source and SPIR-V alike",
        "OpenCL C 2.0 s6.13.9, address space qualifier functions",
        "Returns a pointer that points to a region in the local address space if to_local "
        "can cast ptr to the local address space. Otherwise it returns NULL.",
        frozenset({"OpGenericCastToPtrExplicit"})),
    Difference(
        "address-initialisers", FRONT_END,
        "launches of modules whose program-scope variables are initialised with addresses "
        "inside other variables are not compared: clang 22 writes them as "
        "OpSpecConstantOp InBoundsPtrAccessChain with a byte index on a variable of "
        "another type, which sgvm reads as the byte offset clang means "
        "(docs/engine.md) and the oracle reads literally (it gets these right from "
        "OpenCL C source)",
        "SPIR-V 1.4 s3.32.8, OpInBoundsPtrAccessChain",
        "Element is used to do an initial dereference of Base: Base is treated as the "
        "address of an element in an array, and a new element address is computed from "
        "Base and Element to become the OpAccessChain Base to dereference as per "
        "OpAccessChain.",
        frozenset({"OpSpecConstantOp:OpInBoundsPtrAccessChain",
                   "OpSpecConstantOp:OpPtrAccessChain"})),
    Difference(
        "mad-sat-64", DEVIATION,
        "launches of modules calling the 64-bit signed mad_sat (OpenCL.std s_mad_sat, "
        "number 155) are not compared: where a * b + c lies below LONG_MIN the oracle "
        "returns LONG_MAX",
        "OpenCL C 2.0 s6.13.3, integer functions",
        "mad_sat: Returns a * b + c and saturates the result.",
        frozenset({"OpExtInst:155"})),
    Difference(
        "spirv-miscompile", DEVIATION,
        "a generated kernel whose buffers differ from the oracle's but equal the oracle's "
        "own result for the same kernel built from its OpenCL C source (up to "
        "partial-block-write bytes) is reported as this deviation. The case: after an "
        "if/else on a lane-dependent condition, clang merges the two branches' stores "
        "into one block whose address is an OpPhi of the two branches' offsets; the "
        "oracle, given that SPIR-V, gives the work-items that came from the else branch "
        "the then branch's offset (with loops in both branches)",
        "SPIR-V 1.4 s3.32.17, OpPhi",
        "The result is selected based on control flow: If control reached the current "
        "block from Parent i, Result Id gets the value that Variable i had at the end of "
        "Parent i."),
    Difference(
        "elect-abort", DEVIATION,
        "sub_group_elect is not generated for the oracle: the runtime aborts (SIGABRT) "
        "building a kernel whose OpGroupNonUniformElect result is unused, and running one "
        "with a partial sub-group (35 work-items in sub-groups of 16) when it is used",
        "cl_khr_subgroup_non_uniform_vote, sub_group_elect",
        "This function will return true (nonzero) for the active work item in the "
        "sub-group with the smallest sub-group local ID, and false (zero) for all other "
        "active work items in the sub-group."),
    Difference(
        "shuffle-16-bit-abort", DEVIATION,
        "with sub-groups of 16, intel_sub_group_shuffle / _xor and sub_group_shuffle / _xor "
        "of a scalar short, ushort or half are not generated for the oracle (the generator "
        "shuffles int, uint or float instead): given one with a computed index whose result "
        "is then widened to 64 bits, the runtime's code generator aborts (SIGABRT, "
        "\"Cannot select: v8i16 = truncate\"), from SPIR-V and OpenCL C alike",
        "cl_intel_subgroups_short, Sub Group Shuffle Functions",
        "Add short, short2, short3, short4, short8, short16, ushort, ushort2, ushort3, "
        "ushort4, ushort8, and ushort16 to the list of gentype data types supported by the "
        "sub_group_shuffle, sub_group_shuffle_down, sub_group_shuffle_up, and "
        "sub_group_shuffle_xor functions"),
    Difference(
        "vector-broadcast-crash", DEVIATION,
        "sub_group_broadcast and sub_group_non_uniform_broadcast of vectors are generated "
        "for the oracle only where the whole work-group runs them (elsewhere the generator "
        "broadcasts a scalar): one whose index comes from an element of another vector "
        "sub-group broadcast or shuffle, inside an if on such an element that some "
        "sub-group skips, crashes the runtime when the kernel runs (SIGSEGV or SIGBUS), "
        "from SPIR-V and OpenCL C alike",
        "cl_khr_subgroup_extended_types, Sub-group Broadcast",
        "For the sub_group_broadcast function, the generic type name gentype may "
        "additionally be one of the supported built-in vector data types charn, ucharn, "
        "shortn, ushortn, intn, uintn, longn, ulongn, floatn, doublen (if double precision "
        "is supported), or halfn (if half precision is supported)."),
    Difference(
        "logical-xor-scan", DEVIATION,
        "sub_group_non_uniform_scan_inclusive/exclusive_logical_xor are not generated for "
        "the oracle: its scans are wrong from the fourth work-item of a sub-group on (the "
        "measured results equal a doubling scan whose first step combines with xor and "
        "later steps with or), from SPIR-V and OpenCL C alike; the logical_xor "
        "reduction and the bitwise xor scans are right",
        "cl_khr_subgroup_non_uniform_arithmetic, Logical Operations",
        "Returns the result of an inclusive scan operation, which is the logical and, or, "
        "or xor of predicate for all active work items in the sub-group with a sub-group "
        "local ID less than or equal to this work item's sub-group local ID."),
    Difference(
        "us16-block-io", DEVIATION,
        "intel_sub_group_block_read_us16 / write_us16 are not generated for the oracle: "
        "its JIT leaves them unresolved (\"Symbols not found: "
        "_Z31intel_sub_group_block_read_us16PU3AS1Kt\")",
        "cl_intel_subgroups_short",
        "ushort16 intel_sub_group_block_read_us16( const __global ushort* p );"),
    Difference(
        "work-group-broadcast-half", DEVIATION,
        "work_group_broadcast of a half is not generated for the oracle: building it "
        "(OpGroupBroadcast Workgroup on a 16-bit float) crashes the runtime (SIGSEGV)",
        "OpenCL C 2.0 s6.13.15 (with cl_khr_fp16)",
        "If cl_khr_fp16 is supported, gentype also includes half."),
    Difference(
        "work-group-broadcast-sub-group-32", DEVIATION,
        "work_group_broadcast is not generated for the oracle in kernels with sub-groups "
        "of 32: there work-items 16-31 of every sub-group receive another work-item's "
        "value (or 0): they read x of work-item local_id + 16 (built from SPIR-V or from "
        "OpenCL C alike); sizes 8 and 16 are right",
        "OpenCL C 2.0 s6.13.15 (work_group_broadcast)",
        "Broadcast the value of x for work-item identified by local_id to all work-items "
        "in the work-group."),
    Difference(
        "sub-group-barrier-iterations", DEVIATION,
        "sub_group_barrier is generated for the oracle only where the whole work-group "
        "runs it equally often: where one sub-group executes more sub-group barriers than "
        "a later sub-group of its work-group (a loop whose trip count is uniform per "
        "sub-group only), the oracle's work-items of that sub-group never continue past "
        "the loop (stores after it are lost). Reached through SPIR-V (OpControlBarrier "
        "Subgroup Subgroup); the same kernel built from OpenCL C source runs correctly",
        "cl_intel_subgroups / cl_khr_subgroups, sub_group_barrier",
        "If sub_group_barrier is inside a loop, all work items within the subgroup must "
        "execute the sub_group_barrier for each iteration of the loop before any are "
        "allowed to continue execution beyond the sub_group_barrier."),
    Difference(
        "printf-value", DEVIATION,
        "launches of modules with printf (OpenCL.std 184) are not compared: the oracle's "
        "printf returns the number of characters it wrote (also for an invalid conversion, "
        "whose text it prints in part)",
        "OpenCL C 2.0 s6.13.13.3 (printf)",
        "printf returns 0 if it was executed successfully and -1 otherwise.",
        excludes=frozenset({"OpExtInst:184"})),
)}

# Constructs kept out of kernels generated for the oracle (sgvm.fuzz ``omit`` keys),
# each with the entry above that explains why.
ORACLE_AVOID: dict[str, str] = {
    "intel_sub_group_block_read_us16": "us16-block-io",
    "intel_sub_group_block_write_us16": "us16-block-io",
    "block_read:partial": "partial-block-read",
    "work_group_broadcast:half": "work-group-broadcast-half",
    "work_group_broadcast:sub-group-32": "work-group-broadcast-sub-group-32",
    "sub_group_barrier:sub-group-uniform": "sub-group-barrier-iterations",
    "sub_group_non_uniform_scan_logical_xor": "logical-xor-scan",
    "sub_group_elect": "elect-abort",
    "shuffle:16-bit:sub-group-16": "shuffle-16-bit-abort",
    "broadcast:vector:sub-group-uniform": "vector-broadcast-crash",
}
