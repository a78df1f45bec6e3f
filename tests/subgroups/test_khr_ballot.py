"""cl_khr_subgroup_ballot: sub_group_ballot, inverse_ballot, ballot_bit_extract,
bit_count, inclusive/exclusive scan, find_lsb/msb and get_sub_group_{eq,ge,gt,le,lt}_mask,
for sub-group sizes 8/16/32 in full, partial and divergent sub-groups. References build
the bitfield lane by lane from the spec's words: "Bit zero of the first vector component
represents the sub-group local ID zero, with higher-order bits and subsequent vector
components representing, in order, increasing sub-group local IDs."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import SIZES
from .khr_harness import check, kernel, launch

PATTERN = (0x5A5A5A5A, 0x0F0F00FF, 0x80000001, 0xFFFFFFFF)
CASES = (
    [f"(int)sub_group_ballot(v > 0).s{c}" for c in range(4)]
    + [f"sub_group_inverse_ballot((uint4)({', '.join(hex(p) for p in PATTERN)}))",
       "sub_group_ballot_bit_extract(sub_group_ballot(v > 0), l ^ 1)",
       "(int)sub_group_ballot_bit_count(sub_group_ballot(v > 0))",
       "(int)sub_group_ballot_inclusive_scan(sub_group_ballot(v > 0))",
       "(int)sub_group_ballot_exclusive_scan(sub_group_ballot(v > 0))",
       "(int)sub_group_ballot_find_lsb(sub_group_ballot(v > 0))",
       "(int)sub_group_ballot_find_msb(sub_group_ballot(v > 0))",
       "(int)sub_group_ballot_bit_count((uint4)(0xFFFFFFFF))"]
    + [f"(int)get_sub_group_{m}_mask().s{c}" for m in ("eq", "ge", "gt", "le", "lt") for c in range(4)]
)
SOURCE = kernel("ballot", "int", [], CASES)


def _word(bits: np.ndarray, c: int) -> int:
    """Component ``c`` of a 128-bit field given as a bool array of set bits."""
    return int(sum(1 << b for b in range(32) if bits[32 * c + b]))


def _field(xs, sg) -> np.ndarray:
    bits = np.zeros(128, dtype=bool)
    bits[:sg.size] = (xs > 0) & sg.active
    return bits


def _refs():
    refs = []
    for c in range(4):
        refs.append(lambda xs, sg, c=c: (np.full(sg.size, _word(_field(xs, sg), c), np.uint32)
                                         .view(np.int32), True))
    pattern = np.array([(PATTERN[i // 32] >> (i % 32)) & 1 for i in range(128)], dtype=bool)
    refs.append(lambda xs, sg: (pattern[:sg.size].astype(np.int32), True))

    def extract(xs, sg):
        f = _field(xs, sg)
        idx = np.arange(sg.size) ^ 1
        return f[idx].astype(np.int32), idx < sg.size
    refs.append(extract)
    refs.append(lambda xs, sg: (np.full(sg.size, _field(xs, sg)[:sg.S].sum()), True))
    refs.append(lambda xs, sg: (np.array([_field(xs, sg)[:k + 1].sum() for k in range(sg.size)]),
                                True))
    refs.append(lambda xs, sg: (np.array([_field(xs, sg)[:k].sum() for k in range(sg.size)]), True))

    def find(last: bool):
        def ref(xs, sg):
            set_ = np.flatnonzero(_field(xs, sg)[:sg.S])
            if len(set_) == 0:
                return np.zeros(sg.size), False  # "the return value is undefined"
            return np.full(sg.size, set_[-1] if last else set_[0]), True
        return ref
    refs += [find(False), find(True)]
    refs.append(lambda xs, sg: (np.full(sg.size, sg.S), True))  # only bits below the max size
    i = np.arange(128)
    masks = {"eq": lambda l, S: i == l, "ge": lambda l, S: (i >= l) & (i < S),
             "gt": lambda l, S: (i > l) & (i < S), "le": lambda l, S: i <= l, "lt": lambda l, S: i < l}
    for m in ("eq", "ge", "gt", "le", "lt"):
        for c in range(4):
            refs.append(lambda xs, sg, m=m, c=c: (
                np.array([_word(masks[m](l, sg.S), c) for l in range(sg.size)], np.uint32)
                .view(np.int32), True))
    return refs


@pytest.mark.parametrize("S", SIZES)
def test_ballot(S: int) -> None:
    refs = _refs()
    assert len(refs) == len(CASES)
    rng = np.random.default_rng(7)
    for mode in range(3):
        x = rng.integers(-2, 3, 80).astype(np.int32)
        res = launch(SOURCE, "ballot", S, x, 0, len(CASES), mode)
        for k, ref in enumerate(refs):
            got = res.out_i[:, k]
            if CASES[k].startswith(("sub_group_inverse", "sub_group_ballot_bit_extract")):
                got = (got != 0).astype(np.int32)  # "non-zero" for a set bit
            check(res, got, ref, CASES[k])
