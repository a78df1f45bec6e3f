"""Child process for baselines.py: run one saved case through PyOpenCL, print seconds."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pyopencl as cl


def main(folder: str, launches: str) -> None:
    case = json.loads((Path(folder) / "case.json").read_text())
    arrays = np.load(Path(folder) / "args.npz")
    ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, case["source"]).build(options=case["options"])
    kernel = getattr(prg, case["kernel"])
    args = []
    for kind, value in case["args"]:
        if kind == "local":
            args.append(cl.LocalMemory(value))
        elif kind == "buffer":
            args.append(cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                                  hostbuf=arrays[value]))
        else:
            args.append(arrays[value][()])
    local = tuple(case["local"]) if case["local"] else None
    elapsed = 0.0
    for _ in range(int(launches)):
        queue.finish()
        start = time.perf_counter()
        kernel(queue, tuple(case["global"]), local, *args)
        queue.finish()
        elapsed = time.perf_counter() - start
    print(elapsed)


if __name__ == "__main__":
    main(*sys.argv[1:3])
