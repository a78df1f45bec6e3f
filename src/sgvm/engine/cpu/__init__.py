"""The CPU engine: a vectorised SIMT interpreter of OpenCL SPIR-V (see docs/engine.md).

Importing this package registers every instruction family's builders.
"""

from . import arith, atomics, composite, control, convert, ext, groups, memory_ops  # noqa: F401  (registration)
