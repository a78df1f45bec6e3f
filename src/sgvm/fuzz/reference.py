"""Recorded oracle results: an independent reference for a fixed set of generated kernels
that needs neither the oracle nor another backend to check against (tests/fuzz).

A reference maps ``"seed/size"`` to the SHA-1 of the kernel's source and of the output and
block-write buffers the oracle left; a buffer the oracle is known to get wrong (a
``sgvm.oracle.differences`` entry explains the disagreement) is recorded as None and
not compared.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .. import compile as compile_source
from .campaign import OPTIONS, batches, compare, kernels_for, launch_of
from .generator import program_source
from .known import classify

SIZE_HINT = 20


def digest(data: bytes | np.ndarray) -> str:
    return hashlib.sha1(bytes(data)).hexdigest()


def record(seeds: Sequence[int], sizes: Sequence[int], omit: frozenset[str],
           log: Callable[[str], None] = print) -> dict:
    """Run every kernel on the oracle and on sgvm's NumPy engine; record the oracle's
    buffers. A disagreement no known difference explains stops the recording."""
    from .backends import make_backend

    cpu, oracle = make_backend("cpu"), make_backend("oracle")
    kernels = kernels_for(seeds, sizes, SIZE_HINT, omit)
    entries = {}
    for batch in batches(kernels, 40):
        spirv = compile_source(program_source(batch), OPTIONS)
        launches = [launch_of(k) for k in batch]
        ours, theirs = cpu.run(spirv, launches), oracle.run(spirv, launches)
        for k, a, b in zip(batch, ours, theirs, strict=True):
            if b.buffers is None:
                raise RuntimeError(f"seed {k.seed} size {k.launch.sub_group_size}: {b.error}")
            known = classify(k, a.buffers, b.buffers) if compare(k, a, b) else None
            if compare(k, a, b) and known is None:
                raise RuntimeError(f"seed {k.seed} size {k.launch.sub_group_size}: "
                                   f"{compare(k, a, b)}")
            entries[f"{k.seed}/{k.launch.sub_group_size}"] = {
                "source": digest(k.source().encode()),
                "out": digest(b.buffers[1]),
                "blk": None if known == "partial-block-write" else digest(b.buffers[2]),
            }
        log(f"recorded {len(entries)} kernels")
    return {"size_hint": SIZE_HINT, "omit": sorted(omit), "kernels": entries}


def save(reference: dict, path: Path) -> None:
    path.write_text(json.dumps(reference, indent=0, sort_keys=True) + "\n")


def load(path: Path) -> dict:
    return json.loads(path.read_text())
