// Calls every OpenCL C 2.0 built-in function family (OpenCL C 2.0 s6.13) at least once
// per argument shape, so the test can check that none is left as an undefined import.
// Pipes and device-side enqueue are not sgvm device features and are not listed.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

#define ID get_global_id(0)

// s6.13.1 work-item functions
kernel void work_item(global ulong *o) {
  o[0] = get_work_dim() + get_global_size(0) + get_global_id(1) + get_local_size(2) +
         get_enqueued_local_size(0) + get_local_id(0) + get_num_groups(0) + get_group_id(0) +
         get_global_offset(0) + get_global_linear_id() + get_local_linear_id();
}

// s6.13.2 math functions, for each floating type, scalar and vector
#define MATH1(F) x = F(x);
#define MATH_ALL1(X) X(acos) X(acosh) X(acospi) X(asin) X(asinh) X(asinpi) X(atan) X(atanh) \
  X(atanpi) X(cbrt) X(ceil) X(cos) X(cosh) X(cospi) X(erfc) X(erf) X(exp) X(exp2) X(exp10) \
  X(expm1) X(fabs) X(floor) X(lgamma) X(log) X(log2) X(log10) X(log1p) X(logb) X(rint)       \
  X(round) X(rsqrt) X(sin) X(sinh) X(sinpi) X(sqrt) X(tan) X(tanh) X(tanpi) X(tgamma) X(trunc)
#define MATH_ALL2(X) X(atan2) X(atan2pi) X(copysign) X(fdim) X(fmax) X(fmin) X(fmod) X(hypot) \
  X(maxmag) X(minmag) X(nextafter) X(pow) X(powr) X(remainder)
#define MATH2(F) x = F(x, y);
#define MATH_KERNEL(T, IT)                                                               \
  kernel void math_##T(global T *o, global IT *io) {                                     \
    T x = o[ID], y = o[ID + 1], z = o[ID + 2];                                           \
    private T p1; private IT pi;                                                         \
    MATH_ALL1(MATH1)                                                                     \
    MATH_ALL2(MATH2)                                                                     \
    x = fma(x, y, z) + mad(x, y, z) + fmax(x, y) + fmin(x, y);                           \
    x += fract(x, &p1) + modf(y, &p1) + frexp(z, &pi) + lgamma_r(x, &pi) + remquo(x, y, &pi) + sincos(x, &p1); \
    x += ldexp(x, io[0]) + pown(x, io[1]) + rootn(x, io[2]);                             \
    io[3] = ilogb(x);                                                                    \
    o[ID] = x + p1 + nan((IT)0 == 0 ? (IT##_nan_t)1 : (IT##_nan_t)2);                    \
  }
typedef uint int_nan_t;
typedef uint2 int2_nan_t;
typedef uint4 int4_nan_t;
typedef ulong int_dnan_t;
MATH_KERNEL(float, int)
MATH_KERNEL(float4, int4)
#undef MATH_KERNEL
#define MATH_KERNEL(T, IT, NT)                                                           \
  kernel void math_##T(global T *o, global IT *io) {                                     \
    T x = o[ID], y = o[ID + 1], z = o[ID + 2];                                           \
    private T p1; private IT pi;                                                         \
    MATH_ALL1(MATH1)                                                                     \
    MATH_ALL2(MATH2)                                                                     \
    x = fma(x, y, z) + mad(x, y, z);                                                     \
    x += fract(x, &p1) + modf(y, &p1) + frexp(z, &pi) + lgamma_r(x, &pi) + remquo(x, y, &pi) + sincos(x, &p1); \
    x += ldexp(x, io[0]) + pown(x, io[1]) + rootn(x, io[2]);                             \
    io[3] = ilogb(x);                                                                    \
    o[ID] = x + p1 + nan((NT)1);                                                         \
  }
MATH_KERNEL(double, int, ulong)
MATH_KERNEL(double2, int2, ulong2)
MATH_KERNEL(half, int, ushort)
MATH_KERNEL(half8, int8, ushort8)

