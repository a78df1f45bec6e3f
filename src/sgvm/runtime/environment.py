"""The ``SGVM_*`` environment variables every launch consults, read in one pass.

A launch asks for about a dozen settings (the portability variants, the step budget, the
batch size, the device profile, the sub-group size, the CUDA and native backends' checks,
the native backend's threads). ``os.environ.get`` costs about a
microsecond a name (it encodes the name, and an unset one raises and catches
``KeyError``), a sixth of the launch of a small kernel. :func:`current` reads them all in
one C-level pass over the process environment's mapping and hands out one
:class:`Settings` per distinct set of values, so callers can key their own caches on it.
It never goes stale: a variable set through ``os.environ`` (or a test's ``monkeypatch``)
is seen by the next call, exactly as ``os.environ.get`` would see it.
"""

from __future__ import annotations

import os
from typing import NamedTuple


class Settings(NamedTuple):
    """The launch-time variables (None: unset), each as ``os.environ`` holds it."""

    SGVM_SUB_GROUP_MAPPING: str | None
    SGVM_REDUCTION_ORDER: str | None
    SGVM_GROUP_ORDER: str | None
    SGVM_MEMORY_INIT: str | None
    SGVM_ATOMIC_ORDER: str | None
    SGVM_SEED: str | None
    SGVM_SUB_GROUP_SIZE: str | None
    SGVM_PROFILE_DEVICE: str | None
    SGVM_MAX_STEPS: str | None
    SGVM_BATCH_LANES: str | None
    SGVM_CUDA_BOUNDS: str | None
    SGVM_BOUNDS: str | None
    SGVM_THREADS: str | None


NAMES: tuple[str, ...] = Settings._fields
_environ = os.environ
# CPython's os.environ keeps the encoded variables in ``_data`` and reads them through
# ``encodekey``/``decodevalue``; where that is missing, each name is read the usual way.
_RAW = getattr(_environ, "_data", None)
_KEYS = tuple(_environ.encodekey(n) for n in NAMES) if _RAW is not None \
    and hasattr(_environ, "encodekey") and hasattr(_environ, "decodevalue") else None
_SEEN: dict[tuple, Settings] = {}  # raw values → their Settings


def current() -> Settings:
    """The launch-time variables as the environment holds them now."""
    if _KEYS is None:
        return Settings(*map(_environ.get, NAMES))
    raw = tuple(map(_RAW.get, _KEYS))
    hit = _SEEN.get(raw)
    if hit is None:
        if len(_SEEN) >= 64:
            _SEEN.clear()
        hit = _SEEN[raw] = Settings(*(None if v is None else _environ.decodevalue(v) for v in raw))
    return hit
