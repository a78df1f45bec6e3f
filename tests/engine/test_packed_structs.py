"""Structs declared ``__attribute__((packed))`` (SPIR-V ``CPacked``): members without padding,
in global buffers and in ``__local`` arrays, laid out as the host's packed records."""

import numpy as np
import pytest

from .harness import OPTS, build, run

SRC = r"""
typedef struct __attribute__((packed)) { long v; int tag; } rec;   // 12 bytes, not 16

kernel void records(global const rec *in, global long *v, global int *tag, global rec *out) {
  size_t i = get_global_id(0);
  v[i] = in[i].v;
  tag[i] = in[i].tag;
  out[i].v = in[i].v * 3;
  out[i].tag = in[i].tag + 1;
}

// 5000 records: 60,000 bytes packed, within the device's 64 KiB of local memory
// (80,000 bytes if the records were padded to 16).
kernel void reversed(global const rec *in, global rec *out) {
  local rec stage[5000];
  size_t l = get_local_id(0), n = get_local_size(0);
  for (size_t k = l; k < 5000; k += n)
    stage[k] = in[k];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t k = l; k < 5000; k += n)
    out[k] = stage[4999 - k];
}
"""
REC = np.dtype([("v", "<i8"), ("tag", "<i4")])  # NumPy's packed layout: 12 bytes


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


def _records(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = np.zeros(n, REC)
    a["v"] = rng.integers(-2**40, 2**40, n)
    a["tag"] = rng.integers(-1000, 1000, n)
    return a


def test_global_records_use_the_packed_layout(module):
    assert REC.itemsize == 12
    n = 40
    a = _records(n, 1)
    (_, v, tag, out), _ = run(module, "records", [a, np.zeros(n, np.int64), np.zeros(n, np.int32),
                                                  np.zeros(n, REC)], n, 8)
    np.testing.assert_array_equal(v, a["v"])
    np.testing.assert_array_equal(tag, a["tag"])
    np.testing.assert_array_equal(out["v"], a["v"] * 3)
    np.testing.assert_array_equal(out["tag"], a["tag"] + 1)


def test_local_array_of_packed_records_fits_and_round_trips(module):
    a = _records(5000, 2)
    (_, out), _ = run(module, "reversed", [a, np.zeros(5000, REC)], 64, 64)
    np.testing.assert_array_equal(out, a[::-1])
