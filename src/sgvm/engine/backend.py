"""The one interface through which the runtime runs a kernel on any backend.

``runtime.launch`` validates a launch (kernel name, argument count, NDRange against
the device, sub-group size) and hands a :class:`LaunchRequest` to the backend its
device names (``DeviceModel.backend``); a backend fills a :class:`LaunchResult`.
Backends are found by name (:func:`get`) and imported on first use, so the runtime
never imports one it does not run on.

* ``numpy``: ``engine.cpu``, the vectorised interpreter and the reference; the only
  backend that takes observers (checker, message profile).
* ``native``: ``engine.native``, C++ through the bundled clang, lock-step lanes per
  work-group on a thread pool (docs/native.md); launches with observers and kernels it
  cannot compile run on ``numpy``, announced once on stderr.
* ``cuda``: ``engine.cuda``, CUDA C through NVRTC (docs/cuda.md).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..runtime.args import KernelArg
from ..runtime.device import DeviceModel
from ..runtime.environment import Settings
from ..runtime.ndrange import NDRange
from ..runtime.variant import Variant
from ..spirv import Module
from .common.signature import KernelParam


@dataclass
class LaunchResult:
    """What a launch reports: printf output (work-item order), step counts, timing, and
    the message profile when a profiling queue ran it (``sgvm.visa.MessageProfile``)."""

    printf: str = ""
    steps: int = 0
    batches: int = 0
    seconds: float = 0.0
    profile: Any = None


@dataclass
class LaunchRequest:
    """A validated launch: ``labels[i]`` names parameter ``i`` in error messages as the
    source spells it; ``sub_group_size`` is the kernel's (already checked against the
    device); ``ndrange`` has at least one work-item."""

    module: Module
    kernel: str
    args: Sequence[KernelArg]
    ndrange: NDRange
    sub_group_size: int
    params: Sequence[KernelParam]
    labels: Sequence[str]
    device: DeviceModel
    observers: Sequence[Any]
    options: Any
    t0: float  # time.perf_counter() when the launch began (LaunchResult.seconds counts from it)
    variant: Variant = Variant()  # the implementation-defined choices (runtime.variant)
    max_steps: int | None = None  # the step budget per batch (None: SGVM_MAX_STEPS)
    settings: Settings | None = None  # the environment the launch read (None: read it now)


# A launch run once more (``Backend.again``): called with the time it began and a function
# that makes its request (the errors of a run that fails need it; made only then).
Again = Callable[[float, Callable[[], LaunchRequest]], LaunchResult]


class Backend(ABC):
    """A way to run kernels: one instance per backend, shared by every launch."""

    name: str

    @abstractmethod
    def launch(self, request: LaunchRequest) -> LaunchResult:
        """Run the request's kernel over its NDRange; raises the runtime's errors
        (``LogicError``, ``KernelMemoryError``, ``KernelTimeout``, ``UnsupportedError``)."""

    def available(self) -> bool:
        """Whether this backend can run here (a GPU, a compiler)."""
        return True

    def again(self, request: LaunchRequest) -> Again | None:
        """The launch of ``request`` as a function that runs it, and runs it again each time it
        is called, with the same argument objects, NDRange, device, options, environment and
        variant (``runtime.repeats`` asks when a launch comes a second time, and hands the
        function every later launch like it); None where the backend has nothing prepared to
        save, which is the default: each launch then goes through ``launch``."""
        return None


_MODULES = {"numpy": "sgvm.engine.cpu.backend", "native": "sgvm.engine.native.backend",
            "cuda": "sgvm.engine.cuda.backend"}
_LOADED: dict[str, Backend] = {}


def get(name: str) -> Backend:
    """The backend called ``name`` (imported on first use)."""
    b = _LOADED.get(name)
    if b is None:
        if name not in _MODULES:
            raise ValueError(f"no backend named {name!r}; use one of {', '.join(_MODULES)}")
        b = _LOADED[name] = importlib.import_module(_MODULES[name]).BACKEND
    return b
