"""CUDA C for the collectives: OpGroup* (Subgroup and Workgroup scope), the
SPV_INTEL_subgroups shuffles and buffer block IO (docs/subgroups.md, docs/cuda.md).

A sub-group is an aligned ``SG_SIZE``-lane segment of a warp; the lanes taking
part are ``r.members()``, the lanes that reached the instruction together by the
CPU engine's rule (``render_sched``), never the hardware's momentary convergence. Shuffles are ``__shfl_sync`` with width ``SG_SIZE`` and the
spec's index rules (prelude.cuh); reduce/scan use the spec's identities; block IO
element ``i`` of lane ``l`` is ``p[l + i*SG_SIZE]``, a coalesced access per ``i``.
Work-group functions go through a shared-memory buffer and act as barriers.
"""

from __future__ import annotations

from ...errors import UnsupportedError
from ...spirv import Instruction, Type
from ..clower import ctypes_ as C
from ..clower.ops import constant_int, ids, registrar
from ..common import types as T

OPS: dict = {}
op = registrar(OPS)

_ARITH = {"OpGroupIAdd": "add", "OpGroupFAdd": "add", "OpGroupSMin": "smin",
          "OpGroupUMin": "umin", "OpGroupFMin": "fmin", "OpGroupSMax": "smax",
          "OpGroupUMax": "umax", "OpGroupFMax": "fmax"}


def _functor(kind: str, s: Type) -> str:
    """The prelude functor of a reduction ``kind`` on leaf type ``s``."""
    ct = C.scalar_ctype(s)
    if s.op == "Float":
        suffix = {16: "H", 32: "F", 64: "D"}[s.width]
        return {"add": "OpFAdd", "fmin": "OpFMin", "fmax": "OpFMax"}[kind] + suffix
    if kind == "add":
        return f"OpAdd<{ct}>"
    cmp = C.signed_ctype(s) if kind[0] == "s" else ct
    return f"Op{'Min' if kind[1:] == 'min' else 'Max'}<{ct}, {cmp}>"


def _group_arith(r, inst: Instruction) -> None:
    scope = constant_int(r, ids(inst)[0])
    operation = inst.operands[1].value
    if operation not in (0, 1, 2):
        raise UnsupportedError(f"CUDA backend: group operation {operation}")
    x = ids(inst)[2]
    kind = _ARITH[inst.opname]
    out = []
    for v, s in zip(r.leaves(x), C.leaf_types(r.type_of(x)), strict=True):
        f = _functor(kind, s)
        if scope == 2:
            r.uses_wg = True
            r.waits_for_work_group()
            out.append(f"wg_collective<{f}, {C.scalar_ctype(s)}>({v}, {operation}, sg_wgbuf)")
        elif operation == 0:
            out.append(f"sg_reduce<{f}, {C.scalar_ctype(s)}>({r.members()}, {v})")
        else:
            out.append(f"sg_scan<{f}, {C.scalar_ctype(s)}>({r.members()}, {v}, "
                       f"{'true' if operation == 1 else 'false'})")
    r.assign(inst, out)


for _n in _ARITH:
    OPS[_n] = _group_arith


@op("OpGroupAll", "OpGroupAny")
def _all_any(r, inst: Instruction) -> None:
    scope, pred = ids(inst)
    p = r.leaf(pred)
    if constant_int(r, scope) == 2:
        # Not __syncthreads_and/or: PTX's bar.red needs every warp converged, which the
        # scheduled functions' gotos do not guarantee (the GPU stops with an illegal
        # instruction); wg_vote takes sg_barrier (non-aligned barrier.sync), which sm_70+
        # allows diverged.
        r.uses_wg = True
        r.waits_for_work_group()
        r.assign(inst, [f"wg_vote({p}, {'true' if inst.opname == 'OpGroupAll' else 'false'}, "
                        "sg_wgbuf)"])
    else:
        r.assign(inst, [f"sg_{'all' if inst.opname == 'OpGroupAll' else 'any'}({r.members()}, {p})"])


