"""Intel sub-group shuffles: index rules and data movement.

The ``*_source`` functions say which lane (and which data operand) each lane
reads, so a checker can also tell whether that lane executed the shuffle:
cl_intel_subgroups.txt, "data may only be shuffled among work items encountering
the subgroup shuffle function. Shuffling data from a work item that does not
encounter the subgroup shuffle function will produce undefined results."

Index arithmetic is 32-bit, as the operands are ``uint`` (OpenCL C) or 32-bit
integers (SPIR-V): a delta, index or mask is taken modulo 2**32, the
shuffle-down index ``l + delta`` wraps modulo 2**32, and the shuffle-up index
``l - delta`` is that 32-bit difference read as a signed int.

The out-of-range result is undefined ("There is no defined behavior for
out-of-range indices"); these functions return 0 there.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

_U32 = 0xFFFFFFFF


class ShuffleSource(NamedTuple):
    """Where each lane of a shuffle reads from; arrays broadcast to (G, S)."""

    lane: np.ndarray
    """int64 source sub-group local id in [0, max_size); 0 where out of range."""
    second: np.ndarray
    """bool: read from the second data operand (``next`` for shuffle_down,
    ``previous`` for shuffle_up); always False for shuffle and shuffle_xor."""
    out_of_range: np.ndarray
    """bool: the shuffle index is out of range, so the result is undefined."""


def _u32(value: np.ndarray | int) -> np.ndarray:
    return np.asarray(value).astype(np.int64) & _U32


def _lane_ids(max_size: int) -> np.ndarray:
    return np.arange(max_size, dtype=np.int64)


def _source(lane: np.ndarray, second: np.ndarray, out_of_range: np.ndarray) -> ShuffleSource:
    lane, second, out_of_range = np.broadcast_arrays(lane, second, out_of_range)
    return ShuffleSource(np.where(out_of_range, 0, lane), second & ~out_of_range, out_of_range)


def shuffle_source(index: np.ndarray | int, max_size: int) -> ShuffleSource:
    """Source of ``intel_sub_group_shuffle(data, index)``.

    cl_intel_subgroups.txt: "The data that is returned for this work item is the
    value of data for the work item identified by sub_group_local_id. [...] There
    is no defined behavior for out-of-range sub_group_local_ids." Out of range:
    ``index >= max_size`` (no work item has such an id).
    """
    idx = _u32(index)
    return _source(idx, np.zeros(idx.shape, dtype=bool), idx >= max_size)


def shuffle_down_source(delta: np.ndarray | int, max_size: int) -> ShuffleSource:
    """Source of ``intel_sub_group_shuffle_down(current, next, delta)``.

    cl_intel_subgroups.txt: "let the unsigned shuffle index be equivalent to the
    sum of this work item's sub_group_local_id plus the specified delta: If the
    shuffle index is less than the max_sub_group_size, the result [...] is the
    value of the current data source for the work item with sub_group_local_id
    equal to the shuffle index. If the shuffle index is greater than or equal to
    the max_sub_group_size but less than twice the max_sub_group_size, the result
    [...] is the value of the next data source for the work item with
    sub_group_local_id equal to the shuffle index minus the max_sub_group_size.
    All other values of the shuffle index are considered to be out-of-range."
    """
    idx = (_lane_ids(max_size) + _u32(delta)) & _U32
    second = idx >= max_size
    return _source(np.where(second, idx - max_size, idx), second, idx >= 2 * max_size)


def shuffle_up_source(delta: np.ndarray | int, max_size: int) -> ShuffleSource:
    """Source of ``intel_sub_group_shuffle_up(previous, current, delta)``.

    cl_intel_subgroups.txt: "let the signed shuffle index be equivalent to this
    work item's sub_group_local_id minus the specified delta: If the shuffle index
    is greater than or equal to zero and less than the max_sub_group_size, the
    result [...] is the value of the current data source for the work item with
    sub_group_local_id equal to the shuffle index. If the shuffle index is less
    than zero but greater than or equal to the negative max_sub_group_size, the
    result [...] is the value of the previous data source for the work item with
    sub_group_local_id equal to the shuffle index plus the max_sub_group_size.
    All other values of the shuffle index are considered to be out-of-range."
    """
    idx = (_lane_ids(max_size) - _u32(delta)) & _U32
    idx = np.where(idx >= 2**31, idx - 2**32, idx)
    second = idx < 0
    out_of_range = (idx < -max_size) | (idx >= max_size)
    return _source(np.where(second, idx + max_size, idx), second, out_of_range)


def shuffle_xor_source(mask: np.ndarray | int, max_size: int) -> ShuffleSource:
    """Source of ``intel_sub_group_shuffle_xor(data, value)``.

    cl_intel_subgroups.txt: "The data that is returned for this work item is the
    value of data for the work item with sub_group_local_id equal to this work
    item's sub_group_local_id XOR'd with the specified value. If the result of
    the XOR is greater than max_sub_group_size then it is considered
    out-of-range." A result equal to max_sub_group_size names no work item
    either, so sgvm treats ``>= max_size`` as out of range.
    """
    idx = _lane_ids(max_size) ^ _u32(mask)
    return _source(idx, np.zeros(idx.shape, dtype=bool), idx >= max_size)


def source_inactive(source: ShuffleSource, active: np.ndarray) -> np.ndarray:
    """Bool (G, S): active, in-range lanes whose source lane did not execute the shuffle.

    Per cl_intel_subgroups.txt this gives "undefined results"; the missing lanes
    of a partial sub-group are inactive, so reading them is caught here too.
    """
    active = np.asarray(active, dtype=bool)
    lane = np.broadcast_to(source.lane, active.shape)
    read = np.take_along_axis(active, lane, axis=1)
    return active & ~read & ~np.broadcast_to(source.out_of_range, active.shape)


def _gather(
    first: np.ndarray, second: np.ndarray | None, source: ShuffleSource
) -> tuple[np.ndarray, np.ndarray]:
    first = np.asarray(first)
    shape = first.shape[:2]
    lane = np.broadcast_to(source.lane, shape)
    rows = np.arange(shape[0])[:, None]
    result = first[rows, lane]
    extra = (1,) * (first.ndim - 2)
    if second is not None:
        take_second = np.broadcast_to(source.second, shape).reshape(shape + extra)
        result = np.where(take_second, np.asarray(second)[rows, lane], result)
    out_of_range = np.broadcast_to(source.out_of_range, shape)
    result = np.where(out_of_range.reshape(shape + extra), 0, result).astype(first.dtype, copy=False)
    return result, out_of_range.copy()


def _per_lane(x: np.ndarray, value: np.ndarray | int) -> np.ndarray:
    """A scalar or (G, S) index operand as a (G, S) array."""
    return np.broadcast_to(value, np.shape(x)[:2])


def _check_size(x: np.ndarray, max_size: int) -> None:
    if np.shape(x)[1] != max_size:
        raise ValueError(f"lane axis has {np.shape(x)[1]} lanes, max_size is {max_size}")


def shuffle(
    x: np.ndarray, index: np.ndarray | int, max_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """``intel_sub_group_shuffle``: ``(result, out_of_range)``; see ``shuffle_source``.

    ``x`` is (G, S) or (G, S, N) with S == max_size; ``index`` broadcasts to (G, S).
    """
    _check_size(x, max_size)
    return _gather(x, None, shuffle_source(_per_lane(x, index), max_size))


def shuffle_down(
    cur: np.ndarray, nxt: np.ndarray, delta: np.ndarray | int, max_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """``intel_sub_group_shuffle_down``: ``(result, out_of_range)``; see ``shuffle_down_source``."""
    _check_size(cur, max_size)
    return _gather(cur, nxt, shuffle_down_source(_per_lane(cur, delta), max_size))


def shuffle_up(
    prev: np.ndarray, cur: np.ndarray, delta: np.ndarray | int, max_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """``intel_sub_group_shuffle_up``: ``(result, out_of_range)``; see ``shuffle_up_source``."""
    _check_size(cur, max_size)
    return _gather(cur, prev, shuffle_up_source(_per_lane(cur, delta), max_size))


def shuffle_xor(
    x: np.ndarray, mask: np.ndarray | int, max_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """``intel_sub_group_shuffle_xor``: ``(result, out_of_range)``; see ``shuffle_xor_source``."""
    _check_size(x, max_size)
    return _gather(x, None, shuffle_xor_source(_per_lane(x, mask), max_size))
