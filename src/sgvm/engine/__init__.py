"""Engines that execute a SPIR-V Module: ``cpu`` (the vectorised NumPy
interpreter, docs/engine.md) and ``cuda`` (CUDA C rendered from the module,
docs/cuda.md)."""
