// sgvm images for the C targets (engine/clower/images.py renders the instructions):
// read_image*/write_image* and the queries over one descriptor (SgImage, built by
// engine/common/image_descriptor.py). The rules are docs/images.md's (sgvm.runtime.images):
// conversions, addressing, filtering, border colours and sgvm's choices where the spec says
// undefined. The CUDA prelude (NVRTC: __CUDACC__) and the native one include it; each
// defines SG_IMG_WRITE_FAULT(fault, id, handle, c0, c1, c2), its record of a write_image
// outside the image.
// An image handle is the descriptor's address (64-byte aligned); a sampler is its OpenCL C
// sampler_t literal (< 64); a sampled image is handle | sampler.
#ifdef __CUDACC__
#define SG_IMG_INLINE __device__ __forceinline__
#define SG_IMG_FN __device__
#define sg_f2u __float_as_uint
#define sg_u2f __uint_as_float
#else
#define SG_IMG_INLINE static inline
#define SG_IMG_FN static
SG_IMG_INLINE u32 sg_f2u(float f) { u32 b; memcpy(&b, &f, 4); return b; }
SG_IMG_INLINE float sg_u2f(u32 b) { float f; memcpy(&f, &b, 4); return f; }
#endif
struct SgImage {
  u8 *data;
  s64 shape[3];   // coordinates: spatial sizes, then the array size
  s64 stride[3];  // bytes per coordinate
  u64 row_pitch;
  u32 ncoord, nspatial, ctype, order, es, nch;
  u32 src[4];     // stored channel -> component (0-3; 4 intensity, 5 luminance)
  u32 srgb, opaque, kind, pad;  // kind: SG_K_F, SG_K_I or SG_K_UI (the format's family)
};
#define SG_K_F 0
#define SG_K_H 1
#define SG_K_I 2
#define SG_K_UI 3
#define SG_K_INT 4      // i or ui: the image format's integer family (i for float formats)
#define SG_NO_SAMPLER 0xffffffffu

SG_IMG_INLINE const SgImage *sg_img(u64 h) { return (const SgImage *)(h & ~63ULL); }
SG_IMG_INLINE u32 sg_smp(u64 h) { return (u32)(h & 63ULL); }

// Texel values: float bits (kinds f, h) or 32-bit integers (i, ui).
struct SgTex { u32 v[4]; };

