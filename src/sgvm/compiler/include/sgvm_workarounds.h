/* sgvm_workarounds.h - built-ins clang 22's SPIR-V backend leaves undefined or
 * lowers wrongly, re-expressed through the __spirv_* built-ins it does lower.
 *
 * Each OpenCL name is redirected with a function-like macro to an overload set
 * of always-inline functions (__sgvm_<name>), so every call form keeps working.
 * docs/compiler.md lists each workaround and the defect behind it.
 */
#ifndef SGVM_WORKAROUNDS_H
#define SGVM_WORKAROUNDS_H

#define __SGVM_INLINE static inline __attribute__((overloadable, always_inline))

/* SPIR-V Scope and Memory Semantics values (SPIR-V spec s3.27, s3.25). */
#define __SGVM_SCOPE_DEVICE 1u
#define __SGVM_SCOPE_WORKGROUP 2u
#define __SGVM_SCOPE_SUBGROUP 3u
#define __SGVM_SEM_ACQUIRE 0x2u
#define __SGVM_SEM_RELEASE 0x4u
#define __SGVM_SEM_ACQ_REL 0x8u
#define __SGVM_SEM_SEQ_CST 0x10u
#define __SGVM_SEM_ALL_MEMORY 0x300u /* WorkgroupMemory | CrossWorkgroupMemory */

void __spirv_ControlBarrier(uint execution, uint memory, uint semantics);
void __spirv_MemoryBarrier(uint memory, uint semantics);

/* cl_mem_fence_flags -> storage-class bits of Memory Semantics. */
__SGVM_INLINE uint __sgvm_fence_bits(cl_mem_fence_flags flags) {
  return ((flags & CLK_LOCAL_MEM_FENCE) ? 0x100u : 0u) | ((flags & CLK_GLOBAL_MEM_FENCE) ? 0x200u : 0u) |
         ((flags & CLK_IMAGE_MEM_FENCE) ? 0x800u : 0u);
}

/* mem_fence / read_mem_fence / write_mem_fence (OpenCL C 2.0 s6.13.8): left as
 * calls to undefined functions. OpMemoryBarrier at work-group scope with
 * AcquireRelease / Acquire / Release ordering. */
__SGVM_INLINE void __sgvm_mem_fence(cl_mem_fence_flags flags) {
  __spirv_MemoryBarrier(__SGVM_SCOPE_WORKGROUP, __SGVM_SEM_ACQ_REL | __sgvm_fence_bits(flags));
}
__SGVM_INLINE void __sgvm_read_mem_fence(cl_mem_fence_flags flags) {
  __spirv_MemoryBarrier(__SGVM_SCOPE_WORKGROUP, __SGVM_SEM_ACQUIRE | __sgvm_fence_bits(flags));
}
__SGVM_INLINE void __sgvm_write_mem_fence(cl_mem_fence_flags flags) {
  __spirv_MemoryBarrier(__SGVM_SCOPE_WORKGROUP, __SGVM_SEM_RELEASE | __sgvm_fence_bits(flags));
}
#define mem_fence(...) __sgvm_mem_fence(__VA_ARGS__)
#define read_mem_fence(...) __sgvm_read_mem_fence(__VA_ARGS__)
#define write_mem_fence(...) __sgvm_write_mem_fence(__VA_ARGS__)

/* sub_group_barrier (cl_intel_subgroups / cl_khr_subgroups s6.13.8): left
 * undefined. OpControlBarrier with Subgroup execution scope; the form without
 * a scope uses memory_scope_sub_group. Ordering as clang's barrier(). */
__SGVM_INLINE void __sgvm_sub_group_barrier(cl_mem_fence_flags flags) {
  __spirv_ControlBarrier(__SGVM_SCOPE_SUBGROUP, __SGVM_SCOPE_SUBGROUP, __SGVM_SEM_SEQ_CST | __sgvm_fence_bits(flags));
}
#define sub_group_barrier(...) __sgvm_sub_group_barrier(__VA_ARGS__)

#if __OPENCL_C_VERSION__ >= CL_VERSION_2_0
/* memory_scope -> SPIR-V Scope; memory_order -> Memory Semantics ordering bits. */
__SGVM_INLINE uint __sgvm_scope(memory_scope s) {
  return s == memory_scope_work_item ? 4u : s == memory_scope_work_group ? 2u : s == memory_scope_device ? 1u
       : s == memory_scope_sub_group ? 3u : 0u;
}
__SGVM_INLINE uint __sgvm_order(memory_order o) {
  return o == memory_order_relaxed ? 0u : o == memory_order_acquire ? __SGVM_SEM_ACQUIRE
       : o == memory_order_release ? __SGVM_SEM_RELEASE : o == memory_order_acq_rel ? __SGVM_SEM_ACQ_REL
       : __SGVM_SEM_SEQ_CST;
}
/* Ordering bits plus the storage classes a generic pointer may point into. */
__SGVM_INLINE uint __sgvm_sem(memory_order o) {
  uint bits = __sgvm_order(o);
  return bits ? bits | __SGVM_SEM_ALL_MEMORY : 0u;
}

