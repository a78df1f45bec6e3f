"""C++ for the cl_khr_subgroup_* instructions on the CPU: OpGroupNonUniform* (votes,
broadcasts, ballots, shuffles, arithmetic with Reduce / InclusiveScan / ExclusiveScan /
ClusteredReduce), OpGroupNonUniformRotateKHR and the SubgroupEq/Ge/Gt/Le/LtMask
built-ins, with the NumPy engine's rules (``engine/cpu/non_uniform_ops.py``,
``non_uniform_arith.py``; ``sgvm.semantics``).

"These functions need not be encountered by all work items in a sub-group": the lanes
taking part are the active ones, ``SG_ACT(l)`` (the lanes that reached the instruction
together, collectives.py). Group operations fold in increasing lane order from the
neutral value of ``collectives``, so results match the NumPy engine bit for bit.
Undefined results are the NumPy engine's: 0 for a shuffle index out of range; the
source lane's value (whatever it holds) for an inactive source; the first active
lane's Id / Delta where it must be uniform; the whole sub-group for a cluster size that
is not a constant power of two up to the sub-group size. A source past the end of a
partial sub-group (broadcast, rotate) gives 0 (the NumPy engine: its padding lane's
value). The per-lane ballot queries
(InverseBallot, BallotBitExtract, BallotBitCount, BallotFindLSB/MSB) need no other
lane, so they are plain instructions (``LANE_OPS``); the rest are collectives
(``COLLECTIVES``). Only Subgroup scope (the scope OpenCL C uses) is rendered.
"""

from __future__ import annotations

from ...errors import UnsupportedError
from ...spirv import Instruction, Type
from ..clower import ctypes_ as C
from ..clower.ops import constant_int, ids
from .collectives import SUBGROUP, _fold, _loop, _values, at

# get_sub_group_<kind>_mask, component c for sub-group local id n, maximum size S
# (semantics.ballot.sub_group_mask)
_MASKS = {"SubgroupEqMask": "(sg_below({n} + 1, {c}) & ~sg_below({n}, {c}))",
          "SubgroupGeMask": "(sg_below({S}, {c}) & ~sg_below({n}, {c}))",
          "SubgroupGtMask": "(sg_below({S}, {c}) & ~sg_below({n} + 1, {c}))",
          "SubgroupLeMask": "sg_below({n} + 1, {c})", "SubgroupLtMask": "sg_below({n}, {c})"}
LANE_MASKS = frozenset(_MASKS)


def lane_mask(name: str, t: Type, S: int) -> list[str]:
    """The leaves of built-in ``name`` (a uint4 mask) in lane ``l``."""
    n = f"(u64)(l % {S}u)"
    return [f"({C.scalar_ctype(x)}){_MASKS[name].format(n=n, S=f'{S}ULL', c=c)}"
            for c, x in enumerate(C.leaf_types(t))]


def _scope(r, inst: Instruction) -> None:
    if constant_int(r, ids(inst)[0]) != SUBGROUP:
        raise UnsupportedError(f"native backend: {inst.opname} with other than Subgroup scope")


def _ballot_leaves(r, vid: int) -> str:
    return ", ".join(f"(u32){x}" for x in r.leaves(vid))


# -- per-lane ballot queries -----------------------------------------------------------------
def _inverse_ballot(r, inst: Instruction) -> None:
    """This lane's bit of the ballot (semantics.inverse_ballot)."""
    _scope(r, inst)
    r.assign(inst, [f"sg_bit_extract({_ballot_leaves(r, ids(inst)[1])}, l % {r.S}u)"])


def _bit_extract(r, inst: Instruction) -> None:
    """Bit Index of the ballot, false from 128 on (semantics.ballot_bit_extract)."""
    _scope(r, inst)
    value, index = ids(inst)[1], ids(inst)[2]
    r.assign(inst, [f"sg_bit_extract({_ballot_leaves(r, value)}, (u32){r.leaf(index)})"])


def _bit_count(r, inst: Instruction) -> None:
    """Reduce: the set bits below the maximum size; InclusiveScan / ExclusiveScan: those at
    ids up to / below this lane's (semantics.ballot_bit_count, ballot_*_scan)."""
    _scope(r, inst)
    operation = inst.operands[1].value
    limit = {0: f"{r.S}ULL", 1: f"(u64)(l % {r.S}u) + 1", 2: f"(u64)(l % {r.S}u)"}.get(operation)
    if limit is None:
        raise UnsupportedError(f"native backend: {inst.opname} group operation {operation}")
    ct = C.scalar_ctype(r.rtype(inst))
    r.assign(inst, [f"({ct})sg_bit_count({_ballot_leaves(r, ids(inst)[2])}, {limit})"])


