"""Exceptions raised by sgvm.

Every error a user can cause maps to one class here. Host-API errors follow
PyOpenCL's hierarchy (``Error`` → ``LogicError`` / ``RuntimeError`` /
``MemoryError``) and carry the OpenCL error name and code.
"""

from __future__ import annotations

# OpenCL error codes (cl.h, OpenCL 3.0).
CL_ERROR_CODES: dict[str, int] = {
    "CL_SUCCESS": 0,
    "CL_DEVICE_NOT_FOUND": -1,
    "CL_MEM_OBJECT_ALLOCATION_FAILURE": -4,
    "CL_OUT_OF_RESOURCES": -5,
    "CL_OUT_OF_HOST_MEMORY": -6,
    "CL_PROFILING_INFO_NOT_AVAILABLE": -7,
    "CL_MEM_COPY_OVERLAP": -8,
    "CL_IMAGE_FORMAT_NOT_SUPPORTED": -10,
    "CL_BUILD_PROGRAM_FAILURE": -11,
    "CL_MISALIGNED_SUB_BUFFER_OFFSET": -13,
    "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST": -14,
    "CL_COMPILE_PROGRAM_FAILURE": -15,
    "CL_LINKER_NOT_AVAILABLE": -16,
    "CL_LINK_PROGRAM_FAILURE": -17,
    "CL_DEVICE_PARTITION_FAILED": -18,
    "CL_KERNEL_ARG_INFO_NOT_AVAILABLE": -19,
    "CL_INVALID_VALUE": -30,
    "CL_INVALID_DEVICE_TYPE": -31,
    "CL_INVALID_PLATFORM": -32,
    "CL_INVALID_DEVICE": -33,
    "CL_INVALID_CONTEXT": -34,
    "CL_INVALID_QUEUE_PROPERTIES": -35,
    "CL_INVALID_COMMAND_QUEUE": -36,
    "CL_INVALID_HOST_PTR": -37,
    "CL_INVALID_MEM_OBJECT": -38,
    "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR": -39,
    "CL_INVALID_IMAGE_SIZE": -40,
    "CL_INVALID_SAMPLER": -41,
    "CL_INVALID_BINARY": -42,
    "CL_INVALID_BUILD_OPTIONS": -43,
    "CL_INVALID_PROGRAM": -44,
    "CL_INVALID_PROGRAM_EXECUTABLE": -45,
    "CL_INVALID_KERNEL_NAME": -46,
    "CL_INVALID_KERNEL_DEFINITION": -47,
    "CL_INVALID_KERNEL": -48,
    "CL_INVALID_ARG_INDEX": -49,
    "CL_INVALID_ARG_VALUE": -50,
    "CL_INVALID_ARG_SIZE": -51,
    "CL_INVALID_KERNEL_ARGS": -52,
    "CL_INVALID_WORK_DIMENSION": -53,
    "CL_INVALID_WORK_GROUP_SIZE": -54,
    "CL_INVALID_WORK_ITEM_SIZE": -55,
    "CL_INVALID_GLOBAL_OFFSET": -56,
    "CL_INVALID_EVENT_WAIT_LIST": -57,
    "CL_INVALID_EVENT": -58,
    "CL_INVALID_OPERATION": -59,
    "CL_INVALID_BUFFER_SIZE": -61,
    "CL_INVALID_MIP_LEVEL": -62,
    "CL_INVALID_GLOBAL_WORK_SIZE": -63,
    "CL_INVALID_PROPERTY": -64,
    "CL_INVALID_IMAGE_DESCRIPTOR": -65,
    "CL_INVALID_COMPILER_OPTIONS": -66,
    "CL_INVALID_LINKER_OPTIONS": -67,
    "CL_INVALID_DEVICE_PARTITION_COUNT": -68,
    "CL_INVALID_PIPE_SIZE": -69,
    "CL_INVALID_DEVICE_QUEUE": -70,
    "CL_INVALID_SPEC_ID": -71,
}


class SgvmError(Exception):
    """Base class of every error sgvm raises on purpose."""


class Error(SgvmError):
    """PyOpenCL-style host API error carrying an OpenCL error name and code."""

    def __init__(self, what: str, code: str | int = "CL_INVALID_VALUE", routine: str = ""):
        if isinstance(code, int):
            name = next((k for k, v in CL_ERROR_CODES.items() if v == code), str(code))
        else:
            name = code
        self.code_name = name
        self._code = CL_ERROR_CODES.get(name, -9999)
        self.routine = routine
        self.what = what
        prefix = f"{routine} failed: " if routine else ""
        super().__init__(f"{prefix}{name.removeprefix('CL_')} - {what}")

    @property
    def code(self) -> int:
        """The numeric OpenCL error code (PyOpenCL's ``Error.code``)."""
        return self._code


class LogicError(Error):
    """The host program used the API wrongly (bad arguments, sizes, names)."""


class RuntimeError(Error):  # noqa: A001 - PyOpenCL's name
    """An operation failed at run time (build failures, device errors)."""


class MemoryError(Error):  # noqa: A001 - PyOpenCL's name
    """An allocation could not be satisfied."""


class BuildError(RuntimeError):
    """OpenCL C compilation failed; ``log`` holds clang's full diagnostics."""

    def __init__(self, log: str, what: str = "", options: str = ""):
        self.log = log
        self.options = options
        msg = what or "build failed"
        # A one-line log that only restates the summary is not repeated.
        lines = log.strip().splitlines()
        self.details = "" if len(lines) == 1 and lines[0].endswith(msg) else log
        super().__init__(f"{msg}\n{self.details}".rstrip(), "CL_BUILD_PROGRAM_FAILURE", "clBuildProgram")
        self.what = msg


class UnresolvedFunctionsError(BuildError):
    """The program calls functions it does not define (``names``, mangled): built-ins without
    a SPIR-V lowering, or external functions another program would provide at link time."""

    def __init__(self, log: str, what: str, names: list[str], options: str = ""):
        super().__init__(log, what, options)
        self.names = names


class SpirvFormatError(SgvmError):
    """A SPIR-V binary is malformed; ``offset`` is the word offset of the problem."""

    def __init__(self, message: str, offset: int | None = None):
        self.offset = offset
        self.message = message
        where = f"word {offset}: " if offset is not None else ""
        super().__init__(f"malformed SPIR-V: {where}{message}")


class SpirvValidationError(SpirvFormatError):
    """A SPIR-V module reads but breaks a validation rule (SPIR-V spec s2.16, s3.52) that
    execution relies on; ``offset`` is the word offset of the offending instruction and
    ``rule`` names the rule (``id-defined``, ``operand-type``, ``dominance`` …; docs/spirv.md).
    The host API reports it as CL_INVALID_BINARY when the program is built."""

    def __init__(self, message: str, offset: int | None = None, rule: str = ""):
        super().__init__(message, offset)
        self.rule = rule
        where = f"word {offset}: " if offset is not None else ""
        self.args = (f"invalid SPIR-V: {where}{rule}: {message}",)

    def __str__(self) -> str:
        return self.args[0]


class KernelMemoryError(SgvmError):
    """A kernel accessed memory out of bounds or misaligned."""


class KernelTimeout(SgvmError):
    """A kernel ran past its step budget (``SGVM_MAX_STEPS``)."""


class UnsupportedError(SgvmError):
    """A valid construct that sgvm does not execute (named in the message)."""
