"""Launches that reuse what an earlier launch of the same kernel prepared (the NDRange per
sizes, the CPU engine's batches, the CUDA plan, device mirrors and by-value leaves) give
the results of a first launch: new arguments, other sizes, sub-buffers between launches,
SGVM_SUB_GROUP_SIZE changed, launches from several threads. On the CPU device everywhere,
on the GPU where there is one (``gpu``)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import sgvm.cl as cl
from sgvm import KernelMemoryError
from sgvm.engine.cuda.runtime import available

SOURCE = """
kernel void axpy(global const float *x, global float *y, float a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
kernel void mark(global int *out, int shift) {
    out[get_global_id(0) + shift] = 1;
}
kernel void sizes(global int *out) {
    size_t i = get_global_id(0);
    out[i] = get_max_sub_group_size() * 10000 + get_local_size(0);
}
"""
BACKENDS = ["cpu", pytest.param("cuda", marks=[
    pytest.mark.gpu, pytest.mark.skipif(not available(), reason="needs CuPy and an NVIDIA GPU")])]
mf = cl.mem_flags


def _context(backend: str) -> tuple[cl.Context, cl.CommandQueue, cl.Program]:
    dev = next(d for d in cl.get_platforms()[0].get_devices() if d.backend == backend)
    ctx = cl.Context([dev])
    return ctx, cl.CommandQueue(ctx), cl.Program(ctx, SOURCE).build("-cl-std=CL2.0")


def _read(queue: cl.CommandQueue, buf: cl.Buffer, n: int, dtype=np.float32) -> np.ndarray:
    out = np.empty(n, dtype)
    cl.enqueue_copy(queue, out, buf)
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_relaunch_with_new_arguments_and_sizes(backend: str) -> None:
    ctx, queue, prg = _context(backend)
    knl = cl.Kernel(prg, "axpy")
    rng = np.random.default_rng(1)
    x1, x2 = rng.random(256, dtype=np.float32), rng.random(256, dtype=np.float32)
    bx1 = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x1)
    bx2 = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x2)
    by = cl.Buffer(ctx, mf.READ_WRITE, 256 * 4)
    want = np.zeros(256, np.float32)
    for step, (bx, x, a, n, local) in enumerate([(bx1, x1, 2, 256, 64), (bx1, x1, 2, 256, 64),
                                                 (bx2, x2, 3, 256, 64), (bx2, x2, 3, 128, 32),
                                                 (bx1, x1, -1, 256, None), (bx1, x1, 0.5, 256, 64)]):
        knl(queue, (n,), None if local is None else (local,), bx, by, np.float32(a))
        want[:n] = np.float32(a) * x[:n] + want[:n]
        np.testing.assert_array_equal(_read(queue, by, 256), want, err_msg=f"launch {step}")
        if step == 2:  # the host changes the output between launches
            want[:] = 7
            cl.enqueue_copy(queue, by, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fault_in_a_relaunch_is_reported_and_the_next_launch_is_clean(backend: str) -> None:
    """A launch reusing its packed arguments still checks its memory accesses: shift 8 writes
    past the 64-int buffer at work-item 56 (reported at once), and the clean launch after the
    fault reports nothing (its fault record was cleared)."""
    ctx, queue, prg = _context(backend)
    knl = cl.Kernel(prg, "mark")
    out = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(64, np.int32))
    for _ in range(3):
        knl(queue, (64,), (64,), out, np.int32(0))
    with pytest.raises(KernelMemoryError, match=r"out-of-bounds store of 4 bytes at byte offset 256 "
                                                 r".*global id \(56,\)"):
        knl(queue, (64,), (64,), out, np.int32(8))
    for _ in range(2):
        knl(queue, (64,), (64,), out, np.int32(0))
    np.testing.assert_array_equal(_read(queue, out, 64, np.int32), np.ones(64, np.int32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_sub_buffers_between_launches(backend: str) -> None:
    ctx, queue, prg = _context(backend)
    knl = cl.Kernel(prg, "axpy")
    x = np.arange(512, dtype=np.float32)
    bx = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    by = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(512, np.float32))
    half = by.get_sub_region(1024, 1024)  # elements 256..511
    want = np.zeros(512, np.float32)
    for a, target, lo in [(1, by, 0), (2, half, 256), (3, by, 0), (4, half, 256), (5, half, 256)]:
        n = 512 - lo
        knl(queue, (n,), (64,), bx, target, np.float32(a))
        want[lo:] = np.float32(a) * x[:n] + want[lo:]
        np.testing.assert_array_equal(_read(queue, by, 512), want)
        np.testing.assert_array_equal(_read(queue, half, 256), want[256:])


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_local_size_follows_the_sub_group_size_setting(backend: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The NDRange remembered for a launch's sizes depends on SGVM_SUB_GROUP_SIZE (the
    kernel's sub-group size, which the default local size also depends on): changing it
    between launches changes what the kernel sees."""
    ctx, queue, prg = _context(backend)
    knl = cl.Kernel(prg, "sizes")
    out = cl.Buffer(ctx, mf.READ_WRITE, 24 * 4)
    seen = []
    for size in ("8", "32", "8"):
        monkeypatch.setenv("SGVM_SUB_GROUP_SIZE", size)
        knl(queue, (24,), None, out)
        seen.append(int(_read(queue, out, 24, np.int32)[0]) // 10000)
    assert seen == [8, 32, 8]


@pytest.mark.parametrize("backend", ["cpu", pytest.param("cuda", marks=[
    pytest.mark.gpu, pytest.mark.skipif(not available(), reason="needs CuPy and an NVIDIA GPU")])])
def test_launches_from_several_threads(backend: str) -> None:
    ctx, queue, prg = _context(backend)
    x = np.arange(1024, dtype=np.float32)
    bx = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    errors: list[str] = []

    def work(a: int) -> None:
        q = cl.CommandQueue(ctx)
        by = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
        knl = cl.Kernel(prg, "axpy")
        for k in range(1, 21):
            knl(q, (1024,), (64,), bx, by, np.float32(a))
            if not np.array_equal(_read(q, by, 1024), np.float32(a) * x * k):
                errors.append(f"thread {a}, launch {k}")
                return

    threads = [threading.Thread(target=work, args=(a,)) for a in (1, 2, 3, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
