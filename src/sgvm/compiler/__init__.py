"""OpenCL C → SPIR-V: finding clang, build options, sgvm's own headers.

Public API: ``compile``, ``compile_with_log``, ``parse_options`` and their
result types. See docs/compiler.md.
"""

from __future__ import annotations

from .driver import CompileResult, compile, compile_with_log
from .options import ParsedOptions, parse_options

__all__ = ["CompileResult", "ParsedOptions", "compile", "compile_with_log", "parse_options"]
