"""Where each pointer of a kernel points, known from the code: a kernel argument, a
program-scope variable, a ``__local`` variable or argument, or unknown (the backends'
per-object memory checks: docs/native.md and docs/cuda.md, "Memory errors").

A pointer derived from one of those objects through access chains, casts, copies, and phis
and selects whose every input has the same origin, or loaded from a private variable that
holds only such pointers (``_cells``), has that object's origin. This is the NumPy engine's
rule (``engine/cpu/arenas.py``: "A pointer names its object by the allocation id"): a
pointer stepped from one object into the next faults there, and a backend that checks a
pointer against its own object alone faults where the NumPy engine does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...spirv import Function, Instruction, Module

_THROUGH = {"OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain",
            "OpInBoundsPtrAccessChain", "OpBitcast", "OpCopyObject", "OpPtrCastToGeneric",
            "OpGenericCastToPtr"}


@dataclass
class Origins:
    """Where each pointer value of one kernel points: an object slot, or unknown."""

    slots: list[tuple[str, int]] = field(default_factory=list)  # (kind, param index / var id)
    of: dict[int, int] = field(default_factory=dict)  # value id → slot
    sites: list[tuple[int, int, int, int]] = field(default_factory=list)  # (n, al, kind, slot)

    def slot(self, key: tuple[str, int]) -> int:
        if key not in self.slots:
            self.slots.append(key)
        return self.slots.index(key)

    def site(self, nbytes: int, align: int, kind: int, slot: int) -> int:
        """The 1-based number of an access site (0 means "no fault" in a lane's note)."""
        self.sites.append((nbytes, align, kind, slot))
        return len(self.sites)


def origins(m: Module, f: Function, params: dict[int, int], local_vars: set[int],
            global_vars: dict[int, int]) -> Origins:
    """The object each pointer of kernel ``f`` comes from; ``params`` maps the id of each
    pointer parameter to its index (``__local`` ones included), ``global_vars`` each
    program-scope variable to its index among the kernel's."""
    o = Origins()
    for pid, i in params.items():
        local = m.type_of(pid).storage_class == "Workgroup"
        o.of[pid] = o.slot(("local_arg" if local else "param", i))
    for vid in sorted(local_vars):
        o.of[vid] = o.slot(("local_var", vid))
    for vid, k in global_vars.items():
        o.of[vid] = o.slot(("global_var", k))
    insts = [inst for b in f.blocks for inst in b.instructions]
    by_id = {i.result_id: i for i in insts if i.result_id is not None}
    stored = _cells(m, insts)
    changed = True
    while changed:  # a fixed point: loop-carried pointers reach their phi a second time
        changed = False
        for inst in insts:
            rid = inst.result_id
            if rid is None or rid in o.of:
                continue
            if inst.opname in _THROUGH:
                srcs = [inst.operands[0].value]
            elif inst.opname == "OpPhi":
                srcs = [op.value[0] for op in inst.operands]
            elif inst.opname == "OpSelect":
                srcs = [inst.operands[1].value, inst.operands[2].value]
            elif inst.opname == "OpLoad" and inst.operands[0].value in stored:
                srcs = stored[inst.operands[0].value]
            else:
                continue
            t = m.type_of(rid)
            if t is None or t.op != "Pointer":
                continue
            known = {o.of[s] for s in srcs if s in o.of}
            pending = [s for s in srcs if s not in o.of and s != rid]
            if len(known) == 1 and not pending:
                o.of[rid] = known.pop()
                changed = True
            elif len(known) == 1 and inst.opname == "OpPhi" and all(
                    _derives(by_id, s, rid) for s in pending):
                o.of[rid] = known.pop()  # the other inputs step this phi itself
                changed = True
    return o


def _cells(m: Module, insts: list[Instruction]) -> dict[int, list[int]]:
    """The private variables holding pointers that only loads and stores use (no initialiser;
    a cast of its address is the variable again; no access chain or call takes it), by the
    variable and its casts, each with the values stored into it: a load gives one of those,
    so it points where they all do (-cl-opt-disable keeps each argument in such a variable;
    the NumPy engine's pointers keep their allocation through memory too)."""
    cells: dict[int, list[int] | None] = {
        i.result_id: [] for i in insts if i.opname == "OpVariable" and len(i.operands) == 1
        and m.type_of(i.result_id).storage_class == "Function"
        and m.type_of(i.result_id).pointee.op == "Pointer"}
    alias = {v: v for v in cells}
    for inst in insts:
        if inst.opname in ("OpBitcast", "OpCopyObject") and inst.operands[0].value in alias:
            alias[inst.result_id] = alias[inst.operands[0].value]
    for inst in insts:
        if inst.result_id in alias and inst.opname != "OpVariable":
            continue  # a cast of a cell
        for k, v in enumerate(inst.ids()):
            cell = alias.get(v)
            if cell is None or cells[cell] is None:
                continue
            if inst.opname == "OpStore" and k == 0:
                cells[cell].append(inst.operands[1].value)
            elif not (inst.opname == "OpLoad" and k == 0):
                cells[cell] = None  # its address escapes
    return {v: cells[cell] for v, cell in alias.items() if cells[cell]}


def _derives(by_id: dict[int, Instruction], vid: int, root: int) -> bool:
    """Whether pointer ``vid`` is ``root`` stepped through ``_THROUGH`` instructions only."""
    seen = set()
    while vid != root:
        inst = by_id.get(vid)
        if inst is None or inst.opname not in _THROUGH or vid in seen:
            return False
        seen.add(vid)
        vid = inst.operands[0].value
    return True
