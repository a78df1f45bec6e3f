"""Where a change comes through: source sites named from two runs' traces (``trace``).

Per kind of variant, the sites that explain a changed output:

* sub-group size and mapping: the sub-group built-ins whose values changed
  ("depends on get_sub_group_size() at k.cl:12"), then the sub-group operations run
  ("through intel_sub_group_shuffle at k.cl:20");
* reduction order: the floating-point group reductions and scans run, sums first;
* work-group order: the global loads whose values changed, else the atomics run;
* memory contents: the local and private loads whose values changed;
* atomic order: the atomics run.
"""

from __future__ import annotations

from .plan import FLOAT_GROUP_OPS
from .report import Attribution
from .trace import Site, Trace, differing_sites, executed_sites

MAX_ATTRIBUTIONS = 3
_SCOPE_PREFIX = {"Subgroup": "sub_group", "Workgroup": "work_group"}
_OPERATION = {"Reduce": "reduce", "InclusiveScan": "scan_inclusive",
              "ExclusiveScan": "scan_exclusive"}
_INTEL = {"OpSubgroupShuffleINTEL": "intel_sub_group_shuffle",
          "OpSubgroupShuffleDownINTEL": "intel_sub_group_shuffle_down",
          "OpSubgroupShuffleUpINTEL": "intel_sub_group_shuffle_up",
          "OpSubgroupShuffleXorINTEL": "intel_sub_group_shuffle_xor",
          "OpSubgroupBlockReadINTEL": "intel_sub_group_block_read",
          "OpSubgroupBlockWriteINTEL": "intel_sub_group_block_write",
          "OpSubgroupImageBlockReadINTEL": "intel_sub_group_block_read (image)",
          "OpSubgroupImageBlockWriteINTEL": "intel_sub_group_block_write (image)"}


def _function_name(site: Site) -> str:
    """The OpenCL C name of a collective site (``sub_group_reduce_add``), else its opname."""
    op, _, operation = site.what.partition(" ")
    if op.startswith("intel_"):
        return op
    if op in _INTEL:
        return _INTEL[op]
    prefix = _SCOPE_PREFIX.get(site.space, "sub_group")
    if op.startswith("OpGroup") and operation in _OPERATION:
        arith = op.removeprefix("OpGroupNonUniform").removeprefix("OpGroup")[1:].lower()
        kind = "non_uniform_" if op.startswith("OpGroupNonUniform") else ""
        return f"{prefix}_{kind}{_OPERATION[operation]}_{arith}"
    simple = {"OpGroupAll": "all", "OpGroupAny": "any", "OpGroupBroadcast": "broadcast"}
    return f"{prefix}_{simple[op]}" if op in simple else op


def _attribution(site: Site, relation: str, what: str | None = None) -> Attribution:
    loc = site.location
    if loc is None:
        return Attribution(what or site.what, relation)
    return Attribution(what or site.what, relation, loc.file, loc.line, loc.column)


def _sites(kind: str, base: Trace, var: Trace) -> list[Attribution]:
    """The sites one changed variant's differences come through (module ``trace``)."""
    if kind in ("sub-group-size", "mapping"):
        out = [_attribution(s, "depends on" if kind == "sub-group-size" else
                            "depends on the mapping through") for s in
               differing_sites(base, var, "builtin")]
        out += [_attribution(s, "through", _function_name(s)) for s in
                executed_sites(var, "collective") if s.space == "Subgroup"]
        return out
    if kind == "reduction-order":  # sums first: min and max rarely depend on the order
        sites = executed_sites(var, "collective", FLOAT_GROUP_OPS)
        sites.sort(key=lambda s: "Add" not in s.what)
        return [_attribution(s, "through", _function_name(s)) for s in sites]
    if kind == "group-order":
        loads = differing_sites(base, var, "load", ("global", "constant"))
        return [_attribution(s, "reads", "data another work-group writes") for s in loads] or [
            _attribution(s, "through", "the atomic") for s in executed_sites(var, "atomic")]
    if kind == "memory-init":
        return [_attribution(s, "reads uninitialised", f"{s.space} memory")
                for s in differing_sites(base, var, "load", ("local", "private"))]
    return [_attribution(s, "through", "the atomic") for s in executed_sites(var, "atomic")]


def attributions(kind: str, base: Trace, traces: list[Trace]) -> list[Attribution]:
    """Up to ``MAX_ATTRIBUTIONS`` sites the changed variants' differences come through."""
    out: list[Attribution] = []
    for t in traces:
        out.extend(a for a in _sites(kind, base, t) if a not in out)
    return out[:MAX_ATTRIBUTIONS]
