"""Consecutive lane segments of one block run as one loop behind a run-time test that their
stores meet no other access (docs/native.md, "The code it generates").

The segment rule (``segmentation.split``) ends a segment where a lane's store could reach
memory another lane's access sees before or after it would on the NumPy engine, which runs
a block instruction by instruction over all its lanes: the vector add loads ``a[i]`` and
``b[i]`` in one lane loop and stores ``c[i]`` in a second, the sum passing through a lane
array. Running the segments' instructions lane by lane in one loop gives the NumPy engine's
memory exactly when no store's bytes meet another access's bytes (``merge.py``'s argument:
each load then reads what memory held before the block, and each byte is written by at most
one store instruction, lane after lane in both orders); each lane's own values do not
depend on the order. So a run of two or more lane segments (no barrier or collective
between them) holds a *joined* copy in front of its segments' loops, for when

* every access other lanes may see is a plain load or store through a pointer whose address
  is affine in the row and computed without reading memory or lane arrays, and no value
  of the run is a work-group scalar (known when rendering: ``merge.candidate``);
* no store goes through the object of another access of the run (a load and a store of one
  buffer, such as ``a[i] += 1``, meet at every lane: the test would fail each time);
* the lanes running the block are one run and the pre-pass (``merge.test``) finds every
  access inside its object (checks on) and every store's range apart from every other
  access's (run time).

Otherwise the segments run one after the other as before. Values the run passes between its
segments and nothing else reads are C locals in the joined loop (``merge.loop``), which
streams its stores where it can (``streams.py``). A block whose last
segment runs with its merge block (``merge.py``) joins the segments before that one only.
"""

from __future__ import annotations

from ...spirv import Block
from . import lanes, merge, streams
from .segmentation import Segment


def render(r, segs: list[Segment], block: Block, k: int, index: dict[int, int],
           parts: list[list[str]]) -> list[list[str]]:
    """``parts`` (the C of each of ``segs``) with each run of consecutive lane segments that
    can be joined in one part: the joined loop, then the segments' own loops when it did not
    run."""
    if r.sub_group:
        return parts
    last = len(segs) - 1 if k in r.merges else len(segs)
    out: list[list[str]] = []
    j = 0
    while j < len(segs):
        e = j
        while e + 1 < last and segs[e].kind == "lanes" and segs[e + 1].kind == "lanes":
            e += 1
        joined = _joined(r, segs[j:e + 1], block, k, j, index) if e > j else None
        if joined is None:
            out.append(parts[j])
            j += 1
            continue
        out.append(["    { bool sg_jz = false;", *joined, "    if (!sg_jz) {",
                    *(x for p in parts[j:e + 1] for x in p), "    } }"])
        j = e + 1
    return out


def _joined(r, segs: list[Segment], block: Block, k: int, first: int,
            index: dict[int, int]) -> list[str] | None:
    """The joined loop of ``segs`` (block ``k``'s segments from number ``first``) and its
    pre-pass, or None where the module docstring's static conditions do not hold."""
    whole = Segment("lanes", [i for s in segs for i in s.insts])
    insts = lanes.recomputed(r, whole, block) + whole.insts
    if any(i.result_id in r.scalars for i in insts) or merge.candidate(r, insts) is None:
        return None
    sites = {(k, first + n) for n in range(len(segs))}
    inner = [i.result_id for i in insts if i.result_id is not None
             and r.storage.get(i.result_id) == "lane" and r.uses.get(i.result_id, set()) <= sites]
    saved = {v: r.storage[v] for v in inner}
    r.storage.update(dict.fromkeys(inner, "local"))  # passed within this loop: registers
    try:
        r.slow, r.guarded_ptrs, r.affine_tested = False, [], {}
        body = lanes.body(r, insts, block, index, "off")
        if r.slow:  # an access whose object is unknown: the segments' checked loops test it
            return None
        static = merge.candidate(r, insts, r.guarded_ptrs)  # private accesses' addresses too
        if static is None or _meet(r, static[0]):
            return None
        groups, addresses = static
        pre = lanes.prepass(r, insts, addresses, block, index, {}, [g for _, g in groups])
        plain = lanes.prepass(r, insts, addresses, block, index, {}) if r.bounds else []
        # stepped addresses only where the stores stream (the tiled matmul's loads of its
        # tiles, rows of 16 lanes, stepped from each row's first lane: 13.5 → 18.6 ms)
        first = merge.stepped(r, insts, block, index)
        streamed = streams.body(r, insts, block, index, first)
    finally:
        r.fixed = {}
        r.storage.update(saved)
    return [*merge.test(r, groups, pre, plain, "sg_jz"), "    sg_joined += sg_jz;",
            *merge.loop(body, "sg_jz", streamed=streamed)]


def _meet(r, groups: merge.Groups) -> bool:
    """Whether a store goes through the object of another group of accesses."""
    slots = [r.origins.of.get(g[0][0]) for _, g in groups]
    return any(wa and a != b and slots[a] is not None and slots[a] == slots[b]
               for a, (wa, _) in enumerate(groups) for b in range(len(groups)))

