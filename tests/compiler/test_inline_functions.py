"""C99 ``inline`` functions that clang does not inline (-cl-opt-disable, noinline, large bodies)
are emitted as functions (GNU89 inline semantics, as OpenCL compilers do), and a function
that is really undefined is named as the program's own, not as a built-in."""

from __future__ import annotations

import numpy as np
import pytest

import sgvm

SOURCE = """
inline float poly(float x) { float s = 0.0f; for (int i = 0; i < 8; i++) s = s * x + (float)i; return s; }
inline __attribute__((noinline)) int twice(int x) { return 2 * x; }
inline int plus_one(int x) { return x + 1; }
kernel void k(global float *f, global int *n) {
  size_t i = get_global_id(0);
  f[i] = poly(f[i]);
  n[i] = twice(plus_one(n[i]));
}
kernel void k2(global int *n) { n[get_global_id(0)] = twice(n[get_global_id(0)]); }
"""


def _poly(x: np.ndarray) -> np.ndarray:
    s = np.zeros_like(x)
    for i in range(8):
        s = s * x + np.float32(i)
    return s


@pytest.mark.parametrize("options", ["", "-cl-opt-disable", "-cl-std=CL2.0 -cl-opt-disable", "-cl-std=CL3.0"])
def test_inline_functions_that_are_not_inlined_run(options: str) -> None:
    f = np.linspace(-1, 1, 16, dtype=np.float32)
    n = np.arange(16, dtype=np.int32) - 5
    want_f, want_n = _poly(f.copy()), 2 * (n + 1)
    sgvm.run(SOURCE, "k", (16,), None, f, n, options=options)
    assert np.array_equal(f, want_f) and np.array_equal(n, want_n)
    m = np.arange(4, dtype=np.int32)
    sgvm.run(SOURCE, "k2", (4,), None, m, options=options)
    assert m.tolist() == [0, 2, 4, 6]


def test_undefined_user_function_is_not_called_a_built_in() -> None:
    src = "float h(float); kernel void k(global float *a) { a[0] = h(a[1]); }"
    with pytest.raises(sgvm.BuildError, match=r"undefined function\(s\): h") as err:
        sgvm.compile(src)
    assert "built-in" not in err.value.what
    assert "function 'h' is called but never defined" in err.value.log
