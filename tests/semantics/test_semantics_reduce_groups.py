"""``reduce_groups``: ``reduce`` once per group, with a fast path when every lane is
active that must give the same bits as the general fill-and-scan path (sequential lane
order for floats, NaN, signed zeros and infinities included)."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.semantics import reduce, reduce_groups, scan_inclusive

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf - inf and the like

DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64]


def _data(dtype, shape, rng) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind != "f":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(dt)
    specials = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf], dt)
    pick = rng.random(shape) < 0.05
    x[pick] = rng.choice(specials, int(pick.sum()))
    return x


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(f"u{x.dtype.itemsize}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["add", "min", "max"])
@pytest.mark.parametrize("shape", [(40, 16), (7, 8, 3), (3, 256)])
def test_all_active_matches_scan(dtype, op: str, shape: tuple[int, ...]):
    rng = np.random.default_rng(len(shape) * 1000 + shape[1])
    x = _data(dtype, shape, rng)
    active = np.ones(shape[:2], dtype=bool)
    got = reduce_groups(op, x, active)
    assert got.dtype == x.dtype and got.shape == (shape[0],) + shape[2:]
    expect = scan_inclusive(op, x, active)[:, -1]
    np.testing.assert_array_equal(_bits(got), _bits(expect))


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("op", ["add", "min", "max"])
def test_partial_and_divergent_use_the_active_lanes(dtype, op: str):
    """Missing lanes of a partial group and lanes off in divergent code do not count; the
    result equals ``reduce`` in every lane and a fold over the active lanes in order."""
    rng = np.random.default_rng(3)
    x = _data(dtype, (30, 16), rng)
    active = rng.random((30, 16)) < 0.6
    active[:5, 10:] = False  # partial groups
    active[5] = False  # a group where no lane runs
    got = reduce_groups(op, x, active)
    np.testing.assert_array_equal(_bits(got), _bits(reduce(op, x, active)[:, 0]))
    ufunc = {"add": np.add, "min": np.fmin, "max": np.fmax}[op]
    for g in range(30):
        lanes = x[g][active[g]]
        if len(lanes):
            acc = lanes[0]
            for v in lanes[1:]:
                acc = x.dtype.type(ufunc(acc, v))
            np.testing.assert_array_equal(_bits(np.array([got[g]])), _bits(np.array([acc])))
