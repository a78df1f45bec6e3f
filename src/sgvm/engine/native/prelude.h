// sgvm native backend: the helpers the shared C lowering (engine/clower) calls, for the CPU.
// Compiled as C++ (templates, overloads) without the C++ library; see docs/native.md.
#define _GNU_SOURCE 1
#include <math.h>
#include <string.h>
#include <stdint.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
typedef unsigned short hbits;  // half values are their IEEE binary16 bits
#define SG_FN static inline __attribute__((always_inline))
#define SG_EXIT 0xffffffffu
#define SG_SCAN 0xfffffffeu  // the next block is found by a scan of the lanes' counters

// ---- launch context -------------------------------------------------------------------
// One per launch (read-only); the per-work-group state lives in the kernel function.
struct SgCtx {
  u64 enq[3], goff[3], gsize[3], ngr[3];
  u32 dim, nrng;
  const u64 *rng;   // [start, size | read-only << 63] per region (buffers, by-value copies)
  u64 *fault;       // [~id of the lowest faulting work-item (0: none), lock, address, info, c0-c2]
  u64 steps;        // the step budget: block executions per work-group
  u64 local_bytes;  // bytes of local memory per work-group
  u32 checks;       // bounds checks and the step budget on
  u32 nlobj, npobj; // local objects (variables, arguments) and private variables
  const u64 *lobj;  // [offset, size] per local object, in the work-group's local memory
  const u64 *pobj;  // [offset, size] per private variable, in a work-item's slot
  u64 pslot;        // bytes of private memory per work-item
  const u64 *preg;  // per parameter, then per program-scope variable: [start, size, read-only]
  u64 nparams;      // (__local parameters: [0, size, 0]; other non-pointers: zeros)
  u64 wg;           // work-groups run together, consecutive in dimension 0 (regions.groups)
  u64 *pf;          // printf records [words used, capacity, records…] (clower/printf.py) or 0
};

// Merge blocks run fused (merge.py) by this library's calls so far: the tests read it.
extern "C" { u64 sg_merged_runs = 0, sg_joined_runs = 0; }
extern "C" { u64 sg_looped_runs = 0, sg_prefix_runs = 0; }
extern "C" { u64 sg_streamed_runs = 0; }

// Streaming stores (streams.py): the ``n`` values of ``size`` bytes a piece of a row stored
// in stage ``s`` copied to ``d``, lane by lane where mark ``w`` says some lane did not store;
// else at once, the whole 64-byte lines with non-temporal stores where ``nt`` (x86-64).
// Whether it streamed.
SG_FN u32 sg_put(char *d, const char *s, const u8 *w, u32 n, u32 size, bool nt) {
  u8 all = 1;
  for (u32 i = 0; i < n; i++) all &= w[i];
  if (!all) {
    for (u32 i = 0; i < n; i++)
      if (w[i]) memcpy(d + (u64)i * size, s + (u64)i * size, size);
    return 0;
  }
  const u64 len = (u64)n * size;
#if defined(__x86_64__)
  typedef char line __attribute__((vector_size(64)));
  typedef char loose_line __attribute__((vector_size(64), aligned(1)));
  if (nt && ((u64)d & 63) == 0 && (len & 63) == 0) {  // whole lines (no calls of memcpy)
    for (u64 i = 0; i < len; i += 64)
      __builtin_nontemporal_store(*(const loose_line *)(s + i), (line *)(d + i));
    return 1;
  }
  if (nt) {
    u64 i = (0 - (u64)d) & 63;
    i = i < len ? i : len;
    memcpy(d, s, i);
    for (; i + 64 <= len; i += 64)
      __builtin_nontemporal_store(*(const loose_line *)(s + i), (line *)(d + i));
    memcpy(d + i, s + i, len - i);
    return 1;
  }
#endif
  memcpy(d, s, len);
  return 0;
}
// Before an entry point returns: its non-temporal stores visible to the other threads.
#if defined(__x86_64__)
#define SG_STREAMS_DONE() __builtin_ia32_sfence()
#else
#define SG_STREAMS_DONE() ((void)0)
#endif

