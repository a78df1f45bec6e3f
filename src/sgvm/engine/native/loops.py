"""Uniform loops run chunk by chunk, each chunk of sub-groups to the loop's end (docs/native.md,
"Uniform loops").

A block that branches back to itself on a work-group scalar (``scalars.py``: every lane
leaves at the same iteration), writes no memory another lane may see (no store to global,
local or constant memory, no block or image write, no atomic) and needs no work-group
lock-step (``regions.lock_step``) gets a second rendering. When every lane of the unit runs
it (``sg_all``) and the rows hold whole chunks (``SG_CH`` lanes, whole sub-groups: see
``chunk``), each chunk in turn runs every iteration of the loop, as one ``fused.py`` block
per iteration (lane loops of ``SG_CH`` lanes, the collectives sub-group by sub-group, the
block's own values in arrays of one chunk), with no scheduler step between iterations;
otherwise the loop runs step by step as before.

Exact: while the loop runs no lane writes memory another lane can see, so each load reads
what memory held when the loop began in either order; each sub-group still runs its lanes
in lock-step, so its collectives see the lanes and values they see on the NumPy engine; the
scalars' recurrence has operands the same for the whole work-group, so each chunk runs it
again from the values the loop began with and goes through the same iterations.

Checks and the step budget: before any chunk runs, a first pass runs the scalars'
recurrence alone, iteration by iteration, counting the steps the NumPy engine takes; the
pre-pass of ``fused.sub_group_code`` then tests every access of the iterations for every
lane, row by row (``around``): where the addresses are
progressions over the iterations it tests them at the first, second and last iteration
(``iterations.py``), else at every iteration, the lanes' part of each address computed once
per row. Where an access would fault or the budget would run out, the loop runs step by step
instead, which reports it as the NumPy engine does. Otherwise the budget counts the loop's
iterations after it ran.
"""

from __future__ import annotations

from ...spirv import Block, Instruction
from ..clower import ctypes_ as C
from . import fused, iterations, lanes, regions, scalars
from .fused import NOUNROLL
from .segmentation import Segment, memory

_WRITES = {"OpImageWrite", "OpSubgroupBlockWriteINTEL", "OpSubgroupImageBlockWriteINTEL",
           "OpSubgroupImageMediaBlockWriteINTEL"}


