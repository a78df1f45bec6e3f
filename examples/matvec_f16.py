"""Matrix-vector product the way ggml's OpenCL backend writes it (kernel_mul_mat_f16_f32_l4):
a half matrix times a float vector, one sub-group per row, each work-item summing a strided
slice of half4 x float4 products, the slices combined by a sub-group reduction. Here one
variant combines them with ``sub_group_reduce_add`` (ggml's), one with a butterfly of
``sub_group_shuffle_xor`` (cl_khr_subgroup_shuffle), and one accumulates and reduces in half
precision (``sub_group_shuffle_xor`` and ``sub_group_reduce_add`` on half)."""

from __future__ import annotations

import numpy as np

import sgvm

SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// y[row] = sum_k A[row, k] * x[k]; A is rows x n half, x is n float, n a multiple of 4.
#define ROW_DOT(ACC_T, CONV)                                                         \
    const int row = get_group_id(0);                                                  \
    global const half4 *a4 = (global const half4 *)(a + row * n);                     \
    global const float4 *x4 = (global const float4 *)x;                               \
    ACC_T sum = 0;                                                                    \
    for (int i = get_sub_group_local_id(); i < n / 4; i += get_max_sub_group_size()) { \
        float4 p = convert_float4(a4[i]) * x4[i];                                     \
        sum += CONV(p.s0 + p.s1 + p.s2 + p.s3);                                       \
    }

__attribute__((intel_reqd_sub_group_size(16)))
kernel void mul_mv_f16_f32_reduce(global const half *a, global const float *x,
                                  global float *y, int n) {
    ROW_DOT(float, )
    float all = sub_group_reduce_add(sum);
    if (get_sub_group_local_id() == 0) y[row] = all;
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void mul_mv_f16_f32_xor(global const half *a, global const float *x,
                               global float *y, int n) {
    ROW_DOT(float, )
    for (uint mask = get_max_sub_group_size() / 2; mask > 0; mask /= 2)
        sum += sub_group_shuffle_xor(sum, mask);     // every lane ends with the total
    if (get_sub_group_local_id() == 3) y[row] = sum;
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void mul_mv_f16_f16acc(global const half *a, global const float *x,
                              global half *y, int n) {
    ROW_DOT(half, convert_half)
    half pair = sum + sub_group_shuffle_xor(sum, 1u);   // neighbours first, in half
    half all = sub_group_reduce_add(get_sub_group_local_id() % 2 == 0 ? pair : (half)0);
    if (get_sub_group_local_id() == 0) y[row] = all;
}
"""


def main(rows: int = 48, n: int = 512) -> list[tuple[str, bool]]:
    rng = np.random.default_rng(14)
    a = (rng.standard_normal((rows, n)) * 0.5).astype(np.float16)
    x = rng.standard_normal(n).astype(np.float32)
    exact = a.astype(np.float64) @ x.astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs(x.astype(np.float64))  # error bound's size
    results = []
    for kernel in ("mul_mv_f16_f32_reduce", "mul_mv_f16_f32_xor"):
        y = np.zeros(rows, np.float32)
        sgvm.run(SOURCE, kernel, (16 * rows,), (16,), a, x, y, np.int32(n), options="-cl-std=CL2.0")
        ok = bool(np.all(np.abs(y - exact) <= 1e-5 * scale + 1e-6))
        results.append((f"{kernel}: {rows}x{n} half matrix times float vector", ok))
    yh = np.zeros(rows, np.float16)
    sgvm.run(SOURCE, "mul_mv_f16_f16acc", (16 * rows,), (16,), a, x, yh, np.int32(n),
             options="-cl-std=CL2.0")
    # half accumulation: n/64 + 5 roundings of at most 2**-11 of the running magnitude
    ok = bool(np.all(np.abs(yh.astype(np.float64) - exact) <= (n / 64 + 5) * 2**-11 * scale + 1e-3))
    results.append(("mul_mv_f16_f16acc: half partials through sub_group_shuffle_xor/reduce_add", ok))
    return results


if __name__ == "__main__":
    for what, ok in main():
        print(f"[{'match' if ok else 'MISMATCH'}] {what}")
