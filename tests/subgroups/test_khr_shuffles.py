"""cl_khr_subgroup_shuffle, _shuffle_relative, _rotate (plain and clustered) and
_clustered_reduce: every type, sub-group sizes 8/16/32, full, partial and divergent
sub-groups. The references compute each lane's source lane from the spec's formula and
compare only the lanes whose result the spec defines (source active and in range)."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import SIZES
from .khr_harness import INTEGER_TYPES, TYPES, check, kernel, launch, skip_native, values
from .test_khr_non_uniform import _fold

# (expression, source lane of lane l in a sub-group of size n and maximum size S, or None
# when the spec leaves it undefined for that lane)
SHUFFLES = [
    ("sub_group_shuffle(v, (l * 5 + 3) % sz)", lambda l, n, S: (l * 5 + 3) % n),
    ("sub_group_shuffle(v, l + 2)", lambda l, n, S: l + 2 if l + 2 < n else None),
    ("sub_group_shuffle_xor(v, 1)", lambda l, n, S: l ^ 1 if l ^ 1 < n else None),
    ("sub_group_shuffle_xor(v, l & 6)", lambda l, n, S: l ^ (l & 6) if l ^ (l & 6) < n else None),
    ("sub_group_shuffle_up(v, 1)", lambda l, n, S: l - 1 if l >= 1 else None),
    ("sub_group_shuffle_up(v, l % 3)", lambda l, n, S: l - l % 3),
    ("sub_group_shuffle_down(v, 2)", lambda l, n, S: l + 2 if l + 2 < n else None),
    ("sub_group_shuffle_down(v, l % 4)", lambda l, n, S: l + l % 4 if l + l % 4 < n else None),
    ("sub_group_rotate(v, 3)", lambda l, n, S: (l + 3) % S),
    ("sub_group_rotate(v, -1)", lambda l, n, S: (l - 1) % S),
    ("sub_group_rotate(v, (int)get_max_sub_group_size() + 2)", lambda l, n, S: (l + 2) % S),
] + [
    (f"sub_group_clustered_rotate(v, {d}, {c})",
     lambda l, n, S, d=d, c=c: (l % c + d) % c + l - l % c)
    for d, c in ((1, 1), (1, 2), (3, 4), (5, 8), (-1, 8))
]
CLUSTERS = (1, 2, 4, 8)
CLUSTER_OPS = ("add", "mul", "min", "max")
BITWISE = ("and", "or", "xor")


def _cluster_ops(t: str) -> list[str]:
    return list(CLUSTER_OPS) + (list(BITWISE) if t in INTEGER_TYPES else [])


def _clustered_cases(t: str) -> list[str]:
    return [f"sub_group_clustered_reduce_{op}(v, {c})" for op in _cluster_ops(t) for c in CLUSTERS]


LOGICAL_CLUSTERED = [f"sub_group_clustered_reduce_logical_{op}(v & 1, {c})"
                     for op in ("and", "or", "xor") for c in (2, 8)]

SOURCE = "".join(
    kernel(f"shuf_{t}", t, [e for e, _ in SHUFFLES], [])
    + kernel(f"clus_{t}", t, _clustered_cases(t), LOGICAL_CLUSTERED if t == "int" else [])
    for t in TYPES)


def _shuffle_ref(source):
    def ref(xs, sg):
        want = np.zeros(sg.size, dtype=xs.dtype)
        defined = np.zeros(sg.size, dtype=bool)
        for lane in range(sg.size):
            src = source(lane, sg.size, sg.S)
            if src is not None and 0 <= src < sg.size and sg.active[src]:
                want[lane], defined[lane] = xs[src], True
        return want, defined
    return ref


def _clustered_ref(op: str, c: int, logical: bool = False):
    def ref(xs, sg):
        vals = (xs & 1).astype(np.int32) if logical else xs
        want = np.zeros(sg.size, dtype=vals.dtype)
        for start in range(0, sg.size, c):
            part = slice(start, min(start + c, sg.size))
            want[part] = _fold("reduce", op, vals[part], sg.active[part])
        return (want != 0).astype(np.int32) if logical else want, True
    return ref


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("t", list(TYPES))
def test_shuffles_and_rotates(t: str, S: int, backend: str | None) -> None:
    skip_native(backend, t, S)
    compared = 0
    for mode in range(3):
        res = launch(SOURCE, f"shuf_{t}", S, values(t, 5, -100, 100), len(SHUFFLES), 0, mode)
        for k, (expr, source) in enumerate(SHUFFLES):
            compared += check(res, res.out_t[:, k], _shuffle_ref(source), f"{expr} ({t})")
    assert compared > 0


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("t", list(TYPES))
def test_clustered_reduce(t: str, S: int, backend: str | None) -> None:
    skip_native(backend, t, S)
    cases = [(op, c) for op in _cluster_ops(t) for c in CLUSTERS]
    logical = [(op, c) for op in ("and", "or", "xor") for c in (2, 8)] if t == "int" else []
    for mode in range(3):
        res = launch(SOURCE, f"clus_{t}", S, values(t, 6), len(cases), len(logical), mode)
        for k, (op, c) in enumerate(cases):
            check(res, res.out_t[:, k], _clustered_ref(op, c), f"clustered {op} {c} ({t})")
        for k, (op, c) in enumerate(logical):
            check(res, (res.out_i[:, k] != 0).astype(np.int32),
                  _clustered_ref(f"logical_{op}", c, True), f"clustered logical {op} {c}")
