"""Streaming stores: the bytes a fused loop (``merge.py``) stores along a row of a large
buffer gathered in a stage and written to memory a piece of the row at a time, the whole
64-byte lines with non-temporal stores (docs/native.md, "The code it generates").

A store the CPU makes to a line not in its cache first reads the line (a read for
ownership); a non-temporal store writes the whole line without reading it, past the caches.
For a vector add of 4M floats, a third of the memory traffic is the reads of the lines of
``c`` about to be overwritten. clang does not vectorise a loop with a non-temporal store of
one lane's value (a vector's non-temporal store needs the vector's alignment, which a lane's
address does not promise), so the loop stores each lane's value in a stage instead, and
``sg_put`` (``prelude.h``) copies the piece's bytes.

The same bytes reach memory: the fused loop runs only where its pre-pass found every store's
range apart from every other access's (no load of the loop reads what it stores), and each
lane stores a streamed pointer at most once per row, at an address ``size`` bytes after the
lane before's (step ``size``: ``affine.py``). A lane that does not reach the store (a branch
of the fused blocks) leaves its bytes: the stage's marks say which lanes stored, and a piece
with a gap is written lane by lane. The lines written past the caches become visible to
other CPUs only after a store fence, which the kernel's entry point runs before it returns
(``skeleton.py``), that is before the pool counts its chunk done. Within a launch, another
work-group reads what this one stored only through atomics or fences: a module with either
streams nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...spirv import Block, Instruction, Module
from ..clower import ctypes_ as C
from ..common import types as T
from . import lanes

# The least size of an object a fused loop streams its stores to (``merge.PREFETCH``'s
# measure): below it, lines stored stay in the cache for the next launch to read.
STREAM = 8 << 20
PIECE = 256  # lanes per piece of a row: each stage is at most 2 KiB on the stack


@dataclass(frozen=True)
class Stream:
    """A store through ``ptr`` (stepped ``size`` bytes a lane: ``r.fixed``) of a ``ctype``
    value to the object in slot ``slot``."""

    ptr: int
    ctype: str
    size: int
    slot: int


def allowed(m: Module) -> bool:
    """Whether a kernel of ``m`` may stream: no atomics or fences, through which another
    work-group could see a store before the entry point's fence (the module docstring)."""
    return not any(i.opname.startswith("OpAtomic") or i.opname == "OpMemoryBarrier"
                   for f in m.functions.values() for b in f.blocks for i in b.instructions)


def find(r, insts: list[Instruction], steps: dict[int, int]) -> list[Stream]:
    """The stores of ``insts`` that stream: through a pointer stepped by its scalar's size
    (``steps``: pointer → step, ``r.affine_tested``) into a known object other than local
    memory, one store per pointer."""
    if not r.streamable:
        return []
    out: dict[int, Stream] = {}
    seen: set[int] = set()
    for inst in insts:
        if inst.opname != "OpStore":
            continue
        ptr = inst.operands[0].value
        t = r.type_of(inst.operands[1].value)
        slot = r.origins.of.get(ptr)
        if ptr in seen or t.op not in ("Int", "Float") or steps.get(ptr) != T.size_of(t) \
                or slot is None or r.origins.slots[slot][0].startswith("local"):
            out.pop(ptr, None)
            seen.add(ptr)
            continue
        seen.add(ptr)
        out[ptr] = Stream(ptr, C.scalar_ctype(t), T.size_of(t), slot)
    return list(out.values())


@dataclass(frozen=True)
class Streamed:
    """A fused loop's streams, its body storing them in stages and the C computing its
    stepped addresses at a row's first lane (``lanes.starts``)."""

    streams: list[Stream]
    body: list[str]
    first: list[str]


def body(r, insts: list[Instruction], block: Block, index: dict[int, int], first: list[str]
         ) -> Streamed | None:
    """The streams of a fused loop of ``insts`` (its addresses stepped: ``r.fixed``, from
    ``first``) and its body storing them in stages (``lanes.body``), or None where none
    streams."""
    found = find(r, insts, {p: r.affine_tested[p] for p in r.fixed})
    if not found:
        return None
    r.streams = {s.ptr: s for s in found}
    try:
        return Streamed(found, lanes.body(r, insts, block, index, "off"), first)
    finally:
        r.streams = {}


def store(s: Stream, value: str) -> str:
    """A lane's store of ``value`` into the stage (in the loop over ``sg_xp`` to ``sg_xe``)."""
    return f"sg_s{s.ptr}[sg_x - sg_xp] = {value}; sg_w{s.ptr}[sg_x - sg_xp] = 1;"


def stages(streams: list[Stream]) -> list[str]:
    """The stages of a piece, their marks cleared."""
    return [f"      alignas(64) {s.ctype} sg_s{s.ptr}[{PIECE}]; u8 sg_w{s.ptr}[{PIECE}]; "
            f"memset(sg_w{s.ptr}, 0, sg_xe - sg_xp);" for s in streams]


def puts(streams: list[Stream]) -> list[str]:
    """The copies of a piece's stages to memory: from the address of lane ``sg_xp`` (the
    stepped address ``sg_a<ptr>`` of lane ``sg_xa``), non-temporal in objects of ``STREAM``
    bytes or more."""
    return [f"      sg_streamed += sg_put(sg_a{s.ptr} + (s64)(sg_xp - sg_xa) * {s.size}, "
            f"(const char *)sg_s{s.ptr}, sg_w{s.ptr}, sg_xe - sg_xp, {s.size}, "
            f"sg_sz{s.slot} >= {STREAM}ULL);" for s in streams]
