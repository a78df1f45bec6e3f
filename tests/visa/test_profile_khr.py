"""The message profile treats the cl_khr_subgroup_* operations like the other register-only
collectives: a kernel's profile is its loads and stores, whatever khr operations it adds."""

from __future__ import annotations

import numpy as np

import sgvm

PLAIN = """kernel void k(global const int *x, global int *y) {
  size_t i = get_global_id(0);
  int v = x[i];
  y[i] = v + EXTRA;
}
"""
KHR = ("sub_group_non_uniform_reduce_add(v) + (int)sub_group_ballot(v > 3).s0 + sub_group_elect()"
       " + sub_group_shuffle_xor(v, 1) + sub_group_rotate(v, 2) + sub_group_clustered_reduce_max(v, 4)")


def _messages(extra: str) -> dict:
    x, y = np.arange(256, dtype=np.int32), np.zeros(256, np.int32)
    res = sgvm.run(PLAIN.replace("EXTRA", extra), "k", (256,), (64,), x, y,
                   options="-cl-std=CL3.0", profile=True)
    return res.profile.to_dict()


def test_khr_operations_send_no_messages() -> None:
    plain, khr = _messages("0"), _messages(KHR)
    assert plain["totals"]["by_kind"] == {"SVM_GATHER": 16, "SVM_SCATTER": 16}  # 16 SIMD16 each
    assert khr == plain
