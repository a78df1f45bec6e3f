"""Helpers over the active mask shared by the other modules."""

from __future__ import annotations

import numpy as np


def first_active(active: np.ndarray) -> np.ndarray:
    """Index (G,) int64 of each group's first active lane (0 when none is)."""
    return np.argmax(np.asarray(active, dtype=bool), axis=1).astype(np.int64)


def not_uniform(values: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Bool (G,): groups whose active lanes do not all hold the same value.

    For arguments the specifications require to be uniform, e.g.
    cl_intel_subgroups.txt: "the pointer, image, and coordinate arguments to
    these built-in functions must be the same for all work items in the
    subgroup". ``values`` is (G, S) or (G, S, N); a vector differs if any
    component does.
    """
    values = np.asarray(values)
    active = np.asarray(active, dtype=bool)
    ref = values[np.arange(values.shape[0]), first_active(active)]
    differs = values != np.expand_dims(ref, 1)
    if differs.ndim > 2:
        differs = differs.reshape(differs.shape[:2] + (-1,)).any(axis=2)
    return np.any(differs & active, axis=1)