__SGVM_INLINE void __sgvm_sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope) {
  __spirv_ControlBarrier(__SGVM_SCOPE_SUBGROUP, __sgvm_scope(scope), __SGVM_SEM_SEQ_CST | __sgvm_fence_bits(flags));
}

/* work_group_barrier(flags, scope) (s6.13.8): clang uses the memory scope as
 * the execution scope too (OpControlBarrier Device Device for
 * memory_scope_device). Execution scope must be Workgroup. */
__SGVM_INLINE void __sgvm_work_group_barrier(cl_mem_fence_flags flags) {
  __spirv_ControlBarrier(__SGVM_SCOPE_WORKGROUP, __SGVM_SCOPE_WORKGROUP, __SGVM_SEM_SEQ_CST | __sgvm_fence_bits(flags));
}
__SGVM_INLINE void __sgvm_work_group_barrier(cl_mem_fence_flags flags, memory_scope scope) {
  __spirv_ControlBarrier(__SGVM_SCOPE_WORKGROUP, __sgvm_scope(scope), __SGVM_SEM_SEQ_CST | __sgvm_fence_bits(flags));
}
#define work_group_barrier(...) __sgvm_work_group_barrier(__VA_ARGS__)

/* to_global / to_local / to_private (s6.13.9): clang emits calls to
 * __to_global etc. that the backend does not lower. clang's typed builtin
 * makes OpGenericCastToPtrExplicit (storage classes 5, 4, 7). get_fence:
 * undefined too; derived from the same casts (0 for private memory). */
#define to_global(p) __builtin_spirv_generic_cast_to_ptr_explicit((p), 5)
#define to_local(p) __builtin_spirv_generic_cast_to_ptr_explicit((p), 4)
#define to_private(p) __builtin_spirv_generic_cast_to_ptr_explicit((p), 7)
__SGVM_INLINE cl_mem_fence_flags __sgvm_get_fence(const volatile generic void *p) {
  return __builtin_spirv_generic_cast_to_ptr_explicit(p, 5) ? CLK_GLOBAL_MEM_FENCE
       : __builtin_spirv_generic_cast_to_ptr_explicit(p, 4) ? CLK_LOCAL_MEM_FENCE : 0;
}
#define get_fence(p) __sgvm_get_fence((const volatile generic void *)(p))
#endif /* OpenCL C 2.0 */

/* any / all on integer vectors (s6.13.6): clang emits OpAny/OpAll on an
 * integer vector, which is invalid SPIR-V (they take bool vectors). The
 * result only depends on the sign bits: OR (any) or AND (all) the halves of
 * the vector down to a scalar and test its sign. (LLVM's reduction intrinsics
 * are avoided: after optimisation they bitcast a bool vector to an integer,
 * which the backend rejects.) */
#define __SGVM_ANYALL_HALVES(V)                                                           \
  __SGVM_INLINE int __sgvm_any(V x) { return __sgvm_any(x.lo | x.hi); }                   \
  __SGVM_INLINE int __sgvm_all(V x) { return __sgvm_all(x.lo & x.hi); }
#define __SGVM_ANYALL(T)                                                                  \
  __SGVM_INLINE int __sgvm_any(T x) { return x < 0; }                                     \
  __SGVM_INLINE int __sgvm_all(T x) { return x < 0; }                                     \
  __SGVM_INLINE int __sgvm_any(T##2 x) { return (x.s0 | x.s1) < 0; }                      \
  __SGVM_INLINE int __sgvm_all(T##2 x) { return (x.s0 & x.s1) < 0; }                      \
  __SGVM_INLINE int __sgvm_any(T##3 x) { return (x.s0 | x.s1 | x.s2) < 0; }               \
  __SGVM_INLINE int __sgvm_all(T##3 x) { return (x.s0 & x.s1 & x.s2) < 0; }               \
  __SGVM_ANYALL_HALVES(T##4) __SGVM_ANYALL_HALVES(T##8) __SGVM_ANYALL_HALVES(T##16)
__SGVM_ANYALL(char)
__SGVM_ANYALL(short)
__SGVM_ANYALL(int)
__SGVM_ANYALL(long)
#define any(...) __sgvm_any(__VA_ARGS__)
#define all(...) __sgvm_all(__VA_ARGS__)

#include "sgvm_atomics.h"
#include "sgvm_conversions.h"
#include "sgvm_images.h"

#endif /* SGVM_WORKAROUNDS_H */
