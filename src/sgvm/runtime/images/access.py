"""Kernel-side image access, vectorised over lanes.

Coordinates are the engine's value: ``(L, k)`` (or ``(k,)`` when uniform; ``(L,)``
allowed for 1D images) integers, signed or unsigned, or floats; ``k`` may exceed
the image's coordinate count (int4 coordinates of a 3D image), the extra
components are ignored. The image and the sampler are uniform. Results are
``(L, 4)`` in the kind's dtype (``formats.KIND_DTYPE``).

Sampling follows the OpenCL spec's "Image Addressing and Filtering" formulas,
evaluated in float32 as written there.
"""

from __future__ import annotations

import numpy as np

from sgvm.runtime.images.enums import addressing_mode as A
from sgvm.runtime.images.enums import channel_type as T
from sgvm.runtime.images.enums import filter_mode as F
from sgvm.runtime.images.formats import as_kind, border_color, decode, encode
from sgvm.runtime.images.image import Image
from sgvm.runtime.images.sampler import Sampler

_F32 = np.float32
_HALF = _F32(0.5)
_COORD_LIMIT = _F32(2.0**30)
_REPEATS = (A.REPEAT, A.MIRRORED_REPEAT)


def _coords(image: Image, coords: np.ndarray) -> np.ndarray:
    """(..., coord_count) int64 (integer coordinates) or float32."""
    c = np.asarray(coords)
    if image.coord_count == 1 and c.ndim <= 1:
        c = c[..., None]
    if c.shape[-1] < image.coord_count:
        raise ValueError(f"{image!r} needs {image.coord_count} coordinates, got {c.shape[-1]}")
    c = c[..., : image.coord_count]
    if c.dtype.kind == "u":
        c = c.view(np.dtype(f"i{c.dtype.itemsize}"))
    if c.dtype.kind == "i":
        return c.astype(np.int64)
    if c.dtype.kind == "f":
        # NaN reads as 0 and infinities as ±2^30: far outside any image (sgvm's choice).
        c = np.nan_to_num(c.astype(_F32), nan=0.0)
        return np.clip(c, -_COORD_LIMIT, _COORD_LIMIT)
    raise TypeError(f"image coordinates of dtype {c.dtype}")


def _floor(x: np.ndarray) -> np.ndarray:
    return np.floor(x).astype(np.int64)


