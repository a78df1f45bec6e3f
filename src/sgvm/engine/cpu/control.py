"""Calls and barriers (SPIR-V 1.6 s3.52.17, s3.52.20).

OpFunctionCall runs the callee to completion for exactly the calling lanes,
in a fresh register frame (OpenCL C forbids recursion, so every function's
``Function`` variables have one static slot per lane in the private arena).
OpControlBarrier needs no waiting in lock-step execution: the lanes of a
work-group that reach it arrive together. It is reported to observers.
"""

from __future__ import annotations

from .registry import Op, builder
from .values import arr


@builder("OpFunctionCall")
def _call(ctx, inst) -> Op:
    fid = inst.operands[0].value
    args = [o.value for o in inst.operands[1:]]
    program = ctx.program
    program.want_function(fid)
    vec = ctx.rtype(inst).op == "Vector"

    def run(r, st):
        from .scheduler import call

        callee = program.functions[fid]
        frame = st.template.copy()
        for p, a in zip(callee.params, args, strict=False):
            frame[p] = arr(r[a])
        return arr(call(callee, frame, st, st.mask))  # the caller expects no lazy value

    return Op(inst.result_id or 0, run, False, vec)


@builder("OpControlBarrier")
def _barrier(ctx, inst) -> Op:
    ids = [o.value for o in inst.operands]

    def run(r, st):
        for f in st.obs_barrier:
            f(st, [int(arr(r[i])) for i in ids], st.mask)

    return Op(0, run, False, False)


@builder("OpMemoryBarrier")
def _fence(ctx, inst) -> None:
    return None  # lock-step execution orders memory already
