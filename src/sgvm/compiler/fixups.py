"""Repairs of encoding defects in the SPIR-V that clang 22's backend writes.

Only defects that cannot be avoided from the source side live here; each is
an exact, local rewrite (SPIR-V spec s2.3 physical layout).
"""

from __future__ import annotations

import struct

OP_CONSTANT_NULL = 46


def repair(spirv: bytes) -> bytes:
    """Return ``spirv`` with known encoding defects fixed.

    * ``OpConstantNull`` with a stray extra operand (the backend writes
      ``OpConstantNull %event %id %event`` for the null ``event_t`` passed to
      ``async_work_group_copy``): the instruction has exactly 3 words.
    """
    if len(spirv) < 20 or len(spirv) % 4:
        return spirv
    words = list(struct.unpack(f"<{len(spirv) // 4}I", spirv))
    out = words[:5]
    pos = 5
    changed = False
    while pos < len(words):
        count, opcode = words[pos] >> 16, words[pos] & 0xFFFF
        if count == 0:
            return spirv
        inst = words[pos : pos + count]
        if opcode == OP_CONSTANT_NULL and count > 3:
            inst = [(3 << 16) | OP_CONSTANT_NULL, *inst[1:3]]
            changed = True
        out += inst
        pos += count
    return struct.pack(f"<{len(out)}I", *out) if changed else spirv
