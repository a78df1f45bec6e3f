"""examples/matvec_f16.py (ggml's mul_mv_f16_f32 pattern with sub_group_shuffle_xor and
sub_group_reduce_add on half and float data) verified against NumPy, as `make demo` does."""

from __future__ import annotations

import importlib.util
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "matvec_f16.py"


def test_matvec_example_matches_numpy() -> None:
    spec = importlib.util.spec_from_file_location("matvec_f16", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = module.main(rows=20, n=256)
    assert len(results) == 3 and all(ok for _, ok in results), results
