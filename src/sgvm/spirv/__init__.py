"""SPIR-V: grammar tables, binary reader/writer, the Module model, disassembler.

>>> from sgvm.spirv import read
>>> module = read(open("k.spv", "rb").read())
>>> module.to_bytes() == open("k.spv", "rb").read()
True
"""

from .module import (
    Block,
    Constant,
    Decoration,
    EntryPoint,
    Function,
    Header,
    Instruction,
    Module,
    Operand,
    SourceLocation,
    Type,
    Variable,
)
from .reader import read
from .writer import write

__all__ = [
    "Block", "Constant", "Decoration", "EntryPoint", "Function", "Header", "Instruction",
    "Module", "Operand", "SourceLocation", "Type", "Variable", "read", "write",
]
