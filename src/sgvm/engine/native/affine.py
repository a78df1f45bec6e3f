"""Values affine in a row's induction variable: the pre-pass tests such an address at the
row's two ends instead of at every lane (docs/native.md, "Memory errors").

A lane loop runs a row of the work-group with local ids 1 and 2 fixed and ``sg_x`` (local
id 0) counting up by one. A value is *affine* with step ``k`` when, from one lane of the row
to the next, it grows by ``k`` modulo 2^width: the work-item ids and the linear ids have step
1, everything computed from the launch's constants, the arguments and ids 1 and 2 step 0,
and sums, differences, products by a constant and shifts by a constant combine steps. A
value widened by sign or zero extension (``OpSConvert``, ``OpUConvert``, an access chain's
index narrower than 64 bits: "indices are treated as signed", a shift left and back right
by no more) stays affine only while the
narrow value does not wrap inside the row: each such *extension* is tested at the row's two
ends (the exact extended values at both ends differ by ``k`` × (lanes − 1) exactly when no
lane between wraps, the values being a run of consecutive multiples of ``k``). An address
with step ``K`` (``|K| < 2^32``) whose extensions do not wrap goes through every lane's
address between its two ends; it lies inside an object at every lane when it does at both
ends, and is aligned at every lane when it is at the first and ``K`` is a multiple of the
alignment.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...spirv import Instruction
from ..common import types as T

_SAME = {"OpCopyObject", "OpBitcast", "OpPtrCastToGeneric", "OpGenericCastToPtr",
         "OpConvertPtrToU", "OpConvertUToPtr"}
_CHAINS = {"OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain",
           "OpInBoundsPtrAccessChain"}
_ID_STEP = {"GlobalInvocationId": (1, 0, 0), "LocalInvocationId": (1, 0, 0)}
_SCALAR_STEP = {"LocalInvocationIndex": 1, "GlobalLinearId": 1}
_INVARIANT = {"WorkgroupId", "WorkgroupSize", "EnqueuedWorkgroupSize", "GlobalSize",
              "NumWorkgroups", "GlobalOffset", "WorkDim", "SubgroupMaxSize", "NumSubgroups",
              "NumEnqueuedSubgroups"}
LIMIT = 1 << 32  # the largest |step| of an address tested at its ends


@dataclass(frozen=True)
class Extension:
    """A narrow value ``vid`` of ``width`` bits widened (``signed``: sign extension) where the
    narrow value has step ``k`` (``width`` 64: ``vid`` is the extended value itself, a shift
    pair's). ``bits``: the extended value's range is that of a ``bits``-bit integer (a shift
    pair ``(v << c) >> d``: 64 - d; otherwise ``width``)."""

    vid: int
    width: int
    signed: bool
    k: int
    bits: int = 0

    @property
    def range(self) -> tuple[int, int]:
        """The least and greatest exact extended value."""
        bits = self.bits or self.width
        return (-(1 << bits - 1), (1 << bits - 1) - 1) if self.signed else (0, (1 << bits) - 1)


@dataclass(frozen=True)
class Step:
    k: int
    extensions: frozenset[Extension] = frozenset()


@dataclass(frozen=True)
class Across:
    """How a value changes from one row of a plane to the next (``Steps.across``): by the
    same amount at every lane of every row, modulo 2^width (``varies``; the amount is known
    only at run time, as an argument times the local id 1), or not at all; ``extensions``:
    the narrow values widened on the way that change along the row or across the rows."""

    varies: bool
    extensions: frozenset[Extension] = frozenset()


def _wrap(k: int, width: int) -> int:
    """``k`` as the signed representative modulo 2^width."""
    m = 1 << width
    k %= m
    return k - m if k >= m // 2 else k


class Steps:
    """The steps of the values of one lane loop (``defs``: the instructions it computes,
    by result id; ``same``: lane arrays it reads as one value, ``uniform.py``); ``r`` the
    renderer (types, constants, built-ins, storage). ``sub_group``: the "row" is one
    sub-group (whole sub-groups lying in rows: ``fused.py``), along which the sub-group
    local id has step 1 as well."""

    def __init__(self, r, defs: dict[int, Instruction], same: set[int] = frozenset(),
                 sub_group: bool = False):
        self.r, self.defs, self.same, self.sub_group = r, defs, same, sub_group
        self.memo: dict[int, Step | None] = {}
        self.across_memo: dict[int, Across | None] = {}

    def of(self, vid: int) -> Step | None:
        if vid not in self.memo:
            self.memo[vid] = None  # a cycle (phis are not in defs) is not affine
            self.memo[vid] = self._of(vid)
        return self.memo[vid]

    def _width(self, vid: int) -> int:
        t = self.r.type_of(vid)
        return 64 if t.op == "Pointer" else t.width if t.op == "Int" else 0

    def _const(self, vid: int) -> int | None:
        c = self.r.m.constants.get(vid)
        if c is None or c.op != "OpConstant" or not isinstance(c.value, int):
            return None
        return c.value

    def _of(self, vid: int) -> Step | None:
        r = self.r
        if vid in r.m.constants or vid in r.params or vid in r.local_offsets \
                or vid in r.globals or vid in self.same or r.storage.get(vid) == "wg":
            return Step(0)
        inst = self.defs.get(vid)
        if inst is None or r.storage.get(vid) in ("lane", "sg", "sub", "own"):
            return None
        o = inst.opname
        if o == "OpLoad":
            name = r.builtins.get(inst.operands[0].value)
            if name in _SCALAR_STEP:
                return Step(_SCALAR_STEP[name])
            if name == "SubgroupLocalInvocationId" and self.sub_group:
                return Step(1)
            return Step(0) if name in _INVARIANT else None
        if o == "OpCompositeExtract" and len(inst.operands) == 2:
            src = self.defs.get(inst.operands[0].value)
            if src is not None and src.opname == "OpLoad":
                name = r.builtins.get(src.operands[0].value)
                if name in _ID_STEP:
                    return Step(_ID_STEP[name][inst.operands[1].value])
                if name in _INVARIANT:
                    return Step(0)
            return self._invariant(inst)
        width = self._width(vid)
        if not width:
            return self._invariant(inst)
        ops = [self.of(i) for i in inst.ids()]
        if o in ("OpIAdd", "OpISub") and None not in ops:
            a, b = ops
            k = a.k + b.k if o == "OpIAdd" else a.k - b.k
            return Step(_wrap(k, width), a.extensions | b.extensions)
        if o == "OpIMul" and None not in ops:
            (x, y), (a, b) = inst.ids(), ops
            if a.k and b.k:
                return None
            if not a.k and not b.k:
                return Step(0, a.extensions | b.extensions)
            var, c = (a, self._const(y)) if a.k else (b, self._const(x))
            return None if c is None else Step(_wrap(var.k * c, width), var.extensions)
        if o == "OpShiftLeftLogical" and None not in ops:
            (a, b), c = ops, self._const(inst.ids()[1])
            if not b.k and not a.k:
                return Step(0, a.extensions | b.extensions)
            return None if c is None or b.k or c >= width else Step(_wrap(a.k << c, width),
                                                                    a.extensions)
        if o in ("OpShiftRightArithmetic", "OpShiftRightLogical") and None not in ops:
            return self._extension(vid, inst, ops, width)
        if o == "OpSNegate" and None not in ops:
            return Step(_wrap(-ops[0].k, width), ops[0].extensions)
        if o in ("OpUConvert", "OpSConvert") and None not in ops:
            (src,), (a,) = inst.ids(), ops
            narrow = self._width(src)
            if narrow >= width:
                return Step(_wrap(a.k, width), a.extensions)
            if not a.k:
                return a
            ext = Extension(src, narrow, o == "OpSConvert", a.k)
            return Step(a.k, a.extensions | {ext})
        if o in _SAME and None not in ops and self._width(inst.ids()[0]) == width:
            return ops[0]
        if o in _CHAINS:
            return self._chain(inst)
        return self._invariant(inst)

    def across(self, vid: int) -> Across | None:
        """How ``vid`` changes across the rows of a plane of the work-group (local id 1
        counting up, local id 2 fixed), for a value affine along the row (``of``): with the
        steps ``k`` along the row and ``K`` across, the value at lane ``x`` of row ``y`` is
        its value at the plane's first lane plus ``k * x + K * y`` modulo 2^width, so that
        the pre-pass may test it at the plane's four corners (``lanes.py``, "Planes"). Sums
        and differences of such values, products and left shifts by a value fixed over the
        plane, and extensions that do not wrap in the plane keep the form; None otherwise."""
        if vid not in self.across_memo:
            self.across_memo[vid] = None
            self.across_memo[vid] = self._across(vid)
        return self.across_memo[vid]

    def _fixed(self, vid: int) -> bool:
        """Whether ``vid`` is the same at every lane of the plane."""
        s, a = self.of(vid), self.across(vid)
        return s is not None and a is not None and not s.k and not a.varies

    def _across(self, vid: int) -> Across | None:
        r = self.r
        if vid in r.m.constants or vid in r.params or vid in r.local_offsets \
                or vid in r.globals or vid in self.same or r.storage.get(vid) == "wg":
            return Across(False)
        inst = self.defs.get(vid)
        if inst is None or r.storage.get(vid) in ("lane", "sg", "sub", "own") \
                or self.of(vid) is None:
            return None
        o = inst.opname
        if o == "OpLoad":
            name = r.builtins.get(inst.operands[0].value)
            if name in _SCALAR_STEP:
                return Across(True)
            return Across(False) if name in _INVARIANT else None
        if o == "OpCompositeExtract" and len(inst.operands) == 2:
            src = self.defs.get(inst.operands[0].value)
            if src is not None and src.opname == "OpLoad":
                name = r.builtins.get(src.operands[0].value)
                if name in _ID_STEP:
                    return Across(inst.operands[1].value == 1)
                if name in _INVARIANT:
                    return Across(False)
        ops = [self.across(i) for i in inst.ids()]
        if None in ops:
            return None
        varies = any(a.varies for a in ops)
        exts = frozenset().union(*(a.extensions for a in ops))
        width = self._width(vid)
        if not varies:
            return Across(False, exts)
        if not width:
            return None
        if o in ("OpShiftRightArithmetic", "OpShiftRightLogical"):
            pair = self._pair(inst, width)
            ext = pair and Extension(vid, width, o == "OpShiftRightArithmetic", self.of(vid).k,
                                     width - pair[2])
            return Across(True, exts | {ext}) if ext and not ops[1].varies else None
        if o in ("OpIAdd", "OpISub", "OpSNegate") or (
                o in _SAME and self._width(inst.ids()[0]) == width):
            return Across(True, exts)
        if o in ("OpIMul", "OpShiftLeftLogical"):
            x, y = inst.ids()
            if o == "OpIMul" and ops[1].varies:
                x, y = y, x
            return Across(True, exts) if self._fixed(y) else None
        if o in ("OpUConvert", "OpSConvert"):
            (src,), (a,) = inst.ids(), ops
            narrow = self._width(src)
            if narrow >= width:
                return a
            return Across(True, a.extensions | {
                Extension(src, narrow, o == "OpSConvert", self.of(src).k)})
        if o in _CHAINS:
            out = set(exts)
            for i in inst.ids()[1:]:
                if self._width(i) < 64 and self.across(i).varies:
                    out.add(Extension(i, self._width(i), True, self.of(i).k))
            return Across(True, frozenset(out))
        return None

    def _extension(self, vid: int, inst: Instruction, ops: list[Step], width: int) -> Step | None:
        """``(v << c) >> d`` with ``d <= c``: v's low ``width - c`` bits sign (arithmetic) or
        zero extended, times 2^(c - d), as clang writes ``(long)(int)v * 4``; tested at the
        row's ends like OpSConvert (the result itself compared: it is exact exactly when
        the extension is)."""
        (a, b) = ops
        if not a.k and not b.k:
            return Step(0, a.extensions | b.extensions)
        pair = self._pair(inst, width)
        if pair is None or b.k:
            return None
        inner, c, d = pair
        k = _wrap(inner.k, width - c) << (c - d)
        ext = Extension(vid, width, inst.opname == "OpShiftRightArithmetic", k, width - d)
        return Step(k, inner.extensions | {ext})

    def _pair(self, inst: Instruction, width: int) -> tuple[Step, int, int] | None:
        """Of a right shift ``(v << c) >> d`` with constants ``0 < d <= c < width``: the step
        of ``v``, ``c`` and ``d``; None for any other."""
        v, did = inst.ids()
        d, src = self._const(did), self.defs.get(v)
        if d is None or src is None or src.opname != "OpShiftLeftLogical":
            return None
        c = self._const(src.ids()[1])
        inner = self.of(src.ids()[0])
        if c is None or inner is None or not 0 < d <= c < width:
            return None
        return inner, c, d

    def _invariant(self, inst: Instruction) -> Step | None:
        """Any other computation: step 0 when every operand has step 0."""
        ops = [self.of(i) for i in inst.ids()]
        if None in ops or any(s.k for s in ops):
            return None
        return Step(0, frozenset().union(*(s.extensions for s in ops)))

    def _chain(self, inst: Instruction) -> Step | None:
        r = self.r
        base, *idx = inst.ids()
        b = self.of(base)
        if b is None:
            return None
        k, exts = b.k, set(b.extensions)
        t = r.type_of(base).pointee
        pairs = []
        if inst.opname in ("OpPtrAccessChain", "OpInBoundsPtrAccessChain"):
            pairs.append((idx[0], T.size_of(t)))
            idx = idx[1:]
        for i in idx:
            if t.op == "Struct":
                t = t.members[int(r.m.constants[i].value or 0)]
                continue
            t = t.component
            pairs.append((i, T.size_of(t)))
        for i, size in pairs:
            s = self.of(i)
            if s is None:
                return None
            exts |= s.extensions
            width = self._width(i)
            if s.k and width < 64:
                exts.add(Extension(i, width, True, s.k))
            k += s.k * size
        return Step(_wrap(k, 64), frozenset(exts))


def root(r, defs: dict[int, Instruction], vid: int) -> tuple[int, int]:
    """Pointer ``vid`` as (another pointer, a constant byte offset from it): through copies,
    casts and access chains with constant indices (``a + 1`` of ``a``), as far as ``defs``
    go."""
    offset = 0
    while (inst := defs.get(vid)) is not None:
        if inst.opname in _SAME:
            vid = inst.ids()[0]
            continue
        if inst.opname not in ("OpPtrAccessChain", "OpInBoundsPtrAccessChain"):
            break
        base, *idx = inst.ids()
        c = [r.m.constants.get(i) for i in idx]
        if len(idx) != 1 or c[0] is None or not isinstance(c[0].value, int):
            break
        offset += _wrap(c[0].value, r.type_of(idx[0]).width) * T.size_of(r.type_of(base).pointee)
        vid = base
    return vid, offset

