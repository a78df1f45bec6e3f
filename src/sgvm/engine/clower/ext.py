"""C for OpExtInst OpenCL.std (SPIR-V OpenCL Extended Instruction Set 2.1).

Math maps onto CUDA's math library, whose ULP bounds meet OpenCL's full-profile
limits for the functions used here; square root and division are correctly
rounded (NVRTC's defaults); ``half`` computes in float and rounds once. The
``native_*`` and ``half_*`` forms use the full-precision functions. Vectors are
computed component-wise; the geometric functions fold their components.
Memory forms: vloadn / vstoren, vload_half[n], vloada_halfn, vstore_half[n] and
vstorea_halfn (any rounding mode: ``sg_to_half``), prefetch (no effect); printf in printf.py.
"""

from __future__ import annotations

from collections.abc import Callable

from ...spirv import Instruction, Type
from ..common import types as T
from . import ctypes_ as C

Ext = Callable[..., None]
EXT: dict[str, Ext] = {}

# name → (arity, C expression over {0}, {1}, {2} at float or double precision).
_MATH: dict[str, tuple[int, str]] = {
    **{n: (1, n + "({0})") for n in (
        "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "cos", "cosh", "erf",
        "erfc", "exp", "exp2", "exp10", "expm1", "floor", "lgamma", "log", "log10", "log1p",
        "log2", "logb", "rint", "round", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc",
        "rsqrt", "cospi", "sinpi")},
    **{n: (2, n + "({0}, {1})") for n in (
        "atan2", "copysign", "fdim", "fmod", "hypot", "nextafter", "pow", "remainder", "fmax",
        "fmin")},
    "fabs": (1, "fabs({0})"), "fma": (3, "fma({0}, {1}, {2})"),
    "acospi": (1, "(acos({0}) * 0.318309886183790671537767526745)"),
    "asinpi": (1, "(asin({0}) * 0.318309886183790671537767526745)"),
    "atanpi": (1, "(atan({0}) * 0.318309886183790671537767526745)"),
    "atan2pi": (2, "(atan2({0}, {1}) * 0.318309886183790671537767526745)"),
    "tanpi": (1, "(sinpi({0}) / cospi({0}))"),
    "powr": (2, "({0} < 0 ? NAN_ : pow({0}, {1}))"),
    "maxmag": (2, "sg_maxmag({0}, {1})"), "minmag": (2, "sg_minmag({0}, {1})"),
    "fmax_common": (2, "fmax({0}, {1})"), "fmin_common": (2, "fmin({0}, {1})"),
    "fclamp": (3, "fmin(fmax({0}, {1}), {2})"), "degrees": (1, "({0} * 57.29577951308232)"),
    "radians": (1, "({0} * 0.017453292519943295)"), "mix": (3, "({0} + ({1} - {0}) * {2})"),
    "step": (2, "({1} < {0} ? 0.0 : 1.0)"), "smoothstep": (3, "sg_smoothstep({0}, {1}, {2})"),
    "sign": (1, "sg_sign({0})"),
}
for _n in ("cos", "exp", "exp10", "exp2", "log", "log10", "log2", "rsqrt", "sin", "sqrt", "tan"):
    _MATH["native_" + _n] = _MATH["half_" + _n] = _MATH[_n]
for _n, _e in (("divide", "({0} / {1})"), ("recip", "(1.0 / {0})"), ("powr", "pow({0}, {1})")):
    _MATH["native_" + _n] = _MATH["half_" + _n] = (2 if "{1}" in _e else 1, _e)


def _fmath(t: Type, expr: str, args: list[str]) -> str:
    """``expr`` at ``t``'s precision: float functions get the ``f`` suffix / float literals."""
    if t.width == 64:
        return "(double)" + expr.replace("NAN_", "__longlong_as_double(0x7ff8000000000000LL)") \
            .format(*args)
    e = expr
    for fn in sorted({w.split("(")[0] for w in e.replace("(", "( ").split() if w.endswith("(")},
                     key=len, reverse=True):
        if fn and fn.isidentifier() and not fn.startswith("sg_"):
            e = e.replace(fn + "(", fn + "f(")
    e = e.replace("NAN_", "__int_as_float(0x7fc00000)")
    import re

    e = re.sub(r"(\d\.\d+)(?![\d.f])", r"\1f", e)
    if t.width == 16:
        return "f2h((float)" + e.format(*(f"h2f({a})" for a in args)) + ")"
    return "(float)" + e.format(*args)


def _leaves(r, vid: int, n: int) -> list[str]:
    lv = r.leaves(vid)
    return lv * n if len(lv) == 1 else lv


