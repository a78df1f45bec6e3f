"""Kernels: arguments (clSetKernelArg), queries and enqueueing (clEnqueueNDRangeKernel)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..check.portability import PortabilityChecker
from ..compiler.subgroup_size import kernel_sub_group_size
from ..runtime import environment
from ..runtime.args import BufferArg, ImageArg, KernelArg, LocalArg, NullArg, SamplerArg, ValueArg
from ..runtime.device import DeviceModel
from ..runtime.launch import launch
from ..runtime.ndrange import NDRange
from ..runtime.variant import sub_group_count
from ._base import InfoObject, cl_error, info_value, param_text
from ._layout import ParamSpec, static_local_bytes
from ._worksize import resolve_ndrange
from .constants import (
    command_queue_properties,
    command_type,
    kernel_arg_access_qualifier,
    kernel_arg_address_qualifier,
    kernel_arg_info,
    kernel_arg_type_qualifier,
    kernel_info,
    kernel_sub_group_info,
    kernel_work_group_info,
    mem_flags,
)
from .image import Image, Sampler
from .memory import Buffer, BufferPointer, LocalMemory, MemoryObject, refuse_objects
from .platform import Device
from .program import Program
from .queue import CommandQueue, Event

_SET_ARG = "clSetKernelArg"
_ADDRESS = {"global": kernel_arg_address_qualifier.GLOBAL, "constant": kernel_arg_address_qualifier.CONSTANT,
            "local": kernel_arg_address_qualifier.LOCAL, "image": kernel_arg_address_qualifier.GLOBAL}
_ACCESS = {"read_only": kernel_arg_access_qualifier.READ_ONLY, "write_only": kernel_arg_access_qualifier.WRITE_ONLY,
           "read_write": kernel_arg_access_qualifier.READ_WRITE, "none": kernel_arg_access_qualifier.NONE}
_IMAGE_TYPES = {("1D", 0): "IMAGE1D", ("1D", 1): "IMAGE1D_ARRAY", ("2D", 0): "IMAGE2D",
                ("2D", 1): "IMAGE2D_ARRAY", ("3D", 0): "IMAGE3D", ("Buffer", 0): "IMAGE1D_BUFFER"}


def python_scalar(value: bool | int | float, dtype: np.dtype, label: str, type_name: str,
                  routine: str = _SET_ARG) -> np.generic:
    """A Python number as ``dtype``, the NumPy type of parameter ``label`` (OpenCL C type
    ``type_name``); CL_INVALID_ARG_VALUE when the value does not fit the type or would lose
    its fraction, instead of NumPy's OverflowError or a silent truncation."""
    if dtype.kind in "iub":
        if isinstance(value, float) and not value.is_integer():
            raise cl_error("CL_INVALID_ARG_VALUE", f"{label} is {type_name}, an integer type: {value!r} has "
                           "a fraction; pass an integer", routine)
        info = (0, 1) if dtype.kind == "b" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
        if not info[0] <= value <= info[1]:
            raise cl_error("CL_INVALID_ARG_VALUE", f"{label} is {type_name}: {value!r} does not fit its range "
                           f"[{info[0]}, {info[1]}]; pass a value in range or change the parameter's type",
                           routine)
        return dtype.type(int(value))
    finite = np.isfinite(value) if isinstance(value, float) else True
    with np.errstate(over="ignore"):
        try:
            converted = dtype.type(value)
        except OverflowError:
            converted = dtype.type(np.inf)
    if finite and not np.isfinite(converted):
        raise cl_error("CL_INVALID_ARG_VALUE", f"{label} is {type_name}: {value!r} is beyond its largest finite "
                       f"value {np.finfo(dtype).max}", routine)
    return converted


def _value_bytes(value: Any) -> bytes | None:
    """The bytes of a by-value argument, or None if ``value`` has no fixed binary layout."""
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic):
        return None
    if isinstance(value, np.ndarray | np.generic):
        return np.ascontiguousarray(value).tobytes()
    try:
        return bytes(memoryview(value).cast("B"))
    except TypeError:
        return None