def _find(r, inst: Instruction) -> None:
    """The lowest / highest set bit below the maximum size, 0 when none is."""
    _scope(r, inst)
    fn = "sg_find_lsb" if inst.opname.endswith("LSB") else "sg_find_msb"
    ct = C.scalar_ctype(r.rtype(inst))
    r.assign(inst, [f"({ct}){fn}({_ballot_leaves(r, ids(inst)[1])}, {r.S}ULL)"])


LANE_OPS = {"OpGroupNonUniformInverseBallot": _inverse_ballot,
            "OpGroupNonUniformBallotBitExtract": _bit_extract,
            "OpGroupNonUniformBallotBitCount": _bit_count,
            "OpGroupNonUniformBallotFindLSB": _find, "OpGroupNonUniformBallotFindMSB": _find}


# -- collectives -------------------------------------------------------------------------------
def _each_active(r, inst: Instruction, exprs: list[str], setup: str = "") -> list[str]:
    """A loop giving every active lane the result leaves ``exprs``."""
    sets = " ".join(f"{out} = {e};" for out, e in zip(r.result_names(inst), exprs, strict=True))
    return [f"SG_SCALAR for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {{ {setup}{sets} }}"]


def _elect(r, inst: Instruction, k: int) -> None:
    """True in the active lane with the smallest id (semantics.elect)."""
    _scope(r, inst)
    _loop(r, SUBGROUP, k, _each_active(r, inst, ["l == first"]))


def _vote(r, inst: Instruction, k: int) -> None:
    """All / Any of the active lanes' predicates (semantics.all_, any_)."""
    _scope(r, inst)
    pred = r.leaf(ids(inst)[1])
    if inst.opname.endswith("All"):
        body = [f"bool v_ = true; SG_SCALAR for (u32 l = g0; l < g1; l++) if (SG_ACT(l) && !({pred})) "
                "v_ = false;"]
    else:
        body = [f"bool v_ = false; SG_SCALAR for (u32 l = g0; l < g1; l++) if (SG_ACT(l) && ({pred})) "
                "v_ = true;"]
    _loop(r, SUBGROUP, k, body + _each_active(r, inst, ["v_"]))


def _all_equal(r, inst: Instruction, k: int) -> None:
    """Every active lane's Value equals the first's, floats by ordered equality (a NaN equals
    nothing, -0.0 equals 0.0; semantics.all_equal)."""
    _scope(r, inst)
    value = ids(inst)[1]
    terms = []
    for x, ref, s in zip(r.leaves(value), at(r, value, "first"), C.leaf_types(r.type_of(value)),
                         strict=True):
        terms.append(f"h2f({x}) == h2f({ref})" if s.op == "Float" and s.width == 16
                     else f"{x} == {ref}")
    cond = " && ".join(f"({t})" for t in terms)
    body = [f"bool v_ = true; SG_SCALAR for (u32 l = g0; l < g1; l++) if (SG_ACT(l) && !({cond})) "
            "v_ = false;"]
    _loop(r, SUBGROUP, k, body + _each_active(r, inst, ["v_"]))


def _broadcast(r, inst: Instruction, k: int) -> None:
    """Broadcast: Value of lane Id, the first active lane's Id (0 outside the sub-group;
    semantics.broadcast). BroadcastFirst: Value of the first active lane."""
    _scope(r, inst)
    value = ids(inst)[1]
    if inst.opname.endswith("First"):
        body = ["const u32 src_ = first; const bool ok_ = true;"]
    else:
        lane = at(r, ids(inst)[2], "first")[0]
        body = [f"const u64 id_ = (u64){lane}; const bool ok_ = id_ < (u64)(g1 - g0); "
                "const u32 src_ = g0 + (ok_ ? (u32)id_ : 0u);"]
    picked = [f"(ok_ ? {x} : ({C.scalar_ctype(s)})0)" for x, s in
              zip(at(r, value, "src_"), C.leaf_types(r.rtype(inst)), strict=True)]
    _loop(r, SUBGROUP, k, body + _each_active(r, inst, picked))


