"""Mutated-but-parseable SPIR-V through the launch path: build, bind arguments, run every kernel.

Only sgvm's own errors (``sgvm.errors.SgvmError`` and its subclasses: SpirvFormatError,
SpirvValidationError, the ``cl`` errors, UnsupportedError, KernelMemoryError,
KernelTimeout …) may come out; anything else is a crash.

Run as a script for an offline campaign::

    PYTHONPATH=src:tests python -m spirv.launch_fuzz 2000
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import random
import sys
import traceback

import numpy as np

from sgvm import cl
from sgvm.errors import SgvmError
from sgvm.spirv import read

BUFFER_BYTES = 4096
ITEMS = 16


def _argument(p) -> object:
    if p.kind in ("global", "constant"):
        return np.zeros(BUFFER_BYTES, np.uint8)
    if p.kind == "local":
        return BUFFER_BYTES
    return np.zeros(1, f"V{max(p.size, 1)}")[0]


def launch_all(data: bytes, context=None) -> None:
    """Build ``data`` as a program and run each kernel over a small range with zeroed buffers."""
    from sgvm.runtime.quick import _context, run

    ctx = context or _context()[0]
    prg = cl.Program(ctx, data).build()
    for name in prg.module.kernel_names:
        params = prg.kernel_params(name)
        if any(p.kind not in ("global", "constant", "local", "value") for p in params):
            continue  # images and samplers: not fuzzed here
        run(prg, name, (ITEMS,), None, *(_argument(p) for p in params))


def mutate(words: np.ndarray, rng: random.Random) -> bytes:
    """One mutation of a module's words after the header: bit flips, a replaced word or an id swap."""
    w = words.copy()
    n = len(w)
    kind = rng.choice(("flip", "word", "id"))
    i = rng.randrange(5, n)
    if kind == "flip":
        w[i] ^= np.uint32(1 << rng.randrange(32))
    elif kind == "word":
        w[i] = rng.choice((0, 1, 2, 3, 4, 0xFFFFFFFF, 0x7FFFFFFF, rng.randrange(2**32)))
    else:
        w[i] = rng.randrange(1, int(w[3]))  # most words after an opcode are ids: point one elsewhere
    return w.tobytes()


def parseable_mutants(bases: list[bytes], count: int, seed: int):
    """``count`` mutants that the reader accepts, cycling through ``bases``."""
    rng = random.Random(seed)
    made = 0
    tries = 0
    while made < count and tries < count * 50:
        tries += 1
        base = bases[tries % len(bases)]
        data = mutate(np.frombuffer(base, "<u4"), rng)
        try:
            read(data)
        except SgvmError:
            continue
        made += 1
        yield data


def campaign(count: int, seed: int = 14) -> collections.Counter:
    """Run ``count`` parseable mutants of the compiled test corpus; tally outcomes."""
    from .corpus import compile_corpus

    os.environ.setdefault("SGVM_MAX_STEPS", "20000")
    corpus = compile_corpus()
    bases = [v for k, v in sorted(corpus.items()) if not k.startswith("images")]
    tally: collections.Counter = collections.Counter()
    crashes: dict[str, str] = {}
    for data in parseable_mutants(bases, count, seed):
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # kernels' printf output
                launch_all(data)
            tally["ran"] += 1
        except SgvmError as exc:
            tally[f"sgvm: {type(exc).__name__}"] += 1
        except Exception as exc:  # noqa: BLE001 - the campaign counts what escapes
            key = f"CRASH: {type(exc).__name__}"
            tally[key] += 1
            crashes.setdefault(f"{key}: {exc}"[:160], traceback.format_exc(limit=-2))
    for key, tb in list(crashes.items())[:40]:
        print(key, "\n", tb, file=sys.stderr)
    return tally


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for outcome, k in sorted(campaign(n).items()):
        print(f"{k:6d}  {outcome}")