_MISSING = object()


def _sizes_key(sizes: Any) -> Any:
    """A hashable form of an enqueue's size argument that tells its value and type apart."""
    if isinstance(sizes, list):
        return ("list", *sizes)
    return sizes


def _is_index(index: Any, count: int) -> bool:
    """``index`` is an integer in ``[0, count)``."""
    return isinstance(index, int | np.integer) and not isinstance(index, bool) and 0 <= index < count


def _size_array(value: Any) -> list[int] | None:
    """``value`` as the ``size_t`` array of a local work size (1 to 3 sizes), else None."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        return None
    sizes = list(np.asarray(value).ravel()) if isinstance(value, np.ndarray) else list(value)
    if not 1 <= len(sizes) <= 3 or not all(isinstance(v, int | np.integer) and not isinstance(v, bool)
                                           and v >= 0 for v in sizes):
        return None
    return [int(v) for v in sizes]


class Kernel(InfoObject):
    """clCreateKernel: ``Kernel(program, name)``; call it to enqueue (PyOpenCL style)."""

    _info_ns = kernel_info

    def __init__(self, program: Program, name: str) -> None:
        if not isinstance(program, Program):
            raise cl_error("CL_INVALID_PROGRAM", "the first argument must be a cl.Program", "clCreateKernel")
        self.program = program
        self.params: list[ParamSpec] = program.kernel_params(name)
        self.name = name
        self._args: list[KernelArg | None] = [None] * len(self.params)
        self._scalar_dtypes: list[np.dtype | None] | None = None
        assert program.module is not None
        modes = program.module.entry_point(name).execution_modes
        self.reqd_work_group_size: tuple[int, int, int] | None = modes.get("LocalSize")
        self.required_sub_group_size: int | None = modes["SubgroupSize"][0] if "SubgroupSize" in modes else None
        self.param_names = [p.name for p in self.params]
        self._ndranges: dict[tuple, tuple[DeviceModel, NDRange | None]] = {}  # (``ndrange``)

    # -- arguments -----------------------------------------------------------------
    def set_scalar_arg_dtypes(self, dtypes: Sequence[Any]) -> None:
        """Declare NumPy dtypes for by-value arguments (None for the others) so that
        Python ints and floats can be passed for them."""
        if len(dtypes) != len(self.params):
            raise cl_error("CL_INVALID_VALUE", f"kernel '{self.name}' has {len(self.params)} arguments, "
                           f"got {len(dtypes)} dtypes", "set_scalar_arg_dtypes")
        self._scalar_dtypes = [None if d is None else np.dtype(d) for d in dtypes]

    def set_arg(self, index: int, value: Any) -> None:
        """clSetKernelArg (errors as in OpenCL API s5.9.2)."""
        if not _is_index(index, len(self.params)):
            raise cl_error("CL_INVALID_ARG_INDEX", f"kernel '{self.name}' has arguments 0 to "
                           f"{len(self.params) - 1}; index {index} does not exist", _SET_ARG)
        old = self._args[index]
        if self._same(index, old, value):
            return
        arg = self._convert(self.params[index], value)
        # An equal argument keeps the old object: launches remember what they derived from an
        # argument object (``runtime.args``: frozen, so that can never go stale).
        if old is None or type(old) is not type(arg) or old != arg:
            self._args[index] = arg

    def _same(self, index: int, old: KernelArg | None, value: Any) -> bool:
        """Whether ``value`` is an argument equal to ``old`` and needs no conversion (hosts set
        the same buffers and numbers launch after launch): the buffer ``old`` points to the
        start of, or a plain NumPy number of ``old``'s bytes where no scalar dtype is declared
        for the argument (that one passed every check when ``old`` was made from it)."""
        t = type(old)
        if t is BufferArg:
            return type(value) is Buffer and value.allocation is old.allocation and not old.offset  # type: ignore[union-attr]
        return t is ValueArg and isinstance(value, np.generic) and value.dtype.kind in "biuf" \
            and (self._scalar_dtypes is None or self._scalar_dtypes[index] is None) \
            and value.tobytes() == old.data  # type: ignore[union-attr]

    def set_args(self, *args: Any) -> None:
        """Set every argument at once."""
        if len(args) != len(self.params):
            names = ", ".join(p.name for p in self.params)
            raise cl_error("CL_INVALID_KERNEL_ARGS",
                           f"kernel '{self.name}' takes {len(self.params)} arguments ({names}), got {len(args)}",
                           _SET_ARG)
        for i, value in enumerate(args):
            self.set_arg(i, value)

    def _convert(self, p: ParamSpec, value: Any) -> KernelArg:
        kind = p.kind
        if kind in ("global", "constant"):
            if value is None:
                return NullArg()
            if isinstance(value, Buffer):
                return BufferArg(value.allocation)
            if isinstance(value, BufferPointer):
                return BufferArg(value.buffer.allocation, value.offset)
            hint = "wrap host data in cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=array)" \
                if _value_bytes(value) is not None else f"pass a cl.Buffer, not {type(value).__name__}"
            raise cl_error("CL_INVALID_MEM_OBJECT", f"{p.label} is a {kind} pointer: {hint}", _SET_ARG)
        if kind == "local":
            if not isinstance(value, LocalMemory):
                raise cl_error("CL_INVALID_ARG_VALUE", f"{p.label} is a __local pointer: pass "
                               f"cl.LocalMemory(nbytes), not {type(value).__name__}", _SET_ARG)
            if value.size <= 0:
                raise cl_error("CL_INVALID_ARG_SIZE", f"{p.label}: local memory needs a size of at least 1 byte",
                               _SET_ARG)
            return LocalArg(value.size)
        if kind == "image":
            return self._image_arg(p, value)
        if kind == "sampler":
            if not isinstance(value, Sampler):
                raise cl_error("CL_INVALID_SAMPLER", f"{p.label} is a sampler_t: pass a cl.Sampler", _SET_ARG)
            return SamplerArg(value.sampler)
        if kind == "value":
            return ValueArg(self._value_arg(p, value))
        raise cl_error("CL_INVALID_ARG_VALUE", f"{p.label}: sgvm does not support kernel parameters of type "
                       f"{p.type_name}", _SET_ARG)

    def _value_arg(self, p: ParamSpec, value: Any) -> bytes:
        dtype = self._scalar_dtypes[p.index] if self._scalar_dtypes else None
        if dtype is not None and isinstance(value, bool | int | float) and dtype.kind in "biuf":
            value = python_scalar(value, dtype, p.label, p.type_name)
        elif dtype is not None and value is not None and not isinstance(value, MemoryObject):
            refuse_objects(value, p.label, _SET_ARG)
            try:
                value = np.asarray(value, dtype=dtype)[()]
            except (OverflowError, TypeError, ValueError) as exc:
                raise cl_error("CL_INVALID_ARG_VALUE", f"{p.label}: {value!r} is no {dtype} value ({exc}); "
                               "pass a value of the dtype set_scalar_arg_dtypes declared", _SET_ARG) from None
        if value is None or isinstance(value, (MemoryObject, LocalMemory, Sampler)):
            raise cl_error("CL_INVALID_ARG_VALUE", f"{p.label} is a by-value {p.type_name}: pass a NumPy "
                           f"scalar or structured value, not {type(value).__name__}", _SET_ARG)
        refuse_objects(value, p.label, _SET_ARG)
        data = _value_bytes(value)
        if data is None:
            raise cl_error(
                "CL_INVALID_ARG_VALUE",
                f"{p.label}: a Python {type(value).__name__} has no fixed size; pass a NumPy scalar of the "
                f"parameter's type {p.type_name} (e.g. numpy.int32(5) or numpy.float32(1.5)) or call "
                "kernel.set_scalar_arg_dtypes",
                _SET_ARG,
            )
        if len(data) != p.size:
            have = f"{np.asarray(value).dtype} ({len(data)} bytes)" if isinstance(value, np.generic | np.ndarray) \
                else f"{len(data)} bytes"
            raise cl_error("CL_INVALID_ARG_SIZE", f"{p.label} is {p.type_name} ({p.size} bytes), got {have}; "
                           "pass a value of exactly the parameter's size", _SET_ARG)
        return data

    def _image_arg(self, p: ParamSpec, value: Any) -> KernelArg:
        if not isinstance(value, Image):
            raise cl_error("CL_INVALID_MEM_OBJECT", f"{p.label} is an image ({p.type_name}): pass a cl.Image",
                           _SET_ARG)
        t = p.type.image
        want = _IMAGE_TYPES.get((t.get("dim"), t.get("arrayed", 0)))
        if want is not None and value.type_name != want:
            raise cl_error("CL_INVALID_ARG_VALUE", f"{p.label} is {p.type_name} but the image is "
                           f"{value.type_name}", _SET_ARG)
        if p.access == "read_only" and value.flags & mem_flags.WRITE_ONLY or \
                p.access == "write_only" and value.flags & mem_flags.READ_ONLY:
            raise cl_error("CL_INVALID_ARG_VALUE", f"{p.label} is {p.access} but the image was created "
                           f"{'WRITE_ONLY' if p.access == 'read_only' else 'READ_ONLY'}", _SET_ARG)
        return ImageArg(value.image)

    # -- queries ---------------------------------------------------------------------
    def get_info(self, param: int) -> Any:
        """clGetKernelInfo."""
        attrs = []
        if self.reqd_work_group_size:
            attrs.append("reqd_work_group_size({},{},{})".format(*self.reqd_work_group_size))
        if self.required_sub_group_size:
            attrs.append(f"intel_reqd_sub_group_size({self.required_sub_group_size})")
        values = {
            kernel_info.FUNCTION_NAME: self.name,
            kernel_info.NUM_ARGS: len(self.params),
            kernel_info.REFERENCE_COUNT: 1,
            kernel_info.CONTEXT: self.program.context,
            kernel_info.PROGRAM: self.program,
            kernel_info.ATTRIBUTES: " ".join(attrs),
        }
        return self._answer(values, param, "clGetKernelInfo")

    def get_arg_info(self, index: int, param: int) -> Any:
        """clGetKernelArgInfo (available whether or not -cl-kernel-arg-info was given)."""
        if not _is_index(index, len(self.params)):
            raise cl_error("CL_INVALID_ARG_INDEX", f"kernel '{self.name}' has {len(self.params)} arguments",
                           "clGetKernelArgInfo")
        p = self.params[index]
        quals = 0
        for q in p.qualifiers:
            quals |= getattr(kernel_arg_type_qualifier, q.upper())
        values = {
            kernel_arg_info.ADDRESS_QUALIFIER: _ADDRESS.get(p.kind, kernel_arg_address_qualifier.PRIVATE),
            kernel_arg_info.ACCESS_QUALIFIER: _ACCESS[p.access],
            kernel_arg_info.TYPE_NAME: p.type_name,
            kernel_arg_info.TYPE_QUALIFIER: quals,
            kernel_arg_info.NAME: p.name,
        }
        return info_value(values, param, kernel_arg_info, "clGetKernelArgInfo")

    @property
    def sub_group_size(self) -> int:
        """The sub-group size the kernel runs with on the context's device."""
        return self.compiled_sub_group_size(self.program.context.devices[0])

    def compiled_sub_group_size(self, device: Device) -> int:
        """The kernel's sub-group size on ``device`` (``compiler.subgroup_size.kernel_sub_group_size``:
        intel_reqd_sub_group_size, else -sgvm-sub-group-size=N, else SGVM_SUB_GROUP_SIZE, else the
        device default; a size the device lacks raises CL_INVALID_BUILD_OPTIONS)."""
        return kernel_sub_group_size(self.required_sub_group_size, self.program.options, device.model)

    def work_group_size(self, device: Device) -> int:
        """CL_KERNEL_WORK_GROUP_SIZE."""
        limit = device.model.max_work_group_size
        if self.reqd_work_group_size:
            x, y, z = self.reqd_work_group_size
            return min(limit, x * y * z)
        return limit

    def _private_bytes(self) -> int:
        """CL_KERNEL_PRIVATE_MEM_SIZE: the bytes of private variables one work-item of this
        kernel needs (the functions it calls; docs/engine.md, "Memory")."""
        from ..engine.cpu.program import program_for

        return program_for(self.program.module, self.name).private_bytes

    def get_work_group_info(self, param: int, device: Device) -> Any:
        """clGetKernelWorkGroupInfo."""
        kw = kernel_work_group_info
        if param == kw.GLOBAL_WORK_SIZE:
            raise cl_error("CL_INVALID_VALUE", "GLOBAL_WORK_SIZE is only defined for built-in kernels",
                           "clGetKernelWorkGroupInfo")
        assert self.program.module is not None
        local_args = sum(a.nbytes for a in self._args if isinstance(a, LocalArg))
        values = {
            kw.WORK_GROUP_SIZE: self.work_group_size(device),
            kw.COMPILE_WORK_GROUP_SIZE: list(self.reqd_work_group_size or (0, 0, 0)),
            kw.LOCAL_MEM_SIZE: static_local_bytes(self.program.module, self.name) + local_args,
            kw.PREFERRED_WORK_GROUP_SIZE_MULTIPLE: self.compiled_sub_group_size(device),
            kw.PRIVATE_MEM_SIZE: self._private_bytes() if param == kw.PRIVATE_MEM_SIZE else 0,
        }
        return info_value(values, param, kernel_work_group_info, "clGetKernelWorkGroupInfo")

    def get_sub_group_info(self, device: Device | None, param: int, input_value: Any = None) -> Any:
        """clGetKernelSubGroupInfo (OpenCL 3.0 API s5.9.3, cl_khr_subgroups / cl_intel_subgroups,
        cl_intel_required_subgroup_size), with PyOpenCL's signature.

        ``input_value``: the local size (a sequence of 1 to 3 sizes) for the ``*_FOR_NDRANGE``
        queries, the sub-group count (an int) for LOCAL_SIZE_FOR_SUB_GROUP_COUNT, ignored
        otherwise. A missing or wrongly sized input is CL_INVALID_VALUE, as the spec lists.
        """
        routine = "clGetKernelSubGroupInfo"
        if device is None and len(self.program.context.devices) == 1:
            device = self.program.context.devices[0]  # "device can be a NULL value"
        if device not in self.program.context.devices:
            raise cl_error("CL_INVALID_DEVICE", "the device is not in the kernel's context", routine)
        ks = kernel_sub_group_info
        sg = self.compiled_sub_group_size(device)
        if param in (ks.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, ks.SUB_GROUP_COUNT_FOR_NDRANGE):
            local = _size_array(input_value)
            if local is None:
                raise cl_error("CL_INVALID_VALUE", f"{ks.to_string(param)} needs input_value, the local work "
                               "size of the intended dispatch: 1 to 3 sizes such as (64,) or (8, 8)", routine)
            # The maximum is S; the count follows the device's mapping (runtime.variant): ceil(volume
            # / S) when sub-groups are runs of linear ids, one set per row of dimension 0 under "rows".
            if param == ks.MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
                return sg
            size = tuple(int(v) for v in local) + (1,) * (3 - len(local))
            return sub_group_count(device.model.sub_group_mapping, size, sg)
        if param == ks.LOCAL_SIZE_FOR_SUB_GROUP_COUNT:
            if isinstance(input_value, bool) or not isinstance(input_value, int | np.integer) or input_value < 0:
                raise cl_error("CL_INVALID_VALUE", "LOCAL_SIZE_FOR_SUB_GROUP_COUNT needs input_value, the "
                               "number of sub-groups (one size_t)", routine)
            return self._local_size_for(int(input_value), sg, device)
        if param == ks.MAX_NUM_SUB_GROUPS:
            return -(-self.work_group_size(device) // sg)
        if param == ks.COMPILE_NUM_SUB_GROUPS:
            return self._required_num_sub_groups()
        if param == ks.COMPILE_SUB_GROUP_SIZE_INTEL:
            return self.required_sub_group_size or 0
        raise cl_error("CL_INVALID_VALUE", f"{param_text(param)} is not a cl.kernel_sub_group_info value", routine)

    def _local_size_for(self, count: int, sg: int, device: Device) -> list[int]:
        """CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: "Any returned work-group will have one
        dimension. Other dimensions [...] filled with the value 1", giving exactly ``count``
        sub-groups with no partial one: ``count * S``. "If no work-group size can accommodate
        the requested number of sub-groups, 0 will be returned in each element": above the
        kernel's work-group size, or other than its reqd_work_group_size."""
        local = (count * sg, 1, 1)
        limit = min(self.work_group_size(device), device.model.max_work_item_sizes[0])
        possible = 0 < local[0] <= limit and self.reqd_work_group_size in (None, local)
        return list(local) if possible else [0, 0, 0]

    def _required_num_sub_groups(self) -> int:
        """CL_KERNEL_COMPILE_NUM_SUB_GROUPS: the kernel's ``SubgroupsPerWorkgroup`` (or ``...Id``)
        execution mode, else 0 (OpenCL C has no attribute for it; only SPIR-V can declare it)."""
        assert self.program.module is not None
        modes = self.program.module.entry_point(self.name).execution_modes
        if "SubgroupsPerWorkgroup" in modes:
            return int(modes["SubgroupsPerWorkgroup"][0])
        if "SubgroupsPerWorkgroupId" in modes:
            return int(self.program.module.constants[modes["SubgroupsPerWorkgroupId"][0]].value)
        return 0

    # -- enqueue ---------------------------------------------------------------------
    def ndrange(self, device: Device, global_size: Any, local_size: Any, global_offset: Any,
                g_times_l: bool = False, allow_empty: bool = False,
                env: environment.Settings | None = None, model: DeviceModel | None = None) -> NDRange | None:
        """The checked NDRange of an enqueue (``resolve_ndrange``), remembered per distinct
        sizes, device model (one object per profile) and SGVM_SUB_GROUP_SIZE (which the
        default local size depends on), so that a host launching the same sizes again pays a
        dictionary look-up. ``env``: the environment to read (None: as it is now); ``model``:
        ``device``'s model under it (None: looked up)."""
        env = env or environment.current()
        model = model or device.model_under(env)
        try:  # (sizes as lists are told apart from tuples: ``_sizes_key``)
            key = (id(model), global_size if type(global_size) is not list else _sizes_key(global_size),
                   local_size if type(local_size) is not list else _sizes_key(local_size),
                   global_offset if type(global_offset) is not list else _sizes_key(global_offset),
                   g_times_l, allow_empty, env.SGVM_SUB_GROUP_SIZE)
            hit = self._ndranges.get(key, _MISSING)
        except TypeError:  # unhashable sizes (an ndarray …): no memo
            key, hit = None, _MISSING
        if hit is not _MISSING and hit[0] is model:
            return hit[1]
        nd = resolve_ndrange(global_size, local_size, global_offset, device=model,
                             kernel_wg_size=self.work_group_size(device), reqd=self.reqd_work_group_size,
                             sub_group_size=self.compiled_sub_group_size(device),
                             uniform_required=self.program.uniform_work_groups_required,
                             g_times_l=g_times_l, allow_empty=allow_empty)
        if key is not None:
            if len(self._ndranges) >= 64:
                self._ndranges.clear()
            self._ndranges[key] = (model, nd)
        return nd

    def __call__(self, queue: CommandQueue, global_size: Any, local_size: Any, *args: Any,
                 global_offset: Any = None, wait_for: Sequence[Event] | None = None, g_times_l: bool = False,
                 allow_empty_ndrange: bool = False) -> Event:
        """Set ``args`` and enqueue (PyOpenCL's ``kernel(queue, gsize, lsize, *args)``)."""
        self.set_args(*args)
        return enqueue_nd_range_kernel(queue, self, global_size, local_size, global_offset, wait_for,
                                       g_times_l=g_times_l, allow_empty_ndrange=allow_empty_ndrange)

    def __repr__(self) -> str:
        return f"<pyopencl.Kernel '{self.name}'>"


def _profile_observer() -> Any:
    """A vISA message profile observer (imported only by profiling queues)."""
    from ..visa.profile_observer import ProfileObserver

    return ProfileObserver()


def enqueue_nd_range_kernel(queue: CommandQueue, kernel: Kernel, global_work_size: Any, local_work_size: Any,
                            global_work_offset: Any = None, wait_for: Sequence[Event] | None = None,
                            g_times_l: bool = False, allow_empty_ndrange: bool = False) -> Event:
    """clEnqueueNDRangeKernel: check the sizes and arguments, run the kernel, print its printf output."""
    routine = "clEnqueueNDRangeKernel"
    if not isinstance(queue, CommandQueue):
        raise cl_error("CL_INVALID_COMMAND_QUEUE", "the first argument must be a cl.CommandQueue", routine)
    if not isinstance(kernel, Kernel):
        raise cl_error("CL_INVALID_KERNEL", "the second argument must be a cl.Kernel", routine)
    if kernel.program.context is not queue.context:
        raise cl_error("CL_INVALID_CONTEXT", "the kernel and the queue belong to different contexts", routine)
    args = list(kernel._args)
    for arg in args:  # (``None in args`` would call every argument's __eq__)
        if arg is None:
            unset = [p.label for p, a in zip(kernel.params, args, strict=True) if a is None]
            raise cl_error("CL_INVALID_KERNEL_ARGS", f"kernel '{kernel.name}': set {', '.join(unset)} before "
                           "enqueueing", routine)
    env = environment.current()  # the whole enqueue reads the environment once
    model = queue.device.model_under(env)
    ndrange = kernel.ndrange(queue.device, global_work_size, local_work_size, global_work_offset, g_times_l,
                             allow_empty_ndrange, env, model)
    if ndrange is None:
        return queue.run(command_type.NDRANGE_KERNEL, lambda: None, wait_for, routine)
    program = kernel.program
    module, options, checker = program.module, program.options, program.checker
    profiling = queue.properties & command_queue_properties.PROFILING_ENABLE

    def work() -> Any:
        observers = [_profile_observer()] if profiling else []
        if checker is None:
            result = launch(module, kernel.name, args, ndrange, device=model, observers=observers,
                            options=options, param_names=kernel.param_names, settings=env)
        elif isinstance(checker, PortabilityChecker):  # docs/portability.md
            result = checker.launch(module, kernel.name, args, ndrange, device=model, observers=observers,
                                    options=options, param_names=kernel.param_names,
                                    param_types=[p.type_name for p in kernel.params])
        else:
            result = launch(module, kernel.name, args, ndrange, device=model,
                            observers=observers + checker.observers(module, kernel.name), options=options,
                            param_names=kernel.param_names, settings=env)
            checker.finish()
        if observers:
            result.profile = observers[0].profile
        if result.printf:
            sys.stdout.write(result.printf)
            sys.stdout.flush()
        return result

    return queue.run(command_type.NDRANGE_KERNEL, work, wait_for, routine)
