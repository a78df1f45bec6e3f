/* sgvm_intel_subgroups.h - Intel sub-group shuffles and block reads/writes.
 *
 * Declarations only; clang's SPIR-V backend lowers these names to the
 * SPV_INTEL_subgroups instructions (OpSubgroupShuffle{,Down,Up,Xor}INTEL,
 * OpSubgroupBlockRead/WriteINTEL, OpSubgroupImageBlockRead/WriteINTEL).
 *   cl_intel_subgroups            shuffles; uint block IO (buffer, image2d_t)
 *   cl_intel_subgroups_char       char/uchar shuffles; _uc and _ui block IO
 *   cl_intel_subgroups_short      short/ushort shuffles; _us block IO
 *   cl_intel_subgroups_long       _ul block IO
 *   cl_intel_subgroup_local_block_io   the block IO functions on __local pointers
 */
#ifndef SGVM_INTEL_SUBGROUPS_H
#define SGVM_INTEL_SUBGROUPS_H

#define __SGVM_OV __attribute__((overloadable))

/* --- Shuffles (cl_intel_subgroups "Sub Group Shuffle Functions"). --- */
#define __SGVM_SHUFFLE(T)                                        \
  T __SGVM_OV intel_sub_group_shuffle(T data, uint c);           \
  T __SGVM_OV intel_sub_group_shuffle_down(T cur, T next, uint delta); \
  T __SGVM_OV intel_sub_group_shuffle_up(T prev, T cur, uint delta);   \
  T __SGVM_OV intel_sub_group_shuffle_xor(T data, uint value);
/* Scalars and 2-, 3-, 4-, 8- and 16-component vectors (SPV_INTEL_subgroups
 * environment rules; the OpenCL C specs list 1/2/4/8/16, Intel's driver also 3). */
#define __SGVM_SHUFFLE_VEC(T)                                    \
  __SGVM_SHUFFLE(T) __SGVM_SHUFFLE(T##2) __SGVM_SHUFFLE(T##3)    \
  __SGVM_SHUFFLE(T##4) __SGVM_SHUFFLE(T##8) __SGVM_SHUFFLE(T##16)

__SGVM_SHUFFLE_VEC(float)
__SGVM_SHUFFLE_VEC(int)
__SGVM_SHUFFLE_VEC(uint)
__SGVM_SHUFFLE(long)
__SGVM_SHUFFLE(ulong)
__SGVM_SHUFFLE(half)
__SGVM_SHUFFLE(double)
__SGVM_SHUFFLE_VEC(char)
__SGVM_SHUFFLE_VEC(uchar)
__SGVM_SHUFFLE_VEC(short)
__SGVM_SHUFFLE_VEC(ushort)

/* --- Block reads and writes ("Sub Group Read and Write Functions"). ---
 * M(N, SUF, T, ...) is expanded for each vector width N ("" = scalar). */
#define __SGVM_WIDTHS_1_8(M, ...) M(, __VA_ARGS__) M(2, __VA_ARGS__) M(4, __VA_ARGS__) M(8, __VA_ARGS__)
#define __SGVM_WIDTHS_1_16(M, ...) __SGVM_WIDTHS_1_8(M, __VA_ARGS__) M(16, __VA_ARGS__)

#define __SGVM_BLOCK_PTR(N, SUF, T, AS)                                        \
  T##N __SGVM_OV intel_sub_group_block_read##SUF##N(const AS T *p);           \
  void __SGVM_OV intel_sub_group_block_write##SUF##N(AS T *p, T##N data);
#define __SGVM_BLOCK_IMAGE(N, SUF, T, RQ, WQ)                                  \
  T##N __SGVM_OV intel_sub_group_block_read##SUF##N(RQ image2d_t image, int2 byte_coord); \
  void __SGVM_OV intel_sub_group_block_write##SUF##N(WQ image2d_t image, int2 byte_coord, T##N data);

/* One family: buffer (__global, and __local for cl_intel_subgroup_local_block_io)
 * and image2d_t forms; read_write images exist from OpenCL C 2.0 on. */
#if __OPENCL_C_VERSION__ >= CL_VERSION_2_0
#define __SGVM_BLOCK_RW_IMAGE(W, SUF, T) W(__SGVM_BLOCK_IMAGE, SUF, T, read_write, read_write)
#else
#define __SGVM_BLOCK_RW_IMAGE(W, SUF, T)
#endif
#define __SGVM_BLOCK_FAMILY(W, SUF, T)                       \
  W(__SGVM_BLOCK_PTR, SUF, T, __global)                      \
  W(__SGVM_BLOCK_PTR, SUF, T, __local)                       \
  W(__SGVM_BLOCK_IMAGE, SUF, T, read_only, write_only)       \
  __SGVM_BLOCK_RW_IMAGE(W, SUF, T)

__SGVM_BLOCK_FAMILY(__SGVM_WIDTHS_1_8, , uint)      /* cl_intel_subgroups */
__SGVM_BLOCK_FAMILY(__SGVM_WIDTHS_1_8, _ui, uint)   /* cl_intel_subgroups_char (aliases) */
__SGVM_BLOCK_FAMILY(__SGVM_WIDTHS_1_16, _uc, uchar) /* cl_intel_subgroups_char */
__SGVM_BLOCK_FAMILY(__SGVM_WIDTHS_1_16, _us, ushort) /* cl_intel_subgroups_short */
__SGVM_BLOCK_FAMILY(__SGVM_WIDTHS_1_8, _ul, ulong)  /* cl_intel_subgroups_long */

#undef __SGVM_SHUFFLE
#undef __SGVM_SHUFFLE_VEC
#undef __SGVM_BLOCK_PTR
#undef __SGVM_BLOCK_IMAGE
#undef __SGVM_BLOCK_RW_IMAGE
#undef __SGVM_BLOCK_FAMILY
#undef __SGVM_WIDTHS_1_8
#undef __SGVM_WIDTHS_1_16

#endif /* SGVM_INTEL_SUBGROUPS_H */