// ---- faults (the CUDA backend's record layout: engine/common/faults.py reads it) ------
SG_FN void sg_fault(u64 *fault, u64 id, u64 a, u32 n, u32 kind, u32 why, u32 slot = 0,
                    s64 c0 = 0, s64 c1 = 0, s64 c2 = 0) {
  u64 key = ~id, old = __atomic_load_n(fault, __ATOMIC_RELAXED);
  while (old < key && !__atomic_compare_exchange_n(fault, &old, key, true, __ATOMIC_ACQ_REL,
                                                   __ATOMIC_RELAXED)) {}
  if (old >= key) return;
  u64 unlocked = 0;
  while (!__atomic_compare_exchange_n(&fault[1], &unlocked, 1ULL, false, __ATOMIC_ACQUIRE,
                                      __ATOMIC_RELAXED)) unlocked = 0;
  if (__atomic_load_n(fault, __ATOMIC_RELAXED) == key) {
    fault[2] = a;
    fault[3] = n | (u64)kind << 32 | (u64)why << 40 | (u64)slot << 48;
    fault[4] = (u64)c0; fault[5] = (u64)c1; fault[6] = (u64)c2;
  }
  __atomic_store_n(&fault[1], 0ULL, __ATOMIC_RELEASE);
}

// A write_image outside the image (engine/clower/images.h): why 64, the image's handle
// and the coordinates.
#define SG_IMG_WRITE_FAULT(fault, id, h, c0, c1, c2) sg_fault(fault, id, h, 0, 1, 64, 0, c0, c1, c2)

// Per work-group state the memory checks need (set by the kernel function per group).
struct SgGroup {
  const SgCtx *c;
  char *local;            // this work-group's local memory
  char *priv, *priv_end;  // this thread's private arena (all lanes)
  u64 gid[3], lsz[3];     // work-group id and actual size
  const u32 *lid[3];      // per lane: local id in each dimension
  const u32 *wof;         // per lane: its work-group among those run together (gid[0] + wof)
};

SG_FN u64 sg_linear_gid(const SgGroup &g, u32 l) {
  const SgCtx *c = g.c;
  u64 x = (g.gid[0] + g.wof[l]) * c->enq[0] + g.lid[0][l];
  u64 y = g.gid[1] * c->enq[1] + g.lid[1][l];
  u64 z = g.gid[2] * c->enq[2] + g.lid[2][l];
  return x + y * c->gsize[0] + z * c->gsize[0] * c->gsize[1];
}

// One printf call's record: [global linear id, call site, format, argument leaves…] at a
// position an atomic hands out (a lane's records keep its program order; clower/printf.py).
static __attribute__((noinline)) void sg_printf(const SgGroup &g, u32 l, u32 site, u32 n,
                                                const u64 *v) {
  u64 *pf = g.c->pf;
  if (!pf) return;
  u64 words = 2 + n, pos = __atomic_fetch_add(pf, words, __ATOMIC_RELAXED);
  if (pos + words > pf[1]) return;
  u64 *rec = pf + 2 + pos;
  rec[0] = sg_linear_gid(g, l);
  rec[1] = site;
  for (u32 k = 0; k < n; k++) rec[2 + k] = v[k];
}

