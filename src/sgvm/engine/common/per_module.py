"""What a launch remembers per SPIR-V module, for as long as the module lives."""

from __future__ import annotations

import weakref
from typing import Any, Generic, TypeVar

from ...spirv import Module

V = TypeVar("V")


class PerModule(Generic[V]):
    """A dictionary of its own for each live module: ``of(module)``. Looked up by the module's
    id, which no other live object shares (a plain dictionary look-up and one weak-reference
    call, where a ``WeakKeyDictionary`` makes a new weak reference at every look-up); the
    entry goes when the module does, so nothing here keeps a module alive."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[weakref.ref[Module], dict[Any, V]]] = {}

    def of(self, module: Module) -> dict[Any, V]:
        key = id(module)
        hit = self._by_id.get(key)
        if hit is not None and hit[0]() is module:
            return hit[1]
        entries: dict[Any, V] = {}
        by_id = self._by_id
        self._by_id[key] = (weakref.ref(module, lambda _, k=key: by_id.pop(k, None)), entries)
        return entries

    def __contains__(self, module: Module) -> bool:
        hit = self._by_id.get(id(module))
        return hit is not None and hit[0]() is module

    def __len__(self) -> int:
        return len(self._by_id)
