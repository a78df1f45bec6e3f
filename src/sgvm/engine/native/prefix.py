"""Branches whose lanes split at a local id: ``if (l < s)`` on the work-group path, where ``l``
is the local id in dimension 0 and ``s`` a value every lane holds alike (a work-group scalar,
a constant, an argument: ``scalars.same``) (docs/native.md, "Branches on the local id").

In a one-dimensional work-group run alone (``sg_lsz1 == sg_lsz2 == 1``, ``sg_W == 1``),
lane ``l`` has local id ``l``, so a comparison of the local id with a value every lane
holds alike is true for the lanes below some ``m`` and false for the others, or the other
way round, and ``m`` follows from the value: ``l < s`` holds for the first ``min(s, n)``
lanes of ``n`` (none for a negative ``s`` compared as signed), ``l <= s`` for one more. A
block that computes nothing but that comparison and branches on it then needs no loop over
its lanes when every lane waits at it (``sg_all``): it sets their counters in two runs (or,
where its lower target is alike, leaves them unwritten: counters.py) and
notes the edges taken and the lower target's lane count as its lane loop would
(schedule.py). The tree reduction's ``for (s = n / 2; s > 0; s >>= 1) if (l < s) …`` runs
such a block once per step.
"""

from __future__ import annotations

from ...spirv import Block, Instruction
from . import counters, scalars

# comparison → (the local id on the left: "<" or "<="; on the right: the same, mirrored),
# whether the true edge is the comparison's ("<"/"<=") or its negation's
_LEFT = {"LessThan": ("<", True), "LessThanEqual": ("<=", True),
         "GreaterThan": ("<=", False), "GreaterThanEqual": ("<", False)}
_RIGHT = {"GreaterThan": ("<", True), "GreaterThanEqual": ("<=", True),
          "LessThan": ("<=", False), "LessThanEqual": ("<", False)}
_STRUCTURE = {"OpLoopMerge", "OpSelectionMerge", "OpLine", "OpNoLine"}
_CONVERSIONS = {"OpUConvert", "OpSConvert", "OpBitcast"}


def _local_id_x(r, vid: int) -> bool:
    """Value ``vid`` is the local id in dimension 0, at least 32 bits wide (exact for every
    local id: a work-group has fewer than 2**31 work-items)."""
    inst = r.pure.get(vid)
    while inst is not None and inst.opname in _CONVERSIONS:
        if r.rtype(inst).width < 32:
            return False
        inst = r.pure.get(inst.operands[0].value)
    if inst is None or inst.opname != "OpCompositeExtract" or \
            [x.value for x in inst.operands[1:]] != [0]:
        return False
    load = r.pure.get(inst.operands[0].value)
    return load is not None and load.opname == "OpLoad" and \
        r.builtins.get(load.operands[0].value) == "LocalInvocationId"


def render(r, block: Block, index: dict[int, int]) -> list[str] | None:
    """The block's code for every lane when it is such a branch (module docstring), run in
    place of its lane loops under the guard it begins with; else None."""
    term = block.terminator
    if not r.counting or term.opname != "OpBranchConditional":
        return None
    cond, yes, no = (x.value for x in term.operands[:3])
    body = [i for i in block.instructions if i is not term and i.opname not in _STRUCTURE
            and i.result_id not in r.scalars]  # (the scalars: computed before, once)
    compare = next((i for i in body if i.result_id == cond), None)
    if compare is None or any(r.storage.get(i.result_id) not in (None, "local", "remat")
                              for i in body):
        return None  # a value another block or lane reads: the lane loops store it
    form = _form(r, compare)
    if form is None or not all(i is compare or _pure(r, i) for i in body):
        return None
    edges = [r._edge(block.label, x, index) for x in (yes, no)]
    if edges != [f"{{ sg_pc[l] = {index[x]}u; }}" for x in (yes, no)]:
        return None  # the edges copy values or carry lanes elsewhere: the lane loops do
    op, bound, signed, first_true = form
    m = _count(op, bound, signed)
    head, tail = (index[yes], index[no]) if first_true else (index[no], index[yes])
    lower = index[yes] < index[no]  # the lower target is the true edge's
    taken = "sg_m" if first_true else "(sg_vol - sg_m)"  # lanes taking the true edge
    # no counter where the lower target is alike: the lanes' two runs are known (counters.py)
    fills = ["      sg_lazy = sg_m == 0 || sg_m == sg_vol ? 1 : 2;"] \
        if counters.splits_unwritten(r, min(head, tail)) else \
        [f"      for (u32 l = 0; l < sg_m; l++) sg_pc[l] = {head}u;",
         f"      for (u32 l = sg_m; l < sg_vol; l++) sg_pc[l] = {tail}u;"]
    return [
        "    if (sg_all && sg_lsz1 == 1 && sg_lsz2 == 1 && sg_W == 1) {",
        f"      const u32 sg_m = {m};",
        *fills,
        f"      sg_took = ({taken} ? 1u : 0u) | ({taken} < sg_vol ? 2u : 0u);",
        f"      sg_tn = {taken if lower else f'sg_vol - {taken}'}; sg_prefixed++;",
        f"      sg_nat = {'0' if head < tail else 'sg_m'};  // the lower target's first lane",
        "    } else {"]


def _pure(r, inst: Instruction) -> bool:
    """A load of a built-in variable, a component of a value or a conversion."""
    if inst.opname == "OpLoad":
        return inst.operands[0].value in r.builtins
    return inst.opname == "OpCompositeExtract" or inst.opname in _CONVERSIONS


def _form(r, compare: Instruction) -> tuple[str, str, bool, bool] | None:
    """(``<`` or ``<=``, the C of the bound, compared as signed, whether the true edge's
    lanes come first) for a comparison of the local id with a work-group value."""
    name = compare.opname.removeprefix("Op")
    signed = name.startswith("S")
    if not name.startswith(("S", "U")) or name[1:] not in _LEFT:
        return None
    a, b = (x.value for x in compare.operands[:2])
    if _local_id_x(r, a) and scalars.same(r, b, r.scalars):
        op, first_true = _LEFT[name[1:]]
        other = b
    elif _local_id_x(r, b) and scalars.same(r, a, r.scalars):
        op, first_true = _RIGHT[name[1:]]
        other = a
    else:
        return None
    width = r.type_of(other).width
    cast = f"(s64)(s{width})" if signed else f"(u64)(u{width})"
    return op, f"{cast}({r.leaf(other)})", signed, first_true


def _count(op: str, bound: str, signed: bool) -> str:
    """The number of local ids 0 … sg_vol - 1 below (``<``) or up to (``<=``) ``bound``."""
    if op == "<":
        return f"({bound} <= 0 ? 0u : {bound} < (s64)sg_vol ? (u32){bound} : sg_vol)" if signed \
            else f"({bound} < (u64)sg_vol ? (u32){bound} : sg_vol)"
    return f"({bound} < 0 ? 0u : {bound} < (s64)sg_vol ? (u32){bound} + 1u : sg_vol)" if signed \
        else f"({bound} < (u64)sg_vol ? (u32){bound} + 1u : sg_vol)"
