"""C for the conversions (SPIR-V 1.6 s3.52.11): OpConvert*, OpUConvert, OpSConvert,
OpFConvert, OpSatConvert*, OpBitcast, with FPRoundingMode and SaturatedConversion
decorations; registered into ``ops.OPS`` when ``ops`` is imported.

As on the CPU engine (docs/engine.md): float → integer saturates, NaN → 0.
"""

from __future__ import annotations

from ...spirv import Instruction, Type
from ..common import types as T
from . import ctypes_ as C
from .ops import OPS, ids, operand_leaves, registrar

op = registrar(OPS)

_LIMITS = {(8, False): (0, 255), (8, True): (-128, 127), (16, False): (0, 65535),
           (16, True): (-32768, 32767), (32, False): (0, 4294967295),
           (32, True): (-2147483648, 2147483647)}


def _to_double(s: Type, x: str) -> str:
    return f"(double)h2f({x})" if s.width == 16 else f"(double){x}"


_ROUND = {"RTE": "rint", "RTZ": "", "RTP": "ceil", "RTN": "floor"}
_CUDA_ROUND = {"RTE": "rn", "RTZ": "rz", "RTP": "ru", "RTN": "rd"}
_HALF_ROUND = {"RTE": 0, "RTZ": 1, "RTP": 2, "RTN": 3}  # sg_to_half's modes (FPRoundingMode)


def _int_to_float(x: str, s: Type, d: Type, signed: bool, mode: str) -> str:
    """Integer → float or double rounded by ``mode`` (CUDA's __int2float_rz & co.)."""
    rnd = _CUDA_ROUND[mode]
    if d.width == 64 and s.width <= 32:
        return f"(double)({C.signed_ctype(s)}){x}" if signed else f"(double){x}"
    if s.width <= 32:
        src = f"(int)({C.signed_ctype(s)}){x}" if signed else f"(unsigned){x}"
        fn = "int" if signed else "uint"
    else:
        src = f"(long long){x}" if signed else f"(unsigned long long){x}"
        fn = "ll" if signed else "ull"
    return f"__{fn}2{'double' if d.width == 64 else 'float'}_{rnd}({src})"


def _int_convert(x: str, s: Type, d: Type, src_signed: bool, dst_signed: bool, sat: bool) -> str:
    """Integer → integer (the CPU engine's ``convert._int_convert``): wrap, or saturate to
    ``d``'s range computed in s64 (u64 for a 64-bit unsigned source)."""
    ct = C.scalar_ctype(d)
    if not sat:
        if src_signed and d.width > s.width:
            return f"({ct})({C.signed_ctype(d)})({C.signed_ctype(s)}){x}"
        return f"({ct}){x}"
    lo, hi = _LIMITS.get((d.width, dst_signed), (0, (1 << 64) - 1) if not dst_signed
                         else (-(1 << 63), (1 << 63) - 1))
    if src_signed or s.width < 64:
        v = f"(s64)({C.signed_ctype(s)}){x}" if src_signed else f"(s64){x}"
        lo, hi = max(lo, -(1 << 63)), min(hi, (1 << 63) - 1)
        return f"({ct})sg_clamp64({v}, {lo + 1}LL - 1, {hi}LL)"
    return f"({ct})((u64){x} > {hi}ULL ? {hi}ULL : (u64){x})"


@op("OpConvertFToU", "OpConvertFToS", "OpConvertSToF", "OpConvertUToF", "OpUConvert", "OpSConvert",
    "OpFConvert", "OpSatConvertSToU", "OpSatConvertUToS", "OpQuantizeToF16")
