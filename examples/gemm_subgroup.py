"""GEMM that broadcasts tiles of A across a sub-group with intel_sub_group_shuffle.

Each work-item owns one column of a (ROWS × S) tile of C. A sub-group loads S
consecutive elements of each row of A (one per lane) and broadcasts them with
``intel_sub_group_shuffle`` while every lane streams its own column of B — the
register-blocking pattern of Intel's SGEMM kernels. Runs with sub-group sizes
8 and 16 (``intel_reqd_sub_group_size``).
"""

from __future__ import annotations

import numpy as np

import sgvm.cl as cl

SOURCE = r"""
#define ROWS 4
__attribute__((intel_reqd_sub_group_size(SG)))
kernel void gemm(global const float *A, global const float *B, global float *C,
                 int M, int N, int K)
{
    const int col = get_global_id(0);          /* one column per work-item   */
    const int row0 = get_global_id(1) * ROWS;  /* ROWS rows per work-item    */
    const int lane = get_sub_group_local_id();
    float acc[ROWS] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += SG) {
        float a[ROWS];
        for (int r = 0; r < ROWS; ++r)          /* lane l holds A[row][k0 + l] */
            a[r] = A[(row0 + r) * K + k0 + lane];
        for (int j = 0; j < SG; ++j) {
            const float b = B[(k0 + j) * N + col];
            for (int r = 0; r < ROWS; ++r)
                acc[r] += intel_sub_group_shuffle(a[r], j) * b;
        }
    }
    for (int r = 0; r < ROWS; ++r)
        C[(row0 + r) * N + col] = acc[r];
}
"""


def run(sub_group_size: int, m: int = 64, n: int = 64, k: int = 64) -> tuple[str, bool]:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    a_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    b_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    c_g = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes // k * n)
    prg = cl.Program(ctx, SOURCE).build(options=f"-DSG={sub_group_size}")
    prg.gemm(queue, (n, m // 4), (sub_group_size, 1), a_g, b_g, c_g,
             np.int32(m), np.int32(n), np.int32(k))
    c = np.empty((m, n), np.float32)
    cl.enqueue_copy(queue, c, c_g)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    ok = bool(np.allclose(c, expected, rtol=1e-4, atol=1e-4))
    return f"GEMM {m}x{n}x{k}, sub-group size {sub_group_size}, tiles broadcast by shuffle", ok


def main() -> list[tuple[str, bool]]:
    return [run(8), run(16)]
