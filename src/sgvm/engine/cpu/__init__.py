"""The CPU engine: a vectorised SIMT interpreter of OpenCL SPIR-V (see docs/engine.md).

Importing this package registers every instruction family's builders.
"""

from . import (  # noqa: F401  (registration)
    arith,
    atomics,
    composite,
    control,
    convert,
    dot_ops,
    ext,
    group_ops,
    image_block_ops,
    image_ops,
    media_block_ops,
    memory_ops,
    non_uniform_arith,
    non_uniform_ops,
    subgroup_ops,
)
