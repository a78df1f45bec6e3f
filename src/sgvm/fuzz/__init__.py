"""Random differential testing of sub-group kernels (docs/fuzz.md)."""

from .backends import make_backend
from .campaign import Disagreement, Stats, run_batch
from .generator import Kernel, generate, program_source

__all__ = ["Disagreement", "Kernel", "Stats", "generate", "make_backend", "program_source",
           "run_batch"]