// Whether [a, a + n) lies inside one of the objects [off, off + size) of `obj`.
SG_FN bool sg_in_object(u64 a, u32 n, const u64 *obj, u32 count) {
  for (u32 i = 0; i < count; i++)
    if (a - obj[2 * i] < obj[2 * i + 1] && n <= obj[2 * i + 1] - (a - obj[2 * i])) return true;
  return false;
}
// An access of n bytes at p through a global (space 0), local (1), generic (2) or private
// (3) pointer by lane l: whether it may go ahead (recording the fault otherwise). Local and
// private memory are checked per object: each local variable and local argument of the
// work-group, each private variable of the work-item (engine/cpu/arenas.py).
SG_FN bool sg_ok_at(const SgGroup &g, u32 l, const void *p, u32 n, u32 al, u32 kind, int space) {
  u64 a = (u64)p;
  u32 why = 3, sh = 0;
  u64 lo_local = (u64)g.local, lo_priv = (u64)g.priv;
  if (space == 2) {
    space = a - lo_local < g.c->local_bytes ? 1 : a - lo_priv < (u64)(g.priv_end - g.priv) ? 3 : 0;
  } else if (space == 3 && a - lo_priv >= (u64)(g.priv_end - g.priv)) {
    space = 0;  // a struct passed by value: a read-only copy among the regions
  }
  if (space == 1) {
    a -= lo_local;
    sh = 4;
    why = sg_in_object(a, n, g.c->lobj, g.c->nlobj) ? 0 : 3;
  } else if (space == 3) {
    a -= lo_priv + (u64)l * g.c->pslot;
    sh = 32;
    why = sg_in_object(a, n, g.c->pobj, g.c->npobj) ? 0 : 3;
  } else {
    u64 off = a;  // alignment counts from the allocation's start, as on the NumPy engine
    for (u32 i = 0; i < g.c->nrng; i++) {
      u64 lo = g.c->rng[2 * i], sz = g.c->rng[2 * i + 1];
      if (a >= lo && a - lo + n <= (sz & 0x7fffffffffffffffULL)) {
        why = kind != 0 && (sz >> 63) ? 2 : 0;
        off = a - lo;
        break;
      }
    }
    if (why == 0 && al > 1 && (off & (al - 1))) why = 1;
  }
  if (space != 0 && why == 0 && al > 1 && (a & (al - 1))) why = 1;
  if (why == 0) return true;
  sg_fault(g.c->fault, sg_linear_gid(g, l), a, n, kind, why | sh);
  return false;
}
#define sg_ok(ctx, p, n, al, kind, space) sg_ok_at(sg_g, l, p, n, al, kind, space)

// ---- checks against a pointer's known object (engine/native/checks.py) -------------------
// Whether n bytes at p lie in [lo, lo + sz), aligned to al counting from ab (the tests of sz
// alone are the same for every lane: clang takes them out of the lane loop).
#define SG_IN(p, n, al, lo, sz, ab)                                                    \
  ((sz) >= (u64)(n) && (u64)(p) - (lo) <= (sz) - (u64)(n) && (((u64)(p) - (ab)) & ((al) - 1u)) == 0)
// The part of x below (above) zero, the least (greatest) of a and b (lanes.py, _corners)
#define SG_MIN0(x) ((x) < 0 ? (x) : 0)
#define SG_MAX0(x) ((x) > 0 ? (x) : 0)
#define SG_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SG_MAX(a, b) ((a) > (b) ? (a) : (b))
// An access's check `ok` at site `site`, through a pointer into the object at lo: notes the
// lane's first faulting site and the address's offset from lo, in 32 bits (vectors of 32-bit
// lanes are twice as wide; an offset beyond 2 GiB either way is noted modulo 4 GiB).
#define SG_CK(site, ok, p, lo) __extension__({ bool k_ = (ok); bool f_ = !k_ && !sg_fs;  \
  sg_fs = f_ ? (site) : sg_fs; sg_fp = f_ ? (u32)(u64)(p) - (u32)(lo) : sg_fp; k_; })
// Records lane l's faulting access of n bytes at a through a pointer into object obj
// ([start, size, read-only], slot s of sg_rt, noted as s + 1: the access's own object, which
// an address past its end may share with the next object; local: an object of local
// memory); false.
static __attribute__((noinline, cold)) bool sg_miss(const SgGroup &g, u32 l, u64 a, u32 n,
                                                    u32 kind, const u64 *rt, u32 s, u32 local) {
  const u64 *obj = rt + 3 * s;
  u64 off = a - obj[0];
  u32 why = !(off < obj[1] && n <= obj[1] - off) ? 3 : (kind && obj[2]) ? 2 : 1;
  if (local) a -= (u64)g.local;
  sg_fault(g.c->fault, sg_linear_gid(g, l), a, n, kind, why | (local ? 4 : 0), s + 1);
  return false;
}
// The fault records of the lanes that noted one (the reason found again from the site).
static __attribute__((noinline)) void sg_flush(const SgGroup &g, u32 vol, u32 *fsl, u32 *fpl,
                                               const u32 (*sites)[5], const u64 *rt) {
  for (u32 l = 0; l < vol; l++) {
    u32 s = fsl[l];
    if (!s) continue;
    fsl[l] = 0;
    const u32 *e = sites[s - 1];
    sg_miss(g, l, rt[3 * e[3]] + (u64)(s64)(s32)fpl[l], e[0], e[2], rt, e[3], e[4]);
  }
}

