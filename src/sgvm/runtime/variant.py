"""The choices the specifications leave to the implementation, as one setting of a launch.

A :class:`Variant` fixes each choice the portability check varies (docs/portability.md):

* ``sub_group_size``: the size of a kernel that requires none (None: the usual rule,
  ``compiler.subgroup_size``).
* ``mapping``: which work-items form a sub-group in a 2-D or 3-D work-group
  (``linear``, ``rows``, ``columns``; see :func:`slot_local_ids`). cl_intel_subgroups:
  "The mapping of work items to subgroups is implementation-defined".
* ``reduction_order``: the order of floating-point sub-group and work-group reductions
  and scans (``lanes``, ``tree``, ``reversed``; ``sgvm.semantics.float_order``).
* ``group_order``: the order work-groups run in (``lockstep``: batches of many groups in
  lock-step, the default; ``forward``, ``reversed`` and ``shuffle``: that order, in the
  CPU engine's strided steps, ``engine.cpu.backend.GROUP_ORDER_STEPS``).
* ``memory_init``: the starting contents of local and private memory (``zeros``,
  ``pattern``: every byte ``PATTERN_BYTE``).
* ``atomic_order``: the order in which the atomics of the work-items executing one atomic
  instruction together take effect (``lanes``, ``reversed``, ``shuffle``).
* ``seed``: the seed of the shuffles.

Each has a build option ``-sgvm-NAME=VALUE`` and an environment variable ``SGVM_NAME``
(the option wins), so one variant can be reproduced alone.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..errors import LogicError
from . import environment

PATTERN_BYTE = 0x7F  # int 0x7F7F7F7F, float 3.4e38: visible after arithmetic

CHOICES: dict[str, tuple[str, ...]] = {
    "mapping": ("linear", "rows", "columns"),
    "reduction_order": ("lanes", "tree", "reversed"),
    "group_order": ("lockstep", "forward", "reversed", "shuffle"),
    "memory_init": ("zeros", "pattern"),
    "atomic_order": ("lanes", "reversed", "shuffle"),
}
# Variant field → the name of its build option (-sgvm-NAME) and environment variable.
KNOBS: dict[str, str] = {
    "mapping": "sub-group-mapping",
    "reduction_order": "reduction-order",
    "group_order": "group-order",
    "memory_init": "memory-init",
    "atomic_order": "atomic-order",
    "seed": "seed",
}


def env_name(knob: str) -> str:
    """``reduction-order`` → ``SGVM_REDUCTION_ORDER``."""
    return "SGVM_" + knob.upper().replace("-", "_")


@dataclass(frozen=True)
class Variant:
    """One setting of every implementation-defined choice (module docstring)."""

    sub_group_size: int | None = None
    mapping: str = "linear"
    reduction_order: str = "lanes"
    group_order: str = "lockstep"
    memory_init: str = "zeros"
    atomic_order: str = "lanes"
    seed: int = 0

    def __post_init__(self) -> None:
        for name, allowed in CHOICES.items():
            if getattr(self, name) not in allowed:
                raise LogicError(f"{name.replace('_', ' ')} {getattr(self, name)!r} is not one of "
                                 f"{', '.join(allowed)}", "CL_INVALID_BUILD_OPTIONS")

    def differences(self, other: Variant) -> dict[str, Any]:
        """The fields where ``self`` differs from ``other``: name → self's value."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != getattr(other, f.name)}

    def describe(self, base: Variant | None = None) -> str:
        """``mapping=rows, seed=3`` (only the fields that differ from ``base``)."""
        diff = self.differences(base or Variant())
        return ", ".join(f"{k}={v}" for k, v in diff.items()) or "default"

    def permutation(self, n: int, order: str, salt: int = 0) -> np.ndarray | None:
        """The order ``lanes``/``lockstep`` (None: identity), ``forward``, ``reversed`` or a
        seeded ``shuffle`` of ``n`` items."""
        if order == "forward":
            return np.arange(n)
        if order == "reversed":
            return np.arange(n - 1, -1, -1)
        if order == "shuffle":
            return np.random.default_rng([self.seed, salt, n]).permutation(n)
        return None


_ENV_NAMES = {knob: env_name(knob) for knob in KNOBS.values()}


