"""Runs a decoded function for a set of lanes: lock-step, with divergence.

While every participating lane waits at the same block the function runs
"together": each op's result is stored as is. When a branch splits the lanes,
each lane gets a program counter and the scheduler repeatedly runs the block
with the lowest reverse-post-order index among waiting lanes, for exactly the
lanes waiting there (DESIGN.md, "Divergence"); results are then merged into
the registers under that mask. Phi copies happen on edges, for the lanes that
take the edge. Calls run the callee to completion for the calling lanes.
"""

from __future__ import annotations

import numpy as np

from ..common.faults import unreachable_error
from .batch import Batch
from .decode import BRANCH, COND, KEEP, RETURN, SWITCH, UNIFORM_KEEP, DBlock, DFunction
from .values import arr, is_lane_array, merge

EXIT = np.iinfo(np.int32).max


def _copy_edges(regs: list, edges: list[tuple[int, int]]) -> None:
    vals = [regs[s] for _, s in edges]
    for (d, _), v in zip(edges, vals, strict=False):
        regs[d] = v


def _copy_edges_masked(regs: list, blk: DBlock, edges: list[tuple[int, int]], m: np.ndarray) -> None:
    vals = [regs[s] for _, s in edges]
    for (d, _), v in zip(edges, vals, strict=False):
        regs[d] = merge(v, regs[d], m, blk.phi_vector[d])


def _any_all(cond: np.ndarray, mask: np.ndarray | None) -> tuple[bool, bool]:
    if mask is None:
        return bool(cond.any()), bool(cond.all())
    c = cond[mask]
    return bool(c.any()), bool(c.all())


def _targets(blk: DBlock, regs: list, mask: np.ndarray | None, st: Batch):
    """The next block: an int when all lanes in ``mask`` agree, else a per-lane array;
    raises at OpUnreachable, naming the first lane of ``mask`` (the memory faults' choice)."""
    if blk.kind == BRANCH:
        return blk.args[0]
    if blk.kind == COND:
        cid, t, f = blk.args
        cond = arr(regs[cid])
        if np.ndim(cond) == 0:
            return t if cond else f
        any_, all_ = _any_all(cond, mask)
        if all_:
            return t
        if not any_:
            return f
        return np.where(cond, np.int32(t), np.int32(f))
    if blk.kind == SWITCH:
        sel, default, cases = blk.args
        v = arr(regs[sel])
        if np.ndim(v) == 0:
            return cases.get(int(v), default)
        out = np.full(v.shape, default, dtype=np.int32)
        for value, target in cases.items():
            out[v == v.dtype.type(value)] = target
        if mask is None:
            first = out[0]
            return int(first) if (out == first).all() else out
        sel_out = out[mask]
        return int(sel_out[0]) if sel_out.size and (sel_out == sel_out[0]).all() else out
    raise unreachable_error(st.kernel, st.gid_of(0 if mask is None else int(np.argmax(mask))))


def call(fn: DFunction, regs: list, st: Batch, mask: np.ndarray | None):
    """Run ``fn`` for the lanes in ``mask`` (None: all); return its return value."""
    saved = st.mask
    try:
        return _run(fn, regs, st, mask)
    finally:
        st.mask = saved


def _run(fn: DFunction, regs: list, st: Batch, mask: np.ndarray | None):
    blocks = fn.blocks
    b = 0
    ret = None
    while True:
        # -- together: every participating lane is at block b --------------------
        blk = blocks[b]
        st.tick()
        st.mask = mask
        if st.obs_instruction:
            for (d, f, _, _), inst in zip(blk.ops, blk.insts, strict=True):
                st.before(inst, regs)
                regs[d] = f(regs, st)
        else:
            for d, f, _, _ in blk.ops if st.obs else blk.plain:
                regs[d] = f(regs, st)
        if blk.kind == RETURN:
            rid = blk.args[0]
            return _result(regs[rid], ret, mask, fn) if rid else None
        nxt = _targets(blk, regs, mask, st)
        if type(nxt) is int:
            if nxt in blk.edges:
                _copy_edges(regs, blk.edges[nxt])
            b = nxt
            continue
        # -- diverged ---------------------------------------------------------------
        pc = np.full(st.L, EXIT, dtype=np.int32)
        if mask is None:
            pc[:] = nxt
        else:
            pc[mask] = nxt[mask]
        for target, edges in blk.edges.items():
            tm = pc == target
            if tm.any():
                _copy_edges_masked(regs, blk, edges, tm)
        b, mask, ret = _run_diverged(fn, regs, st, pc, ret)
        if b == EXIT:
            return ret


def _result(value, ret, m: np.ndarray | None, fn: DFunction):
    if ret is None or m is None:
        return value
    return merge(value, ret, m, fn.returns_vector)


def _run_diverged(fn: DFunction, regs: list, st: Batch, pc: np.ndarray, ret):
    """Run blocks lowest-index-first until the lanes reconverge or all return.

    Returns ``(block, mask, ret)``: the block where all remaining lanes meet
    (EXIT when all returned), their mask and the merged return value.
    """
    blocks = fn.blocks
    while True:
        b = int(pc.min())
        if b == EXIT:
            return EXIT, None, ret
        m = pc == b
        waiting = pc != EXIT
        if (m == waiting).all():
            return b, m, ret
        blk = blocks[b]
        st.tick()
        st.mask = m
        insts = blk.insts if st.obs_instruction else None
        for k, (d, f, mode, vec) in enumerate(blk.ops if st.obs else blk.plain):
            if insts is not None:
                st.before(insts[k], regs)
            v = f(regs, st)
            if mode == KEEP or (mode == UNIFORM_KEEP and not is_lane_array(v, vec)):
                regs[d] = v
            else:
                regs[d] = merge(v, regs[d], m, vec)
        if blk.kind == RETURN:
            rid = blk.args[0]
            if rid:
                v = regs[rid]
                ret = v if ret is None else merge(v, ret, m, fn.returns_vector)
            pc[m] = EXIT
            continue
        nxt = _targets(blk, regs, m, st)
        if type(nxt) is int:
            pc[m] = nxt
            if nxt in blk.edges:
                _copy_edges_masked(regs, blk, blk.edges[nxt], m)
        else:
            pc[m] = nxt[m]
            for target, edges in blk.edges.items():
                tm = m & (nxt == target)
                if tm.any():
                    _copy_edges_masked(regs, blk, edges, tm)