// The lanes waiting at block b: the lowest and one past the highest, and whether every lane
// between waits there (engine/native/lanes.py). Not inlined: a loop of its own vectorises.
static __attribute__((noinline)) bool sg_lanes_at(const u32 *__restrict pc, u32 vol, u32 b,
                                                  u32 *first, u32 *end) {
  u32 n = 0, lo = SG_EXIT, hi = 0;
  for (u32 l = 0; l < vol; l++) {
    const bool a = pc[l] == b;
    const u32 from = a ? l : SG_EXIT, to = a ? l + 1 : 0;
    n += a; lo = from < lo ? from : lo; hi = to > hi ? to : hi;
  }
  *first = lo; *end = hi;
  return n == hi - lo;
}

// The lanes waiting at block b when n of them do (engine/native/schedule.py): the first
// such lane and its run of consecutive lanes, 16 lanes at a time (a compare and a mask);
// true, with the run, when the run holds all n (else sg_lanes_at finds them). A run of s
// lanes from lane 0 costs s / 16 steps instead of a pass over the work-group.
SG_FN u32 sg_at16(const u32 *__restrict pc, u32 c, u32 vol, u32 b) {
  u32 m = 0;
  for (u32 i = 0; i < 16; i++) m |= (u32)(c + i < vol && pc[c + i] == b) << i;
  return m;
}
static __attribute__((noinline)) bool sg_lanes_from(const u32 *__restrict pc, u32 vol, u32 b,
                                                    u32 n, u32 at, u32 *first, u32 *end) {
  if (at != SG_EXIT) {  // the branch knew them: lanes at, …, at + n - 1 (prefix.py)
    *first = at; *end = at + n;
    return true;
  }
  u32 c = 0, m = 0;
  while (c < vol && !(m = sg_at16(pc, c, vol, b))) c += 16;
  if (!m) return false;
  const u32 f = c + (u32)__builtin_ctz(m);
  const u32 gap = ~m & (0xffffu << (f - c)) & 0xffffu;  // the first lane after f not at b
  u32 e = gap ? c + (u32)__builtin_ctz(gap) : c + 16;
  if (!gap)
    for (c += 16; c < vol; c += 16) {
      const u32 k = sg_at16(pc, c, vol, b);
      e = k == 0xffffu ? c + 16 : c + (u32)__builtin_ctz(~k);
      if (k != 0xffffu) break;
    }
  e = e < vol ? e : vol;
  if (e - f != n) return false;
  *first = f; *end = e;
  return true;
}

// ---- address spaces of generic pointers (OpGenericCastToPtrExplicit & co.) -------------
#define __isShared(p) ((u64)(p) - (u64)sg_g.local < sg_g.c->local_bytes)
#define __isLocal(p) ((char *)(p) >= sg_g.priv && (char *)(p) < sg_g.priv_end)
#define __isGlobal(p) (!__isShared(p) && !__isLocal(p))

// ---- CUDA's vector types (whole-vector loads and stores of the shared lowering) ---------
#define SG_VEC2(N, T) struct N { T x, y; }; SG_FN N make_##N(T x, T y) { N v = {x, y}; return v; }
#define SG_VEC4(N, T) struct N { T x, y, z, w; }; \
  SG_FN N make_##N(T x, T y, T z, T w) { N v = {x, y, z, w}; return v; }
SG_VEC2(float2, float) SG_VEC4(float4, float) SG_VEC2(double2, double) SG_VEC4(double4, double)
SG_VEC2(uint2, u32) SG_VEC4(uint4, u32) SG_VEC2(ulonglong2, u64)

