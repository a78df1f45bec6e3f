"""Lanes' block counters left unwritten while every lane waits at one block (docs/native.md,
"Counters left unwritten").

Each lane's counter (``sg_pc[l]``) names the block it waits at; a block's lane loops write
it on the lane's edge. A step that runs every lane (``sg_all``) through a branch every lane
decides alike — unconditional, or on a work-group scalar, a constant or an argument — leaves
every lane at one block, which the scheduler knows without the counters (``sg_next``,
schedule.py). Such a block (*alike*) writes no counter then: it sets ``sg_lazy = 1``,
meaning "every counter is stale, every lane waits at ``sg_next``". While it holds, every
step runs every lane (``sg_all``) and reads no counter, so nothing can tell; it ends at a
step whose block writes every lane's counter itself (a *rewriting* block: a branch lanes may
decide differently, or a return), and before any other block runs, whose counters are then
written first (``head``): a block that may read them (a sub-group region's phase, a loop
on its own block, a block run in another's loop). The tree reduction's loop control
``s >>= 1; if (s > 0)`` wrote 256 counters per iteration; now none.

A branch on the local id (prefix.py) whose lower target is alike and holds no collective
(which reads counters where not every lane runs) writes no counter either when its lanes
split: ``sg_lazy = 2``, "the lanes ``sg_at`` … ``sg_at + sg_ncnt - 1`` wait at the step's
block (the lower target), every other lane at ``sg_rest``"; the next step runs exactly that
run (``sg_lanes_from``), and where its block's one target is ``sg_rest`` every lane waits
there after it (``sg_lazy = 1``). The reduction's ``if (l < s) tmp[l] += …`` then writes
no counter in any step.

A step of an alike block that is not every lane's (lanes returned, or wait elsewhere)
writes its lanes' counters after its lane loops, with the one target every lane took.
"""

from __future__ import annotations

from ...spirv import Block
from . import scalars

ALIKE, REWRITES = "alike", "rewrites"


def role(r, k: int, block: Block, index: dict[int, int], in_region: set[int]) -> str | None:
    """Block number ``k``'s part: ``ALIKE`` (writes no counter in a step of every lane),
    ``REWRITES`` (writes every lane's counter in a step of every lane) or None."""
    if k in in_region or k in r.joined or k + 1 in r.joined or k in r.merges:
        return None
    term = block.terminator
    o = term.opname
    if o in ("OpReturn", "OpReturnValue"):
        return REWRITES if k else None  # (the entry block's return writes no counter)
    if o not in ("OpBranch", "OpBranchConditional"):
        return None
    targets = [index[t] for t in _targets(block)]
    if k in targets or any(t in r.joined for t in targets):
        return None
    if len(set(targets)) == 1 or scalars.same(r, term.operands[0].value, r.scalars):
        return ALIKE
    return REWRITES


def roles(r, blocks: list[Block], index: dict[int, int], in_region: set[int]
          ) -> dict[int, str | None]:
    """Every block's part (``role``), where an alike block one of whose targets is neither
    alike nor rewriting counts as neither: its counters would be written at the next step
    anyway (``head``), only a step later (the tiled matmul's loop is entered from such a
    block: docs/native.md)."""
    out = {k: role(r, k, b, index, in_region) for k, b in enumerate(blocks)}
    changed = True
    while changed:
        changed = False
        for k, b in enumerate(blocks):
            if out[k] == ALIKE and any(out[index[t]] is None for t in _targets(b)):
                out[k], changed = None, True
    return out


def _targets(block: Block) -> list[int]:
    """The labels a block ending in ``OpBranch`` or ``OpBranchConditional`` goes to."""
    term = block.terminator
    if term.opname == "OpBranch":
        return [term.operands[0].value]
    return [x.value for x in term.operands[1:3]]


def splits_unwritten(r, k: int) -> bool:
    """Whether a branch on the local id may leave its lanes' counters unwritten with block
    ``k`` its lower target (``sg_lazy = 2``: the module docstring)."""
    return r.roles.get(k) == ALIKE and not any(s.kind == "collective" for s in r.segments[k])


def head(roles: dict[int, str | None]) -> list[str]:
    """The scheduler step's check, once it knows its block ``sg_b``: counters left stale
    are written unless the block is alike or rewriting (``sg_lazy == 1``) or alike (2)."""
    if ALIKE not in roles.values():
        return []
    keeps = " || ".join(f"sg_b == {k}u" for k, x in sorted(roles.items()) if x)
    alike = " || ".join(f"sg_b == {k}u" for k, x in sorted(roles.items()) if x == ALIKE)
    return [f"      if ((sg_lazy == 1 && !({keeps})) || (sg_lazy == 2 && !({alike}))) {{",
            *STALE, "      }"]


# the stale counters written, with ``sg_b`` the step's block (``sg_lazy`` 1 or 2, above)
STALE = ["        for (u32 l = 0; l < sg_vol; l++) sg_pc[l] = sg_lazy == 1 ? sg_b : sg_rest;",
         "        if (sg_lazy == 2) for (u32 l = sg_at; l < sg_at + sg_ncnt; l++) sg_pc[l] = sg_b;",
         "        sg_lazy = 0;"]


def after(r, k: int, block: Block, index: dict[int, int]) -> list[str]:
    """After alike block ``k``'s lane loops: its lanes' counters, unless the step ran every
    lane or left every lane at one block (the lanes that ran: ``sg_first`` to ``sg_end``,
    all of them where ``sg_run``, else those waiting at ``k``)."""
    term = block.terminator
    if term.opname == "OpBranch":
        target = f"{index[term.operands[0].value]}u"
    else:
        a, b = (index[x.value] for x in term.operands[1:3])
        target = f"{a}u" if a == b else f"({r.leaf(term.operands[0].value)} ? {a}u : {b}u)"
    return [f"      {{ const u32 sg_t = {target};",
            "      if (sg_all || (sg_lazy == 2 && sg_t == sg_rest)) sg_lazy = 1;",
            "      else {",
            "      if (sg_lazy == 2) {", *STALE, "      }",
            "      if (sg_run) for (u32 l = sg_first; l < sg_end; l++) sg_pc[l] = sg_t;",
            f"      else for (u32 l = sg_first; l < sg_end; l++) if (sg_pc[l] == {k}u) "
            "sg_pc[l] = sg_t; } }"]
