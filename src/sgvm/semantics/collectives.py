"""Sub-group and work-group collectives: reduce, scans, all/any, broadcast.

The same functions serve sub-groups (axis 1 = sub-group local id) and
work-groups (axis 1 = linear local id), since both specifications define the
scan order as increasing id within the group.

Floating-point order. cl_intel_subgroups is silent on it and
opencl_c_work_group_functions.txt says "The order of floating-point operations
is not guaranteed". By default sgvm folds sequentially in increasing lane order
over the active lanes only: ``((a0 op a1) op a2) ...``, each step rounded to the
value's own type (half stays half); the ``order`` argument picks another legal
order (``float_order``). Hence ``reduce`` equals the inclusive scan of the
last lane in the ``lanes`` order, and the exclusive scan of a lane equals the
inclusive scan of the previous active lane. Float min/max use IEEE 754 minNum/maxNum (``fmin``/``fmax``:
a NaN operand loses to a number), as OpenCL's ``fmin`` and Intel GPUs do; the
specifications do not say.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from .float_order import fold, inclusive
from .lanes import first_active, not_uniform

Op = Literal["add", "mul", "min", "max", "and", "or", "xor", "logical_and", "logical_or",
             "logical_xor"]

_UFUNC = {"add": np.add, "mul": np.multiply, "min": np.fmin, "max": np.fmax,
          "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
          "logical_and": np.logical_and, "logical_or": np.logical_or,
          "logical_xor": np.logical_xor}


def identity(op: Op, dtype: npt.DTypeLike) -> np.generic:
    """The identity of ``op`` for ``dtype``, as a NumPy scalar of that dtype.

    opencl_c_work_group_functions.txt: "If op = add, the identity I is 0. If op =
    min, the identity I is INT_MAX, UINT_MAX, LONG_MAX, ULONG_MAX, for int, uint,
    long, ulong types and is +INF for floating-point types. Similarly if op = max,
    the identity I is INT_MIN, 0, LONG_MIN, 0 and -INF." The 8- and 16-bit types
    (cl_intel_subgroups_char) follow the same rule: the type's max for min, its
    min for max. cl_khr_subgroup_non_uniform_arithmetic: "For *mul*, the identity
    value is `1`."; bitwise: "For *and*, the identity value is `~0` (all bits set).
    For *or* and *xor*, the identity value is `0`."; logical: "For *and*, the
    identity value is `true` (non-zero)." (and false for *or* and *xor*).
    """
    dt = np.dtype(dtype)
    if op in ("add", "or", "xor", "logical_or", "logical_xor"):
        return dt.type(0)
    if op in ("mul", "logical_and"):
        return dt.type(1)
    if op == "and":
        return dt.type(np.iinfo(dt).max if dt.kind == "u" else -1)
    if dt.kind == "f":
        return dt.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(dt)
    if op == "min":
        return dt.type(info.max)
    if op == "max":
        return dt.type(info.min)
    raise ValueError(f"unknown collective op {op!r}")


def _neutral(op: Op, dt: np.dtype) -> np.generic:
    """Filler for inactive lanes that leaves every fold bit-exact.

    Equal to ``identity`` except for floats: ``x + -0.0 == x`` keeps the sign of
    a zero sum, and ``fmin(x, NaN) == x`` keeps a NaN that an active lane gave.
    """
    if dt.kind != "f" or op == "mul":
        return identity(op, dt)
    return dt.type(-0.0 if op == "add" else np.nan)


def _lane_mask(active: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``active`` (G, S) shaped to broadcast against ``x`` (G, S) or (G, S, N)."""
    active = np.asarray(active, dtype=bool)
    return active.reshape(active.shape + (1,) * (x.ndim - 2))


def scan_inclusive(op: Op, x: np.ndarray, active: np.ndarray, order: str = "lanes") -> np.ndarray:
    """Inclusive scan along axis 1 over the active lanes; same shape and dtype as ``x``.

    cl_intel_subgroups.txt, sub_group_scan_inclusive_<op>: "Performs the specified
    inclusive scan operation of all values x specified by work items in a
    subgroup. The scan results are returned for each work item. The scan order is
    defined by increasing subgroup local ID within the subgroup."
    opencl_c_work_group_functions.txt: "returns [a0, (a0 op a1), ... (a0 op a1 op
    ... op an-1)]". Inactive lanes do not contribute; integers wrap. Floats associate
    in ``order`` (``float_order``).
    """
    x = np.asarray(x)
    filled = np.where(_lane_mask(active, x), x, _neutral(op, x.dtype))
    if x.dtype.kind == "f":
        return inclusive(_UFUNC[op], filled, order)
    return _UFUNC[op].accumulate(filled, axis=1, dtype=x.dtype)


