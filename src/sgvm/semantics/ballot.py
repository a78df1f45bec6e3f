"""cl_khr_subgroup_non_uniform_vote and cl_khr_subgroup_ballot: elections, votes,
ballots and the sub-group mask queries.

A ballot is a ``uint4`` bitfield, (G, S, 4) uint32 here: cl_khr_subgroup_extensions,
sub_group_ballot: "Bit zero of the first vector component represents the
sub-group local ID zero, with higher-order bits and subsequent vector components
representing, in order, increasing sub-group local IDs." So lane ``l`` is bit
``l % 32`` of component ``l // 32``. These functions "need not be encountered by
all work items in a sub-group": ``active`` is the work-items that reached the call
together.
"""

from __future__ import annotations

import numpy as np

from .collectives import _per_group
from .lanes import first_active, not_uniform

BALLOT_BITS = 128


def _lane_bits(S: int) -> np.ndarray:
    """(S, 4) uint32: lane ``l``'s own bit (the eq mask)."""
    bits = np.zeros((S, 4), dtype=np.uint32)
    lanes = np.arange(S)
    bits[lanes, lanes // 32] = np.left_shift(np.uint32(1), (lanes % 32).astype(np.uint32))
    return bits


def _popcount(v: np.ndarray) -> np.ndarray:
    """Set bits of each uint32 (NumPy 2's bitwise_count, else SWAR)."""
    v = np.asarray(v, dtype=np.uint32)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(v).astype(np.uint32)
    v = v - ((v >> np.uint32(1)) & np.uint32(0x55555555))
    v = (v & np.uint32(0x33333333)) + ((v >> np.uint32(2)) & np.uint32(0x33333333))
    v = (v + (v >> np.uint32(4))) & np.uint32(0x0F0F0F0F)
    return (v * np.uint32(0x01010101)) >> np.uint32(24)


def _count(value: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """uint32: set bits of ``value & mask`` over the four components."""
    c = _popcount(np.asarray(value, dtype=np.uint32) & np.asarray(mask, dtype=np.uint32))
    return c[..., 0] + c[..., 1] + c[..., 2] + c[..., 3]  # faster than a sum over 4


def _below(n: int) -> np.ndarray:
    """(4,) uint32: the bits of ids below ``n``."""
    return _pack(np.arange(BALLOT_BITS) < n)


def _pack(bits: np.ndarray) -> np.ndarray:
    """(..., 128) bool → (..., 4) uint32, bit ``i`` of the field from index ``i``."""
    b = np.packbits(np.asarray(bits, dtype=bool), axis=-1, bitorder="little")  # (..., 16) bytes
    return np.ascontiguousarray(b).view("<u4").astype(np.uint32, copy=False)


def elect(active: np.ndarray) -> np.ndarray:
    """Bool (G, S): the active lane with the smallest id.

    sub_group_elect: "This function will return true (nonzero) for the active work
    item in the sub-group with the smallest sub-group local ID, and false (zero) for
    all other active work items in the sub-group."
    """
    active = np.asarray(active, dtype=bool)
    out = np.zeros(active.shape, dtype=bool)
    out[np.arange(active.shape[0]), first_active(active)] = True
    return out & active


def all_equal(x: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Bool (G, S): every active lane holds the same ``x`` (repeated in every lane).

    sub_group_non_uniform_all_equal: "Examines _value_ for all active work items in
    the sub-group and returns a non-zero value if _value_ is equivalent for all
    active invocations in the sub-group and zero otherwise." Floats compare as
    numbers (SPIR-V OpGroupNonUniformAllEqual: "Floating point uses ordered
    equality": a NaN equals nothing, -0.0 equals 0.0).
    """
    x = np.asarray(x)
    active = np.asarray(active, dtype=bool)
    differs = not_uniform(x, active)
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        if nan.ndim > 2:
            nan = nan.any(axis=2)
        differs |= (nan & active).any(axis=1)
    return _per_group(~differs, active.shape[1])


def broadcast_first(x: np.ndarray, active: np.ndarray) -> np.ndarray:
    """``x`` of the first active lane in every lane; same shape and dtype as ``x``.

    sub_group_broadcast_first: "Returns _value_ for the work item with the smallest
    sub-group local ID among active work items in the sub-group."
    """
    x = np.asarray(x)
    picked = x[np.arange(x.shape[0]), first_active(active)]
    return _per_group(picked, x.shape[1])


def ballot(pred: np.ndarray, active: np.ndarray) -> np.ndarray:
    """(G, S, 4) uint32: each lane's predicate bit, the same bitfield in every lane.

    sub_group_ballot: "The representative bit in the bitfield is set if the work
    item is active and the _predicate_ is non-zero, and is unset otherwise."
    """
    active = np.asarray(active, dtype=bool)
    G, S = active.shape
    set_ = (np.asarray(pred) != 0) & active
    bits = np.zeros((G, BALLOT_BITS), dtype=bool)
    bits[:, :S] = set_
    return _per_group(_pack(bits), S)


def inverse_ballot(value: np.ndarray, S: int) -> np.ndarray:
    """Bool (G, S): this lane's bit of ``value`` (G, S, 4).

    sub_group_inverse_ballot: "The predicate return value will be non-zero if the
    bit in the bitfield _value_ for this work item is set, and zero otherwise."
    """
    return (np.asarray(value, dtype=np.uint32) & _lane_bits(S)).any(axis=-1)


def ballot_bit_extract(value: np.ndarray, index: np.ndarray | int) -> np.ndarray:
    """Bool: bit ``index`` of ``value`` (..., 4); ``index`` broadcasts against ``value[..., 0]``.

    sub_group_ballot_bit_extract: "Returns the predicate value for the work item with
    sub-group local ID equal to _index_ from the bitfield _value_". An index of 128
    or more gives False (the result is undefined: ``bit_extract_undefined``).
    """
    v = np.asarray(value, dtype=np.uint32)
    idx = np.asarray(index).astype(np.int64) & 0xFFFFFFFF
    ok = idx < BALLOT_BITS
    safe = np.where(ok, idx, 0)
    comp = np.take_along_axis(v, np.broadcast_to(safe // 32, v.shape[:-1])[..., None], axis=-1)[..., 0]
    return ok & (((comp >> (safe % 32).astype(np.uint32)) & 1) != 0)


def bit_extract_undefined(index: np.ndarray | int, sizes: np.ndarray) -> np.ndarray:
    """Bool: ``ballot_bit_extract`` indices whose result is undefined.

    "The predicate return value is undefined if the work item with sub-group local
    ID equal to _index_ is greater than or equal to the size of the sub-group."
    ``sizes``: each lane's sub-group size (broadcasting against ``index``).
    """
    return (np.asarray(index).astype(np.int64) & 0xFFFFFFFF) >= sizes


def ballot_bit_count(value: np.ndarray, max_size: int) -> np.ndarray:
    """uint32: the set bits of ``value`` (..., 4) below ``max_size``.

    sub_group_ballot_bit_count: "Returns the number of bits that are set in the
    bitfield _value_, only considering the bits in _value_ that represent predicate
    values corresponding to sub-group local IDs less than the maximum sub-group
    size within the dispatch (as returned by `get_max_sub_group_size`)."
    """
    return _count(value, _below(max_size))


def ballot_inclusive_scan(value: np.ndarray) -> np.ndarray:
    """(G, S) uint32: the set bits of ``value`` (G, S, 4) at ids up to each lane's own.

    sub_group_ballot_inclusive_scan: "Returns the number of bits that are set in
    the bitfield _value_, only considering the bits in _value_ representing work
    items with a sub-group local ID less than or equal to this work item's
    sub-group local ID."
    """
    S = np.shape(value)[1]
    return _count(value, sub_group_mask("le", np.arange(S), S))


def ballot_exclusive_scan(value: np.ndarray) -> np.ndarray:
    """(G, S) uint32: the set bits of ``value`` at ids below each lane's own.

    sub_group_ballot_exclusive_scan: "[...] only considering the bits in _value_
    representing work items with a sub-group local ID less than this work item's
    sub-group local ID."
    """
    S = np.shape(value)[1]
    return _count(value, sub_group_mask("lt", np.arange(S), S))


def ballot_find_lsb(value: np.ndarray, max_size: int) -> np.ndarray:
    """uint32: the lowest set bit of ``value`` (..., 4) below ``max_size`` (0 when none).

    sub_group_ballot_find_lsb: "Returns the smallest sub-group local ID with a bit
    set in the bitfield _value_, only considering the bits in _value_ that represent
    predicate values corresponding to sub-group local IDs less than the maximum
    sub-group size within the dispatch". None set is ``find_undefined``.
    """
    v = np.asarray(value, dtype=np.uint32) & _below(max_size)
    low = (v & (~v + np.uint32(1))).astype(np.float64)  # each component's lowest set bit
    at = np.frexp(low)[1] - 1 + 32 * np.arange(4)       # its id (frexp: 2**k -> exponent k+1)
    return np.where(v != 0, at, BALLOT_BITS).min(axis=-1).clip(max=BALLOT_BITS - 1) \
        .astype(np.uint32) * (v != 0).any(axis=-1)


def ballot_find_msb(value: np.ndarray, max_size: int) -> np.ndarray:
    """uint32: the highest set bit of ``value`` below ``max_size`` (0 when none).

    sub_group_ballot_find_msb: "Returns the largest sub-group local ID with a bit
    set in the bitfield _value_, only considering the bits [...] less than the
    maximum sub-group size within the dispatch".
    """
    v = np.asarray(value, dtype=np.uint32) & _below(max_size)
    at = np.frexp(v.astype(np.float64))[1] - 1 + 32 * np.arange(4)  # each component's highest
    return np.where(v != 0, at, -1).max(axis=-1).clip(min=0).astype(np.uint32)


def find_undefined(value: np.ndarray, max_size: int) -> np.ndarray:
    """Bool: find_lsb / find_msb operands with no bit set below ``max_size``.

    "If no bits representing predicate values from all work items in the sub-group
    are set in the bitfield _value_ then the return value is undefined."
    """
    return ~(np.asarray(value, dtype=np.uint32) & _below(max_size)).any(axis=-1)


def sub_group_mask(kind: str, lane: np.ndarray, max_size: int) -> np.ndarray:
    """(..., 4) uint32: get_sub_group_{eq,ge,gt,le,lt}_mask for sub-group local ids ``lane``.

    cl_khr_subgroup_ballot: eq "the bit is set in the bitmask if the bit index
    equals the sub-group local ID"; ge "if the bit index is greater than or equal to
    the sub-group local ID and less than the maximum sub-group size"; gt "if the bit
    index is greater than the sub-group local ID and less than the maximum sub-group
    size"; le "if the bit index is less than or equal to the sub-group local ID";
    lt "if the bit index is less than the sub-group local ID"; "and unset otherwise".
    """
    i = np.arange(BALLOT_BITS)
    lane = np.asarray(lane, dtype=np.int64)[..., None]
    bits = {
        "eq": i == lane,
        "ge": (i >= lane) & (i < max_size),
        "gt": (i > lane) & (i < max_size),
        "le": i <= lane,
        "lt": i < lane,
    }[kind]
    return _pack(bits)