// ---- half (binary16) -------------------------------------------------------------------
SG_FN float h2f(hbits h) { _Float16 f; memcpy(&f, &h, 2); return (float)f; }
SG_FN hbits f2h(float x) { _Float16 f = (_Float16)x; hbits h; memcpy(&h, &f, 2); return h; }
SG_FN hbits d2h(double x) { _Float16 f = (_Float16)x; hbits h; memcpy(&h, &f, 2); return h; }
SG_FN double h2d(hbits h) { return (double)h2f(h); }
SG_FN hbits sg_to_half(double x, int mode) {
  hbits h = d2h(x);
  if (mode == 0 || x != x || isinf(x)) return h;
  double back = h2d(h);
  bool neg = (h & 0x8000) != 0, zero = (h & 0x7fff) == 0;
  if (mode == 1) return fabs(back) > fabs(x) ? (hbits)(h - 1) : h;
  if (mode == 2) return back < x ? (hbits)(zero ? 0x0001 : neg ? h - 1 : h + 1) : h;
  return back > x ? (hbits)(zero ? 0x8001 : neg ? h + 1 : h - 1) : h;
}

// ---- bit casts -------------------------------------------------------------------------
template <class T> SG_FN u64 sg_bits(T v) { u64 b = 0; memcpy(&b, &v, sizeof(T)); return b; }
template <class T> SG_FN T sg_from_bits(u64 b) { T v; memcpy(&v, &b, sizeof(T)); return v; }
SG_FN float __int_as_float(u32 b) { float f; memcpy(&f, &b, 4); return f; }
SG_FN double __longlong_as_double(u64 b) { double d; memcpy(&d, &b, 8); return d; }
template <class T> SG_FN T sg_unaligned(const char *p) { T v; memcpy(&v, p, sizeof(T)); return v; }

// ---- integer rules (docs/engine.md, "Choices where the specifications say undefined") ----
template <class U, class S> SG_FN U sg_sdiv(U a, U b) {
  S x = (S)a, y = (S)b;
  if (y == 0) return 0;
  if (y == (S)-1) return (U)(0 - a);
  return (U)(x / y);
}
template <class U, class S> SG_FN U sg_srem(U a, U b) {
  S x = (S)a, y = (S)b;
  if (y == 0 || y == (S)-1) return 0;
  return (U)(x % y);
}
template <class U, class S> SG_FN U sg_smod(U a, U b) {
  S x = (S)a, y = (S)b;
  if (y == 0 || y == (S)-1) return 0;
  S r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return (U)r;
}
template <class U> SG_FN U sg_udiv(U a, U b) { return b ? (U)(a / b) : (U)0; }
template <class U> SG_FN U sg_umod(U a, U b) { return b ? (U)(a % b) : (U)0; }
template <class T> SG_FN T sg_f2i(double x, double lo, double hi) {
  if (x != x) return 0;
  if (x <= lo) return (T)lo;
  if (x >= hi) return (T)hi;
  return (T)x;
}
SG_FN s64 sg_clamp64(s64 v, s64 lo, s64 hi) { return v < lo ? lo : v > hi ? hi : v; }
SG_FN u64 sg_umin64(u64 a, u64 b) { return a < b ? a : b; }
SG_FN s64 sg_f2s64(double x) {
  if (x != x) return 0;
  if (x <= -9223372036854775808.0) return (s64)0x8000000000000000ULL;
  if (x >= 9223372036854775808.0) return 0x7fffffffffffffffLL;
  return (s64)x;
}
SG_FN u64 sg_f2u64(double x) {
  if (x != x || x <= 0.0) return 0;
  if (x >= 18446744073709551616.0) return 0xffffffffffffffffULL;
  return (u64)x;
}
SG_FN u64 __brevll(u64 x) { return __builtin_bitreverse64(x); }
SG_FN u64 __umul64hi(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }
SG_FN s64 __mul64hi(s64 a, s64 b) { return (s64)(((__int128)a * b) >> 64); }
template <class U> SG_FN U sg_clz(U x, int w) {
  if (x == 0) return (U)w;
  return (U)(__builtin_clzll((u64)x) - (64 - w));
}
template <class U> SG_FN U sg_ctz(U x, int w) {
  if (x == 0) return (U)w;
  return (U)__builtin_ctzll((u64)x);
}
template <class U> SG_FN U sg_popcount(U x, int w) { return (U)__builtin_popcountll((u64)x); }
template <class U> SG_FN U sg_rotate(U x, U n, int w) {
  u32 s = (u32)(n % (U)w);
  if (s == 0) return x;
  return (U)((x << s) | (x >> (w - s)));
}
SG_FN u64 sg_add_sat_s64(u64 a, u64 b) {
  u64 s = a + b;
  if ((s64)(~(a ^ b) & (a ^ s)) >= 0) return s;
  return (s64)a < 0 ? 0x8000000000000000ULL : 0x7fffffffffffffffULL;
}
SG_FN u64 sg_sub_sat_s64(u64 a, u64 b) {
  u64 s = a - b;
  if ((s64)((a ^ b) & (a ^ s)) >= 0) return s;
  return (s64)a < 0 ? 0x8000000000000000ULL : 0x7fffffffffffffffULL;
}
SG_FN u64 sg_mad_sat_u64(u64 a, u64 b, u64 c) {
  u64 lo = a * b, s = lo + c;
  return (__umul64hi(a, b) != 0 || s < lo) ? 0xffffffffffffffffULL : s;
}
SG_FN u64 sg_mad_sat_s64(u64 a, u64 b, u64 c) {
  u64 lo = a * b, s = lo + c;
  s64 hi = __mul64hi((s64)a, (s64)b) + ((s64)c < 0 ? -1 : 0) + (s < lo ? 1 : 0);
  if (hi == ((s64)s >> 63)) return s;
  return hi < 0 ? 0x8000000000000000ULL : 0x7fffffffffffffffULL;
}