SG_IMG_INLINE int sg_img_kind(const SgImage *im, int kind) {
  return kind == SG_K_INT ? (im->kind == SG_K_UI ? SG_K_UI : SG_K_I) : kind;
}
// CL channel types (cl.h): SNORM_INT8 0x10D0 ... FLOAT 0x10DE.
SG_IMG_INLINE bool sg_ct_packed(u32 t) { return t >= 0x10D4 && t <= 0x10D6; }
SG_IMG_INLINE int sg_ct_size(u32 t) {  // bytes of one plain channel
  switch (t) {
    case 0x10D0: case 0x10D2: case 0x10D7: case 0x10DA: return 1;
    case 0x10D9: case 0x10DC: case 0x10DE: return 4;
    default: return 2;
  }
}
SG_IMG_INLINE void sg_ct_field(u32 t, int ch, int &shift, int &bits) {
  const int f[3][6] = {{11, 5, 5, 6, 0, 5}, {10, 5, 5, 5, 0, 5}, {20, 10, 10, 10, 0, 10}};
  shift = f[t - 0x10D4][2 * ch]; bits = f[t - 0x10D4][2 * ch + 1];
}
// Divisor of a normalized channel, else 0.
SG_IMG_INLINE float sg_ct_scale(u32 t, int ch) {
  switch (t) {
    case 0x10D0: return 127.0f;
    case 0x10D1: return 32767.0f;
    case 0x10D2: return 255.0f;
    case 0x10D3: return 65535.0f;
    case 0x10D4: case 0x10D5: case 0x10D6: {
      int s, b; sg_ct_field(t, ch, s, b); return (float)((1 << b) - 1);
    }
    default: return 0.0f;
  }
}
SG_IMG_INLINE void sg_ct_range(u32 t, int ch, double &lo, double &hi) {
  switch (t) {
    case 0x10D0: case 0x10D7: lo = -128; hi = 127; return;
    case 0x10D1: case 0x10D8: lo = -32768; hi = 32767; return;
    case 0x10D2: case 0x10DA: lo = 0; hi = 255; return;
    case 0x10D3: case 0x10DB: lo = 0; hi = 65535; return;
    case 0x10D9: lo = -2147483648.0; hi = 2147483647.0; return;
    case 0x10DC: lo = 0; hi = 4294967295.0; return;
    default: { int s, b; sg_ct_field(t, ch, s, b); lo = 0; hi = (double)((1 << b) - 1); }
  }
}
// The stored value of channel ch (exact in a double); isf for HALF_FLOAT / FLOAT.
SG_IMG_INLINE double sg_img_stored(u32 t, const u8 *p, int ch, bool &isf) {
  isf = t == 0x10DD || t == 0x10DE;
  if (sg_ct_packed(t)) {
    int s, b; sg_ct_field(t, ch, s, b);
    u32 w = t == 0x10D6 ? *(const u32 *)p : (u32)*(const u16 *)p;
    return (double)((w >> s) & ((1u << b) - 1u));
  }
  switch (t) {
    case 0x10D0: case 0x10D7: return (double)((const s8 *)p)[ch];
    case 0x10D1: case 0x10D8: return (double)((const s16 *)p)[ch];
    case 0x10D2: case 0x10DA: return (double)p[ch];
    case 0x10D3: case 0x10DB: return (double)((const u16 *)p)[ch];
    case 0x10D9: return (double)((const s32 *)p)[ch];
    case 0x10DC: return (double)((const u32 *)p)[ch];
    case 0x10DD: return (double)h2f(((const hbits *)p)[ch]);
    default: return (double)((const float *)p)[ch];
  }
}
// Saturating conversion to [lo, hi]; floats round to nearest even, NaN -> 0.
SG_IMG_INLINE double sg_img_sat(double x, bool isf, double lo, double hi) {
  if (isf) x = x != x ? 0.0 : rint(x);
  return x < lo ? lo : x > hi ? hi : x;
}
SG_IMG_INLINE float sg_srgb_to_linear(float c) {
  double d = c;
  return (float)(d <= 0.04045 ? d / 12.92 : pow((d + 0.055) / 1.055, 2.4));
}
SG_IMG_INLINE float sg_linear_to_srgb(float c) {
  double d = c != c ? 0.0 : fmin(fmax((double)c, 0.0), 1.0);
  return (float)(d < 0.0031308 ? 12.92 * d : 1.055 * pow(d, 1.0 / 2.4) - 0.055);
}

// One texel's read_image value (kind f for f and h).
SG_IMG_FN SgTex sg_img_decode(const SgImage *im, const u8 *p, int kind) {
  SgTex o;
  bool f = kind == SG_K_F;
  o.v[0] = o.v[1] = o.v[2] = 0;
  o.v[3] = f ? sg_f2u(1.0f) : 1u;
  for (int ch = 0; ch < (int)im->nch; ch++) {
    bool isf;
    double s = sg_img_stored(im->ctype, p, ch, isf);
    u32 bits;
    if (f) {
      float v = (float)s;
      float sc = sg_ct_scale(im->ctype, ch);
      if (sc != 0.0f) {
        v = v / sc;
        if (im->ctype == 0x10D0 || im->ctype == 0x10D1) v = fmaxf(v, -1.0f);
      }
      if (im->srgb && ch < 3) v = sg_srgb_to_linear(v);
      bits = sg_f2u(v);
    } else {
      double lo = kind == SG_K_I ? -2147483648.0 : 0.0;
      double hi = kind == SG_K_I ? 2147483647.0 : 4294967295.0;
      double x = sg_img_sat(s, isf, lo, hi);
      bits = kind == SG_K_I ? (u32)(s32)x : (u32)x;
    }
    u32 c = im->src[ch];
    if (c == 4) o.v[0] = o.v[1] = o.v[2] = o.v[3] = bits;
    else if (c == 5) o.v[0] = o.v[1] = o.v[2] = bits;
    else o.v[c] = bits;
  }
  return o;
}
// write_image of v (float bits for f, integers for i / ui) into the texel at p.
SG_IMG_FN void sg_img_encode(const SgImage *im, u8 *p, int kind, const u32 *v) {
  u32 t = im->ctype;
  u32 word = 0;
  for (int ch = 0; ch < (int)im->nch; ch++) {
    u32 c = im->src[ch];
    u32 x = v[c > 3 ? 0 : c];
    double d;
    bool isf = kind == SG_K_F;
    if (isf) {
      float fv = sg_u2f(x);
      if (im->srgb && ch < 3) fv = sg_linear_to_srgb(fv);
      float sc = sg_ct_scale(t, ch);
      if (sc != 0.0f) fv = fv * sc;
      d = fv;
    } else {
      d = kind == SG_K_I ? (double)(s32)x : (double)x;
    }
    if (t == 0x10DD) { ((hbits *)p)[ch] = d2h(d); continue; }
    if (t == 0x10DE) { ((float *)p)[ch] = (float)d; continue; }
    double lo, hi;
    sg_ct_range(t, ch, lo, hi);
    double q = sg_img_sat(d, isf, lo, hi);
    if (sg_ct_packed(t)) {
      int s, b; sg_ct_field(t, ch, s, b);
      word |= (u32)q << s;
      continue;
    }
    switch (sg_ct_size(t)) {
      case 1: p[ch] = (u8)(s32)q; break;
      case 2: ((u16 *)p)[ch] = (u16)(s32)q; break;
      default: ((u32 *)p)[ch] = lo < 0 ? (u32)(s32)q : (u32)q;
    }
  }
  if (t == 0x10D6) *(u32 *)p = word;
  else if (sg_ct_packed(t)) *(u16 *)p = (u16)word;
}