def _fetch(image: Image, idx: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Texels at integer coordinates (N, coord_count): values (N, 4) and inside (N,).

    "If the selected texel location (i, j, k) refers to a location outside the
    image, the border color is used as the color value for this texel."
    """
    shape = np.array(image.shape, dtype=np.int64)
    inside = ((idx >= 0) & (idx < shape)).all(axis=1)
    offsets = np.clip(idx, 0, shape - 1) @ np.array(image.strides, dtype=np.int64)
    raw = image.data.data[offsets[:, None] + np.arange(image.element_size)]
    values = decode(image.format, raw, kind)
    if not inside.all():
        values[~inside] = border_color(image.format, kind)
    return values, inside


def _with_layer(spatial: np.ndarray, layer: np.ndarray | None) -> np.ndarray:
    return spatial if layer is None else np.concatenate([spatial, layer[:, None]], axis=1)


def _clamp_to_edge(i: np.ndarray, size: np.ndarray, mode: int) -> np.ndarray:
    """Nearest/linear index for CLAMP_TO_EDGE: clamp(i, 0, size - 1). CLAMP's
    clamp(i, -1, size) and NONE leave outside indices outside: border colour."""
    return np.clip(i, 0, size - 1) if mode == A.CLAMP_TO_EDGE else i


def _read_int_coords(image: Image, idx: np.ndarray, sampler: Sampler | None, kind: str
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Integer coordinates are texel indices. Without a sampler, or with
    CLK_ADDRESS_NONE, every coordinate (array index included) must lie inside;
    otherwise spatial indices follow the addressing mode and the array index is
    clamped. See docs/images.md for the samplers the spec leaves undefined here
    (normalized, linear, REPEAT, MIRRORED_REPEAT)."""
    mode = A.NONE if sampler is None else sampler.addressing_mode
    if mode == A.NONE:
        values, inside = _fetch(image, idx, kind)
        return values, ~inside
    d = image.spatial_dims
    shape = np.array(image.shape[:d], dtype=np.int64)
    spatial = _clamp_to_edge(idx[:, :d], shape, A.CLAMP_TO_EDGE if mode in _REPEATS else mode)
    layer = np.clip(idx[:, d], 0, image.shape[d] - 1) if image.arrayed else None
    values, _ = _fetch(image, _with_layer(spatial, layer), kind)
    return values, np.zeros(len(idx), dtype=bool)


def _read_float_coords(image: Image, c: np.ndarray, sampler: Sampler, kind: str
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Float coordinates through the sampler's addressing and filter formulas."""
    d = image.spatial_dims
    isize = np.array(image.shape[:d], dtype=np.int64)
    size = isize.astype(_F32)
    s = c[:, :d]
    # Arrays: "layer = clamp(rint(t), 0, ht - 1)" whatever the sampler.
    layer = (np.clip(np.rint(c[:, d]), 0, image.shape[d] - 1).astype(np.int64)
             if image.arrayed else None)
    mode = sampler.addressing_mode
    linear = sampler.filter_mode == F.LINEAR and kind in ("f", "h")
    undefined = np.zeros(len(c), dtype=bool)
    if mode in _REPEATS and not sampler.normalized_coords:
        s = s / size  # undefined by the spec: sgvm normalizes, repeating every size texels
    if mode == A.REPEAT:
        # "u = (s – floor(s)) * wt; i = (int)floor(u); if (i > wt – 1) i = i – wt"
        u = (s - np.floor(s)) * size
        if linear:
            i0 = _floor(u - _HALF)
            i1 = i0 + 1
            i0 = np.where(i0 < 0, isize + i0, i0)
            i1 = np.where(i1 > isize - 1, i1 - isize, i1)
        else:
            i = _floor(u)
            i = np.where(i > isize - 1, i - isize, i)
    elif mode == A.MIRRORED_REPEAT:
        # "s' = 2.0f * rint(0.5f * s); s' = fabs(s – s'); u = s' * wt"
        u = np.abs(s - _F32(2.0) * np.rint(_HALF * s)) * size
        if linear:
            i0 = np.maximum(_floor(u - _HALF), 0)
            i1 = np.minimum(_floor(u - _HALF) + 1, isize - 1)
        else:
            i = np.minimum(_floor(u), isize - 1)
    else:
        u = s * size if sampler.normalized_coords else s
        if mode == A.NONE:
            undefined = ((u < 0) | (u >= size)).any(axis=1)
        if linear:
            i0 = _clamp_to_edge(_floor(u - _HALF), isize, mode)
            i1 = _clamp_to_edge(_floor(u - _HALF) + 1, isize, mode)
        else:
            i = _clamp_to_edge(_floor(u), isize, mode)
    if not linear:
        values, _ = _fetch(image, _with_layer(i, layer), kind)
        return values, undefined
    # "a = frac(u – 0.5)"; T = Σ over the 2^d corners of the weight products.
    a = (u - _HALF) - np.floor(u - _HALF)
    total = np.zeros((len(c), 4), dtype=_F32)
    for corner in range(1 << d):
        bits = [(corner >> k) & 1 for k in range(d)]
        idx = np.stack([i1[:, k] if bit else i0[:, k] for k, bit in enumerate(bits)], axis=1)
        weight = np.ones(len(c), dtype=_F32)
        for k, bit in enumerate(bits):
            weight = weight * (a[:, k] if bit else _F32(1.0) - a[:, k])
        texels, _ = _fetch(image, _with_layer(idx, layer), "f")
        total += weight[:, None] * texels
    return total.astype(np.dtype(np.float16) if kind == "h" else _F32), undefined


def read_with_bounds(image: Image, coords: np.ndarray, sampler: Sampler | None,
                     kind: str) -> tuple[np.ndarray, np.ndarray]:
    """``read_image{kind}``: values (..., 4) and a bool (...) mask of the lanes
    whose result the spec leaves undefined because the coordinate is out of
    range: integer coordinates outside the image (array index included) read
    without a sampler or with CLK_ADDRESS_NONE, and float coordinates read with
    CLK_ADDRESS_NONE whose unnormalized location lies outside [0, size). Those
    lanes get the border colour (texel by texel for linear filtering).

    Sampler-less reads: "the sampler-less read image functions behave exactly
    as the corresponding read image functions that take [...] a sampler with
    filter_mode set to CLK_FILTER_NEAREST, normalized coordinates set to
    CLK_NORMALIZED_COORDS_FALSE and addressing mode to CLK_ADDRESS_NONE".
    """
    c = _coords(image, coords)
    batch = c.shape[:-1]
    c = c.reshape(-1, image.coord_count)
    if c.dtype == np.int64:
        values, undefined = _read_int_coords(image, c, sampler, kind)
    elif sampler is None:
        raise TypeError("a sampler-less read_image takes integer coordinates")
    else:
        values, undefined = _read_float_coords(image, c, sampler, kind)
    return values.reshape(batch + (4,)), undefined.reshape(batch)


def read(image: Image, coords: np.ndarray, sampler: Sampler | None, kind: str) -> np.ndarray:
    """``read_image{kind}(image, [sampler,] coords)`` for every lane: (..., 4)."""
    return read_with_bounds(image, coords, sampler, kind)[0]


def write(image: Image, coords: np.ndarray, values: np.ndarray, kind: str,
          active: np.ndarray | None = None) -> np.ndarray:
    """``write_image{kind}(image, coords, values)`` for the ``active`` lanes.

    ``values`` is (..., 4) (a depth image's depth in component 0); coordinates,
    values and ``active`` (default: all lanes) broadcast together. Returns the
    bool (...) mask of active lanes whose coordinate (array index included) is
    outside the image; the spec leaves those writes undefined and sgvm drops
    them. When several lanes write one texel, the highest lane's value stays.
    """
    c, outside = write_outside(image, coords)
    vals = as_kind(values, kind)
    act = np.asarray(True if active is None else active, dtype=bool)
    batch = np.broadcast_shapes(c.shape[:-1], vals.shape[:-1], act.shape)
    c = np.broadcast_to(c, batch + c.shape[-1:]).reshape(-1, image.coord_count)
    vals = np.broadcast_to(vals, batch + (4,)).reshape(-1, 4)
    act = np.broadcast_to(act, batch).reshape(-1)
    inside = ~np.broadcast_to(outside, batch).reshape(-1)
    lanes = np.nonzero(act & inside)[0]
    offsets = c[lanes] @ np.array(image.strides, dtype=np.int64)
    _, last = np.unique(offsets[::-1], return_index=True)
    keep = len(lanes) - 1 - last
    texels = encode(image.format, vals[lanes[keep]], kind)
    image.data.data[offsets[keep, None] + np.arange(image.element_size)] = texels
    return (act & ~inside).reshape(batch)


def write_outside(image: Image, coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``write_image*`` coordinates as int64 ``(..., coord_count)`` and the bool ``(...)``
    mask of those outside the image (array index included): "The behavior of
    write_imagef, write_imagei and write_imageui [...] with (x, y) coordinate values
    that are not in the range (0 ... image width - 1, 0 ... image height - 1),
    respectively, is undefined." """
    c = _coords(image, coords)
    if c.dtype != np.int64:
        raise TypeError("write_image takes integer coordinates")
    return c, ~((c >= 0) & (c < np.array(image.shape))).all(axis=-1)


def undefined_use(image: Image, kind: str, sampler: Sampler | None = None,
                  float_coords: bool = False) -> str | None:
    """Why a read (with ``sampler``/``float_coords``) or write of ``kind`` on
    ``image`` is undefined by the spec, or None. Uniform per call site, for the
    checker; sgvm's behaviour in each case is in docs/images.md.
    """
    fmt = image.format
    family = "f" if kind == "h" else kind
    if family != fmt.kind:
        ctype = T.to_string(fmt.channel_data_type)
        return f"image_{kind} built-ins are undefined on a CL_{ctype} image"
    if sampler is None:
        return None
    if sampler.filter_mode == F.LINEAR and kind in ("i", "ui"):
        return f"read_image{kind} needs a CLK_FILTER_NEAREST sampler"
    if not float_coords and (sampler.normalized_coords or sampler.filter_mode == F.LINEAR
                             or sampler.addressing_mode in _REPEATS):
        return ("integer coordinates need a sampler with CLK_NORMALIZED_COORDS_FALSE, "
                "CLK_FILTER_NEAREST and CLK_ADDRESS_CLAMP_TO_EDGE, _CLAMP or _NONE")
    if float_coords and not sampler.normalized_coords and sampler.addressing_mode in _REPEATS:
        return "CLK_ADDRESS_REPEAT and _MIRRORED_REPEAT need normalized coordinates"
    return None
