"""The table of instruction builders that ``decode`` consults.

Each family module (arith, convert, composite, memory_ops, …) registers a
builder per opcode name. A builder receives the decode context and the
instruction and returns an :class:`Op`: the destination register, a closure
``fn(regs, state) -> value`` and whether the instruction is pure (no memory
or collective effect, so it may run on inactive lanes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class Op(NamedTuple):
    dst: int  # result id (0: none)
    fn: Callable[[list, Any], Any]
    pure: bool = True
    vector: bool = False  # the result is a vector (trailing axis)


BUILDERS: dict[str, Callable[..., Op | None]] = {}
# "Affine" below stands for the lazy value kinds of values.py: Affine and GroupUniform.
# Opcodes whose builders accept Affine operands (the rest see materialised arrays).
AFFINE_AWARE: set[str] = set()
# Opcodes that may turn Affine operands into an Affine result.
AFFINE_PRODUCERS: set[str] = set()
# Opcodes that may return an Affine result whatever their operands (reductions).
AFFINE_SOURCES: set[str] = set()


def builder(*opnames: str, affine: str = ""):
    """Register the decorated function as the builder of ``opnames``.

    ``affine``: ``"consume"`` when the builder accepts Affine operands,
    ``"produce"`` when it may also return one, ``"source"`` when it may return one
    from ordinary operands (it receives them materialised).
    """

    def deco(fn):
        for name in opnames:
            BUILDERS[name] = fn
            if affine in ("consume", "produce"):
                AFFINE_AWARE.add(name)
            if affine == "produce":
                AFFINE_PRODUCERS.add(name)
            if affine == "source":
                AFFINE_SOURCES.add(name)
        return fn

    return deco
