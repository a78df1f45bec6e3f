"""cl_khr_subgroup_non_uniform_vote, the non-uniform broadcasts of cl_khr_subgroup_ballot,
cl_khr_subgroup_non_uniform_arithmetic and cl_khr_subgroup_extended_types: every type,
sub-group sizes 8/16/32, full, partial and divergent sub-groups, against NumPy folds
over the active lanes in sub-group local id order."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.runtime.device import CUDA_DEVICE

from .helpers import DEVICE, SIZES, assert_native, build, run
from .khr_harness import INTEGER_TYPES, TYPES, check, kernel, launch, skip_native, values

ARITH = ("add", "mul", "min", "max")
BITWISE = ("and", "or", "xor")
LOGICAL = ("logical_and", "logical_or", "logical_xor")
KINDS = ("reduce", "scan_inclusive", "scan_exclusive")
WIDTHS = (2, 3, 4, 8, 16)
BROADCAST_LANE = 2


def _vector(t: str, n: int) -> str:
    """``(tn)(v) + (tn)(0, 1, ..., n-1)``: component ``c`` holds ``v + c``."""
    return f"(({t}{n})(v) + ({t}{n})({', '.join(str(c) for c in range(n))}))"


def _ops(t: str) -> list[str]:
    ops = list(ARITH) + (list(BITWISE) if t in INTEGER_TYPES else [])
    return [f"{k}_{op}" for op in ops for k in KINDS]


def _vote_cases(t: str) -> list[str]:
    return ["sub_group_elect()", f"sub_group_non_uniform_all(v > ({t})0)",
            f"sub_group_non_uniform_any(v == ({t})3)", "sub_group_non_uniform_all_equal(v)",
            f"sub_group_non_uniform_all_equal(({t})(l / 64))"]


def _broadcast_cases(t: str) -> list[str]:
    return ([f"sub_group_non_uniform_broadcast(v, {BROADCAST_LANE})", "sub_group_broadcast_first(v)"]
            + [f"sub_group_non_uniform_broadcast({_vector(t, n)}, {BROADCAST_LANE}).s{n - 1:x}"
               for n in WIDTHS])


def _arith_cases(t: str) -> list[str]:
    return [f"sub_group_non_uniform_{op}(v)" for op in _ops(t)]


def _logical_cases() -> list[str]:
    return [f"sub_group_non_uniform_{k}_{op}(v & 1)" for op in LOGICAL for k in KINDS]


EXTENDED = ["reduce_add", "reduce_min", "reduce_max"] + [
    f"scan_{k}_{op}" for k in ("inclusive", "exclusive") for op in ("add", "min", "max")]


def _extended_cases(t: str) -> list[str]:
    """8- and 16-bit scalars get every function; every type the vector broadcasts."""
    scalar = ([f"sub_group_{op}(v)" for op in EXTENDED] + [f"sub_group_broadcast(v, {BROADCAST_LANE})"]
              if t in SMALL else [])
    return scalar + [f"sub_group_broadcast({_vector(t, n)}, {BROADCAST_LANE}).s{n - 1:x}" for n in WIDTHS]


SMALL = INTEGER_TYPES[:4]  # char, uchar, short, ushort


SOURCE = "".join(
    kernel(f"vote_{t}", t, [], _vote_cases(t))
    + kernel(f"bcast_{t}", t, _broadcast_cases(t), [])
    + kernel(f"arith_{t}", t, _arith_cases(t), _logical_cases() if t == "int" else [])
    + kernel(f"ext_{t}", t, _extended_cases(t), [])
    for t in TYPES)


# --- references: folds over the active lanes in lane order, written here -----------

def _identity(op: str, dt: np.dtype):
    if op in ("add", "or", "xor", "logical_or", "logical_xor"):
        return dt.type(0)
    if op in ("mul", "logical_and"):
        return dt.type(1)
    if op == "and":
        return dt.type(-1) if dt.kind == "i" else dt.type(np.iinfo(dt).max)
    if dt.kind == "f":
        return dt.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(dt)
    return dt.type(info.max if op == "min" else info.min)


def _step(op: str, a, b, dt: np.dtype):
    with np.errstate(over="ignore"):
        if op == "add":
            return dt.type(a + b)
        if op == "mul":
            return dt.type(a * b)
        if op == "min":
            return min(a, b)
        if op == "max":
            return max(a, b)
        if op == "and":
            return dt.type(a & b)
        if op == "or":
            return dt.type(a | b)
        if op == "xor":
            return dt.type(a ^ b)
    a, b = bool(a), bool(b)
    return dt.type({"logical_and": a and b, "logical_or": a or b, "logical_xor": a != b}[op])


def _fold(kind: str, op: str, xs: np.ndarray, active: np.ndarray) -> np.ndarray:
    """reduce / inclusive / exclusive scan of ``xs`` over the active lanes, per lane."""
    dt = xs.dtype
    acc, out = None, np.zeros(len(xs), dtype=dt)
    for k, x in enumerate(xs):
        before = _identity(op, dt) if acc is None else acc
        if active[k]:
            acc = x if acc is None else _step(op, acc, x, dt)
        out[k] = before if kind == "scan_exclusive" else (acc if active[k] else before)
    if kind == "reduce":
        out[:] = _identity(op, dt) if acc is None else acc
    return out


def _arith_ref(name: str):
    parts = name.split("_")
    cut = 1 if parts[0] == "reduce" else 2
    kind, op = "_".join(parts[:cut]), "_".join(parts[cut:])

    def ref(xs, sg):
        if op.startswith("logical"):
            pred = (xs & 1).astype(np.int32)
            return _fold(kind, op, pred, sg.active).astype(np.int32) != 0, True
        return _fold(kind, op, xs, sg.active), True
    return ref


def _first(sg) -> int:
    return int(np.argmax(sg.active))


def _vote_refs(t: str):
    dt = np.dtype(TYPES[t])

    def elect(xs, sg):
        return np.arange(sg.size) == _first(sg), True

    def all_(xs, sg):
        return np.full(sg.size, bool(np.all(xs[sg.active] > dt.type(0)))), True

    def any_(xs, sg):
        return np.full(sg.size, bool(np.any(xs[sg.active] == dt.type(3)))), True

    def all_equal(xs, sg):
        a = xs[sg.active]
        return np.full(sg.size, bool(np.all(a == a[0]))), True

    def all_equal_const(xs, sg):
        return np.ones(sg.size, bool), True
    return [elect, all_, any_, all_equal, all_equal_const]


def _broadcast_refs(t: str):
    dt = np.dtype(TYPES[t])

    def lane(xs, sg):  # defined only when lane 2 is active
        ok = BROADCAST_LANE < sg.size and sg.active[BROADCAST_LANE]
        return np.full(sg.size, xs[BROADCAST_LANE] if ok else 0, dtype=dt), ok

    def first(xs, sg):
        return np.full(sg.size, xs[_first(sg)], dtype=dt), True

    def vector(n):
        def ref(xs, sg):
            want, ok = lane(xs, sg)
            with np.errstate(over="ignore"):
                return (want + dt.type(n - 1)).astype(dt), ok
        return ref
    return [lane, first] + [vector(n) for n in WIDTHS]


def _as_int(ref):
    """An int-valued case: the boolean reference as the kernel's 0 / non-zero int."""
    def wrapped(xs, sg):
        want, ok = ref(xs, sg)
        return np.asarray(want).astype(np.int32), ok
    return wrapped


