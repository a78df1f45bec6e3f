"""Pinning a kernel's sub-group size in the SPIR-V given to the oracle.

sgvm picks a kernel's sub-group size from its ``SubgroupSize`` execution mode, a build
option or the environment (compiler/subgroup_size.py); the oracle only honours the
execution mode (cl_intel_required_subgroup_size: "the compiler must compile the kernel
with the required sub-group size"), so kernels without one get one.
"""

from __future__ import annotations

import struct

_OP_CAPABILITY, _OP_ENTRY_POINT, _OP_EXECUTION_MODE = 17, 15, 16
_MODE_SUBGROUP_SIZE = 35
_CAP_SUBGROUP_DISPATCH = 58
_EXECUTION_MODEL_KERNEL = 6


def with_sub_group_size(spirv: bytes, size: int) -> bytes:
    """``spirv`` with ``OpExecutionMode %k SubgroupSize size`` on every kernel that has none
    (and ``OpCapability SubgroupDispatch``, which the mode requires)."""
    words = list(struct.unpack(f"<{len(spirv) // 4}I", spirv))
    kernels: list[int] = []
    sized: set[int] = set()
    has_cap = False
    first_mode = None
    last_cap = 5
    pos = 5
    while pos < len(words):
        count, opcode = words[pos] >> 16, words[pos] & 0xFFFF
        if count == 0:
            raise ValueError("malformed SPIR-V: an instruction with word count 0")
        if opcode == _OP_CAPABILITY:
            last_cap = pos + count
            has_cap |= words[pos + 1] == _CAP_SUBGROUP_DISPATCH
        elif opcode == _OP_ENTRY_POINT and words[pos + 1] == _EXECUTION_MODEL_KERNEL:
            kernels.append(words[pos + 2])
            first_mode = pos + count
        elif opcode == _OP_EXECUTION_MODE:
            first_mode = pos + count if first_mode is None else first_mode
            if words[pos + 2] == _MODE_SUBGROUP_SIZE:
                sized.add(words[pos + 1])
        pos += count
    todo = [k for k in kernels if k not in sized]
    if not todo:
        return spirv
    assert first_mode is not None
    modes = [w for k in todo for w in ((4 << 16) | _OP_EXECUTION_MODE, k, _MODE_SUBGROUP_SIZE, size)]
    words[first_mode:first_mode] = modes
    if not has_cap:
        words[last_cap:last_cap] = [(2 << 16) | _OP_CAPABILITY, _CAP_SUBGROUP_DISPATCH]
    return struct.pack(f"<{len(words)}I", *words)
