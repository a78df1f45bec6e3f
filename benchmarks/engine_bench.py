"""CPU engine benchmarks: sgvm's wall-clock time per case beside PoCL and Oclgrind.

    .venv/bin/python benchmarks/engine_bench.py [--repeat N] [--timeout S] [--baselines FILE]

Cases: vector add of 4,194,304 floats; a 100-iteration per-item arithmetic loop
over 4,194,304 items; a local-memory tree reduction of 16M floats (work-groups
of 256); a 512×512×512 matrix multiply with 16×16 local tiles. The target is
≥ 30× faster than Oclgrind on every row.

The PoCL and Oclgrind columns run the same OpenCL C through PyOpenCL
(``benchmarks/baselines.py``; PoCL: best of a warm launch, Oclgrind: one launch
under ``oclgrind``). They need ``apt-get install pocl-opencl-icd oclgrind`` and
``.venv/bin/python -m pip install pyopencl``; a missing one leaves its column
blank. Oclgrind launches longer than ``--timeout`` (default 300 s) print
``>300`` and the speed-up is then a lower bound. ``--baselines FILE`` keeps the
external timings in a JSON file and reuses them on later runs (they do not
depend on sgvm).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
from baselines import Case, time_external
from cases import LOOP100, MATMUL, REDUCE, VADD, best_time, sgvm_args

import sgvm
from sgvm.runtime.launch import launch
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import Module, read

SRC = VADD + LOOP100 + REDUCE + MATMUL
OPTIONS = "-cl-std=CL2.0"


def cases() -> Iterator[Case]:
    n = 4_194_304
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    big = rng.random(16 * 1024 * 1024, dtype=np.float32)
    N = 512
    A, B = rng.random((N, N), dtype=np.float32), rng.random((N, N), dtype=np.float32)
    yield Case("vector add, 4,194,304 floats", SRC, "vadd", (n,), (256,),
               [a, b, np.zeros(n, np.float32)], OPTIONS)
    yield Case("100-iteration loop, 4,194,304 items", SRC, "loop100", (n,), (256,), [a], OPTIONS)
    yield Case("local reduction, 16M floats", SRC, "reduce", (big.size,), (256,),
               [big, np.zeros(big.size // 256, np.float32), ("local", 256 * 4)], OPTIONS)
    yield Case("tiled matmul 512x512x512", SRC, "matmul", (N, N), (16, 16),
               [A, B, np.zeros((N, N), np.float32), np.int32(N)], OPTIONS)


def sgvm_runner(module: Module, case: Case) -> Callable[[], object]:
    args = sgvm_args(case.args)
    nd = NDRange(case.global_size, case.local_size)
    return lambda: launch(module, case.kernel, args, nd)


def _cell(seconds: float | None, timeout: float) -> str:
    if seconds is None:
        return "-"
    return f">{timeout:.0f}" if seconds == float("inf") else f"{seconds:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per external launch")
    ap.add_argument("--baselines", type=Path, help="JSON file caching the PoCL/Oclgrind times")
    ap.add_argument("--no-external", action="store_true", help="sgvm only")
    args = ap.parse_args()
    module = read(sgvm.compile(SRC, OPTIONS))
    cache = json.loads(args.baselines.read_text()) if args.baselines and args.baselines.exists() else {}
    print(f"| {'case':38} | {'sgvm s':>7} | {'PoCL s':>7} | {'Oclgrind s':>10} | {'vs Oclgrind':>11} |")
    print(f"|{'-' * 40}|{'-' * 9}|{'-' * 9}|{'-' * 12}|{'-' * 13}|")
    for case in cases():
        fn = sgvm_runner(module, case)
        best = best_time(fn, args.repeat)
        ext = {}
        for which in ("pocl", "oclgrind"):
            key = f"{which}:{case.name}"
            if key not in cache and not args.no_external:
                t = time_external(case, which, args.timeout)
                if t is not None:
                    cache[key] = t if t != float("inf") else "timeout"
            v = cache.get(key)
            ext[which] = float("inf") if v == "timeout" else v
        og = ext["oclgrind"]
        ratio = "-" if og is None else (">" if og == float("inf") else "") + \
            f"{(args.timeout if og == float('inf') else og) / best:.0f}x"
        print(f"| {case.name:38} | {best:7.3f} | {_cell(ext['pocl'], args.timeout):>7} | "
              f"{_cell(og, args.timeout):>10} | {ratio:>11} |", flush=True)
        if args.baselines:
            args.baselines.write_text(json.dumps(cache, indent=1))


if __name__ == "__main__":
    main()
