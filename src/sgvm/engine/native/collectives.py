"""C++ for the collectives on the CPU: loops over one sub-group's (or the work-group's)
lanes, with the rules of ``sgvm.semantics`` (docs/subgroups.md).

The lanes taking part are the active ones (``SG_ACT(l)``: every live lane when the block
runs for all of them, else those whose program counter is at this block). Reductions and
scans fold in increasing lane order, each step rounded to the value's type, starting from
the neutral value the NumPy engine fills inactive lanes with (``-0.0`` for a float sum,
NaN for fmin/fmax), so both backends give the same bits; an exclusive scan with no active
lane before it gives the identity. Shuffles read the source lane's value whether or not
it is active (undefined either way) and give 0 out of range. Block IO reads and writes
element ``i`` of lane ``l`` at ``p[l + i*S]`` from the first active lane's pointer, each
element checked like a load or store aligned to its size.
"""

from __future__ import annotations

import re

from ...errors import UnsupportedError
from ...spirv import Instruction, Type
from ..clower import ctypes_ as C
from ..clower.ops import constant_int, ids
from . import checks, vectors

SUBGROUP, WORKGROUP = 3, 2
SHUFFLES = ("OpSubgroupShuffleINTEL", "OpSubgroupShuffleDownINTEL", "OpSubgroupShuffleUpINTEL",
            "OpSubgroupShuffleXorINTEL")
_ARITH = {"OpGroupIAdd": "add", "OpGroupFAdd": "add", "OpGroupSMin": "smin",
          "OpGroupUMin": "umin", "OpGroupFMin": "fmin", "OpGroupSMax": "smax",
          "OpGroupUMax": "umax", "OpGroupFMax": "fmax"}


def at(r, vid: int, lane: str) -> list[str]:
    """The leaves of ``vid`` in lane ``lane`` (a C expression)."""
    r.across.add(vid)
    return [re.sub(r"\[l( - sg_[oc])?\]", f"[{lane}\\1]", x) for x in r.leaves(vid)]


def _loop(r, scope: int, k: int, body: list[str]) -> None:
    """Run ``body`` once per group of ``scope``: lanes ``[g0, g1)``."""
    act = f"(sg_all || sg_pc[l] == {k}u)"
    r.emit(f"#define SG_ACT(l) {act}")
    if scope == SUBGROUP and r.fused:  # the full sub-groups of a chunk (fused.py)
        r.emit(f"for (u32 g0 = sg_c; g0 < sg_c + {r.fused}; g0 += {r.S}u) {{ "
               f"const u32 g1 = g0 + {r.S}u;")
    elif scope == SUBGROUP and r.sub_group:  # the sub-groups of one bundle (regions.py)
        r.emit(f"for (u32 g0 = sg_o; g0 < sg_o + sg_n; g0 += {r.S}u) {{ "
               f"const u32 g1 = g0 + {r.S}u < sg_o + sg_n ? g0 + {r.S}u : sg_o + sg_n;")
    elif scope == WORKGROUP:
        r.emit("{ const u32 g0 = 0, g1 = sg_vol;")
    elif scope == SUBGROUP:
        r.emit(f"for (u32 g0 = 0; g0 < sg_vol; g0 += {r.S}u) {{ "
               f"const u32 g1 = g0 + {r.S}u < sg_vol ? g0 + {r.S}u : sg_vol;")
    else:
        raise UnsupportedError(f"native backend: collective with scope {scope}")
    r.emit("  u32 first = g0; while (first < g1 && !SG_ACT(first)) first++;")
    r.emit("  if (first < g1) {")
    for line in body:
        r.emit("    " + line)
    r.emit("  }")
    r.emit("}")
    r.emit("#undef SG_ACT")


def _unless_all(body: list[str]) -> list[str]:
    """``body`` twice: without the test of each lane where every lane is active (``sg_all``:
    a collective in a loop runs once per iteration), and as it is for the others."""
    return ["if (sg_all) {", *(x.replace("if (SG_ACT(l)) ", "") for x in body), "} else {",
            *body, "}"]


