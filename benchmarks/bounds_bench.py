"""Cost of the per-work-group / per-work-item bounds of local and private objects.

    .venv/bin/python benchmarks/bounds_bench.py [--repeat N]

The CPU engine checks that every access to a local or private object stays inside the
accessing work-group's or work-item's own copy (docs/engine.md, "Memory"). This script
times the same launches with that check on and patched off (``Arena.overrun`` and the
Affine pointer test answer "inside"), alternating launch by launch in one process so
that a shared machine's load hits both alike; best of ``--repeat`` each, unchecked and
under the checker. Kernels: a local-memory tree reduction of 1M floats (groups of 256),
a 256³ matrix multiply with 16×16 local tiles, and 1M work-items indexing a private
``float a[8]`` with their id.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from cases import MATMUL, REDUCE, sgvm_args

import sgvm
from sgvm.check import Checker
from sgvm.engine.cpu import arenas, memory_access
from sgvm.runtime.launch import launch
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import read

PRIVATE = r"""
kernel void private_array(global const float* x, global float* y) {
  size_t i = get_global_id(0);
  float a[8];
  for (int k = 0; k < 8; k++) a[k] = x[i] * k;
  y[i] = a[i & 7] + a[(i >> 3) & 7];
}
"""


@contextmanager
def per_owner_bounds(on: bool) -> Iterator[None]:
    """The per-owner check as the engine has it (``on``) or answering "inside"."""
    overrun, outside = arenas.Arena.overrun, memory_access._arena_outside
    if not on:
        arenas.Arena.overrun = lambda self, offsets, lanes, nbytes: False
        memory_access._arena_outside = lambda *args: False
    try:
        yield
    finally:
        arenas.Arena.overrun, memory_access._arena_outside = overrun, outside


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    repeat = ap.parse_args().repeat
    module = read(sgvm.compile(REDUCE + MATMUL + PRIVATE, "-cl-std=CL2.0 -g"))
    n, m = 1 << 20, 256
    f = np.random.default_rng(0).random(n, dtype=np.float32)
    A = np.random.default_rng(1).random(m * m, dtype=np.float32)
    flat = NDRange((n, 1, 1), (256, 1, 1), (0, 0, 0), 1)
    rows = [("local reduction, 1M", "reduce", [f, np.zeros(n // 256, np.float32), ("local", 1024)],
             flat),
            ("tiled matmul 256", "matmul", [A, A, np.zeros(m * m, np.float32), np.int32(m)],
             NDRange((m, m, 1), (16, 16, 1), (0, 0, 0), 2)),
            ("private float a[8], 1M", "private_array", [f, np.zeros(n, np.float32)], flat)]
    print(f"| {'kernel':<34} | {'check off s':>11} | {'check on s':>10} | {'ratio':>5} |")
    print(f"|{'-' * 36}|{'-' * 13}|{'-' * 12}|{'-' * 7}|")
    for checked in (False, True):
        for name, kernel, args, nd in rows:
            kargs = sgvm_args(args)
            best = {False: float("inf"), True: float("inf")}
            for _ in range(repeat):
                for on in (False, True):
                    observers = Checker(echo=False).observers(module, kernel) if checked else ()
                    with per_owner_bounds(on):
                        t0 = time.perf_counter()
                        launch(module, kernel, kargs, nd, observers=observers)
                        best[on] = min(best[on], time.perf_counter() - t0)
            label = name + (", checker" if checked else "")
            print(f"| {label:<34} | {best[False]:11.3f} | {best[True]:10.3f} | "
                  f"{best[True] / best[False]:5.2f} |")


if __name__ == "__main__":
    main()
