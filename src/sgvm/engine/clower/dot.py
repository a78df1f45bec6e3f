"""C for SPV_KHR_integer_dot_product: OpSDot, OpUDot, OpSUDot and the AccSat forms
(``sgvm.semantics.dot_product``), registered into ``ops.OPS`` on import.

Components are sign- or zero-extended and multiplied and summed exactly in 64 bits (the
4x8-bit forms OpenCL C exposes cannot overflow), then taken to the result width; AccSat
adds the accumulator with saturation to the result's range (results up to 32 bits),
detecting overflow on the wrapped sum (a clamp of the 64-bit sum came out as a wrapping
32-bit add through NVRTC on an H100: dot_acc_sat of 255s and UINT_MAX gave 260099).
Packed operands (PackedVectorFormat4x8Bit) are 32-bit scalars whose byte ``k`` is
component ``k``.
"""

from __future__ import annotations

from ...errors import UnsupportedError
from ...spirv import Instruction
from . import ctypes_ as C
from .ops import OPS, registrar

op = registrar(OPS)

_DOTS = {"OpSDot": (True, True), "OpUDot": (False, False), "OpSUDot": (True, False),
         "OpSDotAccSat": (True, True), "OpUDotAccSat": (False, False),
         "OpSUDotAccSat": (True, False)}


def _components(r, vid: int, packed: bool, signed: bool) -> list[str]:
    """Each component as an exact ``s64`` C expression."""
    if packed:
        x = r.leaf(vid)
        return [f"(s64)({'(s8)' if signed else '(u8)'}((u32){x} >> {8 * k}))" for k in range(4)]
    leaves, types = r.leaves(vid), C.leaf_types(r.type_of(vid))
    return [f"(s64)({C.signed_ctype(t) if signed else C.scalar_ctype(t)}){x}"
            for x, t in zip(leaves, types, strict=True)]


@op(*_DOTS)
def _dot(r, inst: Instruction) -> None:
    a_signed, b_signed = _DOTS[inst.opname]
    refs = [o.value for o in inst.operands if o.kind == "IdRef"]
    packed = any(o.kind == "PackedVectorFormat" for o in inst.operands)
    t = r.rtype(inst)
    ct = C.scalar_ctype(t)
    xs = _components(r, refs[0], packed, a_signed)
    ys = _components(r, refs[1], packed, b_signed)
    dot = "(" + " + ".join(f"{x} * {y}" for x, y in zip(xs, ys, strict=True)) + ")"
    if not inst.opname.endswith("AccSat"):
        r.assign(inst, [f"({ct}){dot}"])
        return
    if t.width > 32:
        raise UnsupportedError(f"{r.target}: {inst.opname} with a {t.width}-bit result")
    # add_sat on the wrapped w-bit sum (no wider intermediate a compiler could fuse away)
    name, acc = r.result_names(inst)[0], r.leaf(refs[2])
    if inst.opname == "OpUDotAccSat":
        r.emit(f"{{ {ct} p_ = ({ct}){dot}, s_ = ({ct})(p_ + ({ct}){acc}); "
               f"{name} = s_ < p_ ? ({ct})~({ct})0 : s_; }}")
        return
    st, w = C.signed_ctype(t), t.width
    lo, hi = f"({st})({-(1 << (w - 1))}LL)", f"({st}){(1 << (w - 1)) - 1}"
    r.emit(f"{{ {st} p_ = ({st})({ct}){dot}, a_ = ({st}){acc}; "
           f"{st} s_ = ({st})({ct})(({ct})p_ + ({ct})a_); "
           f"{name} = ({ct})(((p_ ^ s_) & (a_ ^ s_)) < 0 ? (p_ < 0 ? {lo} : {hi}) : s_); }}")
