"""semantics.float_order: each order is the association written out by hand in float32."""

import numpy as np
import pytest

from sgvm.semantics import reduce_groups, scan_exclusive, scan_inclusive
from sgvm.semantics.float_order import fold, inclusive


def _tree(v):
    v = list(v)
    while len(v) > 1:
        v = [np.float32(v[k] + v[k + 1]) for k in range(0, len(v) - 1, 2)] + (
            [v[-1]] if len(v) % 2 else [])
    return v[0]


def _hillis_steele(v):
    """Lane i after strides 1, 2, 4 ...: y[i] = y[i - k] + y[i] (all lanes at once)."""
    y = [np.float32(a) for a in v]
    k = 1
    while k < len(y):
        y = [y[i] if i < k else np.float32(y[i - k] + y[i]) for i in range(len(y))]
        k *= 2
    return y


def _reversed(v):
    acc = np.float32(v[-1])
    for a in v[-2::-1]:
        acc = np.float32(acc + a)
    return acc


@pytest.fixture
def x():
    rng = np.random.default_rng(3)
    return (rng.standard_normal((2, 13)) * 10.0 ** rng.integers(-4, 5, (2, 13))).astype(np.float32)


def test_fold(x):
    for g in range(2):
        assert fold(np.add, x, "tree")[g] == _tree(x[g])
        assert fold(np.add, x, "reversed")[g] == _reversed(x[g])
        assert fold(np.add, x, "lanes")[g] == np.add.accumulate(x[g], dtype=np.float32)[-1]


def test_inclusive(x):
    for g in range(2):
        assert inclusive(np.add, x, "tree")[g].tolist() == _hillis_steele(x[g])
        assert inclusive(np.add, x, "reversed")[g].tolist() == [_reversed(x[g][:i + 1])
                                                              for i in range(13)]


@pytest.mark.parametrize("order", ["lanes", "tree", "reversed"])
def test_inactive_lanes_change_nothing(x, order):
    """A lane that did not execute the collective contributes nothing, bit for bit: the scan
    over active lanes equals the scan of the active values alone (a lane order fold)."""
    active = np.ones(x.shape, bool)
    active[:, 5] = False
    compact = np.delete(x, 5, axis=1)
    full = scan_inclusive("add", x, active, order)
    alone = scan_inclusive("add", compact, np.ones(compact.shape, bool), order)
    exc = scan_exclusive("add", x, active, order)
    assert (exc[:, 1:] == full[:, :-1]).all() and (exc[:, 0] == 0).all()
    if order == "tree":  # the strides pair other lanes once one is removed: a legal order too
        assert np.allclose(np.delete(full, 5, axis=1), alone, rtol=1e-5, atol=1e-3)
        holed = x.copy()
        holed[:, 5] = -0.0  # the inactive lane keeps its place in the tree, adding nothing
        assert reduce_groups("add", x, active, order).tolist() == [_tree(v) for v in holed]
    else:
        assert (np.delete(full, 5, axis=1) == alone).all()
        assert (reduce_groups("add", x, active, order) == full[:, -1]).all()


def test_min_max_orders_agree(x):
    for op in ("min", "max"):
        results = {o: reduce_groups(op, x, np.ones(x.shape, bool), o).tolist()
                   for o in ("lanes", "tree", "reversed")}
        assert results["lanes"] == results["tree"] == results["reversed"]
