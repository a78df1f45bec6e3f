"""Where a generated program runs: one of sgvm's devices, or the oracle.

A backend takes a SPIR-V program and a list of launches and returns, per launch, the
final contents of its buffers (or the error it raised). sgvm's devices are the ones
``SGVM_DEVICE`` can name (``sgvm.cl.platform``: ``cpu`` — the NumPy engine — and any
other backend registered there, such as ``native`` or ``cuda``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..check import Checker
from ..errors import SgvmError
from ..runtime import residency
from ..runtime.args import BufferArg, KernelArg
from ..runtime.launch import launch
from ..runtime.memory import Allocation
from ..runtime.ndrange import NDRange
from ..spirv import read


@dataclass
class Launch:
    """One kernel launch: NumPy arrays become buffers (copied), everything else as is."""

    kernel: str
    buffers: list[np.ndarray]
    global_size: tuple[int, ...]
    local_size: tuple[int, ...]


@dataclass
class Outcome:
    """The buffers after the launch (bytes), or the error, and the checker's findings."""

    buffers: list[np.ndarray] | None = None
    error: str | None = None
    findings: list[str] = field(default_factory=list)


def _args(buffers: Sequence[np.ndarray]) -> list[KernelArg]:
    return [BufferArg(Allocation(np.ascontiguousarray(b).view(np.uint8).reshape(-1).copy(),
                                 "global", f"arg{i}")) for i, b in enumerate(buffers)]


def sgvm_devices() -> dict[str, object]:
    """The device models ``SGVM_DEVICE`` can name here."""
    from ..cl.platform import _BACKENDS

    return dict(_BACKENDS)


class SgvmBackend:
    """Runs launches on one of sgvm's device models; ``check`` attaches the checker."""

    def __init__(self, name: str, check: bool = False) -> None:
        devices = sgvm_devices()
        if name not in devices:
            raise SgvmError(f"no sgvm backend {name!r} here; available: {', '.join(devices)}")
        self.name = name
        self.device = devices[name]
        self.check = check

    def run(self, spirv: bytes, launches: Sequence[Launch]) -> list[Outcome]:
        module = read(spirv)
        out = []
        for ln in launches:
            args = _args(ln.buffers)
            checker = Checker(echo=False) if self.check else None
            observers = checker.observers(module, ln.kernel) if checker else ()
            outcome = Outcome()
            try:
                launch(module, ln.kernel, args, NDRange(ln.global_size, ln.local_size),
                       device=self.device, observers=observers)
                for a in args:
                    residency.host_access(a.allocation)
                outcome.buffers = [a.allocation.data for a in args]
            except SgvmError as exc:
                outcome.error = f"{type(exc).__name__}: {exc}"
            if checker is not None:
                checker.finish()
                outcome.findings = [f"{f.category}: {f.message} ({f.site})"
                                    for f in checker.report.findings]
            out.append(outcome)
        return out


class OracleBackend:
    """Runs launches on Intel's CPU runtime (sgvm.oracle), all of a program in one trip."""

    name = "oracle"

    def __init__(self) -> None:
        from ..oracle import shared

        self.oracle = shared()

    def run(self, spirv: bytes | str, launches: Sequence[Launch],
            options: str = "") -> list[Outcome]:
        """``spirv`` may also be OpenCL C source, built by the oracle's own compiler."""
        from ..oracle import OracleError

        try:
            key = self.oracle.build(spirv, options)
        except OracleError as exc:
            return [Outcome(error=str(exc)) for _ in launches]
        try:
            replies = self.oracle.request(("many", [self._request(key, ln) for ln in launches]))
        except OracleError:
            # The runtime crashed on one of them: run each alone (a fresh process after
            # every crash) so only the launches that crash it are blamed.
            replies = []
            for ln in launches:
                try:
                    key = self.oracle.build(spirv, options)
                    replies.append(self.oracle.request(self._request(key, ln)))
                except OracleError as exc:
                    replies.append(("error", f"oracle crash: {exc}"))
        return [Outcome(buffers=value) if status == "ok" else Outcome(error=value)
                for status, value in replies]

    @staticmethod
    def _request(key: str, ln: Launch) -> tuple:
        return ("run", key, ln.kernel, [("buffer", a.allocation.data) for a in _args(ln.buffers)],
                ln.global_size, ln.local_size)


def make_backend(name: str, check: bool = False):
    """``oracle`` or the name of an sgvm device (``cpu``, alias ``numpy``: the NumPy engine)."""
    if name == "oracle":
        return OracleBackend()
    return SgvmBackend("cpu" if name == "numpy" else name, check)
