"""Intel's CPU runtime for OpenCL as a second, independent implementation (docs/oracle.md).

The oracle runs the same SPIR-V sgvm runs, in a child process whose ICD loader is
pointed at ``libintelocl.so`` (``pip install 'sgvm[oracle]'``, x86-64 Linux):

>>> with Oracle() as oracle:
...     outs = oracle.run(spirv, "k", [BufferArg(...), ...], (64,), (32,))
"""

from .client import Oracle, OracleError, OracleTimeout, OracleUnavailable, shared
from .setup import environment, vendor_folder
from .spirv_size import with_sub_group_size

__all__ = ["Oracle", "OracleError", "OracleTimeout", "OracleUnavailable", "environment", "shared",
           "vendor_folder", "with_sub_group_size"]
