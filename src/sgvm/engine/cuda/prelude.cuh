// sgvm CUDA prelude: helper device functions for the code rendered by
// sgvm.engine.cuda.render. Self-contained (NVRTC needs no system header).
// SG_SIZE (the sub-group size S) is defined before this file is included.
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
typedef unsigned short hbits;  // half values are their IEEE binary16 bits

// ---- launch geometry (docs/cuda.md, "Launch") -----------------------------
struct SgCtx {
  u64 gofs[3], enq[3], goff[3], gsize[3], ngr[3];
  u32 dim;
  u64 *pf;  // printf records (runtime.py): [words used, capacity, records...], or null
  const u64 *rng;  // bounds checks: [start, size | read-only << 63] per buffer and global
  u32 nrng;
  u32 dyn;  // bytes of dynamic shared memory (__local variables and arguments)
  u64 *fault;  // the first faulting access: [linear id, lock, address, size | kind | why | slot, …]
  u64 steps;  // step budget: loop back-edges per work-item and function call (SGVM_MAX_STEPS)
};
extern __shared__ __align__(16) u8 sg_dyn[];

__device__ __forceinline__ u32 sg_linear() {
  return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}
__device__ __forceinline__ u32 sg_wgvol() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ __forceinline__ u64 sg_local(int d) {
  return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : threadIdx.z;
}
__device__ __forceinline__ u64 sg_lsize(int d) {
  return d == 0 ? blockDim.x : d == 1 ? blockDim.y : blockDim.z;
}
__device__ __forceinline__ u64 sg_group(const SgCtx &c, int d) {
  return (d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : blockIdx.z) + c.gofs[d];
}
__device__ __forceinline__ u64 sg_gid(const SgCtx &c, int d) {
  return sg_group(c, d) * c.enq[d] + sg_local(d) + c.goff[d];
}
__device__ __forceinline__ u64 sg_global_linear(const SgCtx &c) {
  return (sg_gid(c, 2) - c.goff[2]) * c.gsize[0] * c.gsize[1] +
         (sg_gid(c, 1) - c.goff[1]) * c.gsize[0] + (sg_gid(c, 0) - c.goff[0]);
}
// printf: one record per call, [global linear id, call site, n argument words], in the
// order the atomic hands out (program order per work-item); formatted on the host.
__device__ void sg_printf(const SgCtx &c, u32 site, u32 n, const u64 *v) {
  if (!c.pf) return;
  u64 words = 2 + n;
  u64 pos = atomicAdd((unsigned long long *)c.pf, (unsigned long long)words);
  if (pos + words > c.pf[1]) return;
  u64 *rec = c.pf + 2 + pos;
  rec[0] = sg_global_linear(c);
  rec[1] = site;
  for (u32 k = 0; k < n; k++) rec[2 + k] = v[k];
}

