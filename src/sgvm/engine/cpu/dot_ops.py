"""OpSDot, OpUDot, OpSUDot and OpSDotAccSat, OpUDotAccSat, OpSUDotAccSat
(SPV_KHR_integer_dot_product; cl_khr_integer_dot_product's ``dot``, ``dot_acc_sat`` and
``dot_*_4x8packed_*``). Operands are integer vectors, or 32-bit scalars with the
PackedVectorFormat4x8Bit operand; the rules are ``semantics.dot_product``.
"""

from __future__ import annotations

import numpy as np

from ... import semantics as sem
from ...errors import UnsupportedError
from .registry import Op, builder
from .values import arr

# opname → (Vector 1 signed, Vector 2 signed, accumulates); the saturating add is
# signed for S and SU, unsigned for U.
_DOTS = {
    "OpSDot": (True, True, False), "OpUDot": (False, False, False),
    "OpSUDot": (True, False, False),
    "OpSDotAccSat": (True, True, True), "OpUDotAccSat": (False, False, True),
    "OpSUDotAccSat": (True, False, True),
}


def _components(x, packed: bool, signed: bool, vector: bool) -> np.ndarray:
    """The operand's components as (..., N): unpacked 4x8-bit or the vector itself."""
    x = np.asarray(arr(x))
    if packed:
        return sem.unpack_4x8(x, signed)
    return x if vector else x[..., None]


@builder(*_DOTS)
def _dot(ctx, inst) -> Op:
    """Integer dot products: exact products and sum in the result type, then (AccSat)
    the saturating addition of the accumulator."""
    a_signed, b_signed, acc = _DOTS[inst.opname]
    ids = [o.value for o in inst.operands if o.kind == "IdRef"]
    packed = any(o.kind == "PackedVectorFormat" for o in inst.operands)
    if packed and inst.operands[-1].value != 0:
        raise UnsupportedError(f"{inst.opname} (%{inst.result_id}): packed vector format "
                               f"{inst.operands[-1].value}")
    a, b = ids[0], ids[1]
    va, vb = ctx.is_vector(a), ctx.is_vector(b)
    dt = ctx.dtype(inst)
    result_signed = inst.opname != "OpUDotAccSat"

    def run(r, st):
        x = _components(r[a], packed, a_signed, va)
        y = _components(r[b], packed, b_signed, vb)
        if acc:
            return sem.dot_acc_sat(x, y, np.asarray(arr(r[ids[2]])), a_signed, b_signed,
                                   result_signed, dt)
        return sem.dot(x, y, a_signed, b_signed, dt)

    return Op(inst.result_id, run, True, False)