def _ballot(r, inst: Instruction, k: int) -> None:
    """The uint4 of the active lanes' predicates: lane i is bit i % 32 of component i / 32
    (semantics.ballot)."""
    _scope(r, inst)
    pred = r.leaf(ids(inst)[1])
    body = ["u32 b_[4] = {0u, 0u, 0u, 0u};",
            f"SG_SCALAR for (u32 l = g0; l < g1; l++) if (SG_ACT(l) && ({pred})) "
            "b_[(l - g0) >> 5] |= 1u << ((l - g0) & 31u);"]
    _loop(r, SUBGROUP, k, body + _each_active(r, inst, [f"b_[{c}]" for c in range(4)]))


# the source lane s_ (relative to the sub-group) of lane l for index i_, and whether it is
# out of range (at or past the sub-group's size n_); 32-bit arithmetic that cannot wrap
_SOURCES = {
    "OpGroupNonUniformShuffle": "const u32 s_ = i_; const bool oor_ = s_ >= n_;",
    "OpGroupNonUniformShuffleXor": "const u32 s_ = (l - g0) ^ i_; const bool oor_ = s_ >= n_;",
    "OpGroupNonUniformShuffleDown": "const bool oor_ = i_ >= n_ - (l - g0); "
                                    "const u32 s_ = oor_ ? 0u : (l - g0) + i_;",
    "OpGroupNonUniformShuffleUp": "const bool oor_ = i_ > l - g0; "
                                  "const u32 s_ = oor_ ? 0u : (l - g0) - i_;",
}


def _shuffle(r, inst: Instruction, k: int) -> None:
    """Shuffle / Xor / Up / Down: Value of the lane the (per-lane) index names, 0 at or past
    the sub-group's actual size (semantics.khr_shuffles)."""
    _scope(r, inst)
    value, index = ids(inst)[1], ids(inst)[2]
    setup = (f"const u32 i_ = (u32){r.leaf(index)}; {_SOURCES[inst.opname]} "
             "const u32 src_ = g0 + (oor_ ? 0u : s_); ")
    picked = [f"(oor_ ? ({C.scalar_ctype(s)})0 : {x})" for x, s in
              zip(at(r, value, "src_"), C.leaf_types(r.rtype(inst)), strict=True)]
    _loop(r, SUBGROUP, k, ["const u32 n_ = g1 - g0;"] + _each_active(r, inst, picked, setup))


def _cluster(r, inst: Instruction, index: int) -> int | None:
    """The constant ClusterSize operand ``index`` (None: absent); a size that is not a power
    of two up to the sub-group size is undefined and the NumPy engine uses the whole
    sub-group (semantics.cluster_size_undefined), as does this."""
    if len(inst.operands) <= index:
        return None
    c = r.m.constants.get(inst.operands[index].value)
    if c is None or c.op != "OpConstant":
        raise UnsupportedError(f"native backend: {inst.opname} with a cluster size that is not "
                               "a constant")
    n = int(c.value or 0)
    return n if 1 <= n <= r.S and n & (n - 1) == 0 else r.S


def _rotate(r, inst: Instruction, k: int) -> None:
    """Value of lane (id % c + Delta) % c + id - id % c, c the cluster size (the sub-group's
    maximum size when not clustered), Delta the first active lane's
    (semantics.rotate_source)."""
    _scope(r, inst)
    value, delta = ids(inst)[1], ids(inst)[2]
    c = _cluster(r, inst, 3) or r.S
    d = at(r, delta, "first")[0]
    # (id % c + d) % c with d < c as a compare: clang 22.1 (ziglang 0.17.1) at -O1 and
    # above drops the outer % when the lane it gives feeds a guarded load (docs/native.md)
    setup = (f"const u32 id_ = l - g0, t_ = id_ % {c}u + d_; "
             f"const u32 s_ = id_ - id_ % {c}u + (t_ >= {c}u ? t_ - {c}u : t_); "
             "const bool ok_ = s_ < g1 - g0; const u32 src_ = g0 + (ok_ ? s_ : 0u); ")
    picked = [f"(ok_ ? {x} : ({C.scalar_ctype(s)})0)" for x, s in
              zip(at(r, value, "src_"), C.leaf_types(r.rtype(inst)), strict=True)]
    body = [f"const u32 d_ = (u32){d} % {c}u;"]  # (a + d) % c == (a + d % c) % c
    _loop(r, SUBGROUP, k, body + _each_active(r, inst, picked, setup))


_ARITH = {"IAdd": "add", "FAdd": "add", "IMul": "mul", "FMul": "mul", "SMin": "smin",
          "UMin": "umin", "FMin": "fmin", "SMax": "smax", "UMax": "umax", "FMax": "fmax",
          "BitwiseAnd": "and", "BitwiseOr": "or", "BitwiseXor": "xor",
          "LogicalAnd": "land", "LogicalOr": "lor", "LogicalXor": "lxor"}
