"""CUDA C for the cl_khr_subgroup_* instructions: OpGroupNonUniform* (votes, broadcasts,
ballots, shuffles, arithmetic with Reduce / InclusiveScan / ExclusiveScan /
ClusteredReduce) and OpGroupNonUniformRotateKHR (docs/subgroups.md, docs/cuda.md).

The lanes taking part are ``r.members()``, the lanes of the sub-group that reached the
instruction together by the CPU engine's rule (render_sched.py); ballots are ``__ballot_sync`` over
them, votes ``__all_sync``/``__any_sync``. Sub-group sizes are at most 32, so a ballot's
components 1..3 are 0. Undefined results follow the CPU engine (0). Only Subgroup scope
is rendered.
"""

from __future__ import annotations

from ...errors import UnsupportedError
from ...spirv import Instruction, Type
from ..clower import ctypes_ as C
from ..clower.ops import constant_int, ids, registrar
from .render_groups import _functor

OPS: dict = {}
op = registrar(OPS)


def _scope(r, inst: Instruction) -> None:
    if constant_int(r, ids(inst)[0]) != 3:
        raise UnsupportedError(f"CUDA backend: {inst.opname} with other than Subgroup scope")


def _cluster(r, inst: Instruction, index: int) -> str:
    """The cluster size as C: the constant when it is a power of two up to SG_SIZE, else
    SG_SIZE (the whole sub-group, as the CPU engine)."""
    if len(inst.operands) <= index:
        return "SG_SIZE"
    cid = inst.operands[index].value
    if cid not in r.m.constants:
        return "SG_SIZE"
    c = constant_int(r, cid)
    return f"(({c}u & ({c}u - 1u)) == 0u && {c}u >= 1u && {c}u <= SG_SIZE ? {c}u : SG_SIZE)"


@op("OpGroupNonUniformElect")
def _elect(r, inst: Instruction) -> None:
    _scope(r, inst)
    r.assign(inst, [f"sg_elect({r.members()})"])


@op("OpGroupNonUniformAll", "OpGroupNonUniformAny")
def _all_any(r, inst: Instruction) -> None:
    _scope(r, inst)
    fn = "sg_all" if inst.opname.endswith("All") else "sg_any"
    r.assign(inst, [f"{fn}({r.members()}, {r.leaf(ids(inst)[1])})"])


@op("OpGroupNonUniformAllEqual")
def _all_equal(r, inst: Instruction) -> None:
    _scope(r, inst)
    value = ids(inst)[1]
    m = r.members()
    terms = []
    for v, s in zip(r.leaves(value), C.leaf_types(r.type_of(value)), strict=True):
        terms.append(f"sg_all_equal({m}, h2f({v}))" if s.op == "Float" and s.width == 16
                     else f"sg_all_equal({m}, {v})")
    r.assign(inst, [" && ".join(terms)])


@op("OpGroupNonUniformBroadcast", "OpGroupNonUniformBroadcastFirst")
def _broadcast(r, inst: Instruction) -> None:
    _scope(r, inst)
    value, m = ids(inst)[1], r.members()
    if inst.opname.endswith("First"):
        r.assign(inst, [f"sg_broadcast_first({m}, {v})" for v in r.leaves(value)])
    else:
        lane = f"sg_broadcast_first({m}, (u64){r.leaf(ids(inst)[2])})"  # uniform: the first lane's
        r.assign(inst, [f"sg_broadcast({m}, {v}, {lane})" for v in r.leaves(value)])


@op("OpGroupNonUniformBallot")
def _ballot(r, inst: Instruction) -> None:
    _scope(r, inst)
    r.assign(inst, [f"sg_ballot({r.members()}, {r.leaf(ids(inst)[1])})", "0u", "0u", "0u"])


@op("OpGroupNonUniformInverseBallot")
def _inverse(r, inst: Instruction) -> None:
    _scope(r, inst)
    b = r.leaves(ids(inst)[1])
    r.assign(inst, [f"(((u32){b[0]} >> sg_lane()) & 1u) != 0u"])


@op("OpGroupNonUniformBallotBitExtract")
def _bit_extract(r, inst: Instruction) -> None:
    _scope(r, inst)
    b = r.leaves(ids(inst)[1])
    r.assign(inst, [f"sg_bit_extract({', '.join(b)}, (u32){r.leaf(ids(inst)[2])})"])


