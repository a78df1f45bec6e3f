"""Arithmetic, bitwise, logical and comparison instructions (SPIR-V 1.6 s3.52.13-15).

Integers are unsigned NumPy arrays that wrap at their width; signed
instructions view them as signed. Choices where the specification says
"undefined" (documented in docs/engine.md): shifts use the shift amount
modulo the bit width (as Intel GPUs and x86 do); integer division by zero
yields 0 (and INT_MIN / -1 yields INT_MIN).
"""

from __future__ import annotations

import numpy as np

from ..common.types import signed
from .registry import Op, builder
from .values import Affine, GroupUniform, affine, arr, group_binary

# -- helpers -------------------------------------------------------------------


def _s(x):
    """View an unsigned integer (array or scalar) as signed."""
    return x.view(signed(x.dtype))


def _u(x, dt):
    return x.view(dt) if x.dtype != dt else x


def _mixed_vs(a, b, va: bool, vb: bool):
    """Make a per-lane scalar broadcast against a vector (OpVectorTimesScalar & co.)."""
    if vb and not va and np.ndim(a) == 1:
        a = a[:, None]
    if va and not vb and np.ndim(b) == 1:
        b = b[:, None]
    return a, b


def _sdiv(a, b):
    dt = a.dtype
    a, b = _s(a), _s(b)
    bz = b == 0
    b1 = np.where(bz | ((b == -1) & (a == np.iinfo(a.dtype).min)), np.ones_like(b), b)
    q = np.fmod(a, b1)  # C remainder has the dividend's sign
    q = (a - q) // b1
    return np.where(bz, 0, np.where(b1 != b, a, q)).astype(a.dtype).view(dt)[()]


def _srem(a, b):
    dt = a.dtype
    a, b = _s(a), _s(b)
    b1 = np.where((b == 0) | (b == -1), np.ones_like(b), b)
    return np.where(b == 0, 0, np.fmod(a, b1)).astype(a.dtype).view(dt)[()]


def _smod(a, b):
    dt = a.dtype
    a, b = _s(a), _s(b)
    b1 = np.where((b == 0) | (b == -1), np.ones_like(b), b)
    return np.where(b == 0, 0, np.mod(a, b1)).astype(a.dtype).view(dt)[()]


