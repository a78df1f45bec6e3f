"""A kernel's parameters as every backend and the runtime see them (cached per module)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from ...spirv import Module, Type

_CACHE: weakref.WeakKeyDictionary[Module, dict[str, tuple[KernelParam, ...]]] = \
    weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class KernelParam:
    """One OpFunctionParameter of a kernel: its id, type, error-message label and
    whether it is a struct passed by value (``FuncParamAttr ByVal``: a pointer to a
    private copy)."""

    id: int
    type: Type
    label: str
    byval: bool


def arg_label(name: str | None, index: int) -> str:
    """How error messages name a kernel parameter (clang emits no OpName for them)."""
    return f"argument #{index} '{name}'" if name else f"argument #{index}"


def by_value(module: Module, pid: int) -> bool:
    """Whether parameter ``pid`` is a struct passed by value (a pointer to a private copy)."""
    return any(d.name == "FuncParamAttr" and d.args and d.args[0] == "ByVal"
               for d in module.decorations.get(pid, ()))


def kernel_params(module: Module, kernel: str) -> tuple[KernelParam, ...]:
    """The parameters of ``kernel`` (an entry point of ``module``)."""
    per = _CACHE.get(module)
    if per is None:
        per = _CACHE[module] = {}
    params = per.get(kernel)
    if params is None:
        fn = module.functions[module.entry_point(kernel).function]
        params = per[kernel] = tuple(
            KernelParam(p.result_id, module.types[p.result_type],
                        arg_label(module.names.get(p.result_id), i),
                        by_value(module, p.result_id))
            for i, p in enumerate(fn.params))
    return params
