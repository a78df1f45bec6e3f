"""Function calls inlined before rendering: the native backend's lane loops run one function
per kernel (docs/native.md).

OpenCL C has no recursion, so every call can be expanded: the callee's blocks are copied
into the caller with fresh ids (parameters replaced by the arguments), each OpReturn /
OpReturnValue becomes a branch to a new block holding the rest of the calling block, and
the call's result becomes an OpPhi there over the returned values. The NumPy engine runs a
call to completion for the calling lanes before they go on; after inlining, the callee's
blocks are ordered inside the caller (``block_order``) so that lanes finish the callee
before any runs past the call, which is the same schedule.

``flatten`` returns a shallow copy of the module whose kernels call nothing; the copy
carries the copied ids' types and decorations, the original is untouched.
"""

from __future__ import annotations

import copy
import itertools

from ...errors import UnsupportedError
from ...spirv import Block, Function, Instruction, Module, Operand
from ...spirv import grammar as G

_ID_KINDS = ("IdRef", "IdScope", "IdMemorySemantics")
MAX_DEPTH = 64


def flatten(module: Module) -> Module:
    """``module`` with every kernel's calls expanded (see the module docstring)."""
    if not any(i.opname == "OpFunctionCall" for f in module.functions.values()
               for b in f.blocks for i in b.instructions):
        return module
    out = copy.copy(module)
    out.value_types = dict(module.value_types)
    out.decorations = dict(module.decorations)
    out.names = dict(module.names)
    out.functions = dict(module.functions)
    ids = itertools.count(module.header.bound)
    for ep in module.entry_points:
        out.functions[ep.function] = _inline(out, module.functions[ep.function], ids, 0)
    return out


def _remap(op: Operand, m: dict[int, int]) -> Operand:
    v = op.value
    if op.kind in _ID_KINDS:
        return Operand(op.kind, m.get(v, v))
    if op.kind == "PairIdRefIdRef":
        return Operand(op.kind, (m.get(v[0], v[0]), m.get(v[1], v[1])))
    if op.kind == "PairIdRefLiteralInteger":
        return Operand(op.kind, (m.get(v[0], v[0]), v[1]))
    if op.kind == "PairLiteralIntegerIdRef":
        return Operand(op.kind, (v[0], m.get(v[1], v[1])))
    return op


def _copy_inst(inst: Instruction, m: dict[int, int]) -> Instruction:
    return Instruction(inst.opname, inst.opcode, inst.result_type,
                       m.get(inst.result_id, inst.result_id) if inst.result_id is not None else None,
                       tuple(_remap(o, m) for o in inst.operands), inst.offset, inst.location,
                       inst.ext_opname)


def _branch(label: int) -> Instruction:
    return Instruction("OpBranch", G.load().opcode("OpBranch"), None, None,
                       (Operand("IdRef", label),))


def _inline(module: Module, fn: Function, ids: itertools.count, depth: int) -> Function:
    if depth > MAX_DEPTH:
        raise UnsupportedError("native backend: calls nested too deeply (recursion?)")
    blocks = [Block(b.label, list(b.instructions)) for b in fn.blocks]
    k = 0
    while k < len(blocks):
        block = blocks[k]
        at = next((i for i, inst in enumerate(block.instructions)
                   if inst.opname == "OpFunctionCall"), None)
        if at is None:
            k += 1
            continue
        call = block.instructions[at]
        callee = module.functions[call.operands[0].value]
        if callee.is_declaration:
            raise UnsupportedError(f"call to undefined function '{callee.name or callee.id}'")
        body = _inline(module, callee, ids, depth + 1)
        fresh: dict[int, int] = {}
        for b in body.blocks:
            fresh[b.label] = next(ids)
            for inst in b.instructions:
                if inst.result_id is not None:
                    fresh[inst.result_id] = next(ids)
        for old, new in fresh.items():
            if old in module.value_types:
                module.value_types[new] = module.value_types[old]
            if old in module.decorations:
                module.decorations[new] = module.decorations[old]
            if old in module.names:
                module.names[new] = module.names[old]
        m = {p.result_id: o.value for p, o in zip(callee.params, call.operands[1:], strict=True)}
        m.update(fresh)
        cont = next(ids)
        returns: list[tuple[int, int]] = []  # (value, block label)
        copied = []
        for b in body.blocks:
            insts = [_copy_inst(i, m) for i in b.instructions]
            term = insts[-1]
            if term.opname in ("OpReturn", "OpReturnValue"):
                if term.opname == "OpReturnValue":
                    returns.append((term.operands[0].value, m[b.label]))
                insts[-1] = _branch(cont)
            copied.append(Block(m[b.label], insts))
        rest = block.instructions[at + 1:]
        if call.result_id is not None and returns and callee.result_type.op != "Void":
            phi = Instruction("OpPhi", G.load().opcode("OpPhi"), call.result_type, call.result_id,
                              tuple(Operand("PairIdRefIdRef", r) for r in returns))
            rest = [phi, *rest]
        _retarget_phis(blocks, block.label, cont)
        block.instructions = block.instructions[:at] + [_branch(copied[0].label)]
        blocks[k + 1:k + 1] = [*copied, Block(cont, rest)]
        k += 1
    return Function(fn.id, fn.result_type, fn.control, fn.type, fn.params, blocks, fn.name)


def _retarget_phis(blocks: list[Block], old: int, new: int) -> None:
    """Phis naming ``old`` as a predecessor: its terminator now ends block ``new``."""
    for b in blocks:
        for i, inst in enumerate(b.instructions):
            if inst.opname != "OpPhi":
                continue
            ops = tuple(Operand(o.kind, (o.value[0], new)) if o.value[1] == old else o
                        for o in inst.operands)
            b.instructions[i] = Instruction(inst.opname, inst.opcode, inst.result_type,
                                            inst.result_id, ops, inst.offset, inst.location)
