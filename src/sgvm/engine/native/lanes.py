"""The lane loops of one segment (docs/native.md, "The code it generates").

A segment of a block runs as one loop over the work-group's lanes, by rows (local ids 1 and
2 fixed, id 0 the loop's induction variable, so that ids and the addresses affine in them
vectorise). Values other segments defined are read from their lane arrays, except the pure
ones (functions of the work-item's ids and the launch's constants: ``pure``), which the
segment computes again.

With checks on, each access through a pointer of known object (``checks.py``) is tested
against it. When every access of the segment is, there are two or more, and no address
depends on a value the segment loads, a pre-pass computes the addresses alone and tests them all; if every lane
passes, the segment runs without checks, else (and whenever only some lanes are active) it
runs with them, noting each lane's first fault.
"""

from __future__ import annotations

from ...spirv import Block, Function, Instruction
from ..clower import ctypes_ as C
from . import checks

_IMPURE = {"OpPhi", "OpVariable", "OpFunctionCall", "OpCopyMemory", "OpCopyMemorySized",
           "OpStore", "OpFunctionParameter"}


def pure(r, f: Function, impure: set[str]) -> dict[int, Instruction]:
    """Values that are the same function of the work-item's ids and the launch's
    constants wherever they are computed (no memory, no phi): a segment using one
    another segment defined computes it again rather than keeping a lane array.
    ``impure``: opcodes that touch memory or other lanes besides ``_IMPURE``."""
    out: dict[int, Instruction] = {}
    defined = {i.result_id for b in f.blocks for i in b.instructions
               if i.result_id is not None and i.opname != "OpVariable"}
    for b in f.blocks:  # in order: an operand's definition dominates its use
        for inst in b.instructions:
            if computes(r, inst, impure) and all(i in out or i not in defined for i in inst.ids()):
                out[inst.result_id] = inst
    return out


def cheap(pure: dict[int, Instruction], vid: int, most: int = 10) -> bool:
    """Whether pure value ``vid`` takes at most ``most`` instructions to compute again (a
    longer computation is kept in a lane array: it would bloat every segment using it)."""
    seen: set[int] = set()
    todo = [vid]
    while todo:
        v = todo.pop()
        if v in seen or v not in pure:
            continue
        seen.add(v)
        if len(seen) > most:
            return False
        todo += pure[v].ids()
    return True


def computes(r, inst: Instruction, impure: set[str]) -> bool:
    """Whether ``inst`` computes a value from its operands alone (no memory, no other lane)."""
    o = inst.opname
    if inst.result_id is None or inst.result_type is None or o in _IMPURE or o in impure \
            or o.startswith("OpAtomic") or (o == "OpExtInst" and inst.ext_opname in impure):
        return False
    return o != "OpLoad" or inst.operands[0].value in r.builtins


def recomputed(r, seg, block: Block) -> list[Instruction]:
    """The definitions of the pure values ``seg`` uses but does not define, with the
    pure values they use in turn, in definition order."""
    own = {i.result_id for i in seg.insts}
    used = [i for inst in seg.insts for i in inst.ids()]
    if seg.insts and seg.insts[-1] is block.terminator:  # the phis of the edges taken
        for label in block.terminator.ids():
            if label in r.labels:
                for phi in r._phis(label):
                    used += [op.value[0] for op in phi.operands if op.value[1] == block.label]
    out: dict[int, Instruction] = {}
    while used:
        vid = used.pop()
        inst = r.pure.get(vid)
        if inst is None or vid in own or vid in out or r.storage.get(vid) == "lane":
            continue
        out[vid] = inst
        used += inst.ids()
    return sorted(out.values(), key=lambda i: r.position[i.result_id])


def guard(r, ptr: int, p: str, nbytes: int | str, align: int, kind: int) -> str | None:
    """The check of one access in a lane loop, by ``r.checking``: "noted" (the test, noting a
    fault: checks.condition), "off" (none), "pre" (the test alone, kept for the pre-pass);
    None where the pointer's object is unknown (the caller's general check)."""
    if checks.bare(r.origins, ptr, p, nbytes, align, kind) is None:
        return None
    r.guarded_ptrs.append(ptr)
    if r.checking == "off":
        return ""
    if r.checking == "pre":
        r.pre_checks.append(checks.bare(r.origins, ptr, p, nbytes, align, kind))
        return ""
    r.noted = True
    return checks.condition(r.origins, ptr, p, nbytes, align, kind)