#define HALF_NATIVE(X) X(cos) X(exp) X(exp2) X(exp10) X(log) X(log2) X(log10) X(recip) X(rsqrt) X(sin) X(sqrt) X(tan)
#define HN1(F) x = half_##F(x) + native_##F(x);
kernel void math_half_native(global float4 *o) {
  float4 x = o[ID], y = o[ID + 1];
  HALF_NATIVE(HN1)
  o[ID] = x + half_divide(x, y) + half_powr(x, y) + native_divide(x, y) + native_powr(x, y);
  o[0].x = half_cos(x.x) + native_sin(x.y) + half_divide(x.x, y.y) + native_powr(x.x, y.y);
}

// s6.13.3 integer functions, every integer type
#define INT1(F) x = F(x);
#define INT2(F) x = F(x, y);
#define INT3(F) x = F(x, y, z);
#define INT_KERNEL(T, UT)                                                                \
  kernel void int_##T(global T *o, global UT *u) {                                       \
    T x = o[ID], y = o[ID + 1], z = o[ID + 2];                                           \
    INT1(clz) INT1(ctz) INT1(popcount)                                                   \
    INT2(add_sat) INT2(hadd) INT2(rhadd) INT2(max) INT2(min) INT2(mul_hi) INT2(rotate) INT2(sub_sat) \
    INT3(clamp) INT3(mad_hi) INT3(mad_sat)                                               \
    u[ID] = abs(x) + abs_diff(x, y);                                                     \
    o[ID] = x + max(x, (T)3) + min(x, (T)3) + clamp(x, (T)1, (T)2);                      \
  }
INT_KERNEL(char, uchar)
INT_KERNEL(uchar, uchar)
INT_KERNEL(short, ushort)
INT_KERNEL(ushort2, ushort2)
INT_KERNEL(int, uint)
INT_KERNEL(uint4, uint4)
INT_KERNEL(long, ulong)
INT_KERNEL(ulong3, ulong3)
INT_KERNEL(char16, uchar16)
kernel void int_misc(global short *s, global int *i, global long *l, global uint *u, global ulong *ul, global int4 *i4) {
  s[0] = upsample((char)s[1], (uchar)s[2]);
  i[0] = upsample((short)s[1], (ushort)s[2]) + mad24(i[1], i[2], i[3]) + mul24(i[1], i[2]);
  l[0] = upsample(i[1], u[2]);
  u[0] = mad24(u[1], u[2], u[3]) + mul24(u[1], u[2]);
  i4[0] = mad24(i4[1], i4[2], i4[3]) + mul24(i4[1], i4[2]) + upsample((short4)1, (ushort4)2);
  ul[0] = upsample(u[1], u[2]);
}

// s6.13.4 common and s6.13.5 geometric functions
#define COMMON_KERNEL(T, S)                                                              \
  kernel void common_##T(global T *o) {                                                  \
    T x = o[ID], y = o[ID + 1], z = o[ID + 2];                                           \
    x = clamp(x, y, z) + clamp(x, (S)0, (S)1) + degrees(x) + max(x, y) + max(x, (S)1) +  \
        min(x, y) + min(x, (S)1) + mix(x, y, z) + mix(x, y, (S)0.5) + radians(x) +       \
        step(x, y) + step((S)0.5, y) + smoothstep(x, y, z) + smoothstep((S)0, (S)1, z) + sign(x); \
    o[ID] = x;                                                                           \
  }
COMMON_KERNEL(float, float)
COMMON_KERNEL(float3, float)
COMMON_KERNEL(double4, double)
COMMON_KERNEL(half2, half)
#define GEO_KERNEL(T, S)                                                                 \
  kernel void geometric_##T(global T *o, global S *s) {                                  \
    T x = o[ID], y = o[ID + 1];                                                          \
    s[ID] = dot(x, y) + distance(x, y) + length(x) + fast_distance(x, y) + fast_length(x); \
    o[ID] = normalize(x) + fast_normalize(y);                                            \
  }
GEO_KERNEL(float, float)
GEO_KERNEL(float2, float)
GEO_KERNEL(float3, float)
GEO_KERNEL(float4, float)
#undef GEO_KERNEL
#define GEO_KERNEL(T, S)                                                                 \
  kernel void geometric_##T(global T *o, global S *s) {                                  \
    T x = o[ID], y = o[ID + 1];                                                          \
    s[ID] = dot(x, y) + distance(x, y) + length(x);                                      \
    o[ID] = normalize(x);                                                                \
  }
