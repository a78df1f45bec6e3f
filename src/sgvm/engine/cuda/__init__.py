"""The CUDA backend: a renderer from the SPIR-V Module to CUDA C, compiled with NVRTC
through CuPy and launched on an NVIDIA GPU (docs/cuda.md).

It shares the front half with the CPU engine (the Module, memory layout, the
sub-group size rules, the spec's semantics) and adds only ``render*.py`` (CUDA C
text), ``prelude.cuh`` (helper device functions) and ``runtime.py`` (compile
cache, device memory, launch). ``sgvm.runtime.launch.launch`` dispatches here for
``CUDA_DEVICE``; ``sgvm.cl`` lists the device when CuPy sees a GPU.
"""
