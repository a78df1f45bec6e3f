"""The parent side of the oracle: a child process (worker.py) fed over pipes."""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import select
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SgvmError
from ..runtime.args import BufferArg, KernelArg, LocalArg, NullArg, ValueArg
from . import worker as _worker
from .setup import OracleSetupError, environment


class OracleError(SgvmError):
    """The oracle failed to build or run something sgvm handed it."""


class OracleUnavailable(OracleError):
    """The oracle is not installed or does not start on this machine."""


class OracleTimeout(OracleError):
    """The oracle gave no answer in time (its process is killed; the next request starts a
    fresh one)."""


TIMEOUT_ENV = "SGVM_ORACLE_TIMEOUT"
DEFAULT_TIMEOUT = 300.0  # seconds for one request: a build of a big program under load


def _timeout() -> float:
    return float(os.environ.get(TIMEOUT_ENV) or DEFAULT_TIMEOUT)


def _wire_arg(arg: KernelArg) -> tuple:
    if isinstance(arg, BufferArg):
        return ("buffer", arg.allocation.data[arg.offset:])
    if isinstance(arg, LocalArg):
        return ("local", arg.nbytes)
    if isinstance(arg, ValueArg):
        return ("value", bytes(arg.data))
    if isinstance(arg, NullArg):
        return ("null",)
    raise OracleError(f"the oracle runner takes buffers, local memory and values, "
                      f"not {type(arg).__name__}")


class Oracle:
    """One oracle child process. Programs are SPIR-V binaries, keyed by their hash."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None
        self._info: dict[str, Any] | None = None

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> subprocess.Popen:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        try:
            env = environment()
        except OracleSetupError as exc:
            raise OracleUnavailable(str(exc)) from None
        self._proc = subprocess.Popen([sys.executable, str(Path(_worker.__file__))],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, env=env)
        status, detail = self._receive()
        if status != "ready":
            self.close()
            raise OracleUnavailable(f"Intel's CPU runtime did not start: {detail}")
        return self._proc

    def _receive(self, timeout: float | None = None) -> Any:
        """The child's next reply; OracleTimeout after ``timeout`` seconds without one
        (None: ``SGVM_ORACLE_TIMEOUT``, default 300)."""
        assert self._proc is not None and self._proc.stdout is not None
        limit = _timeout() if timeout is None else timeout
        ready, _, _ = select.select([self._proc.stdout], [], [], limit)
        if not ready:
            self._proc.kill()
            self._proc.wait()
            self._proc = None
            raise OracleTimeout(f"the oracle gave no answer in {limit:g} s (killed; set "
                                f"{TIMEOUT_ENV} to wait longer)")
        try:
            return pickle.load(self._proc.stdout)
        except (EOFError, pickle.UnpicklingError):
            code = self._proc.wait()
            self._proc = None
            raise OracleError(f"the oracle process died (exit status {code})") from None

    def request(self, req: tuple) -> Any:
        proc = self._start()
        assert proc.stdin is not None
        pickle.dump(req, proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        proc.stdin.flush()
        return self._receive()

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            self._proc.wait()
            self._proc = None

    def info(self) -> dict[str, Any]:
        """Platform, device, version, extensions and ``sub_group_sizes`` of the oracle."""
        if self._info is None:
            self._info = self.request(("info",))
        return self._info

    def build(self, program: bytes | str, options: str = "") -> str:
        """Build ``program`` — SPIR-V (bytes) or OpenCL C source (str) — on the oracle
        with build ``options``; returns its key. Raises OracleError with the log."""
        data = program.encode() if isinstance(program, str) else program
        key = hashlib.sha1(data + options.encode() + b"c" * isinstance(program, str)).hexdigest()
        log = self.request(("build", key, program, options))
        if log is not None:
            raise OracleError(f"the oracle failed to build the program: {log}")
        return key

    def run(self, spirv: bytes, kernel: str, args: Sequence[KernelArg],
            global_size: Sequence[int], local_size: Sequence[int] | None,
            global_offset: Sequence[int] | None = None) -> list[np.ndarray]:
        """Launch ``kernel`` once; the final bytes of every buffer argument, in order."""
        return self.run_many(spirv, [(kernel, args, global_size, local_size, global_offset)])[0]

    def run_many(self, spirv: bytes, launches: Sequence[tuple]) -> list[list[np.ndarray]]:
        """Several ``(kernel, args, global_size, local_size[, global_offset])`` launches of
        one program in one round trip. A launch the oracle refuses raises OracleError."""
        key = self.build(spirv)
        replies = self.request(("many", [
            ("run", key, k, [_wire_arg(a) for a in args], tuple(g),
             None if rest[0] is None else tuple(rest[0]),
             None if len(rest) < 2 or rest[1] is None else tuple(rest[1]))
            for k, args, g, *rest in launches]))
        out = []
        for (kernel, *_), (status, value) in zip(launches, replies, strict=True):
            if status != "ok":
                raise OracleError(f"the oracle failed to run {kernel}: {value}")
            out.append(value)
        return out


@functools.cache
def shared() -> Oracle:
    """The process-wide oracle (started on first use)."""
    return Oracle()
