"""The one list of ways the oracle may legitimately differ from sgvm, or is known to
deviate from the specifications (docs/oracle.md). Comparisons (tests/oracle, sgvm fuzz)
consult only this list; every entry says why, quoting the text it rests on."""

from __future__ import annotations

from dataclasses import dataclass

LEGAL = "legal"  # both follow the text; the comparison allows for the choice
UNDEFINED = "undefined"  # the text defines no result; excluded from comparison
DEVIATION = "oracle-deviation"  # the oracle contradicts the text; sgvm follows it


@dataclass(frozen=True)
class Difference:
    name: str
    kind: str
    rule: str  # what the comparison does
    source: str  # the specification and clause
    text: str  # the sentence


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
        "us16-block-io", DEVIATION,
        "intel_sub_group_block_read_us16 / write_us16 are not generated for the oracle: "
        "its JIT leaves them unresolved (\"Symbols not found: "
        "_Z31intel_sub_group_block_read_us16PU3AS1Kt\")",
        "cl_intel_subgroups_short",
        "ushort16 intel_sub_group_block_read_us16( const __global ushort* p );"),
)}

# Built-ins the oracle cannot build (kept out of kernels generated for it).
ORACLE_CANNOT_BUILD = frozenset({"intel_sub_group_block_read_us16",
                                 "intel_sub_group_block_write_us16"})