// ---- conversions with an explicit rounding mode (CUDA's names) ---------------------------
// Round to nearest even, then one step toward the exact value where that went the wrong way;
// long double holds every 64-bit integer and every double exactly.
SG_FN float nextafter(float a, float b) { return nextafterf(a, b); }
template <class F, class X> SG_FN F sg_round_to(X x, int mode) {
  F f = (F)x;
  long double e = (long double)x, b = (long double)f;
  if (mode == 1 && fabsl(b) > fabsl(e)) return nextafter(f, (F)0);
  if (mode == 2 && b < e) return nextafter(f, (F)INFINITY);
  if (mode == 3 && b > e) return nextafter(f, -(F)INFINITY);
  return f;
}
#define SG_ROUNDED(SRC, DST, T, F)                                                 \
  SG_FN F __##SRC##2##DST##_rn(T x) { return sg_round_to<F, T>(x, 0); }            \
  SG_FN F __##SRC##2##DST##_rz(T x) { return sg_round_to<F, T>(x, 1); }            \
  SG_FN F __##SRC##2##DST##_ru(T x) { return sg_round_to<F, T>(x, 2); }            \
  SG_FN F __##SRC##2##DST##_rd(T x) { return sg_round_to<F, T>(x, 3); }
SG_ROUNDED(int, float, int, float)
SG_ROUNDED(uint, float, unsigned, float)
SG_ROUNDED(ll, float, long long, float)
SG_ROUNDED(ull, float, unsigned long long, float)
SG_ROUNDED(ll, double, long long, double)
SG_ROUNDED(ull, double, unsigned long long, double)
SG_ROUNDED(double, float, double, float)
SG_FN double __dadd_rn(double a, double b) { return a + b; }
SG_FN double __dmul_rn(double a, double b) { return a * b; }

