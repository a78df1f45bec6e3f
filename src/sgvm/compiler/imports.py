"""Find calls to functions a SPIR-V module imports but never defines.

clang's SPIR-V backend turns an OpenCL built-in it cannot lower into a call to
a function declaration with ``LinkageAttributes "<mangled>" Import``. No
OpenCL runtime links such a module, so the compiler refuses it. This is a
minimal reader of the physical layout (SPIR-V spec s2.3): it only needs
OpDecorate, OpFunction and OpFunctionCall.
"""

from __future__ import annotations

import re
import struct

MAGIC = 0x07230203
OP_DECORATE = 71
OP_FUNCTION = 54
OP_FUNCTION_CALL = 57
DECORATION_LINKAGE_ATTRIBUTES = 41
LINKAGE_IMPORT = 1


def _string(words: tuple[int, ...]) -> tuple[str, int]:
    """Decode a nul-terminated literal string; return it and the words it used."""
    raw = struct.pack(f"<{len(words)}I", *words)
    end = raw.find(b"\0")
    end = len(raw) if end < 0 else end
    return raw[:end].decode("utf-8", "replace"), end // 4 + 1


def called_imports(spirv: bytes) -> list[str]:
    """Linkage names of imported functions that the module calls, in first-call order."""
    if len(spirv) < 20 or len(spirv) % 4:
        return []
    words = struct.unpack(f"<{len(spirv) // 4}I", spirv)
    if words[0] != MAGIC:
        return []
    imports: dict[int, str] = {}
    functions: set[int] = set()
    called: list[int] = []
    pos = 5
    while pos < len(words):
        count, opcode = words[pos] >> 16, words[pos] & 0xFFFF
        if count == 0:
            break
        ops = words[pos + 1 : pos + count]
        if opcode == OP_DECORATE and len(ops) >= 3 and ops[1] == DECORATION_LINKAGE_ATTRIBUTES:
            name, used = _string(ops[2:])
            if len(ops) > 2 + used and ops[2 + used] == LINKAGE_IMPORT:
                imports[ops[0]] = name
        elif opcode == OP_FUNCTION and len(ops) >= 2:
            functions.add(ops[1])
        elif opcode == OP_FUNCTION_CALL and len(ops) >= 3 and ops[2] not in called:
            called.append(ops[2])
        pos += count
    return [imports[f] for f in called if f in imports and f in functions]


_SOURCE_NAME = re.compile(r"_Z(?:L)?(\d+)")


def demangle_name(mangled: str) -> str:
    """The function name in an Itanium-mangled symbol (``_Z8mem_fencej`` → ``mem_fence``)."""
    m = _SOURCE_NAME.match(mangled)
    if not m:
        return mangled
    length = int(m.group(1))
    return mangled[m.end() : m.end() + length] or mangled


def is_user_function(name: str) -> bool:
    """Whether an imported name is a program's own function rather than a built-in: OpenCL C
    functions without ``overloadable`` keep their plain names, while built-ins are mangled
    (``_Z...``) or reserved (``__spirv_...``, ``__to_global``)."""
    return not name.startswith(("_Z", "__"))
