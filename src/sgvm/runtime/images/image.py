"""Image memory objects: geometry, storage in an Allocation, host copies."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from sgvm.errors import LogicError
from sgvm.runtime import residency
from sgvm.runtime.device import CPU_DEVICE
from sgvm.runtime.images.enums import mem_object_type as M
from sgvm.runtime.images.formats import ImageFormat, encode
from sgvm.runtime.memory import Allocation

# Coordinates per image type: spatial dimensions, then the array index for arrays.
_SPATIAL = {M.IMAGE1D: 1, M.IMAGE1D_BUFFER: 1, M.IMAGE1D_ARRAY: 1,
            M.IMAGE2D: 2, M.IMAGE2D_ARRAY: 2, M.IMAGE3D: 3}
_ARRAYED = frozenset({M.IMAGE1D_ARRAY, M.IMAGE2D_ARRAY})


def _descriptor_error(what: str) -> LogicError:
    return LogicError(what, "CL_INVALID_IMAGE_DESCRIPTOR")


class Image:
    """An image: ``fmt``, ``image_type`` (a ``mem_object_type``) and ``shape``.

    ``shape`` is (width,) for 1D and 1D buffer images, (width, array_size) for
    1D arrays, (width, height) for 2D, (width, height, array_size) for 2D
    arrays and (width, height, depth) for 3D. Texel (x, y, z) lives at byte
    ``x*element_size + y*row_pitch + z*slice_pitch`` of ``data`` (the array
    index of a 1D array takes ``slice_pitch``, "the size in bytes of each 1D
    image in the array"). ``row_pitch`` defaults to width*element_size,
    ``slice_pitch`` to row_pitch*height (row_pitch for 1D arrays); 1D and 2D
    images have slice_pitch 0.

    With ``data`` (an Allocation, normally a buffer's) the image is created from
    it (IMAGE1D_BUFFER, or IMAGE2D with cl_khr_image2d_from_buffer's row pitch
    rules): ``self.data`` is then a view of that buffer's array, so writes
    through either are seen by the other, and ``self.buffer`` is the buffer.
    """

    def __init__(self, fmt: ImageFormat, image_type: int, shape: tuple[int, ...], *,
                 row_pitch: int = 0, slice_pitch: int = 0, data: Allocation | None = None,
                 name: str = "") -> None:
        fmt.check()
        if image_type not in _SPATIAL:
            raise _descriptor_error(f"{image_type:#x} is not an image type")
        self.format = fmt
        self.image_type = image_type
        self.arrayed = image_type in _ARRAYED
        self.spatial_dims = _SPATIAL[image_type]
        self.coord_count = self.spatial_dims + self.arrayed
        shape = tuple(int(s) for s in shape)
        if len(shape) != self.coord_count or min(shape) < 1:
            raise LogicError(f"bad shape {shape} for {M.to_string(image_type)}",
                             "CL_INVALID_IMAGE_SIZE")
        self.shape = shape
        es = self.element_size = fmt.element_size
        width = shape[0]
        rows = shape[1] if self.spatial_dims >= 2 else 1
        self.row_pitch = row_pitch or width * es
        if self.row_pitch < width * es or self.row_pitch % es:
            raise _descriptor_error(f"row pitch {row_pitch} for {width} texels of {es} bytes")
        if self.coord_count == self.spatial_dims == 2 or self.coord_count == 1:
            if slice_pitch:
                raise _descriptor_error("a 1D or 2D image has no slice pitch")
            self.slice_pitch = 0
        else:
            self.slice_pitch = slice_pitch or self.row_pitch * rows
            if self.slice_pitch < self.row_pitch * rows or self.slice_pitch % es:
                raise _descriptor_error(f"slice pitch {slice_pitch} below {self.row_pitch * rows}")
        # Byte stride of each coordinate.
        pitches = [self.row_pitch, self.slice_pitch][: self.coord_count - 1]
        if image_type == M.IMAGE1D_ARRAY:
            pitches = [self.slice_pitch]
        self.strides = (es, *pitches)
        if self.coord_count == 1:
            self.nbytes = width * es
        else:
            self.nbytes = self.strides[-1] * shape[-1]
        self.buffer = data
        if data is None:
            if image_type == M.IMAGE1D_BUFFER:
                raise _descriptor_error("a 1D buffer image needs a buffer")
            self.data = Allocation(np.zeros(self.nbytes, dtype=np.uint8), "global", name)
        else:
            self._check_buffer(data)
            self.data = Allocation(data.data[: self.nbytes], "global", name or data.name,
                                   read_only=data.read_only)

    def _check_buffer(self, data: Allocation) -> None:
        if self.image_type not in (M.IMAGE1D_BUFFER, M.IMAGE2D):
            raise _descriptor_error(f"{M.to_string(self.image_type)} cannot use a buffer")
        align = CPU_DEVICE.image_pitch_alignment * self.element_size
        if self.image_type == M.IMAGE2D and self.row_pitch % align:
            raise _descriptor_error(f"row pitch {self.row_pitch} is not a multiple of {align}"
                                    " (CL_DEVICE_IMAGE_PITCH_ALIGNMENT texels)")
        if data.size < self.nbytes:
            raise LogicError(f"buffer of {data.size} bytes holds no {self.nbytes}-byte image",
                             "CL_INVALID_IMAGE_SIZE")

    def __repr__(self) -> str:
        return f"Image({self.format!r}, {M.to_string(self.image_type)}, {self.shape})"

    # Queries (clGetImageInfo; get_image_* in OpenCL C).
    @property
    def channel_order(self) -> int:
        return self.format.channel_order

    @property
    def channel_data_type(self) -> int:
        return self.format.channel_data_type

    @property
    def width(self) -> int:
        return self.shape[0]

    @property
    def height(self) -> int:
        """0 for 1D images, as CL_IMAGE_HEIGHT reports."""
        return self.shape[1] if self.spatial_dims >= 2 else 0

    @property
    def depth(self) -> int:
        """0 unless 3D, as CL_IMAGE_DEPTH reports."""
        return self.shape[2] if self.spatial_dims == 3 else 0

    @property
    def array_size(self) -> int:
        """0 unless an array, as CL_IMAGE_ARRAY_SIZE reports."""
        return self.shape[-1] if self.arrayed else 0

    @property
    def dim(self) -> tuple[int, ...]:
        """get_image_dim: (width, height) for 2D images and arrays, (w, h, d, 0) for 3D."""
        if self.spatial_dims == 3:
            return (*self.shape, 0)
        return self.shape[: self.spatial_dims]

    # Host copies (clEnqueueReadImage / WriteImage / FillImage).
    def _region(self, origin: tuple[int, ...], region: tuple[int, ...]
                ) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        origin = tuple(int(o) for o in origin) + (0,) * (3 - len(origin))
        region = tuple(int(r) for r in region) + (1,) * (3 - len(region))
        limits = self.shape + (1,) * (3 - self.coord_count)
        if len(origin) != 3 or len(region) != 3 or any(
                o < 0 or r < 1 or o + r > n for o, r, n in zip(origin, region, limits, strict=True)):
            raise LogicError(f"origin {origin} region {region} outside image {self.shape}",
                             "CL_INVALID_VALUE")
        return origin, region

    def _view(self, origin: tuple[int, int, int], region: tuple[int, int, int]) -> np.ndarray:
        """Writable (region z, region y, region x * element_size) bytes of the storage
        (made current first where a device keeps a copy: ``runtime.residency``)."""
        residency.host_access(self.data)
        strides = self.strides + (0,) * (3 - self.coord_count)
        start = sum(o * s for o, s in zip(origin, strides, strict=True))
        shape = (region[2], region[1], region[0] * self.element_size)
        return as_strided(self.data.data[start:], shape, (strides[2], strides[1], 1))

    def write_host(self, origin: tuple[int, ...], region: tuple[int, ...],
                   host_array: np.ndarray | bytes, row_pitch: int = 0,
                   slice_pitch: int = 0) -> None:
        """Copy host memory into texels ``origin`` … ``origin + region``.

        ``host_array``'s bytes (C order) hold rows ``row_pitch`` bytes apart
        (default region width*element_size) and slices ``slice_pitch`` apart
        (default row_pitch*region height); for a 1D array the layers are
        ``slice_pitch`` (else ``row_pitch``, else one row) apart.
        """
        origin, region = self._region(origin, region)
        if isinstance(host_array, (bytes, bytearray, memoryview)):
            src = np.frombuffer(host_array, dtype=np.uint8)
        else:
            src = np.ascontiguousarray(host_array).reshape(-1).view(np.uint8)
        dst = self._view(origin, region)
        dst[...] = self._host_view(src, region, row_pitch, slice_pitch, dst.shape)

    def _host_view(self, src: np.ndarray, region: tuple[int, int, int], row_pitch: int,
                   slice_pitch: int, shape: tuple[int, ...]) -> np.ndarray:
        row = region[0] * self.element_size
        if self.image_type == M.IMAGE1D_ARRAY:
            row_pitch = slice_pitch or row_pitch or row
            slice_pitch = row_pitch * region[1]
        else:
            row_pitch = row_pitch or row
            slice_pitch = slice_pitch or row_pitch * region[1]
        if row_pitch < row or slice_pitch < row_pitch * region[1]:
            raise LogicError(f"host pitches {row_pitch}/{slice_pitch} too small", "CL_INVALID_VALUE")
        needed = (region[2] - 1) * slice_pitch + (region[1] - 1) * row_pitch + row
        if src.size < needed:
            raise LogicError(f"host memory of {src.size} bytes, {needed} needed", "CL_INVALID_VALUE")
        return as_strided(src, shape, (slice_pitch, row_pitch, 1), writeable=False)

    def read_host(self, origin: tuple[int, ...], region: tuple[int, ...]) -> np.ndarray:
        """A copy of texels ``origin`` … ``origin + region`` as uint8, shaped
        (region depth/layers, region height/layers, region width * element_size)."""
        origin, region = self._region(origin, region)
        return self._view(origin, region).copy()

    def fill_host(self, color: np.ndarray, origin: tuple[int, ...],
                  region: tuple[int, ...]) -> None:
        """clEnqueueFillImage: ``color`` (4 components: float, int or uint per the
        format's kind) converted as write_image* would, into every texel of the region."""
        origin, region = self._region(origin, region)
        texel = encode(self.format, np.asarray(color).reshape(1, 4), self.format.kind)
        self._view(origin, region)[...] = np.tile(texel[0], region[0])
