"""Addresses affine in a uniform loop's iteration: the pre-pass of ``loops.py`` tests them at
three iterations instead of at every one (docs/native.md, "Uniform loops").

A uniform loop's block carries work-group scalars in its phis. A phi whose value on the
loop's own edge is the phi plus or minus a value the loop does not change (``k0 += SG``)
is an arithmetic progression over the iterations, modulo 2^width. Sums, differences and
negations of such values, products by a value the loop does not change and shifts left by
one keep a value a progression modulo 2^width (with the step computed likewise); a
truncation keeps it one modulo the narrower width. A widening (``OpSConvert``,
``OpUConvert``, an access chain's index narrower than 64 bits, a shift left and back right
by no more) does not: its exact value is a progression in the integers only while the
narrow value does not wrap. Every value the loop changes that an address uses must be one of
these, else the loop's accesses are tested at every iteration (``loops.py``).

The test, for ``n`` iterations: each *record* (every tested address and every widened
value above, as an exact integer) at the first, second and last iteration (``x0``, ``x1``,
``xl``) must satisfy ``xl == x0 + (n - 1) * (x1 - x0)`` in 128-bit arithmetic. When it does
for a widened value, the integers ``x0 + i * (x1 - x0)`` lie between ``x0`` and ``xl``, both
in the wide type's range of the narrow width, and are congruent to the value at iteration
``i`` (the narrow value being a progression modulo its width with step ``x1 - x0``), so they
are its exact values: the widening is a progression, and so is every value computed from it
as above, modulo 2^64. When it holds for an address, every iteration's address lies between
the first's and the last's, which the pre-pass tests against the object at all three
iterations, with the alignment: the step ``x1 - x0`` is the difference of two aligned
addresses. Along the lanes of a row the pre-pass's own tests (``affine.py``) are made at
each of the three iterations: a value affine in both the lane and the iteration whose exact
values at the corners agree with one affine function of both lies, with every value
between, in that function's range there. Where the test fails, the loop runs step by step,
which is exact.
"""

from __future__ import annotations

from ...spirv import Block, Instruction
from .affine import _CHAINS, _SAME

_SUMS = {"OpIAdd", "OpISub", "OpSNegate"}
_WIDEN = {"OpSConvert", "OpUConvert"}
_RIGHT = {"OpShiftRightArithmetic", "OpShiftRightLogical"}


class Iterations:
    """The values of uniform loop ``block`` that change with its iteration, and the records
    of an address (the module docstring); ``defs``: the other instructions computing the
    addresses (the pre-pass's slice), ``r`` the renderer."""

    def __init__(self, r, block: Block, defs: dict[int, Instruction]):
        self.r = r
        self.here = {i.result_id: i for i in block.instructions if i.result_id is not None
                     and i.result_id in r.scalars} | defs
        self.carried = {i.result_id: i for i in block.instructions
                        if i.opname == "OpPhi" and i.result_id in r.scalars}
        self.label = block.label
        self._varies: dict[int, bool] = {}

    def varies(self, vid: int) -> bool:
        """Whether ``vid`` may change from one iteration to the next."""
        if vid in self.carried:
            return True
        if vid not in self._varies:
            inst = self.here.get(vid)
            self._varies[vid] = False  # (a phi of another block, or a cycle: not ours)
            self._varies[vid] = inst is not None and inst.opname != "OpPhi" \
                and any(self.varies(i) for i in inst.ids())
        return self._varies[vid]

    def records(self, values: list[int]) -> list[str] | None:
        """C expressions (``__int128``) of the records of addresses ``values``: each one that
        changes and each widening it goes through; None where one is not a progression."""
        out: list[str] = []
        seen: set[int] = set()
        for v in values:
            if self.varies(v):
                if not self._progression(v, out, seen):
                    return None
                out.append(f"(__int128)(u64){self.r.leaf(v)}")
        return list(dict.fromkeys(out))

    def _width(self, vid: int) -> int:
        t = self.r.type_of(vid)
        return 64 if t.op == "Pointer" else t.width if t.op == "Int" else 0

    def _exact(self, vid: int, signed: bool, width: int) -> str:
        return f"(__int128)({'s' if signed else 'u'}{width}){self.r.leaf(vid)}"

    def _constant(self, vid: int) -> int | None:
        c = self.r.m.constants.get(vid)
        return c.value if c is not None and c.op == "OpConstant" and isinstance(c.value, int) \
            else None

    def _progression(self, vid: int, out: list[str], seen: set[int]) -> bool:
        """Whether ``vid`` is a progression modulo 2^width given its widenings' records,
        which are added to ``out``."""
        if not self.varies(vid) or vid in seen:
            return True
        seen.add(vid)
        if vid in self.carried:
            return self._stepped(self.carried[vid], out, seen)
        inst = self.here[vid]
        o, ids = inst.opname, inst.ids()
        width = self._width(vid)
        if not width:
            return False
        if o in _SUMS:
            return all(self._progression(i, out, seen) for i in ids)
        if o == "OpIMul":
            return sum(self.varies(i) for i in ids) == 1 \
                and all(self._progression(i, out, seen) for i in ids)
        if o == "OpShiftLeftLogical":
            return not self.varies(ids[1]) and self._progression(ids[0], out, seen)
        if o in _WIDEN:
            if self._width(ids[0]) < width:
                out.append(self._exact(vid, o == "OpSConvert", width))
            return self._progression(ids[0], out, seen)
        if o in _SAME:
            return self._width(ids[0]) == width and self._progression(ids[0], out, seen)
        if o in _RIGHT:
            return self._widened(vid, inst, out, seen)
        if o in _CHAINS:
            return self._chain(inst, out, seen)
        return False

    def _stepped(self, phi: Instruction, out: list[str], seen: set[int]) -> bool:
        """A carried phi whose value on the loop's edge is itself plus or minus a value the
        loop does not change."""
        back = [op.value[0] for op in phi.operands if op.value[1] == self.label]
        inst = self.here.get(back[0]) if len(back) == 1 else None
        if inst is None or inst.opname not in ("OpIAdd", "OpISub"):
            return False
        a, b = inst.ids()
        return (a == phi.result_id and not self.varies(b)) or \
            (inst.opname == "OpIAdd" and b == phi.result_id and not self.varies(a))

    def _widened(self, vid: int, inst: Instruction, out: list[str], seen: set[int]) -> bool:
        """``(v << c) >> d`` with constants ``0 < d <= c``: v's low bits widened (affine.py)."""
        v, d = inst.ids()
        src = self.here.get(v)
        if src is None or src.opname != "OpShiftLeftLogical":
            return False
        c, d = self._constant(src.ids()[1]), self._constant(d)
        if c is None or d is None or not 0 < d <= c < self._width(vid):
            return False
        out.append(self._exact(vid, inst.opname == "OpShiftRightArithmetic", self._width(vid)))
        return self._progression(src.ids()[0], out, seen)

    def _chain(self, inst: Instruction, out: list[str], seen: set[int]) -> bool:
        """An access chain: its base and indices progressions, an index narrower than 64
        bits widened by sign ("indices are treated as signed")."""
        base, *idx = inst.ids()
        if not self._progression(base, out, seen):
            return False
        for i in idx:
            if i in self.r.m.constants:
                continue
            if not self._progression(i, out, seen):
                return False
            width = self._width(i)
            if self.varies(i) and width < 64:
                out.append(self._exact(i, True, width))
        return True
