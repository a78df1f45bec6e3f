"""OpenCL.std integer entries against Python-int references (OpenCL C 6.15.3), every
width, signed and unsigned, with MIN / MAX / 0 / ±1 among the inputs."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.engine.cpu.extinst import OPENCL_STD

RNG = np.random.default_rng(3)
UNSIGNED = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]


def _inputs(dt: np.dtype, n: int = 160) -> np.ndarray:
    bits = dt.itemsize * 8
    edges = [0, 1, 2, (1 << (bits - 1)) - 1, 1 << (bits - 1), (1 << (bits - 1)) + 1,
             (1 << bits) - 1, (1 << bits) - 2]
    rand = RNG.integers(0, np.iinfo(dt).max, n, dtype=dt, endpoint=True)
    return np.concatenate([np.array(edges, dtype=dt), rand])


def _s(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _sat(v: int, bits: int, signed: bool) -> int:
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return min(max(v, lo), hi)


def _ref(name: str, bits: int, *ops: int) -> int:
    """The spec's value as a Python int (any sign; compared modulo 2**bits)."""
    signed = name.startswith("s_")
    v = [_s(o, bits) for o in ops] if signed else list(ops)
    base = name[2:] if name[:2] in ("s_", "u_") else name
    match base:
        case "abs":
            return abs(v[0])
        case "abs_diff":
            return abs(v[0] - v[1])
        case "add_sat":
            return _sat(v[0] + v[1], bits, signed)
        case "sub_sat":
            return _sat(v[0] - v[1], bits, signed)
        case "hadd":
            return (v[0] + v[1]) >> 1
        case "rhadd":
            return (v[0] + v[1] + 1) >> 1
        case "max":
            return max(v[0], v[1])
        case "min":
            return min(v[0], v[1])
        case "clamp":
            return min(max(v[0], v[1]), v[2])
        case "mul_hi":
            return (v[0] * v[1]) >> bits
        case "mad_hi":
            return ((v[0] * v[1]) >> bits) + v[2]
        case "mad_sat":
            return _sat(v[0] * v[1] + v[2], bits, signed)
        case "clz":
            return bits - ops[0].bit_length()
        case "ctz":
            return bits if ops[0] == 0 else (ops[0] & -ops[0]).bit_length() - 1
        case "popcount":
            return bin(ops[0]).count("1")
        case "rotate":
            k = ops[1] % bits
            return (ops[0] << k) | (ops[0] >> (bits - k))
        case "mul24":
            return v[0] * v[1]
        case "mad24":
            return v[0] * v[1] + v[2]
    raise AssertionError(name)


CASES = [("s_abs", 1), ("u_abs", 1), ("s_abs_diff", 2), ("u_abs_diff", 2), ("s_add_sat", 2),
         ("u_add_sat", 2), ("s_sub_sat", 2), ("u_sub_sat", 2), ("s_hadd", 2), ("u_hadd", 2),
         ("s_rhadd", 2), ("u_rhadd", 2), ("s_max", 2), ("u_max", 2), ("s_min", 2), ("u_min", 2),
         ("s_clamp", 3), ("u_clamp", 3), ("s_mul_hi", 2), ("u_mul_hi", 2), ("s_mad_hi", 3),
         ("u_mad_hi", 3), ("s_mad_sat", 3), ("u_mad_sat", 3), ("clz", 1), ("ctz", 1),
         ("popcount", 1), ("rotate", 2)]


@pytest.mark.parametrize("dt", UNSIGNED, ids=str)
@pytest.mark.parametrize("name,arity", CASES, ids=[c[0] for c in CASES])
def test_integer_against_python_ints(name: str, arity: int, dt: np.dtype) -> None:
    bits = dt.itemsize * 8
    base = _inputs(dt)
    ops = [base] + [RNG.permutation(base) for _ in range(arity - 1)]
    if name.endswith("clamp"):  # lo ≤ hi (else undefined)
        key = (lambda a: a.view(np.dtype(f"i{dt.itemsize}"))) if name[0] == "s" else (lambda a: a)
        lo, hi = np.where(key(ops[1]) <= key(ops[2]), ops[1], ops[2]), np.where(
            key(ops[1]) <= key(ops[2]), ops[2], ops[1])
        ops = [ops[0], lo, hi]
    got = OPENCL_STD[name](*ops, rtype=dt)
    assert got.dtype == dt and got.shape == base.shape
    mask = (1 << bits) - 1
    for i in range(len(base)):
        args = [int(o[i]) for o in ops]
        assert int(got[i]) == _ref(name, bits, *args) & mask, (name, args, int(got[i]))


@pytest.mark.parametrize("name", ["s_mul24", "u_mul24", "s_mad24", "u_mad24"])
def test_24_bit_products_in_range(name: str) -> None:
    signed = name[0] == "s"
    lo, hi = (-(1 << 23), (1 << 23) - 1) if signed else (0, (1 << 24) - 1)
    vals = [RNG.integers(lo, hi, 200, endpoint=True) for _ in range(3)]
    for v in vals:
        v[:2] = (lo, hi)
    ops = [v.astype(np.int64).astype(np.uint32) for v in vals][: 3 if "mad" in name else 2]
    got = OPENCL_STD[name](*ops, rtype=np.dtype(np.uint32))
    for i in range(200):
        want = _ref(name, 32, *[int(o[i]) for o in ops]) & 0xFFFFFFFF
        assert int(got[i]) == want


@pytest.mark.parametrize("narrow,wide", [(np.uint8, np.uint16), (np.uint16, np.uint32),
                                         (np.uint32, np.uint64)])
def test_upsample(narrow, wide) -> None:
    hi, lo = _inputs(np.dtype(narrow)), RNG.permutation(_inputs(np.dtype(narrow)))
    bits = np.dtype(narrow).itemsize * 8
    for name in ("u_upsample", "s_upsample"):
        got = OPENCL_STD[name](hi, lo, rtype=np.dtype(wide))
        assert got.dtype == wide
        want = [(int(h) << bits) | int(l) for h, l in zip(hi, lo, strict=True)]
        assert [int(g) for g in got] == want  # s_upsample: the same two's complement bits


def test_uniform_and_vector_operands() -> None:
    x = np.array([[1, 250], [7, 128]], np.uint8)
    assert OPENCL_STD["u_add_sat"](x, np.uint8(10), rtype=np.uint8).tolist() == [[11, 255], [17, 138]]
    assert OPENCL_STD["s_max"](x, np.array([5, 0], np.uint8), rtype=np.uint8).tolist() == [[5, 0], [7, 0]]  # 250, 128 are negative
    assert OPENCL_STD["s_abs"](np.uint32(0x80000000), rtype=np.uint32) == 0x80000000