def _math(name: str, arity: int, expr: str) -> Ext:
    def render(r, inst: Instruction, ids: list[int]) -> None:
        lt = C.leaf_types(r.rtype(inst))
        args = [_leaves(r, i, len(lt)) for i in ids[:arity]]
        r.assign(inst, [_fmath(s, expr, [a[k] for a in args]) for k, s in enumerate(lt)])
    return render


for _n, (_a, _e) in _MATH.items():
    EXT[_n] = _math(_n, _a, _e)


def ext(*names: str) -> Callable[[Ext], Ext]:
    def deco(fn: Ext) -> Ext:
        for n in names:
            EXT[n] = fn
        return fn
    return deco


@ext("mad")
def _mad(r, inst: Instruction, ids: list[int]) -> None:
    """mad: one rounding for half/float (the CPU engine's choice), two for double."""
    lt = C.leaf_types(r.rtype(inst))
    a, b, c = (_leaves(r, i, len(lt)) for i in ids)
    r.assign(inst, [_fmath(s, "fma({0}, {1}, {2})", [x, y, z]) if s.width < 64
                    else f"__dadd_rn(__dmul_rn({x}, {y}), {z})"
                    for x, y, z, s in zip(a, b, c, lt, strict=True)])


@ext("ldexp", "pown", "rootn")
def _int_arg(r, inst: Instruction, ids: list[int]) -> None:
    lt = C.leaf_types(r.rtype(inst))
    x, n = (_leaves(r, i, len(lt)) for i in ids)
    fmt = {"ldexp": "ldexp({0}, (int){1})", "pown": "pow({0}, (double)(int){1})",
           "rootn": "pow({0}, 1.0 / (double)(int){1})"}[inst.ext_opname]
    out = []
    for a, b, s in zip(x, n, lt, strict=True):
        xa = f"h2f({a})" if s.width == 16 else a
        e = fmt.format(f"(double){xa}", b)
        out.append(f"f2h((float){e})" if s.width == 16 else f"({C.scalar_ctype(s)}){e}")
    r.assign(inst, out)


@ext("frexp", "modf", "sincos", "fract", "lgamma_r", "remquo")
def _out_param(r, inst: Instruction, ids: list[int]) -> None:
    """Functions that also store through a pointer (their last operand)."""
    lt = C.leaf_types(r.rtype(inst))
    name = inst.ext_opname
    xs = [_leaves(r, i, len(lt)) for i in ids[:-1]]
    p = r.leaf(ids[-1])
    st = C.leaf_types(r.type_of(ids[-1]).pointee)
    out = []
    for k, s in enumerate(lt):
        ct, ot = C.scalar_ctype(s), C.scalar_ctype(st[k])
        w = "double" if s.width == 64 else "float"
        a = [f"({w})h2f({x[k]})" if s.width == 16 else x[k] for x in xs]
        off = k * T.size_of(st[0])
        conv = "f2h" if s.width == 16 else f"({ct})"
        oconv = "f2h" if st[k].op == "Float" and st[k].width == 16 else f"({ot})"
        body = {
            "frexp": f"int e; {w} m = frexp({a[0]}, &e); o = e; v = m;",
            "modf": f"{w} ip; v = modf({a[0]}, &ip); o = ip;",
            "sincos": f"v = sin({a[0]}); o = cos({a[0]});",
            "fract": f"{w} fl = floor({a[0]}); v = isnan({a[0]}) ? {a[0]} : isinf({a[0]}) ? "
                     f"({w})0 * {a[0]} + copysign(({w})0, {a[0]}) : "
                     f"fmin({a[0]} - fl, ({w}){'0x1.fffffffffffffp-1' if w == 'double' else '0x1.fffffep-1f'}); o = fl;",
            "lgamma_r": f"v = lgamma({a[0]}); o = ({a[0]} < 0 && fmod(floor({a[0]}), ({w})2) != 0) "
                        f"? -1 : 1;",
            "remquo": f"int q; v = remquo({a[0]}, {a[1]}, &q); o = q;",
        }[name]
        if w == "float":
            for fn in ("frexp", "modf", "sin", "cos", "floor", "lgamma", "fmod", "remquo", "fmin",
                       "copysign"):
                body = body.replace(fn + "(", fn + "f(")
        store = f"*({ot}*)({p} + {off}) = {oconv}(o);"
        cond = r.guard(ids[-1], f"({p} + {off})", T.size_of(st[k]), T.size_of(st[k]), 1)
        r.emit(f"{{ {w} v; double o; {body} {r.result_names(inst)[k]} = {conv}(v); "
               + (f"if ({cond}) {store} }}" if cond else f"{store} }}"))
    if out:
        r.assign(inst, out)


