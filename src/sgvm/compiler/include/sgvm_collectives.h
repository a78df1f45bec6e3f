/* sgvm_collectives.h - sub-group collectives clang does not declare.
 *
 * clang (-fdeclare-opencl-builtins) declares the cl_khr_subgroups and OpenCL
 * C 2.0 work-group functions for int, uint, long, ulong, float, half and
 * double. The Intel extensions add 8- and 16-bit forms under an intel_ prefix:
 *   cl_intel_subgroups_char   intel_sub_group_{broadcast,reduce_*,scan_*}(char/uchar)
 *   cl_intel_subgroups_short  intel_sub_group_{broadcast,reduce_*,scan_*}(short/ushort)
 * Each is declared under the (mangled) name of the matching sub_group_*
 * function via an asm label, which the SPIR-V backend lowers to
 * OpGroupBroadcast / OpGroupIAdd / OpGroup{S,U}Min / OpGroup{S,U}Max with
 * Subgroup scope, exactly like the int forms.
 */
#ifndef SGVM_COLLECTIVES_H
#define SGVM_COLLECTIVES_H

#define __SGVM_SG_ALIAS(T, CODE)                                                     \
  T __SGVM_OV intel_sub_group_broadcast(T x, uint sub_group_local_id)               \
      __asm__("_Z19sub_group_broadcast" CODE "j");                                  \
  T __SGVM_OV intel_sub_group_reduce_add(T x) __asm__("_Z20sub_group_reduce_add" CODE); \
  T __SGVM_OV intel_sub_group_reduce_min(T x) __asm__("_Z20sub_group_reduce_min" CODE); \
  T __SGVM_OV intel_sub_group_reduce_max(T x) __asm__("_Z20sub_group_reduce_max" CODE); \
  T __SGVM_OV intel_sub_group_scan_exclusive_add(T x)                               \
      __asm__("_Z28sub_group_scan_exclusive_add" CODE);                             \
  T __SGVM_OV intel_sub_group_scan_exclusive_min(T x)                               \
      __asm__("_Z28sub_group_scan_exclusive_min" CODE);                             \
  T __SGVM_OV intel_sub_group_scan_exclusive_max(T x)                               \
      __asm__("_Z28sub_group_scan_exclusive_max" CODE);                             \
  T __SGVM_OV intel_sub_group_scan_inclusive_add(T x)                               \
      __asm__("_Z28sub_group_scan_inclusive_add" CODE);                             \
  T __SGVM_OV intel_sub_group_scan_inclusive_min(T x)                               \
      __asm__("_Z28sub_group_scan_inclusive_min" CODE);                             \
  T __SGVM_OV intel_sub_group_scan_inclusive_max(T x)                               \
      __asm__("_Z28sub_group_scan_inclusive_max" CODE);

/* Itanium codes: c char, h unsigned char, s short, t unsigned short. */
__SGVM_SG_ALIAS(char, "c")
__SGVM_SG_ALIAS(uchar, "h")
__SGVM_SG_ALIAS(short, "s")
__SGVM_SG_ALIAS(ushort, "t")
#undef __SGVM_SG_ALIAS

#endif /* SGVM_COLLECTIVES_H */
