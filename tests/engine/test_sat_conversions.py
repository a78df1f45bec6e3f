"""convert_<int>_sat(<int>) for every pair of integer types, scalar and vector, with
negative and out-of-range inputs, against NumPy clipping (OpenCL C s6.2.3.3)."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import OPTS, build, run

DTYPES = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
          "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64}
PAIRS = [(d, s) for d in DTYPES for s in DTYPES if d != s]

SOURCE = "\n".join(
    f"kernel void k_{d}_{s}(global {s} *a, global {d} *b, global {s}4 *va, global {d}4 *vb)\n"
    f"{{ size_t i = get_global_id(0); b[i] = convert_{d}_sat(a[i]);"
    f" if (i < 4) vb[i] = convert_{d}4_sat(va[i]); }}"
    for d, s in PAIRS)


def _inputs(s: np.dtype) -> np.ndarray:
    info = np.iinfo(s)
    edges = [info.min, info.min + 1, -129, -128, -1, 0, 1, 127, 128, 255, 256, 32767, 32768,
             65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**32, info.max - 1, info.max]
    return np.array([v for v in edges if info.min <= v <= info.max], dtype=s)


@pytest.mark.parametrize("opts", OPTS)
@pytest.mark.parametrize(("d", "s"), PAIRS)
def test_convert_sat(d: str, s: str, opts: str) -> None:
    sd, dd = np.dtype(DTYPES[s]), np.dtype(DTYPES[d])
    a = _inputs(sd)
    va = np.resize(a[::-1], 16)
    n = len(a)
    outs, _ = run(build(SOURCE, opts), f"k_{d}_{s}",
                  [a, np.zeros(n, dd), va, np.zeros(16, dd)], n)
    b, vb = outs[1], outs[3]
    info = np.iinfo(dd)

    def want(x: np.ndarray) -> np.ndarray:
        # Python ints: no wrap-around in the comparison.
        return np.array([min(max(int(v), info.min), info.max) for v in x], dtype=dd)

    np.testing.assert_array_equal(b, want(a))
    np.testing.assert_array_equal(vb, want(va))
