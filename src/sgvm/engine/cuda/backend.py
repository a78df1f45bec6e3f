"""The CUDA backend behind the backend interface (``engine.backend``)."""

from __future__ import annotations

import importlib.util

from ...errors import UnsupportedError
from ..backend import Backend, LaunchRequest, LaunchResult


class CudaBackend(Backend):
    """Kernels rendered to CUDA C, compiled by NVRTC, run on the GPU (docs/cuda.md)."""

    name = "cuda"

    def launch(self, request: LaunchRequest) -> LaunchResult:
        if request.observers:
            raise UnsupportedError("observers (checker, profiler) need the CPU device")
        from .runtime import launch_cuda

        return launch_cuda(request.module, request.kernel, request.args, request.ndrange,
                           request.sub_group_size, LaunchResult(), request.labels)

    def available(self) -> bool:
        """CuPy is installed and sees at least one GPU."""
        if importlib.util.find_spec("cupy") is None:
            return False
        from .runtime import available

        return available()


BACKEND = CudaBackend()
