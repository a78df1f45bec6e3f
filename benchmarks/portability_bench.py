"""Cost of the portability check: one plain launch vs the check (baseline + every variant),
as a table of ratios, with the variants run and the findings.

    .venv/bin/python benchmarks/portability_bench.py [--items N] [--matrix M]   (1M, 256)

Kernels (benchmarks/cases.py): vector add and a local-memory reduction over N floats
(groups of 256), an M×M tiled matrix multiply (16×16 local tiles, barriers) and a
sub-group kernel (shuffle_down + sub_group_reduce_add + block read) over N items.
Work-group orders other than lock-step run one work-group at a time, which is what
costs most for many small work-groups.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from cases import MATMUL, REDUCE, SUBGROUP, VADD, best_time, sgvm_args

from sgvm.check.portability import check_portability
from sgvm.compiler import compile_with_log
from sgvm.runtime.launch import launch
from sgvm.runtime.ndrange import NDRange

SRC = VADD + REDUCE + MATMUL + SUBGROUP


def cases(n: int, m: int) -> list[tuple[str, str, list, NDRange]]:
    f = np.random.default_rng(0).random(n, dtype=np.float32)
    A = np.random.default_rng(1).random(m * m, dtype=np.float32)
    nd = NDRange((n, 1, 1), (256, 1, 1), (0, 0, 0), 1)
    return [
        (f"vector add {n}", "vadd", [f, f, np.zeros(n, np.float32)], nd),
        (f"reduction {n}", "reduce", [f, np.zeros(n // 256, np.float32), ("local", 1024)], nd),
        (f"matmul {m}", "matmul", [A, A, np.zeros(m * m, np.float32), np.int32(m)],
         NDRange((m, m, 1), (16, 16, 1), (0, 0, 0), 2)),
        (f"sub-group {n}", "subgroup", [np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32)], nd),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--items", type=int, default=1 << 20)
    ap.add_argument("--matrix", type=int, default=256)
    opts = ap.parse_args()
    module = compile_with_log(SRC, "-cl-std=CL2.0 -g").module()
    print(f"{'kernel':<18} {'launch s':>9} {'check s':>8} {'ratio':>6} {'variants':>9} findings")
    for name, kernel, args, nd in cases(opts.items, opts.matrix):
        kargs = sgvm_args(args)
        launch(module, kernel, kargs, nd)  # warm-up: decode
        plain = best_time(lambda: launch(module, kernel, kargs, nd), 3)  # noqa: B023
        t = time.perf_counter()
        _, report = check_portability(module, kernel, kargs, nd)
        checked = time.perf_counter() - t
        found = ", ".join(f"{f.kind} ({f.severity})" for f in report.findings) or "none"
        print(f"{name:<18} {plain:>9.3f} {checked:>8.2f} {checked / plain:>6.1f} "
              f"{len(report.ran):>9} {found}")


if __name__ == "__main__":
    main()
