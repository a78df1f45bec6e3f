"""Shared helpers of the host API: error construction and attribute-style info."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ..errors import Error, LogicError, MemoryError, RuntimeError
from .constants import _Constants

_MEMORY_CODES = {"CL_MEM_OBJECT_ALLOCATION_FAILURE", "CL_OUT_OF_RESOURCES", "CL_OUT_OF_HOST_MEMORY"}


def cl_error(code: str, what: str, routine: str = "") -> Error:
    """The PyOpenCL exception class for ``code``: MemoryError for allocation
    failures, LogicError for ``CL_INVALID_*`` and API misuse, RuntimeError otherwise."""
    if code in _MEMORY_CODES:
        return MemoryError(what, code, routine)
    if code.startswith("CL_INVALID") or code in ("CL_MISALIGNED_SUB_BUFFER_OFFSET", "CL_MEM_COPY_OVERLAP"):
        return LogicError(what, code, routine)
    return RuntimeError(what, code, routine)


def param_text(param: Any) -> str:
    """An info query's ``param`` for an error message: hex for an integer, else its repr."""
    return f"{int(param):#x}" if isinstance(param, int | np.integer) else repr(param)


def info_value(values: Mapping[int, Any], param: Any, namespace: type, routine: str) -> Any:
    """``values[param]``, or CL_INVALID_VALUE when ``param`` is not one of its keys ("param_name
    is not one of the supported values", OpenCL API s4-s5 clGet*Info) — whatever its type."""
    if isinstance(param, int | np.integer) and param in values:
        return values[param]
    raise cl_error("CL_INVALID_VALUE", f"{param_text(param)} is not a {namespace.__name__} value sgvm "
                   f"reports; use one of cl.{namespace.__name__}'s names", routine)


class InfoObject(ABC):
    """Base of objects with ``get_info``; ``obj.lower_case_name`` reads ``get_info(NS.UPPER_CASE_NAME)``."""

    _info_ns: ClassVar[type[_Constants]]

    @abstractmethod
    def get_info(self, param: int) -> Any:
        """The value of info query ``param`` (each subclass answers its own namespace)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        value = self._info_ns._names().get(name.upper())
        if value is None or not name.islower():
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self.get_info(value)

    def _answer(self, values: Mapping[int, Any], param: Any, routine: str) -> Any:
        """``values[param]``, or CL_INVALID_VALUE naming this object's info namespace."""
        return info_value(values, param, self._info_ns, routine)
