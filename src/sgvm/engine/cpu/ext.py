"""OpExtInst: OpenCL.std (SPIR-V OpenCL Extended Instruction Set, rev. 2.1).

Pure instructions dispatch to ``extinst.OPENCL_STD`` (a colleague's table; its
contract is in docs/internals.md). The instructions that touch memory are
here: vloadn / vstoren, the half family (vload_half[n], vloada_halfn,
vstore_half[n][_r], vstorea_halfn[_r]), prefetch (no effect) and printf,
whose per-lane output is collected in work-item order.
"""

from __future__ import annotations

import numpy as np

from ...errors import UnsupportedError
from ...runtime.memory import OFFSET_BITS, OFFSET_MASK, allocation
from ..common import types as T
from ..common.printf import format_printf, parse_format
from .extinst import (
    ENGINE_INSTRUCTIONS,
    OPENCL_STD,
    STORES_THROUGH_POINTER,
    TAKES_WIDTH,
    float_to_half_bits,
    half_bits_to_float,
)
from .memory_access import load, store
from .registry import Op, builder
from .values import arr, lanes

U16 = np.dtype(np.uint16)
U64 = np.dtype(np.uint64)


def _address(p, offset, stride: int):
    """``p + offset * stride`` (offset a size_t, per lane or uniform)."""
    p, offset = arr(p), arr(offset)
    return p + np.asarray(offset).astype(np.uint64) * np.uint64(stride) if np.ndim(offset) or np.ndim(
        p) else np.uint64((int(p) + int(offset) * stride) % (1 << 64))


@builder("OpExtInst")
def _ext(ctx, inst) -> Op:
    set_name = ctx.module.ext_inst_imports.get(inst.operands[0].value, "")
    name = inst.ext_opname or str(inst.operands[1].value)
    if set_name != "OpenCL.std":
        raise UnsupportedError(f"extended instruction set {set_name!r} ({name})")
    ids = [o.value for o in inst.operands[2:]]
    if name in ENGINE_INSTRUCTIONS:
        return _MEMORY[name](ctx, inst, ids)
    fn = OPENCL_STD.get(name)
    if fn is None:
        raise UnsupportedError(f"unsupported OpenCL.std instruction {name}")
    rt = ctx.rtype(inst)
    rtype = T.dtype_of(rt)
    vec = rt.op == "Vector"
    kw = {"rtype": rtype}
    if name in TAKES_WIDTH:
        kw["n"] = T.width(ctx.type_of(ids[0]))
    if name in STORES_THROUGH_POINTER:
        k = STORES_THROUGH_POINTER[name]
        pid = ids[k]
        pt = ctx.type_of(pid).pointee
        sdt, sn = T.dtype_of(pt), T.width(pt)

        def run_store(r, st):
            res, val = fn(*(arr(r[i]) for i in ids), **kw)
            store(st, r[pid], val, sdt, sn, sdt.itemsize)
            return res

        return Op(inst.result_id, run_store, False, vec)
    return Op(inst.result_id, lambda r, st: fn(*(arr(r[i]) for i in ids), **kw), True, vec)


def _vloadn(ctx, inst, ids) -> Op:
    off, p, n = ids[0], ids[1], inst.operands[4].value
    dt = ctx.dtype(inst)
    s = dt.itemsize
    return Op(inst.result_id, lambda r, st: load(st, _address(r[p], r[off], n * s), dt, n, s),
              False, True)


def _vstoren(ctx, inst, ids) -> Op:
    data, off, p = ids
    t = ctx.type_of(data)
    dt, n = T.dtype_of(t), T.width(t)
    s = dt.itemsize

    def run(r, st):
        store(st, _address(r[p], r[off], n * s), r[data], dt, n, s)

    return Op(0, run, False, False)


def _vload_half(ctx, inst, ids) -> Op:
    name = inst.ext_opname
    off, p = ids[0], ids[1]
    n = inst.operands[4].value if name != "vload_half" else 1
    stride = 4 if (name == "vloada_halfn" and n == 3) else n
    dt = ctx.dtype(inst)

    def run(r, st):
        bits = load(st, _address(r[p], r[off], stride * 2), U16, n, 2)
        return half_bits_to_float(bits, dt)

    return Op(inst.result_id, run, False, n > 1)


def _vstore_half(ctx, inst, ids) -> Op:
    name = inst.ext_opname
    data, off, p = ids[0], ids[1], ids[2]
    mode = inst.operands[5].value if name.endswith("_r") else 0
    n = T.width(ctx.type_of(data))
    stride = 4 if (name.startswith("vstorea") and n == 3) else n

    def run(r, st):
        bits = float_to_half_bits(arr(r[data]), mode)
        store(st, _address(r[p], r[off], stride * 2), bits, U16, n, 2)

    return Op(0, run, False, False)


def _prefetch(ctx, inst, ids) -> Op | None:
    return None


def c_string(ptr: int) -> str:
    """The NUL-terminated string at tagged pointer ``ptr``."""
    a = allocation(int(ptr) >> OFFSET_BITS)
    if a is None:
        raise UnsupportedError("printf: string argument is not a valid pointer")
    data = a.data[int(ptr) & OFFSET_MASK:]
    end = np.flatnonzero(data == 0)
    return bytes(data[: end[0] if len(end) else len(data)]).decode("latin-1")


def _printf(ctx, inst, ids) -> Op:
    fmt_id, args = ids[0], ids[1:]
    vecs = [ctx.is_vector(a) for a in args]
    rdt = ctx.dtype(inst)

    def run(r, st):
        fmt = c_string(int(arr(r[fmt_id]))) if np.ndim(arr(r[fmt_id])) == 0 else None
        mask = st.mask
        lanes_ = np.arange(st.L) if mask is None else np.flatnonzero(mask)
        vals = [lanes(r[a], st.L, v) for a, v in zip(args, vecs, strict=False)]
        fmts = lanes(r[fmt_id], st.L)
        gl = st.builtin("GlobalLinearId", U64, 1)
        gl = lanes(gl, st.L)
        for k in lanes_:
            f = fmt if fmt is not None else c_string(int(fmts[k]))
            try:  # an invalid format prints nothing and printf returns -1 (as on CUDA)
                specs = [s for s in parse_format(f) if not isinstance(s, str)]
                row = []
                for i, v in enumerate(vals):
                    x = v[k]
                    if i < len(specs) and specs[i].conv == "s":
                        x = c_string(int(x))
                    row.append(x)
                st.printf.append((int(gl[k]), format_printf(f, row)))
            except ValueError:
                return rdt.type(-1 % (1 << (8 * rdt.itemsize)))
        return rdt.type(0)

    return Op(inst.result_id, run, False, False)


_MEMORY = {
    "vloadn": _vloadn, "vstoren": _vstoren,
    "vload_half": _vload_half, "vload_halfn": _vload_half, "vloada_halfn": _vload_half,
    "vstore_half": _vstore_half, "vstore_half_r": _vstore_half, "vstore_halfn": _vstore_half,
    "vstore_halfn_r": _vstore_half, "vstorea_halfn": _vstore_half, "vstorea_halfn_r": _vstore_half,
    "prefetch": _prefetch, "printf": _printf,
}
