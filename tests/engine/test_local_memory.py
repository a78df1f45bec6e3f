"""Local memory is laid out per kernel: only the ``__local`` variables a kernel uses (its own
and those of the kernels it calls) count against the device's CL_DEVICE_LOCAL_MEM_SIZE."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.errors import LogicError
from sgvm.runtime.device import CPU_DEVICE

from .harness import OPTS, Local, build, run

N = 10 * 1024  # floats: 40 KiB per array; the device has 64 KiB

SOURCE = f"""
void fill(__local float *p, int i, float scale) {{ p[i] = scale * i; }}

__kernel void ka(__global float *out) {{
    __local float a[{N}];
    int l = get_local_id(0);
    fill(a, l, 1.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = a[(l + 1) % get_local_size(0)];
}}

__kernel void kb(__global float *out) {{
    __local float b[{N}];
    int l = get_local_id(0);
    fill(b, l, 2.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = b[(l + 1) % get_local_size(0)];
}}

__kernel void both(__global float *out) {{  // calls ka: a and c, 80 KiB
    __local float c[{N}];
    c[get_local_id(0)] = 0.0f;
    ka(out);
    out[get_global_id(0)] += c[0];
}}

__kernel void with_arg(__global float *out, __local float *tmp) {{
    __local float d[{N}];
    int l = get_local_id(0);
    d[l] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[l] = 3.0f * d[(l + 1) % get_local_size(0)];
    out[get_global_id(0)] = tmp[l];
}}
"""


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SOURCE, request.param)


def test_two_kernels_of_40_kib_each_both_launch(module) -> None:
    assert 2 * N * 4 > CPU_DEVICE.local_mem_size >= N * 4
    lid = np.arange(128) % 64
    (out,), _ = run(module, "ka", [np.zeros(128, np.float32)], 128, 64)
    np.testing.assert_array_equal(out, (lid + 1) % 64)
    (out,), _ = run(module, "kb", [np.zeros(128, np.float32)], 128, 64)
    np.testing.assert_array_equal(out, 2 * ((lid + 1) % 64))


def test_a_kernel_counts_the_local_memory_of_kernels_it_calls(module) -> None:
    with pytest.raises(LogicError, match="OUT_OF_RESOURCES") as info:
        run(module, "both", [np.zeros(64, np.float32)], 64, 64)
    assert f"needs {2 * N * 4} bytes" in str(info.value)


def test_local_arguments_add_to_the_kernels_own_variables(module) -> None:
    (out,), _ = run(module, "with_arg", [np.zeros(64, np.float32), Local(64 * 4)], 64, 64)
    np.testing.assert_array_equal(out, 3 * ((np.arange(64) + 1) % 64))
    with pytest.raises(LogicError, match="OUT_OF_RESOURCES"):
        run(module, "with_arg", [np.zeros(64, np.float32), Local(N * 4)], 64, 64)