def render(r, k: int, block: Block, segs: list[Segment], index: dict[int, int]
           ) -> list[str] | None:
    """The C running loop block number ``k`` sub-group by sub-group when it may (setting
    ``sg_lp``), or None where the block does not qualify (the module docstring)."""
    term = block.terminator
    if term.opname != "OpBranchConditional" or k in r.joined or k + 1 in r.joined \
            or k in r.merges:
        return None
    cond, a, b = (x.value for x in term.operands[:3])
    if cond not in r.scalars or (a == block.label) == (b == block.label) \
            or any(_lock_step_or_write(r, i) for i in block.instructions):
        return None
    held = _held(r, block, segs)  # each sub-group to the loop's end, its phis in registers
    width = HELD_WIDTH if held else "SG_CH"
    back = "1u" if a == block.label else "2u"
    again = r.leaf(cond) if a == block.label else f"!{r.leaf(cond)}"
    carried = [(n, C.scalar_ctype(x)) for i in block.instructions
               if i.opname == "OpPhi" and i.result_id in r.scalars
               for x, n in zip(C.leaf_types(r.type_of(i.result_id)), r.leaves(i.result_id),
                               strict=True)]
    # the carried scalars at the first, second and last iteration (sg_v, sg_s, sg_z)
    save = " ".join(f"const {ct} sg_v{n} = {n}; {ct} sg_s{n} = {n}, sg_z{n} = {n};"
                    for n, ct in carried)
    restore = " ".join(f"{n} = sg_v{n};" for n, _ in carried)
    prologue = scalars.prologue(r, k, block, index)
    copies = scalars.copies(r, block, index)
    steps, mine = ("sg_steps + sg_ps", "sg_ps") if r.sub_group else ("sg_steps", "sg_steps")
    budget = f"        if (sgc->checks && {steps} + sg_it > sgc->steps) {{ sg_lp = false; break; }}"
    count = ["      for (;;) {", "        " + " ".join(f"sg_z{n} = {n};" for n, _ in carried),
             budget, *prologue, "        sg_it++;", f"        if (!({again})) break;", *copies,
             "        if (sg_it == 1) { " + " ".join(f"sg_s{n} = {n};" for n, _ in carried) + " }",
             "      }"]

    def around(tests: list[tuple[int, str]], defs: dict[int, Instruction], ends: int
               ) -> lanes.Wrap:
        """The pre-pass's tests of a row at the first, second and last iteration where its
        addresses are progressions over the iterations (``iterations.py``), else at each."""
        it = iterations.Iterations(r, block, defs)
        named = {int(v) for _, t in tests for v in lanes.VALUE.findall(t)} - {p for p, _ in tests}
        records = None if any(it.varies(v) for v in named) else it.records([p for p, _ in tests])
        if records is None:  # every iteration the first pass counted
            return ([f"      {restore}", "      for (u64 sg_i = 1;; sg_i++) {", *prologue],
                    [[] for _ in range(ends)],
                    ["        if (sg_pre || sg_i == sg_it) break;", *copies, "      }"])
        w = [f"sg_w{n}" for n in range(len(records) * ends)]
        at = " else ".join(f"if (sg_q == {q}) {{ " + " ".join(f"{n} = sg_{x}{n};" for n, _ in carried)
                           + " }" for q, x in enumerate("vs")) + " else { " + \
            " ".join(f"{n} = sg_z{n};" for n, _ in carried) + " }"
        return ([f"      {{ {' '.join(f'__int128 {x}[3];' for x in w)}",
                 "      for (u32 sg_q = 0; sg_q < 3; sg_q++) {", f"        {at}", *prologue],
                [[f"      {w[e * len(records) + j]}[sg_q] = {x};" for j, x in enumerate(records)]
                 for e in range(ends)],
                ["      }", *(f"      sg_pre |= {x}[2] != {x}[0] + (__int128)(sg_it - 1) * "
                             f"({x}[1] - {x}[0]);" for x in w), "      }"])
    frame = {v: r.leaves(v) for v in held}
    saved = {v: r.storage[v] for v in held}
    r.storage.update(dict.fromkeys(held, "own"))
    try:
        parts = fused.sub_group_code(r, k, block, segs, index, width, around,
                                     None if held else chunk(r.S))
        own = {v: r.leaves(v) for v in held}
    finally:
        r.storage.update(saved)
    if parts is None:
        return None
    pres, decls, body = parts
    for v in held:
        for x, ct in zip(own[v], (C.scalar_ctype(t) for t in C.leaf_types(r.type_of(v))),
                         strict=True):
            decls.append(f"        alignas(64) {ct} {x.split('[')[0]}[{width}];")
    load = [f"{o} = {f};" for v in held for o, f in zip(own[v], frame[v], strict=True)]
    store = [f"{f} = {o};" for v in held for o, f in zip(own[v], frame[v], strict=True)]
    # the iterations and the budget; then the accesses, row by row (``around``)
    tests = ["      if (sg_lp) { u32 sg_pre = 0;", *pres, "        if (sg_pre) sg_lp = false; }"] \
        if pres else []
    each = f"{NOUNROLL} for (u32 sg_j = 0; sg_j < {width}; sg_j++) {{ const u32 l = sg_c + sg_j; "
    return [
        f"    bool sg_lp = sg_all && sg_row % {width} == 0; u64 sg_it = 0;",
        f"    if (sg_lp) {{ {save}", *count, *tests,
        f"      {restore}",
        "      if (sg_lp) {",
        '      _Pragma("clang loop vectorize(disable)")',
        f"      for (u32 sg_c = sg_first; sg_c < sg_end; sg_c += {width}) {{",
        f"        {restore}",
        "        const bool sg_all = true;", *fused.AT_SUB_GROUP, *decls,
        *([f"        {each}{' '.join(load)} }}"] if held else []),
        "        for (;;) { sg_took = 0;",
        # the body once for each way the scalar branch goes: clang, which kept one body and
        # made both edges' stores masked stores, then knows the way in each
        *prologue, f"        if ({r.leaf(cond)}) {{", *body, "        } else {", *body, "        }",
        *copies,
        f"        if (sg_took != {back}) break; }}",
        *([f"        {each}{' '.join(store)} }}"] if held else []),
        "      }",
        f"      {mine} += sg_it - 1; sg_looped++; }}",
        "    }"]


def _held(r, block: Block, segs: list[Segment]) -> list[int]:
    """The phis of a loop block that runs in one pass (``fused.one_pass``) and carries at
    least ``HELD`` lane values: each sub-group then runs every iteration before the next
    sub-group starts, its phis in arrays of one sub-group that clang keeps in registers
    (independent values enough to overlap one iteration's arithmetic with the next's; a
    loop carrying one value ran 3.3 times slower so); else none."""
    if not fused.one_pass(r, block, segs):
        return []
    phis = [i.result_id for i in block.instructions if i.opname == "OpPhi"
            and r.storage.get(i.result_id) in ("lane", "sg")]
    leaves = sum(len(C.leaf_types(r.type_of(v))) for v in phis)
    return phis if leaves >= HELD else []


HELD = 4
HELD_WIDTH = "SG_SIZE"


def chunk(sub_group_size: int) -> int:
    """The lanes a chunk runs together (``SG_CH``): whole sub-groups, ``CHUNK`` lanes where
    they fit, so that each iteration has independent vector operations to overlap (one
    sub-group of 16 floats is one vector, and an iteration waiting on the last made the
    100-iteration loop 3.3 times slower than running it step by step), each lane loop one
    vector step of them (``fused.one_step``), which clang keeps in registers through the
    iterations."""
    return max(sub_group_size, CHUNK)


# 64 lanes: 8 registers of 8 floats (AVX2), 4 of 16 (AVX-512). The 100-iteration loop, two
# threads, alternated: 128 lanes a lane loop of 16 vector steps through arrays in memory
# 32–46 ms; 64 lanes in one step 22.7–23.1; 64 in 8 steps and 128 in one (spilled) as
# before; 32 in one step 39
CHUNK = 64


def _lock_step_or_write(r, inst: Instruction) -> bool:
    return regions.lock_step(r, inst) or inst.opname in _WRITES or memory(r, inst)[1]
