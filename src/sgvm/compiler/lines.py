"""Source positions for SPIR-V instructions, from clang's final machine code.

clang's SPIR-V backend writes no ``OpLine``/``DebugLine``, even with ``-g``.
But with ``-g`` every machine instruction it selects carries a debug location,
and ``-mllvm -print-after=spirv-asm-printer`` prints each function's machine
code, after the SPIR-V was emitted from it, to stderr: one SPIR-V opcode per
line with a ``; file:line:col @[ inlined-at ... ]`` comment. Function-body
instructions appear there in the order they were written, so aligning them
with the module's functions (by name, then per opcode with difflib) gives
every instruction clang's own location. ``-g`` changes no instruction of the
module (only unused ids).

How the compiler produces the dump, in the same clang run as the SPIR-V::

    argv += LOCATION_FLAGS                 # -g and the -print-after option
    proc = subprocess.run(argv, capture_output=True, text=True)
    log, dump = split_log(proc.stderr)     # log: the diagnostics, as before
    module = read(spirv)
    attach_locations(module, dump)         # names: the #line directive's

The driver does this for every build with ``-g`` and keeps the dump in the
cache beside the module (``CompileResult.line_dump``;
``CompileResult.module()`` returns the located Module). Its
``#line 1 "<filename>"`` makes clang record the user's file name, exactly as
given (see ``LOCATION_FLAGS``); without it, pass ``filename_map`` to rename
the temporary file.

Which frame is reported: the innermost one outside sgvm's own headers (an
instruction of a helper inlined into a kernel gets the helper's line; one of
a header built-in gets the user's call). Line 0 (code clang made up or
merged) counts as no location. An instruction without a location takes that
of its first located user (a value hoisted out of a loop points into the
loop), else that of the nearest located instruction before it in its block,
else after it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from pathlib import PurePath

from ..spirv import Function, Instruction, Module, SourceLocation, grammar
from .toolchain import INCLUDE_DIR

# -fdebug-compilation-dir=/: clang (CGDebugInfo::createFile) splits an absolute file name
# into the part it shares with the compilation directory and the rest, and the dump prints
# only the rest: "/tmp/pk/k.cl" compiled in /tmp/sgvm-build-*/ showed as "pk/k.cl". With
# "/" as that directory nothing is shared but the root, which clang never strips, so the
# dump carries the name of the #line directive exactly as given.
LOCATION_FLAGS: tuple[str, ...] = ("-g", "-fdebug-compilation-dir=/", "-mllvm",
                                   "-print-after=spirv-asm-printer")

_DUMP_START = "# *** IR Dump After"
_FUNC_START = re.compile(r"^# Machine code for function (.+?):")
_FUNC_END = "# End machine code for function"
_BLOCK = re.compile(r"^bb\.\d+")
_DEBUG_LOC = re.compile(r"(?:, | )debug-location !\d+(?:; (.*))?$")
_FRAME = re.compile(r"^(.*?):(\d+)(?::(\d+))?$")
# Function-body opcodes that the machine code also holds in global sections.
_GLOBAL = re.compile(r"^Op(Type|Constant|SpecConstant|Decorate|MemberDecorate|Name|MemberName"
                     r"|EntryPoint|ExecutionMode|Function$|FunctionParameter|FunctionEnd|Undef)")
_FUNCTION_STORAGE = "7"  # StorageClass Function: an OpVariable inside a function body

Frame = tuple[str, int, int]
MachineInst = tuple[str, tuple[Frame, ...]]  # canonical opname, location frames (innermost first)


def split_log(stderr: str) -> tuple[str, str]:
    """Split clang's stderr (run with LOCATION_FLAGS) into (diagnostics, machine-code dump)."""
    log: list[str] = []
    dump: list[str] = []
    inside = False
    for line in stderr.splitlines(keepends=True):
        if line.startswith(_DUMP_START):
            inside = True
        (dump if inside else log).append(line)
        if line.startswith(_FUNC_END):
            inside = False
    return "".join(log), "".join(dump)


def _opname(token: str) -> str | None:
    """The canonical SPIR-V opname of a machine opcode, or None.

    Selected variants carry a suffix: ``OpIAddS`` → ``OpIAdd``, ``OpSelectSISCond`` → ``OpSelect``.
    """
    by_name = grammar.load().by_name
    if token == "PHI":
        token = "OpPhi"
    for end in range(len(token), 2, -1):
        if token[:end] in by_name:
            return by_name[token[:end]].opname
    return None


def _frames(comment: str | None) -> tuple[Frame, ...]:
    """``a.cl:3:5 @[ a.cl:9:2 @[ ... ] ]`` → ((a.cl, 3, 5), (a.cl, 9, 2), ...)."""
    if not comment:
        return ()
    out = []
    for part in comment.split(" @[ "):
        m = _FRAME.match(part.rstrip(" ]"))
        if m:
            out.append((m.group(1), int(m.group(2)), int(m.group(3) or 0)))
    return tuple(out)