@ext("ilogb")
def _ilogb(r, inst: Instruction, ids: list[int]) -> None:
    st = C.leaf_types(r.type_of(ids[0]))
    r.assign(inst, [f"(u32)ilogb((double){'h2f(' + x + ')' if s.width == 16 else x})"
                    for x, s in zip(r.leaves(ids[0]), st, strict=True)])


@ext("nan")
def _nan(r, inst: Instruction, ids: list[int]) -> None:
    lt = C.leaf_types(r.rtype(inst))
    out = []
    for x, s in zip(_leaves(r, ids[0], len(lt)), lt, strict=True):
        out.append({16: f"(hbits)(0x7e00 | ({x} & 0x3ff))",
                    32: f"__int_as_float(0x7fc00000 | ((u32){x} & 0x3fffff))",
                    64: f"__longlong_as_double(0x7ff8000000000000LL | ((u64){x} & 0x7ffffffffffffULL))"}
                   [s.width])
    r.assign(inst, out)


# -- geometric ------------------------------------------------------------------------
def _wf(s: Type) -> str:
    return "double" if s.width == 64 else "float"


def _read(s: Type, x: str) -> str:
    return f"h2f({x})" if s.width == 16 else x


def _write(s: Type, e: str) -> str:
    return f"f2h((float)({e}))" if s.width == 16 else f"({C.scalar_ctype(s)})({e})"


@ext("cross")
def _cross(r, inst: Instruction, ids: list[int]) -> None:
    lt = C.leaf_types(r.rtype(inst))
    s = lt[0]
    a = [_read(s, x) for x in r.leaves(ids[0])]
    b = [_read(s, x) for x in r.leaves(ids[1])]
    out = [f"{a[1]} * {b[2]} - {a[2]} * {b[1]}", f"{a[2]} * {b[0]} - {a[0]} * {b[2]}",
           f"{a[0]} * {b[1]} - {a[1]} * {b[0]}"] + ["0"] * (len(lt) - 3)
    r.assign(inst, [_write(s, e) for e in out])


@ext("length", "fast_length", "distance", "fast_distance", "normalize", "fast_normalize")
def _geometric(r, inst: Instruction, ids: list[int]) -> None:
    name = inst.ext_opname.replace("fast_", "")
    s = C.leaf_types(r.type_of(ids[0]))[0]
    w = "double" if s.width == 64 else "double"  # accumulate in double: within OpenCL's bounds
    a = [f"({w}){_read(s, x)}" for x in r.leaves(ids[0])]
    if name == "distance":
        b = [f"({w}){_read(s, x)}" for x in r.leaves(ids[1])]
        a = [f"({x} - {y})" for x, y in zip(a, b, strict=True)]
    norm = "sqrt(" + " + ".join(f"{x} * {x}" for x in a) + ")"
    if name != "normalize":
        r.assign(inst, [_write(s, norm)])
        return
    r.emit(f"{{ {w} n_ = {norm}; " + " ".join(
        f"{n} = {_write(s, f'(n_ == 0 ? {x} : {x} / n_)')};"
        for n, x in zip(r.result_names(inst), a, strict=True)) + " }")


# -- select family ---------------------------------------------------------------------
@ext("select")
def _select(r, inst: Instruction, ids: list[int]) -> None:
    lt = C.leaf_types(r.rtype(inst))
    a, b = (_leaves(r, i, len(lt)) for i in ids[:2])
    ct = C.leaf_types(r.type_of(ids[2]))
    c = _leaves(r, ids[2], len(lt))
    vec = r.type_of(ids[2]).op == "Vector"
    out = []
    for x, y, z, s in zip(a, b, c, ct * len(lt) if len(ct) == 1 else ct, strict=True):
        test = f"(({C.signed_ctype(s)}){z} < 0)" if vec else f"({z} != 0)"
        out.append(f"({test} ? {y} : {x})")
    r.assign(inst, out)


@ext("bitselect")
def _bitselect(r, inst: Instruction, ids: list[int]) -> None:
    lt = C.leaf_types(r.rtype(inst))
    a, b, c = (_leaves(r, i, len(lt)) for i in ids)
    out = []
    for x, y, z, s in zip(a, b, c, lt, strict=True):
        ut = {16: "u16", 32: "u32", 64: "u64"}[s.width] if s.op == "Float" else C.scalar_ctype(s)
        bits = [f"sg_from_bits<{ut}>(sg_bits({v}))" for v in (x, y, z)]
        out.append(f"sg_from_bits<{C.scalar_ctype(s)}>(sg_bits(({ut})(({bits[0]} & ~{bits[2]}) | "
                   f"({bits[1]} & {bits[2]}))))")
    r.assign(inst, out)