SG_IMG_INLINE SgTex sg_img_border(const SgImage *im, int kind) {
  SgTex o;
  o.v[0] = o.v[1] = o.v[2] = 0;
  o.v[3] = im->opaque ? (kind == SG_K_F ? sg_f2u(1.0f) : 1u) : 0u;
  return o;
}
// The texel at integer coordinates idx, or the border colour outside the image.
SG_IMG_FN SgTex sg_img_fetch(const SgImage *im, const s64 *idx, int kind) {
  s64 off = 0;
  bool inside = true;
  for (u32 k = 0; k < im->ncoord; k++) {
    s64 i = idx[k], n = im->shape[k];
    inside &= i >= 0 && i < n;
    off += (i < 0 ? 0 : i >= n ? n - 1 : i) * im->stride[k];
  }
  return inside ? sg_img_decode(im, im->data + off, kind) : sg_img_border(im, kind);
}
SG_IMG_INLINE SgTex sg_img_finish(SgTex t, int kind) {  // kind h: to half bits
  if (kind == SG_K_H)
    for (int k = 0; k < 4; k++) t.v[k] = f2h(sg_u2f(t.v[k]));
  return t;
}

// read_image* with integer coordinates; smp = SG_NO_SAMPLER for sampler-less reads.
SG_IMG_FN SgTex sg_img_read_i(u64 h, u32 smp, int kind, s64 c0, s64 c1, s64 c2) {
  const SgImage *im = sg_img(h);
  kind = sg_img_kind(im, kind);
  int fk = kind == SG_K_H ? SG_K_F : kind;
  s64 idx[3] = {c0, c1, c2};
  u32 mode = smp == SG_NO_SAMPLER ? 0u : (smp & 0xEu);
  if (mode != 0) {  // CLAMP (4) leaves outside indices outside: border colour
    for (u32 k = 0; k < im->nspatial; k++)
      if (mode != 4) idx[k] = idx[k] < 0 ? 0 : idx[k] >= im->shape[k] ? im->shape[k] - 1 : idx[k];
    if (im->ncoord > im->nspatial) {
      s64 &l = idx[im->nspatial];
      s64 n = im->shape[im->nspatial];
      l = l < 0 ? 0 : l >= n ? n - 1 : l;
    }
  }
  return sg_img_finish(sg_img_fetch(im, idx, fk), kind);
}

