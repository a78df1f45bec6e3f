"""``compile``: OpenCL C source → SPIR-V, through clang's SPIR-V backend."""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import BuildError, UnresolvedFunctionsError
from ..spirv import Module, read
from . import cache
from .fixups import repair
from .imports import called_imports, demangle_name, is_user_function
from .lines import LOCATION_FLAGS, attach_locations, split_log
from .options import ParsedOptions, parse_options
from .subgroup_size import check_sub_group_sizes
from .toolchain import CODEGEN_FLAGS, INCLUDE_DIR, clang_arguments, feature_header, find_clang

SOURCE_NAME = "source.cl"  # the temporary file clang reads; diagnostics show the user's name


@dataclass(frozen=True)
class CompileResult:
    """A successful build: the SPIR-V module, clang's log (warnings) and the parsed options."""

    spirv: bytes
    log: str
    options: ParsedOptions
    line_dump: str = ""  # clang's machine-code dump when built with -g (see lines.py)

    def module(self) -> Module:
        """The SPIR-V read into a Module, with source locations when built with ``-g``."""
        module = read(self.spirv)
        if self.line_dump:
            attach_locations(module, self.line_dump)
        return module


@functools.lru_cache(maxsize=4)
def _headers_digest(stamp: tuple[tuple[str, float], ...]) -> str:
    del stamp  # cache key only
    return cache.digest(*(p.name.encode() + p.read_bytes() for p in sorted(INCLUDE_DIR.glob("*.h"))))


def _our_headers() -> str:
    return _headers_digest(tuple((p.name, p.stat().st_mtime) for p in sorted(INCLUDE_DIR.glob("*.h"))))


def _search_dirs(filename: str) -> list[str]:
    """Where ``#include "..."`` looks after ``-I``: the directory of the user's source file
    (when ``filename`` names one), then the current directory, as a runtime compiling a
    string from the application's working directory does."""
    dirs = [] if filename.startswith("<") and filename.endswith(">") else [os.path.dirname(os.path.abspath(filename))]
    return list(dict.fromkeys([*dirs, os.getcwd()]))


def source_bytes(source: str | bytes) -> bytes:
    """The bytes clang reads. ``str`` sources are UTF-8; bytes that are not UTF-8 were decoded
    with ``surrogateescape`` (``cl.Program``) or come as ``bytes``, and reach clang unchanged,
    as ``clCreateProgramWithSource``'s ``char`` strings do."""
    return bytes(source) if isinstance(source, (bytes, bytearray)) else source.encode("utf-8", "surrogateescape")


def _dependencies(deps_file: Path, skip: tuple[str, ...]) -> list[str]:
    """Files listed in a make-style depfile (clang -MD), minus those under ``skip``."""
    try:
        text = deps_file.read_text()
    except OSError:
        return []
    text = text.replace("\\\n", " ")
    _, _, rest = text.partition(": ")
    paths, cur = [], ""
    for tok in rest.split(" "):
        if tok.endswith("\\"):
            cur += tok[:-1] + " "
            continue
        cur += tok
        if cur.strip():
            paths.append(os.path.abspath(cur.strip()))
        cur = ""
    return sorted({p for p in paths if not p.startswith(skip)})


def _line_directive(filename: str) -> str:
    escaped = filename.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line 1 "{escaped}"\n'


def _refuse_imports(missing: list[str], log: str, options: str) -> None:
    """Fail the build when the module calls functions it does not define: the program's own
    (declared, never defined) or built-ins the backend could not lower."""
    user = [m for m in missing if is_user_function(m)]
    builtins = [m for m in missing if not is_user_function(m)]
    detail = "".join(f"error: function '{m}' is called but never defined in the program (inline functions "
                     "have GNU89 semantics: an 'extern inline' definition only inlines, drop 'extern')\n"
                     for m in user)
    detail += "".join(f"error: no SPIR-V lowering for built-in '{demangle_name(m)}' ({m})\n" for m in builtins)
    what = []
    if user:
        what.append(f"undefined function(s): {', '.join(user)}")
    if builtins:
        what.append(f"unsupported built-in function(s): {', '.join(dict.fromkeys(map(demangle_name, builtins)))}")
    if builtins:
        raise BuildError(log + detail, what="; ".join(what), options=options)
    if user:  # clCompileProgram: another program may define them (clLinkProgram)
        raise UnresolvedFunctionsError(log + detail, "; ".join(what), user, options=options)


def compile_with_log(
    source: str | bytes,
    options: str | ParsedOptions = "",
    *,
    include_dirs: tuple[str, ...] | list[str] = (),
    filename: str = "<source>",
) -> CompileResult:
    """Compile OpenCL C to SPIR-V; return the module, the build log and the parsed options.

    Raises BuildError with clang's diagnostics (pointing into ``filename``) on
    failure, and when the module would call a built-in that has no SPIR-V
    lowering (an ``Import``-linkage function).
    """
    opts = options if isinstance(options, ParsedOptions) else parse_options(options)
    clang = find_clang()
    dirs = [os.path.abspath(d) for d in (*opts.include_dirs, *include_dirs)] + _search_dirs(filename)
    text = source_bytes(source)
    features = feature_header()
    key = cache.digest(
        text, opts.text, "\0".join(dirs), filename, features, _our_headers(), clang.version, clang.origin,
        " ".join(LOCATION_FLAGS), " ".join(CODEGEN_FLAGS),
    )
    hit = cache.load(key)
    if hit is not None:
        check_sub_group_sizes(hit[0], opts)
        return CompileResult(hit[0], hit[1], opts, hit[2])

    with tempfile.TemporaryDirectory(prefix="sgvm-build-") as tmp:
        tmpdir = Path(tmp)
        (tmpdir / "sgvm_features.h").write_text(features)
        src = tmpdir / SOURCE_NAME
        src.write_bytes(_line_directive(filename).encode("utf-8", "surrogateescape") + text)
        out, deps = tmpdir / "out.spv", tmpdir / "deps.d"
        argv = [
            *clang.argv,
            *clang_arguments(opts, str(tmpdir / "sgvm_features.h")),
            *(f"-I{d}" for d in dirs),
            "-MD", "-MF", str(deps),
            *(LOCATION_FLAGS if opts.debug_info else ()),
            "-o", str(out), str(src),
        ]
        proc = subprocess.run(argv, capture_output=True, text=True, encoding="utf-8", errors="replace", cwd=tmp)
        log, dump = split_log(proc.stderr) if opts.debug_info else (proc.stderr, "")
        log = "".join(f"{n}\n" for n in opts.notes) + log.replace(str(src), filename).replace(tmp + os.sep, "")
        if proc.returncode != 0 or not out.exists():
            raise BuildError(log, what="build failed", options=opts.text)
        spirv = repair(out.read_bytes())
        _refuse_imports(called_imports(spirv), log, opts.text)
        check_sub_group_sizes(spirv, opts)
        includes = _dependencies(deps, (tmp, str(INCLUDE_DIR)))
    cache.store(key, spirv, log, includes, dump)
    return CompileResult(spirv, log, opts, dump)


def compile(  # noqa: A001 - the public name sgvm.compile
    source: str | bytes,
    options: str | ParsedOptions = "",
    *,
    include_dirs: tuple[str, ...] | list[str] = (),
    filename: str = "<source>",
) -> bytes:
    """Compile OpenCL C source to a SPIR-V binary (see ``compile_with_log``)."""
    return compile_with_log(source, options, include_dirs=include_dirs, filename=filename).spirv
