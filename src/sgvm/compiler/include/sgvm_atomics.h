/* sgvm_atomics.h - atomic functions re-expressed through __spirv_Atomic*.
 *
 * clang 22's SPIR-V backend leaves atomic_xchg/inc/dec/min/max (and the atom_*
 * names) undefined, gives the legacy atomics and the C11 functions without a
 * scope argument Workgroup scope instead of Device, ignores the order and
 * scope of atomic_load_explicit/atomic_store_explicit, and leaves
 * atomic_fetch_min/max on generic pointers undefined. Every atomic read-
 * modify-write therefore goes through these wrappers:
 *   legacy (OpenCL C 2.0 s6.13.11.x, cl_khr_*_atomics): Device scope, Relaxed;
 *   C11 (s6.13.11.7): memory_scope_device / memory_order_seq_cst by default.
 */
#ifndef SGVM_ATOMICS_H
#define SGVM_ATOMICS_H

#define __SGVM_SPIRV_RMW(T, AS)                                                          \
  T __SGVM_OV __spirv_AtomicLoad(volatile AS T *p, uint scope, uint sem);               \
  void __SGVM_OV __spirv_AtomicStore(volatile AS T *p, uint scope, uint sem, T v);      \
  T __SGVM_OV __spirv_AtomicExchange(volatile AS T *p, uint scope, uint sem, T v);
#define __SGVM_SPIRV_INT(T, AS)                                                          \
  __SGVM_SPIRV_RMW(T, AS)                                                                \
  T __SGVM_OV __spirv_AtomicCompareExchange(volatile AS T *p, uint scope, uint eq, uint neq, T v, T cmp); \
  T __SGVM_OV __spirv_AtomicIAdd(volatile AS T *p, uint scope, uint sem, T v);          \
  T __SGVM_OV __spirv_AtomicISub(volatile AS T *p, uint scope, uint sem, T v);          \
  T __SGVM_OV __spirv_AtomicAnd(volatile AS T *p, uint scope, uint sem, T v);           \
  T __SGVM_OV __spirv_AtomicOr(volatile AS T *p, uint scope, uint sem, T v);            \
  T __SGVM_OV __spirv_AtomicXor(volatile AS T *p, uint scope, uint sem, T v);           \
  T __SGVM_OV __spirv_AtomicSMin(volatile AS T *p, uint scope, uint sem, T v);          \
  T __SGVM_OV __spirv_AtomicUMin(volatile AS T *p, uint scope, uint sem, T v);          \
  T __SGVM_OV __spirv_AtomicSMax(volatile AS T *p, uint scope, uint sem, T v);          \
  T __SGVM_OV __spirv_AtomicUMax(volatile AS T *p, uint scope, uint sem, T v);
#define __SGVM_SPIRV_ALL(AS)                                                             \
  __SGVM_SPIRV_INT(int, AS) __SGVM_SPIRV_INT(uint, AS) __SGVM_SPIRV_INT(long, AS)        \
  __SGVM_SPIRV_INT(ulong, AS) __SGVM_SPIRV_RMW(float, AS) __SGVM_SPIRV_RMW(double, AS)
__SGVM_SPIRV_ALL(__global)
__SGVM_SPIRV_ALL(__local)
#if __OPENCL_C_VERSION__ >= CL_VERSION_2_0
__SGVM_SPIRV_ALL(__generic)
#endif

