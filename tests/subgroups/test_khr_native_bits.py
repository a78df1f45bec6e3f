"""The native backend runs the cl_khr_subgroup_* built-ins with the NumPy engine's rules
bit for bit, undefined results included: shuffle indices out of range or naming inactive
lanes, huge deltas, non-uniform broadcast ids and rotate deltas (the first active lane's),
ballot bits past the sub-group, empty ballots for find_lsb/msb, and float folds over NaN,
signed zeros and infinities (the lane-order fold from the neutral value; a NaN result
equals a NaN: which of two NaN operands an operation returns is the compiler's choice, and
NumPy's float16 loops pick the other one than clang does). Each kernel runs
on both backends (sub-group size 16, a partial last sub-group, every lane or the lanes of
an ``if``) and every output byte is compared; the spec-defined values are checked against
NumPy references in test_khr_non_uniform, test_khr_shuffles and test_khr_ballot."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sgvm.runtime.device import DEVICES

from . import helpers
from .khr_harness import GLOBAL, TYPES, kernel, launch

S = 16
FOLDS = [f"sub_group_non_uniform_{k}_{op}(v)" for op in ("add", "mul", "min", "max")
         for k in ("reduce", "scan_inclusive", "scan_exclusive")]
SHUFFLES = [
    "sub_group_shuffle(v, l * 7u + 3u)", "sub_group_shuffle(v, l ^ 5u)",
    "sub_group_shuffle_xor(v, 9u)", "sub_group_shuffle_up(v, l % 5u)",
    "sub_group_shuffle_down(v, 3u)", "sub_group_shuffle_down(v, 0xFFFFFFFFu)",
    "sub_group_shuffle_up(v, 0xFFFFFFFFu)", "sub_group_rotate(v, 5)",
    "sub_group_rotate(v, (int)l)", "sub_group_clustered_rotate(v, 3, 4)",
    "sub_group_rotate(v, -3)",
    "sub_group_non_uniform_broadcast(v, 3)", "sub_group_non_uniform_broadcast(v, l)",
    "sub_group_non_uniform_broadcast(v, 20)", "sub_group_broadcast_first(v)",
    "sub_group_clustered_reduce_add(v, 4)", "sub_group_clustered_reduce_max(v, 2)",
    "sub_group_clustered_reduce_mul(v, 8)", "sub_group_clustered_reduce_min(v, 16)",
]
VOTES = ["sub_group_non_uniform_all_equal(v)", "sub_group_elect()",
         "sub_group_non_uniform_all(v == v)", "sub_group_non_uniform_any(v != v)"]
INT_ONLY = [f"sub_group_non_uniform_{k}_{op}(v)" for op in ("and", "or", "xor")
            for k in ("reduce", "scan_inclusive", "scan_exclusive")] + [
    "sub_group_clustered_reduce_xor(v, 4)", "sub_group_non_uniform_reduce_logical_xor(v & 1)",
    "sub_group_non_uniform_scan_exclusive_logical_and(v & 1)"]
BALLOTS = (
    [f"(int)sub_group_ballot(v > 0).s{c}" for c in range(4)]
    + ["sub_group_inverse_ballot((uint4)(as_uint(v), 0u, 1u, 2u))",
       "sub_group_ballot_bit_extract((uint4)(as_uint(v), 7u, 0u, 1u), l * 9u)",
       "(int)sub_group_ballot_bit_count((uint4)(as_uint(v), 5u, 6u, 7u))",
       "(int)sub_group_ballot_inclusive_scan((uint4)(as_uint(v), 5u, 6u, 7u))",
       "(int)sub_group_ballot_exclusive_scan((uint4)(as_uint(v), 5u, 6u, 7u))",
       "(int)sub_group_ballot_find_lsb(sub_group_ballot(v > 1000))",
       "(int)sub_group_ballot_find_msb(sub_group_ballot(v > 1000))",
       "(int)sub_group_ballot_find_lsb((uint4)(0u, 0u, as_uint(v), 0u))",
       "(int)sub_group_ballot_find_msb((uint4)(as_uint(v) & 0xFFu, 0u, 0u, 0u))"]
    + [f"(int)get_sub_group_{m}_mask().s{c}" for m in ("eq", "ge", "gt", "le", "lt")
       for c in range(2)])
# vectors built inside the ``if``: broadcast from an active lane (an inactive lane never
# computed them on the native backend; the NumPy engine computes them for every lane)
VECTOR = ["sub_group_non_uniform_broadcast(({t}4)(v, -v, v, ({t})1), l).s1",
          "sub_group_non_uniform_broadcast(({t}3)(v, ({t})2, v), l).s2"]
CHECKED = ("int", "half", "float")


def _cases(t: str) -> tuple[list[str], list[str]]:
    integer = np.dtype(TYPES[t]).kind in "iu"
    t_cases = FOLDS + SHUFFLES + [e.format(t=t) for e in VECTOR] + (INT_ONLY if integer else [])
    i_cases = VOTES + (BALLOTS if t == "int" else [])
    return t_cases, i_cases


# cases per kernel: clang's time grows faster than a kernel's size (every int case in one
# kernel took it 79 s at -O3, a third of them 7.6 s)
PART = 16


def _parts(t: str) -> list[tuple[list[str], list[str]]]:
    """The cases of ``t`` dealt round-robin into kernels of at most ``PART`` of each kind."""
    t_cases, i_cases = _cases(t)
    n = -(-max(len(t_cases), len(i_cases)) // PART)
    return [(t_cases[p::n], i_cases[p::n]) for p in range(n)]


SOURCE = "".join(kernel(f"bits_{t}_{p}", t, tc, ic) for t in CHECKED
                 for p, (tc, ic) in enumerate(_parts(t)))


def _values(t: str) -> np.ndarray:
    """Full-range integers; floats with NaN, signed zeros and infinities in some sub-groups."""
    rng = np.random.default_rng(17)
    dt = np.dtype(TYPES[t])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, GLOBAL, dtype=dt, endpoint=True)
        x[40:56] = rng.integers(0, 3, 16).astype(dt)  # one sub-group of small values
        return x
    x = rng.normal(0, 50, GLOBAL).astype(dt)
    x[[3, 21, 50]] = np.nan
    x[[5, 6, 41, 60]] = [-0.0, 0.0, -0.0, -0.0]
    x[[9, 44]] = [np.inf, -np.inf]
    x[16:32] = -0.0  # a sub-group of negative zeros (the add fold keeps the sign)
    return x


@pytest.mark.parametrize("t", CHECKED)
def test_native_matches_the_numpy_engine(t: str, backend: str, monkeypatch) -> None:
    if backend != "native":
        pytest.skip("compares the native backend with the NumPy engine (its [native] variant)")
    for (p, (t_cases, i_cases)), mode in itertools.product(enumerate(_parts(t)), (0, 1)):
        results = {}
        for device in ("cpu", "native"):
            monkeypatch.setattr(helpers, "DEVICE", DEVICES[device])
            results[device] = launch(SOURCE, f"bits_{t}_{p}", S, _values(t), len(t_cases),
                                     len(i_cases), mode)
        cpu, native = results["cpu"], results["native"]
        bits = f"u{np.dtype(TYPES[t]).itemsize}"
        for k, expr in enumerate(t_cases):
            got, want = native.out_t[:, k], cpu.out_t[:, k]
            nan = np.isnan(got) & np.isnan(want) if got.dtype.kind == "f" else False
            np.testing.assert_array_equal(np.where(nan, 0, got.view(bits)),
                                          np.where(nan, 0, want.view(bits)),
                                          err_msg=f"{expr} ({t}), mode {mode}")
        for k, expr in enumerate(i_cases):
            np.testing.assert_array_equal(native.out_i[:, k], cpu.out_i[:, k],
                                          err_msg=f"{expr} ({t}), mode {mode}")