// ---- float helpers -------------------------------------------------------------------
SG_FN float sg_fmod_sign(float a, float b) {
  float r = fmodf(a, b);
  return (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) ? r + b : r;
}
SG_FN double sg_fmod_sign(double a, double b) {
  double r = fmod(a, b);
  return (r != 0.0 && ((r < 0.0) != (b < 0.0))) ? r + b : r;
}
SG_FN bool sg_isnormal(float x) {
  float a = fabsf(x); return a >= 1.17549435e-38f && a <= 3.40282347e38f;
}
SG_FN bool sg_isnormal(double x) {
  double a = fabs(x); return a >= 2.2250738585072014e-308 && a <= 1.7976931348623157e308;
}
template <class T> SG_FN T sg_maxmag(T x, T y) {
  T ax = fabs(x), ay = fabs(y);
  return ax > ay ? x : ay > ax ? y : fmax(x, y);
}
template <class T> SG_FN T sg_minmag(T x, T y) {
  T ax = fabs(x), ay = fabs(y);
  return ax < ay ? x : ay < ax ? y : fmin(x, y);
}
template <class T> SG_FN T sg_sign(T x) {
  return x > (T)0 ? (T)1 : x < (T)0 ? (T)-1 : x == x ? x : (T)0;
}
template <class T> SG_FN T sg_smoothstep(T e0, T e1, T x) {
  T t = fmin(fmax((x - e0) / (e1 - e0), (T)0), (T)1);
  return t * t * ((T)3 - (T)2 * t);
}
// CUDA math functions that C's library lacks.
SG_FN double rsqrt(double x) { return 1.0 / sqrt(x); }
// In float: at most 1.49 ulp (checked on every float of [1, 4), tests/engine/test_rsqrt.py;
// OpenCL C allows 2), where the double division cost the n-body step 2.5x its time.
SG_FN float rsqrtf(float x) { return 1.0f / sqrtf(x); }
SG_FN double sinpi(double x) { return sin(M_PI * x); }
SG_FN float sinpif(float x) { return (float)sin(M_PI * (double)x); }
SG_FN double cospi(double x) { return cos(M_PI * x); }
SG_FN float cospif(float x) { return (float)cos(M_PI * (double)x); }

// ---- atomics (a work-group's lanes run in order; work-groups run on several threads) ----
#define SG_AT __ATOMIC_SEQ_CST
template <class T> SG_FN T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, SG_AT); }
template <class T> SG_FN T atomicSub(T *p, T v) { return __atomic_fetch_sub(p, v, SG_AT); }
template <class T> SG_FN T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, SG_AT); }
template <class T> SG_FN T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, SG_AT); }
template <class T> SG_FN T atomicXor(T *p, T v) { return __atomic_fetch_xor(p, v, SG_AT); }
template <class T> SG_FN T atomicMin(T *p, T v) { return __atomic_fetch_min(p, v, SG_AT); }
template <class T> SG_FN T atomicMax(T *p, T v) { return __atomic_fetch_max(p, v, SG_AT); }
template <class T> SG_FN T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, SG_AT); }
template <class T> SG_FN T atomicCAS(T *p, T cmp, T v) {
  __atomic_compare_exchange_n(p, &cmp, v, false, SG_AT, SG_AT);
  return cmp;
}
template <class F, class B> SG_FN F sg_atomic_fadd(F *p, F v) {
  B old = __atomic_load_n((B *)p, SG_AT), nw;
  do {
    F f; memcpy(&f, &old, sizeof(F));
    f = f + v;
    memcpy(&nw, &f, sizeof(F));
  } while (!__atomic_compare_exchange_n((B *)p, &old, nw, true, SG_AT, SG_AT));
  F f; memcpy(&f, &old, sizeof(F));
  return f;
}
SG_FN float atomicAdd(float *p, float v) { return sg_atomic_fadd<float, u32>(p, v); }
SG_FN double atomicAdd(double *p, double v) { return sg_atomic_fadd<double, u64>(p, v); }
SG_FN float atomicExch(float *p, float v) {
  return sg_from_bits<float>(__atomic_exchange_n((u32 *)p, (u32)sg_bits(v), SG_AT));
}

// ---- collectives: identities and operators (sgvm.semantics.collectives) -----------------
// Floats fold in increasing lane order, each step rounded to the type; min/max are fmin/fmax.
SG_FN float sg_fadd(float a, float b) { return a + b; }
SG_FN double sg_fadd(double a, double b) { return a + b; }
SG_FN hbits sg_hadd(hbits a, hbits b) { return f2h(h2f(a) + h2f(b)); }
SG_FN hbits sg_hmin(hbits a, hbits b) { return f2h(fminf(h2f(a), h2f(b))); }
SG_FN hbits sg_hmax(hbits a, hbits b) { return f2h(fmaxf(h2f(a), h2f(b))); }