def _convert(r, inst: Instruction) -> None:
    """Conversions with the FPRoundingMode decoration (float → integer: default toward
    zero, always saturating, NaN → 0; to half through ``sg_to_half``) and
    SaturatedConversion on integer ones."""
    t = r.rtype(inst)
    (a,) = operand_leaves(r, inst, 1)
    st = C.leaf_types(r.type_of(ids(inst)[0]))
    out = []
    o = inst.opname
    rounding = r.m.decoration(inst.result_id, "FPRoundingMode")
    rnd = _ROUND[rounding[0]] if rounding and rounding[0] in _ROUND else ""
    sat = o.startswith("OpSat") or r.m.has_decoration(inst.result_id, "SaturatedConversion")
    for x, s, d in zip(a, st, C.leaf_types(t), strict=True):
        ct = C.scalar_ctype(d)
        if o in ("OpConvertFToU", "OpConvertFToS"):
            sgn = o == "OpConvertFToS"
            v = f"{rnd}({_to_double(s, x)})"
            if d.width == 64:
                f = "sg_f2s64" if sgn else "sg_f2u64"
                out.append(f"({ct}){f}({v})")
            else:
                lo, hi = _LIMITS[(d.width, sgn)]
                st_ = C.signed_ctype(d) if sgn else ct
                out.append(f"({ct})sg_f2i<{st_}>({v}, {lo}.0, {hi}.0)")
        elif o in ("OpConvertSToF", "OpConvertUToF", "OpFConvert") and rounding and d.width == 16:
            src = f"({C.signed_ctype(s)}){x}" if o == "OpConvertSToF" else x
            out.append(f"sg_to_half((double){src}, {_HALF_ROUND[rounding[0]]})")
        elif o in ("OpConvertSToF", "OpConvertUToF") and rounding and d.width > 16:
            out.append(_int_to_float(x, s, d, o == "OpConvertSToF", rounding[0]))
        elif o in ("OpConvertSToF", "OpConvertUToF"):
            src = f"({C.signed_ctype(s)}){x}" if o == "OpConvertSToF" else x
            if d.width == 16:
                out.append(f"d2h((double){src})" if s.width <= 32 else f"f2h((float){src})")
            else:
                out.append(f"({ct}){src}")
        elif o == "OpFConvert" and rounding and s.width == 64 and d.width == 32:
            out.append(f"__double2float_{_CUDA_ROUND[rounding[0]]}({x})")
        elif o == "OpFConvert":
            if d.width == 16:
                out.append(f"d2h({x})" if s.width == 64 else (f"f2h({x})" if s.width == 32 else x))
            elif s.width == 16:
                out.append(f"({ct})h2f({x})")
            else:
                out.append(f"({ct}){x}")
        elif o == "OpQuantizeToF16":
            out.append(f"h2f(f2h({x}))")
        else:
            src_signed = o in ("OpSConvert", "OpSatConvertSToU")
            dst_signed = o in ("OpSConvert", "OpSatConvertUToS")
            out.append(_int_convert(x, s, d, src_signed, dst_signed, sat))
    r.assign(inst, out)


@op("OpBitcast")
def _bitcast(r, inst: Instruction) -> None:
    t = r.rtype(inst)
    src = ids(inst)[0]
    st, dt = C.leaf_types(r.type_of(src)), C.leaf_types(t)
    a = r.leaves(src)
    if len(st) == len(dt) == 1:
        s, d = st[0], dt[0]
        if s.op == "Pointer" or d.op == "Pointer":
            r.assign(inst, [f"({C.scalar_ctype(d)})({'u64' if s.op == 'Pointer' else ''}){a[0]}"
                            if d.op == "Pointer" else f"({C.scalar_ctype(d)})(u64){a[0]}"])
        else:
            r.assign(inst, [f"sg_from_bits<{C.scalar_ctype(d)}>(sg_bits({a[0]}))"])
        return
    n = sum(T.size_of(s) for s in st)
    parts = [f"u8 bc[{n}];"]
    off = 0
    for x, s in zip(a, st, strict=True):
        parts.append(f"{{ {C.scalar_ctype(s)} v = {x}; memcpy(bc + {off}, &v, {T.size_of(s)}); }}")
        off += T.size_of(s)
    off = 0
    for name, d in zip(r.result_names(inst), dt, strict=True):
        parts.append(f"memcpy(&{name}, bc + {off}, {T.size_of(d)});")
        off += T.size_of(d)
    r.emit("{ " + " ".join(parts) + " }")
