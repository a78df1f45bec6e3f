"""printf through whole kernels at -O2 and -O0: scalars, strings, vector formats, calls
from helper functions, divergent printing, and work-item order across work-groups and
batches (OpenCL C 2.0 s6.13.13; sgvm orders output by global linear id). The native
variants run natively (before, every kernel with printf ran on the NumPy engine)."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.engine.native.backend import fallback_reason
from sgvm.errors import UnsupportedError

from .harness import OPTS, build, on_cuda, run


def _ran_natively(backend: str, module, kernel: str) -> None:
    if backend == "native":
        assert fallback_reason(module, kernel) is None, fallback_reason(module, kernel)

SRC = r"""
void report(int i, float x) { printf("helper %d: %.3f\n", i, x); }

kernel void k(global const float *f, global const int *v)
{
    int i = get_global_id(0);
    int4 iv = (int4)(i, -i, 2 * i, v[i]);
    float2 fv = (float2)(f[i], -f[i]);
    printf("wi %3d grp %d lid %d: %s %c %5.2f %x|%v4hld|%v2hlf|%#v4hhx\n", i,
           (int)get_group_id(0), (int)get_local_id(0), "str", 'A' + i % 26, f[i], v[i],
           iv, fv, convert_uchar4(iv));
    if (i % 3 == 1)
        report(i, f[i] * 2.0f);
    if (v[i] < 0)
        return;
    printf("tail %ld %u\n", (long)i * 1000000000L, (uint)v[i]);
}
"""


def _c_float(x: float, prec: int) -> str:
    return f"{x:.{prec}f}"


def _expected(f: np.ndarray, v: np.ndarray, local: int) -> str:
    out = []
    for i in range(len(f)):
        iv = [i, -i, 2 * i, int(v[i])]
        u4 = [x % 256 for x in iv]
        u4s = ",".join(f"{x:#x}" if x else "0" for x in u4)
        out.append(f"wi {i:3d} grp {i // local} lid {i % local}: str {chr(65 + i % 26)} "
                   f"{float(f[i]):5.2f} {int(v[i]) % 2**32:x}|{','.join(map(str, iv))}|"
                   f"{float(f[i]):f},{-float(f[i]):f}|{u4s}\n")
        if i % 3 == 1:
            out.append(f"helper {i}: {_c_float(float(np.float32(f[i]) * np.float32(2)), 3)}\n")
        if v[i] >= 0:
            out.append(f"tail {i * 1000000000} {int(v[i])}\n")
    return "".join(out)


@pytest.mark.parametrize("opts", OPTS)
@pytest.mark.parametrize(("n", "local"), [(37, 1), (96, 16), (200, 8)])
def test_printf_in_work_item_order(opts: str, n: int, local: int, monkeypatch, backend) -> None:
    monkeypatch.setenv("SGVM_BATCH_LANES", "64")  # several batches: order must still hold
    rng = np.random.default_rng(n)
    f = rng.uniform(-100, 100, n).astype(np.float32)
    v = rng.integers(-50, 1000, n).astype(np.int32)
    module = build(SRC, opts)
    _, res = run(module, "k", [f, v], (n,), (local,))
    assert res.printf == _expected(f, v, local)
    _ran_natively(backend, module, "k")


MULTI_D = r"""
kernel void k2()
{
    printf("(%d,%d)", (int)get_global_id(0), (int)get_global_id(1));
}
"""


@pytest.mark.parametrize("opts", OPTS)
def test_printf_order_in_2d(opts: str, backend) -> None:
    module = build(MULTI_D, opts)
    _, res = run(module, "k2", [], (4, 3), (2, 3))
    assert res.printf == "".join(f"({x},{y})" for y in range(3) for x in range(4))
    _ran_natively(backend, module, "k2")


LOOPS = r"""
kernel void loops(global const int *n, global int *out)
{
    int i = get_global_id(0);
    for (int k = 0; k < n[i]; k++)
        printf("%d:%d ", i, k);
    int s = work_group_reduce_add(i);
    if (i % 5 == 0)
        printf("[%d %d]\n", i, s);
    out[i] = s;
}
"""


@pytest.mark.parametrize("opts", OPTS)
@pytest.mark.parametrize(("n", "local"), [(48, 16), (40960, 64)])
def test_printf_in_divergent_loops_around_a_collective(opts: str, n: int, local: int,
                                                       backend) -> None:
    """Per-lane trip counts, a work-group collective after the loop, and (40960 items)
    launches that run on several threads: each work-item's lines in its program order,
    work-items in order."""
    trips = (np.arange(n) * 7 % 5).astype(np.int32)
    module = build(LOOPS, opts)
    (_, out), res = run(module, "loops", [trips, np.zeros(n, np.int32)], (n,), (local,))
    sums = np.arange(n).reshape(-1, local).sum(axis=1).repeat(local)
    np.testing.assert_array_equal(out, sums)
    want = "".join("".join(f"{i}:{k} " for k in range(trips[i]))
                   + (f"[{i} {sums[i]}]\n" if i % 5 == 0 else "") for i in range(n))
    assert res.printf == want
    _ran_natively(backend, module, "loops")


VALUE = r"""
kernel void value(global int *out)
{
    int i = get_global_id(0);
    out[i] = i % 2 ? printf("odd %d\n", i) : printf("%y even\n");
}
"""


def test_printf_value_read_by_the_kernel(backend) -> None:
    """OpenCL C 2.0 s6.13.13.3: printf returns 0 on success, -1 otherwise (an invalid
    conversion). Compiled code learns whether a format is valid only after the launch, so
    a kernel reading the value runs on the NumPy engine natively, and is refused on CUDA
    (which returned 0 for both before)."""
    module = build(VALUE, "-cl-std=CL2.0")
    if on_cuda():
        with pytest.raises(UnsupportedError, match="printf's value"):
            run(module, "value", [np.full(8, 7, np.int32)], (8,), (4,))
        return
    (out,), res = run(module, "value", [np.full(8, 7, np.int32)], (8,), (4,))
    np.testing.assert_array_equal(out, [-1, 0] * 4)
    assert res.printf == "".join(f"odd {i}\n" for i in range(1, 8, 2))
    if backend == "native":
        assert "printf's value" in fallback_reason(module, "value")