def _fold(kind: str, s: Type, acc: str, x: str) -> str:
    ct = C.scalar_ctype(s)
    if s.op == "Float":
        if s.width == 16:
            return {"add": f"sg_hadd({acc}, {x})", "fmin": f"sg_hmin({acc}, {x})",
                    "fmax": f"sg_hmax({acc}, {x})"}[kind]
        f = "" if s.width == 64 else "f"
        return {"add": f"({acc} + {x})", "fmin": f"fmin{f}({acc}, {x})",
                "fmax": f"fmax{f}({acc}, {x})"}[kind]
    if kind == "add":
        return f"({ct})((u64){acc} + (u64){x})"
    sct = C.signed_ctype(s)
    cmp = {"smin": f"({sct}){x} < ({sct}){acc}", "smax": f"({sct}){x} > ({sct}){acc}",
           "umin": f"{x} < {acc}", "umax": f"{x} > {acc}"}[kind]
    return f"({cmp} ? {x} : {acc})"


def _values(kind: str, s: Type) -> tuple[str, str]:
    """(neutral start, identity) of ``kind`` on ``s`` (semantics.collectives)."""
    if s.op == "Float":
        bits = {16: ("0x8000", "0x7e00", "0x7c00", "0xfc00"),
                32: ("-0.0f", "NAN", "INFINITY", "-INFINITY"),
                64: ("-0.0", "(double)NAN", "(double)INFINITY", "-(double)INFINITY")}[s.width]
        if s.width == 16:
            bits = tuple(f"(hbits){b}" for b in bits)  # type: ignore[assignment]
        zero = "(hbits)0" if s.width == 16 else "0.0"
        start = bits[0] if kind == "add" else bits[1]
        ident = {"add": zero, "fmin": bits[2], "fmax": bits[3]}[kind]
        return start, ident
    ct = C.scalar_ctype(s)
    w = s.width
    ident = {"add": "0", "umin": f"{(1 << w) - 1:#x}ULL", "umax": "0",
             "smin": f"{(1 << (w - 1)) - 1:#x}ULL", "smax": f"{1 << (w - 1):#x}ULL"}[kind]
    return f"({ct}){ident}", f"({ct}){ident}"


def _arith(r, inst: Instruction, k: int) -> None:
    scope = constant_int(r, ids(inst)[0])
    operation = inst.operands[1].value
    if operation not in (0, 1, 2):
        raise UnsupportedError(f"native backend: group operation {operation}")
    kind = _ARITH[inst.opname]
    x = inst.operands[2].value
    lts = C.leaf_types(r.rtype(inst))
    body = []
    for j, s in enumerate(lts):
        ct = C.scalar_ctype(s)
        start, ident = _values(kind, s)
        xl = r.leaves(x)[j] if len(r.leaves(x)) > 1 else r.leaf(x)
        out = r.result_names(inst)[j]
        body.append(f"{{ {ct} acc = {start}; bool any_ = false;")
        if operation == 0:
            body.append(f"  for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) acc = "
                        f"{_fold(kind, s, 'acc', xl)};")
            body.append(f"  for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {out} = acc; }}")
        elif operation == 1:
            body.append(f"  for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {{ acc = "
                        f"{_fold(kind, s, 'acc', xl)}; {out} = acc; }} }}")
        else:
            body.append(f"  for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {{ {ct} v_ = {xl}; "
                        f"{out} = any_ ? acc : {ident}; acc = {_fold(kind, s, 'acc', 'v_')}; "
                        "any_ = true; } }")
    vector = vectors.scan(r, inst, kind, ident, operation) \
        if r.fused and scope == SUBGROUP and operation else None
    _loop(r, scope, k, vector or _unless_all(body))


def _all_any(r, inst: Instruction, k: int) -> None:
    scope = constant_int(r, ids(inst)[0])
    pred = r.leaf(inst.operands[1].value)
    out = r.leaf(inst.result_id)
    if inst.opname == "OpGroupAll":
        body = [f"bool v_ = true; for (u32 l = g0; l < g1; l++) if (SG_ACT(l) && !({pred})) "
                "v_ = false;"]
    else:
        body = [f"bool v_ = false; for (u32 l = g0; l < g1; l++) if (SG_ACT(l) && ({pred})) "
                "v_ = true;"]
    body.append(f"for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {out} = v_;")
    _loop(r, scope, k, body)


