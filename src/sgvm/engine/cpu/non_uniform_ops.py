"""OpGroupNonUniform* votes, ballots, broadcasts, shuffles and OpGroupNonUniformRotateKHR
(SPIR-V 1.6 s3.52.24; SPV_KHR_subgroup_rotate): the cl_khr_subgroup_non_uniform_vote,
_ballot, _shuffle, _shuffle_relative and _rotate built-ins.

"These functions need not be encountered by all work items in a sub-group": the
active lanes are the lanes executing now (``Grouping.active``), exactly the
work-items that reached the instruction together. The rules are ``sgvm.semantics``
(ballot.py, khr_shuffles.py); undefined results are reported on the collective event:
``out_of_range`` / ``source_inactive`` (shuffles, rotate), ``not_uniform`` (an operand
that must be uniform: broadcast id, rotate delta, inverse-ballot value),
``broadcast_undefined``, ``bit_extract_undefined``, ``find_undefined``,
``cluster_size_undefined``. Undefined results are 0 (false).
"""

from __future__ import annotations

import numpy as np

from ... import semantics as sem
from ...errors import UnsupportedError
from .collective import Grouping, constant_scope
from .registry import Op, builder
from .values import arr

U32 = np.dtype(np.uint32)


def _ids(inst) -> list[int]:
    return [o.value for o in inst.operands[1:]]


def _sizes(g: Grouping) -> np.ndarray:
    """(G, 1) int64: each group's size (the live lanes; a partial sub-group's is smaller)."""
    return g.live().sum(axis=1, keepdims=True).astype(np.int64)


@builder("OpGroupNonUniformElect")
def _elect(ctx, inst) -> Op:
    """OpGroupNonUniformElect: true in the active lane with the lowest id (semantics.elect)."""
    scope = constant_scope(ctx, inst, 0)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        if st.obs_collective:
            g.emit(opname)
        return g.join(sem.elect(g.active))

    return Op(inst.result_id, run, False, False)


_VOTES = {"OpGroupNonUniformAll": sem.all_, "OpGroupNonUniformAny": sem.any_,
          "OpGroupNonUniformAllEqual": sem.all_equal}


@builder(*_VOTES)
def _vote(ctx, inst) -> Op:
    """OpGroupNonUniformAll / Any / AllEqual over the active lanes."""
    scope = constant_scope(ctx, inst, 0)
    (value,) = _ids(inst)
    vec = ctx.is_vector(value)
    fn = _VOTES[inst.opname]
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        out = fn(g.split(r[value], vec), g.active)
        if st.obs_collective:
            g.emit(opname)
        return g.join(out)

    return Op(inst.result_id, run, False, False)


@builder("OpGroupNonUniformBroadcast")
def _broadcast(ctx, inst) -> Op:
    """OpGroupNonUniformBroadcast (sub_group_non_uniform_broadcast): Value of lane Id.

    The first active lane's Id is used; an Id that differs between active lanes is
    ``not_uniform``, one naming an inactive or missing lane ``broadcast_undefined``.
    """
    scope = constant_scope(ctx, inst, 0)
    value, index = _ids(inst)
    vec = ctx.is_vector(value)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        lane_id = g.split_index(arr(r[index]))
        if np.ndim(lane_id):
            lane_id = lane_id.astype(np.int64)
        out = sem.broadcast(g.split(r[value], vec), lane_id, g.active)
        if st.obs_collective:
            g.emit(opname, broadcast_undefined=sem.broadcast_undefined(lane_id, g.active),
                   not_uniform=g.not_uniform(arr(r[index])))
        return g.join(out)

    return Op(inst.result_id, run, False, vec)


@builder("OpGroupNonUniformBroadcastFirst")
def _broadcast_first(ctx, inst) -> Op:
    """OpGroupNonUniformBroadcastFirst: Value of the active lane with the lowest id."""
    scope = constant_scope(ctx, inst, 0)
    (value,) = _ids(inst)
    vec = ctx.is_vector(value)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        if st.obs_collective:
            g.emit(opname)
        return g.join(sem.broadcast_first(g.split(r[value], vec), g.active))

    return Op(inst.result_id, run, False, vec)


@builder("OpGroupNonUniformBallot")
def _ballot(ctx, inst) -> Op:
    """OpGroupNonUniformBallot: the uint4 bitfield of the active lanes' predicates."""
    scope = constant_scope(ctx, inst, 0)
    (pred,) = _ids(inst)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        if st.obs_collective:
            g.emit(opname)
        return g.join(sem.ballot(g.split(r[pred], False), g.active))

    return Op(inst.result_id, run, False, True)


def _ballot_value(g: Grouping, v) -> np.ndarray:
    """A uint4 ballot operand as (G, K, 4) uint32."""
    return g.split(v, True).astype(U32, copy=False)


@builder("OpGroupNonUniformInverseBallot")
def _inverse_ballot(ctx, inst) -> Op:
    """OpGroupNonUniformInverseBallot: this lane's bit of Value (semantics.inverse_ballot);
    a Value that differs between active lanes is ``not_uniform``."""
    scope = constant_scope(ctx, inst, 0)
    (value,) = _ids(inst)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        if st.obs_collective:
            g.emit(opname, not_uniform=g.not_uniform(arr(r[value]), True))
        return g.join(sem.inverse_ballot(_ballot_value(g, r[value]), g.K))

    return Op(inst.result_id, run, False, False)