GEO_KERNEL(double3, double)
GEO_KERNEL(half4, half)
kernel void geometric_cross(global float4 *f4, global float3 *f3, global double4 *d4, global double3 *d3, global half3 *h3) {
  f4[0] = cross(f4[1], f4[2]); f3[0] = cross(f3[1], f3[2]);
  d4[0] = cross(d4[1], d4[2]); d3[0] = cross(d3[1], d3[2]); h3[0] = cross(h3[1], h3[2]);
}

// s6.13.6 relational functions
#define REL_KERNEL(T, IT, ST)                                                            \
  kernel void relational_##T(global T *o, global IT *r, global int *a) {                 \
    T x = o[ID], y = o[ID + 1];                                                          \
    r[ID] = isequal(x, y) + isnotequal(x, y) + isgreater(x, y) + isgreaterequal(x, y) +  \
            isless(x, y) + islessequal(x, y) + islessgreater(x, y) + isfinite(x) +       \
            isinf(x) + isnan(x) + isnormal(x) + isordered(x, y) + isunordered(x, y) +    \
            signbit(x);                                                                  \
    o[ID] = bitselect(x, y, x) + select(x, y, (ST)r[ID]);                                \
  }
REL_KERNEL(float, int, int)
REL_KERNEL(float4, int4, int4)
REL_KERNEL(double, int, long)
REL_KERNEL(double2, long2, long2)
REL_KERNEL(half, int, short)
REL_KERNEL(half8, short8, short8)
#define ANYALL(T)                                                                        \
  kernel void anyall_##T(global T *v, global int *a) {                                   \
    a[0] = any(v[0]) + all(v[1]) + any(v[0] < v[1]) + all(v[0] == v[1]);                 \
    v[0] = bitselect(v[0], v[1], v[2]) + select(v[0], v[1], v[2]);                       \
  }
ANYALL(char)
ANYALL(char2)
ANYALL(short4)
ANYALL(int)
ANYALL(int3)
ANYALL(long8)
ANYALL(char16)
kernel void anyall_fcmp(global float4 *f, global double2 *d, global int *a) {
  a[0] = any(f[0] < f[1]) + all(f[0] >= f[1]) + any(isnan(f[0])) + all(isfinite(d[0])) + any(d[0] != d[1]);
  a[1] = any(isless(f[0], f[1])) + all(isequal(d[0], d[1]));
}

// s6.13.7 vector data load and store
kernel void vload_store(global float *f, global half *h, global int *i, local float *lf, constant half *ch) {
  private float pf[16];
  for (int k = 0; k < 16; ++k) pf[k] = f[k];
  float2 a = vload2(0, f); float3 b = vload3(1, f); float4 c = vload4(0, (const global float *)f);
  float8 d = vload8(0, lf); float16 e = vload16(0, pf);
  vstore2(a, 1, f); vstore3(b, 1, f); vstore4(c, 1, lf); vstore8(d, 1, f); vstore16(e, 0, pf);
  int4 q = vload4(0, i); vstore4(q, 1, i);
  float s = vload_half(0, h) + vload_half(1, ch);
  float4 t = vload_half4(0, h) + vloada_half4(0, h);
  float3 t3 = vload_half3(0, h) + vloada_half3(0, h);
  vstore_half(s, 0, h); vstore_half_rte(s, 0, h); vstore_half_rtz(s, 0, h);
  vstore_half_rtp(s, 0, h); vstore_half_rtn(s, 0, h);
  vstore_half4(t, 0, h); vstore_half4_rte(t, 0, h); vstore_half4_rtz(t, 0, h);
  vstore_half4_rtp(t, 0, h); vstore_half4_rtn(t, 0, h);
  vstorea_half4(t, 0, h); vstorea_half4_rte(t, 0, h); vstorea_half4_rtn(t, 0, h);
  vstorea_half3(t3, 0, h); vstore_half3(t3, 0, h);
  vstore_half16(e, 0, h); vstore_half8_rtz(d, 0, h);
  double dd = (double)s; vstore_half(dd, 0, h); vstore_half_rtz(dd, 0, h);
  f[0] = pf[3] + e.s3 + d.s1 + t.x + t3.y;
}