// ---- bounds checks (docs/cuda.md, "Memory errors") --------------------------------
// fault: [~linear id of the lowest faulting work-item (0: none), lock, address,
// size | kind << 32 | why << 40, c0, c1, c2]; kind 0 load, 1 store, 2 atomic; why 1
// misaligned, 2 read-only, 3 out of bounds, + 4 when the address is an offset in local
// memory; why 8: the step budget ran out (sg_timeout); why 16: OpUnreachable was reached
// (sg_unreachable); why 64: write_image outside the image (address: the image handle,
// c0..c2: the coordinates). The native backend's layout (engine/common/faults.py).
// The lowest id wins (atomicMax of ~id); its details are written under a lock, only
// while it is still the lowest.
// It takes no SgCtx: a reference escaping into a call that is not inlined would keep the
// context in local memory (written by every work-item).
__device__ __noinline__ void sg_fault(u64 *fault, u64 id, u64 a, u32 n, u32 kind, u32 why,
                                      u32 slot = 0, s64 c0 = 0, s64 c1 = 0, s64 c2 = 0) {
  u64 key = ~id;
  if (atomicMax((unsigned long long *)fault, (unsigned long long)key) >= key) return;
  while (atomicCAS((unsigned long long *)&fault[1], 0ULL, 1ULL) != 0ULL) {}
  if (*(volatile u64 *)fault == key) {
    fault[2] = a;
    fault[3] = n | (u64)kind << 32 | (u64)why << 40 | (u64)slot << 48;
    fault[4] = (u64)c0;
    fault[5] = (u64)c1;
    fault[6] = (u64)c2;
  }
  __threadfence();
  atomicExch((unsigned long long *)&fault[1], 0ULL);
}
// A write_image outside the image (engine/clower/images.h): why 16, the coordinates.
#define SG_IMG_WRITE_FAULT(fault, id, h, c0, c1, c2) sg_fault(fault, id, h, 0, 1, 64, 0, c0, c1, c2)
// ---- step budget (docs/cuda.md, "Runaway kernels") --------------------------------
// Each function call counts its loop back-edges (sg_n); past the budget the work-item
// records why 8 (timeout) in the fault record, raises its block's abort flag and exits.
// Every work-item checks the flag at each back-edge and after each work-group barrier and
// exits too; an exiting thread releases the barriers the others wait at (PTX `exit`), so
// the block ends together instead of deadlocking.
__shared__ u32 sg_abort;
__device__ __forceinline__ void sg_exit() { asm volatile("exit;"); }
__device__ __noinline__ void sg_timeout(u64 *fault, u64 id) {
  sg_fault(fault, id, 0, 0, 0, 8);
  *(volatile u32 *)&sg_abort = 1;
  sg_exit();
}
// OpUnreachable reached (with the checks on): why 16, and the block ends as for a timeout
// (a trap would lose the CUDA context).
__device__ __noinline__ void sg_unreachable(u64 *fault, u64 id) {
  sg_fault(fault, id, 0, 0, 0, 16);
  *(volatile u32 *)&sg_abort = 1;
  sg_exit();
}
__device__ __forceinline__ void sg_aborted() {
  if (*(volatile u32 *)&sg_abort) sg_exit();
}
__device__ __forceinline__ void sg_tick(const SgCtx &c, u64 &n) {
  if (++n > c.steps) sg_timeout(c.fault, sg_global_linear(c));
  sg_aborted();
}
// An access of n bytes at p through a global (space 0), local (1) or generic (2) pointer:
// whether it may go ahead (recording the fault otherwise). Private memory is not checked.
__device__ __forceinline__ bool sg_ok(const SgCtx &c, const void *p, u32 n, u32 al, u32 kind,
                                      int space) {
  u64 a = (u64)p;
  u32 why = 3, sh = 0;
  if (space == 1 || (space == 2 && __isShared(p))) {
    a -= (u64)sg_dyn;
    sh = 4;
    why = a < c.dyn && n <= c.dyn - a ? 0 : 3;
  } else if (space == 2 && __isLocal(p)) {
    return true;
  } else {
    for (u32 i = 0; i < c.nrng; i++) {
      u64 lo = __ldg(c.rng + 2 * i), sz = __ldg(c.rng + 2 * i + 1);
      if (a >= lo && a - lo + n <= (sz & 0x7fffffffffffffffULL)) {
        why = kind != 0 && (sz >> 63) ? 2 : 0;
        break;
      }
    }
  }
  if (why == 0 && al > 1 && (a & (al - 1))) why = 1;
  if (why == 0) return true;
  sg_fault(c.fault, sg_global_linear(c), a, n, kind, why | sh);
  return false;
}
// An access through a pointer whose object the code names (engine/common/origins.py): it
// must lie in that argument's region r alone, as on the CPU backends; the record names r.
__device__ __forceinline__ bool sg_ok_in(const SgCtx &c, const void *p, u32 n, u32 al, u32 kind,
                                         u32 r) {
  u64 a = (u64)p, lo = __ldg(c.rng + 2 * r), sz = __ldg(c.rng + 2 * r + 1);
  u32 why = a >= lo && a - lo + n <= (sz & 0x7fffffffffffffffULL)
      ? (kind != 0 && (sz >> 63) ? 2 : 0) : 3;
  if (why == 0 && al > 1 && (a & (al - 1))) why = 1;
  if (why == 0) return true;
  sg_fault(c.fault, sg_global_linear(c), a, n, kind, why, r + 1);
  return false;
}

