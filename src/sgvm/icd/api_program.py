"""Programs (OpenCL API s5.8) over :class:`sgvm.cl.Program`.

A program's binary (CL_PROGRAM_BINARIES) is a small container: ``SGVMBIN1``, the
SPIR-V module's length and bytes, then the OpenCL C source it came from (empty for
IL programs). clCreateProgramWithBinary accepts such a container — the program is
rebuilt from its source, so kernel argument info and the checker's source positions
survive a binary cache such as PyOpenCL's — or a plain SPIR-V module.

clCompileProgram checks a source program on its own (with its embedded headers);
clLinkProgram builds the concatenated sources of its inputs as one program, which is
how OpenCL C's external functions resolve across inputs (sgvm links no SPIR-V).
"""

from __future__ import annotations

import shlex
import struct
import tempfile
from pathlib import Path
from typing import Any

from ..cl import Program
from ..cl.constants import program_binary_type, program_build_info, program_info
from ..errors import BuildError, Error, UnresolvedFunctionsError
from . import exit_report, handles, state
from .entry import CREATE, api
from .values import c_string, give, handle_list, is_null

MAGIC = b"SGVMBIN1"
SCOPE_GLOBAL_CTORS_PRESENT, SCOPE_GLOBAL_DTORS_PRESENT = 0x116A, 0x116B
_SIZE_T_INFO = frozenset({program_info.NUM_KERNELS, program_info.BINARY_SIZES,
                          program_build_info.GLOBAL_VARIABLE_TOTAL_SIZE})


def get_program(ptr: Any) -> handles.Handle:
    return handles.get(ptr, handles.PROGRAM)


def _new(program: Program, context: handles.Handle, origin: str) -> Any:
    h = handles.new(handles.PROGRAM, program, holds=(context,))
    h.extra.update(origin=origin, binary_type=program_binary_type.NONE, kernels=0, headers=None)
    return state.ffi.cast("cl_program", h.cdata)


@api(CREATE)
def clCreateProgramWithSource(context: Any, count: int, strings: Any, lengths: Any) -> Any:
    ctx = handles.get(context, handles.CONTEXT)
    if count == 0 or is_null(strings):
        raise Error("count is 0 or strings is NULL", "CL_INVALID_VALUE")
    parts = []
    for i in range(count):
        if is_null(strings[i]):
            raise Error(f"strings[{i}] is NULL", "CL_INVALID_VALUE")
        n = 0 if is_null(lengths) else int(lengths[i])
        raw = state.ffi.string(strings[i]) if n == 0 else bytes(state.ffi.buffer(strings[i], n))
        parts.append(raw.decode("utf-8", "replace"))
    return _new(Program(ctx.obj, "".join(parts)), ctx, "source")


@api(CREATE)
def clCreateProgramWithIL(context: Any, il: Any, length: int) -> Any:
    ctx = handles.get(context, handles.CONTEXT)
    if is_null(il) or length == 0:
        raise Error("il is NULL or length is 0", "CL_INVALID_VALUE")
    return _new(Program(ctx.obj, bytes(state.ffi.buffer(il, length))), ctx, "il")


def unpack_binary(blob: bytes) -> tuple[bytes, str]:
    """(SPIR-V, source) of an sgvm binary container, or (blob, "") for plain SPIR-V."""
    if blob.startswith(MAGIC) and len(blob) >= 16:
        (n,) = struct.unpack_from("<Q", blob, 8)
        return blob[16:16 + n], blob[16 + n:].decode("utf-8", "replace")
    return blob, ""


def pack_binary(program: Program) -> bytes:
    spirv = program.spirv
    if program.source is None:
        return spirv
    return MAGIC + struct.pack("<Q", len(spirv)) + spirv + program.source.encode()


@api(CREATE)
def clCreateProgramWithBinary(context: Any, num: int, devices: Any, lengths: Any, binaries: Any,
                              status: Any) -> Any:
    ctx = handles.get(context, handles.CONTEXT)
    devs = handle_list(num, devices, handles.DEVICE, "device_list")
    if any(d.obj not in ctx.obj.devices for d in devs):
        raise Error("a device is not in the context", "CL_INVALID_DEVICE")
    if is_null(lengths) or is_null(binaries):
        raise Error("lengths or binaries is NULL", "CL_INVALID_VALUE")
    blobs = []
    for i in range(num):
        if is_null(binaries[i]) or lengths[i] == 0:
            raise Error(f"binary {i} is NULL or empty", "CL_INVALID_VALUE")
        blobs.append(bytes(state.ffi.buffer(binaries[i], lengths[i])))
    spirv, source = unpack_binary(blobs[0])
    try:
        program = Program(ctx.obj, source) if source else Program(ctx.obj, None, [spirv])
    except Error:
        if not is_null(status):
            for i in range(num):
                status[i] = -42  # CL_INVALID_BINARY
        raise
    if not is_null(status):
        for i in range(num):
            status[i] = 0
    return _new(program, ctx, "binary")


