"""Family 9: integer division by zero (and INT_MIN / -1), over-wide shifts, out-of-range
float → integer conversions.

An instruction observer: the engine calls ``instruction`` before each watched
instruction with the frame's registers, and this plugin reads the operands of
the lanes in ``batch.mask``. OpenCL C masks shift amounts (s6.3 j), so clang
emits ``OpBitwiseAnd n, width-1`` before the shift: the plugin looks through
that mask at the amount the source wrote.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.common.types import dtype_of
from ..engine.cpu.values import arr
from .plugin import Plugin

DIVISIONS = frozenset(("OpUDiv", "OpSDiv", "OpUMod", "OpSRem", "OpSMod"))
SIGNED_DIVISIONS = frozenset(("OpSDiv", "OpSRem", "OpSMod"))
SHIFTS = frozenset(("OpShiftLeftLogical", "OpShiftRightLogical", "OpShiftRightArithmetic"))
CONVERSIONS = frozenset(("OpConvertFToS", "OpConvertFToU"))


class ArithPlugin(Plugin):
    """Checks operand values of divisions, shifts and float → integer conversions."""

    instructions = DIVISIONS | SHIFTS | CONVERSIONS

    def __init__(self, report: Any, module: Any, kernel: str):
        super().__init__(report, module, kernel)
        self._masked: dict[int, int | None] = {}  # shift amount id → the id before masking
        self._defs: dict[int, Any] | None = None  # result id → defining instruction

    def instruction(self, st: Any, inst: Any, regs: list) -> None:
        op = inst.opname
        ids = [o.value for o in inst.operands]
        if op in CONVERSIONS:
            self._conversion(st, inst, regs[ids[0]])
            return
        a, b = _lanes(st, regs[ids[0]]), _lanes(st, regs[ids[1]])
        if op in DIVISIONS:
            zero = b == 0
            self.flag(st, "division-by-zero", _rows(st, zero), "integer division by zero")
            if op in SIGNED_DIVISIONS:
                sa, sb = _signed(a), _signed(b)
                over = (sb == -1) & (sa == np.iinfo(sa.dtype).min)
                self.flag(st, "division-overflow", _rows(st, over),
                          "signed division of the minimum value by -1")
            return
        width = a.dtype.itemsize * 8
        source = self._unmasked(ids[1], width)
        if source is not None:
            amount = _lanes(st, regs[source])
            wide = _signed(amount).astype(np.int64)
            bad = (wide >= width) | (wide < 0)
            self.flag(st, "shift-too-wide", _rows(st, bad),
                      f"shift by {_example(wide, bad)} of a {width}-bit value "
                      f"(OpenCL C uses it modulo {width})")
        else:
            bad = b.astype(np.uint64) >= width
            self.flag(st, "shift-undefined", _rows(st, bad),
                      f"shift of a {width}-bit value by {width} or more")

    def _unmasked(self, amount: int, width: int) -> int | None:
        """The id masked into shift amount ``amount`` by ``OpBitwiseAnd x, width-1``, if so."""
        if amount not in self._masked:
            self._masked[amount] = None
            if self._defs is None:
                self._defs = {i.result_id: i for fn in self.module.functions.values()
                              for b in fn.blocks for i in b.instructions if i.result_id is not None}
            inst = self._defs.get(amount)
            if inst is not None and inst.opname == "OpBitwiseAnd":
                x, y = (o.value for o in inst.operands)
                for val, other in ((y, x), (x, y)):
                    c = self.module.constants.get(val)
                    if c is not None and c.op == "OpConstant" and int(c.value) == width - 1:
                        self._masked[amount] = other
        return self._masked[amount]

    def _conversion(self, st: Any, inst: Any, value: Any) -> None:
        if any(d.name == "SaturatedConversion"
               for d in self.module.decorations.get(inst.result_id, ())):
            return
        rt = self.module.types[inst.result_type]
        info = np.iinfo(dtype_of(rt))
        if inst.opname == "OpConvertFToS":
            info = np.iinfo(info.dtype.type(0).view(f"i{info.dtype.itemsize}").dtype)
        x = _lanes(st, value).astype(np.float64)
        t = np.trunc(x)
        bad = np.isnan(x) | (t < info.min) | (t > info.max)
        self.flag(st, "conversion-out-of-range", _rows(st, bad),
                  f"{_example(x, bad)} does not fit in {info.dtype} (conversion is not _sat)")


def _lanes(st: Any, v: Any) -> np.ndarray:
    """A register value as an (L,) or (L, n) array."""
    v = np.asarray(arr(v))
    return np.broadcast_to(v, (st.L,) + v.shape) if v.ndim == 0 or (v.ndim == 1 and v.shape[0] != st.L) \
        else v


def _rows(st: Any, bad: np.ndarray) -> np.ndarray:
    """Executing lanes with any bad component."""
    if bad.ndim == 2:
        bad = bad.any(axis=1)
    return bad if st.mask is None else bad & st.mask


def _signed(x: np.ndarray) -> np.ndarray:
    return x.view(f"i{x.dtype.itemsize}") if x.dtype.kind == "u" else x


def _example(values: np.ndarray, bad: np.ndarray) -> str:
    """The first bad value, for the message."""
    v = values[bad] if values.shape == bad.shape else values[bad.any(axis=-1)]
    if not v.size:
        return "?"
    x = v.flat[0]
    return str(int(x)) if np.issubdtype(type(x), np.integer) else repr(float(x))