@ext("shuffle", "shuffle2")
def _vec_shuffle(r, inst: Instruction, ids: list[int]) -> None:
    from .ops import dynamic_pick

    pool = [x for i in ids[:-1] for x in r.leaves(i)]
    n = len(r.leaves(ids[0]))
    mask = r.leaves(ids[-1])
    size = n * (len(ids) - 1)
    r.assign(inst, [dynamic_pick(pool, f"((u64){m} % {size})") for m in mask])


# -- integer ---------------------------------------------------------------------------
def _int(fmt: str) -> Ext:
    def render(r, inst: Instruction, ids: list[int]) -> None:
        lt = C.leaf_types(r.rtype(inst))
        args = [_leaves(r, i, len(lt)) for i in ids]
        out = []
        for k, s in enumerate(lt):
            ct, sc = C.scalar_ctype(s), C.signed_ctype(s)
            w = "u64" if s.width == 64 else "u32"
            ws = "s64" if s.width == 64 else "s32"
            out.append("(" + ct + ")(" + fmt.format(*(a[k] for a in args), ct=ct, sc=sc, w=s.width,
                                                    u=w, s=ws) + ")")
        r.assign(inst, out)
    return render


for _n, _f in {
    "s_abs": "(({sc}){0} < 0 ? ({ct})(0 - {0}) : {0})", "u_abs": "{0}",
    "s_abs_diff": "(({sc}){0} > ({sc}){1} ? ({ct})({0} - {1}) : ({ct})({1} - {0}))",
    "u_abs_diff": "({0} > {1} ? ({ct})({0} - {1}) : ({ct})({1} - {0}))",
    "s_max": "(({sc}){0} > ({sc}){1} ? {0} : {1})", "u_max": "({0} > {1} ? {0} : {1})",
    "s_min": "(({sc}){0} < ({sc}){1} ? {0} : {1})", "u_min": "({0} < {1} ? {0} : {1})",
    "s_clamp": "(({sc}){0} < ({sc}){1} ? {1} : ({sc}){0} > ({sc}){2} ? {2} : {0})",
    "u_clamp": "({0} < {1} ? {1} : {0} > {2} ? {2} : {0})",
    "clz": "sg_clz<{ct}>({0}, {w})", "ctz": "sg_ctz<{ct}>({0}, {w})",
    "popcount": "sg_popcount<{ct}>({0}, {w})", "rotate": "sg_rotate<{ct}>({0}, {1}, {w})",
    "u_hadd": "({0} >> 1) + ({1} >> 1) + ({0} & {1} & 1)",
    "u_rhadd": "({0} >> 1) + ({1} >> 1) + (({0} | {1}) & 1)",
    "s_hadd": "(({sc}){0} >> 1) + (({sc}){1} >> 1) + ({0} & {1} & 1)",
    "s_rhadd": "(({sc}){0} >> 1) + (({sc}){1} >> 1) + (({0} | {1}) & 1)",
    "u_mul24": "({u}){0} * ({u}){1}", "s_mul24": "({s})({sc}){0} * ({s})({sc}){1}",
    "u_mad24": "({u}){0} * ({u}){1} + {2}", "s_mad24": "({s})({sc}){0} * ({s})({sc}){1} + {2}",
}.items():
    EXT[_n] = _int(_f)


@ext("u_mul_hi", "s_mul_hi", "u_mad_hi", "s_mad_hi", "u_add_sat", "s_add_sat", "u_sub_sat",
     "s_sub_sat", "u_mad_sat", "s_mad_sat")
def _wide_int(r, inst: Instruction, ids: list[int]) -> None:
    """High halves and saturating sums: exact in 64 bits below 64-bit operands, through
    the prelude's 128-bit helpers for them."""
    lt = C.leaf_types(r.rtype(inst))
    args = [_leaves(r, i, len(lt)) for i in ids]
    name = inst.ext_opname
    sgn = name.startswith("s_")
    out = []
    for k, s in enumerate(lt):
        w = s.width
        ct, sc = C.scalar_ctype(s), C.signed_ctype(s)
        a = [x[k] for x in args]
        if w == 64:
            out.append(_wide64(name, sgn, a))
            continue
        cast = f"(s64)({sc})" if sgn else "(s64)"
        lo, hi = _limits(w, sgn)
        if name.endswith("mul_hi"):
            e = f"(({cast}{a[0]} * {cast}{a[1]}) >> {w})"
        elif name.endswith("mad_hi"):
            e = f"((({cast}{a[0]} * {cast}{a[1]}) >> {w}) + {a[2]})"
        elif name == "u_mad_sat":  # (2**32 - 1)**2 + 2**32 - 1 < 2**64
            e = f"sg_umin64((u64){a[0]} * (u64){a[1]} + (u64){a[2]}, {hi}ULL)"
        else:
            v = {"add_sat": f"{cast}{a[0]} + {cast}{a[1]}", "sub_sat": f"{cast}{a[0]} - {cast}{a[1]}",
                 "mad_sat": f"{cast}{a[0]} * {cast}{a[1]} + {cast}{a[2]}"}[name[2:]]
            e = f"sg_clamp64({v}, {lo}LL, {hi}LL)"
        out.append(f"({ct})({e})")
    r.assign(inst, out)