// s6.13.8 synchronization, s6.13.9 address space qualifier functions
kernel void sync_fences(global int *g, local int *l) {
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  work_group_barrier(CLK_IMAGE_MEM_FENCE, memory_scope_device);
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  read_mem_fence(CLK_LOCAL_MEM_FENCE);
  write_mem_fence(CLK_GLOBAL_MEM_FENCE);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_work_group);
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  sub_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);
  g[0] = l[0];
}
kernel void address_spaces(global int *g, local int *l) {
  private int p = 3;
  generic int *gp = ID ? (generic int *)g : (ID > 1 ? (generic int *)l : &p);
  global int *a = to_global(gp);
  local int *b = to_local(gp);
  private int *c = to_private(gp);
  cl_mem_fence_flags f = get_fence(gp);
  cl_mem_fence_flags f2 = get_fence((const generic int *)gp);
  g[0] = (a != 0) + (b != 0) + (c != 0) + f + f2;
}

// s6.13.10 async copies and prefetch
kernel void async_copy(global float4 *g, local float4 *l, global uchar *gc, local uchar *lc) {
  event_t e = async_work_group_copy(l, g, 16, 0);
  e = async_work_group_copy(g, l, 16, e);
  event_t e2 = async_work_group_strided_copy(lc, gc, 8, 2, 0);
  e2 = async_work_group_strided_copy(gc, lc, 8, 2, e2);
  event_t es[2] = {e, e2};
  wait_group_events(2, es);
  prefetch(g, 4);
  prefetch(gc, 16);
}

// s6.13.11 atomics: legacy 1.x names, atom_* extension names, C11-style
#define LEGACY(T, P)                                                                     \
  r += atomic_add(P, (T)1) + atomic_sub(P, (T)1) + atomic_xchg(P, (T)1) + atomic_inc(P) + \
       atomic_dec(P) + atomic_cmpxchg(P, (T)1, (T)2) + atomic_min(P, (T)1) +             \
       atomic_max(P, (T)1) + atomic_and(P, (T)1) + atomic_or(P, (T)1) + atomic_xor(P, (T)1);
#define ATOM(T, P)                                                                       \
  r += atom_add(P, (T)1) + atom_sub(P, (T)1) + atom_xchg(P, (T)1) + atom_inc(P) +         \
       atom_dec(P) + atom_cmpxchg(P, (T)1, (T)2) + atom_min(P, (T)1) + atom_max(P, (T)1) + \
       atom_and(P, (T)1) + atom_or(P, (T)1) + atom_xor(P, (T)1);
kernel void atomics_legacy(volatile global int *gi, volatile global uint *gu, volatile local int *li,
                           volatile local uint *lu, volatile global float *gf, volatile local float *lf,
                           volatile global long *gl, volatile local ulong *lul, global long *out) {
  long r = 0;
  LEGACY(int, gi) LEGACY(uint, gu) LEGACY(int, li) LEGACY(uint, lu)
  ATOM(int, gi) ATOM(uint, gu) ATOM(int, li) ATOM(uint, lu)
  ATOM(long, gl) ATOM(ulong, lul)
  r += atomic_xchg(gf, 1.0f) + atomic_xchg(lf, 2.0f);
  out[0] = r;
}
#define C11(AT, T, P)                                                                    \
  atomic_init(P, (T)1);                                                                   \
  atomic_store(P, (T)1);                                                                  \
  atomic_store_explicit(P, (T)1, memory_order_release);                                   \
  atomic_store_explicit(P, (T)1, memory_order_relaxed, memory_scope_work_group);          \
  r += atomic_load(P) + atomic_load_explicit(P, memory_order_acquire) +                   \
       atomic_load_explicit(P, memory_order_relaxed, memory_scope_sub_group) +            \
       atomic_exchange(P, (T)2) + atomic_exchange_explicit(P, (T)2, memory_order_acq_rel) + \
       atomic_exchange_explicit(P, (T)2, memory_order_relaxed, memory_scope_device);      \
  { T e = 1;                                                                              \
    r += atomic_compare_exchange_strong(P, &e, (T)2) + atomic_compare_exchange_weak(P, &e, (T)2) + \
         atomic_compare_exchange_strong_explicit(P, &e, (T)2, memory_order_acq_rel, memory_order_acquire) + \
         atomic_compare_exchange_weak_explicit(P, &e, (T)2, memory_order_relaxed, memory_order_relaxed, memory_scope_work_group); }