SG_IMG_INLINE s64 sg_floor(float x) { return (s64)floorf(x); }
SG_IMG_INLINE float sg_img_coord(float x) {  // NaN -> 0, clamp to +-2^30
  const float lim = 1073741824.0f;
  return x != x ? 0.0f : fminf(fmaxf(x, -lim), lim);
}
// read_image* with float coordinates through the sampler (docs/images.md, "Sampling").
SG_IMG_FN SgTex sg_img_read_f(u64 h, int kind, float c0, float c1, float c2) {
  const SgImage *im = sg_img(h);
  u32 smp = sg_smp(h);
  kind = sg_img_kind(im, kind);
  int fk = kind == SG_K_H ? SG_K_F : kind;
  int d = (int)im->nspatial;
  float c[3] = {sg_img_coord(c0), sg_img_coord(c1), sg_img_coord(c2)};
  s64 i0[3], i1[3], idx[3];
  float a[3];
  bool arrayed = im->ncoord > im->nspatial;
  if (arrayed) {
    float l = rintf(c[d]);
    float n = (float)(im->shape[d] - 1);
    idx[d] = (s64)(l < 0.0f ? 0.0f : l > n ? n : l);
  }
  u32 mode = smp & 0xEu;
  bool normalized = smp & 1u;
  bool linear = (smp & 0x30u) == 0x20u && fk == SG_K_F;
  for (int k = 0; k < d; k++) {
    s64 w = im->shape[k];
    float size = (float)w, s = c[k], u;
    if ((mode == 6 || mode == 8) && !normalized) s = s / size;
    if (mode == 6) {  // REPEAT
      u = (s - floorf(s)) * size;
      if (linear) {
        i0[k] = sg_floor(u - 0.5f); i1[k] = i0[k] + 1;
        if (i0[k] < 0) i0[k] += w;
        if (i1[k] > w - 1) i1[k] -= w;
      } else {
        idx[k] = sg_floor(u);
        if (idx[k] > w - 1) idx[k] -= w;
      }
    } else if (mode == 8) {  // MIRRORED_REPEAT
      u = fabsf(s - 2.0f * rintf(0.5f * s)) * size;
      if (linear) {
        s64 f = sg_floor(u - 0.5f);
        i0[k] = f < 0 ? 0 : f; i1[k] = f + 1 > w - 1 ? w - 1 : f + 1;
      } else {
        s64 f = sg_floor(u);
        idx[k] = f > w - 1 ? w - 1 : f;
      }
    } else {
      u = normalized ? s * size : s;
      bool edge = mode == 2;
      if (linear) {
        i0[k] = sg_floor(u - 0.5f); i1[k] = i0[k] + 1;
        if (edge) {
          i0[k] = i0[k] < 0 ? 0 : i0[k] > w - 1 ? w - 1 : i0[k];
          i1[k] = i1[k] < 0 ? 0 : i1[k] > w - 1 ? w - 1 : i1[k];
        }
      } else {
        idx[k] = sg_floor(u);
        if (edge) idx[k] = idx[k] < 0 ? 0 : idx[k] > w - 1 ? w - 1 : idx[k];
      }
    }
    a[k] = (u - 0.5f) - floorf(u - 0.5f);
  }
  if (!linear) return sg_img_finish(sg_img_fetch(im, idx, fk), kind);
  float total[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int corner = 0; corner < (1 << d); corner++) {
    float weight = 1.0f;
    for (int k = 0; k < d; k++) {
      bool bit = (corner >> k) & 1;
      idx[k] = bit ? i1[k] : i0[k];
      weight = weight * (bit ? a[k] : 1.0f - a[k]);
    }
    SgTex t = sg_img_fetch(im, idx, SG_K_F);
    for (int j = 0; j < 4; j++) total[j] = total[j] + weight * sg_u2f(t.v[j]);
  }
  SgTex o;
  for (int j = 0; j < 4; j++) o.v[j] = sg_f2u(total[j]);
  return sg_img_finish(o, kind);
}

// write_image*: values v0..v3 (float bits for f, half bits for h, integers for i / ui);
// a write outside the image is dropped and, with checks on (fault not null), recorded for
// work-item id (undefined behaviour: the CPU device raises KernelMemoryError).
SG_IMG_FN void sg_img_write(u64 h, int kind, s64 c0, s64 c1, s64 c2, u32 v0, u32 v1, u32 v2,
                             u32 v3, u64 *fault, u64 id) {
  const SgImage *im = sg_img(h);
  kind = sg_img_kind(im, kind);
  s64 idx[3] = {c0, c1, c2};
  s64 off = 0;
  for (u32 k = 0; k < im->ncoord; k++) {
    if (idx[k] < 0 || idx[k] >= im->shape[k]) {
      if (fault) SG_IMG_WRITE_FAULT(fault, id, h, c0, c1, c2);
      return;
    }
    off += idx[k] * im->stride[k];
  }
  u32 v[4] = {v0, v1, v2, v3};
  if (kind == SG_K_H)
    for (int k = 0; k < 4; k++) v[k] = sg_f2u(h2f((hbits)v[k]));
  sg_img_encode(im, im->data + off, kind == SG_K_H ? SG_K_F : kind, v);
}

