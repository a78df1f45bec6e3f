"""pytest plugin: record or replay ``sgvm.compile`` results, for machines without clang.

``SGVM_SPV_RECORD=DIR`` stores each build's SPIR-V under DIR, keyed by a hash of
(source, options); ``SGVM_SPV_REPLAY=DIR`` answers ``sgvm.compile`` from DIR.
The GPU machine has CuPy but no clang: record here, carry DIR, replay there
(docs/cuda.md, "Differential suite"). Load with ``-p spv_archive`` and
``tests/cuda`` on PYTHONPATH.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import sgvm

_compile = sgvm.compile


def _key(source: str, options: object) -> str:
    return hashlib.sha256(f"{source}\0{options}".encode()).hexdigest()


def _recording(source: str, options: object = "", **kw: object) -> bytes:
    spv = _compile(source, options, **kw)  # type: ignore[arg-type]
    d = Path(os.environ["SGVM_SPV_RECORD"])
    d.mkdir(parents=True, exist_ok=True)
    (d / (_key(source, options) + ".spv")).write_bytes(spv)
    return spv


def _replaying(source: str, options: object = "", **kw: object) -> bytes:
    path = Path(os.environ["SGVM_SPV_REPLAY"]) / (_key(source, options) + ".spv")
    if not path.exists():
        return _compile(source, options, **kw)  # type: ignore[arg-type]
    return path.read_bytes()


if os.environ.get("SGVM_SPV_RECORD"):
    sgvm.compile = _recording
elif os.environ.get("SGVM_SPV_REPLAY"):
    sgvm.compile = _replaying
