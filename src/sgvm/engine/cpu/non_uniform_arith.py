"""OpGroupNonUniform{IAdd,FAdd,IMul,FMul,SMin,UMin,FMin,SMax,UMax,FMax,BitwiseAnd,BitwiseOr,
BitwiseXor,LogicalAnd,LogicalOr,LogicalXor} with Reduce, InclusiveScan, ExclusiveScan and
ClusteredReduce (SPIR-V 1.6 s3.52.24): cl_khr_subgroup_non_uniform_arithmetic and
cl_khr_subgroup_clustered_reduce.

Over the active lanes (the work-items that reached the instruction together), with the
identities and lane-order fold of ``semantics.collectives``. ClusteredReduce's
ClusterSize "must be an <id> of a constant instruction [...] a power of 2 [...] not
greater than the size of the group" (SPIR-V); otherwise the event carries
``cluster_size_undefined`` and sgvm reduces over the whole sub-group.
"""

from __future__ import annotations

import numpy as np

from ... import semantics as sem
from ...errors import UnsupportedError
from ..common import types as T
from .collective import Grouping, constant_scope
from .non_uniform_ops import cluster_size
from .registry import Op, builder
from .values import GroupUniform

# opname → (semantics op, integers read as signed)
_ARITH = {
    "OpGroupNonUniformIAdd": ("add", False), "OpGroupNonUniformFAdd": ("add", False),
    "OpGroupNonUniformIMul": ("mul", False), "OpGroupNonUniformFMul": ("mul", False),
    "OpGroupNonUniformSMin": ("min", True), "OpGroupNonUniformUMin": ("min", False),
    "OpGroupNonUniformFMin": ("min", False),
    "OpGroupNonUniformSMax": ("max", True), "OpGroupNonUniformUMax": ("max", False),
    "OpGroupNonUniformFMax": ("max", False),
    "OpGroupNonUniformBitwiseAnd": ("and", False), "OpGroupNonUniformBitwiseOr": ("or", False),
    "OpGroupNonUniformBitwiseXor": ("xor", False),
    "OpGroupNonUniformLogicalAnd": ("logical_and", False),
    "OpGroupNonUniformLogicalOr": ("logical_or", False),
    "OpGroupNonUniformLogicalXor": ("logical_xor", False),
}
_OPERATIONS = {0: "Reduce", 1: "InclusiveScan", 2: "ExclusiveScan", 3: "ClusteredReduce"}


@builder(*_ARITH, affine="source")
def _arith(ctx, inst) -> Op:
    """OpGroupNonUniform<op>: reduce, scan or clustered reduce of Value over the active lanes."""
    scope = constant_scope(ctx, inst, 0)
    operation = inst.operands[1].value
    if operation not in _OPERATIONS:
        raise UnsupportedError(f"{inst.opname} (%{inst.result_id}): group operation {operation}")
    name = _OPERATIONS[operation]
    op, signed = _ARITH[inst.opname]
    x = inst.operands[2].value
    size = cluster_size(ctx, inst, 3)
    vec = ctx.is_vector(x)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        raw = g.split(r[x], vec)
        v = raw.view(T.signed(raw.dtype)) if signed else raw
        bad = operation == 3 and sem.cluster_size_undefined(size, g.K)
        order = st.geom.variant.reduction_order  # floats only (semantics.float_order)
        if operation == 0 or bad:
            out = sem.reduce_groups(op, v, g.active, order)
        elif operation == 1:
            out = sem.scan_inclusive(op, v, g.active, order)
        elif operation == 2:
            out = sem.scan_exclusive(op, v, g.active, order)
        else:
            out = sem.clustered_reduce(op, v, g.active, size, order)
        out = out.view(raw.dtype)
        if st.obs_collective:
            diag = {"cluster_size_undefined": np.full(g.G, bool(bad))} if operation == 3 else {}
            g.emit(opname, name, **diag)
        if operation == 0 or bad:
            return GroupUniform(out, g.K)
        return g.join(out)

    return Op(inst.result_id, run, False, vec)