// ---- sub-group image block IO (semantics/image_block.py) ---------------------------
// Lane `lane` (its sub-group local id)'s element i is the sizeof(T) bytes at byte x + l*sizeof(T) of row y + i.
// Reads outside the image take their bytes from the edge texel (clamped column and
// row, the byte within the texel kept); writes outside are dropped. The descriptor is
// read once per block; a block wholly inside, aligned, moves with plain loads/stores.
template <class T, int N> SG_IMG_INLINE bool sg_img_block_inside(
    const SgImage &im, s64 xs, s64 y) {
  return xs >= 0 && xs + (s64)sizeof(T) <= im.shape[0] * (s64)im.es && y >= 0 &&
         y + N <= im.shape[1] && (((u64)im.data + (u64)xs) % sizeof(T)) == 0 &&
         im.row_pitch % sizeof(T) == 0;
}
// The sizeof(T) bytes at byte x xs of row ys, those outside the image from the edge texel
// (clamped column and row, the byte within the texel kept).
template <class T> SG_IMG_INLINE T sg_img_bytes(const SgImage &im, s64 xs, s64 ys) {
  s64 es = im.es, w = im.shape[0], rows = im.shape[1];
  ys = ys < 0 ? 0 : ys >= rows ? rows - 1 : ys;
  const u8 *row = im.data + ys * (s64)im.row_pitch;
  u64 r = 0;
  for (int k = 0; k < (int)sizeof(T); k++) {
    s64 bx = xs + k;
    s64 col = bx >= 0 ? bx / es : -((-bx + es - 1) / es);
    s64 in = bx - col * es;
    col = col < 0 ? 0 : col >= w ? w - 1 : col;
    r |= (u64)row[col * es + in] << (8 * k);
  }
  return (T)r;
}
template <class T, int N> SG_IMG_INLINE void sg_img_block_read(u64 h, s64 x, s64 y, u32 lane,
                                                               T *out) {
  const SgImage im = *sg_img(h);
  s64 xs = x + (s64)lane * (s64)sizeof(T);
  if (sg_img_block_inside<T, N>(im, xs, y)) {
    const u8 *p = im.data + y * (s64)im.row_pitch + xs;
#pragma unroll
    for (int i = 0; i < N; i++) out[i] = *(const T *)(p + i * im.row_pitch);
    return;
  }
  for (int i = 0; i < N; i++) out[i] = sg_img_bytes<T>(im, xs, y + i);
}
template <class T, int N> SG_IMG_INLINE void sg_img_block_write(u64 h, s64 x, s64 y, u32 lane,
                                                                const T *v) {
  const SgImage im = *sg_img(h);
  s64 xs = x + (s64)lane * (s64)sizeof(T);
  if (sg_img_block_inside<T, N>(im, xs, y)) {
    u8 *p = im.data + y * (s64)im.row_pitch + xs;
#pragma unroll
    for (int i = 0; i < N; i++) *(T *)(p + i * im.row_pitch) = v[i];
    return;
  }
  if (xs < 0 || xs + (s64)sizeof(T) > im.shape[0] * (s64)im.es) return;
  for (int i = 0; i < N; i++) {
    s64 ys = y + i;
    if (ys < 0 || ys >= im.shape[1]) continue;
    u8 *p = im.data + ys * (s64)im.row_pitch + xs;
    for (int k = 0; k < (int)sizeof(T); k++) p[k] = (u8)((u64)v[i] >> (8 * k));
  }
}
// ---- cl_intel_media_block_io (semantics/media_block.py) ------------------------------
// Lane l's component i is region element k = i*SG_SIZE + l, row-major in a region w
// elements wide: byte x + (k % w)*sizeof(T) of row y + k / w. Reads past the image
// replicate the edge texel (as sg_img_block_read), elements past w*h read 0; writes past
// the image or the region are dropped.
template <class T, int N> SG_IMG_FN void sg_media_block_read(u64 h, s64 x, s64 y, s64 w, s64 hh,
                                                            u32 lane, T *out) {
  const SgImage im = *sg_img(h);
  for (int i = 0; i < N; i++) {
    s64 k = (s64)i * SG_SIZE + lane;
    out[i] = k < w * hh ? sg_img_bytes<T>(im, x + (k % w) * (s64)sizeof(T), y + k / w) : (T)0;
  }
}
template <class T, int N> SG_IMG_FN void sg_media_block_write(u64 h, s64 x, s64 y, s64 w, s64 hh,
                                                             u32 lane, const T *v) {
  const SgImage im = *sg_img(h);
  for (int i = 0; i < N; i++) {
    s64 k = (s64)i * SG_SIZE + lane;
    s64 xs = x + (k % w) * (s64)sizeof(T), ys = y + k / w;
    if (k >= w * hh || xs < 0 || xs + (s64)sizeof(T) > im.shape[0] * (s64)im.es || ys < 0 ||
        ys >= im.shape[1])
      continue;
    u8 *p = im.data + ys * (s64)im.row_pitch + xs;
    for (int b = 0; b < (int)sizeof(T); b++) p[b] = (u8)((u64)v[i] >> (8 * b));
  }
}
