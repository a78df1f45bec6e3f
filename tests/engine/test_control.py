"""Control flow: divergent loops with per-item trip counts, early returns, switch,
non-inlined helper functions (kept as calls at -O0), private arrays, structs by value."""

import struct

import numpy as np
import pytest

from .harness import OPTS, build, run

SRC = r"""
typedef struct { int scale; float bias; char tag; double extra; } Params;

int collatz(int v) {
  int steps = 0;
  while (v != 1) {
    if (steps > 200) return -1;
    v = (v & 1) ? 3 * v + 1 : v / 2;
    steps++;
  }
  return steps;
}

float helper(global const float* p, int k, Params q) {
  if (k < 0) return q.bias;
  return p[k] * q.scale + q.bias + (float)q.extra;
}

kernel void flow(global const int* a, global int* out, global float* f, Params q) {
  int i = get_global_id(0);
  if (a[i] == 0) { out[i] = -7; return; }
  int acc = 0;
  for (int j = 0; j < a[i] % 13; j++) {
    if (j == 9) break;
    acc += j * j;
  }
  int priv[6];
  for (int j = 0; j < 6; j++) priv[j] = acc + j;
  switch (i % 5) {
    case 0: acc = collatz(a[i] % 50 + 1); break;
    case 2: acc = priv[a[i] % 6] * 2; break;
    case 3: return;
    default: acc += q.tag;
  }
  out[i] = acc;
  f[i] = helper(f, i % 3 == 0 ? -1 : i, q);
}
"""


def collatz(v):
    s = 0
    while v != 1:
        if s > 200:
            return -1
        v = 3 * v + 1 if v & 1 else v // 2
        s += 1
    return s


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


def test_divergent_control_flow(module):
    n = 200
    rng = np.random.default_rng(3)
    a = rng.integers(0, 100, n).astype(np.int32)
    a[::17] = 0
    f0 = rng.normal(size=n).astype(np.float32)
    params = struct.pack("<ifb7xd", 3, 0.25, 5, 0.5)
    (_, out, f), _ = run(module, "flow", [a, np.full(n, 99, np.int32), f0.copy(), params], n, 16)
    exp_out = np.full(n, 99, np.int32)
    exp_f = f0.copy()
    for i in range(n):
        if a[i] == 0:
            exp_out[i] = -7
            continue
        acc = sum(j * j for j in range(min(a[i] % 13, 9)))
        r = i % 5
        if r == 3:
            continue
        if r == 0:
            acc = collatz(a[i] % 50 + 1)
        elif r == 2:
            acc = (acc + a[i] % 6) * 2
        else:
            acc += 5
        exp_out[i] = acc
        exp_f[i] = np.float32(0.25) if i % 3 == 0 else np.float32(
            np.float32(f0[i] * np.float32(3)) + np.float32(0.25) + np.float32(0.5))
    np.testing.assert_array_equal(out, exp_out)
    np.testing.assert_allclose(f, exp_f, rtol=1e-6)
