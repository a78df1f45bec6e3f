"""The CUDA backend: a renderer from the SPIR-V Module to CUDA C, compiled with NVRTC
through CuPy and launched on an NVIDIA GPU (docs/cuda.md).

It shares the front half with the other backends (the Module, ``engine.common``: memory
layout, constants, printf formatting; the sub-group size rules, the spec's semantics)
and adds only ``render*.py`` (CUDA C text), ``prelude.cuh`` (helper device functions),
``runtime.py`` (compile cache, device memory, launch) and ``backend.py`` (the backend
interface, ``engine.backend``, for ``CUDA_DEVICE``); ``sgvm.cl`` lists the device when
CuPy sees a GPU.
"""