def _broadcast(r, inst: Instruction, k: int) -> None:
    scope = constant_int(r, ids(inst)[0])
    value, local_id = inst.operands[1].value, inst.operands[2].value
    idl = at(r, local_id, "first")
    if scope == SUBGROUP:
        body = [f"u64 id_ = (u64){idl[0]}; bool ok_ = id_ < {r.S}u; u32 src_ = g0 + (ok_ ? (u32)id_ : 0);"]
    else:
        dims = ["(u64)" + x for x in idl]
        lin = dims[0]
        if len(dims) > 1:
            lin += f" + {dims[1]} * sg_g.lsz[0]"
        if len(dims) > 2:
            lin += f" + {dims[2]} * sg_g.lsz[0] * sg_g.lsz[1]"
        body = [f"u64 id_ = {lin}; bool ok_ = id_ < sg_pm; u32 src_ = ok_ ? (u32)id_ : 0;"]
    lts = C.leaf_types(r.rtype(inst))
    picked = at(r, value, "src_")
    for j, (s, out) in enumerate(zip(lts, r.result_names(inst), strict=True)):
        ct = C.scalar_ctype(s)
        body.append(f"{{ {ct} v_ = ok_ ? {picked[j]} : ({ct})0; "
                    f"for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {out} = v_; }}")
    _loop(r, scope, k, body)


def _shuffle(r, inst: Instruction, k: int) -> None:
    o = inst.opname
    S = r.S
    operands = ids(inst)
    index = r.leaf(operands[-1])
    rule = {
        "OpSubgroupShuffleINTEL":
            f"u64 i_ = (u32){index}; bool oor_ = i_ >= {S}u, second_ = false;",
        "OpSubgroupShuffleXorINTEL":
            f"u64 i_ = (l - g0) ^ (u32){index}; bool oor_ = i_ >= {S}u, second_ = false;",
        "OpSubgroupShuffleDownINTEL":
            f"u64 i_ = (u32)((l - g0) + (u32){index}); bool second_ = i_ >= {S}u, "
            f"oor_ = i_ >= {2 * S}u; if (second_) i_ -= {S}u;",
        "OpSubgroupShuffleUpINTEL":
            f"s64 v_ = (s32)(u32)((l - g0) - (u32){index}); bool second_ = v_ < 0, "
            f"oor_ = v_ < -{S} || v_ >= {S}; u64 i_ = (u64)(second_ ? v_ + {S} : v_);",
    }[o]
    two = o in ("OpSubgroupShuffleDownINTEL", "OpSubgroupShuffleUpINTEL")
    lts = C.leaf_types(r.rtype(inst))
    if o == "OpSubgroupShuffleUpINTEL":
        first, second = operands[1], operands[0]  # (previous, current): current first
    else:
        first, second = operands[0], operands[1] if two else operands[0]
    a = at(r, first, "src_")
    b = at(r, second, "src_")
    sets = []
    for j, (s, out) in enumerate(zip(lts, r.result_names(inst), strict=True)):
        ct = C.scalar_ctype(s)
        sets.append(f"{out} = oor_ ? ({ct})0 : second_ ? {b[j]} : {a[j]};")
    body = [f"for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {{ {rule} "
            f"if (oor_) i_ = 0; u32 src_ = g0 + (u32)i_; " + " ".join(sets) + " }"]
    vector = vectors.shuffle(r, inst, first, second) if r.fused else None
    if vector is None and o == "OpSubgroupShuffleINTEL" and operands[-1] in r.scalars:
        vector = _broadcast_lane(lts, r.result_names(inst), a, rule)
    _loop(r, SUBGROUP, k, vector or _unless_all(body))


def _broadcast_lane(lts: list[Type], outs: list[str], values: list[str], rule: str
                    ) -> list[str]:
    """An Intel shuffle whose index is a work-group scalar: the one source lane's value read
    once, then stored to every active lane (a load and a broadcast, where the loop reading
    each lane's source makes a gather)."""
    lines = [f"{{ {rule} if (oor_) i_ = 0; const u32 src_ = g0 + (u32)i_; (void)second_;"]
    for s, out, v in zip(lts, outs, values, strict=True):
        ct = C.scalar_ctype(s)
        lines.append(f"  {{ const {ct} v_ = oor_ ? ({ct})0 : {v}; "
                     f"for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {out} = v_; }}")
    return _unless_all([*lines, "}"])


