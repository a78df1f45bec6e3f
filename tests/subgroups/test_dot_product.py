"""cl_khr_integer_dot_product: dot and dot_acc_sat on char4/uchar4 in the four signedness
combinations, and the dot_4x8packed_* / dot_acc_sat_4x8packed_* forms, against NumPy
(the spec: components "sign- or zero-extended to the width of the destination type",
then multiplied and added; dot_acc_sat is add_sat(dot(a, b), acc))."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import assert_native, build, run

N = 256
COMBOS = {"uu": ("uchar4", "uchar4", "uint"), "ss": ("char4", "char4", "int"),
          "us": ("uchar4", "char4", "int"), "su": ("char4", "uchar4", "int")}
CASES = []
for xy, (ta, tb, tr) in COMBOS.items():
    CASES += [f"(int)dot(as_{ta}(a[i]), as_{tb}(b[i]))",
              f"(int)dot_acc_sat(as_{ta}(a[i]), as_{tb}(b[i]), ({tr})c[i])",
              f"(int)dot_4x8packed_{xy}_{tr}(a[i], b[i])",
              f"(int)dot_acc_sat_4x8packed_{xy}_{tr}(a[i], b[i], ({tr})c[i])"]
SOURCE = ("kernel void dots(global const uint* a, global const uint* b, global const int* c,"
          " global int* o) {\n  size_t i = get_global_id(0);\n"
          + "".join(f"  o[i * {len(CASES)} + {k}] = {e};\n" for k, e in enumerate(CASES)) + "}\n")


def _bytes(x: np.ndarray, signed: bool) -> np.ndarray:
    return x.view(np.int8 if signed else np.uint8).reshape(-1, 4).astype(np.int64)


def _expected(a, b, c):
    out = []
    for xy, (_, _, tr) in COMBOS.items():
        d = (_bytes(a, xy[0] == "s") * _bytes(b, xy[1] == "s")).sum(axis=1)
        lo, hi = (0, 2**32 - 1) if tr == "uint" else (-(2**31), 2**31 - 1)
        acc = c.astype(np.int64) if tr == "int" else c.view(np.uint32).astype(np.int64)
        dot = d.astype(np.int64) % 2**32  # the destination width
        sat = np.clip((dot if tr == "uint" else np.where(dot >= 2**31, dot - 2**32, dot)) + acc,
                      lo, hi)
        for v in (d, sat, d, sat):
            out.append((np.asarray(v) % 2**32).astype(np.uint32).view(np.int32))
    return np.stack(out, axis=1)


@pytest.mark.parametrize("std", ["CL1.2", "CL3.0"])
def test_dot_products(std: str) -> None:
    rng = np.random.default_rng(11)
    a = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    a[:4] = [0x7F7F7F7F, 0x80808080, 0xFFFFFFFF, 0]  # extremes
    b[:4] = [0x7F7F7F7F, 0x80808080, 0xFFFFFFFF, 0x01010101]
    c = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
    c[:8] = [2**31 - 1, -2**31, -1, 2**31 - 100, -2**31 + 5, 0, 2**31 - 1, -2**31]
    out = np.zeros(N * len(CASES), dtype=np.int32)
    module = build(SOURCE, f"-cl-std={std}")
    (_, _, _, got), _ = run(module, "dots", [a, b, c, out], (N,), (64,))
    assert_native(module, "dots")
    want = _expected(a, b, c)
    for k, case in enumerate(CASES):
        np.testing.assert_array_equal(got.reshape(N, -1)[:, k], want[:, k], err_msg=case)