// cl_intel_subgroups: sub-group id = linear local id / S, lane = linear % S;
// the last sub-group of a work-group may be partial.
__device__ __forceinline__ u32 sg_id() { return sg_linear() / SG_SIZE; }
__device__ __forceinline__ u32 sg_lane() { return sg_linear() % SG_SIZE; }
__device__ __forceinline__ u32 sg_size() {
  u32 rest = sg_wgvol() - sg_id() * SG_SIZE;
  return rest < SG_SIZE ? rest : SG_SIZE;
}
__device__ __forceinline__ u32 sg_num() { return (sg_wgvol() + SG_SIZE - 1) / SG_SIZE; }
__device__ __forceinline__ u32 sg_enq_num(const SgCtx &c) {
  return (u32)((c.enq[0] * c.enq[1] * c.enq[2] + SG_SIZE - 1) / SG_SIZE);
}
// The warp lanes of this sub-group (an aligned S-lane segment of the warp).
__device__ __forceinline__ u32 sg_segmask() {
  u32 base = (sg_linear() & 31u) & ~(u32)(SG_SIZE - 1);
  return (SG_SIZE == 32 ? 0xffffffffu : ((1u << SG_SIZE) - 1u)) << base;
}
__device__ __forceinline__ u32 sg_base() { return (sg_linear() & 31u) & ~(u32)(SG_SIZE - 1); }
// The warp lanes of this sub-group's work-items (fewer than S in a partial sub-group).
__device__ __forceinline__ u32 sg_lanes() {
  u32 n = sg_size();
  return (n == 32 ? 0xffffffffu : ((1u << n) - 1u)) << sg_base();
}

// ---- sub-group membership (docs/cuda.md, "Sub-groups") ------------------------------
// Which work-items take part in a collective is the CPU engine's rule, never the hardware's
// momentary convergence (__activemask()): a function with sub-group collectives runs its
// blocks under a scheduler (render_sched.py) that, like engine/cpu/scheduler.py, runs the
// lowest-indexed block any lane of the sub-group waits at, for exactly the lanes waiting
// there; `m` below is that set of lanes.
#define SG_EXIT 0xffffffffu
// The smallest `v` over the lanes of `m` (all of them call this together).
__device__ __forceinline__ u32 sg_min_sync(u32 m, u32 v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync(m, v);
#else
  u32 r = v;
  for (u32 k = m; k; k &= k - 1) r = min(r, __shfl_sync(m, v, __ffs(k) - 1));
  return r;
#endif
}