def _udiv(a, b):
    b1 = np.where(b == 0, np.ones_like(b), b)
    return np.where(b == 0, 0, a // b1).astype(a.dtype)[()]


def _umod(a, b):
    b1 = np.where(b == 0, np.ones_like(b), b)
    return np.where(b == 0, 0, a % b1).astype(a.dtype)[()]


def _shift_amount(a, b):
    bits = a.dtype.itemsize * 8
    return (b & type(b)(bits - 1) if np.ndim(b) == 0 else b & (bits - 1)).astype(a.dtype)


def _shl(a, b):
    return a << _shift_amount(a, b)


def _shr_logical(a, b):
    return a >> _shift_amount(a, b)


def _shr_arith(a, b):
    return (_s(a) >> _shift_amount(a, b).view(signed(a.dtype))).view(a.dtype)


BINARY = {
    "OpIAdd": np.add, "OpISub": np.subtract, "OpIMul": np.multiply,
    "OpUDiv": _udiv, "OpSDiv": _sdiv, "OpUMod": _umod, "OpSRem": _srem, "OpSMod": _smod,
    "OpFAdd": np.add, "OpFSub": np.subtract, "OpFMul": np.multiply, "OpFDiv": np.divide,
    "OpFRem": np.fmod, "OpFMod": np.mod,
    "OpShiftLeftLogical": _shl, "OpShiftRightLogical": _shr_logical,
    "OpShiftRightArithmetic": _shr_arith,
    "OpBitwiseAnd": np.bitwise_and, "OpBitwiseOr": np.bitwise_or, "OpBitwiseXor": np.bitwise_xor,
    "OpLogicalAnd": np.logical_and, "OpLogicalOr": np.logical_or,
    "OpLogicalEqual": np.equal, "OpLogicalNotEqual": np.not_equal,
    "OpIEqual": np.equal, "OpINotEqual": np.not_equal,
    "OpUGreaterThan": np.greater, "OpUGreaterThanEqual": np.greater_equal,
    "OpULessThan": np.less, "OpULessThanEqual": np.less_equal,
    "OpSGreaterThan": lambda a, b: _s(a) > _s(b), "OpSGreaterThanEqual": lambda a, b: _s(a) >= _s(b),
    "OpSLessThan": lambda a, b: _s(a) < _s(b), "OpSLessThanEqual": lambda a, b: _s(a) <= _s(b),
    "OpFOrdEqual": np.equal, "OpFOrdLessThan": np.less, "OpFOrdGreaterThan": np.greater,
    "OpFOrdLessThanEqual": np.less_equal, "OpFOrdGreaterThanEqual": np.greater_equal,
    "OpFOrdNotEqual": lambda a, b: (a != b) & ~np.isnan(a) & ~np.isnan(b),
    "OpFUnordEqual": lambda a, b: (a == b) | np.isnan(a) | np.isnan(b),
    "OpFUnordNotEqual": np.not_equal,
    "OpFUnordLessThan": lambda a, b: ~(a >= b), "OpFUnordGreaterThan": lambda a, b: ~(a <= b),
    "OpFUnordLessThanEqual": lambda a, b: ~(a > b),
    "OpFUnordGreaterThanEqual": lambda a, b: ~(a < b),
    "OpOrdered": lambda a, b: ~np.isnan(a) & ~np.isnan(b),
    "OpUnordered": lambda a, b: np.isnan(a) | np.isnan(b),
}
UNARY = {
    "OpSNegate": lambda a: (np.zeros_like(a) - a),
    "OpFNegate": np.negative, "OpNot": np.invert, "OpLogicalNot": np.logical_not,
    "OpIsNan": np.isnan, "OpIsInf": np.isinf, "OpIsFinite": np.isfinite,
    "OpIsNormal": lambda a: np.isfinite(a) & (np.abs(a) >= np.finfo(a.dtype).tiny),
    "OpSignBitSet": np.signbit,
    "OpBitCount": lambda a: np.bitwise_count(a).astype(a.dtype),
    "OpBitReverse": lambda a: _bit_reverse(a),
}
_CMP_AFFINE = {"OpULessThan", "OpSLessThan", "OpULessThanEqual", "OpSLessThanEqual",
               "OpUGreaterThan", "OpSGreaterThan", "OpUGreaterThanEqual", "OpSGreaterThanEqual"}


def _bit_reverse(a):
    bits = a.dtype.itemsize * 8
    out = np.zeros_like(a)
    for i in range(bits):
        out |= ((a >> a.dtype.type(i)) & a.dtype.type(1)) << a.dtype.type(bits - 1 - i)
    return out


def _affine_binary(op: str, a, b, S: int):
    """``op`` on an Affine and a uniform scalar / another Affine, or None.

    ``S``: the sub-group size, for results constant within each sub-group."""
    ta, tb = type(a) is Affine, type(b) is Affine
    if ta and tb:
        if op == "OpIAdd":
            return affine(a.base + b.base, a.stride + b.stride, a.n, a.dtype)
        if op == "OpISub":
            return affine(a.base - b.base, a.stride - b.stride, a.n, a.dtype)
        return None
    if ta and np.ndim(b) == 0:
        c = int(b)
        if op == "OpIAdd":
            return affine(a.base + c, a.stride, a.n, a.dtype)
        if op == "OpISub":
            return affine(a.base - c, a.stride, a.n, a.dtype)
        if op == "OpIMul":
            return affine(a.base * c, a.stride * c, a.n, a.dtype)
        if op == "OpShiftLeftLogical" and c < a.dtype.itemsize * 8:
            return affine(a.base << c, a.stride << c, a.n, a.dtype)
        if op in _CMP_AFFINE:
            return _affine_compare(op, a, c)
        if op in _GROUP_CONSTANT:
            return _affine_per_group(op, a, c, S)
        return None
    if tb and np.ndim(a) == 0:
        c = int(a)
        if op == "OpIAdd":
            return affine(b.base + c, b.stride, b.n, b.dtype)
        if op == "OpISub":
            return affine(c - b.base, -b.stride, b.n, b.dtype)
        if op == "OpIMul":
            return affine(b.base * c, b.stride * c, b.n, b.dtype)
    return None


# Unsigned ``x op c`` that is constant on an integer range whose bounds share the
# bits above ``spread`` (the highest bit where they differ, plus one).
_GROUP_CONSTANT = {
    "OpBitwiseAnd": lambda c, spread: c & ((1 << spread) - 1) == 0,
    "OpShiftRightLogical": lambda c, spread: spread <= c,
    "OpUDiv": lambda c, spread: c > 0 and c & (c - 1) == 0 and spread <= c.bit_length() - 1,
}


def _affine_per_group(op: str, a: Affine, c: int, S: int) -> GroupUniform | None:
    """``op`` on an Affine and a constant when the result is the same in every lane of
    each sub-group (``gid & ~15``, ``gid >> 4``, ``gid / 16`` with ``S = 16``), else None."""
    if a.n % S or a.stride < 0 or (op == "OpShiftRightLogical" and c >= a.dtype.itemsize * 8):
        return None
    first = Affine(a.base, a.stride * S, a.n // S, a.dtype).materialize()
    last = first + a.dtype.type(a.stride * (S - 1))  # no wrap: Affine's invariant
    spread = int(np.bitwise_or.reduce(first ^ last)).bit_length()
    if not _GROUP_CONSTANT[op](c, spread):
        return None
    return GroupUniform(BINARY[op](first, a.dtype.type(c)), S)


def _affine_compare(op: str, a: Affine, c: int):
    """A uniform bool when the comparison agrees on every lane, else None."""
    if op[2] == "S" and c >= 1 << (a.dtype.itemsize * 8 - 1):
        c -= 1 << (a.dtype.itemsize * 8)
    lo, hi = min(a.base, a.last), max(a.base, a.last)
    rel = op[3:]
    tests = {"LessThan": (hi < c, lo >= c), "LessThanEqual": (hi <= c, lo > c),
             "GreaterThan": (lo > c, hi <= c), "GreaterThanEqual": (lo >= c, hi < c)}
    yes, no = tests[rel]
    if yes:
        return np.True_
    if no:
        return np.False_
    return None


def _lazy_binary(opname: str, f, x, y, st, vector: bool, mixed: bool):
    """``f(x, y)`` kept lazy or computed without materialising a lazy operand, else None
    (``mixed``: one operand is a vector and the other a scalar)."""
    tx, ty = type(x), type(y)
    if (tx is GroupUniform or ty is GroupUniform) and not mixed:
        return group_binary(f, x, y, vector)
    if tx is Affine or ty is Affine:
        return _affine_binary(opname, x, y, st.geom.sub_group_size)
    return None


@builder(*BINARY, affine="produce")
def _binary(ctx, inst) -> Op:
    a, b = inst.operands[0].value, inst.operands[1].value
    d = inst.result_id
    f = BINARY[inst.opname]
    vec = ctx.rtype(inst).op == "Vector"
    va, vb = ctx.is_vector(a), ctx.is_vector(b)
    opname = inst.opname
    mixed = va != vb
    may_affine = a in ctx.maybe_affine or b in ctx.maybe_affine
    if opname.startswith(("OpShift",)):
        def run(r, st):
            x, y = r[a], r[b]
            if may_affine:
                v = _lazy_binary(opname, f, x, y, st, vec, mixed)
                if v is not None:
                    return v
                x, y = arr(x), arr(y)
            if mixed:
                x, y = _mixed_vs(x, y, va, vb)
            return f(x, y)
        return Op(d, run, True, vec)

    if may_affine:
        def run(r, st):
            x, y = r[a], r[b]
            v = _lazy_binary(opname, f, x, y, st, vec, mixed)
            if v is not None:
                return v
            return f(arr(x), arr(y))
        return Op(d, run, True, vec)
    if mixed:
        def run(r, st):
            x, y = _mixed_vs(r[a], r[b], va, vb)
            return f(x, y)
        return Op(d, run, True, vec)
    def run(r, st):
        return f(r[a], r[b])

    return Op(d, run, True, vec)


@builder(*UNARY)
def _unary(ctx, inst) -> Op:
    a = inst.operands[0].value
    f = UNARY[inst.opname]
    return Op(inst.result_id, lambda r, st: f(r[a]), True, ctx.rtype(inst).op == "Vector")


@builder("OpVectorTimesScalar")
def _vts(ctx, inst) -> Op:
    v, s = inst.operands[0].value, inst.operands[1].value

    def run(r, st):
        x = r[s]
        return r[v] * (x[:, None] if np.ndim(x) == 1 else x)

    return Op(inst.result_id, run, True, True)


@builder("OpSelect")
def _select(ctx, inst) -> Op:
    c, a, b = (o.value for o in inst.operands)
    vec = ctx.rtype(inst).op == "Vector"
    cvec = ctx.is_vector(c)
    agg = ctx.rtype(inst).op in ("Struct", "Array")

    def run(r, st):
        cond, x, y = r[c], arr(r[a]), arr(r[b])
        if np.ndim(cond) == 0:
            return x if cond else y
        if agg:
            return tuple(np.where(cond, xi, yi) for xi, yi in zip(x, y, strict=False))
        if vec and not cvec:
            cond = cond[:, None]
        return np.where(cond, x, y)

    return Op(inst.result_id, run, True, vec)


@builder("OpAny", "OpAll")
def _any_all(ctx, inst) -> Op:
    a = inst.operands[0].value
    f = np.any if inst.opname == "OpAny" else np.all

    def run(r, st):
        x = r[a]
        if x.dtype != bool:  # clang applies OpAny to integer vectors: test the sign bit
            x = _s(x) < 0
        return f(x, axis=-1)[()]

    return Op(inst.result_id, run, True, False)


@builder("OpDot")
def _dot(ctx, inst) -> Op:
    a, b = inst.operands[0].value, inst.operands[1].value
    return Op(inst.result_id, lambda r, st: np.sum(r[a] * r[b], axis=-1, dtype=ctx.dtype(inst))[()],
              True, False)


def _carry_op(name: str):
    def run2(x, y):
        if name == "OpIAddCarry":
            s = x + y
            return (s, (s < x).astype(x.dtype))
        if name == "OpISubBorrow":
            return (x - y, (y > x).astype(x.dtype))
        bits = x.dtype.itemsize * 8
        if name == "OpUMulExtended":
            if bits <= 32:
                p = x.astype(np.uint64) * y.astype(np.uint64)
                return (p.astype(x.dtype), (p >> np.uint64(bits)).astype(x.dtype))
            return _mul_hi64(x, y, False)
        if bits <= 32:
            p = _s(x).astype(np.int64) * _s(y).astype(np.int64)
            return (p.astype(x.dtype), (p >> np.int64(bits)).astype(x.dtype))
        return _mul_hi64(x, y, True)
    return run2


def _mul_hi64(x, y, sgn: bool):
    x, y = np.asarray(x, np.uint64), np.asarray(y, np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    xl, xh, yl, yh = x & m32, x >> s32, y & m32, y >> s32
    ll, lh, hl, hh = xl * yl, xl * yh, xh * yl, xh * yh
    mid = (ll >> s32) + (lh & m32) + (hl & m32)
    hi = hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
    if sgn:
        hi = hi - np.where(_s(x) < 0, y, 0).astype(np.uint64) - np.where(_s(y) < 0, x, 0).astype(np.uint64)
    return (x * y, hi)


@builder("OpIAddCarry", "OpISubBorrow", "OpUMulExtended", "OpSMulExtended")
def _extended(ctx, inst) -> Op:
    a, b = inst.operands[0].value, inst.operands[1].value
    f = _carry_op(inst.opname)
    return Op(inst.result_id, lambda r, st: f(r[a], r[b]), True, False)


BINARY["OpLessOrGreater"] = BINARY["OpFOrdNotEqual"]
builder("OpLessOrGreater")(_binary)
