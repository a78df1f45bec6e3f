"""Matching a disagreement with the oracle against the known differences
(sgvm.oracle.differences): which implementation the text supports."""

from __future__ import annotations

import re

import numpy as np

from .generator import BLOCK_WRITES, ELEMENT_BYTES, REGION, Kernel

# The deviations recognised in results (the others are kept out of generated kernels).
CLASSIFIED = ("partial-block-write", "spirv-miscompile")

_WRITE = re.compile(r"intel_sub_group_block_write(_uc|_us|_ul|_ui|)\d*\(\(global \w+ \*\)"
                    r"\(blk \+ sgr \+ (\d+)u\)")
_SUFFIX_TYPE = {"": "uint", "_ui": "uint", "_uc": "uchar", "_us": "ushort", "_ul": "ulong"}


def phantom_bytes(kernel: Kernel) -> np.ndarray:
    """Mask over the block-write buffer's bytes: True where only work-items a partial
    sub-group lacks would write."""
    ln = kernel.launch
    s = ln.sub_group_size
    per_group = -(-ln.local_size // s)
    last = ln.local_size - (per_group - 1) * s  # size of each work-group's last sub-group
    mask = np.zeros(ln.sub_groups * REGION * BLOCK_WRITES * 4, bool)
    if not ln.partial:
        return mask
    for suffix, offset in _WRITE.findall(kernel.source()):
        es = ELEMENT_BYTES[_SUFFIX_TYPE[suffix]]
        phantom = (np.arange(REGION * 4) // es) % s >= last
        for g in range(ln.groups):
            sg = g * per_group + per_group - 1
            start = (sg * REGION * BLOCK_WRITES + int(offset)) * 4
            mask[start:start + REGION * 4] |= phantom
    return mask


def classify(kernel: Kernel, ours: list[np.ndarray], oracle: list[np.ndarray]) -> str | None:
    """The name of the known difference that explains every differing word, if one does."""
    out_a, out_b = ours[1].view(np.uint32), oracle[1].view(np.uint32)
    if (out_a != out_b).any():
        return None
    diff = ours[2].view(np.uint8) != oracle[2].view(np.uint8)
    if diff.any() and not (diff & ~phantom_bytes(kernel)).any():
        return "partial-block-write"
    return None


def classify_from_source(kernel: Kernel, ours: list[np.ndarray],
                         from_source: list[np.ndarray]) -> str | None:
    """``spirv-miscompile`` when the oracle, given the kernel's OpenCL C source instead of
    its SPIR-V, leaves sgvm's buffers (up to the bytes ``partial-block-write`` explains)."""
    if (ours[1].view(np.uint32) != from_source[1].view(np.uint32)).any():
        return None
    diff = ours[2].view(np.uint8) != from_source[2].view(np.uint8)
    if (diff & ~phantom_bytes(kernel)).any():
        return None
    return "spirv-miscompile"