def _rtol(name: str, t: str) -> float:
    """Float sums and products in the documented lane order on the CPU (exact); CUDA adds
    and multiplies a whole sub-group as a tree (the order is unspecified: "The order of
    floating-point operations is not guaranteed"), within 32 roundings."""
    dt = np.dtype(TYPES[t])
    if DEVICE is not CUDA_DEVICE or dt.kind != "f" or not name.endswith(("add", "mul")):
        return 0.0
    return 32 * float(np.finfo(dt).eps)


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("t", list(TYPES))
def test_vote(t: str, S: int, backend: str | None) -> None:
    skip_native(backend, t, S)
    refs = _vote_refs(t)
    for mode in range(3):
        res = launch(SOURCE, f"vote_{t}", S, values(t, 1), 0, len(refs), mode)
        for k, ref in enumerate(refs):
            check(res, (res.out_i[:, k] != 0).astype(np.int32), _as_int(ref), f"vote {t} case {k}")


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("t", list(TYPES))
def test_non_uniform_broadcast(t: str, S: int, backend: str | None) -> None:
    skip_native(backend, t, S)
    refs = _broadcast_refs(t)
    compared = 0
    for mode in range(3):
        res = launch(SOURCE, f"bcast_{t}", S, values(t, 2), len(refs), 0, mode)
        for k, ref in enumerate(refs):
            compared += check(res, res.out_t[:, k], ref, f"broadcast {t} case {k}")
    assert compared > 0


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("t", list(TYPES))
def test_non_uniform_arithmetic(t: str, S: int, backend: str | None) -> None:
    skip_native(backend, t, S)
    names = _ops(t)
    logical = [f"{k}_{op}" for op in LOGICAL for k in KINDS] if t == "int" else []
    for mode in range(3):
        res = launch(SOURCE, f"arith_{t}", S, values(t, 3), len(names), len(logical), mode)
        for k, name in enumerate(names):
            check(res, res.out_t[:, k], _arith_ref(name), f"{name} {t}", _rtol(name, t))
        for k, name in enumerate(logical):
            check(res, (res.out_i[:, k] != 0).astype(np.int32), _as_int(_arith_ref(name)),
                  f"{name} {t}")


