"""Blocks of straight code run sub-group by sub-group (docs/native.md, "Sub-group by
sub-group").

A block with a sub-group collective and no instruction that needs the work-group's lock-step
(``regions.lock_step``: work-group barriers and collectives, atomics) gets a second rendering:
all its segments for one sub-group's lanes, then for the next sub-group. It runs when every
lane of the work-group runs the block (``sg_all``) and the rows hold whole sub-groups
(``sg_row % SG_SIZE == 0``: every sub-group is full and lies in one row), so each lane loop
is ``SG_SIZE`` lanes, a constant, and a value defined in the block and used in no other
block is an array of one sub-group (``u32 r24[SG_SIZE]``, indexed ``l - sg_c``) that clang
keeps in registers. Otherwise the block runs segment by segment over the work-group, as
before.

Exact by the argument of "Sub-group regions": each sub-group still runs the block's
instructions in order in lock-step over its own lanes, so every sub-group collective sees
the lanes and values it sees on the NumPy engine; what changes is only the order between
different sub-groups' memory accesses, which a kernel can observe only through a data race
or an atomic (the block holds none of the latter).

With checks on, every access of the block's lane segments through a pointer of known object
is tested before the block runs, by the segments' pre-passes over all the work-group's
lanes (``lanes.prepass``), which needs each address computed from the ids, the arguments and
values of its own segment (not from what an earlier segment of the block computed): a
block where one is not is not rendered twice. When a test fails, the block runs segment by
segment with its checked loops, which note the faults as before. Block reads and writes test
each sub-group's ends as on the work-group path; accesses through pointers of unknown object
keep their test at each lane (``sg_ok``), which records a fault itself.
"""

from __future__ import annotations

from ...spirv import Block, Instruction
from ..clower import ctypes_ as C
from ..clower.ops import constant_int
from . import lanes, regions
from .collectives import SUBGROUP, at, render_collective
from .segmentation import Segment


def render(r, k: int, block: Block, segs: list[Segment], index: dict[int, int]
           ) -> list[str] | None:
    """The C running block number ``k`` sub-group by sub-group when it may (setting
    ``sg_fuse``), or None where the block does not qualify (the module docstring)."""
    if k in r.joined or k + 1 in r.joined \
            or block.label in block.terminator.ids() \
            or not (any(s.kind == "collective" for s in segs) or _sub_group_id(r, block, segs)) \
            or any(regions.lock_step(r, i) for i in block.instructions):
        return None
    parts = sub_group_code(r, k, block, segs, index)
    if parts is None:
        return None
    pres, decls, body = parts
    test = ["    if (sg_fuse) { u32 sg_pre = 0;", *pres, "      sg_fuse = !sg_pre; }"] \
        if pres else []
    return ["    bool sg_fuse = sg_all && sg_row % SG_SIZE == 0;", *test,
            "    if (sg_fuse) {",
            '      _Pragma("clang loop vectorize(disable)")',
            # a sub-group region's bundle, else the work-group (or those run together)
            "      for (u32 sg_c = sg_first; sg_c < sg_end; sg_c += SG_SIZE) {" if r.sub_group else
            "      for (u32 sg_c = 0; sg_c < sg_vol; sg_c += SG_SIZE) {",
            # every lane runs the block: all sub-groups are full, each in one row
            "        const bool sg_all = true;", *AT_SUB_GROUP, *decls, *body, "      }", "    }"]


def _sub_group_id(r, block: Block, segs: list[Segment]) -> bool:
    """Whether ``block``'s lane segments read the sub-group local id, themselves or in a
    value they compute again (run sub-group by sub-group, its lane loops see it run 0 … S-1:
    ``builtin_vars.values``)."""
    return any(i.opname == "OpLoad" and r.builtins.get(i.operands[0].value)
               == "SubgroupLocalInvocationId"
               for seg in segs if seg.kind == "lanes"
               for i in lanes.recomputed(r, seg, block) + seg.insts)