_BITWISE = {"and": "&", "or": "|", "xor": "^"}
_LOGICAL = {"land": ("&&", "true"), "lor": ("||", "false"), "lxor": ("!=", "false")}


def _step(kind: str, s: Type, acc: str, x: str) -> str:
    """``acc op x`` rounded to ``s`` (semantics.collectives' operators)."""
    ct = C.scalar_ctype(s)
    if kind in _LOGICAL:
        return f"({acc} {_LOGICAL[kind][0]} {x})"
    if kind in _BITWISE:
        return f"({ct})({acc} {_BITWISE[kind]} {x})"
    if kind != "mul":
        return _fold(kind, s, acc, x)
    if s.op == "Float":
        return f"f2h(h2f({acc}) * h2f({x}))" if s.width == 16 else f"({acc} * {x})"
    return f"({ct})((u64){acc} * (u64){x})"


def _start(kind: str, s: Type) -> tuple[str, str]:
    """(neutral start, identity) of ``kind`` on ``s`` (semantics.collectives.identity)."""
    ct = C.scalar_ctype(s)
    if kind in _LOGICAL:
        return _LOGICAL[kind][1], _LOGICAL[kind][1]
    if kind in _BITWISE:
        v = f"({ct})~({ct})0" if kind == "and" else f"({ct})0"
        return v, v
    if kind != "mul":
        return _values(kind, s)
    one = "(hbits)0x3c00" if s.op == "Float" and s.width == 16 else f"({ct})1"
    return one, one


def _arith(r, inst: Instruction, k: int) -> None:
    """Reduce, InclusiveScan, ExclusiveScan or ClusteredReduce of Value over the active lanes,
    folded in lane order (an exclusive scan with no active lane before it: the identity)."""
    _scope(r, inst)
    operation = inst.operands[1].value
    if operation not in (0, 1, 2, 3):
        raise UnsupportedError(f"native backend: {inst.opname} group operation {operation}")
    kind = _ARITH[inst.opname.removeprefix("OpGroupNonUniform")]
    x = ids(inst)[2]
    cluster = _cluster(r, inst, 3) if operation == 3 else None
    body = []
    for xl, s, out in zip(r.leaves(x), C.leaf_types(r.rtype(inst)), r.result_names(inst),
                          strict=True):
        ct = C.scalar_ctype(s)
        start, ident = _start(kind, s)
        fold = _step(kind, s, "acc", xl)
        if operation in (0, 3):
            c = cluster or r.S
            body += [f"SG_SCALAR for (u32 c0 = g0; c0 < g1; c0 += {c}u) {{ "
                     f"const u32 c1 = c0 + {c}u < g1 ? c0 + {c}u : g1; {ct} acc = {start};",
                     f"  SG_SCALAR for (u32 l = c0; l < c1; l++) if (SG_ACT(l)) acc = {fold};",
                     f"  SG_SCALAR for (u32 l = c0; l < c1; l++) if (SG_ACT(l)) {out} = acc; }}"]
        elif operation == 1:
            body.append(f"{{ {ct} acc = {start}; SG_SCALAR for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) "
                        f"{{ acc = {fold}; {out} = acc; }} }}")
        else:
            body.append(f"{{ {ct} acc = {start}; bool any_ = false; "
                        f"SG_SCALAR for (u32 l = g0; l < g1; l++) if (SG_ACT(l)) {{ {ct} v_ = {xl}; "
                        f"{out} = any_ ? acc : {ident}; acc = {_step(kind, s, 'acc', 'v_')}; "
                        "any_ = true; } }")
    _loop(r, SUBGROUP, k, body)


COLLECTIVES = {"OpGroupNonUniformElect": _elect, "OpGroupNonUniformAll": _vote,
               "OpGroupNonUniformAny": _vote, "OpGroupNonUniformAllEqual": _all_equal,
               "OpGroupNonUniformBroadcast": _broadcast,
               "OpGroupNonUniformBroadcastFirst": _broadcast,
               "OpGroupNonUniformBallot": _ballot, "OpGroupNonUniformRotateKHR": _rotate,
               **dict.fromkeys(_SOURCES, _shuffle),
               **{"OpGroupNonUniform" + n: _arith for n in _ARITH}}


def _read_header() -> str:
    from pathlib import Path

    return Path(__file__).with_name("non_uniform.h").read_text()


HEADER = _read_header()
