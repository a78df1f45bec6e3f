"""`make demo`: run every example kernel and verify it against NumPy."""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path

EXAMPLES = ("gemm_subgroup", "softmax", "prefix_sum", "image_transpose", "uchar_histogram", "matvec_f16")


def main() -> int:
    sys.path.insert(0, str(Path(__file__).parent))
    failures = 0
    for name in EXAMPLES:
        start = time.perf_counter()
        try:
            results = importlib.import_module(name).main()
        except Exception as exc:  # report and go on with the next example
            traceback.print_exc(limit=-3)
            results = [(f"{name}: {type(exc).__name__}: {exc}".splitlines()[0], False)]
        elapsed = time.perf_counter() - start
        for what, ok in results:
            failures += not ok
            print(f"[{'match' if ok else 'MISMATCH'}] {what}  ({elapsed:.2f} s)")
    print(f"{len(EXAMPLES)} examples, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