/* --- Legacy atomics: atomic_<op> and atom_<op>, __global and __local. --- */
#define __SGVM_LEGACY(P, T, AS, S)                                                       \
  __SGVM_INLINE T __sgvm_##P##_add(volatile AS T *p, T v) { return __spirv_AtomicIAdd(p, __SGVM_SCOPE_DEVICE, 0u, v); } \
  __SGVM_INLINE T __sgvm_##P##_sub(volatile AS T *p, T v) { return __spirv_AtomicISub(p, __SGVM_SCOPE_DEVICE, 0u, v); } \
  __SGVM_INLINE T __sgvm_##P##_xchg(volatile AS T *p, T v) { return __spirv_AtomicExchange(p, __SGVM_SCOPE_DEVICE, 0u, v); } \
  __SGVM_INLINE T __sgvm_##P##_inc(volatile AS T *p) { return __spirv_AtomicIAdd(p, __SGVM_SCOPE_DEVICE, 0u, (T)1); } \
  __SGVM_INLINE T __sgvm_##P##_dec(volatile AS T *p) { return __spirv_AtomicISub(p, __SGVM_SCOPE_DEVICE, 0u, (T)1); } \
  __SGVM_INLINE T __sgvm_##P##_cmpxchg(volatile AS T *p, T cmp, T v) {                  \
    return __spirv_AtomicCompareExchange(p, __SGVM_SCOPE_DEVICE, 0u, 0u, v, cmp);       \
  }                                                                                      \
  __SGVM_INLINE T __sgvm_##P##_min(volatile AS T *p, T v) { return __spirv_Atomic##S##Min(p, __SGVM_SCOPE_DEVICE, 0u, v); } \
  __SGVM_INLINE T __sgvm_##P##_max(volatile AS T *p, T v) { return __spirv_Atomic##S##Max(p, __SGVM_SCOPE_DEVICE, 0u, v); } \
  __SGVM_INLINE T __sgvm_##P##_and(volatile AS T *p, T v) { return __spirv_AtomicAnd(p, __SGVM_SCOPE_DEVICE, 0u, v); } \
  __SGVM_INLINE T __sgvm_##P##_or(volatile AS T *p, T v) { return __spirv_AtomicOr(p, __SGVM_SCOPE_DEVICE, 0u, v); } \
  __SGVM_INLINE T __sgvm_##P##_xor(volatile AS T *p, T v) { return __spirv_AtomicXor(p, __SGVM_SCOPE_DEVICE, 0u, v); }
#define __SGVM_LEGACY_AS(AS)                                                             \
  __SGVM_LEGACY(atomic, int, AS, S) __SGVM_LEGACY(atomic, uint, AS, U)                   \
  __SGVM_LEGACY(atom, int, AS, S) __SGVM_LEGACY(atom, uint, AS, U)                       \
  __SGVM_LEGACY(atom, long, AS, S) __SGVM_LEGACY(atom, ulong, AS, U)                     \
  __SGVM_INLINE float __sgvm_atomic_xchg(volatile AS float *p, float v) {               \
    return __spirv_AtomicExchange(p, __SGVM_SCOPE_DEVICE, 0u, v);                       \
  }
__SGVM_LEGACY_AS(__global)
__SGVM_LEGACY_AS(__local)

#define atomic_add(...) __sgvm_atomic_add(__VA_ARGS__)
#define atomic_sub(...) __sgvm_atomic_sub(__VA_ARGS__)
#define atomic_xchg(...) __sgvm_atomic_xchg(__VA_ARGS__)
#define atomic_inc(...) __sgvm_atomic_inc(__VA_ARGS__)
#define atomic_dec(...) __sgvm_atomic_dec(__VA_ARGS__)
#define atomic_cmpxchg(...) __sgvm_atomic_cmpxchg(__VA_ARGS__)
#define atomic_min(...) __sgvm_atomic_min(__VA_ARGS__)
#define atomic_max(...) __sgvm_atomic_max(__VA_ARGS__)
#define atomic_and(...) __sgvm_atomic_and(__VA_ARGS__)
#define atomic_or(...) __sgvm_atomic_or(__VA_ARGS__)
#define atomic_xor(...) __sgvm_atomic_xor(__VA_ARGS__)
#define atom_add(...) __sgvm_atom_add(__VA_ARGS__)
#define atom_sub(...) __sgvm_atom_sub(__VA_ARGS__)
#define atom_xchg(...) __sgvm_atom_xchg(__VA_ARGS__)
#define atom_inc(...) __sgvm_atom_inc(__VA_ARGS__)
#define atom_dec(...) __sgvm_atom_dec(__VA_ARGS__)
#define atom_cmpxchg(...) __sgvm_atom_cmpxchg(__VA_ARGS__)
#define atom_min(...) __sgvm_atom_min(__VA_ARGS__)
#define atom_max(...) __sgvm_atom_max(__VA_ARGS__)
#define atom_and(...) __sgvm_atom_and(__VA_ARGS__)
#define atom_or(...) __sgvm_atom_or(__VA_ARGS__)
#define atom_xor(...) __sgvm_atom_xor(__VA_ARGS__)

