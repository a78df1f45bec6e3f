"""OpenCL C scalar and vector types as NumPy dtypes (``pyopencl.cltypes``).

``cltypes.float4`` is a structured dtype with fields ``s0``…``s3`` (titles
``x``…``w``); 3-component vectors carry a padding field so they take the space
of 4, as in OpenCL C. ``make_float4(1, 2, 3, 4)`` builds a value to pass to a
kernel by value; ``zeros_float4()`` and ``filled_float4(v)`` likewise.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

char, uchar = np.dtype(np.int8), np.dtype(np.uint8)
short, ushort = np.dtype(np.int16), np.dtype(np.uint16)
int, uint = np.dtype(np.int32), np.dtype(np.uint32)  # noqa: A001 - OpenCL's names
long, ulong = np.dtype(np.int64), np.dtype(np.uint64)
half, float, double = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)  # noqa: A001
bool = np.dtype(np.bool_)  # noqa: A001

_SCALARS = {"char": char, "uchar": uchar, "short": short, "ushort": ushort, "int": int, "uint": uint,
            "long": long, "ulong": ulong, "half": half, "float": float, "double": double}
vec_types: dict[tuple[np.dtype, Any], np.dtype] = {}
vec_type_to_scalar_and_count: dict[np.dtype, tuple[np.dtype, Any]] = {}


def _make(dtype: np.dtype, padded: Any, *args: Any) -> np.ndarray:
    return np.array(tuple(args) + (0,) * (padded - len(args)), dtype=dtype)


def _filled(dtype: np.dtype, padded: Any, value: Any) -> np.ndarray:
    return np.array((value,) * padded, dtype=dtype)


def _zeros(dtype: np.dtype) -> np.ndarray:
    return np.zeros((), dtype=dtype)


def _define_vectors() -> None:
    module = globals()
    for base_name, base in _SCALARS.items():
        for count in (2, 3, 4, 8, 16):
            padded = 4 if count == 3 else count
            names = [f"s{i}" for i in range(count)] + [f"padding{i}" for i in range(padded - count)]
            titles = ["x", "y", "z", "w"][:count] if count <= 4 else []
            titles += [None] * (padded - len(titles))
            dtype = np.dtype({"names": names, "formats": [base] * padded, "titles": titles})
            name = f"{base_name}{count}"
            module[name] = dtype
            module[f"make_{name}"] = partial(_make, dtype, padded)
            module[f"filled_{name}"] = partial(_filled, dtype, padded)
            module[f"zeros_{name}"] = partial(_zeros, dtype)
            vec_types[(base, count)] = dtype
            vec_type_to_scalar_and_count[dtype] = (base, count)


_define_vectors()
