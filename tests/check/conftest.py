"""Helpers: run a kernel under the checker and find lines in its source."""

from __future__ import annotations

import pytest

import sgvm
import sgvm.cl as cl
from sgvm.check import Finding
from sgvm.runtime.quick import _context

from .helpers import N


@pytest.fixture
def ctx():
    """The context sgvm.run uses now (tests/portability makes it anew for the default device:
    one kept for the session went stale when that module ran first on a worker)."""
    return _context()[0]


@pytest.fixture
def check(ctx):
    """``check(src, *args) -> findings`` of kernel ``k`` over N items, groups of 32;
    ``options`` are added to ``-cl-std=CL2.0``."""

    def run(src: str, *args, global_size: int = N, local_size: int = 32,
            options: str = "") -> list[Finding]:
        prg = cl.Program(ctx, src).build(f"-cl-std=CL2.0 {options}".strip(), check=True)
        prg.checker.echo = False
        sgvm.run(prg, "k", (global_size,), (local_size,), *args)
        return prg.checker.report.findings

    return run