@pytest.mark.parametrize("S", SIZES)
@pytest.mark.parametrize("t", list(TYPES))
def test_extended_types(t: str, S: int, backend: str | None) -> None:
    """sub_group_reduce/scan/broadcast on char/uchar/short/ushort and vector broadcasts of
    every type: exact 8/16-bit identities (a char exclusive max starts at -128, not at the
    int identity truncated to 0). These must be reached by the whole sub-group: full and
    partial sub-groups only."""
    skip_native(backend, t, S)
    bcast = [r for r in _broadcast_refs(t) if r.__name__ != "first"]
    refs = ([_arith_ref(n) for n in EXTENDED] + bcast) if t in SMALL else bcast[1:]
    res = launch(SOURCE, f"ext_{t}", S, values(t, 4), len(refs), 0, 0)
    for k, ref in enumerate(refs):
        check(res, res.out_t[:, k], ref, f"extended {t} case {k}")
    if t == "char":  # lane 0 of every sub-group: the identity itself
        first_lanes = [sg.ids[0] for sg in res.groups]
        assert (res.out_t[first_lanes, EXTENDED.index("scan_exclusive_max")] == -128).all()
        assert (res.out_t[first_lanes, EXTENDED.index("scan_exclusive_min")] == 127).all()


def test_char_exclusive_scan_starts_at_the_char_identity() -> None:
    """Regression: sub_group_scan_exclusive_max((char)x) compiled through clang's promotion to
    the int overload, and lane 0 got the int identity truncated to 8 bits (0, and -1 for
    min). With cl_khr_subgroup_extended_types the char overloads are exact."""
    m = build("__attribute__((intel_reqd_sub_group_size(16)))\n"
              "kernel void k(global const char* x, global char* y, global char* z) {\n"
              "  size_t i = get_global_id(0);\n"
              "  y[i] = sub_group_scan_exclusive_max(x[i]); z[i] = sub_group_scan_exclusive_min(x[i]);\n}\n")
    x = np.arange(16, dtype=np.int8)
    (_, y, z), _ = run(m, "k", [x, np.zeros(16, np.int8), np.zeros(16, np.int8)], (16,), (16,))
    assert_native(m, "k")
    assert (y[0], z[0]) == (-128, 127)
    np.testing.assert_array_equal(y[1:], np.maximum.accumulate(x)[:-1])