def scan_exclusive(op: Op, x: np.ndarray, active: np.ndarray, order: str = "lanes") -> np.ndarray:
    """Exclusive scan along axis 1 over the active lanes; same shape and dtype as ``x``.

    cl_intel_subgroups.txt, sub_group_scan_exclusive_<op>: "Performs the specified
    exclusive scan operation of all values x specified by work items in a
    subgroup. [...] The scan order is defined by increasing subgroup local ID".
    opencl_c_work_group_functions.txt: "returns [I, a0, (a0 op a1), ... (a0 op a1
    op ... op an-2)]": a lane with no active lane before it gets the identity I.
    """
    x = np.asarray(x)
    scanned = scan_inclusive(op, x, active, order)
    before = np.zeros_like(scanned)
    before[:, 1:] = scanned[:, :-1]
    has_before = np.zeros(np.shape(active), dtype=bool)
    has_before[:, 1:] = np.logical_or.accumulate(np.asarray(active, dtype=bool), axis=1)[:, :-1]
    return np.where(_lane_mask(has_before, x), before, identity(op, x.dtype))


def _per_group(value: np.ndarray, lanes: int) -> np.ndarray:
    """Repeat a per-group value (G, ...) to every lane: (G, lanes, ...)."""
    return np.repeat(np.expand_dims(value, 1), lanes, axis=1)


def reduce(op: Op, x: np.ndarray, active: np.ndarray, order: str = "lanes") -> np.ndarray:
    """The group's reduction, repeated in every lane; same shape and dtype as ``x``.

    cl_intel_subgroups.txt, sub_group_reduce_<op>: "Returns the result of the
    specified reduction operation for all values of x specified by work items in
    a subgroup." Computed in lane order (see module docstring), so it equals the
    last lane of ``scan_inclusive``.
    """
    x = np.asarray(x)
    return _per_group(reduce_groups(op, x, active, order), x.shape[1])


def reduce_groups(op: Op, x: np.ndarray, active: np.ndarray, order: str = "lanes") -> np.ndarray:
    """``reduce`` once per group: shape ``(G,) + x.shape[2:]``.

    When every lane is active no filling is needed: integers reduce in any order
    (add wraps, min/max compare exactly), floats fold the lanes left to right,
    the same sequence of rounded steps as ``scan_inclusive`` (in ``order``).
    """
    x = np.asarray(x)
    if x.dtype.kind == "f":
        if not np.all(active):
            x = np.where(_lane_mask(active, x), x, _neutral(op, x.dtype))
        return fold(_UFUNC[op], x, order)
    if not np.all(active):
        return scan_inclusive(op, x, active)[:, -1]
    if op == "add" and x.ndim == 2:
        return np.einsum("ij->i", x)  # a wrapping sum, faster than add.reduce on rows
    return _UFUNC[op].reduce(x, axis=1, dtype=x.dtype)


