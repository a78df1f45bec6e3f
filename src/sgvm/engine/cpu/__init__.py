"""The CPU engine: a vectorised SIMT interpreter of OpenCL SPIR-V (see docs/engine.md).

Importing this package registers every instruction family's builders.
"""

from . import (  # noqa: F401  (registration)
    arith,
    atomics,
    composite,
    control,
    convert,
    ext,
    group_ops,
    image_block_ops,
    image_ops,
    memory_ops,
    subgroup_ops,
)