#define C11_FETCH(T, P, OP)                                                              \
  r += atomic_fetch_##OP(P, (T)1) + atomic_fetch_##OP##_explicit(P, (T)1, memory_order_seq_cst) + \
       atomic_fetch_##OP##_explicit(P, (T)1, memory_order_relaxed, memory_scope_work_group);
#define C11_INT(AT, T, P) C11(AT, T, P) C11_FETCH(T, P, add) C11_FETCH(T, P, sub)        \
  C11_FETCH(T, P, or) C11_FETCH(T, P, xor) C11_FETCH(T, P, and) C11_FETCH(T, P, min) C11_FETCH(T, P, max)
kernel void atomics_c11(global atomic_int *gi, local atomic_uint *lu, global atomic_long *gl,
                        global atomic_ulong *gul, global atomic_float *gf, local atomic_double *ld,
                        global atomic_flag *fl, global double *out) {
  double r = 0;
  local atomic_long ll;
  generic atomic_int *ggi = (generic atomic_int *)gi;
  generic atomic_long *ggl = ID ? (generic atomic_long *)gl : (generic atomic_long *)&ll;
  generic atomic_ulong *ggul = (generic atomic_ulong *)gul;
  C11_INT(atomic_int, int, gi) C11_INT(atomic_uint, uint, lu) C11_INT(atomic_long, long, gl)
  C11_INT(atomic_ulong, ulong, gul) C11_INT(atomic_int, int, ggi) C11_INT(atomic_long, long, ggl)
  C11_INT(atomic_ulong, ulong, ggul)
  C11(atomic_float, float, gf) C11(atomic_double, double, ld)
  r += atomic_flag_test_and_set(fl) + atomic_flag_test_and_set_explicit(fl, memory_order_acquire) +
       atomic_flag_test_and_set_explicit(fl, memory_order_relaxed, memory_scope_work_group);
  atomic_flag_clear(fl);
  atomic_flag_clear_explicit(fl, memory_order_release);
  atomic_flag_clear_explicit(fl, memory_order_relaxed, memory_scope_device);
  out[0] = r;
}

// s6.13.14 image functions
kernel void images(read_only image1d_t i1, read_only image1d_buffer_t i1b, read_only image1d_array_t i1a,
                   read_only image2d_t i2, read_only image2d_array_t i2a, read_only image3d_t i3,
                   read_only image2d_depth_t i2d, read_only image2d_array_depth_t i2ad,
                   write_only image1d_t w1, write_only image2d_t w2, write_only image3d_t w3,
                   write_only image2d_array_t w2a, write_only image2d_depth_t w2d,
                   read_write image2d_t rw, sampler_t s, global float4 *o, global int4 *oi) {
  float4 f = read_imagef(i1, s, 1.0f) + read_imagef(i1, 1) + read_imagef(i1b, 1) +
             read_imagef(i1a, s, (float2)1) + read_imagef(i1a, (int2)1) +
             read_imagef(i2, s, (float2)1) + read_imagef(i2, s, (int2)1) + read_imagef(i2, (int2)1) +
             read_imagef(i2a, s, (float4)1) + read_imagef(i2a, (int4)1) +
             read_imagef(i3, s, (float4)1) + read_imagef(i3, (int4)1) + read_imagef(rw, (int2)1);
  f.x += read_imagef(i2d, s, (float2)1) + read_imagef(i2d, (int2)1) + read_imagef(i2ad, s, (float4)1);
  int4 iv = read_imagei(i2, s, (float2)1) + read_imagei(i2, (int2)1) + read_imagei(i3, s, (int4)1) +
            as_int4(read_imageui(i2, s, (float2)1)) + as_int4(read_imageui(i1, 1)) + read_imagei(rw, (int2)1);
  half4 h = read_imageh(i2, s, (float2)1) + read_imageh(i2, (int2)1) + read_imageh(i1, 1) + read_imageh(rw, (int2)2);
  write_imagef(w1, 1, f); write_imagef(w2, (int2)1, f); write_imagef(w3, (int4)1, f);
  write_imagef(w2a, (int4)1, f); write_imagef(w2d, (int2)1, f.x); write_imagef(rw, (int2)1, f);
  write_imagei(w2, (int2)1, iv); write_imageui(w2, (int2)1, as_uint4(iv)); write_imagei(rw, (int2)1, iv);
  write_imageh(w2, (int2)1, h); write_imageh(rw, (int2)2, h); write_imageh(w1, 1, h);
  oi[0] = (int4)(get_image_width(i2), get_image_height(i2), get_image_depth(i3),
                 get_image_channel_data_type(i2)) +
          (int4)(get_image_channel_order(i2), get_image_channel_order(w2), get_image_width(i1b),
                 (int)get_image_array_size(i2a)) +
          (int4)(get_image_dim(i2), 0, 0) + get_image_dim(i3) + (int4)((int)get_image_array_size(i1a), get_image_width(w3), get_image_channel_data_type(rw), get_image_channel_order(rw));
  o[0] = f + convert_float4(h);
}