def _block_io(r, inst: Instruction, k: int) -> None:
    """Element ``i`` of lane ``l`` at ``base_ + ((l - g0) + i * S) * size``. Where every lane
    is active and the pointer's object is known (``checks.bare``), the sub-group's first and
    last element are tested once (all lie between them, aligned when the first is) and the
    loop runs without a test per element, which clang vectorises."""
    write = inst.opname == "OpSubgroupBlockWriteINTEL"
    p = inst.operands[0].value
    t = r.type_of(inst.operands[1].value) if write else r.rtype(inst)
    lts = C.leaf_types(t)
    s = lts[0]
    size = s.width // 8
    ct = C.scalar_ctype(s)
    base = at(r, p, "first")[0]
    last = f"(base_ + (u64)((g1 - 1 - g0) + {len(lts) - 1}u * {r.S}u) * {size}u)"
    ends = [checks.bare(r.origins, p, a, size, size, int(write)) for a in ("base_", last)]
    fast = "sg_all" if not r.bounds else None if None in ends else \
        f"sg_all && {ends[0]} && {ends[1]}"
    plain, checked = [], []
    for i in range(len(lts)):
        addr = f"(base_ + (u64)((l - g0) + {i}u * {r.S}u) * {size}u)"
        cond = r.guard(p, addr, size, size, 1 if write else 0)
        if write:
            v = r.leaves(inst.operands[1].value)[i]
            st = f"*({ct} *){addr} = {v};"
            plain.append("  " + st)
            checked.append(f"  if ({cond}) {st}" if cond else "  " + st)
        else:
            out = r.result_names(inst)[i]
            ld = f"*({ct} *){addr}"
            plain.append(f"  {out} = {ld};")
            checked.append(f"  {out} = ({cond}) ? {ld} : ({ct})0;" if cond else f"  {out} = {ld};")
    body = [f"char *base_ = (char *){base};"]
    if fast:
        body += [f"if ({fast}) for (u32 l = g0; l < g1; l++) {{", *plain, "} else"]
    body += ["for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {", *checked, "}"]
    _loop(r, SUBGROUP, k, body)


# sub-group image block IO (cl_intel_subgroups) and media block IO (cl_intel_media_block_io):
# the helper of engine/clower/images.h, a write?, a media block (width and height operands)?
IMAGE_BLOCKS = {"OpSubgroupImageBlockReadINTEL": ("sg_img_block_read", False, False),
                "OpSubgroupImageBlockWriteINTEL": ("sg_img_block_write", True, False),
                "OpSubgroupImageMediaBlockReadINTEL": ("sg_media_block_read", False, True),
                "OpSubgroupImageMediaBlockWriteINTEL": ("sg_media_block_write", True, True)}


def _image_block(r, inst: Instruction, k: int) -> None:
    """The byte coordinate (and a media block's width and height) of the sub-group's first
    active lane; each active lane moves its own elements, its sub-group local id its lane
    (semantics.image_block_coords, semantics.media_block_coords: images.h has the rules)."""
    fn, write, media = IMAGE_BLOCKS[inst.opname]
    args = ids(inst)
    data = args[4 if media else 2] if write else None
    lts = C.leaf_types(r.type_of(data) if data is not None else r.rtype(inst))
    ct, n = C.scalar_ctype(lts[0]), len(lts)
    x, y = at(r, args[1], "first")[:2]
    head = f"const u64 h_ = (u64){at(r, args[0], 'first')[0]}; " \
           f"const s64 x_ = (s64)(s32){x}, y_ = (s64)(s32){y};"
    call = "h_, x_, y_"
    if media:
        w, hh = at(r, args[2], "first")[0], at(r, args[3], "first")[0]
        head += f" s64 w_ = (s64)(s32){w}, hh_ = (s64)(s32){hh}; if (w_ < 1) w_ = 1;"
        call += ", w_, hh_"
    if data is not None:
        move = f"{ct} b_[{n}] = {{{', '.join(r.leaves(data))}}}; {fn}<{ct}, {n}>({call}, l - g0, b_);"
    else:
        move = f"{ct} b_[{n}]; {fn}<{ct}, {n}>({call}, l - g0, b_); " + " ".join(
            f"{name} = b_[{i}];" for i, name in enumerate(r.result_names(inst)))
    _loop(r, SUBGROUP, k, [head, "for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {", "  " + move,
                           "}"])


_RENDER = {**dict.fromkeys(_ARITH, _arith), **dict.fromkeys(IMAGE_BLOCKS, _image_block), "OpGroupAll": _all_any, "OpGroupAny": _all_any,
           "OpGroupBroadcast": _broadcast, **dict.fromkeys(SHUFFLES, _shuffle),
           "OpSubgroupBlockReadINTEL": _block_io,
           "OpSubgroupBlockWriteINTEL": _block_io}


def render_collective(r, inst: Instruction, k: int) -> None:
    """Emit the loops of collective ``inst`` in block ``k``."""
    from .non_uniform import COLLECTIVES  # cl_khr_subgroup_*

    (_RENDER.get(inst.opname) or COLLECTIVES[inst.opname])(r, inst, k)
