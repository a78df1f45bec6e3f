"""Work-group scalars: values every lane of the work-group holds alike, kept in one C variable
instead of a lane array (docs/native.md, "Work-group scalars").

A block is *converged* when every step that runs it runs it for every live lane of the
work-group. Found from the entry by the scheduler's rule (the lowest block some lane waits
at runs next, for the lanes waiting there): a converged block whose branch every lane
decides alike (unconditional, or on a work-group scalar) leaves every lane at one target,
which runs next for all of them; one whose branch lanes may decide differently sends them
into the blocks reachable from its targets; where all of those come before a block ``R`` in
the block order and every path from them that does not end its lane reaches ``R``, no step
runs ``R`` while a lane waits before it, so ``R`` runs for every live lane, once all have
arrived. The blocks between run for some lanes only. A block of a sub-group region
(regions.py) runs bundle by bundle: it and every block after it are left out, unless the
region is the whole kernel. Then each bundle runs the kernel from its entry to the end by
the same rule, as a work-group of the bundle's lanes would, and everything above holds
with "bundle" for "work-group": a value computed alike by every lane of each bundle from
operands the same for the whole work-group is computed alike by every lane.

A *work-group scalar* is computed in a converged block from work-group scalars, constants,
arguments and built-ins the same for the whole work-group (no memory, no other lane), or is
a phi of a converged block whose every incoming edge comes from a converged block whose
branch every lane decides alike, carrying a work-group scalar or constant. Every live lane
then computes it at the same step from the same operands, so all hold the same value, and
the latest value computed is every live lane's own. Scalars and converged blocks depend on
each other: both are found as the largest sets consistent with these rules (at every step,
by induction on the steps run, each claim rests on claims about earlier steps).
"""

from __future__ import annotations

from ...spirv import Block, Function, Instruction
from ..clower import ctypes_ as C
from ..common.block_order import successors
from . import lanes, non_uniform
from .collectives import SHUFFLES
from .segmentation import IMPURE, Segment

_IMPURE = IMPURE | set(non_uniform.LANE_OPS)  # what no work-group scalar computes
# built-ins the same for every lane of a work-group (of the work-groups run together, but for
# the group id: regions.groups)
SAME = {"WorkgroupId", "WorkgroupSize", "EnqueuedWorkgroupSize", "GlobalSize", "NumWorkgroups",
        "GlobalOffset", "WorkDim", "SubgroupMaxSize", "NumSubgroups", "NumEnqueuedSubgroups"}
_LEAVES = ("Int", "Float", "Bool")


def find(r, f: Function, blocks: list[Block], segments: list[list[Segment]],
         spans: list[tuple[int, int]]) -> set[int]:
    """The work-group scalars of ``f`` (``blocks`` in block order), taken out of their
    segments (each block computes its own before its lane loops: ``prologue``)."""
    if spans == [(0, len(blocks) - 1)]:  # one region, the whole kernel: each bundle runs
        spans = []  # it from the entry as a work-group of its lanes would (module docstring)
    index = {b.label: k for k, b in enumerate(blocks)}
    succ = {index[a]: [index[x] for x in s] for a, s in successors(f).items() if a in index}
    apart = {k for lo, hi in spans for k in range(lo, hi + 1)} | set(r.joined)
    across = {i for segs in segments for seg in segs if seg.kind == "collective"
              for inst in seg.insts for i in _others(inst)}
    where: dict[int, int] = {}
    cands: dict[int, Instruction] = {}
    for k, b in enumerate(blocks):
        for inst in b.instructions:
            vid = inst.result_id
            if vid is None or inst.result_type is None or vid in across or k in apart or \
                    any(x.op not in _LEAVES for x in C.leaf_types(r.rtype(inst))):
                continue
            if inst.opname == "OpPhi" or _computed(r, inst):
                where[vid], cands[vid] = k, inst
    scalars = set(cands)
    while True:
        conv = _converged(r, blocks, succ, index, spans, scalars)
        keep = {v for v in scalars if where[v] in conv and _fed(r, cands[v], blocks, index, conv,
                                                                    scalars)}
        if keep == scalars:
            break
        scalars = keep
    for segs in segments:
        for seg in segs:
            seg.insts = [i for i in seg.insts if i.result_id not in scalars]
        segs[:] = [s for s in segs if s.kind != "lanes" or s.insts]
    return scalars


def alike(r, blocks: list[Block]) -> set[int]:
    """Values every lane computes alike whatever the control flow (``blocks`` in block order):
    from constants, arguments and built-ins the same for the work-group, through pure
    instructions and no phi. ``chains.py`` keeps a block computing only such values out of
    its predecessor's loop, where they could not be work-group scalars."""
    out: set[int] = set()
    for b in blocks:
        for inst in b.instructions:
            if inst.opname != "OpPhi" and _computed(r, inst) and (
                    inst.opname == "OpLoad" or all(same(r, i, out) for i in inst.ids())):
                out.add(inst.result_id)
    return out


def _computed(r, inst: Instruction) -> bool:
    """``inst`` computes its value from its operands alone (no memory, no other lane), or
    loads a built-in the same for the work-group (the group id not where work-groups run
    together: a groupable kernel reads none)."""
    same_builtins = SAME - {"WorkgroupId"} if r.groupable else SAME
    return lanes.computes(r, inst, _IMPURE) and (
        inst.opname != "OpLoad" or r.builtins.get(inst.operands[0].value) in same_builtins)


def _others(inst: Instruction) -> list[int]:
    """The operands of collective ``inst`` that some lane reads of another lane (collectives.at):
    all but an Intel shuffle's index or delta, which each lane reads of its own, and a
    broadcast's local id, which the first active lane's stands for (the same for all)."""
    operands = inst.ids()
    return operands[:-1] if inst.opname in SHUFFLES + ("OpGroupBroadcast",) else operands


