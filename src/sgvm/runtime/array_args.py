"""NumPy arrays and Python numbers as kernel arguments of ``sgvm.run`` / ``sgvm run``.

Both know the kernel's parameter types, so an array whose elements are not the
pointee type (float64 for ``global float*``, complex, Python objects) is refused
instead of being reinterpreted byte by byte.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..cl._base import cl_error
from ..cl._layout import ParamSpec
from ..cl.memory import refuse_objects

# OpenCL C scalar type names → NumPy dtypes (OpenCL C 3.0 s6.3.1, "Built-in Scalar Data Types").
OPENCL_SCALARS: dict[str, np.dtype] = {
    name: np.dtype(dt) for name, dt in {
        "bool": np.bool_, "char": np.int8, "uchar": np.uint8, "unsigned char": np.uint8,
        "short": np.int16, "ushort": np.uint16, "unsigned short": np.uint16,
        "int": np.int32, "uint": np.uint32, "unsigned int": np.uint32, "unsigned": np.uint32,
        "long": np.int64, "ulong": np.uint64, "unsigned long": np.uint64,
        "size_t": np.uint64, "ptrdiff_t": np.int64, "intptr_t": np.int64, "uintptr_t": np.uint64,
        "half": np.float16, "float": np.float32, "double": np.float64,
    }.items()
}
# OpenCL C 3.0 s6.3.2 "Built-in Vector Data Types": <scalar>n, n = 2, 3, 4, 8, 16.
_VECTOR = re.compile(r"(char|uchar|short|ushort|int|uint|long|ulong|half|float|double)(2|3|4|8|16)")
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "global", "__global", "constant",
               "__constant", "signed"}
_ROUTINE = "sgvm.run"


def scalar_dtype(name: str) -> np.dtype:
    """A NumPy dtype from an OpenCL C scalar name ("uint") or a NumPy name ("uint32")."""
    key = " ".join(name.split())
    if key in OPENCL_SCALARS:
        return OPENCL_SCALARS[key]
    dtype = np.dtype(key)
    if dtype.kind not in "biuf":
        raise TypeError(f"{name!r} is not a scalar type")
    return dtype


def pointee_element(p: ParamSpec) -> np.dtype | None:
    """The NumPy dtype of the scalars a pointer parameter points at (a vector's component),
    or None where any plain data fits: byte pointers (``char*``, ``uchar*``, ``void*``),
    structs, typedefs, pointers to pointers, and parameters known only from SPIR-V (whose
    pointee types clang does not keep reliably)."""
    if not p.declared:
        return None
    words = [w for w in p.type_name.replace("*", " * ").split() if w not in _QUALIFIERS]
    if words.count("*") != 1 or words[-1] != "*":
        return None
    base = " ".join(words[:-1])
    vector = _VECTOR.fullmatch(base)
    dtype = OPENCL_SCALARS.get(vector.group(1) if vector else base)
    return None if dtype is None or dtype.itemsize == 1 else dtype


def _scalar_base(dtype: np.dtype) -> np.dtype | None:
    """The one scalar dtype ``dtype`` is made of (itself, a sub-array's base, or every field of
    a record such as ``cl.cltypes.float4``), else None."""
    if dtype.subdtype is not None:
        return _scalar_base(dtype.subdtype[0])
    if dtype.fields:
        bases = {_scalar_base(f[0]) for f in dtype.fields.values()}
        return bases.pop() if len(bases) == 1 else None
    return dtype


def _matches(want: np.dtype, have: np.dtype | None) -> bool:
    """Same kind of number and size; integers of either signedness (same bits)."""
    if have is None or have.itemsize != want.itemsize:
        return False
    if want.kind in "iu":
        return have.kind in "iu"
    return have.kind == want.kind


API_FIX = "pass array.astype(np.{dtype}) and read the results from that copy, or change the parameter's type"


def check_array(p: ParamSpec, array: np.ndarray, fix: str = API_FIX) -> None:
    """CL_INVALID_ARG_VALUE unless ``array``'s elements are what pointer parameter ``p`` points
    at; ``fix`` (formatted with ``dtype``, ``name``) tells the user what to do instead."""
    refuse_objects(array, p.label, _ROUTINE)
    want = pointee_element(p)
    if want is None or _matches(want, _scalar_base(array.dtype)):
        return
    ctype = next(n for n, d in OPENCL_SCALARS.items() if d == want)
    raise cl_error("CL_INVALID_ARG_VALUE", f"{p.label} is {p.kind} {p.type_name} ({ctype}: {want.itemsize}-byte "
                   f"{'integer' if want.kind in 'iu' else 'float'} elements) but the array has dtype "
                   f"{array.dtype}, whose bytes would be reinterpreted; {fix.format(dtype=want.name, name=p.name)}",
                   _ROUTINE)


def python_number(p: ParamSpec, value: bool | int | float) -> Any:
    """A Python number for a by-value parameter of a plain OpenCL C scalar type, as that type."""
    from ..cl.kernel import python_scalar

    return python_scalar(value, OPENCL_SCALARS[p.type_name], p.label, p.type_name, _ROUTINE)
