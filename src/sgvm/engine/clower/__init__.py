"""The C lowering every C-emitting backend shares (DESIGN.md: "one lowering, two C targets").

``ctypes_`` flattens SPIR-V values into scalar C leaves; ``ops`` and ``ext`` hold one
handler per instruction (``dot`` adds the integer dot products to ``ops.OPS`` when imported) (core and OpenCL.std) that turns an Instruction into C
assignments to its result's leaves. A handler talks to its target's renderer only
through a small interface: ``m`` (the Module), ``rtype``/``type_of``, ``leaves``/``leaf``
(C expressions of a value's leaves), ``result_names``, ``assign``, ``emit``, the memory
guards ``guard``/``guarded``/``guarded_assign``, ``bounds``, ``ext`` (the target's
OpenCL.std table) and ``target`` (its name in errors). The helper functions the
expressions call (``sg_udiv``, ``h2f``, ``atomicAdd``, ``__int_as_float`` …) are defined
by each target's prelude: ``engine/cuda/prelude.cuh`` for CUDA, ``engine/native/prelude.h``
for the CPU. The targets differ in their structure (``engine/cuda/render.py``: a thread
per work-item; ``engine/native/render.py``: lane loops per work-group) and in the
instructions only one of them renders (CUDA's warp collectives and images; ``printf`` renders for both).
"""