def same(r, vid: int, scalars: set[int]) -> bool:
    """Value ``vid`` is the same for every lane of the work-group: one of ``scalars``, a
    constant, an undefined value, an argument, a local variable's or a program-scope
    variable's address."""
    m = r.m
    return vid in scalars or vid in m.constants or vid in m.undefs or vid in r.params \
        or vid in r.local_offsets or vid in r.globals


def _uniform(r, term: Instruction, scalars: set[int]) -> bool:
    """Whether every lane running ``term`` takes the same edge."""
    o = term.opname
    if o in ("OpBranch", "OpReturn", "OpReturnValue", "OpUnreachable"):
        return True
    if o in ("OpBranchConditional", "OpSwitch"):
        return same(r, term.operands[0].value, scalars)
    return False


def _fed(r, inst: Instruction, blocks: list[Block], index: dict[int, int], conv: set[int],
         scalars: set[int]) -> bool:
    """Whether ``inst``'s operands (a phi's: its edges too) keep it a work-group scalar."""
    if inst.opname == "OpLoad":  # of a built-in the same for the work-group (find)
        return True
    if inst.opname != "OpPhi":
        return all(same(r, i, scalars) for i in inst.ids())
    for op in inst.operands:
        value, pred = op.value
        k = index.get(pred)
        if k is None or k not in conv or k in r.joined or k + 1 in r.joined \
                or blocks[k].terminator.opname not in ("OpBranch", "OpBranchConditional") \
                or not _uniform(r, blocks[k].terminator, scalars) or not same(r, value, scalars):
            return False
    return True


def _converged(r, blocks: list[Block], succ: dict[int, list[int]], index: dict[int, int],
               spans: list[tuple[int, int]], scalars: set[int]) -> set[int]:
    """The converged blocks (the module docstring), by number, given ``scalars``."""
    in_span = {k for lo, hi in spans for k in range(lo, hi + 1)}
    seen: set[int] = set()
    some: set[int] = set()  # blocks some step runs for part of the lanes
    todo = [0]
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        term = blocks[k].terminator
        if k in in_span or term.opname not in ("OpBranch", "OpBranchConditional", "OpSwitch",
                                               "OpReturn", "OpReturnValue", "OpUnreachable"):
            some |= _reach(succ, [k], None) | {k}
        elif _uniform(r, term, scalars):
            todo += succ[k]
        else:
            join = _join(succ, k)
            if join is None:
                some |= _reach(succ, succ[k], None)
            else:
                some |= _reach(succ, succ[k], join)
                todo.append(join)
    return seen - some


def _reach(succ: dict[int, list[int]], starts: list[int], stop: int | None) -> set[int]:
    """The blocks reachable from ``starts`` without passing ``stop``."""
    out: set[int] = set()
    todo = [s for s in starts if s != stop]
    while todo:
        k = todo.pop()
        if k in out:
            continue
        out.add(k)
        todo += [s for s in succ[k] if s != stop]
    return out


def _join(succ: dict[int, list[int]], k: int) -> int | None:
    """The block where the lanes leaving block ``k`` by different edges all arrive again
    (those that do not end first): the lowest ``R`` after every block reachable from ``k``'s
    targets without passing ``R``, reached from each of them unless it ends its lanes."""
    for join in sorted({x for x in _reach(succ, succ[k], None) if x > k}):
        inside = _reach(succ, succ[k], join)
        if all(x < join for x in inside) and _arrive(succ, inside, join):
            return join
    return None


def _arrive(succ: dict[int, list[int]], inside: set[int], join: int) -> bool:
    """Every block of ``inside`` leads to ``join`` or ends its lanes (no successors): no
    lane can stay in ``inside`` for good except by looping (the step budget ends that)."""
    good = {join}
    changed = True
    while changed:
        changed = False
        for x in inside - good:
            if not succ[x] or any(s in good for s in succ[x]):
                good.add(x)
                changed = True
    return inside <= good


def declarations(r, scalars: set[int]) -> list[str]:
    """The C variables of the work-group scalars (set before any use: SSA dominance)."""
    out = []
    for vid in sorted(scalars):
        for x, n in zip(C.leaf_types(r.type_of(vid)), r.leaves(vid), strict=True):
            out.append(f"{C.scalar_ctype(x)} {n} = {C.zero(x)};")
    return ["    " + " ".join(out)] if out else []


def prologue(r, k: int, block: Block, index: dict[int, int]) -> list[str]:
    """Block number ``k``'s work-group scalars, computed once before its lane loops."""
    r.lines = []
    for inst in block.instructions:
        if inst.result_id in r.scalars and inst.opname != "OpPhi":
            r._one(inst, block, index, "sg_took")
    return r.lines


def copies(r, block: Block, index: dict[int, int]) -> list[str]:
    """After the block's lane loops: its edges' copies into phis that are work-group scalars
    (every lane took the same edge: the branch is on a work-group scalar)."""
    term = block.terminator
    if term.opname not in ("OpBranch", "OpBranchConditional"):
        return []
    targets = [x.value for x in term.operands[:1]] if term.opname == "OpBranch" else \
        [x.value for x in term.operands[1:3]]
    edges = []
    for dst in targets:
        temps, sets = r.phi_copies(block.label, dst, scalars=True)
        edges.append("{ " + " ".join(temps + sets) + " }")
    if all(e == "{  }" for e in edges):
        return []
    if term.opname == "OpBranch":
        return ["      " + edges[0]]
    return [f"      if ({r.leaf(term.operands[0].value)}) {edges[0]} else {edges[1]}"]