def _parse_line(line: str) -> MachineInst | None:
    """One machine instruction of the function body, or None for anything else."""
    m = _DEBUG_LOC.search(line)
    head = line[: m.start()] if m else line
    head = head.split(" = ", 1)[-1]
    words = head.replace(",", " ").split()
    for i, word in enumerate(words):
        if word[:1].isupper():
            op = _opname(word)
            if op is None or _GLOBAL.match(op):
                return None
            if op == "OpVariable" and words[i + 2: i + 3] != [_FUNCTION_STORAGE]:
                return None
            return op, _frames(m.group(1) if m else None)
    return None


def _parse_dump(dump: str) -> list[tuple[str, list[list[MachineInst]]]]:
    """The dump's functions, in order: (name, blocks of machine instructions)."""
    funcs: list[tuple[str, list[list[MachineInst]]]] = []
    blocks: list[list[MachineInst]] | None = None
    for line in dump.splitlines():
        start = _FUNC_START.match(line)
        if start:
            blocks = []
            funcs.append((start.group(1), blocks))
        elif line.startswith(_FUNC_END):
            blocks = None
        elif blocks is not None:
            if _BLOCK.match(line):
                blocks.append([])
            elif line.startswith("  ") and blocks:
                inst = _parse_line(line)
                if inst:
                    blocks[-1].append(inst)
    return funcs


def _pair_functions(
    module: Module, funcs: list[tuple[str, list[list[MachineInst]]]]
) -> list[tuple[Function, list[list[MachineInst]]]]:
    """Machine functions with their SPIR-V functions: by name, the rest in order."""
    defined = [f for f in module.functions.values() if not f.is_declaration]
    by_name = {f.name: f for f in defined if f.name}
    pairs, rest = [], []
    for name, blocks in funcs:
        f = by_name.pop(name, None)
        if f is not None:
            pairs.append((f, blocks))
        else:
            rest.append(blocks)
    left = [f for f in defined if f in by_name.values() or not f.name]
    pairs.extend(zip(left, rest, strict=False))
    return pairs


def _align(fn: Function, blocks: list[list[MachineInst]]) -> dict[int, tuple[Frame, ...]]:
    """SPIR-V instruction (by ``id``) → frames of the machine instruction it came from."""
    spv: list[Instruction | None] = []
    for block in fn.blocks:
        spv.append(None)  # OpLabel
        spv.extend(block.instructions)
    mach: list[MachineInst] = []
    for mblock in blocks:
        mach.append(("OpLabel", ()))
        mach.extend(mblock)
    a = [i.opname if i is not None else "OpLabel" for i in spv]
    b = [op for op, _ in mach]
    out = {}
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for i, j, n in matcher.get_matching_blocks():
        for k in range(n):
            inst = spv[i + k]
            if inst is not None and mach[j + k][1]:
                out[id(inst)] = mach[j + k][1]
    return out


def _internal(path: str) -> bool:
    """Whether ``path`` (as clang recorded it, maybe relative) is one of sgvm's headers."""
    parts = PurePath(path.replace("\\", "/")).parts
    return len(parts) >= 2 and parts[-2] == INCLUDE_DIR.name and (INCLUDE_DIR / parts[-1]).is_file()


def _location(frames: Iterable[Frame], filename_map: Mapping[str, str]) -> SourceLocation | None:
    """The innermost frame outside sgvm's headers; None for line 0 (no real location)."""
    for file, line, column in frames:
        if line == 0:
            return None
        if not _internal(file):
            return SourceLocation(filename_map.get(file, file), line, column)
    return None


def _propagate(fn: Function) -> None:
    """Give located users' (else neighbours') locations to unlocated instructions."""
    users: dict[int, list[Instruction]] = {}
    for block in fn.blocks:
        for inst in block.instructions:
            for ref in inst.ids():
                users.setdefault(ref, []).append(inst)
    for block in fn.blocks:
        insts = block.instructions
        before: list[SourceLocation | None] = []
        last = None
        for inst in insts:
            before.append(last)
            last = inst.location or last
        after: list[SourceLocation | None] = []
        last = None
        for inst in reversed(insts):
            after.append(last)
            last = inst.location or last
        after.reverse()
        for n, inst in enumerate(insts):
            if inst.location is None:
                by_user = (u.location for u in users.get(inst.result_id or -1, ()) if u.location)
                inst.location = next(by_user, None) or before[n] or after[n]


def attach_locations(
    module: Module, dump: str, filename_map: Mapping[str, str] | None = None
) -> int:
    """Set ``Instruction.location`` of the module's function-body instructions from ``dump``.

    ``dump``: clang's stderr, or its machine-code part (``split_log``), from the
    run with ``LOCATION_FLAGS`` that wrote this module. ``filename_map`` renames
    files as clang saw them (a temporary path) to the user's names. Returns how
    many instructions have a location afterwards.
    """
    names = dict(filename_map or {})
    count = 0
    for fn, blocks in _pair_functions(module, _parse_dump(dump)):
        frames = _align(fn, blocks)
        for block in fn.blocks:
            for inst in block.instructions:
                inst.location = _location(frames.get(id(inst), ()), names)
        _propagate(fn)
        count += sum(inst.location is not None for b in fn.blocks for inst in b.instructions)
    return count

