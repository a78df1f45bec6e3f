"""A merge block run in the lane loop of the chain before it, behind a run-time test that its
stores meet no other access (docs/native.md, "The code it generates").

Block ``m = k + 2`` is a *merge* of the chain ``k``, ``k + 1`` (``k + 1`` joined to ``k``,
``chains.py``) when every predecessor of ``m`` is ``k`` or ``k + 1``, it is one lane segment
and its phis are used in ``m`` alone. As for a joined block, on the NumPy engine ``m`` then
runs right after the chain's step, once, for exactly the lanes that took an edge into it
(``chains.py``'s argument: no edge leads back to ``k`` or before it, ``k + 1`` is entered
from ``k`` alone, ``m`` from the two alone; the other targets of both come after ``m``).

What is new is memory: the chain's loop reads (``a[i]``, its neighbours) and ``m`` writes
(``b[i]``), so running ``m``'s instructions for a lane right after its chain reorders a
lane's store before another lane's loads. That gives the NumPy engine's memory exactly when
no store's bytes meet another access's bytes: each load then reads what memory held before
the step in either order, and each byte is written by at most one store instruction, lane
after lane in both orders. So ``case k`` holds a *fused* copy of its last segment with
``m``'s instructions, the phis of ``m`` C locals set on the edges: it runs when

* every access of the fused instructions other lanes may see is a plain load or store
  through a pointer whose address is affine in the row (``affine.py``) and computed without
  reading memory (static);
* the lanes running ``k`` are one run and a pre-pass over the run's rows bounds each
  access's bytes by its addresses at each row's two ends (exact when no extension wraps in
  the row, which it tests as ``lanes.py``'s pre-pass does; with checks on it tests every
  access too, so the fused loop has none), and every store's range is apart from every
  other access's range (run time).

Otherwise the chain's loop runs as before and ``m`` runs as its own block at the next step.
After the fused loop the step budget counts ``k + 1``'s and ``m``'s steps where some lane
ran them, and is tested there (a launch whose lanes all return in ``m`` has no next step).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ...spirv import Block, Function, Instruction
from ..clower import ctypes_ as C
from ..common import types as T
from ..common.block_order import successors
from . import affine, lanes, scalars, schedule, streams, uniform
from .segmentation import Segment, memory


def find(f: Function, blocks: list[Block], segments: list[list[Segment]],
         joined: dict[int, int], spans: list[tuple[int, int]]) -> dict[int, int]:
    """Chain head ``k`` → its merge block ``k + 2`` (the module docstring)."""
    succ = successors(f)
    preds: dict[int, set[int]] = {}
    for b in blocks:
        for s in succ[b.label]:
            preds.setdefault(s, set()).add(b.label)
    in_region = {k for lo, hi in spans for k in range(lo, hi + 1)}
    out: dict[int, int] = {}
    for tail, k in joined.items():
        m = k + 2
        if tail != k + 1 or m >= len(blocks) or m in in_region or m in joined \
                or not preds.get(blocks[m].label, set()) <= {blocks[k].label, blocks[tail].label} \
                or blocks[tail].terminator.opname not in ("OpBranch", "OpBranchConditional") \
                or len(segments[m]) != 1 or segments[m][0].kind != "lanes":
            continue
        out[k] = m
    return out


def _accesses(r, insts: list[Instruction]) -> list[tuple[int, int, bool]] | None:
    """(pointer, bytes, whether a store) of each access of ``insts`` other lanes may see, or
    None where one is not a plain load or store (atomics, copies, vector loads and stores)."""
    out = []
    for inst in insts:
        reads, writes = memory(r, inst)
        if not (reads or writes):
            continue
        if inst.opname not in ("OpLoad", "OpStore"):
            return None
        ptr = inst.operands[0].value
        out.append((ptr, T.size_of(r.type_of(ptr).pointee), inst.opname == "OpStore"))
    return out


def _groups(r, accesses: list[tuple[int, int, bool]]) -> list[tuple[bool, list[tuple[int, int]]]]:
    """The accesses whose ranges the pre-pass bounds together, each group (whether a store,
    its (pointer, bytes)): each store alone, the loads through pointers of one object
    (``origins.Origins``) together, any other load alone. A store apart from a group's range
    is apart from each of its loads."""
    out: list[tuple[bool, list[tuple[int, int]]]] = []
    loads: dict[int, list[tuple[int, int]]] = {}
    for ptr, n, store in accesses:
        slot = r.origins.of.get(ptr)
        if store or slot is None:
            out.append((store, [(ptr, n)]))
        elif slot in loads:
            loads[slot].append((ptr, n))
        else:
            loads[slot] = [(ptr, n)]
            out.append((False, loads[slot]))
    return out


def render(r, seg: Segment, block: Block, k: int, index: dict[int, int],
           apart: list[str]) -> tuple[list[str], bool]:
    """Block ``k``'s last segment ``seg`` (its C without the merge: ``apart``) with the fused
    copy in front where one can be built; whether it was."""
    fused = _fused(r, seg, block, k, index)
    if fused is None:
        return apart, False
    return [*fused, "    if (!sg_fz) {", *apart, "    }"], True


def _fused(r, seg: Segment, block: Block, k: int, index: dict[int, int]) -> list[str] | None:
    m = r.merges[k]
    tail = r.segments[m][0]
    whole = Segment("lanes", seg.insts + tail.insts)
    insts = lanes.recomputed(r, whole, block) + whole.insts
    static = candidate(r, insts)
    if static is None:
        return None
    groups, addresses = static
    phis = r._phis(r.blocks[m].label)
    if any(not r.uses.get(p.result_id, set()) <= {(m, 0)} for p in phis):
        return None  # a phi some later block reads keeps its lane array
    if any(i.result_id in r.scalars for i in [*phis, *tail.insts]) \
            or scalars.copies(r, r.blocks[m], index):
        return None  # m's work-group scalars and their copies come with m's case (scalars.py)
    sites = {(k, len(r.segments[k]) - 1), (m, 0)}
    inner = [i.result_id for i in insts if i.result_id is not None
             and r.storage.get(i.result_id) == "lane" and r.uses.get(i.result_id, set()) <= sites]
    locals_ = [p.result_id for p in phis] + inner
    saved = {v: r.storage[v] for v in locals_}
    r.storage.update(dict.fromkeys(locals_, "local"))  # this loop's own: registers
    r.merging = m
    try:
        r.slow, r.affine_tested = False, {}
        pre = lanes.prepass(r, insts, addresses, block, index, {}, [g for _, g in groups])
        plain = lanes.prepass(r, insts, addresses, block, index, {}) if r.bounds else []
        # the addresses the pre-pass tested at the rows' ends stepped from the row's first lane
        # (lanes.starts): the 5-point stencil 1024², one thread, 0.90 → 0.82 ms
        first, ahead, onward = starts(r, insts, block, index)
        body = lanes.body(r, insts, block, index, "off")
        decl = " ".join(f"{C.scalar_ctype(x)} {n};" for p in phis for x, n in zip(
            C.leaf_types(r.type_of(p.result_id)), r.leaves(p.result_id), strict=True))
        streamed = streams.body(r, insts, block, index, first)
        if r.slow:  # an access whose object is unknown: the chain's checked loop tests it
            return None
    finally:
        r.merging, r.fixed = None, {}
        r.storage.update(saved)
    # the flags bool, not u32: clang reduces a row's bool flags from one byte vector (the
    # 5-point stencil 3072², one thread: 8.3 → 8.1 ms)
    return ["    bool sg_fz = false, sg_e1 = false, sg_e2 = false, sg_lf = false; u32 sg_took3 = 0;",
            *test(r, groups, pre, plain, "sg_fz"), "    sg_merged += sg_fz;",
            *loop([body[0] + " " + decl, *body[1:]], "sg_fz", first, ahead, streamed and replace(
                streamed, body=[streamed.body[0] + " " + decl, *streamed.body[1:]]), onward)]


Groups = list[tuple[bool, list[tuple[int, int]]]]
# The least size of an object whose rows a fused loop prefetches (``starts``): the 5-point
# stencil, one thread, images of 4 MiB 7% slower with the prefetches, 9 MiB alike, 16 MiB 4%
# faster, 36 MiB 15% faster
PREFETCH = 8 << 20


def candidate(r, insts: list[Instruction], more: list[int] = ()) -> tuple[Groups, set[int]] | None:
    """What a fused loop of ``insts`` needs known when rendering: the groups of accesses whose
    ranges the pre-pass bounds (``_groups``) and the instructions computing the addresses
    (of the accesses and of the pointers ``more``); None where ``insts`` store nothing other
    lanes may see, or an access is not a plain load or store, or an address is computed from
    memory, from a lane array or not affine in the row."""
    accesses = _accesses(r, insts)
    if not accesses or not any(w for *_, w in accesses):
        return None
    addresses = lanes.address_slice(r, insts, [p for p, _, _ in accesses] + list(more))
    if addresses is None or uniform.candidates(r, insts, addresses):
        return None
    steps = affine.Steps(r, {i.result_id: i for i in insts if i.result_id in addresses})
    if any((s := steps.of(p)) is None or abs(s.k) >= affine.LIMIT for p, _, _ in accesses):
        return None
    return _groups(r, accesses), addresses


def test(r, groups: Groups, pre: list[str], plain: list[str], flag: str) -> list[str]:
    """C setting ``flag`` when the lanes are one run, every access passed the pre-pass and no
    store's range meets another group's: ``pre`` bounds the ranges (``lanes.prepass`` with
    ``groups``), ``plain`` (checks on) tests every access inside its object, which, where the
    stores' objects lie apart from the others', is all the test needs."""
    bounds = " ".join(f"u64 sg_fa{n} = ~0ULL, sg_fb{n} = 0;" for n in range(len(groups)))
    pairs = [(a, b) for a, (wa, _) in enumerate(groups) for b, (wb, _) in enumerate(groups)
             if a != b and wa and (not wb or a < b)]
    apart = " && ".join(["!sg_pre", *(f"(sg_fb{a} <= sg_fa{b} || sg_fb{b} <= sg_fa{a})"
                                      for a, b in pairs)])
    ranges = [f"      {bounds}", *pre, f"      {flag} = {apart};"]
    slots = [r.origins.of.get(g[0][0]) for _, g in groups]
    if plain and not pairs:  # one group of accesses: nothing to hold apart
        ranges = [*plain, f"      {flag} = !sg_pre;"]
    elif plain and all(None not in (slots[a], slots[b]) and slots[a] != slots[b] for a, b in pairs):
        # every access inside its object (the pre-pass with checks on) and the stores'
        # objects apart from the others': no store meets another access, no range needed
        objects = " && ".join(f"(sg_lo{x} + sg_sz{x} <= sg_lo{y} || sg_lo{y} + sg_sz{y} <= sg_lo{x})"
                              for x, y in ((slots[a], slots[b]) for a, b in pairs))
        ranges = [f"    if ({objects}) {{", *plain, f"      {flag} = !sg_pre;", "    } else {",
                  *ranges, "    }"]
    return ["    if (sg_run) { u32 sg_pre = 0;", *ranges, "    }"]


def loop(body: list[str], flag: str, first: list[str] = (), ahead: dict[int, str] | None = None,
         streamed: streams.Streamed | None = None, onward: list[str] = ()) -> list[str]:
    """The fused loop over the run when ``flag`` (``lanes.loop``), with a copy for a run of
    whole rows of ``SG_SIZE`` lanes whose trip count clang knows (one vector step for 16
    floats) and no row's ends to find; ``assume_safety``: the pre-pass found every store
    apart from every other access, so no lane's store meets another lane's access (clang
    would test that again in every row). ``first``: the addresses computed at each row's
    first lane (``starts``), in a scope; ``ahead``: the prefetches of the copy for whole rows
    (``starts``), by pointer. (Both copies together: the 5-point stencil 1024², one thread,
    0.87 → 0.78 ms; either alone, none.) ``streamed``: the streaming stores of ``body``, the
    body storing them in stages and its stepped addresses; the loop for rows of any length
    then runs in pieces of a row, the copy for whole rows a row at a time, and neither
    prefetches what it streams (``streams.py``: the prefetch for writing reads the line the
    non-temporal store then writes past the cache). A 2-D copy of 3072² floats in 16×16
    work-groups, rows of one line each, one thread: 10.4 → 5.3 ms streamed; the 5-point
    stencil 9.6 → 8.5–9.1 ms. ``onward``: the prefetches of the next piece (``starts``),
    at the head of each piece."""
    rows, ids, ends, _, each = lanes.loop(flag, "")
    pragma = '      _Pragma("clang loop vectorize(assume_safety) interleave_count(1)")'
    ahead = ahead or {}
    whole, general, stages, piece, put, row_put = body, body, [], [], [], []
    if streamed:
        stored = streamed.streams
        whole = general = streamed.body
        first = streamed.first
        ahead = {p: line for p, line in ahead.items() if p not in {s.ptr for s in stored}}
        stages = ["      const u32 sg_xp = 0, sg_xe = SG_SIZE;", *streams.stages(stored)]
        piece = [f"      for (u32 sg_xp = sg_xa; sg_xp < sg_xb; sg_xp += {streams.PIECE}) {{",
                 f"      const u32 sg_xe = sg_xb - sg_xp < {streams.PIECE} ? sg_xb : "
                 f"sg_xp + {streams.PIECE};", *onward, *streams.stages(stored)]
        each = "      for (u32 sg_x = sg_xp; sg_x < sg_xe; sg_x++) { const u32 l = sg_l0 + sg_x; "
        row_put = streams.puts(stored)
        put = ["      }", *row_put]
    scope = ["      }"] if first else []  # of the stepped addresses
    return [f"    if ({flag} && sg_row == SG_SIZE && sg_first % SG_SIZE == 0 && "
            "sg_end % SG_SIZE == 0) {",
            "      for (u32 sg_l0 = sg_first; sg_l0 < sg_end; sg_l0 += SG_SIZE) {", ids,
            "      const u32 sg_xa = 0, sg_xb = SG_SIZE;", *first, *ahead.values(), *stages,
            pragma, "      for (u32 sg_x = 0; sg_x < SG_SIZE; sg_x++) { const u32 l = sg_l0 + sg_x;",
            *whole, "      }", *row_put, *scope, "    } } else", rows, ids, ends, *first, *piece,
            pragma, each, *general, *put, "      }", *scope, "    }"]


def stepped(r, insts: list[Instruction], block: Block, index: dict[int, int]) -> list[str]:
    """``lanes.starts`` for a fused loop: exact where it runs, its pre-pass having passed."""
    return lanes.starts(r, insts, block, index, ("sg_xa", "sg_l0 + sg_xa"), "(sg_x - sg_xa)")


def starts(r, insts: list[Instruction], block: Block, index: dict[int, int]
           ) -> tuple[list[str], dict[int, str], list[str]]:
    """``stepped``, the prefetches of a run of whole rows, by pointer, and those of a row's
    next piece (``onward``). Of whole rows: of each address
    stepped along the row (one per pointer and constant offsets from it: ``a[i - 1]``,
    ``a[i]``, ``a[i + 1]`` one), the bytes the same row of the work-group after next will
    touch, where work-groups run in order along dimension 0 and the address follows the
    global id (a hint: a prefetch never faults), in objects of ``PREFETCH`` bytes or more. The 5-point stencil 3072², one
    thread: 8.2 → 7.0 ms; the lines of its rows entering the cache arrive before the loads
    that need them (the hardware's streams of 18 rows read and 16 written). Of the next
    piece of a longer row (``streams.PIECE`` lanes; loads only, of at most 16 bytes per
    lane): every line of it. The stencil run in rows of 1024 lanes (regions.rows), two
    threads: 7.6–7.8 → 5.6–5.8 ms; the vector add's joined loop (two rows read) gained
    nothing and has none."""
    first = stepped(r, insts, block, index)
    defs = {i.result_id: i for i in insts if i.result_id is not None}
    stores = {i.operands[0].value for i in insts if i.opname == "OpStore"}
    ahead: dict[int, tuple[int, int, int, int]] = {}  # root → (offset, pointer, step, slot)
    for p in r.fixed:
        slot = r.origins.of.get(p)
        if slot is None or r.origins.slots[slot][0].startswith("local"):
            continue  # an object of unknown size, or local memory (in cache)
        base, offset = affine.root(r, defs, p)
        if base not in ahead or offset > ahead[base][0]:
            ahead[base] = (offset, p, r.affine_tested[p], slot)
    whole = {p: f"      if (sg_sz{s} >= {PREFETCH}ULL) __builtin_prefetch((const char *)"
                f"((u64)sg_a{p} + (u64)({2 * k}LL * SG_SIZE)), {int(p in stores)}, 3);"
             for _, p, k, s in ahead.values()}
    P = streams.PIECE
    onward = [f"      if (sg_sz{s} >= {PREFETCH}ULL) for (s64 sg_k = 0; sg_k < {P * abs(k)}; "
              f"sg_k += 64) __builtin_prefetch(sg_a{p} + (s64)(sg_xp - sg_xa + {P}) * {k} + "
              f"{'-' if k < 0 else ''}sg_k, 0, 3);"
              for _, p, k, s in ahead.values() if p not in stores and 0 < abs(k) <= 16]
    return first, whole, onward


def terminator(r, inst: Instruction, block: Block, k: int, one: Callable[[str], None]) -> bool:
    """Renders ``inst`` when it ends a block of the chain being fused with its merge block
    (``one(took)`` renders it, noting its edges in ``took``); False for any other."""
    m = r.merging
    if m is None or inst is not block.terminator or k not in (m - 2, m - 1, m):
        return False
    if k == m - 2:  # the head: its lanes go on to the joined block, the merge or elsewhere
        r.emit("bool sg_go = false, sg_gm = false;")
        one("sg_took")
        r.emit("if (sg_go) {")
    elif k == m - 1:
        one("sg_took2")
        r.emit("}")
        r.emit("sg_e1 |= sg_go; sg_e2 |= sg_gm; sg_lf |= !sg_gm;")
        r.emit("if (sg_gm) {")
    else:
        if not _last(r, k - 2):
            one("sg_took3")
        r.emit("}")
    return True


def _last(r, k: int) -> bool:
    """Whether no counter is read after chain ``k``'s fused loop: ``k`` is the entry block
    (every lane of the work-group runs it, at once: it is the target of no branch), every
    edge of ``k`` and ``k + 1`` leads to ``k + 1`` or the merge block, and that returns. Then
    every lane returns in the loop and the work-group is done; the next starts at its entry
    block without reading the counters (render.py), so the loop does not write them."""
    m = r.merges[k]
    inside = {r.blocks[k + 1].label, r.blocks[m].label}
    return k == 0 and r.blocks[m].terminator.opname in ("OpReturn", "OpReturnValue") and all(
        t in inside for j in (k, k + 1) for t in r.blocks[j].terminator.ids()
        if t in r.labels)


def after(r, k: int, index: dict[int, int], apart: list[str]) -> list[str]:
    """After case ``k``: the steps of the fused blocks, the budget tested, and the block
    every lane waits at when all went through the merge (``schedule.next_block``); ``apart``
    after the chain's loop alone."""
    m = r.merges[k]
    nxt = [x.replace("sg_took", "sg_took3")
           for x in schedule.next_block(r.blocks[m].terminator, index, True)]
    return ["      if (sg_fz) { sg_steps += (sg_e1 != 0) + (sg_e2 != 0);",
            "        if (sgc->checks && sg_steps > sgc->steps) {",
            "          sg_fault(sgc->fault, sg_linear_gid(sg_g, 0), 0, 0, 0, 8); return 1; }",
            "        if (!sg_lf) {", *nxt, "        }",
            "      } else {", *apart, "      }"]
