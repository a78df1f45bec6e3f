"""A corpus of varied OpenCL C kernels, compiled once per test session.

The kernels exercise what the reader and disassembler must handle: Intel
sub-group instructions, images and samplers, structs, switches, 64-bit, half
and double constants, printf, local memory, atomics, -O0 / -O2 and -g.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import sgvm

KERNELS: dict[str, str] = {
    "subgroups": r"""
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void k(__global float *a, __global const float *b, __global uint *c) {
  size_t i = get_global_id(0);
  float x = intel_sub_group_shuffle(b[i], get_sub_group_local_id() ^ 1);
  x += intel_sub_group_shuffle_down(b[i], x, 3u) + intel_sub_group_shuffle_up(x, b[i], 2u);
  x += intel_sub_group_shuffle_xor(x, 5u);
  uint u = intel_sub_group_block_read((const __global uint *)c);
  intel_sub_group_block_write(c + 64, u + (uint)get_sub_group_id());
  a[i] = x + sub_group_reduce_add(b[i]) + sub_group_scan_inclusive_max(b[i]);
}
""",
    "block_io_vec": r"""
__kernel void k(__global uint *p, __global ushort *q, __global uchar *r, __global ulong *s) {
  uint4 v = intel_sub_group_block_read4(p);
  intel_sub_group_block_write4(p + 128, v * 2u);
  ushort8 w = intel_sub_group_block_read_us8(q);
  intel_sub_group_block_write_us8(q + 256, w);
  uchar16 z = intel_sub_group_block_read_uc16(r);
  intel_sub_group_block_write_uc16(r + 512, z);
  ulong2 y = intel_sub_group_block_read_ul2(s);
  intel_sub_group_block_write_ul2(s + 64, y);
}
""",
    "images": r"""
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void k(__read_only image2d_t src, __write_only image2d_t dst, sampler_t s2,
                __read_only image3d_t vol, __global float4 *out) {
  int2 c = (int2)(get_global_id(0), get_global_id(1));
  float4 v = read_imagef(src, smp, c);
  v += read_imagef(src, s2, (float2)(0.5f, 0.25f));
  v += read_imagef(vol, smp, (int4)(c, 1, 0));
  write_imagef(dst, c, v);
  uint u = intel_sub_group_block_read(src, c * (int2)(4, 1));
  intel_sub_group_block_write(dst, c, u);
  out[c.x] = v + (float4)(get_image_width(src), get_image_height(src), get_image_depth(vol), 0);
}
""",
    "structs": r"""
typedef struct { float x; int y[3]; double d; short s; } item_t;
typedef struct { item_t items[2]; long n; } outer_t;
__kernel void k(__global outer_t *o, item_t byval, __global int *r) {
  size_t i = get_global_id(0);
  o[i].items[1] = byval;
  o[i].n = (long)byval.y[2] * 3 + o[i].items[0].s;
  r[i] = o[i].items[0].y[i % 3];
}
""",
    "switch": r"""
__kernel void k(__global int *a, __global long *b) {
  size_t i = get_global_id(0);
  switch (a[i]) {
    case -7: a[i] = 1; break;
    case 0: a[i] = 2; break;
    case 3: a[i] = b[i] > 0 ? 9 : 8; break;
    case 100000: a[i] = 4; break;
    default: a[i] = -1;
  }
  switch (b[i]) {
    case 0x100000000L: b[i] = 1; break;
    case -2L: b[i] = 2; break;
    case 17L: b[i] = 3; break;
    default: break;
  }
}
""",
    "constants": r"""
__constant double table[4] = {1.5, -2.25, 1e300, -0.0};
__constant ulong big[3] = {0xFFFFFFFFFFFFFFFFUL, 0x123456789ABCDEF0UL, 1UL << 40};
__kernel void k(__global double *d, __global long *l, __global half *h, __global float *f,
                __global short *s, __global char *c) {
  size_t i = get_global_id(0);
  d[i] = table[i & 3] * 3.141592653589793 + 1e-310;
  l[i] = (long)big[i % 3] - 9223372036854775807L + (long)i * -5L;
  h[i] = h[i] * (half)0.5f + (half)-2.0f;
  f[i] = f[i] * -0.1f + 3.4e38f + INFINITY * (float)(i == 7);
  f[i + 1] = NAN;
  f[i + 2] = 1.0e-40f;
  s[i] = (short)-3 * s[i] + (short)32767;
  c[i] = (char)-128 + c[i];
}
""",
    "printf": r"""
__kernel void k(__global int *a) {
  int i = get_global_id(0);
  printf("i=%d a=%d %f \"q\" \\ %s\n", i, a[i], (float)a[i] * 0.5f, "str");
}
""",
    "local_atomics": r"""
