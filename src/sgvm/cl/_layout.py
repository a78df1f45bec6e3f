"""Kernel parameters seen from the SPIR-V: kinds, by-value sizes, qualifiers.

By-value sizes follow the C layout rules OpenCL C uses (OpenCL C 3.0 s6.3.5,
"Alignment of Types"): scalars and vectors are aligned to their size, a
3-component vector takes the space of 4, structs align each member to its
alignment (``Offset`` decorations win, ``CPacked`` structs have none).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spirv import Module, Type
from ._signature import SourceParam

_STORAGE_KIND = {"CrossWorkgroup": "global", "UniformConstant": "constant", "Workgroup": "local",
                 "Generic": "global"}
_INT_NAMES = {8: "char", 16: "short", 32: "int", 64: "long"}
_FLOAT_NAMES = {16: "half", 32: "float", 64: "double"}
_IMAGE_NAMES = {("1D", 0): "image1d_t", ("1D", 1): "image1d_array_t", ("2D", 0): "image2d_t",
                ("2D", 1): "image2d_array_t", ("3D", 0): "image3d_t", ("Buffer", 0): "image1d_buffer_t"}
_ACCESS = {"ReadOnly": "read_only", "WriteOnly": "write_only", "ReadWrite": "read_write"}


def type_layout(module: Module, t: Type) -> tuple[int, int]:
    """(size, alignment) in bytes of ``t`` as a kernel argument or buffer element."""
    if t.op in ("Int", "Float"):
        n = max(t.width // 8, 1)
        return n, n
    if t.op == "Bool":
        return 1, 1
    if t.op == "Vector":
        assert t.component is not None
        elem, _ = type_layout(module, t.component)
        size = elem * (4 if t.count == 3 else t.count)
        return size, size
    if t.op == "Array":
        assert t.component is not None
        elem, align = type_layout(module, t.component)
        return elem * t.count, align
    if t.op == "Struct":
        packed = module.has_decoration(t.id, "CPacked")
        size = align = 1
        offset = 0
        for i, member in enumerate(t.members):
            msize, malign = type_layout(module, member)
            malign = 1 if packed else malign
            explicit = next((d.args[0] for d in module.member_decorations.get((t.id, i), ())
                             if d.name == "Offset"), None)
            offset = explicit if explicit is not None else -(-offset // malign) * malign
            offset += msize
            size = max(size, offset)
            align = max(align, malign)
        extra = module.decoration(t.id, "Alignment")
        if extra:
            align = max(align, int(extra[0]))
        return -(-size // align) * align, align
    if t.op in ("Pointer", "Event", "DeviceEvent", "Queue"):
        return 8, 8
    return 0, 1


def spirv_type_name(t: Type) -> str:
    """An OpenCL C spelling of ``t`` for kernel arguments without source (integers print signed)."""
    if t.op == "Int":
        return _INT_NAMES.get(t.width, f"int{t.width}")
    if t.op == "Float":
        return _FLOAT_NAMES.get(t.width, f"float{t.width}")
    if t.op == "Vector" and t.component is not None:
        return f"{spirv_type_name(t.component)}{t.count}"
    if t.op == "Pointer":
        return (spirv_type_name(t.pointee) if t.pointee is not None else "void") + "*"
    if t.op == "Image":
        return _IMAGE_NAMES.get((t.image.get("dim"), t.image.get("arrayed", 0)), "image_t")
    if t.op == "Sampler":
        return "sampler_t"
    if t.op == "Struct":
        return "struct"
    return t.op.lower()


@dataclass(frozen=True)
class ParamSpec:
    """One kernel parameter: what ``clSetKernelArg`` accepts and ``clGetKernelArgInfo`` reports."""

    index: int
    name: str
    kind: str  # "global", "constant", "local", "value", "image", "sampler", "unsupported"
    size: int  # bytes of a by-value argument; 0 for the other kinds
    type_name: str
    qualifiers: frozenset[str]
    access: str  # "read_only", "write_only", "read_write" for images, else "none"
    type: Type
    declared: bool = False  # name and type_name come from the OpenCL C source

    @property
    def label(self) -> str:
        """How error messages name the parameter."""
        return self.name if self.name.startswith("argument ") else f"argument {self.index} ('{self.name}')"


def _has_param_attr(module: Module, param_id: int, attr: str) -> bool:
    return any(d.name == "FuncParamAttr" and d.args and d.args[0] == attr
               for d in module.decorations.get(param_id, ()))


def _kind(module: Module, param_id: int, t: Type) -> tuple[str, int]:
    if t.op == "Pointer":
        if _has_param_attr(module, param_id, "ByVal"):
            assert t.pointee is not None
            return "value", type_layout(module, t.pointee)[0]
        return _STORAGE_KIND.get(t.storage_class, "unsupported"), 0
    if t.op == "Image":
        return "image", 0
    if t.op == "Sampler":
        return "sampler", 0
    if t.op in ("Int", "Float", "Vector", "Struct", "Array", "Bool"):
        return "value", type_layout(module, t)[0]
    return "unsupported", 0


def kernel_params(module: Module, kernel: str, source: list[SourceParam] | None) -> list[ParamSpec]:
    """The parameters of entry point ``kernel``; names and qualifiers from ``source`` when it
    lists the same number of parameters, else "argument N" and what the SPIR-V tells."""
    func = module.functions[module.entry_point(kernel).function]
    if source is not None and len(source) != len(func.params):
        source = None
    out = []
    for i, p in enumerate(func.params):
        assert p.result_id is not None and p.result_type is not None
        t = module.types[p.result_type]
        kind, size = _kind(module, p.result_id, t)
        src = source[i] if source else None
        access = _ACCESS.get(t.image.get("access", ""), "read_only") if kind == "image" else "none"
        quals = set(src.qualifiers) if src else set()
        if not src and kind == "global" and _has_param_attr(module, p.result_id, "NoWrite"):
            quals.add("const")
        if kind == "constant":
            quals.add("const")
        name = (src.name if src and src.name else "") or module.names.get(p.result_id, "") or f"argument {i}"
        type_name = src.type_name if src else spirv_type_name(t.pointee if kind == "value" and t.op == "Pointer"
                                                               and t.pointee is not None else t)
        out.append(ParamSpec(i, name, kind, size, type_name, frozenset(quals), access, t, src is not None))
    return out


def static_local_bytes(module: Module, kernel: str) -> int:
    """Bytes of the ``__local`` variables ``kernel`` uses (CL_KERNEL_LOCAL_MEM_SIZE's static part)."""
    used = module.entry_point_variables(kernel)
    return sum(type_layout(module, v.pointee)[0] for vid, v in module.variables.items()
               if v.storage_class == "Workgroup" and vid in used)
