"""Programs: OpenCL C source or SPIR-V (``Program(ctx, src).build()``, ``Program(ctx, il)``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..check.portability import PortabilityChecker
from ..check.runner import PORTABILITY, Checker, check_mode
from ..compiler import ParsedOptions, compile_with_log, parse_options
from ..compiler.lines import attach_locations
from ..compiler.subgroup_size import check_sub_group_sizes
from ..errors import BuildError, SpirvFormatError, SpirvValidationError
from ..spirv import Module, read
from ..spirv.specialize import spec_constants, specialize
from ..spirv.validate import validate
from ._base import InfoObject, cl_error, info_value
from ._layout import ParamSpec, kernel_params, type_layout
from ._signature import source_params
from .constants import build_status, program_binary_type, program_build_info, program_info
from .platform import Context, Device

if TYPE_CHECKING:
    from .kernel import Kernel

SPIRV_MAGIC = (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03")


def is_spirv(data: object) -> bool:
    """Whether ``data`` is a SPIR-V binary (either byte order), as ``pyopencl.tools.is_spirv``."""
    return isinstance(data, (bytes, bytearray, memoryview)) and bytes(data[:4]) in SPIRV_MAGIC


class Program(InfoObject):
    """``Program(context, source)``, ``Program(context, il_bytes)`` (clCreateProgramWithIL) or
    ``Program(context, devices, binaries)`` with SPIR-V binaries."""

    _info_ns = program_info

    def __init__(self, context: Context, src_or_devices: Any = None, binaries: Sequence[bytes] | None = None):
        if not isinstance(context, Context):
            raise cl_error("CL_INVALID_CONTEXT", "the first argument must be a cl.Context", "clCreateProgram")
        self.context = context
        self.source: str | None = None
        self.il: bytes | None = None
        self.module: Module | None = None
        self.invalid: SpirvValidationError | None = None  # set when IL reads but is not valid
        # set by build(check=True) / SGVM_CHECK=1, or build(check="portability") /
        # SGVM_CHECK=portability (docs/portability.md)
        self.checker: Checker | PortabilityChecker | None = None
        self.options: ParsedOptions = parse_options("")
        self._log = ""
        self._status = build_status.NONE
        self._params: dict[str, list[ParamSpec]] = {}
        self._spirv = b""
        self._spec_values: dict[int, bytes] = {}
        if binaries is not None:
            if len(binaries) != 1 or not is_spirv(binaries[0]):
                raise cl_error("CL_INVALID_BINARY", "sgvm binaries are SPIR-V modules, one per device",
                               "clCreateProgramWithBinary")
            self.il = bytes(binaries[0])
        elif is_spirv(src_or_devices):
            self.il = bytes(src_or_devices)
        elif isinstance(src_or_devices, (bytes, bytearray)):
            self.source = bytes(src_or_devices).decode("utf-8", "surrogateescape")  # clang gets the bytes
        elif isinstance(src_or_devices, str):
            self.source = src_or_devices
        else:
            raise cl_error("CL_INVALID_VALUE", "pass OpenCL C source (str) or a SPIR-V binary (bytes)",
                           "clCreateProgramWithSource")
        if self.il is not None:
            try:
                self._module_from(self.il)
            except SpirvFormatError as exc:
                raise cl_error("CL_INVALID_VALUE", f"not a valid SPIR-V module: {exc}",
                               "clCreateProgramWithIL") from None

    def _module_from(self, spirv: bytes) -> None:
        self.module = read(spirv)
        self.invalid = None
        try:
            validate(self.module)
        except SpirvValidationError as exc:  # reported by build() as CL_INVALID_BINARY
            self.invalid = exc
            self._params = {}
            return
        sources = source_params(self.source) if self.source else {}
        self._params = {k: kernel_params(self.module, k, sources.get(k)) for k in self.module.kernel_names}

    def build(self, options: str | Sequence[str] = "", devices: Sequence[Device] | None = None,
              cache_dir: str | None = None, check: bool | str | None = None) -> Program:
        """clBuildProgram. Failures raise :class:`sgvm.BuildError` (a ``cl.RuntimeError``
        with code CL_BUILD_PROGRAM_FAILURE) carrying the compiler log; unknown options raise
        ``cl.LogicError`` CL_INVALID_BUILD_OPTIONS. ``cache_dir`` is ignored."""
        del cache_dir
        try:  # check=True or SGVM_CHECK=1: docs/checker.md; "portability": docs/portability.md
            mode = check_mode(check)
        except ValueError as exc:
            raise cl_error("CL_INVALID_VALUE", str(exc), "clBuildProgram") from None
        checking = bool(mode)
        self.checker = (PortabilityChecker() if mode == PORTABILITY else Checker()) if mode else None
        if devices is not None and any(d not in self.context.devices for d in devices):
            raise cl_error("CL_INVALID_DEVICE", "build devices must belong to the program's context",
                           "clBuildProgram")
        text = options if isinstance(options, str) else " ".join(options)
        if checking and "-g" not in text.split():
            text += " -g"  # findings carry source positions
        try:
            parsed = parse_options(text)
        except BuildError as exc:
            raise cl_error("CL_INVALID_BUILD_OPTIONS", f"{exc.what}; see the OpenCL API spec s5.8.6 for the "
                           "options clBuildProgram accepts", "clBuildProgram") from None
        if self.source is None:
            if self.invalid is not None:
                self._log, self._status = str(self.invalid), build_status.ERROR
                raise cl_error("CL_INVALID_BINARY", f"{self.invalid}; the module is not valid SPIR-V "
                               "(spirv-val reports the same)", "clBuildProgram") from None
            if self._spec_values:
                self._module_from(specialize(self.il, self._spec_values))
            if "-cl-std=" not in text:  # SPIR-V has no OpenCL C version: allow non-uniform groups
                parsed.cl_std = "CL3.0"
            try:  # cl_intel_required_subgroup_size: a size the device lacks fails the build
                for device in devices or self.context.devices:
                    check_sub_group_sizes(self.spirv, parsed, device.model)
            except BuildError as exc:
                self._log, self._status = exc.log, build_status.ERROR
                raise
            self._log = ""
            self.options = parsed
            self._status = build_status.SUCCESS
            return self
        try:
            result = compile_with_log(self.source, parsed, filename="<kernel>")
        except BuildError as exc:
            self._log, self._status = exc.log, build_status.ERROR
            raise
        self._log = result.log
        self.options = result.options
        self._module_from(result.spirv)
        if self.invalid is not None:  # the compiler's own output: never expected
            self._status = build_status.ERROR
            raise BuildError(f"{self._log}error: the compiled module is not valid SPIR-V: {self.invalid}\n",
                             what="the compiler produced invalid SPIR-V", options=parsed.text)
        if checking:
            self.module = result.module()  # the same instructions, with source locations
        if result.line_dump:  # built with -g: source positions for observers (the profile)
            attach_locations(self.module, result.line_dump)
        self.il = None
        self._spirv = result.spirv
        self._status = build_status.SUCCESS
        return self

    def set_specialization_constant(self, spec_id: int, value: bytes) -> None:
        """clSetProgramSpecializationConstant (OpenCL API s5.8.4): ``value`` (the constant's bytes,
        exactly its size) replaces the default of the constant decorated ``SpecId spec_id`` when the
        program is next built. Programs from IL only."""
        routine = "clSetProgramSpecializationConstant"
        if self.source is not None or self.il is None:
            raise cl_error("CL_INVALID_PROGRAM", "specialization constants belong to programs created from IL",
                           routine)
        sizes = spec_constants(self.il)
        if spec_id not in sizes:
            raise cl_error("CL_INVALID_SPEC_ID", f"the module has no specialization constant with SpecId {spec_id}; "
                           f"it has {sorted(sizes) or 'none'}", routine)
        if len(value) != sizes[spec_id]:
            raise cl_error("CL_INVALID_VALUE", f"SpecId {spec_id} is {sizes[spec_id]} bytes, got {len(value)}",
                           routine)
        self._spec_values[spec_id] = bytes(value)

    @property
    def built(self) -> bool:
        return self._status == build_status.SUCCESS

    @property
    def uniform_work_groups_required(self) -> bool:
        """Whether enqueues need uniform work-groups: OpenCL C below 2.0 (the default without
        -cl-std, OpenCL API s5.8.6.5) or -cl-uniform-work-group-size. SPIR-V programs count
        as OpenCL 3.0 unless built with -cl-std."""
        return self.options.uniform_work_groups_required

    @property
    def spirv(self) -> bytes:
        """The program's SPIR-V binary (after build for source programs)."""
        return self.il if self.il is not None else self._spirv

    def _executable(self, routine: str) -> Module:
        if not self.built or self.module is None:
            raise cl_error("CL_INVALID_PROGRAM_EXECUTABLE", "build the program first: prg = cl.Program(ctx, "
                           "src).build()", routine)
        return self.module

    def kernel_params(self, name: str) -> list[ParamSpec]:
        """The parameters of kernel ``name`` (CL_INVALID_KERNEL_NAME if there is none)."""
        module = self._executable("clCreateKernel")
        if name not in self._params:
            raise cl_error(
                "CL_INVALID_KERNEL_NAME",
                f"the program has no kernel named {name!r}; its kernels are: {', '.join(module.kernel_names) or 'none'}",
                "clCreateKernel",
            )
        return self._params[name]

    def get_info(self, param: int) -> Any:
        """clGetProgramInfo."""
        pi = program_info
        if param in (pi.NUM_KERNELS, pi.KERNEL_NAMES):
            names = self._executable("clGetProgramInfo").kernel_names
            return len(names) if param == pi.NUM_KERNELS else ";".join(names)
        values = {
            pi.REFERENCE_COUNT: 1,
            pi.CONTEXT: self.context,
            pi.NUM_DEVICES: len(self.context.devices),
            pi.DEVICES: list(self.context.devices),
            pi.SOURCE: self.source or "",
            pi.BINARY_SIZES: [len(self.spirv)],
            pi.BINARIES: [self.spirv],
            pi.IL: self.il if self.source is None else None,
        }
        return self._answer(values, param, "clGetProgramInfo")

    def get_build_info(self, device: Device, param: int) -> Any:
        """clGetProgramBuildInfo: STATUS, OPTIONS, LOG, BINARY_TYPE, GLOBAL_VARIABLE_TOTAL_SIZE."""
        if device not in self.context.devices:
            raise cl_error("CL_INVALID_DEVICE", "the device is not in the program's context",
                           "clGetProgramBuildInfo")
        pb = program_build_info
        if param == pb.GLOBAL_VARIABLE_TOTAL_SIZE:
            module = self._executable("clGetProgramBuildInfo")
            return sum(type_layout(module, v.pointee)[0] for v in module.variables.values()
                       if v.storage_class == "CrossWorkgroup")
        values = {
            pb.STATUS: self._status,
            pb.OPTIONS: self.options.text,
            pb.LOG: self._log,
            pb.BINARY_TYPE: program_binary_type.EXECUTABLE if self.built else program_binary_type.NONE,
        }
        return info_value(values, param, program_build_info, "clGetProgramBuildInfo")

    def all_kernels(self) -> list[Kernel]:
        """clCreateKernelsInProgram."""
        from .kernel import Kernel

        return [Kernel(self, name) for name in self._executable("clCreateKernelsInProgram").kernel_names]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name.upper() in program_info._names() and name.islower():
            return self.get_info(program_info._names()[name.upper()])
        if self.built and name in self._params:
            from .kernel import Kernel

            return Kernel(self, name)
        hint = "build the program first" if not self.built else \
            f"its kernels are: {', '.join(self._params) or 'none'}"
        raise AttributeError(f"'{name}' was not found as a program info attribute or as a kernel name ({hint})")

    def __repr__(self) -> str:
        kind = "SPIR-V" if self.source is None else "source"
        return f"<pyopencl.Program from {kind}{' (built)' if self.built else ''}>"
