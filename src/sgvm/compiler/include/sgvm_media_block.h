/* sgvm_media_block.h - cl_intel_media_block_io.
 *
 *   T intel_sub_group_media_block_read_{uc,us,ui}N(int2 src_byte_offset, int width,
 *                                                  int height, read_only image2d_t image)
 *   void intel_sub_group_media_block_write_{uc,us,ui}N(int2 src_byte_offset, int width,
 *                                                      int height, TN texels, image2d_t image)
 * for N in "", 2, 4, 8, 16 (ui: up to 8), lowered to SPV_INTEL_media_block_io's
 * OpSubgroupImageMediaBlockReadINTEL / WriteINTEL (Image, Coordinate, Width, Height[, Data]).
 *
 * clang's SPIR-V backend knows the OpenCL names but passes the operands in the
 * OpenCL order (coordinate first), which does not validate; the __spirv_ names
 * take them in the instruction's order. A read's result type cannot select an
 * overload, so each one is a distinct declaration whose asm label is the
 * __spirv_ name (the backend reads the name and the call's return type). The
 * OpenCL names are macros so that width and height stay the constants the
 * extension requires ("The width and height of the region must be
 * compile-time constants"), also at -O0.
 */
#ifndef SGVM_MEDIA_BLOCK_H
#define SGVM_MEDIA_BLOCK_H

#define __SGVM_MB_SPIRV_READ "_Z40__spirv_SubgroupImageMediaBlockReadINTEL"

