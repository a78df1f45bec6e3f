"""cl_khr_subgroup_shuffle, cl_khr_subgroup_shuffle_relative and cl_khr_subgroup_rotate:
which lane each lane reads.

Unlike Intel's shuffles these take one data operand and are bounded by the size
of the sub-group (the actual size of a partial one): sub_group_shuffle: "The
return value is undefined if the work item with sub-group local ID equal to
_index_ is inactive or if _index_ is greater than or equal to the size of the
sub-group." Each ``*_source`` returns a :class:`ShuffleSource` (``second`` always
False); ``gather`` moves the data, giving 0 where the index is out of range.
Indices are 32-bit unsigned (``uint``), rotate's delta too (SPV_KHR_subgroup_rotate
adds it modulo the cluster size).
"""

from __future__ import annotations

import numpy as np

from .shuffles import ShuffleSource, _source, _u32


def _ids(S: int) -> np.ndarray:
    return np.arange(S, dtype=np.int64)


def _bounded(lane: np.ndarray, sizes: np.ndarray | int, undefined: np.ndarray | bool = False
             ) -> ShuffleSource:
    """Source lanes ``lane``, out of range at or past ``sizes`` (broadcasting against it)."""
    oor = np.asarray(undefined) | (np.asarray(lane) >= np.asarray(sizes))
    return _source(lane, np.zeros(np.shape(oor), dtype=bool), oor)


def khr_shuffle_source(index: np.ndarray | int, sizes: np.ndarray | int, S: int) -> ShuffleSource:
    """sub_group_shuffle(value, index): "Returns _value_ for the work item with sub-group
    local ID equal to _index_." ``sizes``: the sub-group sizes, (G, 1) or one size."""
    return _bounded(np.broadcast_to(_u32(index), np.broadcast_shapes(np.shape(index), (S,))), sizes)


def khr_shuffle_xor_source(mask: np.ndarray | int, sizes: np.ndarray | int, S: int) -> ShuffleSource:
    """sub_group_shuffle_xor(value, mask): "Returns _value_ for the work item with
    sub-group local ID equal to this work item's sub-group local ID xor'd with _mask_."
    """
    return _bounded(_ids(S) ^ _u32(mask), sizes)


def khr_shuffle_up_source(delta: np.ndarray | int, sizes: np.ndarray | int, S: int) -> ShuffleSource:
    """sub_group_shuffle_up(value, delta): "Returns _value_ for the work item with
    sub-group local ID equal to this work item's sub-group local ID minus _delta_."
    Undefined when "_delta_ is greater than this work item's sub-group local ID"."""
    d = _u32(delta)
    lane = _ids(S) - d
    return _bounded(np.where(lane < 0, 0, lane), sizes, lane < 0)


def khr_shuffle_down_source(delta: np.ndarray | int, sizes: np.ndarray | int, S: int) -> ShuffleSource:
    """sub_group_shuffle_down(value, delta): "Returns _value_ for the work item with
    sub-group local ID equal to this work item's sub-group local ID plus _delta_."
    Undefined when "this work item's sub-group local ID plus _delta_ is greater than or
    equal to the size of the sub-group"."""
    return _bounded(_ids(S) + _u32(delta), sizes)


def rotate_source(delta: np.ndarray | int, S: int, cluster_size: int | None = None) -> ShuffleSource:
    """sub_group_rotate / sub_group_clustered_rotate.

    cl_khr_subgroup_rotate: "Returns _value_ for the work item with sub-group local ID
    equal to the remainder of the division of the sum of this work item's sub-group
    local ID and _delta_ by the maximum sub-group size." Clustered: "the sum of, the
    remainder of the division of the sum of this work item's ID within the cluster
    and _delta_ by _clustersize_, and the sub-group local ID of the first work-item of
    the cluster to which the work-item executing the function belongs." Never out of
    range; reading an inactive lane is undefined (``source_inactive``).
    """
    c = S if cluster_size is None else int(cluster_size)
    ids = _ids(S)
    lane = (ids % c + _u32(delta)) % c + (ids - ids % c)
    return _source(lane, np.zeros(np.shape(lane), dtype=bool), np.zeros(np.shape(lane), dtype=bool))


def gather(x: np.ndarray, src: ShuffleSource) -> np.ndarray:
    """``x`` (G, S[, N]) read at ``src.lane`` per lane; 0 where ``src.out_of_range``."""
    x = np.asarray(x)
    G, S = x.shape[:2]
    lane = np.broadcast_to(src.lane, (G, S))
    out = x[np.arange(G)[:, None], lane]
    oor = np.broadcast_to(src.out_of_range, (G, S))
    if oor.any():
        out = np.where(oor.reshape(oor.shape + (1,) * (x.ndim - 2)), 0, out).astype(x.dtype)
    return out
