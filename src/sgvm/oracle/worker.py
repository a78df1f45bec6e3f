"""The oracle's child process: runs SPIR-V on Intel's CPU runtime through PyOpenCL.

Started by ``client.Oracle`` with ``setup.environment()``; imports nothing from sgvm.
Reads pickled requests from stdin and writes one pickled reply per request to stdout:

* ``("info",)`` → dict of platform and device facts
* ``("build", key, spirv[, options])`` → ``None``, or the build log of a failed build
* ``("run", key, kernel, args, global_size, local_size[, global_offset])`` →
  ``("ok", [buffer contents])``
  or ``("error", message)``; ``args`` are ``("buffer", uint8 array)``, ``("local", nbytes)``,
  ``("value", bytes)`` or ``("null",)``
* ``("many", [requests])`` → the list of their replies
"""

from __future__ import annotations

import os
import pickle
import sys
import warnings

import numpy as np

CL_DEVICE_SUB_GROUP_SIZES_INTEL = 0x4108  # cl_intel_required_subgroup_size


def _opencl():
    import pyopencl as cl

    warnings.simplefilter("ignore", cl.CompilerWarning)
    return cl


class Worker:
    def __init__(self) -> None:
        self.cl = cl = _opencl()
        platforms = [p for p in cl.get_platforms() if "Intel" in p.name]
        if not platforms:
            raise RuntimeError("no Intel OpenCL platform: the ICD loader did not load "
                               "libintelocl.so")
        self.device = platforms[0].get_devices()[0]
        self.ctx = cl.Context([self.device])
        self.queue = cl.CommandQueue(self.ctx)
        self.programs: dict[str, object] = {}

    def info(self) -> dict:
        d, cl = self.device, self.cl
        try:
            sizes = list(d.get_info(CL_DEVICE_SUB_GROUP_SIZES_INTEL))
        except (cl.Error, ValueError, TypeError):
            sizes = None
        return {"platform": d.platform.name, "platform_version": d.platform.version,
                "device": d.name.strip(), "version": d.version, "driver": d.driver_version,
                "extensions": d.extensions.split(), "sub_group_sizes": sizes}

    def build(self, key: str, program: bytes | str, options: str = "") -> str | None:
        """SPIR-V (bytes, clCreateProgramWithIL) or OpenCL C source (str)."""
        if key in self.programs:
            return None
        try:
            self.programs[key] = self.cl.Program(self.ctx, program).build(options)
        except self.cl.Error as exc:
            return str(exc)
        return None

    def run(self, key, kernel, args, global_size, local_size, global_offset=None):
        cl = self.cl
        try:
            k = getattr(self.programs[key], kernel)
            values, buffers = [], []
            for arg in args:
                if arg[0] == "buffer":
                    host = np.array(arg[1], dtype=np.uint8, copy=True)
                    buf = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                                    hostbuf=host) if host.size else None
                    values.append(buf)
                    buffers.append((buf, host))
                elif arg[0] == "local":
                    values.append(cl.LocalMemory(arg[1]))
                elif arg[0] == "value":
                    values.append(np.frombuffer(arg[1], dtype=np.uint8))
                else:
                    values.append(None)
            k.set_args(*values)
            cl.enqueue_nd_range_kernel(
                self.queue, k, tuple(global_size),
                None if local_size is None else tuple(local_size),
                None if global_offset is None else tuple(global_offset))
            for buf, host in buffers:
                if buf is not None:
                    cl.enqueue_copy(self.queue, host, buf)
            self.queue.finish()
            return ("ok", [host for _, host in buffers])
        except (cl.Error, AttributeError, KeyError, TypeError, ValueError) as exc:
            return ("error", f"{type(exc).__name__}: {exc}")

    def handle(self, request):
        op = request[0]
        if op == "many":
            return [self.handle(r) for r in request[1]]
        if op == "info":
            return self.info()
        if op == "build":
            return self.build(*request[1:])
        if op == "run":
            return self.run(*request[1:])
        raise ValueError(f"unknown oracle request {op!r}")


def main() -> None:
    # Replies go through a duplicate of fd 1; fd 1 itself becomes stderr, so whatever the
    # runtime prints (kernel printf included) cannot corrupt them.
    stdin, stdout = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        worker = Worker()
        pickle.dump(("ready", None), stdout)
    except Exception as exc:  # reported to the client, which raises OracleUnavailable
        pickle.dump(("failed", f"{type(exc).__name__}: {exc}"), stdout)
        stdout.flush()
        return
    stdout.flush()
    while True:
        try:
            request = pickle.load(stdin)
        except EOFError:
            return
        pickle.dump(worker.handle(request), stdout)
        stdout.flush()


if __name__ == "__main__":
    main()
