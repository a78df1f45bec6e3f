"""Sub-group buffer block reads and writes: layout and alignment rules.

Element sizes are 1, 2, 4 and 8 bytes (the ``_uc``, ``_us``, ``_ui``/unsuffixed
and ``_ul`` built-ins). The OpenCL C built-ins come with 1, 2, 4, 8 elements
(and 16 for ``_uc``); SPIR-V's OpSubgroupBlockReadINTEL allows any scalar or
vector type, so any positive count is accepted here.

Out-of-range behaviour is undefined ("There is no defined out-of-range behavior
for these functions"): that is the engine's ordinary memory bounds check.
"""

from __future__ import annotations

import numpy as np

ELEMENT_SIZES = (1, 2, 4, 8)
READ_ALIGNMENT = 4
"""cl_intel_subgroups.txt: "p must be aligned to a 32-bit (4-byte) boundary"."""
WRITE_ALIGNMENT = 16
"""cl_intel_subgroups.txt: "p must be aligned to a 128-bit (16-byte) boundary"."""


def block_offsets(elem_size: int, count: int, max_size: int) -> np.ndarray:
    """Byte offsets (S, N) int64 from ``p`` of element ``i`` of lane ``l``: ``(l + i*max_size) * elem_size``.

    cl_intel_subgroups.txt, intel_sub_group_block_read: "The data is read
    strided, so the first value read is: p[ sub_group_local_id ] and the second
    value read is: p[ sub_group_local_id + max_sub_group_size ] etc." (and the
    same for writes; SPV_INTEL_subgroups says ``SubgroupMaxSize``). The stride is
    the maximum sub-group size even in a partial sub-group, whose missing lanes
    neither read nor write. Lane ``l``'s addresses are ``p + offsets[l]``.
    """
    if elem_size not in ELEMENT_SIZES:
        raise ValueError(f"block element size must be one of {ELEMENT_SIZES}, not {elem_size}")
    if count < 1 or max_size < 1:
        raise ValueError("block count and sub-group size must be positive")
    lane = np.arange(max_size, dtype=np.int64)[:, None]
    element = np.arange(count, dtype=np.int64)[None, :]
    return (lane + element * max_size) * elem_size


def read_misaligned(p: np.ndarray | int) -> np.ndarray:
    """Bool, shaped like ``p``: a block read from byte address ``p`` is undefined.

    cl_intel_subgroups.txt (and _char for ``_uc``): "p must be aligned to a
    32-bit (4-byte) boundary." Restrictions: "The pointer p must be 32-bit
    (4-byte) aligned for reads". The same bound applies to a USE_HOST_PTR
    host_ptr, a sub-buffer origin and an SVM argument the pointer came from.
    """
    return _low_bits(p, READ_ALIGNMENT) != 0


def write_misaligned(p: np.ndarray | int) -> np.ndarray:
    """Bool, shaped like ``p``: a block write to byte address ``p`` is undefined.

    cl_intel_subgroups.txt (and _char for ``_uc``): "p must be aligned to a
    128-bit (16-byte) boundary." Restrictions: "[p] must be 128-bit (16-byte)
    aligned for writes". The same bound applies to a USE_HOST_PTR host_ptr, a
    sub-buffer origin and an SVM argument the pointer came from.
    """
    return _low_bits(p, WRITE_ALIGNMENT) != 0


def _low_bits(p: np.ndarray | int, alignment: int) -> np.ndarray:
    """``p mod alignment`` computed on the address bits (uint64), whatever NumPy's
    promotion rules: NumPy 1.x turns ``uint64 % int`` into float64, which rounds
    addresses above 2**53."""
    return np.asarray(p).astype(np.uint64) & np.uint64(alignment - 1)