@api(CREATE)
def clCreateProgramWithBuiltInKernels(context: Any, num: int, devices: Any, names: Any) -> Any:
    handles.get(context, handles.CONTEXT)
    raise Error("sgvm's devices have no built-in kernels (CL_DEVICE_BUILT_IN_KERNELS is empty)",
                "CL_INVALID_VALUE")


@api()
def clRetainProgram(program: Any) -> None:
    handles.retain(get_program(program))


@api()
def clReleaseProgram(program: Any) -> None:
    handles.release(get_program(program))


def _check_devices(h: handles.Handle, num: int, devices: Any) -> None:
    if (num == 0) != is_null(devices):
        raise Error("device_list and num_devices disagree", "CL_INVALID_VALUE")
    for d in (handle_list(num, devices, handles.DEVICE, "device_list") if num else []):
        if d.obj not in h.obj.context.devices:
            raise Error("a device is not in the program's context", "CL_INVALID_DEVICE")


def _build(h: handles.Handle, options: str, notify: Any, user_data: Any, binary_type: int) -> None:
    if is_null(notify) and not is_null(user_data):
        raise Error("user_data is given without pfn_notify", "CL_INVALID_VALUE")
    if h.extra["kernels"]:
        raise Error("kernels of this program exist; release them before building again", "CL_INVALID_OPERATION")
    if exit_report.profiling_forced() and "-g" not in options.split():
        options += " -g"  # the message profile names source lines
    headers = h.extra["headers"]
    if headers is not None:
        options = f"{options} -I {shlex.quote(headers.name)}"
    try:
        h.obj.build(options)
        exit_report.adopt(h.obj)
        h.extra["binary_type"] = binary_type
    finally:
        if not is_null(notify):
            notify(state.ffi.cast("cl_program", h.cdata), user_data)


def _options(ptr: Any) -> str:
    return "" if is_null(ptr) else state.ffi.string(ptr).decode("utf-8", "replace")


@api()
def clBuildProgram(program: Any, num: int, devices: Any, options: Any, notify: Any, user_data: Any) -> None:
    h = get_program(program)
    _check_devices(h, num, devices)
    if h.extra["origin"] in ("object", "library"):
        raise Error("this program is a compiled object or library: link it with clLinkProgram",
                    "CL_INVALID_OPERATION")
    _build(h, _options(options), notify, user_data, program_binary_type.EXECUTABLE)


@api()
def clCompileProgram(program: Any, num: int, devices: Any, options: Any, num_headers: int, headers: Any,
                     names: Any, notify: Any, user_data: Any) -> None:
    h = get_program(program)
    _check_devices(h, num, devices)
    if h.obj.source is None:
        raise Error("only programs created from source can be compiled", "CL_INVALID_OPERATION")
    if num_headers and (is_null(headers) or is_null(names)):
        raise Error("input_headers or header_include_names is NULL", "CL_INVALID_VALUE")
    if num_headers:
        folder = tempfile.TemporaryDirectory(prefix="sgvm-headers-")
        for i in range(num_headers):
            header = get_program(headers[i]).obj
            path = Path(folder.name) / c_string(names[i], "header_include_names[i]")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(header.source or "")
        h.extra["headers"] = folder
    h.extra["compile_options"] = _options(options)
    try:
        _build(h, h.extra["compile_options"], notify, user_data, program_binary_type.COMPILED_OBJECT)
        h.extra["compile_log"] = h.obj.get_build_info(h.obj.context.devices[0], program_build_info.LOG)
    except UnresolvedFunctionsError as exc:  # external functions: another input defines them
        h.extra.update(binary_type=program_binary_type.COMPILED_OBJECT, compile_log=exc.log)
    except BuildError as exc:
        raise Error(exc.what, "CL_COMPILE_PROGRAM_FAILURE") from None
    h.extra["origin"] = "object"


