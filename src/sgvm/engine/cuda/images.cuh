// sgvm CUDA prelude, images: after the shared rules (engine/clower/images.h), the
// coordinate of a warp's first lane for sub-group image and media block IO.
// The coordinate of the first lane of `m`, the lanes running together (block IO
// coordinates are uniform).
template <class T> __device__ __forceinline__ T sg_first(u32 m, T v) {
  return sg_shfl(m, v, __ffs(m >> sg_base()) - 1);
}

