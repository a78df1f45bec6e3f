"""sgvm as an OpenCL platform: an installable client driver (cl_khr_icd) whose
entry points are implemented in Python on :mod:`sgvm.cl` (docs/platform.md).

``build()`` makes the library and its vendor file in the user cache; ``paths()``
says where they are (``sgvm icd path``).
"""

from .build import IcdBuildError, IcdPaths, build, paths

__all__ = ["IcdBuildError", "IcdPaths", "build", "paths"]
