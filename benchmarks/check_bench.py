"""Cost of checking: checked vs unchecked run time of four kernels, as a table of ratios.

    .venv/bin/python benchmarks/check_bench.py [--repeat N] [--scale S]

Kernels: vector add (1M floats), a local-memory reduction (1M floats, groups of
256), 256³ and 512³ tiled matrix multiplies (16×16 local tiles, barriers) and a
sub-group kernel (1M items: shuffle_down + sub_group_reduce_add + block read).
``--scale`` multiplies the 1M sizes (not the matrices).
Both runs use the same -g build; the checked one attaches every plugin
(``sgvm.check.Checker``). The target is a ratio of at most 5.
"""

from __future__ import annotations

import argparse

import numpy as np
from cases import MATMUL, REDUCE, SUBGROUP, VADD, best_time, sgvm_args

from sgvm.check import Checker
from sgvm.compiler import compile_with_log
from sgvm.runtime.launch import launch
from sgvm.runtime.ndrange import NDRange

SRC = VADD + REDUCE + MATMUL + SUBGROUP


def cases(scale: int) -> list[tuple[str, str, list, NDRange]]:
    n = (1 << 20) * scale
    f = np.random.default_rng(0).random(n, dtype=np.float32)
    rows = []
    for m in (256, 512):
        A = np.random.default_rng(1).random(m * m, dtype=np.float32)
        rows.append((f"matmul {m}", "matmul", [A, A, np.zeros(m * m, np.float32), np.int32(m)],
                     NDRange((m, m, 1), (16, 16, 1), (0, 0, 0), 2)))
    nd = NDRange((n, 1, 1), (256, 1, 1), (0, 0, 0), 1)
    return [
        ("vector add", "vadd", [f, f, np.zeros(n, np.float32)], nd),
        ("reduction", "reduce", [f, np.zeros(n // 256, np.float32), ("local", 1024)], nd),
        *rows,
        ("sub-group", "subgroup", [np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32)], nd),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scale", type=int, default=1, help="multiply the 1M-item sizes")
    opts = ap.parse_args()
    module = compile_with_log(SRC, "-cl-std=CL2.0 -g").module()
    print(f"{'kernel':<15} {'unchecked s':>12} {'checked s':>10} {'ratio':>6} {'findings':>9}")
    for name, kernel, args, nd in cases(opts.scale):
        suffix = f" ×{opts.scale}" if opts.scale > 1 and not name.startswith("matmul") else ""
        plain, checked, findings = measure(module, kernel, sgvm_args(args), nd, opts.repeat)
        print(f"{name + suffix:<15} {plain:>12.3f} {checked:>10.3f} {checked / plain:>6.2f} "
              f"{findings:>9}")


def measure(module, kernel: str, args: list, nd: NDRange, repeat: int) -> tuple[float, float, int]:
    """Best unchecked and checked times of ``repeat`` launches each, and the findings."""
    launch(module, kernel, args, nd)  # warm-up: decode
    plain = best_time(lambda: launch(module, kernel, args, nd), repeat)
    checker = Checker(echo=False)
    checked = best_time(lambda: launch(module, kernel, args, nd,
                                       observers=checker.observers(module, kernel)), repeat)
    checker.finish()
    return plain, checked, len(checker.report)


if __name__ == "__main__":
    main()