def sub_group_code(r, k: int, block: Block, segs: list[Segment], index: dict[int, int],
                   width: str = "SG_SIZE", around: lanes.Around | None = None,
                   step: int | None = None) -> tuple[list[str], list[str], list[str]] | None:
    """Block ``k`` for the ``width`` lanes (a C constant: whole sub-groups of one row) from
    lane ``sg_c``: (the pre-pass testing every access of its lane segments for the lanes
    ``sg_first`` to ``sg_end``, the declarations of the chunk's own arrays, the block's C),
    or None where an address needs a value of another segment or the object of a pointer is
    unknown. ``around``: C around the pre-pass's tests of each row (``lanes.prepass``).
    ``step``: the ``width`` lanes' number, where each lane loop is to be one vector step of
    them (``one_step``)."""
    pres: list[str] = []
    r.affine_tested = {}
    # a block reading the sub-group local id is tested sub-group by sub-group, where the
    # addresses computed from it are affine (lanes.prepass)
    by_sub_group = _sub_group_id(r, block, segs) and width == "SG_SIZE"
    for seg in segs:
        if seg.kind != "lanes":
            continue
        insts = lanes.recomputed(r, seg, block) + seg.insts
        r.noted, r.slow, r.guarded_ptrs = False, False, []
        lanes.body(r, insts, block, index, "noted")
        if not r.noted:
            continue
        addresses = None if r.slow else lanes.address_slice(r, insts, list(r.guarded_ptrs))
        if addresses is None or not _own(r, insts, addresses):
            return None
        r.fused = width if by_sub_group else ""
        try:
            pres += lanes.prepass(r, insts, addresses, block, index, {},
                                  by_sub_group=by_sub_group, around=around)
        finally:
            r.fused = ""
    kept = _block_values(r, k, block)
    saved = {v: r.storage[v] for v in kept}
    one = one_pass(r, block, segs)
    r.storage.update(dict.fromkeys(kept, "local" if one else "sub"))
    r.fused = width  # collectives run for the sub-groups of [sg_c, sg_c + width)
    body: list[str] = []
    try:
        if one:
            return pres, [], _one_pass_body(r, block, segs, index, width)
        for seg in segs:
            if seg.kind == "barrier":  # of a sub-group: its lanes run in lock-step
                continue
            if seg.kind == "collective":
                r.lines = []
                render_collective(r, seg.insts[0], k)
                body += [x.replace("SG_SCALAR for (u32 l = g0; l < g1; l++)", "SG_SCALAR " + _CONST)
                         .replace("for (u32 l = g0; l < g1; l++)", _EACH) for x in r.lines]
                continue
            insts = lanes.recomputed(r, seg, block) + seg.insts
            starts = lanes.starts(r, insts, block, index, ("sg_xo", "sg_c"), "sg_j")
            try:
                head = _LOOP.replace("SG_SIZE", width)
                body += [*starts, head if step is None else head.replace(NOUNROLL, one_step(step)),
                         *lanes.body(r, insts, block, index, "off"), "    } }",
                         *(["    }"] if starts else [])]
            finally:
                r.fixed = {}
        decls = [f"        alignas(64) {ct} {n}[{width}];" for ct, n in _arrays(r, kept)]
    finally:
        r.fused = ""
        r.storage.update(saved)
    return pres, decls, body


def one_pass(r, block: Block, segs: list[Segment]) -> bool:
    """Whether the block's segments may run as one lane loop per sub-group (``_one_pass_body``):
    it writes no memory another lane may see, and each collective is a broadcast of one lane
    (an Intel shuffle or a sub-group broadcast whose index is the same for the whole
    work-group) of a value the block does not compute (its own phis it may: their values
    are set before it runs), so the source lane's value may be read before any lane of the
    sub-group runs the block; the lanes' writes of phis for the next block come after."""
    if any(s.writes for s in segs) or not any(s.kind == "collective" for s in segs):
        return False
    defined = {i.result_id for i in block.instructions if i.opname != "OpPhi"}
    for seg in segs:
        if seg.kind != "collective":
            continue
        source = _broadcast_source(r, seg.insts[0])
        if source is None or source in defined:
            return False
    return True


def _broadcast_source(r, inst: Instruction) -> int | None:
    """The value a one-lane broadcast reads (its index a work-group scalar or a constant),
    else None."""
    same = inst.operands[-1].value in r.scalars or inst.operands[-1].value in r.m.constants
    if inst.opname == "OpSubgroupShuffleINTEL" and same:
        return inst.operands[0].value
    if inst.opname == "OpGroupBroadcast" and same \
            and constant_int(r, inst.operands[0].value) == SUBGROUP:
        return inst.operands[1].value
    return None


def _one_pass_body(r, block: Block, segs: list[Segment], index: dict[int, int], width: str
                   ) -> list[str]:
    """The block's lane segments as one lane loop per sub-group of the chunk, each broadcast
    read once per sub-group before it (``sg_h<id>``, a scalar: one load and a vector
    broadcast) and its result a C local. Exact: no lane writes memory another may see, and
    the broadcast sources are complete before the block (``one_pass``)."""
    S = r.S
    lane_insts = [i for s in segs if s.kind == "lanes" for i in s.insts]
    remat = lanes.recomputed(r, Segment("lanes", lane_insts), block)
    starts = lanes.starts(r, remat + lane_insts, block, index, ("sg_xo", "sg_c"), "sg_j")
    sinking = r.sinking
    r.sinking = sinking | _sinkable(r, block, lane_insts)
    try:
        hoisted, pieces = _one_pass_pieces(r, block, segs, index, remat)
    finally:
        r.fixed, r.sinking = {}, sinking
    return [*starts, f"    for (u32 g0 = sg_c; g0 < sg_c + {width}; g0 += {S}u) {{", *hoisted,
            f"    {one_step(S)} for (u32 sg_q = 0; sg_q < {S}u; sg_q++) {{ "
            "const u32 sg_j = g0 - sg_c + sg_q, sg_x = sg_xo + sg_j, l = sg_c + sg_j;",
            *pieces, "    } }", *(["    }"] if starts else [])]