@op("OpGroupBroadcast")
def _broadcast(r, inst: Instruction) -> None:
    scope, value, local_id = ids(inst)
    lid = r.leaves(local_id)
    if constant_int(r, scope) == 2:
        r.uses_wg = True
        r.waits_for_work_group()
        dims = ["sg_lsize(0)", "sg_lsize(1)"]
        linear = f"(u64){lid[0]}"
        if len(lid) > 1:
            linear += f" + (u64){lid[1]} * {dims[0]}"
        if len(lid) > 2:
            linear += f" + (u64){lid[2]} * {dims[0]} * {dims[1]}"
        ok = " && ".join(f"(u64){x} < sg_lsize({d})" for d, x in enumerate(lid))
        r.assign(inst, [f"wg_broadcast({v}, ({ok}) ? {linear} : ~0ULL, sg_wgbuf)"
                        for v in r.leaves(value)])
        return
    r.assign(inst, [f"sg_broadcast({r.members()}, {v}, (u64){lid[0]})" for v in r.leaves(value)])


_SHUFFLES = {"OpSubgroupShuffleINTEL": "sg_shuffle", "OpSubgroupShuffleXorINTEL": "sg_shuffle_xor",
             "OpSubgroupShuffleDownINTEL": "sg_shuffle_down",
             "OpSubgroupShuffleUpINTEL": "sg_shuffle_up"}


@op(*_SHUFFLES)
def _shuffle(r, inst: Instruction) -> None:
    *data, index = ids(inst)
    fn = _SHUFFLES[inst.opname]
    idx = f"(u32){r.leaf(index)}"
    cols = [r.leaves(d) for d in data]
    r.assign(inst, [f"{fn}({r.members()}, {', '.join(c[k] for c in cols)}, {idx})"
                    for k in range(len(cols[0]))])


def _block_type(t: Type) -> tuple[list[Type], str]:
    lt = list(C.leaf_types(t))
    return lt, C.scalar_ctype(lt[0])


@op("OpSubgroupBlockReadINTEL")
def _block_read(r, inst: Instruction) -> None:
    """Element i of lane l is p[l + i*max_sub_group_size] (SPV_INTEL_subgroups)."""
    ptr = ids(inst)[0]
    lt, ct = _block_type(r.rtype(inst))
    size = T.size_of(lt[0])
    addrs = [f"({r.leaf(ptr)} + (u64)(sg_lane() + {i} * SG_SIZE) * {size})" for i in range(len(lt))]
    conds = [r.guard(ptr, a, size, size, 0) for a in addrs]
    names = r.result_names(inst)
    for n, a, c, x in zip(names, addrs, conds, lt, strict=True):
        r.emit(f"{n} = {c} ? *({ct}*){a} : {C.zero(x)};" if c else f"{n} = *({ct}*){a};")


@op("OpSubgroupBlockWriteINTEL")
def _block_write(r, inst: Instruction) -> None:
    ptr, data = ids(inst)
    lt, ct = _block_type(r.type_of(data))
    size = T.size_of(lt[0])
    for i, v in enumerate(r.leaves(data)):
        a = f"({r.leaf(ptr)} + (u64)(sg_lane() + {i} * SG_SIZE) * {size})"
        r.guarded(r.guard(ptr, a, size, size, 1), [f"*({ct}*){a} = {v};"])


@op("OpControlBarrier")
def _barrier(r, inst: Instruction) -> None:
    """A sub-group barrier waits for the lanes running together (``r.members()``); a
    work-group barrier for the block (and then checks the step budget's abort flag)."""
    if constant_int(r, ids(inst)[0]) > 2:
        r.emit(f"__syncwarp({r.members()});")
    else:
        r.waits_for_work_group()
        r.emit("sg_barrier(); sg_aborted();" if r.bounds else "sg_barrier();")
