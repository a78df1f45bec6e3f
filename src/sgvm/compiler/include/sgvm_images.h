/* sgvm_images.h - image channel queries.
 *
 * OpImageQueryFormat / OpImageQueryOrder return SPIR-V Image Channel Data Type /
 * Order enumerants, which the OpenCL SPIR-V environment spec maps onto the CL
 * values in order from CLK_SNORM_INT8 / CLK_R. clang 22 returns
 * OpImageQueryFormat's value from get_image_channel_data_type as is (off by
 * CLK_SNORM_INT8) and leaves get_image_channel_order undefined. Both add the
 * offset here; __sgvm_image_query_order is never defined: the compiler turns
 * calls to it into OpImageQueryOrder (compiler/fixups.py).
 */
#ifndef SGVM_IMAGES_H
#define SGVM_IMAGES_H

#define __SGVM_IMAGE_QUERIES(Q, IMG)                                                \
  int __SGVM_OV __sgvm_image_query_order(Q IMG image);                              \
  __SGVM_INLINE int __sgvm_get_image_channel_order(Q IMG image) {                   \
    return __sgvm_image_query_order(image) + CLK_R;                                 \
  }                                                                                 \
  __SGVM_INLINE int __sgvm_get_image_channel_data_type(Q IMG image) {               \
    return get_image_channel_data_type(image) + CLK_SNORM_INT8;                     \
  }
#define __SGVM_IMAGE_QUERIES_ALL(Q)                                                 \
  __SGVM_IMAGE_QUERIES(Q, image1d_t) __SGVM_IMAGE_QUERIES(Q, image1d_buffer_t)       \
  __SGVM_IMAGE_QUERIES(Q, image1d_array_t) __SGVM_IMAGE_QUERIES(Q, image2d_t)        \
  __SGVM_IMAGE_QUERIES(Q, image2d_array_t) __SGVM_IMAGE_QUERIES(Q, image3d_t)
#define __SGVM_DEPTH_QUERIES_ALL(Q)                                                 \
  __SGVM_IMAGE_QUERIES(Q, image2d_depth_t) __SGVM_IMAGE_QUERIES(Q, image2d_array_depth_t)
__SGVM_IMAGE_QUERIES_ALL(read_only)
__SGVM_IMAGE_QUERIES_ALL(write_only)
#if __OPENCL_C_VERSION__ >= CL_VERSION_2_0
__SGVM_IMAGE_QUERIES_ALL(read_write)
__SGVM_DEPTH_QUERIES_ALL(read_only)
__SGVM_DEPTH_QUERIES_ALL(write_only)
__SGVM_DEPTH_QUERIES_ALL(read_write)
#endif
#define get_image_channel_order(...) __sgvm_get_image_channel_order(__VA_ARGS__)
#define get_image_channel_data_type(...) __sgvm_get_image_channel_data_type(__VA_ARGS__)

#undef __SGVM_IMAGE_QUERIES_ALL
#undef __SGVM_DEPTH_QUERIES_ALL
#undef __SGVM_IMAGE_QUERIES
#endif /* SGVM_IMAGES_H */
