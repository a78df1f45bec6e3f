"""Kernels for the cl_khr_subgroup_* tests: one kernel per (built-in family × type), many
cases per launch, three ways of reaching the calls, and the sub-group geometry the
references need.

Every kernel has the signature ``(x, take, out_t, out_i, scratch, mode)``:

* mode 0: every work-item makes the calls (the work-groups of 40 have a partial
  last sub-group for sizes 16 and 32);
* mode 1: the calls sit inside ``if (take[i])``, so only some lanes are active;
* mode 2: the calls follow a loop whose trip count ``take[i]`` differs per lane, so
  every lane is active again.

Case ``k`` of a T-valued expression lands in ``out_t[i*NT + k]``, of an int-valued one
in ``out_i[i*NI + k]``. The references (in the test modules) see each sub-group's
values, active mask and size, computed here from the mapping of DESIGN.md, not by
the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pytest

from sgvm.compiler.options import parse_options

from . import helpers
from .helpers import assert_native, build, run, sub_groups

GLOBAL, LOCAL = 80, 40
MODES = ("uniform", "divergent-if", "after-loop")
TYPES = {
    "char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
    "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
    "half": np.float16, "float": np.float32, "double": np.float64,
}
INTEGER_TYPES = [t for t, d in TYPES.items() if np.dtype(d).kind in "iu"]
# The native backend compiles a module's kernels as one C++ unit, a few seconds of CPU per
# collective-heavy kernel: its variants build only the launched kernel, at sub-group size
# 16 (a partial last sub-group of 8 lanes), for 8-, 32- and 64-bit integers, half and
# float; the other sizes and types run on the NumPy engine (test_khr_ballot runs 8, 16
# and 32 natively).
NATIVE_SIZE = 16
NATIVE_TYPES = ("char", "int", "ulong", "half", "float")


def skip_native(backend: str | None, t: str, S: int) -> None:
    """Skip the [native] variant of a test for sizes and types the native runs leave out."""
    if backend == "native" and (S != NATIVE_SIZE or t not in NATIVE_TYPES):
        pytest.skip(f"native: sub-group size {NATIVE_SIZE}, types {', '.join(NATIVE_TYPES)}")


def _only(source: str, name: str) -> str:
    """The one kernel ``name`` of a source made by ``kernel``."""
    start = source.index(f"kernel void {name}(")
    end = source.find("kernel void ", start + 1)
    return source[start:end if end >= 0 else len(source)]


def kernel(name: str, t: str, t_cases: Sequence[str], i_cases: Sequence[str]) -> str:
    """One kernel evaluating every case; ``v`` is the lane's value, ``l`` its sub-group
    local id, ``sz`` the sub-group size."""
    body = "".join(f"    ot[{k}] = {e};\n" for k, e in enumerate(t_cases))
    body += "".join(f"    oi[{k}] = {e};\n" for k, e in enumerate(i_cases))
    nt, ni = max(len(t_cases), 1), max(len(i_cases), 1)
    return (
        f"kernel void {name}(global const {t}* x, global const int* take, global {t}* out_t,\n"
        f"                   global int* out_i, global int* scratch, int mode) {{\n"
        f"  size_t i = get_global_id(0);\n  {t} v = x[i];\n  uint l = get_sub_group_local_id();\n"
        f"  uint sz = get_sub_group_size();\n"
        f"  global {t}* ot = out_t + i * {nt};\n  global int* oi = out_i + i * {ni};\n"
        f"  if (mode == 2) {{\n    int acc = 0;\n"
        f"    for (int k = 0; k < take[i]; ++k) acc += take[(i + k + 1) % {GLOBAL}];\n"
        f"    scratch[i] = acc;\n  }}\n"
        f"  if (mode != 1 || take[i]) {{\n{body}  }}\n}}\n")


@dataclass
class SubGroup:
    """One sub-group as the references see it."""

    ids: np.ndarray  # global ids in sub-group local id order (the live lanes)
    S: int  # the maximum sub-group size
    active: np.ndarray  # bool per live lane

    @property
    def size(self) -> int:
        return len(self.ids)


@dataclass
class Launch:
    """The inputs and outputs of one launch."""

    x: np.ndarray
    take: np.ndarray
    out_t: np.ndarray  # (GLOBAL, NT)
    out_i: np.ndarray  # (GLOBAL, NI)
    groups: list[SubGroup]
    mode: int


def take_pattern(mode: int, seed: int) -> np.ndarray:
    """Per lane: 0/1 (mode 1: about half the lanes, never all nor none of a sub-group of
    8) or a trip count 0..3 (mode 2)."""
    rng = np.random.default_rng(seed)
    if mode == 2:
        return rng.integers(0, 4, GLOBAL).astype(np.int32)
    t = rng.integers(0, 2, GLOBAL).astype(np.int32)
    t[::8], t[3::8] = 1, 0
    return t


def launch(source: str, name: str, S: int, x: np.ndarray, nt: int, ni: int, mode: int,
           seed: int = 0) -> Launch:
    """Build ``source`` for sub-group size ``S`` (cached) and run kernel ``name``."""
    options = f"-cl-std=CL3.0 -sgvm-sub-group-size={S}"
    module = build(_only(source, name) if helpers.DEVICE.engine == "native" else source, options)
    take = take_pattern(mode, seed)
    out_t = np.zeros(GLOBAL * max(nt, 1), dtype=x.dtype)
    out_i = np.zeros(GLOBAL * max(ni, 1), dtype=np.int32)
    scratch = np.zeros(GLOBAL, dtype=np.int32)
    (_, _, ot, oi, _), _ = run(module, name, [x, take, out_t, out_i, scratch, np.int32(mode)],
                               (GLOBAL,), (LOCAL,), options=parse_options(options))
    assert_native(module, name)
    groups = [SubGroup(ids, S, (take[ids] != 0) if mode == 1 else np.ones(len(ids), bool))
              for ids in sub_groups((GLOBAL,), (LOCAL,), S)]
    return Launch(x, take, ot.reshape(GLOBAL, -1), oi.reshape(GLOBAL, -1), groups, mode)


Reference = Callable[[np.ndarray, SubGroup], tuple[np.ndarray, np.ndarray]]


def check(res: Launch, column: np.ndarray, ref: Reference, what: str, rtol: float = 0.0) -> int:
    """Compare one case over every sub-group: ``ref(values, sub_group)`` gives the expected
    value and a defined-mask per live lane; only active, defined lanes are compared (exactly,
    or within ``rtol`` for float folds whose order is unspecified). Returns how many lanes
    were compared."""
    compared = 0
    for sg in res.groups:
        want, defined = ref(res.x[sg.ids], sg)
        got = column[sg.ids]
        keep = sg.active & np.broadcast_to(defined, sg.active.shape)
        msg = f"{what}, mode {MODES[res.mode]}, S={sg.S}, sub-group {sg.ids[:1]}"
        want = np.asarray(want, dtype=got.dtype)[keep]
        if rtol:
            np.testing.assert_allclose(got[keep], want, rtol=rtol, err_msg=msg)
        else:
            np.testing.assert_array_equal(got[keep], want, err_msg=msg)
        compared += int(keep.sum())
    return compared


def values(t: str, seed: int, low: int = -3, high: int = 4) -> np.ndarray:
    """Small random values of type ``t`` (products and sums stay exact in every type)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(TYPES[t])
    if dt.kind == "u":
        low, high = 0, high + 2
    return rng.integers(low, high, GLOBAL).astype(dt)
