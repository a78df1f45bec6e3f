"""The cl_khr_subgroup_* operations on the CPU engine: each family's kernel against a plain
copy kernel on the same work-items, side by side with the ratio.

    .venv/bin/python benchmarks/khr_subgroup_bench.py [--items N] [--repeat R]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import sgvm

BODIES = {
    "plain copy": "v",
    "ballot + inclusive scan + bit count": "(int)(sub_group_ballot_inclusive_scan(sub_group_ballot(v > 0))"
                                           " + sub_group_ballot_bit_count(sub_group_ballot(v > 1)))",
    "elect + non_uniform_all_equal": "sub_group_elect() + sub_group_non_uniform_all_equal(v)",
    "non_uniform reduce/scan add": "sub_group_non_uniform_reduce_add(v)"
                                   " + sub_group_non_uniform_scan_inclusive_add(v)",
    "shuffle_xor + shuffle_down": "sub_group_shuffle_xor(v, 1) + sub_group_shuffle_down(v, 2)",
    "clustered reduce add (4)": "sub_group_clustered_reduce_add(v, 4)",
    "rotate + clustered rotate": "sub_group_rotate(v, 3) + sub_group_clustered_rotate(v, 1, 8)",
    "same, in a divergent branch": "(v & 1) ? sub_group_non_uniform_reduce_add(v) + "
                                   "sub_group_shuffle_xor(v, 1) : 0",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=1 << 22)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    x = np.random.default_rng(0).integers(-8, 8, args.items).astype(np.int32)
    y = np.zeros_like(x)
    rows = []
    for name, body in BODIES.items():
        src = ("__attribute__((intel_reqd_sub_group_size(16)))\n"
               "kernel void k(global const int* x, global int* y) {\n"
               f"  size_t i = get_global_id(0); int v = x[i]; y[i] = {body};\n}}\n")
        sgvm.run(src, "k", (args.items,), (256,), x, y, options="-cl-std=CL3.0")  # build, warm
        best = min(_timed(src, args.items, x, y) for _ in range(args.repeat))
        rows.append((name, best))
    base = rows[0][1]
    print(f"{'kernel (' + str(args.items) + ' work-items, sub-groups of 16)':<48} {'s':>8} {'x plain':>8}")
    for name, t in rows:
        print(f"{name:<48} {t:8.3f} {t / base:8.1f}")


def _timed(src: str, n: int, x: np.ndarray, y: np.ndarray) -> float:
    t0 = time.perf_counter()
    sgvm.run(src, "k", (n,), (256,), x, y, options="-cl-std=CL3.0")
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