def _wide64(name: str, sgn: bool, a: list[str]) -> str:
    """A 64-bit high half or saturating sum (the prelude's exact helpers)."""
    if name.endswith(("mul_hi", "mad_hi")):
        hi = f"(u64)__mul64hi((s64){a[0]}, (s64){a[1]})" if sgn else f"__umul64hi({a[0]}, {a[1]})"
        return hi if name.endswith("mul_hi") else f"({hi} + {a[2]})"
    if sgn or name == "u_mad_sat":
        return f"sg_{name[2:]}_{name[0]}64({', '.join(a)})"
    if name == "u_add_sat":
        return f"({a[0]} + {a[1]} < {a[0]} ? ~0ULL : {a[0]} + {a[1]})"
    return f"({a[0]} < {a[1]} ? 0ULL : {a[0]} - {a[1]})"


def _limits(w: int, sgn: bool) -> tuple[int, int]:
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if sgn else (0, (1 << w) - 1)


@ext("u_upsample", "s_upsample")
def _upsample(r, inst: Instruction, ids: list[int]) -> None:
    lt = C.leaf_types(r.rtype(inst))
    hi, lo = (_leaves(r, i, len(lt)) for i in ids)
    w = C.leaf_types(r.type_of(ids[0]))[0].width
    out = []
    for h, lw, s in zip(hi, lo, lt, strict=True):
        ct = C.scalar_ctype(s)
        out.append(f"({ct})((({ct}){h} << {w}) | ({ct}){lw})")
    r.assign(inst, out)


# -- memory ------------------------------------------------------------------------------
@ext("vloadn", "vload_half", "vload_halfn", "vloada_halfn")
def _vload(r, inst: Instruction, ids: list[int]) -> None:
    name = inst.ext_opname
    lt = C.leaf_types(r.rtype(inst))
    n = len(lt)
    stride = 4 if (name == "vloada_halfn" and n == 3) else n
    off, p = r.leaf(ids[0]), r.leaf(ids[1])
    half = name != "vloadn"
    size = 2 if half else T.size_of(lt[0])
    start = f"({p} + (u64){off} * {stride * size})"
    out = []
    for k, s in enumerate(lt):
        v = f"*(hbits*)({start} + {k * size})"
        out.append((f"h2f({v})" if s.width == 32 else f"(double)h2f({v})") if half
                   else f"*({C.scalar_ctype(s)}*)({start} + {k * size})")
    r.guarded_assign(inst, r.guard(ids[1], start, n * size, size, 0), out)


@ext("vstoren", "vstore_half", "vstore_halfn", "vstorea_halfn", "vstore_half_r",
     "vstore_halfn_r", "vstorea_halfn_r")
def _vstore(r, inst: Instruction, ids: list[int]) -> None:
    name = inst.ext_opname
    mode = int(inst.operands[5].value) if name.endswith("_r") else 0  # FPRoundingMode
    data, off, p = ids[:3]
    lt = C.leaf_types(r.type_of(data))
    n = len(lt)
    stride = 4 if (name.startswith("vstorea") and n == 3) else n
    half = name != "vstoren"
    size = 2 if half else T.size_of(lt[0])
    start = f"({r.leaf(p)} + (u64){r.leaf(off)} * {stride * size})"
    lines = []
    for k, (x, s) in enumerate(zip(r.leaves(data), lt, strict=True)):
        addr = f"({start} + {k * size})"
        lines.append(f"*(hbits*){addr} = sg_to_half((double){x}, {mode});" if half
                     else f"*({C.scalar_ctype(s)}*){addr} = {x};")
    r.guarded(r.guard(p, start, n * size, size, 1), lines)


@ext("prefetch")
def _prefetch(r, inst: Instruction, ids: list[int]) -> None:
    """prefetch: a performance hint with no effect."""
