"""The CUDA backend behind the backend interface (``engine.backend``)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from ...errors import UnsupportedError
from ..backend import Backend, LaunchRequest, LaunchResult


class CudaBackend(Backend):
    """Kernels rendered to CUDA C, compiled by NVRTC, run on the GPU (docs/cuda.md)."""

    name = "cuda"

    def __init__(self) -> None:
        self._launch_cuda: Callable[..., LaunchResult] | None = None  # imported on first use

    def launch(self, request: LaunchRequest) -> LaunchResult:
        if request.observers:
            raise UnsupportedError("observers (checker, profiler) need the CPU device")
        launch_cuda = self._launch_cuda
        if launch_cuda is None:
            from .runtime import launch_cuda

            self._launch_cuda = launch_cuda
        try:
            return launch_cuda(request.module, request.kernel, request.args, request.ndrange,
                               request.sub_group_size, LaunchResult(), request.labels,
                               request.settings, request.max_steps)
        except Exception as exc:
            from .failures import cuda_failure

            error = cuda_failure(exc, f"running kernel {request.kernel!r}")
            if error is None:
                raise
            raise error from exc

    def available(self) -> bool:
        """CuPy is installed and sees at least one GPU."""
        if importlib.util.find_spec("cupy") is None:
            return False
        from .runtime import available

        return available()


BACKEND = CudaBackend()