@builder("OpGroupNonUniformBallotBitExtract")
def _bit_extract(ctx, inst) -> Op:
    """OpGroupNonUniformBallotBitExtract: bit Index of Value."""
    scope = constant_scope(ctx, inst, 0)
    value, index = _ids(inst)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        idx = g.split_index(arr(r[index]))
        out = sem.ballot_bit_extract(_ballot_value(g, r[value]), idx)
        if st.obs_collective:
            g.emit(opname, bit_extract_undefined=np.broadcast_to(
                sem.bit_extract_undefined(idx, _sizes(g)), g.active.shape))
        return g.join(np.broadcast_to(out, g.active.shape))

    return Op(inst.result_id, run, False, False)


@builder("OpGroupNonUniformBallotBitCount")
def _bit_count(ctx, inst) -> Op:
    """OpGroupNonUniformBallotBitCount: Reduce, InclusiveScan or ExclusiveScan of the
    set bits (sub_group_ballot_bit_count / _inclusive_scan / _exclusive_scan)."""
    scope = constant_scope(ctx, inst, 0)
    operation, value = inst.operands[1].value, inst.operands[2].value
    if operation not in (0, 1, 2):
        raise UnsupportedError(f"{inst.opname} (%{inst.result_id}): group operation {operation}")
    dt = ctx.dtype(inst)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        v = _ballot_value(g, r[value])
        if operation == 0:
            out = sem.ballot_bit_count(v, g.K)
        elif operation == 1:
            out = sem.ballot_inclusive_scan(v)
        else:
            out = sem.ballot_exclusive_scan(v)
        if st.obs_collective:
            g.emit(opname)
        return g.join(out.astype(dt))

    return Op(inst.result_id, run, False, False)


@builder("OpGroupNonUniformBallotFindLSB", "OpGroupNonUniformBallotFindMSB")
def _find(ctx, inst) -> Op:
    """OpGroupNonUniformBallotFindLSB / MSB: the lowest / highest set bit of Value."""
    scope = constant_scope(ctx, inst, 0)
    (value,) = _ids(inst)
    fn = sem.ballot_find_lsb if inst.opname.endswith("LSB") else sem.ballot_find_msb
    dt = ctx.dtype(inst)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        v = _ballot_value(g, r[value])
        if st.obs_collective:
            g.emit(opname, find_undefined=sem.find_undefined(v, g.K))
        return g.join(fn(v, g.K).astype(dt))

    return Op(inst.result_id, run, False, False)


_SHUFFLES = {
    "OpGroupNonUniformShuffle": sem.khr_shuffle_source,
    "OpGroupNonUniformShuffleXor": sem.khr_shuffle_xor_source,
    "OpGroupNonUniformShuffleUp": sem.khr_shuffle_up_source,
    "OpGroupNonUniformShuffleDown": sem.khr_shuffle_down_source,
}


@builder(*_SHUFFLES)
def _shuffle(ctx, inst) -> Op:
    """OpGroupNonUniformShuffle / Xor / Up / Down: Value of the lane the index names,
    bounded by the sub-group's size (semantics.khr_shuffles); per-lane indices allowed."""
    scope = constant_scope(ctx, inst, 0)
    value, index = _ids(inst)
    vec = ctx.is_vector(value)
    source_fn = _SHUFFLES[inst.opname]
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        src = source_fn(g.split_index(arr(r[index])), _sizes(g), g.K)
        out = sem.gather(g.split(r[value], vec), src)
        if st.obs_collective:
            oor = np.broadcast_to(src.out_of_range, g.active.shape)
            g.emit(opname, out_of_range=oor & g.active,
                   source_inactive=sem.source_inactive(src, g.active))
        return g.join(out)

    return Op(inst.result_id, run, False, vec)


def cluster_size(ctx, inst, index: int) -> int | None:
    """The constant ClusterSize operand ``index`` of ``inst`` (None: absent or not a constant)."""
    if len(inst.operands) <= index:
        return None
    c = ctx.constant(inst.operands[index].value)
    return None if c is None else int(c)


@builder("OpGroupNonUniformRotateKHR")
def _rotate(ctx, inst) -> Op:
    """OpGroupNonUniformRotateKHR (sub_group_rotate / sub_group_clustered_rotate).

    SPV_KHR_subgroup_rotate: Delta "must be dynamically uniform within Execution"; the
    first active lane's Delta is used and a differing one reported as ``not_uniform``.
    A ClusterSize that is not a constant power of two up to the sub-group size is
    ``cluster_size_undefined``; sgvm then rotates within the whole sub-group.
    """
    scope = constant_scope(ctx, inst, 0)
    value, delta = inst.operands[1].value, inst.operands[2].value
    clustered = len(inst.operands) > 3
    size = cluster_size(ctx, inst, 3)
    vec = ctx.is_vector(value)
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, scope)
        bad = clustered and sem.cluster_size_undefined(size, g.K)
        d = arr(r[delta])
        first = g.first(g.split(d, False)) if np.ndim(d) else np.broadcast_to(d, (g.G,))
        src = sem.rotate_source(np.asarray(first)[:, None], g.K, None if bad or not clustered else size)
        out = sem.gather(g.split(r[value], vec), src)
        if st.obs_collective:
            g.emit(opname, source_inactive=sem.source_inactive(src, g.active),
                   not_uniform=g.not_uniform(d),
                   cluster_size_undefined=np.full(g.G, bool(bad)))
        return g.join(out)

    return Op(inst.result_id, run, False, vec)
