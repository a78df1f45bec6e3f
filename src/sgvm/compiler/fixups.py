"""Repairs of encoding defects in the SPIR-V that clang 22's backend writes.

Only defects that cannot be avoided from the source side live here; each is
an exact, local rewrite (SPIR-V spec s2.3 physical layout).
"""

from __future__ import annotations

import struct

OP_CONSTANT_NULL = 46
OP_DECORATE = 71
OP_FUNCTION_CALL = 57
OP_IMAGE_QUERY_ORDER = 102
DECORATION_LINKAGE_ATTRIBUTES = 41
# sgvm_images.h declares this (never defined) for get_image_channel_order, which
# clang 22 leaves undefined; a call to it becomes OpImageQueryOrder.
QUERY_ORDER_NAME = b"__sgvm_image_query_order"


def repair(spirv: bytes) -> bytes:
    """Return ``spirv`` with known encoding defects fixed.

    * ``OpConstantNull`` with a stray extra operand (the backend writes
      ``OpConstantNull %event %id %event`` for the null ``event_t`` passed to
      ``async_work_group_copy``): the instruction has exactly 3 words.
    * ``OpFunctionCall %t %r %f %image`` of the imported ``__sgvm_image_query_order``
      overloads becomes ``OpImageQueryOrder %t %r %image`` (SPIR-V spec s3.52.10).
    """
    if len(spirv) < 20 or len(spirv) % 4:
        return spirv
    words = list(struct.unpack(f"<{len(spirv) // 4}I", spirv))
    out = words[:5]
    pos = 5
    changed = False
    query_order: set[int] = set()  # ids of the imported __sgvm_image_query_order overloads
    while pos < len(words):
        count, opcode = words[pos] >> 16, words[pos] & 0xFFFF
        if count == 0:
            return spirv
        inst = words[pos : pos + count]
        if opcode == OP_CONSTANT_NULL and count > 3:
            inst = [(3 << 16) | OP_CONSTANT_NULL, *inst[1:3]]
            changed = True
        elif opcode == OP_DECORATE and count > 3 and inst[2] == DECORATION_LINKAGE_ATTRIBUTES \
                and QUERY_ORDER_NAME in struct.pack(f"<{count - 3}I", *inst[3:]):
            query_order.add(inst[1])
        elif opcode == OP_FUNCTION_CALL and count == 5 and inst[3] in query_order:
            inst = [(4 << 16) | OP_IMAGE_QUERY_ORDER, inst[1], inst[2], inst[4]]
            changed = True
        out += inst
        pos += count
    return struct.pack(f"<{len(out)}I", *out) if changed else spirv
