"""Blocks that run inside their predecessor's last lane loop (docs/native.md, "The code it
generates").

Block ``k + 1`` (in ``block_order``) joins block ``k`` when

* its only predecessor is ``k``, it has no phis and it is one lane segment (no barrier, no
  collective);
* no edge from block ``k`` or a later one leads to ``k`` or an earlier one: no lane comes
  back to ``k``, so ``k`` runs once for every lane that ever reaches it, and when it runs
  no lane waits at ``k + 1`` yet;
* neither is in a sub-group region, and the two segments together keep the segment rule
  (``segmentation.split``: reads only, or one write and no read).

Then on the NumPy engine, right after ``k`` runs, the lowest block some lane waits at is
``k + 1`` (the other targets of ``k`` come later in the order) and the lanes waiting there
are exactly those that took the edge ``k → k + 1``: ``k + 1``'s step runs them and no
others. Running ``k + 1``'s instructions for a lane right after its ``k`` in the same lane
loop therefore gives each lane the NumPy engine's sequence of blocks, and the segment rule
keeps memory in the order running the two steps one after the other gives. A value passed
from ``k`` to ``k + 1`` stays a C local, and the work-group makes one pass over its lanes
instead of two. The step budget counts ``k + 1``'s step when some lane took the edge.
"""

from __future__ import annotations

from collections.abc import Callable

from ...spirv import Block, Function, Instruction
from ..common.block_order import successors
from .segmentation import Segment


def fuse(f: Function, blocks: list[Block], segments: list[list[Segment]],
         spans: list[tuple[int, int]], alike: set[int]) -> dict[int, int]:
    """Join each block that qualifies (the module docstring) to its predecessor's last
    segment, in place; returns joined block number → its predecessor's. A block that only
    computes values every lane computes alike (``alike``, scalars.alike) after a branch every
    lane takes alike stays apart: its values, and the phis its edges feed, can then be
    work-group scalars (the first value of the reduction's ``int s = n / 2`` after the
    entry's ``n > 1``; a loop counter entering from the empty block after such a test)."""
    index = {b.label: k for k, b in enumerate(blocks)}
    succ = successors(f)
    preds: dict[int, set[int]] = {}
    for b in blocks:
        for s in succ[b.label]:
            preds.setdefault(s, set()).add(b.label)
    # lowest[k]: the lowest block an edge from block k or a later one leads to
    lowest = [len(blocks)] * (len(blocks) + 1)
    for k in range(len(blocks) - 1, -1, -1):
        targets = [index[s] for s in succ[blocks[k].label] if s in index]
        lowest[k] = min([lowest[k + 1], *targets])
    in_region = {k for lo, hi in spans for k in range(lo, hi + 1)}
    joined: dict[int, int] = {}
    for k in range(len(blocks) - 1):
        head, tail = blocks[k], blocks[k + 1]
        if k in joined or k in in_region or k + 1 in in_region or lowest[k] <= k \
                or preds.get(tail.label) != {head.label} \
                or head.terminator.opname not in ("OpBranch", "OpBranchConditional") \
                or any(i.opname == "OpPhi" for i in tail.instructions) \
                or len(segments[k + 1]) != 1 or segments[k + 1][0].kind != "lanes":
            continue
        if _uniform_step(head, tail, alike):
            continue
        last, seg = segments[k][-1], segments[k + 1][0]
        if (seg.reads and last.writes) or (seg.writes and (last.writes or last.reads)):
            continue
        segments[k][-1] = Segment("lanes", last.insts + seg.insts, last.writes or seg.writes,
                                  last.reads or seg.reads)
        segments[k + 1] = []
        joined[k + 1] = k
    return joined


def _uniform_step(head: Block, tail: Block, alike: set[int]) -> bool:
    """``head`` branches alike for every lane into ``tail``, which computes only values in
    ``alike`` (or nothing: a phi its edge feeds can then be a work-group scalar, scalars.py)."""
    t = head.terminator
    body = [i for i in tail.instructions if i is not tail.terminator]
    return (t.opname == "OpBranch" or t.operands[0].value in alike) \
        and all(i.result_id in alike for i in body)


def terminator(r, inst: Instruction, block: Block, k: int, one: Callable[[str], None]) -> bool:
    """Renders ``inst`` when it ends block ``k`` of a chain (``one(took)`` renders it, noting
    its edges in ``took``): the lanes that go on to the joined block run it next, in this
    loop. False for any other instruction."""
    if inst is not block.terminator or not (k + 1 in r.joined or k in r.joined):
        return False
    if k + 1 in r.joined:
        r.emit("bool sg_go = false;")
        one("sg_took")
        r.emit("if (sg_go) {")
    else:
        one("sg_took2")
        r.emit("}")
    return True


def going(head: Block, tail: Block) -> int:
    """The bits of ``sg_took`` (1: the first target, 2: the second) that mean a lane went
    from ``head`` to ``tail``; 3 for an unconditional branch (which notes nothing)."""
    t = head.terminator
    if t.opname == "OpBranch":
        return 3
    a, b = (x.value for x in t.operands[1:3])
    return (1 if a == tail.label else 0) | (2 if b == tail.label else 0)


def next_block(head: Block, tail: Block, head_next: list[str], tail_next: list[str]) -> list[str]:
    """After the joined loop: the tail's step counted when some lane ran it, and the block
    every lane waits at when known — the head's other target when no lane went to the tail,
    the tail's successor (its terminator notes in ``sg_took2``) when every lane did."""
    bits = going(head, tail)
    if bits == 3:
        return ["      sg_steps++;", *(x.replace("sg_took", "sg_took2") for x in tail_next)]
    return [f"      if (sg_took & {bits}u) sg_steps++;",
            f"      if ((sg_took & {bits}u) == 0) {{", *head_next, "      }",
            f"      if ((sg_took & {3 - bits}u) == 0) {{",
            *(x.replace("sg_took", "sg_took2") for x in tail_next), "      }"]