@api(CREATE)
def clLinkProgram(context: Any, num: int, devices: Any, options: Any, num_inputs: int, inputs: Any,
                  notify: Any, user_data: Any) -> Any:
    ctx = handles.get(context, handles.CONTEXT)
    parts = handle_list(num_inputs, inputs, handles.PROGRAM, "input_programs")
    if any(p.extra["origin"] not in ("object", "library") or p.obj.source is None for p in parts):
        raise Error("every input must be a program compiled with clCompileProgram", "CL_INVALID_OPERATION")
    text = _options(options)
    library = "-create-library" in text.split()
    source = "\n".join(f'#line 1 "program{i}"\n{p.obj.source}' for i, p in enumerate(parts))
    merged = Program(ctx.obj, source)
    out = handles.get(_new(merged, ctx, "library" if library else "linked"), handles.PROGRAM)
    dirs = [p.extra["headers"] for p in parts if p.extra["headers"] is not None]
    includes = " ".join(f"-I {shlex.quote(d.name)}" for d in dirs)
    out.extra["headers_kept"] = dirs
    compile_options = " ".join(p.extra.get("compile_options", "") for p in parts[:1])
    link = " ".join(t for t in text.split() if t not in ("-create-library", "-enable-link-options"))
    try:
        _build(out, f"{compile_options} {link} {includes}", notify, user_data,
               program_binary_type.LIBRARY if library else program_binary_type.EXECUTABLE)
    except BuildError:
        handles.release(out)
        raise Error("linking failed; see the build log of the inputs", "CL_LINK_PROGRAM_FAILURE") from None
    return state.ffi.cast("cl_program", out.cdata)


@api()
def clSetProgramReleaseCallback(program: Any, notify: Any, user_data: Any) -> None:
    get_program(program)
    raise Error("sgvm programs have no program-scope global constructors or destructors",
                "CL_INVALID_OPERATION")


@api()
def clSetProgramSpecializationConstant(program: Any, spec_id: int, size: int, value: Any) -> None:
    prg = get_program(program).obj
    if is_null(value):
        raise Error("spec_value is NULL", "CL_INVALID_VALUE")
    prg.set_specialization_constant(spec_id, bytes(state.ffi.buffer(value, size)))


@api()
def clGetProgramInfo(program: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    h = get_program(program)
    prg: Program = h.obj
    pi = program_info
    if param == pi.REFERENCE_COUNT:
        data: Any = h.refs
    elif param == pi.BINARY_SIZES:
        data = [len(pack_binary(prg)) if prg.built else 0] * len(prg.context.devices)
    elif param == pi.BINARIES:
        _write_binaries(prg, size, value, size_ret)
        return
    elif param == pi.SOURCE:
        data = prg.source or ""
    elif param == pi.IL:
        data = prg.il if prg.source is None and prg.il is not None else b""
    elif param in (SCOPE_GLOBAL_CTORS_PRESENT, SCOPE_GLOBAL_DTORS_PRESENT):
        data = False
    else:
        data = prg.get_info(param)
    give(data, "Q" if param in _SIZE_T_INFO else "I", size, value, size_ret)


def _write_binaries(prg: Program, size: int, value: Any, size_ret: Any) -> None:
    """CL_PROGRAM_BINARIES: param_value is an array of pointers the application allocated;
    each receives that device's binary (a NULL entry is skipped)."""
    n = len(prg.context.devices)
    if not is_null(value):
        if size < 8 * n:
            raise Error(f"param_value_size must be at least {8 * n} (one pointer per device)", "CL_INVALID_VALUE")
        blob = pack_binary(prg) if prg.built else b""
        slots = state.ffi.cast("unsigned char **", value)
        for i in range(n):
            if slots[i] != state.ffi.NULL and blob:
                state.ffi.memmove(slots[i], blob, len(blob))
    if not is_null(size_ret):
        size_ret[0] = 8 * n


@api()
def clGetProgramBuildInfo(program: Any, device: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    h = get_program(program)
    dev = handles.get(device, handles.DEVICE).obj
    compiled = h.extra["origin"] == "object"
    if param == program_build_info.BINARY_TYPE:
        data: Any = h.extra["binary_type"] if h.obj.built or compiled else program_binary_type.NONE
    elif compiled and param == program_build_info.STATUS:
        data = 0  # CL_BUILD_SUCCESS
    elif compiled and param == program_build_info.LOG:
        data = h.extra["compile_log"]
    else:
        data = h.obj.get_build_info(dev, param)
    scalar = "i" if param == program_build_info.STATUS else "Q" if param in _SIZE_T_INFO else "I"
    give(data, scalar, size, value, size_ret)
