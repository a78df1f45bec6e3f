"""Shared helpers of the checker tests."""

from __future__ import annotations

import numpy as np

N = 64  # work-items: two work-groups of 32, each two sub-groups of 16


def line_of(src: str, text: str) -> int:
    """1-based line of the first occurrence of ``text``."""
    return src[: src.index(text)].count("\n") + 1


def buf(n: int = N + 1, dtype=np.int32) -> np.ndarray:
    return np.arange(n, dtype=dtype)
