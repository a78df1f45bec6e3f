"""Group instructions (SPIR-V 1.6 s3.52.21): OpGroupAll/Any/Broadcast and the
OpGroup{IAdd,FAdd,SMin,UMin,FMin,SMax,UMax,FMax} reductions and scans.

With ``Subgroup`` scope they are the sub_group_* functions (cl_khr_subgroups,
cl_intel_subgroups, and the 8- and 16-bit forms of cl_intel_subgroups_char /
_short); with ``Workgroup`` scope the OpenCL C 2.0 work_group_* functions. Each
reshapes its operands to (groups, lanes) and calls ``sgvm.semantics``, with the
lanes executing now as the active mask: "the lanes that reached the instruction
together".

Work-group functions "must be encountered by all work-items in a work-group"
(opencl_c_work_group_functions.txt) and act as a barrier: the scheduler runs the
lowest-numbered waiting block first and numbers blocks so that lanes reconverge
before any passes a join point, so every work-item of a work-group that reaches
the instruction arrives at it together, as at OpControlBarrier (control.py).
A whole work-group always lies in one batch.
"""

from __future__ import annotations

import numpy as np

from ... import semantics as sem
from ...errors import UnsupportedError
from ..common import types as T
from .collective import WORKGROUP, Grouping, constant_scope
from .registry import Op, builder
from .values import GroupUniform, arr, is_lane_array

# opname → (semantics op, integers read as signed)
_ARITH = {
    "OpGroupIAdd": ("add", False), "OpGroupFAdd": ("add", False),
    "OpGroupSMin": ("min", True), "OpGroupUMin": ("min", False), "OpGroupFMin": ("min", False),
    "OpGroupSMax": ("max", True), "OpGroupUMax": ("max", False), "OpGroupFMax": ("max", False),
}
# GroupOperation (SPIR-V 1.6 s3.28) → its name and the semantics function.
_OPERATIONS = {
    0: ("Reduce", sem.reduce_groups),
    1: ("InclusiveScan", sem.scan_inclusive),
    2: ("ExclusiveScan", sem.scan_exclusive),
}


@builder(*_ARITH, affine="source")
def _arith(ctx, inst) -> Op:
    """OpGroup<op>: reduce or scan ``X`` over the group (semantics.reduce_groups / scan_*).

    "The identity I for Operation is 0 [add], +INF / the largest integer [min],
    -INF / the smallest integer [max]"; integer arithmetic wraps at the operand's
    width; SMin/SMax compare as two's complement. A reduction is a GroupUniform:
    one value per group, not repeated in its lanes.
    """
    scope = constant_scope(ctx, inst, 0)
    operation = inst.operands[1].value
    if operation not in _OPERATIONS:
        raise UnsupportedError(f"{inst.opname} (%{inst.result_id}): group operation {operation}")
    name, fn = _OPERATIONS[operation]
    op, signed = _ARITH[inst.opname]
    x = inst.operands[2].value
    vec = ctx.is_vector(x)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        v = g.split(r[x], vec)
        if signed:
            out = fn(op, v.view(T.signed(v.dtype)), g.active).view(v.dtype)
        else:  # floats associate in the launch's order (semantics.float_order)
            out = fn(op, v, g.active, st.geom.variant.reduction_order)
        if st.obs_collective:
            g.emit(opname, name)
        return GroupUniform(out, g.K) if operation == 0 else g.join(out)

    return Op(inst.result_id, run, False, vec)


@builder("OpGroupAll", "OpGroupAny")
def _all_any(ctx, inst) -> Op:
    """OpGroupAll / OpGroupAny over the Predicate of the active lanes (semantics.all_ / any_)."""
    scope = constant_scope(ctx, inst, 0)
    pred = inst.operands[1].value
    fn = sem.all_ if inst.opname == "OpGroupAll" else sem.any_
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        out = fn(g.split(r[pred], False), g.active)
        if st.obs_collective:
            g.emit(opname)
        return g.join(out)

    return Op(inst.result_id, run, False, False)


@builder("OpGroupBroadcast")
def _broadcast(ctx, inst) -> Op:
    """OpGroupBroadcast: ``Value`` of the invocation at ``LocalId`` in every invocation.

    Subgroup scope: LocalId is a sub-group local id (sub_group_broadcast).
    Workgroup scope: LocalId is a scalar (1D) or a 2- or 3-component vector of
    local ids (work_group_broadcast's 1D/2D/3D forms), linearised with the
    work-group's actual size. "local_id must be the same value for all
    work-items in the work-group": the first active lane's id is used and the
    rest reported as ``not_uniform``.
    """
    scope = constant_scope(ctx, inst, 0)
    value, local_id = inst.operands[1].value, inst.operands[2].value
    vec = ctx.is_vector(value)
    id_dims = T.width(ctx.type_of(local_id))
    id_vec = ctx.is_vector(local_id)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        x = g.split(r[value], vec)
        ids = arr(r[local_id])
        if scope != WORKGROUP:
            lane_id = g.split_index(ids)
            if np.ndim(lane_id):
                lane_id = lane_id.astype(np.int64)
            out = sem.broadcast(x, lane_id, g.active)
            if st.obs_collective:
                g.emit(opname, broadcast_undefined=sem.broadcast_undefined(lane_id, g.active),
                       not_uniform=g.not_uniform(ids))
            return g.join(out)
        per_group = g.first(g.split(ids, id_vec)) if is_lane_array(ids, id_vec) else ids
        per_group = np.asarray(per_group).astype(np.int64)
        coords = [per_group[..., d] if id_vec else per_group for d in range(id_dims)]
        sizes = [st.group_size[:, d] for d in range(id_dims)]
        out = sem.work_group_broadcast(x, coords, sizes, g.active)
        if st.obs_collective:
            linear = sem.linear_local_id(coords, sizes)
            g.emit(opname, broadcast_undefined=sem.broadcast_undefined(
                np.broadcast_to(linear, (g.G,)), g.active),
                local_id_out_of_range=np.broadcast_to(sem.local_id_out_of_range(coords, sizes),
                                                      (g.G,)),
                not_uniform=g.not_uniform(ids, id_vec))
        return g.join(out)

    return Op(inst.result_id, run, False, vec)