// s6.13.13 printf
kernel void printing(global float *f) {
  printf("%d %f %s %v4f\n", (int)ID, f[0], "x", (float4)1);
}

// s6.2.3 explicit conversions: every destination type, _sat, every rounding mode
#define CONV_MODES(D, x)                                                                 \
  convert_##D(x) + convert_##D##_rte(x) + convert_##D##_rtz(x) + convert_##D##_rtp(x) +  \
  convert_##D##_rtn(x) + convert_##D##_sat(x) + convert_##D##_sat_rte(x) +               \
  convert_##D##_sat_rtz(x) + convert_##D##_sat_rtp(x) + convert_##D##_sat_rtn(x)
#define CONV_F_MODES(D, x)                                                               \
  convert_##D(x) + convert_##D##_rte(x) + convert_##D##_rtz(x) + convert_##D##_rtp(x) + convert_##D##_rtn(x)
#define CONV_KERNEL(S, N)                                                                \
  kernel void convert_from_##S##N(global S##N *in, global char##N *c, global uchar##N *uc, \
      global short##N *s, global ushort##N *us, global int##N *i, global uint##N *ui,    \
      global long##N *l, global ulong##N *ul, global float##N *f, global double##N *d,   \
      global half##N *h) {                                                               \
    S##N x = in[ID];                                                                     \
    c[ID] = CONV_MODES(char##N, x); uc[ID] = CONV_MODES(uchar##N, x);                    \
    s[ID] = CONV_MODES(short##N, x); us[ID] = CONV_MODES(ushort##N, x);                  \
    i[ID] = CONV_MODES(int##N, x); ui[ID] = CONV_MODES(uint##N, x);                      \
    l[ID] = CONV_MODES(long##N, x); ul[ID] = CONV_MODES(ulong##N, x);                    \
    f[ID] = CONV_F_MODES(float##N, x); d[ID] = CONV_F_MODES(double##N, x);               \
    h[ID] = CONV_F_MODES(half##N, x);                                                    \
  }
CONV_KERNEL(char, )
CONV_KERNEL(uchar, 4)
CONV_KERNEL(short, 2)
CONV_KERNEL(int, )
CONV_KERNEL(uint, 8)
CONV_KERNEL(long, )
CONV_KERNEL(ulong, 16)
CONV_KERNEL(float, )
CONV_KERNEL(float, 3)
CONV_KERNEL(double, )
CONV_KERNEL(double, 2)
CONV_KERNEL(half, )
CONV_KERNEL(half, 4)

// s6.13.12 miscellaneous vector functions
kernel void misc_vector(global float4 *f, global uint4 *m, global int *n, global char16 *c) {
  f[0] = shuffle(f[1], m[0]) + shuffle2(f[1], f[2], m[0]);
  c[0] = shuffle(c[1], as_uchar16(c[2])) + shuffle2(c[1], c[2], as_uchar16(c[3]));
  n[0] = vec_step(f[0]) + vec_step(float3) + vec_step(c[0]);
}
