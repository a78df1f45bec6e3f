"""A block's instructions in segments, and where each value lives (docs/native.md).

A segment runs as one loop over the active lanes. Segments end at barriers and
collectives and wherever running the segment lane by lane could order memory differently
from running it instruction by instruction: a segment either only reads memory other
lanes may see or makes one such write and reads nothing (private memory does not count).
A value used only in the segment defining it is a C local; a pure value cheap to compute
again is recomputed where used (``remat``); any other is a lane array in the frame.
``r`` is the renderer (``render.Renderer``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import UnsupportedError
from ...spirv import Block, Function, Instruction
from . import lanes, non_uniform
from .collectives import IMAGE_BLOCKS

IGNORED = ("OpLoopMerge", "OpSelectionMerge", "OpLine", "OpNoLine", "OpLifetimeStart",
           "OpLifetimeStop", "OpNop", "OpMemoryNamedBarrier", "OpMemoryBarrier", "OpPhi")
COLLECTIVE = {"OpGroupIAdd", "OpGroupFAdd", "OpGroupSMin", "OpGroupUMin", "OpGroupFMin",
              "OpGroupSMax", "OpGroupUMax", "OpGroupFMax", "OpGroupAll", "OpGroupAny",
              "OpGroupBroadcast", "OpSubgroupShuffleINTEL", "OpSubgroupShuffleDownINTEL",
              "OpSubgroupShuffleUpINTEL", "OpSubgroupShuffleXorINTEL",
              "OpSubgroupBlockReadINTEL", "OpSubgroupBlockWriteINTEL", "OpControlBarrier"}
COLLECTIVE |= set(non_uniform.COLLECTIVES)  # cl_khr_subgroup_* (non_uniform.py)
COLLECTIVE |= set(IMAGE_BLOCKS)  # sub-group image and media block IO (collectives.py)
WRITES = {"OpStore", "OpCopyMemory", "OpCopyMemorySized"}
EXT_WRITES = {"vstore_half", "vstore_halfn", "vstorea_halfn", "vstoren", "frexp", "modf",
              "sincos", "fract", "lgamma_r", "remquo"}
EXT_READS = {"vloadn", "vload_half", "vload_halfn", "vloada_halfn"}
OUTPUT_EXT = {"printf"}  # no memory a lane sees, but never computed twice or moved
IMAGE_READS = {"OpImageRead", "OpImageSampleExplicitLod"}  # texels other lanes may write
IMAGE_WRITES = {"OpImageWrite"}
# what a lane's value never is a pure function of (lanes.pure): memory, other lanes, output
IMPURE = COLLECTIVE | EXT_READS | EXT_WRITES | OUTPUT_EXT | IMAGE_READS


@dataclass
class Segment:
    """Instructions that run as one loop over the lanes, or one collective or barrier."""

    kind: str  # "lanes" (one fused loop), "collective" (one instruction), "barrier"
    insts: list[Instruction] = field(default_factory=list)
    writes: bool = False
    reads: bool = False


def memory(r, inst: Instruction) -> tuple[bool, bool]:
    """(reads, writes) memory other lanes may see."""
    o = inst.opname

    def shared(ptr: int) -> bool:
        return r.type_of(ptr).storage_class != "Function"

    if o == "OpLoad":
        p = inst.operands[0].value
        return p not in r.builtins and shared(p), False
    if o == "OpStore":  # (the value stored is no memory, even a pointer)
        return False, shared(inst.ids()[0])
    if o in WRITES:
        return False, any(shared(i) for i in inst.ids()[:2])
    if o.startswith("OpAtomic") or o in IMAGE_WRITES:
        return False, True
    if o in IMAGE_READS:
        return True, False
    if o == "OpExtInst":
        name = inst.ext_opname or ""
        ptrs = [i for i in inst.ids()[1:] if r.m.type_of(i) is not None
                and r.type_of(i).op == "Pointer"] if name in EXT_READS | EXT_WRITES else []
        if name in EXT_READS:
            return any(shared(p) for p in ptrs), False
        if name in EXT_WRITES:
            return False, any(shared(p) for p in ptrs)
    return False, False

def split(r, block: Block) -> list[Segment]:
    """``block``'s instructions (terminator last) as segments (the module docstring)."""
    segs = [Segment("lanes")]
    for inst in block.instructions[:-1]:
        o = inst.opname
        if o in IGNORED or (o == "OpVariable" and len(inst.operands) < 2):
            continue
        if o in COLLECTIVE:
            kind = "barrier" if o == "OpControlBarrier" else "collective"
            segs += [Segment(kind, [inst]), Segment("lanes")]
            continue
        if o not in r.ops and o not in ("OpLoad", "OpStore", "OpVariable"):
            raise UnsupportedError(f"native backend: {o}" + (
                f" ({inst.ext_opname})" if inst.ext_opname else ""))
        reads, writes = memory(r, inst)
        cur = segs[-1]
        if (reads and cur.writes) or (writes and (cur.writes or cur.reads)):
            cur = Segment("lanes")
            segs.append(cur)
        cur.insts.append(inst)
        cur.reads |= reads
        cur.writes |= writes
    if segs[-1].kind != "lanes":
        segs.append(Segment("lanes"))
    segs[-1].insts.append(block.terminator)
    return [s for s in segs if s.kind != "lanes" or s.insts]

