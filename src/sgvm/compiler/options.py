"""OpenCL build options → clang arguments (OpenCL API spec s5.8.6, "Compiler Options").

``parse_options`` accepts the option string of ``clBuildProgram``/``clCompileProgram``
and splits it into what clang gets and what sgvm itself reads. Options that
start with ``-sgvm-`` are sgvm's own (``-sgvm-sub-group-size=16``); they never
reach clang.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from ..errors import BuildError
from . import intel_options

# -cl-std values accepted by clBuildProgram, and the __OPENCL_C_VERSION__ each selects.
CL_STD_VERSIONS: dict[str, int] = {"CL1.0": 100, "CL1.1": 110, "CL1.2": 120, "CL2.0": 200, "CL3.0": 300}
DEFAULT_CL_STD = "CL1.2"  # clBuildProgram's default for a device that supports OpenCL C 1.2

# Options passed to clang unchanged (s5.8.6.2-s5.8.6.5). Fast-math style options
# also allow clang to contract a*b+c; see ``ParsedOptions.allow_contraction``.
_PASS_THROUGH = {
    "-cl-single-precision-constant",
    "-cl-denorms-are-zero",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-mad-enable",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-cl-uniform-work-group-size",
    "-cl-kernel-arg-info",
    "-w",
}
_CONTRACTING = {"-cl-mad-enable", "-cl-fast-relaxed-math", "-cl-unsafe-math-optimizations"}
# Accepted for compatibility, no effect on SPIR-V generation.
_IGNORED = {"-cl-no-subgroup-ifp", "-cl-strict-aliasing", "-create-library", "-enable-link-options"}


@dataclass
class ParsedOptions:
    """A build option string, split into its parts."""

    text: str = ""
    cl_std: str = DEFAULT_CL_STD
    defines: list[str] = field(default_factory=list)  # "NAME" or "NAME=VALUE"
    include_dirs: list[str] = field(default_factory=list)
    clang_args: list[str] = field(default_factory=list)  # flags forwarded to clang
    sgvm: dict[str, str] = field(default_factory=dict)  # -sgvm-NAME[=VALUE] options
    uniform_work_group_size: bool = False
    opt_disable: bool = False
    kernel_arg_info: bool = False
    debug_info: bool = False
    allow_contraction: bool = False
    notes: list[str] = field(default_factory=list)  # build-log lines about accepted options

    @property
    def opencl_c_version(self) -> int:
        """``__OPENCL_C_VERSION__`` for ``cl_std`` (120 for CL1.2, ...)."""
        return CL_STD_VERSIONS[self.cl_std]

    @property
    def uniform_work_groups_required(self) -> bool:
        """Whether enqueues must use uniform work-groups (OpenCL C < 2.0, or the -cl option)."""
        return self.uniform_work_group_size or self.opencl_c_version < 200


def _invalid(option: str, why: str, text: str) -> BuildError:
    return BuildError(
        f"CL_INVALID_BUILD_OPTIONS: {why}: '{option}'",
        what=f"invalid build option '{option}'",
        options=text,
    )


def _is_warning_option(opt: str) -> bool:
    """clang's warning controls: -W<warning>, -Wno-<warning>, -Werror[=<warning>], -Wno-error=<warning>.

    ``-Wl,``/``-Wa,``/``-Wp,`` hand arguments to other tools and are not warnings.
    """
    name = opt[2:]
    return opt.startswith("-W") and bool(name) and not name.startswith(("l,", "a,", "p,")) \
        and all(c.isalnum() or c in "-_=+#" for c in name)


def parse_options(options: str | list[str] | tuple[str, ...] = "") -> ParsedOptions:
    """Parse OpenCL build options; raise BuildError (CL_INVALID_BUILD_OPTIONS) on unknown ones."""
    text = options if isinstance(options, str) else shlex.join(options)
    try:
        words = shlex.split(text) if isinstance(options, str) else list(options)
    except ValueError as exc:
        raise _invalid(text, f"cannot split option string ({exc})", text) from None
    out = ParsedOptions(text=text)
    i = 0

    def value(opt: str, prefix: str) -> str:
        nonlocal i
        if opt != prefix:
            return opt[len(prefix):]
        i += 1
        if i >= len(words):
            raise _invalid(opt, "missing argument", text)
        return words[i]

    while i < len(words):
        opt = words[i]
        if opt.startswith("-D"):
            out.defines.append(value(opt, "-D"))
        elif opt.startswith("-I"):
            out.include_dirs.append(value(opt, "-I"))
        elif opt.startswith("-cl-std="):
            std = opt.split("=", 1)[1]
            if std not in CL_STD_VERSIONS:
                raise _invalid(opt, f"unsupported OpenCL C version (use one of {', '.join(CL_STD_VERSIONS)})", text)
            out.cl_std = std
        elif opt.startswith("-sgvm-"):
            name, _, val = opt[len("-sgvm-"):].partition("=")
            if not name:
                raise _invalid(opt, "empty sgvm option", text)
            out.sgvm[name] = val
        elif opt == "-cl-opt-disable":
            out.opt_disable = True
        elif opt == "-g":
            out.debug_info = True
        elif opt in _PASS_THROUGH:
            out.clang_args.append(opt)
            out.uniform_work_group_size |= opt == "-cl-uniform-work-group-size"
            out.kernel_arg_info |= opt == "-cl-kernel-arg-info"
            out.allow_contraction |= opt in _CONTRACTING
        elif _is_warning_option(opt):
            out.clang_args.append(opt)
        elif opt in _IGNORED:
            pass
        elif opt in intel_options.FLAGS:
            meaning, standard = intel_options.FLAGS[opt]
            out.notes.append(intel_options.note(opt, meaning))
            if standard:
                words[i] = standard
                continue
        elif opt.partition("=")[0] in intel_options.VALUED:
            name = opt.partition("=")[0]
            given = value(opt, name).removeprefix("=")
            out.notes.append(intel_options.note(f"{name} {given}", intel_options.VALUED[name]))
        else:
            raise _invalid(opt, "unknown build option", text)
        i += 1
    return out