def _setting(options: dict, env: environment.Settings, knob: str) -> tuple[str | None, str]:
    opt = options.get(knob)
    if opt:
        return opt, f"-sgvm-{knob}={opt}"
    value = (getattr(env, _ENV_NAMES[knob]) or "").strip()
    return (value or None), f"{_ENV_NAMES[knob]}={value}"


_CHOSEN: dict[tuple, Variant] = {}  # (environment, default mapping, options) → Variant


def variant_from_settings(options: Any = None, default_mapping: str = "linear",
                          env: environment.Settings | None = None) -> Variant:
    """The variant the build options and environment (``env``; None: as it is now) choose
    (module docstring); the mapping defaults to the device's (``DeviceModel.sub_group_mapping``).
    Every launch asks: the answer is remembered per environment, mapping and options, and one
    Variant is built per distinct settings."""
    opts = getattr(options, "sgvm", None) or {}
    env = env or environment.current()
    key = (env, default_mapping, tuple(opts.items()) if opts else ())
    hit = _CHOSEN.get(key)
    if hit is None:
        hit = _variant(tuple(_setting(opts, env, knob) for knob in KNOBS.values()), default_mapping)
        if len(_CHOSEN) >= 64:
            _CHOSEN.clear()
        _CHOSEN[key] = hit
    return hit


@functools.lru_cache(maxsize=64)
def _variant(settings: tuple[tuple[str | None, str], ...], default_mapping: str) -> Variant:
    values: dict[str, Any] = {"mapping": default_mapping}
    for name, (value, source) in zip(KNOBS, settings, strict=True):
        if value is None:
            continue
        if name == "seed":
            if not value.isdigit():
                raise LogicError(f"{source}: the seed must be a non-negative integer",
                                 "CL_INVALID_BUILD_OPTIONS")
            values[name] = int(value)
        elif value not in CHOICES[name]:
            raise LogicError(f"{source} is not one of {', '.join(CHOICES[name])}",
                             "CL_INVALID_BUILD_OPTIONS")
        else:
            values[name] = value
    return Variant(**values)


@functools.lru_cache(maxsize=64)
def slot_local_ids(mapping: str, size: tuple[int, int, int], S: int) -> np.ndarray:
    """The linear local id (``x + y·Lx + z·Lx·Ly``) of each lane slot of a work-group of
    ``size``, slots ordered sub-group by sub-group (slot ``s`` is lane ``s % S`` of
    sub-group ``s // S``); padding slots get the ids from the volume up.

    * ``linear``: sub-group ``i`` holds linear ids ``[i·S, (i+1)·S)`` (Intel GPUs).
    * ``rows``: each row of dimension 0 (fixed y, z) forms its own ``ceil(Lx / S)``
      sub-groups (Intel's CPU runtime: a 5×7 work-group has 7 sub-groups).
    * ``columns``: dimension 1 varies fastest: the work-items ordered by
      ``y + x·Ly + z·Lx·Ly`` are cut into sub-groups of ``S``.
    """
    lx, ly, lz = size
    vol = lx * ly * lz
    if mapping == "rows":
        width = -(-lx // S) * S
        x = np.arange(width)
        rows = np.arange(ly * lz)
        ids = (rows[:, None] * lx + x[None, :]).astype(np.int64)
        ids[:, lx:] = -1
        ids = ids.ravel()
    elif mapping == "columns":
        z, x, y = np.meshgrid(np.arange(lz), np.arange(lx), np.arange(ly), indexing="ij")
        lin = (x + y * lx + z * lx * ly).ravel()  # z slowest, then x; y fastest
        ids = np.concatenate([lin, np.full(-(-vol // S) * S - vol, -1)]).astype(np.int64)
    else:
        ids = np.concatenate([np.arange(vol), np.full(-(-vol // S) * S - vol, -1)])
    pad = ids < 0
    ids[pad] = vol + np.arange(int(pad.sum()))
    ids = ids.astype(np.int64)
    ids.flags.writeable = False
    return ids


def sub_group_count(mapping: str, size: tuple[int, int, int], S: int) -> int:
    """Sub-groups of a work-group of ``size`` under ``mapping`` (the rows of a 5×7 group at
    S = 16: 7; linear: 3)."""
    vol = size[0] * size[1] * size[2]
    return int((slot_local_ids(mapping, size, S).reshape(-1, S) < vol).any(axis=1).sum())