@op("OpGroupNonUniformBallotBitCount")
def _bit_count(r, inst: Instruction) -> None:
    _scope(r, inst)
    operation = inst.operands[1].value
    if operation not in (0, 1, 2):
        raise UnsupportedError(f"CUDA backend: {inst.opname} group operation {operation}")
    b = r.leaves(ids(inst)[2])
    r.assign(inst, [f"({C.scalar_ctype(r.rtype(inst))})sg_bit_count({b[0]}, {operation})"])


@op("OpGroupNonUniformBallotFindLSB", "OpGroupNonUniformBallotFindMSB")
def _find(r, inst: Instruction) -> None:
    _scope(r, inst)
    fn = "sg_find_lsb" if inst.opname.endswith("LSB") else "sg_find_msb"
    r.assign(inst, [f"({C.scalar_ctype(r.rtype(inst))}){fn}({r.leaves(ids(inst)[1])[0]})"])


_SHUFFLES = {
    "OpGroupNonUniformShuffle": "sg_kshuffle({m}, {v}, {x})",
    "OpGroupNonUniformShuffleXor": "sg_kshuffle({m}, {v}, sg_lane() ^ {x})",
    "OpGroupNonUniformShuffleDown": "sg_kshuffle({m}, {v}, (u64)sg_lane() + {x})",
    "OpGroupNonUniformShuffleUp": "sg_kshuffle_up({m}, {v}, {x})",
}


@op(*_SHUFFLES)
def _shuffle(r, inst: Instruction) -> None:
    _scope(r, inst)
    _, value, index = ids(inst)
    x = f"(u32){r.leaf(index)}"
    m = r.members()
    r.assign(inst, [_SHUFFLES[inst.opname].format(m=m, v=v, x=x) for v in r.leaves(value)])


@op("OpGroupNonUniformRotateKHR")
def _rotate(r, inst: Instruction) -> None:
    _scope(r, inst)
    value, delta = ids(inst)[1], ids(inst)[2]
    c, m = _cluster(r, inst, 3), r.members()
    d = f"sg_broadcast_first({m}, (u32){r.leaf(delta)})"  # "dynamically uniform": the first lane's
    r.assign(inst, [f"sg_krotate({m}, {v}, {d}, {c})" for v in r.leaves(value)])


_ARITH = {"IAdd": "add", "FAdd": "add", "IMul": "mul", "FMul": "fmul", "SMin": "smin",
          "UMin": "umin", "FMin": "fmin", "SMax": "smax", "UMax": "umax", "FMax": "fmax",
          "BitwiseAnd": "OpAnd", "BitwiseOr": "OpOr", "BitwiseXor": "OpXor",
          "LogicalAnd": "OpLAnd", "LogicalOr": "OpLOr", "LogicalXor": "OpLXor"}


def _nu_functor(kind: str, s: Type) -> str:
    ct = C.scalar_ctype(s)
    if kind.startswith("OpL"):
        return kind
    if kind.startswith("Op"):
        return f"{kind}<{ct}>"
    if kind == "mul":
        return f"OpMul<{ct}>"
    if kind == "fmul":
        return "OpFMul" + {16: "H", 32: "F", 64: "D"}[s.width]
    return _functor(kind, s)


def _arith(r, inst: Instruction) -> None:
    _scope(r, inst)
    operation = inst.operands[1].value
    if operation not in (0, 1, 2, 3):
        raise UnsupportedError(f"CUDA backend: {inst.opname} group operation {operation}")
    x = ids(inst)[2]
    kind = _ARITH[inst.opname.removeprefix("OpGroupNonUniform")]
    out, m = [], r.members()
    for v, s in zip(r.leaves(x), C.leaf_types(r.type_of(x)), strict=True):
        f, ct = _nu_functor(kind, s), C.scalar_ctype(s)
        if operation == 0:
            out.append(f"sg_reduce<{f}, {ct}>({m}, {v})")
        elif operation == 3:
            out.append(f"sg_clustered<{f}, {ct}>({m}, {v}, {_cluster(r, inst, 3)})")
        else:
            out.append(f"sg_scan<{f}, {ct}>({m}, {v}, {'true' if operation == 1 else 'false'})")
    r.assign(inst, out)


for _n in _ARITH:
    OPS["OpGroupNonUniform" + _n] = _arith