__kernel void k(__global int *a, __local float *tmp, __global uint *cnt) {
  __local int shared[64];
  size_t l = get_local_id(0);
  shared[l] = a[get_global_id(0)];
  tmp[l] = (float)shared[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_add(cnt, 1u);
  atomic_max(cnt + 1, (uint)shared[63 - l]);
  a[get_global_id(0)] = shared[63 - l] + (int)tmp[l] + work_group_reduce_add((int)l);
}
""",
    "vectors_math": r"""
__kernel void k(__global float4 *v, __global double2 *d, __global int3 *i3, __global half8 *h) {
  size_t i = get_global_id(0);
  float4 x = v[i];
  v[i] = fma(x, (float4)(1.0f, 2.0f, 3.0f, 4.0f), sqrt(fabs(x))) + native_exp(x) + clamp(x, -1.0f, 1.0f);
  d[i] = pow(d[i], (double2)(2.0, 0.5)) + cross((double4)(d[i], 0, 1), (double4)(1, 2, 3, 4)).xy;
  i3[i] = abs_diff(i3[i], (int3)(7, -8, 9)) > 3 ? (int3)(1) : (int3)(0) + rotate(i3[i], 3);
  h[i] = h[i] * (half)1.5f;
}
""",
    "loops_calls": r"""
int helper(__global const int *p, int n) {
  int s = 0;
  for (int j = 0; j < n; ++j) s += p[j] * (j & 1 ? -1 : 1);
  return s;
}
__kernel void k(__global int *out, __global const int *in, int n) {
  size_t i = get_global_id(0);
  int acc = helper(in, n);
  while (acc > 100) acc /= 3;
  out[i] = acc + sub_group_broadcast(acc, 0u) + (int)get_local_size(0) + (int)get_num_groups(1);
}
""",
    "sub_group_misc": r"""
__kernel void k(__global int *a, __global long *b, __global char *c, __global short *s) {
  size_t i = get_global_id(0);
  a[i] = sub_group_any(a[i] > 0) + sub_group_all(a[i] < 5) + sub_group_scan_exclusive_min(a[i]);
  b[i] = sub_group_reduce_max(b[i]) + intel_sub_group_shuffle((long)b[i], 1u);
  c[i] = intel_sub_group_shuffle_xor(c[i], 1u) + (char)get_max_sub_group_size();
  s[i] = intel_sub_group_shuffle_down(s[i], s[i + 16], 2u) + (short)get_num_sub_groups();
  sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
}
""",
    "two_kernels": r"""
__kernel __attribute__((reqd_work_group_size(16, 2, 1))) __attribute__((vec_type_hint(float4)))
void first(__global float *a) { a[get_global_id(0)] *= 2.0f; }
__kernel __attribute__((work_group_size_hint(8, 8, 1)))
void second(__global float *a, float s) { a[get_global_id(1)] += s; }
""",
}

# Every kernel is compiled with each of these option strings.
OPTIONS: tuple[str, ...] = ("-cl-std=CL2.0", "-cl-std=CL2.0 -cl-opt-disable", "-cl-std=CL2.0 -g")

# clang 22 crashes emitting NonSemantic debug information for these kernels.
NO_DEBUG_INFO = frozenset(("images",))

PRELUDE = Path(__file__).with_name("prelude.h")


def _clang_direct(source: str, options: str, debug_info: bool = True) -> bytes:
    """Compile with clang's SPIR-V backend directly, using the small test prelude."""
    opts = options.replace("-cl-opt-disable", "-O0").split()
    if "-O0" not in opts:
        opts.append("-O2")
    exts = "+SPV_INTEL_subgroups"
    if "-g" in opts and debug_info:  # NonSemantic.Shader.DebugInfo.100 instead of no debug info at all
        exts += ",+SPV_KHR_non_semantic_info"
        opts += ["-mllvm", "-spv-emit-nonsemantic-debug-info"]
    with tempfile.TemporaryDirectory(prefix="sgvm-corpus-") as tmp:
        src, out = Path(tmp) / "k.cl", Path(tmp) / "k.spv"
        src.write_text(f'#include "{PRELUDE}"\n{source}')
        subprocess.run(
            [sys.executable, "-m", "ziglang", "clang", "--target=spirv64", *opts, "-c", str(src),
             "-o", str(out), "-cl-no-stdinc", "-Xclang", "-fdeclare-opencl-builtins",
             "-D__opencl_subgroup_builtins=1", "-mllvm", f"-spirv-ext={exts}",
             "-ffp-contract=off"],
            check=True, capture_output=True,
        )
        return out.read_bytes()


def compile_kernel(source: str, options: str, debug_info: bool = True) -> bytes:
    """``sgvm.compile``; clang directly with the test prelude if that build fails.

    ``-g`` always goes to clang directly: sgvm's driver does not ask the SPIR-V
    backend for debug information.
    """
    if "-g" in options.split():
        return _clang_direct(source, options, debug_info)
    try:
        return sgvm.compile(source, options)
    except sgvm.BuildError:
        return _clang_direct(source, options)


def compile_corpus() -> dict[str, bytes]:
    """Every kernel with every option string, keyed ``"<kernel> <options>"``."""
    return {f"{name} {opts}": compile_kernel(src, opts, name not in NO_DEBUG_INFO)
            for name, src in KERNELS.items() for opts in OPTIONS}
