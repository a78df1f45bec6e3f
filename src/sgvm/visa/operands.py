"""Operands and execution controls of vISA memory instructions.

Besides ``visa_SVM_GATHER.md`` (the ground truth for SVM_GATHER), the field
formats of the predicate and of raw operands come from the vISA operands
chapter, which that spec's ``Pred(uw)`` and ``raw_operand`` refer to:

* predicate ``uw``: bit 15 "Predicate Inverse", bits 13-14 "Predicate Combine"
  (00 sequential, 01 any, 10 all, 11 reserved), bit 12 "Reserved, Must be 0",
  bits 0-11 "Predicate ID";
* ``raw_operand { ud id; uw offset; }``, text ``<gen_var_name>.<offset>``.

Text names: general variables are written ``V<id>`` and predicate variables
``P<id>``, the numbering the vISA assembler uses for undeclared names.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

import numpy as np

from .errors import VisaError


class VisaType(enum.Enum):
    """Element types of general variables (vISA data types)."""

    UB = "UB"
    B = "B"
    UW = "UW"
    W = "W"
    HF = "HF"
    UD = "UD"
    D = "D"
    F = "F"
    UQ = "UQ"
    Q = "Q"
    DF = "DF"

    @property
    def size(self) -> int:
        """Size of one element in bytes."""
        return self.dtype.itemsize

    @property
    def dtype(self) -> np.dtype:
        """The little-endian NumPy dtype of one element."""
        return np.dtype(_DTYPES[self])

    @classmethod
    def of(cls, value: VisaType | str) -> VisaType:
        """``VisaType`` from a type or its (case-insensitive) name."""
        if isinstance(value, VisaType):
            return value
        try:
            return cls[value.upper()]
        except KeyError:
            raise VisaError(f"unknown vISA type {value!r}") from None


_DTYPES = {
    VisaType.UB: "u1", VisaType.B: "i1", VisaType.UW: "<u2", VisaType.W: "<i2",
    VisaType.HF: "<f2", VisaType.UD: "<u4", VisaType.D: "<i4", VisaType.F: "<f4",
    VisaType.UQ: "<u8", VisaType.Q: "<i8", VisaType.DF: "<f8",
}


class EMask(enum.IntEnum):
    """Exec_size bits 7..4: "execution mask (explicit control over the enabled channels)".

    ``M1``…``M8`` take the execution mask from channel ``offset`` on ("a value of
    {M3} means the first element will be pred_id(8)"); the ``_NM`` forms
    ignore the execution mask (NoMask) but keep the offset for the predicate.
    """

    M1 = 0b0000
    M2 = 0b0001
    M3 = 0b0010
    M4 = 0b0011
    M5 = 0b0100
    M6 = 0b0101
    M7 = 0b0110
    M8 = 0b0111
    M1_NM = 0b1000
    M2_NM = 0b1001
    M3_NM = 0b1010
    M4_NM = 0b1011
    M5_NM = 0b1100
    M6_NM = 0b1101
    M7_NM = 0b1110
    M8_NM = 0b1111

    @property
    def offset(self) -> int:
        """First channel of the 32-channel masks this control reads (M1 → 0, M2 → 4, …)."""
        return 4 * (self.value & 0b0111)

    @property
    def no_mask(self) -> bool:
        """True for the ``_NM`` forms: "ChEn[n] = 1" whatever the execution mask."""
        return bool(self.value & 0b1000)


class PredControl(enum.IntEnum):
    """Predicate bits 13-14, "Predicate Combine"."""

    SEQUENTIAL = 0b00
    ANY = 0b01
    ALL = 0b10


_PRED_SUFFIX = {PredControl.SEQUENTIAL: "", PredControl.ANY: ".any", PredControl.ALL: ".all"}
_PRED_TEXT = re.compile(r"(!?)P(\d+)(\.any|\.all)?")
_RAW_TEXT = re.compile(r"V(\d+)\.(\d+)")


@dataclass(frozen=True)
class Predicate:
    """A predicate operand: "Predicate ID", "Predicate Combine", "Predicate Inverse".

    ID 0 is not a predicate: the field value 0 means "no predication"
    (``if ( pred_control != 0 )``), so an instruction without one has
    ``predicate=None``.
    """

    var_id: int
    control: PredControl = PredControl.SEQUENTIAL
    inverse: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.var_id <= 4095:
            raise VisaError(
                f"predicate id {self.var_id} out of range: "
                "'Index of the predicate variable in range of [0-4095]', 0 meaning none"
            )
        object.__setattr__(self, "control", PredControl(self.control))

    def encode(self) -> int:
        """The ``uw`` predication control field."""
        return self.var_id | (self.control << 13) | (int(self.inverse) << 15)

    @classmethod
    def decode(cls, field: int) -> Predicate | None:
        """Predicate from the ``uw`` field; ``None`` for 0 (no predication)."""
        if field & (1 << 12):
            raise VisaError("predicate bit 12 is set: 'Reserved, Must be 0'")
        control = (field >> 13) & 0b11
        if control == 0b11:
            raise VisaError("predicate combine 0b11 is 'reserved'")
        var_id = field & 0xFFF
        if var_id == 0:
            if field:
                raise VisaError("predicate id 0 (no predication) with combine or inverse bits set")
            return None
        return cls(var_id, PredControl(control), bool(field >> 15))

    def to_text(self) -> str:
        """``[!]P<id>[.any|.all]``."""
        return f"{'!' if self.inverse else ''}P{self.var_id}{_PRED_SUFFIX[self.control]}"

    @classmethod
    def parse(cls, text: str) -> Predicate:
        """Inverse of :meth:`to_text`."""
        m = _PRED_TEXT.fullmatch(text.strip())
        if not m:
            raise VisaError(f"bad predicate {text!r}: expected [!]P<id>[.any|.all]")
        control = {"": PredControl.SEQUENTIAL, ".any": PredControl.ANY, ".all": PredControl.ALL}
        return cls(int(m[2]), control[m[3] or ""], m[1] == "!")


@dataclass(frozen=True)
class RawOperand:
    """``raw_operand { ud id; uw offset; }``: a general variable and a byte offset.

    ``type`` is the element type the variable was declared with; the binary and
    text forms do not carry it (it lives in the variable's declaration), so it
    is ``None`` unless the caller supplies the declarations.
    """

    var_id: int
    offset: int = 0
    type: VisaType | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.var_id < 1 << 32:
            raise VisaError(f"raw operand id {self.var_id} does not fit 'ud id'")
        if not 0 <= self.offset < 1 << 16:
            raise VisaError(f"raw operand offset {self.offset} does not fit 'uw offset'")
        if self.type is not None:
            object.__setattr__(self, "type", VisaType.of(self.type))

    def encode(self) -> bytes:
        """Six little-endian bytes: ``ud id`` then ``uw offset``."""
        return self.var_id.to_bytes(4, "little") + self.offset.to_bytes(2, "little")

    @classmethod
    def decode(cls, data: bytes, type: VisaType | str | None = None) -> RawOperand:
        """Inverse of :meth:`encode` (``data`` is exactly six bytes)."""
        return cls(int.from_bytes(data[:4], "little"), int.from_bytes(data[4:6], "little"), type)

    def to_text(self) -> str:
        """``<gen_var_name>.<offset>``, e.g. ``V12.0``."""
        return f"V{self.var_id}.{self.offset}"

    @classmethod
    def parse(cls, text: str, type: VisaType | str | None = None) -> RawOperand:
        """Inverse of :meth:`to_text`."""
        m = _RAW_TEXT.fullmatch(text.strip())
        if not m:
            raise VisaError(f"bad raw operand {text!r}: expected V<id>.<offset>")
        return cls(int(m[1]), int(m[2]), type)
