// sgvm native backend: the cl_khr_subgroup_ballot helpers (engine/native/non_uniform.py).
// A ballot is a uint4, passed as its components b0..b3: bit i of component i / 32 is
// sub-group local id i (sgvm.semantics.ballot), for any sub-group size up to 128.

// The loops over one sub-group's lanes (at most 128, usually 8 to 32) stay scalar: vectorised
// and unrolled they cost more compile time than they save.
#define SG_SCALAR _Pragma("clang loop vectorize(disable) interleave(disable) unroll(disable)")

// Component c of the 128-bit field whose bits below n are set.
SG_FN u32 sg_below(u64 n, u32 c) {
  u64 lo = 32ULL * c;
  return n >= lo + 32 ? 0xffffffffu : n <= lo ? 0u : (1u << (u32)(n - lo)) - 1u;
}
// Bit i of the field (0 for i >= 128).
SG_FN bool sg_bit_extract(u32 b0, u32 b1, u32 b2, u32 b3, u32 i) {
  u32 w = i < 32 ? b0 : i < 64 ? b1 : i < 96 ? b2 : i < 128 ? b3 : 0;
  return (w >> (i & 31)) & 1;
}
// Set bits of the field below n (a count: n the maximum size; a scan: n the lane's id (+1)).
SG_FN u32 sg_bit_count(u32 b0, u32 b1, u32 b2, u32 b3, u64 n) {
  return __builtin_popcount(b0 & sg_below(n, 0)) + __builtin_popcount(b1 & sg_below(n, 1))
       + __builtin_popcount(b2 & sg_below(n, 2)) + __builtin_popcount(b3 & sg_below(n, 3));
}
// The lowest / highest set bit below n; 0 when none is (undefined: the NumPy engine's 0).
SG_FN u32 sg_find_lsb(u32 b0, u32 b1, u32 b2, u32 b3, u64 n) {
  u32 v[4] = {b0 & sg_below(n, 0), b1 & sg_below(n, 1), b2 & sg_below(n, 2), b3 & sg_below(n, 3)};
  for (u32 c = 0; c < 4; c++) if (v[c]) return 32 * c + (u32)__builtin_ctz(v[c]);
  return 0;
}
SG_FN u32 sg_find_msb(u32 b0, u32 b1, u32 b2, u32 b3, u64 n) {
  u32 v[4] = {b0 & sg_below(n, 0), b1 & sg_below(n, 1), b2 & sg_below(n, 2), b3 & sg_below(n, 3)};
  for (int c = 3; c >= 0; c--) if (v[c]) return 32 * (u32)c + 31 - (u32)__builtin_clz(v[c]);
  return 0;
}