def _sinkable(r, block: Block, insts: list[Instruction]) -> set[int]:
    """The lane arrays ``insts`` define that may be C locals of the one lane loop, stored on
    the edges whose target reads them (``segmentation.sink``'s rule, whose "last segment"
    the one loop is here): those of a block that branches to itself, read by no collective."""
    if block.label not in block.terminator.ids():
        return set()
    across = {i for segs in r.segments for seg in segs if seg.kind == "collective"
              for inst in seg.insts for i in inst.ids()}
    return {i.result_id for i in insts if i.result_id is not None and i.result_id not in across
            and i.opname not in ("OpPhi", "OpVariable") and r.storage.get(i.result_id) in ("lane", "sg")}


def _one_pass_pieces(r, block: Block, segs: list[Segment], index: dict[int, int],
                     remat: list[Instruction]) -> tuple[list[str], list[str]]:
    """(each sub-group's broadcasts, read before its lane loop; the lane loop's body)."""
    S = r.S
    hoisted: list[str] = []
    pieces = lanes.body(r, remat, block, index, "off") if remat else []
    for seg in segs:
        if seg.kind == "barrier":  # of a sub-group, which writes nothing here
            continue
        if seg.kind == "lanes":
            pieces += lanes.body(r, seg.insts, block, index, "off")
            continue
        inst = seg.insts[0]
        source = _broadcast_source(r, inst)
        index_ = r.leaf(inst.operands[-1].value)
        picked = at(r, source, "src_")
        hoisted.append(f"      {{ const u64 i_ = (u32){index_}; const bool oor_ = i_ >= {S}u; "
                       "const u32 src_ = g0 + (oor_ ? 0u : (u32)i_);")
        for j, (t, out) in enumerate(zip(C.leaf_types(r.rtype(inst)), r.leaves(inst.result_id),
                                         strict=True)):
            ct = C.scalar_ctype(t)
            hoisted[:0] = [f"      {ct} sg_h{inst.result_id}_{j};"]
            hoisted.append(f"        sg_h{inst.result_id}_{j} = oor_ ? ({ct})0 : {picked[j]};")
            pieces.append(f"      const {ct} {out} = sg_h{inst.result_id}_{j};")
        hoisted.append("      }")
    return hoisted, pieces


# The sub-group's row and its first lane's place in it, for the ids (lanes.loop's names)
AT_SUB_GROUP = ["        const u32 sg_l0 = sg_c / sg_row * sg_row, sg_xo = sg_c - sg_l0;",
                "        const u32 sg_y = sg_lid1[sg_l0], sg_z = sg_lid2[sg_l0], "
                "sg_wi = SG_WI(sg_wof[sg_l0]);"]
NOUNROLL = '_Pragma("clang loop unroll(disable)")'  # unrolled, clang left them scalar


def one_step(S: int) -> str:
    """``NOUNROLL`` for a loop over one sub-group's ``S`` lanes that must be one vector step
    whatever the vector registers' width: a one-pass loop held in registers (``loops.HELD``)
    keeps its accumulators in registers only then. With AVX2 (8 floats a register) the
    16 lanes of the shuffle GEMM were two steps, and its four accumulators went to memory
    and back at every iteration: 44.9–46.0 → 36.8–38.7 ms (768³, two threads)."""
    return f'_Pragma("clang loop vectorize_width({S}) unroll(disable)")'
# A lane loop over the sub-group's lanes (closed by "} }" as lanes.loop's) and a
# collective's loop over them: SG_SIZE iterations, a constant, so each is one vector step
_LOOP = ("    { " + NOUNROLL + " for (u32 sg_j = 0; sg_j < SG_SIZE; sg_j++) { "
         "const u32 sg_x = sg_xo + sg_j, l = sg_c + sg_j;")
_CONST = "for (u32 sg_j = 0, l = g0; sg_j < SG_SIZE; sg_j++, l++)"
_EACH = f"{NOUNROLL} {_CONST}"  # (the khr collectives' SG_SCALAR loops are kept whole)


def _own(r, insts: list[Instruction], addresses: set[int]) -> bool:
    """Whether the addresses (``addresses``, computed by ``insts``) read no lane array: they
    can be computed, and tested, before the block runs."""
    defined = {i.result_id for i in insts}
    return not any(r.storage.get(v) in ("lane", "sg", "own") and v not in defined
                   for i in insts if i.result_id in addresses for v in i.ids())


def _block_values(r, k: int, block: Block) -> list[int]:
    """The lane arrays (a bundle's too) defined in block ``k`` and used in no other block
    (not phis: their predecessors write them)."""
    out = []
    for inst in block.instructions:
        vid = inst.result_id
        if vid is None or inst.opname == "OpPhi" or r.storage.get(vid) not in ("lane", "sg"):
            continue
        if all(b == k for b, _ in r.uses.get(vid, ())):
            out.append(vid)
    return out


def _arrays(r, values: list[int]) -> list[tuple[str, str]]:
    """(C type, C name) of each leaf of ``values``."""
    out = []
    for vid in values:
        lts = C.leaf_types(r.type_of(vid))
        names = [f"r{vid}"] if len(lts) == 1 else [f"r{vid}_{k}" for k in range(len(lts))]
        out += [(C.scalar_ctype(x), n) for x, n in zip(lts, names, strict=True)]
    return out