#define __SGVM_MB_READ_AQ(N, SUF, T, AQ)                                                    \
  T##N __SGVM_OV __sgvm_media_block_read##SUF##N(AQ image2d_t image, int2 coord, int width, \
                                                 int height)                                \
      __asm__(__SGVM_MB_SPIRV_READ "_" #AQ "_" #T #N);
#define __SGVM_MB_WRITE_AQ(N, T, AQ)                                                        \
  void __SGVM_OV __spirv_SubgroupImageMediaBlockWriteINTEL(AQ image2d_t image, int2 coord, \
                                                           int width, int height, T##N data);

#if __OPENCL_C_VERSION__ >= CL_VERSION_2_0
#define __SGVM_MB_READ(N, SUF, T) __SGVM_MB_READ_AQ(N, SUF, T, read_only) \
  __SGVM_MB_READ_AQ(N, SUF, T, read_write)
#define __SGVM_MB_WRITE(N, SUF, T) __SGVM_MB_WRITE_AQ(N, T, write_only) \
  __SGVM_MB_WRITE_AQ(N, T, read_write)
#else
#define __SGVM_MB_READ(N, SUF, T) __SGVM_MB_READ_AQ(N, SUF, T, read_only)
#define __SGVM_MB_WRITE(N, SUF, T) __SGVM_MB_WRITE_AQ(N, T, write_only)
#endif

#define __SGVM_MB_DECLARE(N, SUF, T) __SGVM_MB_READ(N, SUF, T) __SGVM_MB_WRITE(N, SUF, T)
__SGVM_MB_DECLARE(, _uc, uchar) __SGVM_MB_DECLARE(2, _uc, uchar) __SGVM_MB_DECLARE(4, _uc, uchar)
__SGVM_MB_DECLARE(8, _uc, uchar) __SGVM_MB_DECLARE(16, _uc, uchar)
__SGVM_MB_DECLARE(, _us, ushort) __SGVM_MB_DECLARE(2, _us, ushort) __SGVM_MB_DECLARE(4, _us, ushort)
__SGVM_MB_DECLARE(8, _us, ushort) __SGVM_MB_DECLARE(16, _us, ushort)
__SGVM_MB_DECLARE(, _ui, uint) __SGVM_MB_DECLARE(2, _ui, uint) __SGVM_MB_DECLARE(4, _ui, uint)
__SGVM_MB_DECLARE(8, _ui, uint)

#define intel_sub_group_media_block_read_uc(c, w, h, im) __sgvm_media_block_read_uc(im, c, w, h)
#define intel_sub_group_media_block_read_uc2(c, w, h, im) __sgvm_media_block_read_uc2(im, c, w, h)
#define intel_sub_group_media_block_read_uc4(c, w, h, im) __sgvm_media_block_read_uc4(im, c, w, h)
#define intel_sub_group_media_block_read_uc8(c, w, h, im) __sgvm_media_block_read_uc8(im, c, w, h)
#define intel_sub_group_media_block_read_uc16(c, w, h, im) __sgvm_media_block_read_uc16(im, c, w, h)
#define intel_sub_group_media_block_read_us(c, w, h, im) __sgvm_media_block_read_us(im, c, w, h)
#define intel_sub_group_media_block_read_us2(c, w, h, im) __sgvm_media_block_read_us2(im, c, w, h)
#define intel_sub_group_media_block_read_us4(c, w, h, im) __sgvm_media_block_read_us4(im, c, w, h)
#define intel_sub_group_media_block_read_us8(c, w, h, im) __sgvm_media_block_read_us8(im, c, w, h)
#define intel_sub_group_media_block_read_us16(c, w, h, im) __sgvm_media_block_read_us16(im, c, w, h)
#define intel_sub_group_media_block_read_ui(c, w, h, im) __sgvm_media_block_read_ui(im, c, w, h)
#define intel_sub_group_media_block_read_ui2(c, w, h, im) __sgvm_media_block_read_ui2(im, c, w, h)
#define intel_sub_group_media_block_read_ui4(c, w, h, im) __sgvm_media_block_read_ui4(im, c, w, h)
#define intel_sub_group_media_block_read_ui8(c, w, h, im) __sgvm_media_block_read_ui8(im, c, w, h)

/* Writes: the texels' type picks the overload; the suffix only documents it. */
#define __SGVM_MB_W(c, w, h, d, im) __spirv_SubgroupImageMediaBlockWriteINTEL(im, c, w, h, d)
#define intel_sub_group_media_block_write_uc(c, w, h, d, im) __SGVM_MB_W(c, w, h, (uchar)(d), im)
#define intel_sub_group_media_block_write_uc2(c, w, h, d, im) __SGVM_MB_W(c, w, h, (uchar2)(d), im)
#define intel_sub_group_media_block_write_uc4(c, w, h, d, im) __SGVM_MB_W(c, w, h, (uchar4)(d), im)
#define intel_sub_group_media_block_write_uc8(c, w, h, d, im) __SGVM_MB_W(c, w, h, (uchar8)(d), im)
#define intel_sub_group_media_block_write_uc16(c, w, h, d, im) __SGVM_MB_W(c, w, h, (uchar16)(d), im)
#define intel_sub_group_media_block_write_us(c, w, h, d, im) __SGVM_MB_W(c, w, h, (ushort)(d), im)
#define intel_sub_group_media_block_write_us2(c, w, h, d, im) __SGVM_MB_W(c, w, h, (ushort2)(d), im)
#define intel_sub_group_media_block_write_us4(c, w, h, d, im) __SGVM_MB_W(c, w, h, (ushort4)(d), im)
#define intel_sub_group_media_block_write_us8(c, w, h, d, im) __SGVM_MB_W(c, w, h, (ushort8)(d), im)
#define intel_sub_group_media_block_write_us16(c, w, h, d, im) __SGVM_MB_W(c, w, h, (ushort16)(d), im)
#define intel_sub_group_media_block_write_ui(c, w, h, d, im) __SGVM_MB_W(c, w, h, (uint)(d), im)
#define intel_sub_group_media_block_write_ui2(c, w, h, d, im) __SGVM_MB_W(c, w, h, (uint2)(d), im)
#define intel_sub_group_media_block_write_ui4(c, w, h, d, im) __SGVM_MB_W(c, w, h, (uint4)(d), im)
#define intel_sub_group_media_block_write_ui8(c, w, h, d, im) __SGVM_MB_W(c, w, h, (uint8)(d), im)

#undef __SGVM_MB_READ_AQ
#undef __SGVM_MB_WRITE_AQ
#undef __SGVM_MB_READ
#undef __SGVM_MB_WRITE
#undef __SGVM_MB_DECLARE

#endif /* SGVM_MEDIA_BLOCK_H */
