"""The work-group scheduler's step: which block runs next and for which lanes
(docs/native.md, "The code it generates").

The lowest block some lane waits at runs next, for the lanes waiting there. It is known
without a scan of the lanes' counters when the step before left every lane at one block
(``sg_next``), and when the step before ran every lane through a conditional branch whose
two edges both were taken (``sg_kn``): every lane then waits at one of the two targets,
so the lower target runs next, for the lanes that took its edge (counted by the branch's
lane loops: ``sg_lanes_from`` finds them from the first as one run where they are one, as
the first ``s`` lanes of ``if (l < s)``, without a scan where the branch knew where they
start, ``sg_nat``: prefix.py; ``sg_lanes_at`` otherwise), while every other
lane waits at the higher one (``sg_rest``); once the lower target's lanes all leave it by
one edge to ``sg_rest``, every lane waits there.
"""

from __future__ import annotations

from ...spirv import Instruction

# The step's block, before the region phases: ``sg_kp`` when it is the lower target of a
# branch every lane took in the step before, every other lane waiting at ``sg_rest``.
HEAD = ["    u32 sg_next = 0;  // the block every lane waits at, when known without a scan",
        "    bool sg_kn = false; u32 sg_nrest = 0, sg_ncnt = 0, sg_nat = SG_EXIT;",
        "    for (;;) {",
        "      const bool sg_kp = sg_kn; const u32 sg_rest = sg_nrest; sg_kn = false;",
        "      const u32 sg_at = sg_nat; sg_nat = SG_EXIT;",
        "      u32 sg_b = sg_next, sg_hi = sg_kp ? sg_rest : sg_next;",
        "      if (sg_next == SG_SCAN) { sg_b = SG_EXIT; sg_hi = 0;",
        "        for (u32 l = 0; l < sg_vol; l++) { u32 p = sg_pc[l]; sg_b = p < sg_b ? p : sg_b; "
        "sg_hi = p > sg_hi ? p : sg_hi; } }",
        "      sg_next = SG_SCAN;",
        "      if (sg_b == SG_EXIT) break;"]

# The block's lanes, found with its number ``sg_b`` before it runs: the lowest and one past
# the highest lane waiting at it (``sg_first``, ``sg_end``) and whether every lane between
# does (``sg_run``: then the lane loops run over that range unmasked, with a pre-pass).
RUN = ["      u32 sg_first = 0, sg_end = sg_vol;",
       "      const bool sg_run = sg_all || (sg_kp && sg_lanes_from(sg_pc, sg_vol, sg_b, sg_ncnt, "
       "sg_at, &sg_first, &sg_end)) || sg_lanes_at(sg_pc, sg_vol, sg_b, &sg_first, &sg_end);"]

# The lanes of a conditional branch taking the edge to its lower target, counted in its
# lane loops (``count``) on the work-group path: ``sg_lanes_from`` then finds them as one
# run without a pass over every lane.
COUNT = ", sg_tn = 0"


def counted(term: Instruction, index: dict[int, int]) -> bool:
    """Whether the block ends in a conditional branch with two different targets."""
    if term.opname != "OpBranchConditional":
        return False
    a, b = (index[x.value] for x in term.operands[1:3])
    return a != b


def count(cond: str, term: Instruction, index: dict[int, int]) -> str:
    """In the lane loop: lane ``l`` counted when it takes the edge to the lower target."""
    a, b = (index[x.value] for x in term.operands[1:3])
    return f"sg_tn += {cond if a < b else '!' + cond};"

def next_block(term: Instruction, index: dict[int, int], work_group: bool = True,
               counts: bool = False) -> list[str]:
    """After the block ran: the block every lane waits at next, when the step's lanes took
    one edge and either they were every lane (``sg_all``) or the others all wait at that
    edge's target (``sg_kp``, ``sg_rest``); the lower target, the others waiting at the
    higher one, when a step of every lane took both edges of a branch (with the count of
    the lower target's lanes when ``counts``, else 0: unknown). ``work_group``: False for a
    region's blocks (regions.py), whose bundle scheduler knows only ``sg_next``."""
    def every(x: str) -> str:
        return f"(sg_all || (sg_kp && sg_rest == {x}))" if work_group else "sg_all"

    o = term.opname
    if o in ("OpReturn", "OpReturnValue"):
        return ["      if (sg_all) sg_next = SG_EXIT;"]
    if o == "OpBranch":
        t = f"{index[term.operands[0].value]}u"
        return [f"      if ({every(t)}) sg_next = {t};"]
    if o == "OpBranchConditional":
        a, b = (f"{index[x.value]}u" for x in term.operands[1:3])
        out = [f"      if (sg_took == 1u && {every(a)}) sg_next = {a};",
               f"      if (sg_took == 2u && {every(b)}) sg_next = {b};"]
        lo, hi = sorted(index[x.value] for x in term.operands[1:3])
        if work_group and lo != hi:
            out.append(f"      if (sg_all && sg_took == 3u) {{ sg_next = {lo}u; sg_kn = true; "
                       f"sg_nrest = {hi}u; sg_ncnt = {'sg_tn' if counts else '0'}; }}")
        return out
    return []
