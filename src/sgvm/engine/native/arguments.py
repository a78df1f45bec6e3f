"""The argument words of a native kernel (``KernelInfo.params``, ``KernelInfo.globals``):
what the launcher passes for each parameter and each program-scope variable the kernel
uses, and the C++ that reads them at the top of its function (``engine/native/backend.py``
packs them)."""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedError
from ...spirv import Function, Module
from ..clower import ctypes_ as C

# parameter kinds by type (the launcher's words): pointers, images (a descriptor's
# address, engine/common/image_descriptor.py), samplers (the sampler_t literal); others
# are values
_PARAM_KINDS = {"Pointer": "ptr", "Image": "image", "Sampler": "sampler"}


def _holds_addresses(m: Module, cid: int | None) -> bool:
    """Whether constant ``cid`` (a variable's initializer) holds an address, ``(ulong)gtab``:
    the NumPy engine's storage, which both backends share, holds its tagged pointers there,
    which native code cannot dereference."""
    c = m.constants.get(cid) if cid is not None else None
    if c is None:
        return cid in m.variables
    if c.op == "OpSpecConstantOp":
        return any(isinstance(o, int) and _holds_addresses(m, o) for o in c.value["operands"])
    return isinstance(c.value, list) and any(_holds_addresses(m, i) for i in c.value)


def argument_words(r: Any, f: Function, name: str, info: Any
                   ) -> tuple[list[str], dict[int, int], dict[int, int]]:
    """The C++ lines reading the words of kernel ``f`` (``name``), its pointer parameters
    (id → index) and each parameter's first word; fills ``info``'s params, globals and
    arg_words and the renderer's names for them (``r.params``, ``r.storage``,
    ``r.globals``). A local pointer's word is its offset in the work-group's local memory; a
    program-scope variable's, its address (the NumPy engine's storage, which both backends
    share)."""
    head: list[str] = []
    word = 0
    pointers: dict[int, int] = {}  # pointer parameter → its index
    words: dict[int, int] = {}  # parameter index → its first argument word
    for i, p in enumerate(f.params):
        t = r.m.types[p.result_type]
        lts = C.leaf_types(t)
        r.params[p.result_id] = f"a{i}"
        r.storage[p.result_id] = "scalar"
        words[i] = word
        if t.op == "Pointer":
            pointers[p.result_id] = i
        if t.op == "Pointer" and t.storage_class == "Workgroup":
            head.append(f"  char *a{i} = sg_g.local + sg_args[{word}];")
            info.params.append(("local", t))
            word += 1
            continue
        names = [f"a{i}"] if len(lts) == 1 else [f"a{i}_{k}" for k in range(len(lts))]
        for x, n in zip(lts, names, strict=True):
            ct = C.scalar_ctype(x)
            head.append(f"  {ct} {n} = sg_from_bits<{ct}>(sg_args[{word}]);" if x.op != "Bool"
                        else f"  bool {n} = sg_args[{word}] != 0;")
            word += 1
        info.params.append((_PARAM_KINDS.get(t.op, "value"), t))
    for vid in sorted(r.m.entry_point_variables(name)):
        var = r.m.variables.get(vid)
        if var is None or vid in r.builtins or var.storage_class == "Workgroup":
            continue
        if any(x.op == "Pointer" for x in C.leaf_types(var.pointee)) or \
                _holds_addresses(r.m, var.initializer):
            raise UnsupportedError("native backend: a program-scope variable holding pointers "
                                   "or addresses")
        r.globals[vid] = word
        info.globals.append(vid)
        head.append(f"  char *g{vid} = (char *)sg_args[{word}];")
        word += 1
    info.arg_words = word
    return head, pointers, words
