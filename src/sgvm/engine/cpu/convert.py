"""Conversion instructions (SPIR-V 1.6 s3.52.11) with FPRoundingMode and
SaturatedConversion decorations (OpenCL C s6.4.3).

Float → integer conversions always saturate and map NaN to 0, as Intel GPUs
do; that is also exactly the ``_sat`` behaviour, and out-of-range values are
undefined without it. Integer/float narrowing with a directed rounding mode
rounds to nearest, then steps one ULP where that went the wrong way.
"""

from __future__ import annotations

import numpy as np

from ...spirv import Instruction
from ..common import types as T
from ..common.values import zero
from .registry import Op, builder
from .values import Affine, GroupUniform, affine, arr

_ROUND = {"RTE": np.rint, "RTZ": np.trunc, "RTP": np.ceil, "RTN": np.floor}


def _rounding(ctx, inst: Instruction) -> str | None:
    args = ctx.module.decoration(inst.result_id, "FPRoundingMode")
    return args[0] if args else None


def _saturated(ctx, inst: Instruction) -> bool:
    return ctx.module.has_decoration(inst.result_id, "SaturatedConversion")


def _int_range(dt: np.dtype, is_signed: bool) -> tuple[int, int]:
    bits = dt.itemsize * 8
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if is_signed else (0, (1 << bits) - 1)


def float_to_int(x, dt: np.dtype, is_signed: bool, mode: str | None):
    """Round (default toward zero), saturate, NaN → 0; result in unsigned ``dt``."""
    x = _ROUND[mode or "RTZ"](np.asarray(x, dtype=np.float64))
    lo, hi = _int_range(dt, is_signed)
    x = np.where(np.isnan(x), 0.0, x)
    sdt = T.signed(dt) if is_signed else dt
    big = x >= float(hi)  # float(hi) may round up to 2**bits
    out = np.clip(x, lo, hi).astype(sdt)
    out = np.where(big, sdt.type(hi), out)
    return out.view(dt) if is_signed else out


def round_float(x, dt: np.dtype, mode: str | None):
    """Convert floating/integer ``x`` to float ``dt`` with rounding ``mode`` (default RTE)."""
    r = np.asarray(x).astype(dt)
    if mode in (None, "RTE"):
        return r
    exact = np.asarray(x)
    back = r.astype(exact.dtype) if exact.dtype.kind == "f" else None
    if back is None:  # integer source: float64 is exact below 2**53, above it compare as integers
        wide = r.astype(np.float64)
        gt, lt = wide > exact.astype(np.float64), wide < exact.astype(np.float64)
        big = np.abs(exact.astype(np.float64)) >= 2.0**53
        if np.any(big):  # there r is integral; beyond the source type's range only its sign matters
            info = np.iinfo(exact.dtype)
            fits = (wide >= float(info.min)) & (wide < 2.0 ** (8 * exact.dtype.itemsize - (info.min < 0)))
            ri = np.where(fits, wide, 0.0).astype(exact.dtype)
            gt = np.where(big, np.where(fits, ri > exact, wide > 0), gt)
            lt = np.where(big, np.where(fits, ri < exact, wide < 0), lt)
    else:
        gt, lt = back > exact, back < exact
    inf = np.array(np.inf, dt)
    if mode == "RTZ":
        fix = np.where(r > 0, gt, lt)
        r = np.where(fix & np.isfinite(r), np.nextafter(r, np.zeros_like(r)), r)
        r = np.where(np.isinf(r) & ~np.isinf(exact), np.copysign(np.finfo(dt).max, r).astype(dt), r)
    elif mode == "RTP":
        r = np.where(lt, np.nextafter(r, inf), r)
        r = np.where(np.isinf(r) & (r < 0) & ~np.isinf(exact), -np.finfo(dt).max, r).astype(dt)
    elif mode == "RTN":
        r = np.where(gt, np.nextafter(r, -inf), r)
        r = np.where(np.isinf(r) & (r > 0) & ~np.isinf(exact), np.finfo(dt).max, r).astype(dt)
    return r if r.ndim else r[()]


def _int_convert(x, src: np.dtype, dst: np.dtype, src_signed: bool, dst_signed: bool, sat: bool):
    if src_signed:
        x = x.view(T.signed(src)) if isinstance(x, np.ndarray | np.generic) else x
    if sat:
        lo, hi = _int_range(dst, dst_signed)
        wide = np.asarray(x).astype(np.int64 if (src_signed or src.itemsize < 8) else np.uint64)
        if wide.dtype == np.uint64:
            wide = np.minimum(wide, np.uint64(hi)) if hi >= 0 else wide
            return wide.astype(dst)[()]
        return np.clip(wide, max(lo, -(1 << 63)), min(hi, (1 << 63) - 1)).astype(
            T.signed(dst) if dst_signed else dst).view(dst)[()]
    if src_signed:
        return np.asarray(x).astype(T.signed(dst)).view(dst)[()]
    return np.asarray(x).astype(dst)[()]