// ---- half (binary16) -------------------------------------------------------
__device__ __forceinline__ float h2f(hbits h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
__device__ __forceinline__ hbits f2h(float f) {
  hbits h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
__device__ __forceinline__ hbits d2h(double f) {
  hbits h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(f)); return h;
}
__device__ __forceinline__ double h2d(hbits h) { return (double)h2f(h); }
// x rounded to half by FPRoundingMode `mode` (0 rte, 1 rtz, 2 rtp, 3 rtn): nearest even,
// then one step toward x's side where that went the wrong way (the CPU engine's
// float_to_half_bits; overflow as IEEE 754).
__device__ __forceinline__ hbits sg_to_half(double x, int mode) {
  hbits h = d2h(x);
  if (mode == 0 || x != x || isinf(x)) return h;
  double back = h2d(h);
  bool neg = (h & 0x8000) != 0, zero = (h & 0x7fff) == 0;
  if (mode == 1) return fabs(back) > fabs(x) ? (hbits)(h - 1) : h;
  if (mode == 2) return back < x ? (hbits)(zero ? 0x0001 : neg ? h - 1 : h + 1) : h;
  return back > x ? (hbits)(zero ? 0x8001 : neg ? h + 1 : h - 1) : h;
}

// ---- bit casts ---------------------------------------------------------------
template <class T> __device__ __forceinline__ u64 sg_bits(T v) {
  u64 b = 0; memcpy(&b, &v, sizeof(T)); return b;
}
template <class T> __device__ __forceinline__ T sg_from_bits(u64 b) {
  T v; memcpy(&v, &b, sizeof(T)); return v;
}

// ---- integer rules (docs/engine.md, "Choices where the specifications say undefined")
template <class U, class S> __device__ __forceinline__ U sg_sdiv(U a, U b) {
  S x = (S)a, y = (S)b;
  if (y == 0) return 0;
  if (y == (S)-1) return (U)(0 - a);  // INT_MIN / -1 = INT_MIN (wraps)
  return (U)(x / y);
}
template <class U, class S> __device__ __forceinline__ U sg_srem(U a, U b) {
  S x = (S)a, y = (S)b;
  if (y == 0 || y == (S)-1) return 0;
  return (U)(x % y);
}
template <class U, class S> __device__ __forceinline__ U sg_smod(U a, U b) {
  S x = (S)a, y = (S)b;
  if (y == 0 || y == (S)-1) return 0;
  S r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return (U)r;
}
template <class U> __device__ __forceinline__ U sg_udiv(U a, U b) { return b ? (U)(a / b) : (U)0; }
template <class U> __device__ __forceinline__ U sg_umod(U a, U b) { return b ? (U)(a % b) : (U)0; }

// Float -> integer: round toward zero, saturate, NaN -> 0 (Intel GPUs; docs/engine.md).
template <class T> __device__ __forceinline__ T sg_f2i(double x, double lo, double hi) {
  if (x != x) return 0;
  if (x <= lo) return (T)lo;
  if (x >= hi) return (T)hi;
  return (T)x;
}
__device__ __forceinline__ s64 sg_clamp64(s64 v, s64 lo, s64 hi) { return v < lo ? lo : v > hi ? hi : v; }
__device__ __forceinline__ u64 sg_umin64(u64 a, u64 b) { return a < b ? a : b; }
__device__ __forceinline__ s64 sg_f2s64(double x) {
  if (x != x) return 0;
  if (x <= -9223372036854775808.0) return (s64)0x8000000000000000ULL;
  if (x >= 9223372036854775808.0) return 0x7fffffffffffffffLL;
  return (s64)x;
}
__device__ __forceinline__ u64 sg_f2u64(double x) {
  if (x != x || x <= 0.0) return 0;
  if (x >= 18446744073709551616.0) return 0xffffffffffffffffULL;
  return (u64)x;
}

// ---- sub-group data movement (SPV_INTEL_subgroups) ---------------------------
// Values move as 32- or 64-bit words; `src` is a lane of this sub-group.
template <class T> __device__ __forceinline__ T sg_shfl(u32 mask, T v, u32 src) {
  if (sizeof(T) <= 4) {
    u32 b = (u32)sg_bits(v);
    return sg_from_bits<T>(__shfl_sync(mask, b, (int)src, SG_SIZE));
  }
  u64 b = sg_bits(v);
  return sg_from_bits<T>(__shfl_sync(mask, (unsigned long long)b, (int)src, SG_SIZE));
}
// intel_sub_group_shuffle: index >= max size is out of range (0).
template <class T> __device__ __forceinline__ T sg_shuffle(u32 m, T v, u32 idx) {
  T r = sg_shfl(m, v, idx & (SG_SIZE - 1));
  return idx < SG_SIZE ? r : (T)0;
}
template <class T> __device__ __forceinline__ T sg_shuffle_xor(u32 m, T v, u32 x) {
  u32 idx = sg_lane() ^ x;
  T r = sg_shfl(m, v, idx & (SG_SIZE - 1));
  return idx < SG_SIZE ? r : (T)0;
}
// shuffle_down(cur, next, d): index l+d; < max -> cur[l+d]; < 2*max -> next[l+d-max].
template <class T> __device__ __forceinline__ T sg_shuffle_down(u32 m, T cur, T next, u32 d) {
  u32 idx = sg_lane() + d;  // 32-bit unsigned, as the spec's unsigned shuffle index
  T a = sg_shfl(m, cur, idx & (SG_SIZE - 1));
  T b = sg_shfl(m, next, idx & (SG_SIZE - 1));
  return idx < SG_SIZE ? a : idx < 2 * SG_SIZE ? b : (T)0;
}
// shuffle_up(prev, cur, d): index l-d; >= 0 -> cur[l-d]; >= -max -> prev[l-d+max].
template <class T> __device__ __forceinline__ T sg_shuffle_up(u32 m, T prev, T cur, u32 d) {
  s32 idx = (s32)(sg_lane() - d);
  u32 src = (u32)idx & (SG_SIZE - 1);
  T a = sg_shfl(m, cur, src);
  T b = sg_shfl(m, prev, src);
  return (idx >= 0 && idx < SG_SIZE) ? a : (idx < 0 && idx >= -SG_SIZE) ? b : (T)0;
}
template <class T> __device__ __forceinline__ T sg_broadcast(u32 m, T v, u64 id) {
  T r = sg_shfl(m, v, (u32)id & (SG_SIZE - 1));
  return id < SG_SIZE ? r : (T)0;
}
__device__ __forceinline__ bool sg_all(u32 m, bool p) { return __all_sync(m, p); }
__device__ __forceinline__ bool sg_any(u32 m, bool p) { return __any_sync(m, p); }

// ---- reductions and scans ------------------------------------------------------
// OP is a functor with `static T apply(T, T)` and `static T identity()`.
// An operation whose result depends on the association order (float sums and products:
// SgInLaneOrder) folds the member lanes sequentially in lane order, the CPU engine's
// order (reduction_order=lanes, docs/portability.md), so the results are bit-identical.
// The others (integer operations, min and max) give the same result in any order: a
// whole sub-group uses a shuffle tree (butterfly reduce, Hillis-Steele inclusive scan),
// a partial or divergent one the sequential fold.
template <class OP> struct SgInLaneOrder { static constexpr bool value = false; };
template <class OP, class T> __device__ __forceinline__ T sg_reduce(u32 m, T v) {
  if (SgInLaneOrder<OP>::value && m == sg_segmask()) {  // unrolled: the shuffles overlap
    T acc = sg_shfl(m, v, 0);
#pragma unroll
    for (u32 k = 1; k < SG_SIZE; k++) acc = OP::apply(acc, sg_shfl(m, v, k));
    return acc;
  }
  if (m == sg_segmask()) {
#pragma unroll
    for (int o = SG_SIZE / 2; o > 0; o >>= 1) v = OP::apply(v, sg_from_bits<T>(
        sizeof(T) <= 4 ? (u64)__shfl_xor_sync(m, (u32)sg_bits(v), o, SG_SIZE)
                       : (u64)__shfl_xor_sync(m, (unsigned long long)sg_bits(v), o, SG_SIZE)));
    return v;
  }
  u32 rel = m >> sg_base();
  T acc = sg_shfl(m, v, __ffs(rel) - 1);
  for (u32 r = rel & (rel - 1); r; r &= r - 1) acc = OP::apply(acc, sg_shfl(m, v, __ffs(r) - 1));
  return acc;
}
template <class OP, class T> __device__ __forceinline__ T sg_scan(u32 m, T v, bool inclusive) {
  u32 lane = sg_lane();
  if (SgInLaneOrder<OP>::value && m == sg_segmask()) {
    T acc = sg_shfl(m, v, 0);
    if (lane == 0 && !inclusive) acc = OP::identity();
#pragma unroll
    for (u32 k = 1; k < SG_SIZE; k++) {
      T y = sg_shfl(m, v, k);
      if (k < lane || (inclusive && k == lane)) acc = OP::apply(acc, y);
    }
    return acc;
  }
  if (m == sg_segmask() && inclusive) {
#pragma unroll
    for (int o = 1; o < SG_SIZE; o <<= 1) {
      T y = sg_from_bits<T>(sizeof(T) <= 4
          ? (u64)__shfl_up_sync(m, (u32)sg_bits(v), o, SG_SIZE)
          : (u64)__shfl_up_sync(m, (unsigned long long)sg_bits(v), o, SG_SIZE));
      if (lane >= (u32)o) v = OP::apply(y, v);
    }
    return v;
  }
  u32 rel = m >> sg_base();
  T acc = OP::identity();
  bool any = false;
  for (u32 r = rel; r; r &= r - 1) {
    u32 j = __ffs(r) - 1;
    T y = sg_shfl(m, v, j);
    if (j < lane || (inclusive && j == lane)) { acc = any ? OP::apply(acc, y) : y; any = true; }
  }
  return acc;
}

// A work-group barrier. Not __syncthreads: that is PTX `bar.sync`, which PTX defines as
// `barrier.sync.aligned` ("all threads in a warp" must execute the same barrier
// instruction, converged), and the scheduled functions' gotos leave a warp's lanes diverged
// (sub-groups of one warp under their own schedulers, lanes split by a branch). From
// sm_70 on, `barrier.sync` without .aligned "causes executing thread to wait for all
// non-exited threads from its warp": diverged lanes meet there. With the aligned form a
// warp counted as arrived when its first lanes did, and those read a work-group vote
// before the others had voted (a silent wrong work_group_any).
__device__ __forceinline__ void sg_barrier() { asm volatile("barrier.sync 0;" ::: "memory"); }

// ---- work-group collectives through shared memory (sequential in linear-id order,
// as the CPU engine; a work-group function acts as a barrier) ------------------------
template <class OP, class T> __device__ T wg_collective(T v, int kind, u64 *buf) {
  // kind: 0 reduce, 1 inclusive scan, 2 exclusive scan
  u32 me = sg_linear(), n = sg_wgvol();
  sg_barrier();
  buf[me] = sg_bits(v);
  sg_barrier();
  if (me == 0) {
    T acc = sg_from_bits<T>(buf[0]);
    if (kind == 2) buf[0] = sg_bits(OP::identity());
    for (u32 i = 1; i < n; i++) {
      T x = sg_from_bits<T>(buf[i]);
      if (kind == 1) buf[i - 1] = sg_bits(acc);
      T nx = OP::apply(acc, x);
      if (kind == 2) buf[i] = sg_bits(acc);
      acc = nx;
    }
    if (kind == 1) buf[n - 1] = sg_bits(acc);
    if (kind == 0) buf[0] = sg_bits(acc);
  }
  sg_barrier();
  T r = sg_from_bits<T>(buf[kind == 0 ? 0 : me]);
  sg_barrier();
  return r;
}
// work_group_all/any (all: every work-item's predicate holds; any: one does). Plain
// barriers, not bar.red (the and/or forms of __syncthreads), which needs converged warps.
__device__ bool wg_vote(bool p, bool all, u64 *buf) {
  sg_barrier();
  if (sg_linear() == 0) buf[0] = 0;
  sg_barrier();
  if (p != all) atomicOr((unsigned long long *)buf, 1ULL);
  sg_barrier();
  bool seen = buf[0] != 0;
  sg_barrier();
  return seen != all;
}
template <class T> __device__ T wg_broadcast(T v, u64 id, u64 *buf) {
  sg_barrier();
  if (sg_linear() == id) buf[0] = sg_bits(v);
  sg_barrier();
  T r = id < sg_wgvol() ? sg_from_bits<T>(buf[0]) : (T)0;
  sg_barrier();
  return r;
}

// ---- operations for the collectives -------------------------------------------
template <class T> struct OpAdd {
  static __device__ __forceinline__ T apply(T a, T b) { return (T)(a + b); }
  static __device__ __forceinline__ T identity() { return (T)0; }
};
template <class T, class S> struct OpMin {  // S: the type compared (signed view)
  static __device__ __forceinline__ T apply(T a, T b) { return (S)b < (S)a ? b : a; }
  static __device__ __forceinline__ T identity();
};
template <class T, class S> struct OpMax {
  static __device__ __forceinline__ T apply(T a, T b) { return (S)b > (S)a ? b : a; }
  static __device__ __forceinline__ T identity();
};
#define SG_MINMAX_ID(T, S, LO, HI) \
  template <> __device__ __forceinline__ T OpMin<T, S>::identity() { return (T)(HI); } \
  template <> __device__ __forceinline__ T OpMax<T, S>::identity() { return (T)(LO); }
SG_MINMAX_ID(u8, u8, 0, 0xff)
SG_MINMAX_ID(u8, s8, 0x80, 0x7f)
SG_MINMAX_ID(u16, u16, 0, 0xffff)
SG_MINMAX_ID(u16, s16, 0x8000, 0x7fff)
SG_MINMAX_ID(u32, u32, 0, 0xffffffffu)
SG_MINMAX_ID(u32, s32, 0x80000000u, 0x7fffffffu)
SG_MINMAX_ID(u64, u64, 0, 0xffffffffffffffffULL)
SG_MINMAX_ID(u64, s64, 0x8000000000000000ULL, 0x7fffffffffffffffULL)
// identity() is what an exclusive scan gives a work-item with no active one before it:
// "If op = add, the identity I is 0" (OpenCL C 2.0 s6.13.15), +0.0. Folds start from the
// first value, never from identity(), so a sum of -0.0s stays -0.0 as on the CPU engine.
struct OpFAddF { static __device__ __forceinline__ float apply(float a, float b) { return __fadd_rn(a, b); }
                 static __device__ __forceinline__ float identity() { return 0.0f; } };
struct OpFMinF { static __device__ __forceinline__ float apply(float a, float b) { return fminf(a, b); }
                 static __device__ __forceinline__ float identity() { return __int_as_float(0x7f800000); } };
struct OpFMaxF { static __device__ __forceinline__ float apply(float a, float b) { return fmaxf(a, b); }
                 static __device__ __forceinline__ float identity() { return __int_as_float(0xff800000); } };
struct OpFAddD { static __device__ __forceinline__ double apply(double a, double b) { return __dadd_rn(a, b); }
                 static __device__ __forceinline__ double identity() { return 0.0; } };
struct OpFMinD { static __device__ __forceinline__ double apply(double a, double b) { return fmin(a, b); }
                 static __device__ __forceinline__ double identity() { return __longlong_as_double(0x7ff0000000000000LL); } };
struct OpFMaxD { static __device__ __forceinline__ double apply(double a, double b) { return fmax(a, b); }
                 static __device__ __forceinline__ double identity() { return __longlong_as_double(0xfff0000000000000LL); } };
struct OpFAddH { static __device__ __forceinline__ hbits apply(hbits a, hbits b) { return f2h(h2f(a) + h2f(b)); }
                 static __device__ __forceinline__ hbits identity() { return 0x0000; } };
struct OpFMinH { static __device__ __forceinline__ hbits apply(hbits a, hbits b) { return f2h(fminf(h2f(a), h2f(b))); }
                 static __device__ __forceinline__ hbits identity() { return 0x7c00; } };
struct OpFMaxH { static __device__ __forceinline__ hbits apply(hbits a, hbits b) { return f2h(fmaxf(h2f(a), h2f(b))); }
                 static __device__ __forceinline__ hbits identity() { return 0xfc00; } };
template <> struct SgInLaneOrder<OpFAddF> { static constexpr bool value = true; };
template <> struct SgInLaneOrder<OpFAddD> { static constexpr bool value = true; };
template <> struct SgInLaneOrder<OpFAddH> { static constexpr bool value = true; };

// ---- integer built-ins (OpenCL.std) ---------------------------------------------
template <class U> __device__ __forceinline__ U sg_clz(U x, int w) {
  if (w == 64) return (U)__clzll((long long)x);
  return (U)(__clz((int)(u32)x) - (32 - w));
}
template <class U> __device__ __forceinline__ U sg_ctz(U x, int w) {
  if (x == 0) return (U)w;
  return (U)(w == 64 ? __ffsll((long long)x) - 1 : __ffs((int)(u32)x) - 1);
}
template <class U> __device__ __forceinline__ U sg_popcount(U x, int w) {
  return (U)(w == 64 ? __popcll(x) : __popc((u32)x));
}
template <class U> __device__ __forceinline__ U sg_rotate(U x, U n, int w) {
  u32 s = (u32)(n % (U)w);
  if (s == 0) return x;
  return (U)((x << s) | (x >> (w - s)));
}

// ---- float helpers -------------------------------------------------------------
__device__ __forceinline__ float sg_fmod_sign(float a, float b) {
  float r = fmodf(a, b);
  return (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) ? r + b : r;
}
__device__ __forceinline__ double sg_fmod_sign(double a, double b) {
  double r = fmod(a, b);
  return (r != 0.0 && ((r < 0.0) != (b < 0.0))) ? r + b : r;
}
__device__ __forceinline__ bool sg_isnormal(float x) {
  float a = fabsf(x); return a >= 1.17549435e-38f && a <= 3.40282347e38f;
}
__device__ __forceinline__ bool sg_isnormal(double x) {
  double a = fabs(x); return a >= 2.2250738585072014e-308 && a <= 1.7976931348623157e308;
}
template <class T> __device__ __forceinline__ T sg_maxmag(T x, T y) {
  T ax = fabs(x), ay = fabs(y);
  return ax > ay ? x : ay > ax ? y : fmax(x, y);
}
template <class T> __device__ __forceinline__ T sg_minmag(T x, T y) {
  T ax = fabs(x), ay = fabs(y);
  return ax < ay ? x : ay < ax ? y : fmin(x, y);
}
template <class T> __device__ __forceinline__ T sg_sign(T x) {
  return x > (T)0 ? (T)1 : x < (T)0 ? (T)-1 : x == x ? x : (T)0;
}
template <class T> __device__ __forceinline__ T sg_smoothstep(T e0, T e1, T x) {
  T t = fmin(fmax((x - e0) / (e1 - e0), (T)0), (T)1);
  return t * t * ((T)3 - (T)2 * t);
}

// ---- 64-bit saturating arithmetic (exact 128-bit intermediates) -----------------------
__device__ __forceinline__ u64 sg_add_sat_s64(u64 a, u64 b) {
  u64 s = a + b;
  if ((s64)(~(a ^ b) & (a ^ s)) >= 0) return s;
  return (s64)a < 0 ? 0x8000000000000000ULL : 0x7fffffffffffffffULL;
}
__device__ __forceinline__ u64 sg_sub_sat_s64(u64 a, u64 b) {
  u64 s = a - b;
  if ((s64)((a ^ b) & (a ^ s)) >= 0) return s;
  return (s64)a < 0 ? 0x8000000000000000ULL : 0x7fffffffffffffffULL;
}
__device__ __forceinline__ u64 sg_mad_sat_u64(u64 a, u64 b, u64 c) {
  u64 lo = a * b, s = lo + c;
  return (__umul64hi(a, b) != 0 || s < lo) ? 0xffffffffffffffffULL : s;
}
__device__ __forceinline__ u64 sg_mad_sat_s64(u64 a, u64 b, u64 c) {
  u64 lo = a * b, s = lo + c;
  s64 hi = __mul64hi((s64)a, (s64)b) + ((s64)c < 0 ? -1 : 0) + (s < lo ? 1 : 0);
  if (hi == ((s64)s >> 63)) return s;
  return hi < 0 ? 0x8000000000000000ULL : 0x7fffffffffffffffULL;
}
template <class T> __device__ __forceinline__ T sg_unaligned(const char *p) {
  T v; memcpy(&v, p, sizeof(T)); return v;
}
