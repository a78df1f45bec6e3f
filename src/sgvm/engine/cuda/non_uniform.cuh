
// ---- cl_khr_subgroup_* (SPIR-V OpGroupNonUniform*, OpGroupNonUniformRotateKHR) ------------
// `m` is the membership (render_sched.py): the lanes that reached the instruction together.
// A ballot is a uint4 whose bits >= SG_SIZE (<= 32) are 0, so only component 0 carries lanes.
__device__ __forceinline__ u32 sg_segbits() { return SG_SIZE == 32 ? 0xffffffffu : ((1u << SG_SIZE) - 1u); }
__device__ __forceinline__ u32 sg_first_lane(u32 m) { return __ffs(m >> sg_base()) - 1; }
__device__ __forceinline__ bool sg_elect(u32 m) { return sg_lane() == sg_first_lane(m); }
template <class T> __device__ __forceinline__ T sg_broadcast_first(u32 m, T v) {
  return sg_shfl(m, v, sg_first_lane(m));
}
// all_equal compares values (ordered equality for floats: a NaN equals nothing).
template <class T> __device__ __forceinline__ bool sg_all_equal(u32 m, T v) {
  return __all_sync(m, v == sg_broadcast_first(m, v));
}
__device__ __forceinline__ u32 sg_ballot(u32 m, bool p) { return (__ballot_sync(m, p) >> sg_base()) & sg_segbits(); }
__device__ __forceinline__ bool sg_bit_extract(u32 b0, u32 b1, u32 b2, u32 b3, u32 i) {
  u32 w = i < 32 ? b0 : i < 64 ? b1 : i < 96 ? b2 : i < 128 ? b3 : 0;
  return (w >> (i & 31)) & 1;
}
// op: 0 count, 1 inclusive scan, 2 exclusive scan (only bits below the max size count)
__device__ __forceinline__ u32 sg_bit_count(u32 b0, int op) {
  u32 lane = sg_lane();
  u32 keep = op == 0 ? sg_segbits() : op == 1 ? (lane == 31 ? 0xffffffffu : (2u << lane) - 1u)
                                               : (1u << lane) - 1u;
  return __popc(b0 & keep);
}
// find_lsb / find_msb of no set bit are undefined: 0, as the CPU engine.
__device__ __forceinline__ u32 sg_find_lsb(u32 b0) { u32 b = b0 & sg_segbits(); return b ? __ffs(b) - 1 : 0; }
__device__ __forceinline__ u32 sg_find_msb(u32 b0) { u32 b = b0 & sg_segbits(); return b ? 31 - __clz(b) : 0; }
// get_sub_group_{eq,ge,gt,le,lt}_mask, component 0 (kind: 0 eq, 1 ge, 2 gt, 3 le, 4 lt)
__device__ __forceinline__ u32 sg_lane_mask(int kind) {
  u32 l = sg_lane(), le = l == 31 ? 0xffffffffu : (2u << l) - 1u, lt = (1u << l) - 1u;
  return kind == 0 ? 1u << l : kind == 1 ? sg_segbits() & ~lt : kind == 2 ? sg_segbits() & ~le
                   : kind == 3 ? le : lt;
}
// khr shuffles read lane `idx` of this sub-group; out of range past its (actual) size: 0.
// idx is 64-bit so that lane + delta does not wrap (as semantics.khr_shuffles).
template <class T> __device__ __forceinline__ T sg_kshuffle(u32 m, T v, u64 idx) {
  T r = sg_shfl(m, v, (u32)idx & (SG_SIZE - 1));
  return idx < sg_size() ? r : (T)0;
}
template <class T> __device__ __forceinline__ T sg_kshuffle_up(u32 m, T v, u32 d) {
  u32 l = sg_lane();
  T r = sg_shfl(m, v, (l - d) & (SG_SIZE - 1));
  return d <= l ? r : (T)0;
}
// rotate within clusters of c lanes (c a power of two up to SG_SIZE)
template <class T> __device__ __forceinline__ T sg_krotate(u32 m, T v, u32 d, u32 c) {
  u32 l = sg_lane();
  return sg_shfl(m, v, ((l + d) & (c - 1)) + (l & ~(c - 1)));
}
// clustered reduce: the active lanes of this lane's cluster folded in lane order
template <class OP, class T> __device__ __forceinline__ T sg_clustered(u32 m, T v, u32 c) {
  u32 rel = m >> sg_base(), start = sg_lane() & ~(c - 1);
  u32 mine = rel & ((c >= 32 ? 0xffffffffu : ((1u << c) - 1u)) << start);
  T acc = OP::identity();
  bool any = false;
  for (u32 r = rel; r; r &= r - 1) {
    u32 j = __ffs(r) - 1;
    T y = sg_shfl(m, v, j);
    if ((mine >> j) & 1) { acc = any ? OP::apply(acc, y) : y; any = true; }
  }
  return acc;
}
template <class T> struct OpMul {
  static __device__ __forceinline__ T apply(T a, T b) { return (T)(a * b); }
  static __device__ __forceinline__ T identity() { return (T)1; } };
template <class T> struct OpAnd {
  static __device__ __forceinline__ T apply(T a, T b) { return (T)(a & b); }
  static __device__ __forceinline__ T identity() { return (T)~(T)0; } };
template <class T> struct OpOr {
  static __device__ __forceinline__ T apply(T a, T b) { return (T)(a | b); }
  static __device__ __forceinline__ T identity() { return (T)0; } };
template <class T> struct OpXor {
  static __device__ __forceinline__ T apply(T a, T b) { return (T)(a ^ b); }
  static __device__ __forceinline__ T identity() { return (T)0; } };
struct OpLAnd { static __device__ __forceinline__ bool apply(bool a, bool b) { return a && b; }
                static __device__ __forceinline__ bool identity() { return true; } };
struct OpLOr { static __device__ __forceinline__ bool apply(bool a, bool b) { return a || b; }
               static __device__ __forceinline__ bool identity() { return false; } };
struct OpLXor { static __device__ __forceinline__ bool apply(bool a, bool b) { return a != b; }
                static __device__ __forceinline__ bool identity() { return false; } };
struct OpFMulF { static __device__ __forceinline__ float apply(float a, float b) { return __fmul_rn(a, b); }
                 static __device__ __forceinline__ float identity() { return 1.0f; } };
struct OpFMulD { static __device__ __forceinline__ double apply(double a, double b) { return __dmul_rn(a, b); }
                 static __device__ __forceinline__ double identity() { return 1.0; } };
struct OpFMulH { static __device__ __forceinline__ hbits apply(hbits a, hbits b) { return f2h(h2f(a) * h2f(b)); }
                 static __device__ __forceinline__ hbits identity() { return 0x3c00; } };
template <> struct SgInLaneOrder<OpFMulF> { static constexpr bool value = true; };
template <> struct SgInLaneOrder<OpFMulD> { static constexpr bool value = true; };
template <> struct SgInLaneOrder<OpFMulH> { static constexpr bool value = true; };