@builder("OpUConvert", "OpSConvert", "OpSatConvertSToU", "OpSatConvertUToS", affine="produce")
def _iconv(ctx, inst) -> Op:
    a = inst.operands[0].value
    src, dst = T.dtype_of(ctx.type_of(a)), ctx.dtype(inst)
    op = inst.opname
    src_signed = op in ("OpSConvert", "OpSatConvertSToU")
    dst_signed = op in ("OpSConvert", "OpSatConvertUToS")
    sat = op.startswith("OpSat") or _saturated(ctx, inst)
    if op == "OpUConvert" and sat:
        dst_signed = False

    def run(r, st):
        x = r[a]
        if type(x) is Affine:
            if not sat and max(x.base, x.last) < 1 << (min(src.itemsize, dst.itemsize) * 8 - 1):
                return affine(x.base, x.stride, x.n, dst)
            x = x.materialize()
        elif type(x) is GroupUniform:
            return GroupUniform(_int_convert(x.values, src, dst, src_signed, dst_signed, sat), x.k)
        return _int_convert(x, src, dst, src_signed, dst_signed, sat)

    return Op(inst.result_id, run, True, ctx.rtype(inst).op == "Vector")


@builder("OpConvertFToU", "OpConvertFToS")
def _ftoi(ctx, inst) -> Op:
    a = inst.operands[0].value
    dst = ctx.dtype(inst)
    sgn = inst.opname == "OpConvertFToS"
    mode = _rounding(ctx, inst)
    return Op(inst.result_id, lambda r, st: float_to_int(r[a], dst, sgn, mode)[()], True,
              ctx.rtype(inst).op == "Vector")


@builder("OpConvertSToF", "OpConvertUToF", "OpFConvert")
def _tof(ctx, inst) -> Op:
    a = inst.operands[0].value
    dst = ctx.dtype(inst)
    src = T.dtype_of(ctx.type_of(a))
    sgn = inst.opname == "OpConvertSToF"
    mode = _rounding(ctx, inst)

    def run(r, st):
        x = r[a]
        if sgn:
            x = x.view(T.signed(src))
        return round_float(x, dst, mode)

    return Op(inst.result_id, run, True, ctx.rtype(inst).op == "Vector")


def bitcast(x, src_t, dst_t) -> object:
    """Reinterpret the bytes of ``x`` (per lane) as ``dst_t`` (component counts may differ)."""
    sdt, ddt = T.dtype_of(src_t), T.dtype_of(dst_t)
    sn, dn = T.width(src_t), T.width(dst_t)
    x = np.ascontiguousarray(x, dtype=sdt)
    uniform = x.ndim == (1 if sn > 1 else 0)
    v = x.reshape(1 if uniform else x.shape[0], sn).view(ddt)
    if dn == 1:
        v = v[:, 0]
    return v[0] if uniform else v


@builder("OpBitcast", affine="produce")
def _bitcast(ctx, inst) -> Op:
    a = inst.operands[0].value
    st_, dt_ = ctx.type_of(a), ctx.rtype(inst)
    same = (T.dtype_of(st_) == T.dtype_of(dt_) and T.width(st_) == T.width(dt_)) or (
        st_.op == "Pointer" and dt_.op == "Pointer")
    ptr_int = {st_.op, dt_.op} <= {"Pointer", "Int"} and T.width(st_) == T.width(dt_) == 1
    if same or ptr_int:
        return Op(inst.result_id, lambda r, st: r[a], True, dt_.op == "Vector")
    return Op(inst.result_id, lambda r, st: bitcast(arr(r[a]), st_, dt_), True, dt_.op == "Vector")


@builder("OpConvertPtrToU", "OpConvertUToPtr", "OpPtrCastToGeneric", "OpGenericCastToPtr",
         "OpCopyObject", affine="produce")
def _identityish(ctx, inst) -> Op:
    a = inst.operands[0].value
    dst = ctx.rtype(inst)
    src = ctx.type_of(a)
    if dst.op == "Int" and dst.width != 64 and src.op == "Pointer":
        dt = T.dtype_of(dst)
        return Op(inst.result_id, lambda r, st: np.asarray(arr(r[a])).astype(dt)[()], True, False)
    if src.op == "Int" and src.width != 64 and dst.op == "Pointer":
        return Op(inst.result_id, lambda r, st: np.asarray(arr(r[a])).astype(np.uint64)[()], True, False)
    return Op(inst.result_id, lambda r, st: r[a], True, dst.op == "Vector")


@builder("OpCopyLogical")
def _copy_logical(ctx, inst) -> Op:
    a = inst.operands[0].value
    return Op(inst.result_id, lambda r, st: r[a], True, ctx.rtype(inst).op == "Vector")


@builder("OpSizeOf")
def _size_of(ctx, inst) -> Op:
    size = ctx.dtype(inst).type(T.size_of(ctx.type_of(inst.operands[0].value).pointee))
    return Op(inst.result_id, lambda r, st: size, True, False)


@builder("OpUndef")
def _undef(ctx, inst) -> Op:
    value = zero(ctx.rtype(inst))
    return Op(inst.result_id, lambda r, st: value, True, ctx.rtype(inst).op == "Vector")
