"""Child process for test_intel_cpu_peer.py: run the sub-group id kernel on Intel's CPU
runtime through PyOpenCL and print the results as JSON.

    python intel_cpu_worker.py VENDORS_DIR SOURCE_FILE CASES_JSON
"""

from __future__ import annotations

import json
import os
import sys
import warnings

import numpy as np


def main(vendors: str, source: str, cases: str) -> None:
    os.environ["OCL_ICD_VENDORS"] = vendors  # before PyOpenCL's loader looks
    os.environ.pop("OCL_ICD_FILENAMES", None)
    warnings.simplefilter("ignore")
    import pyopencl as cl

    dev = cl.get_platforms()[0].get_devices()[0]
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    text = open(source, encoding="utf-8").read()
    out = []
    for required, local in json.loads(cases):
        attr = f"__attribute__((intel_reqd_sub_group_size({required})))\n" if required else ""
        try:
            prg = cl.Program(ctx, attr + text).build("-cl-std=CL3.0")
        except cl.Error:
            out.append(None)
            continue
        kernel = cl.Kernel(prg, "ids")
        n = int(np.prod(local))
        res = np.zeros(4 * n, np.int32)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=res)
        kernel(queue, tuple(local), tuple(local), buf)
        cl.enqueue_copy(queue, res, buf)
        queue.finish()
        count = kernel.get_sub_group_info(dev, cl.kernel_sub_group_info.SUB_GROUP_COUNT_FOR_NDRANGE,
                                          tuple(local))
        out.append({"ids": res.tolist(), "count": int(count)})
    print(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:4])
