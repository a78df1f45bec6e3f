"""Sub-group reduce / scans / broadcast / all / any for every type, sub-group size
8/16/32, full and partial sub-groups, 1D/2D/3D and non-uniform work-groups,
against NumPy folds in sub-group local id order (the spec's scan order)."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import GID, SHAPES, SIZES, build, run, sub_groups, total

# OpenCL C type → (NumPy dtype, built-in prefix): the 8/16-bit forms are
# cl_intel_subgroups_char/_short's intel_sub_group_*.
TYPES = {
    "char": (np.int8, "intel_sub_group"), "uchar": (np.uint8, "intel_sub_group"),
    "short": (np.int16, "intel_sub_group"), "ushort": (np.uint16, "intel_sub_group"),
    "int": (np.int32, "sub_group"), "uint": (np.uint32, "sub_group"),
    "long": (np.int64, "sub_group"), "ulong": (np.uint64, "sub_group"),
    "half": (np.float16, "sub_group"), "float": (np.float32, "sub_group"),
    "double": (np.float64, "sub_group"),
}
OPS = [f"reduce_{o}" for o in ("add", "min", "max")] + [
    f"scan_{k}_{o}" for k in ("inclusive", "exclusive") for o in ("add", "min", "max")]
NOUT = len(OPS) + 1  # + broadcast


def _kernel(t: str, S: int) -> str:
    prefix = TYPES[t][1]
    body = "".join(f"  o[{k}] = {prefix}_{op}(v);\n" for k, op in enumerate(OPS))
    return (f"__attribute__((intel_reqd_sub_group_size({S})))\n"
            f"kernel void coll_{t}_{S}(global const {t}* x, global {t}* out) {{\n"
            f"  size_t i = {GID};\n  {t} v = x[i];\n  global {t}* o = out + i * {NOUT};\n{body}"
            f"  o[{len(OPS)}] = {prefix}_broadcast(v, get_sub_group_size() - 1);\n}}\n")


ALL_ANY = "".join(
    f"__attribute__((intel_reqd_sub_group_size({S})))\n"
    f"kernel void allany_{S}(global const int* x, global int* out) {{\n"
    f"  size_t i = {GID};\n"
    f"  out[2*i] = sub_group_all(x[i] > 0);\n  out[2*i+1] = sub_group_any(x[i] > 90);\n}}\n"
    for S in SIZES)


@pytest.fixture(scope="module")
def module():
    return build("".join(_kernel(t, S) for t in TYPES for S in SIZES) + ALL_ANY)


def _identity(op: str, dt: np.dtype):
    if op == "add":
        return dt.type(0)
    if dt.kind == "f":
        return dt.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(dt)
    return dt.type(info.max if op == "min" else info.min)


def _reference(x: np.ndarray, op_name: str) -> np.ndarray:
    """The spec's fold in lane order: reduce = last inclusive value; exclusive = [I, a0, ...]."""
    kind, op = op_name.rsplit("_", 1)
    ufunc = {"add": np.add, "min": np.minimum, "max": np.maximum}[op]
    inclusive = ufunc.accumulate(x, dtype=x.dtype)  # integer adds wrap at the type's width
    if kind == "reduce":
        return np.full_like(x, inclusive[-1])
    if kind == "scan_inclusive":
        return inclusive
    return np.concatenate(([_identity(op, x.dtype)], inclusive[:-1])).astype(x.dtype)


def _check(actual: np.ndarray, desired: np.ndarray, op: str) -> None:
    """Bit-identical, floats too: every device folds float sums in lane order (the CPU
    engine's documented order; docs/cuda.md, "Float order")."""
    np.testing.assert_array_equal(actual, desired, err_msg=op)


def _inputs(dt: np.dtype, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dt.kind == "f":
        return (rng.standard_normal(n) * 8).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("t", TYPES)
def test_reduce_scan_broadcast(module, t, S, shape):
    gs, ls = SHAPES[shape]
    dt = np.dtype(TYPES[t][0])
    n = total(gs)
    x = _inputs(dt, n, seed=S)
    (_, out), _ = run(module, f"coll_{t}_{S}", [x, np.zeros(n * NOUT, dt)], gs, ls)
    out = out.reshape(n, NOUT)
    for idx in sub_groups(gs, ls, S):
        for k, op in enumerate(OPS):
            _check(out[idx, k], _reference(x[idx], op), op)
        np.testing.assert_array_equal(out[idx, len(OPS)], x[idx[-1]], err_msg="broadcast")


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("S", SIZES)
def test_all_any(module, S, shape):
    gs, ls = SHAPES[shape]
    n = total(gs)
    x = np.random.default_rng(S).integers(-5, 100, n).astype(np.int32)
    x[::7] = 50  # make some sub-groups all-positive
    x[: n // 2] = np.abs(x[: n // 2]) + 1
    (_, out), _ = run(module, f"allany_{S}", [x, np.zeros(2 * n, np.int32)], gs, ls)
    out = out.reshape(n, 2)
    for idx in sub_groups(gs, ls, S):
        assert ((out[idx, 0] != 0) == (x[idx] > 0).all()).all()
        assert ((out[idx, 1] != 0) == (x[idx] > 90).any()).all()


def test_spec_scan_example(module):
    """opencl_c_work_group_functions.txt: [3 1 7 0 4 1 6 3] → inclusive add
    [3 4 11 11 15 16 22 25], exclusive add [0 3 4 11 11 15 16 22]."""
    x = np.array([3, 1, 7, 0, 4, 1, 6, 3], np.int32)
    (_, out), _ = run(module, "coll_int_8", [x, np.zeros(8 * NOUT, np.int32)], (8,), (8,))
    out = out.reshape(8, NOUT)
    np.testing.assert_array_equal(out[:, OPS.index("scan_inclusive_add")], [3, 4, 11, 11, 15, 16, 22, 25])
    np.testing.assert_array_equal(out[:, OPS.index("scan_exclusive_add")], [0, 3, 4, 11, 11, 15, 16, 22])
    np.testing.assert_array_equal(out[:, OPS.index("reduce_add")], 25)


def test_char_arithmetic_wraps(module):
    """cl_intel_subgroups_char: char/uchar reductions wrap at 8 bits."""
    x = np.full(16, 200, np.uint8)
    (_, out), _ = run(module, "coll_uchar_16", [x, np.zeros(16 * NOUT, np.uint8)], (16,), (16,))
    out = out.reshape(16, NOUT)
    assert (out[:, 0] == (200 * 16) % 256).all()
    np.testing.assert_array_equal(out[:, OPS.index("scan_inclusive_add")],
                                  (200 * np.arange(1, 17)) % 256)
    y = np.full(8, 100, np.int8)
    (_, sout), _ = run(module, "coll_char_8", [y, np.zeros(8 * NOUT, np.int8)], (8,), (8,))
    assert sout.reshape(8, NOUT)[0, 0] == np.int8(np.uint8(800 % 256).view(np.int8))