def all_(pred: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Bool (G, S): every active lane's ``pred`` is non-zero (True for all lanes of the group).

    cl_intel_subgroups.txt, sub_group_all: "Evaluates predicate for all work items
    in the subgroup and returns a non-zero value if predicate evaluates to
    non-zero for all work items in the subgroup."
    """
    active = np.asarray(active, dtype=bool)
    return _per_group(np.all((np.asarray(pred) != 0) | ~active, axis=1), active.shape[1])


def any_(pred: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Bool (G, S): some active lane's ``pred`` is non-zero (repeated in every lane).

    cl_intel_subgroups.txt, sub_group_any: "Evaluates predicate for all work items
    in the subgroup and returns a non-zero value if predicate evaluates to
    non-zero for any work items in the subgroup."
    """
    active = np.asarray(active, dtype=bool)
    return _per_group(np.any((np.asarray(pred) != 0) & active, axis=1), active.shape[1])


def group_lane_id(lane_id: np.ndarray | int, active: np.ndarray) -> np.ndarray:
    """The broadcast source id (G,) int64: ``lane_id`` itself when scalar or (G,),
    else (G, S) its value in each group's first active lane."""
    active = np.asarray(active, dtype=bool)
    ids = np.asarray(lane_id, dtype=np.int64)
    if ids.ndim == 2:
        ids = np.take_along_axis(ids, first_active(active)[:, None], axis=1)[:, 0]
    return np.broadcast_to(ids, active.shape[:1])


def broadcast(x: np.ndarray, lane_id: np.ndarray | int, active: np.ndarray) -> np.ndarray:
    """``x`` of lane ``lane_id`` repeated in every lane; same shape and dtype as ``x``.

    cl_intel_subgroups.txt, sub_group_broadcast: "Broadcasts the value of x for
    work item identified by sub_group_local_id (value returned by
    get_sub_group_local_id) to all work items in the subgroup.
    sub_group_local_id must be the same value for all work items in the
    subgroup." ``lane_id`` is a scalar, (G,) or (G, S) (see ``group_lane_id``).
    An id outside [0, S) yields 0; ``broadcast_undefined`` reports it.
    """
    x = np.asarray(x)
    ids = group_lane_id(lane_id, active)
    valid = (ids >= 0) & (ids < x.shape[1])
    picked = x[np.arange(x.shape[0]), np.where(valid, ids, 0)]
    picked = np.where(valid.reshape(valid.shape + (1,) * (x.ndim - 2)), picked, 0)
    return _per_group(picked.astype(x.dtype, copy=False), x.shape[1])


def broadcast_undefined(lane_id: np.ndarray | int, active: np.ndarray) -> np.ndarray:
    """Bool (G,): groups whose broadcast is undefined.

    That is when ``lane_id`` (if per-lane) differs between active lanes ("must be
    the same value for all work items in the subgroup"), or names no work item
    that executes the broadcast: outside [0, S) or an inactive lane (the missing
    lanes of a partial sub-group are inactive).
    """
    active = np.asarray(active, dtype=bool)
    ids = group_lane_id(lane_id, active)
    bad = (ids < 0) | (ids >= active.shape[1])
    bad |= ~active[np.arange(active.shape[0]), np.where(bad, 0, ids)]
    if np.ndim(lane_id) == 2:
        bad |= not_uniform(lane_id, active)
    return bad


def cluster_size_undefined(cluster_size: int | None, max_size: int) -> bool:
    """True when a cluster size makes a clustered operation undefined.

    cl_khr_subgroup_extensions.asciidoc, clustered reduce: "Behavior is undefined if
    the specified cluster size is not an integer constant expression, is not a
    power-of-two, or is greater than the maximum size of a sub-group within the
    dispatch." ``None`` stands for a size that is not a constant.
    """
    if cluster_size is None:
        return True
    n = int(cluster_size)
    return n < 1 or n & (n - 1) != 0 or n > max_size


def clustered_reduce(op: Op, x: np.ndarray, active: np.ndarray, cluster_size: int,
                     order: str = "lanes") -> np.ndarray:
    """Each cluster's reduction in its lanes; same shape and dtype as ``x`` (G, S[, N]).

    cl_khr_subgroup_extensions.asciidoc: "Work items in a sub-group are assigned to
    clusters such that for cluster size _n_, the _n_ work items in the sub-group
    with the smallest sub-group local IDs are assigned to the first cluster, then
    the _n_ remaining work items with the smallest sub-group local IDs are
    assigned to the next cluster, and so on." and sub_group_clustered_reduce_<op>:
    "Returns the [...] of _value_ for all active work items in the sub-group within
    a cluster of the specified _clustersize_." Clusters are runs of ``cluster_size``
    sub-group local ids (a partial sub-group's last cluster is short); a cluster
    without active lanes gets the identity. Floats fold in ``reduce``'s ``order``.
    ``cluster_size`` must divide S (``cluster_size_undefined`` is False).
    """
    x = np.asarray(x)
    G, S = x.shape[:2]
    c = int(cluster_size)
    xc = x.reshape((G * (S // c), c) + x.shape[2:])
    ac = np.asarray(active, dtype=bool).reshape(G * (S // c), c)
    out = reduce(op, xc, ac, order)
    return out.reshape(x.shape)