#if __OPENCL_C_VERSION__ >= CL_VERSION_2_0
/* --- C11-style atomics on generic pointers (s6.13.11.7). --- */
#define __SGVM_C11_3FORMS(NAME, R, A, ARGS, CALL_ARGS, BODY)                             \
  __SGVM_INLINE R __sgvm_##NAME##_explicit(volatile generic A *p ARGS, memory_order o, memory_scope s) BODY \
  __SGVM_INLINE R __sgvm_##NAME##_explicit(volatile generic A *p ARGS, memory_order o) {  \
    return __sgvm_##NAME##_explicit(p CALL_ARGS, o, memory_scope_device);               \
  }                                                                                      \
  __SGVM_INLINE R __sgvm_##NAME(volatile generic A *p ARGS) {                            \
    return __sgvm_##NAME##_explicit(p CALL_ARGS, memory_order_seq_cst, memory_scope_device); \
  }
#define __SGVM_COMMA ,
#define __SGVM_C11_FETCH(A, T, OP, SPV)                                                  \
  __SGVM_C11_3FORMS(atomic_fetch_##OP, T, A, __SGVM_COMMA T v, __SGVM_COMMA v,          \
                    { return __spirv_Atomic##SPV((volatile generic T *)p, __sgvm_scope(s), __sgvm_sem(o), v); })
/* Load, store, exchange and compare-exchange, for any type; B is the integer
 * type of the same size that OpAtomicCompareExchange compares. */
#define __SGVM_C11_ANY(A, T, B)                                                          \
  __SGVM_C11_3FORMS(atomic_load, T, A, , ,                                               \
                    { return __spirv_AtomicLoad((volatile generic T *)p, __sgvm_scope(s), __sgvm_sem(o)); }) \
  __SGVM_C11_3FORMS(atomic_store, void, A, __SGVM_COMMA T v, __SGVM_COMMA v,             \
                    { __spirv_AtomicStore((volatile generic T *)p, __sgvm_scope(s), __sgvm_sem(o), v); }) \
  __SGVM_C11_3FORMS(atomic_exchange, T, A, __SGVM_COMMA T v, __SGVM_COMMA v,             \
                    { return __spirv_AtomicExchange((volatile generic T *)p, __sgvm_scope(s), __sgvm_sem(o), v); }) \
  __SGVM_INLINE bool __sgvm_atomic_compare_exchange_strong_explicit(                     \
      volatile generic A *p, generic T *expected, T desired, memory_order success,       \
      memory_order failure, memory_scope s) {                                            \
    B want = __builtin_astype(*expected, B);                                             \
    B old = __spirv_AtomicCompareExchange((volatile generic B *)p, __sgvm_scope(s), __sgvm_sem(success), \
                                          __sgvm_sem(failure), __builtin_astype(desired, B), want); \
    if (old == want) return true;                                                        \
    *expected = __builtin_astype(old, T);                                                \
    return false;                                                                        \
  }                                                                                      \
  __SGVM_INLINE bool __sgvm_atomic_compare_exchange_strong_explicit(                     \
      volatile generic A *p, generic T *expected, T desired, memory_order success, memory_order failure) { \
    return __sgvm_atomic_compare_exchange_strong_explicit(p, expected, desired, success, failure, memory_scope_device); \
  }                                                                                      \
  __SGVM_INLINE bool __sgvm_atomic_compare_exchange_strong(volatile generic A *p, generic T *expected, T desired) { \
    return __sgvm_atomic_compare_exchange_strong_explicit(p, expected, desired, memory_order_seq_cst, \
                                                          memory_order_seq_cst, memory_scope_device); \
  }
#define __SGVM_C11_INT(A, T, S)                                                          \
  __SGVM_C11_ANY(A, T, T)                                                                \
  __SGVM_C11_FETCH(A, T, add, IAdd) __SGVM_C11_FETCH(A, T, sub, ISub)                    \
  __SGVM_C11_FETCH(A, T, or, Or) __SGVM_C11_FETCH(A, T, xor, Xor)                        \
  __SGVM_C11_FETCH(A, T, and, And) __SGVM_C11_FETCH(A, T, min, S##Min)                   \
  __SGVM_C11_FETCH(A, T, max, S##Max)
__SGVM_C11_INT(atomic_int, int, S)
__SGVM_C11_INT(atomic_uint, uint, U)
__SGVM_C11_INT(atomic_long, long, S)
__SGVM_C11_INT(atomic_ulong, ulong, U)
__SGVM_C11_ANY(atomic_float, float, int)
__SGVM_C11_ANY(atomic_double, double, long)

/* A weak compare-exchange may fail spuriously; the strong one is a valid implementation. */
#define atomic_compare_exchange_weak_explicit(...) __sgvm_atomic_compare_exchange_strong_explicit(__VA_ARGS__)
#define atomic_compare_exchange_weak(...) __sgvm_atomic_compare_exchange_strong(__VA_ARGS__)
#define atomic_compare_exchange_strong_explicit(...) __sgvm_atomic_compare_exchange_strong_explicit(__VA_ARGS__)
#define atomic_compare_exchange_strong(...) __sgvm_atomic_compare_exchange_strong(__VA_ARGS__)
#define atomic_load(...) __sgvm_atomic_load(__VA_ARGS__)
#define atomic_load_explicit(...) __sgvm_atomic_load_explicit(__VA_ARGS__)
#define atomic_store(...) __sgvm_atomic_store(__VA_ARGS__)
#define atomic_store_explicit(...) __sgvm_atomic_store_explicit(__VA_ARGS__)
#define atomic_exchange(...) __sgvm_atomic_exchange(__VA_ARGS__)
#define atomic_exchange_explicit(...) __sgvm_atomic_exchange_explicit(__VA_ARGS__)
#define atomic_fetch_add(...) __sgvm_atomic_fetch_add(__VA_ARGS__)
#define atomic_fetch_add_explicit(...) __sgvm_atomic_fetch_add_explicit(__VA_ARGS__)
#define atomic_fetch_sub(...) __sgvm_atomic_fetch_sub(__VA_ARGS__)
#define atomic_fetch_sub_explicit(...) __sgvm_atomic_fetch_sub_explicit(__VA_ARGS__)
#define atomic_fetch_or(...) __sgvm_atomic_fetch_or(__VA_ARGS__)
#define atomic_fetch_or_explicit(...) __sgvm_atomic_fetch_or_explicit(__VA_ARGS__)
#define atomic_fetch_xor(...) __sgvm_atomic_fetch_xor(__VA_ARGS__)
#define atomic_fetch_xor_explicit(...) __sgvm_atomic_fetch_xor_explicit(__VA_ARGS__)
#define atomic_fetch_and(...) __sgvm_atomic_fetch_and(__VA_ARGS__)
#define atomic_fetch_and_explicit(...) __sgvm_atomic_fetch_and_explicit(__VA_ARGS__)
#define atomic_fetch_min(...) __sgvm_atomic_fetch_min(__VA_ARGS__)
#define atomic_fetch_min_explicit(...) __sgvm_atomic_fetch_min_explicit(__VA_ARGS__)
#define atomic_fetch_max(...) __sgvm_atomic_fetch_max(__VA_ARGS__)
#define atomic_fetch_max_explicit(...) __sgvm_atomic_fetch_max_explicit(__VA_ARGS__)
#endif /* OpenCL C 2.0 */

#endif /* SGVM_ATOMICS_H */
