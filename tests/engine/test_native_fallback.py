"""A kernel whose C++ is too large for the native backend to build in reasonable time
runs on the NumPy engine, and says so once on stderr (docs/native.md, "Using it"); a module
too large whose kernels each fit is built kernel by kernel."""

import subprocess

import numpy as np
import pytest

from sgvm.engine.native import backend as native
from sgvm.engine.native.render import Renderer
from sgvm.runtime.device import NATIVE_DEVICE

from .harness import O2, build, run

SRC = r"""
kernel void twice(global int *x) { size_t i = get_global_id(0); x[i] = 2 * x[i] + 1; }
"""


@pytest.mark.build_fails
def test_too_large_a_kernel_runs_on_the_numpy_engine_and_says_so(backend, monkeypatch, capsys):
    if backend != "native":
        pytest.skip("the native backend's own limit")
    monkeypatch.setattr(native, "MAX_SOURCE", 1 << 10)  # this kernel's C++ is larger
    module = build(SRC + "// too large\n", O2)
    x = np.arange(64, dtype=np.int32)
    for _ in range(2):
        (out,), _ = run(module, "twice", [x], 64, 16, device=NATIVE_DEVICE)
        assert np.array_equal(out, 2 * x + 1)
    err = capsys.readouterr().err
    assert err.count("kernel 'twice' runs on the NumPy engine") == 1, err
    assert "MiB the native backend builds" in native.fallback_reason(module, "twice")


PAIR = r"""
kernel void plus(global int *x) { size_t i = get_global_id(0); x[i] = x[i] + 5; }
kernel void times(global int *x) { size_t i = get_global_id(0); x[i] = x[i] * 3; }
"""


def test_a_module_too_large_whose_kernels_fit_is_built_kernel_by_kernel(backend, monkeypatch,
                                                                         capsys):
    """Before, every kernel of such a module ran on the NumPy engine (the differential
    suite's sub-group collectives and shuffles: modules of 5 MiB)."""
    if backend != "native":
        pytest.skip("the native backend's own limit")
    module = build(PAIR, O2)
    whole = min(len(Renderer(module, 16, True, t).render()[0]) for t in (False, True))
    alone = max(len(Renderer(module, 16, True, t).render(k)[0]) for k in ("plus", "times")
                for t in (False, True))
    assert alone < whole
    monkeypatch.setattr(native, "MAX_SOURCE", alone)
    x = np.arange(64, dtype=np.int32)
    for kernel, want in (("plus", x + 5), ("times", 3 * x)):
        (out,), _ = run(module, kernel, [x], 64, 16, device=NATIVE_DEVICE)
        np.testing.assert_array_equal(out, want)
        assert native.fallback_reason(module, kernel) is None
    assert "runs on the NumPy engine" not in capsys.readouterr().err
    assert {k[3:] for k in native._SOURCES[module] if len(k) > 3} == {("plus",), ("times",)}


@pytest.mark.build_fails
def test_a_clang_that_does_not_finish_is_a_note_not_an_exception(backend, monkeypatch, capsys):
    if backend != "native":
        pytest.skip("the native backend's own limit")
    from sgvm.engine.native import compile as native_compile

    real = subprocess.run

    def slow_cc(cmd, *args, **kw):
        if "cc" in cmd:
            raise subprocess.TimeoutExpired(cmd, kw.get("timeout", 0))
        return real(cmd, *args, **kw)

    monkeypatch.setattr(native_compile.subprocess, "run", slow_cc)
    module = build(SRC + "// clang too slow\n", O2)
    x = np.arange(64, dtype=np.int32)
    (out,), _ = run(module, "twice", [x], 64, 16, device=NATIVE_DEVICE)
    assert np.array_equal(out, 2 * x + 1)
    err = capsys.readouterr().err  # before, subprocess.TimeoutExpired reached the caller
    assert "kernel 'twice' runs on the NumPy engine" in err and "did not compile" in err