def classify(r, f: Function, blocks: list[Block], segments: list[list[Segment]]) -> None:
    """Values used only in the segment defining them are C locals; the rest lane arrays."""
    where: dict[int, tuple[int, int]] = {}
    uses: dict[int, set[tuple[int, int]]] = {}
    for k, segs in enumerate(segments):
        for j, seg in enumerate(segs):
            for inst in seg.insts:
                if inst.result_id is not None and inst.result_type is not None \
                        and inst.opname != "OpVariable":
                    where[inst.result_id] = (k, j)
                    if seg.kind == "collective":
                        r.storage[inst.result_id] = "lane"
                for i in inst.ids():
                    uses.setdefault(i, set()).add((k, j))
    index = {b.label: k for k, b in enumerate(blocks)}
    for b in f.blocks:
        for inst in b.instructions:
            if inst.opname != "OpPhi":
                continue
            r.storage.setdefault(inst.result_id, "lane")  # or a work-group scalar
            for op in inst.operands:
                value, pred = op.value
                if pred in index:  # a joined block's edges are in its predecessor's loop
                    k = r.joined.get(index[pred], index[pred])
                    uses.setdefault(value, set()).add((k, len(segments[k]) - 1))
    pure = _pure(r, f)
    anywhere = lanes.pure(r, f, r.impure)  # without the scalars: the same in every block
    for vid, site in where.items():
        if vid in r.storage:
            continue
        used = uses.get(vid, set())
        if used <= {site}:
            r.storage[vid] = "local"
        elif vid in pure and lanes.cheap(pure, vid) and not any(
                segments[k][j].kind == "collective" for k, j in used) and (
                vid in anywhere or all(k == site[0] for k, _ in used)):
            r.storage[vid] = "remat"
        else:
            r.storage[vid] = "lane"
    r.uses = uses

def sink(r, blocks: list[Block], segments: list[list[Segment]]) -> dict[int, int]:
    """Values whose lane array is written on the edges that need them, not where they are
    computed: value → its block's number. Such a value is defined in the last segment (the
    terminator's) of a block that branches to itself (a loop of one block) and used in no
    other segment of it, so it is a C local there; the edge to block ``s`` stores it only
    when it is live on entry to ``s`` (``regions.live_in``): the back edge stores only what
    the next iteration reads, the exit what follows the loop. (Elsewhere a store made
    conditional on the edge measured slower than the plain store: the stencil's centre
    value.) No lane reads another lane's copy: an operand of any collective stays stored
    where computed (a shuffle may read an inactive lane's last value)."""
    across = {i for segs in segments for seg in segs if seg.kind == "collective"
              for inst in seg.insts for i in inst.ids()}
    out: dict[int, int] = {}
    for k, segs in enumerate(segments):
        if blocks[k].label not in blocks[k].terminator.ids():
            continue
        last = len(segs) - 1
        for inst in segs[last].insts:
            vid = inst.result_id
            if vid is None or vid in across or r.storage.get(vid) not in ("lane", "sg") \
                    or inst.opname in ("OpPhi", "OpVariable"):
                continue
            if all(b != k or j == last for b, j in r.uses.get(vid, ())):
                out[vid] = k
    return out


def _pure(r, f: Function) -> dict[int, Instruction]:
    r.impure = IMPURE
    # a block's work-group scalars keep their values through its lane loops (scalars.py:
    # computed before them, their phis copied after): a value computed from them is the
    # same in every segment of the block, computed again there (classify)
    r.pure = lanes.pure(r, f, r.impure, r.scalars)
    r.position = {i.result_id: n for n, i in enumerate(
        i for b in f.blocks for i in b.instructions) if i.result_id is not None}
    return r.pure
