/* Minimal OpenCL C prelude for compiling the test corpus with clang directly
 * (used only when sgvm.compile is unavailable in this checkout). */
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef __SIZE_TYPE__ size_t;
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define VEC(T) typedef T T##2 __attribute__((ext_vector_type(2))); \
  typedef T T##3 __attribute__((ext_vector_type(3))); \
  typedef T T##4 __attribute__((ext_vector_type(4))); \
  typedef T T##8 __attribute__((ext_vector_type(8))); \
  typedef T T##16 __attribute__((ext_vector_type(16)));
VEC(char) VEC(uchar) VEC(short) VEC(ushort) VEC(int) VEC(uint) VEC(long) VEC(ulong)
VEC(float) VEC(double) VEC(half)
#undef VEC
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define CLK_NORMALIZED_COORDS_FALSE 0
#define CLK_ADDRESS_CLAMP_TO_EDGE 2
#define CLK_FILTER_NEAREST 0x10
typedef uint cl_mem_fence_flags;
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
int printf(__constant const char *restrict format, ...);
#define OV __attribute__((overloadable))
#define SHUF(T) T OV intel_sub_group_shuffle(T, uint); T OV intel_sub_group_shuffle_xor(T, uint); \
  T OV intel_sub_group_shuffle_down(T, T, uint); T OV intel_sub_group_shuffle_up(T, T, uint);
SHUF(float) SHUF(long) SHUF(char) SHUF(short) SHUF(int)
uint OV intel_sub_group_block_read(const __global uint *);
void OV intel_sub_group_block_write(__global uint *, uint);
uint4 OV intel_sub_group_block_read4(const __global uint *);
void OV intel_sub_group_block_write4(__global uint *, uint4);
ushort8 OV intel_sub_group_block_read_us8(const __global ushort *);
void OV intel_sub_group_block_write_us8(__global ushort *, ushort8);
uchar16 OV intel_sub_group_block_read_uc16(const __global uchar *);
void OV intel_sub_group_block_write_uc16(__global uchar *, uchar16);
ulong2 OV intel_sub_group_block_read_ul2(const __global ulong *);
void OV intel_sub_group_block_write_ul2(__global ulong *, ulong2);
uint OV intel_sub_group_block_read(read_only image2d_t, int2);
void OV intel_sub_group_block_write(write_only image2d_t, int2, uint);
void OV __spirv_ControlBarrier(int, int, int);
#define sub_group_barrier(f) __spirv_ControlBarrier(3, 3, 0x100 | 0x200)