def render(r, seg, block: Block, k: int, index: dict[int, int]) -> list[str]:
    """The C of lane segment ``seg`` of block number ``k``."""
    again = recomputed(r, seg, block)
    insts = again + seg.insts
    r.noted, r.slow, r.guarded_ptrs = False, False, []
    checked = _body(r, insts, block, index, "noted")
    noted, ptrs = r.noted, list(r.guarded_ptrs)
    skip = f"if (!sg_all && sg_pc[l] != {k}) continue;"
    if not noted:
        return [*_loop("true", skip), *checked, "    } }"]
    checked.append("      sg_fsl[l] = sg_fs; sg_fpl[l] = sg_fp; sg_bad |= sg_fs;")
    checked.insert(0, "      u32 sg_fs = 0, sg_fp = 0;")
    flush = (f"    if (sg_bad) sg_flush(sg_g, sg_vol, sg_fsl, sg_fpl, {r.symbol}_sites, sg_rt); }}")
    # a single access costs about as much checked as tested in a pre-pass: no pre-pass
    addresses = None if r.slow or len(ptrs) < 2 else _slice(r, insts, ptrs)
    if addresses is None:
        return ["    { u32 sg_bad = 0;", *_loop("true", skip), *checked, "    } }", flush]
    unchecked = _body(r, insts, block, index, "off")
    pre = _pre(r, insts, addresses, block, index)
    return ["    { u32 sg_bad = 0; bool sg_clean = false;",
            "    if (sg_all) { u32 sg_pre = 0;", *_loop("true", ""), *pre, "    } }",
            "      sg_clean = !sg_pre; }",
            *_loop("sg_clean", ""), *unchecked, "    } }",
            *_loop("!sg_clean", skip), *checked,
            "    } }", flush]


def _body(r, insts: list[Instruction], block: Block, index: dict[int, int], mode: str) -> list[str]:
    r.lines, r.checking = [], mode
    try:
        for inst in insts:
            r._instruction(inst, block, index)
    finally:
        r.checking = "slow"
    return [_declare(r, insts), *r.lines]


def _declare(r, insts: list[Instruction]) -> str:
    names = []
    for inst in insts:
        rid = inst.result_id
        if rid is not None and r.storage.get(rid) in ("local", "remat"):
            lts = C.leaf_types(r.rtype(inst))
            names += [f"{C.scalar_ctype(x)} {n};" for x, n in zip(lts, r.leaves(rid), strict=True)]
    return "      " + " ".join(names)


def _slice(r, insts: list[Instruction], ptrs: list[int]) -> set[int] | None:
    """The instructions of ``insts`` the addresses of ``ptrs`` are computed by, or None where
    one of them reads memory (the address is known only once the segment runs)."""
    here = {i.result_id: i for i in insts if i.result_id is not None}
    out: set[int] = set()
    todo = list(ptrs)
    while todo:
        vid = todo.pop()
        inst = here.get(vid)
        if inst is None or vid in out:
            continue
        if not computes(r, inst, r.impure):
            return None
        out.add(vid)
        todo += inst.ids()
    return out


def _pre(r, insts: list[Instruction], addresses: set[int], block: Block,
         index: dict[int, int]) -> list[str]:
    """The pre-pass: the address computations and the tests of every access, no access."""
    saved = {v: r.storage.get(v) for v in addresses}
    for v in addresses:
        r.storage[v] = "local"
    lines: list[str] = []
    try:
        for inst in insts:
            if inst.result_id in addresses:
                r.lines, r.checking = [], "off"
                r._instruction(inst, block, index)
                lines += r.lines
            elif inst.opname != "OpVariable":
                r.lines, r.checking, r.pre_checks = [], "pre", []
                r._instruction(inst, block, index)
                lines += [f"      sg_pre |= !({c});" for c in r.pre_checks]
        decl = _declare(r, [i for i in insts if i.result_id in addresses])
    finally:
        r.checking = "slow"
        for v, s in saved.items():
            r.storage[v] = s
    return [decl, *lines]


def _loop(when: str, skip: str) -> list[str]:
    """The head of a lane loop (the module docstring), closed by ``} }``."""
    return [f"    if ({when}) for (u32 sg_l0 = 0; sg_l0 < sg_vol; sg_l0 += sg_row) {{",
            "      const u32 sg_y = sg_lid1[sg_l0], sg_z = sg_lid2[sg_l0];",
            f"      for (u32 sg_x = 0; sg_x < sg_row; sg_x++) {{ const u32 l = sg_l0 + sg_x; {skip}"]
