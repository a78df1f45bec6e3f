"""SVM_GATHER (opcode 0x4e SVM, sub-opcode 0x03 GATHER): fields, binary, text.

Format (``visa_SVM_GATHER.md``)::

    | 0x4e(SVM) | 0x03(GATHER) | Exec_size | Pred | Block_size | Num_blocks | Addresses | Dst |

with ``Exec_size(ub)``, ``Pred(uw)``, ``Block_size(ub)``, ``Num_blocks(ub)``
and two ``raw_operand``\\ s, little-endian: 19 bytes in all. Text::

    [(<P>)] SVM_GATHER.<block_size>.<num_blocks> (<exec_size>) <addresses> <dst>

where ``<exec_size>`` is the size, ``(8)``, or with an execution mask control other
than the default M1, ``<mask control>, <size>`` as in ``(M1_NM, 8)`` (IGC's spelling).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .errors import VisaError
from .execute import MaskLike, MemoryLike, channel_enables, execute_gather
from .operands import EMask, Predicate, RawOperand, VisaType

OPCODE_SVM = 0x4E
SUBOP_GATHER = 0x03
ENCODED_SIZE = 19

EXEC_SIZES = (1, 2, 4, 8, 16)  # Exec_size bits 2..0: 0b000 … 0b100
BLOCK_SIZES = {1: 0b00, 4: 0b01, 8: 0b11}  # Block_size bits 1..0
NUM_BLOCKS = {1: 0b00, 2: 0b01, 4: 0b10, 8: 0b11}  # Num_blocks bits 1..0

RULE_8_BLOCKS = (
    "Num_blocks: '8 blocks. It is only valid for 4 byte blocks and execution size 8' "
    "(sgvm also admits 1-byte blocks at execution size 8, drawn in the '1 byte gather, "
    "8 block' table)"
)
RULE_EXEC_SIZE_BLOCKS = "'When num_blocks > 1, exec_size must >= 8'"
RULE_ADDRESS_TYPE = "Addresses: 'Must have type UQ'"
RULE_DST_TYPE = "'The operand's type must be the same size as <block_size>'"

Types = Mapping[int, VisaType | str]

_TEXT = re.compile(
    r"\s*(?:\(\s*(?P<pred>[^)]*?)\s*\)\s*)?SVM_GATHER\.(?P<bs>\d+)\.(?P<nb>\d+)\s*"
    r"\(\s*(?:(?P<mask>\w+)\s*,\s*)?(?P<es>\d+)\s*\)\s+(?P<addr>\S+)\s+(?P<dst>\S+)\s*",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SvmGather:
    """One SVM_GATHER: "Performs … scattered read from virtual addresses and stores
    the result into <dst>. Each element may have multiple blocks."

    Construction checks every rule of the spec that the fields alone decide;
    address alignment is checked by :meth:`execute`, where addresses are known.
    """

    exec_size: int
    block_size: int
    num_blocks: int
    addresses: RawOperand
    dst: RawOperand
    emask: EMask = EMask.M1
    predicate: Predicate | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "emask", EMask(self.emask))
        if self.exec_size not in EXEC_SIZES:
            raise VisaError(f"Exec_size: {self.exec_size} is not one of 1, 2, 4, 8, 16 elements")
        if self.block_size not in BLOCK_SIZES:
            raise VisaError(f"Block_size: {self.block_size} is not 1, 4 or 8 bytes")
        if self.num_blocks not in NUM_BLOCKS:
            raise VisaError(f"Num_blocks: {self.num_blocks} is not 1, 2, 4 or 8 blocks")
        if self.num_blocks > 1 and self.exec_size < 8:
            raise VisaError(
                f"{self.num_blocks} blocks at exec size {self.exec_size}: {RULE_EXEC_SIZE_BLOCKS}"
            )
        if self.num_blocks == 8 and not (self.exec_size == 8 and self.block_size in (1, 4)):
            raise VisaError(
                f"8 blocks of {self.block_size} bytes at exec size {self.exec_size}: {RULE_8_BLOCKS}"
            )
        if self.emask.offset + self.exec_size > 32:
            raise VisaError(
                f"{self.emask.name} with exec size {self.exec_size} reaches channel "
                f"{self.emask.offset + self.exec_size - 1}: 'ChEn is a 32 bit mask'"
            )
        if self.addresses.type not in (None, VisaType.UQ):
            raise VisaError(f"addresses of type {self.addresses.type.name}: {RULE_ADDRESS_TYPE}")
        if self.dst.type is not None and self.dst.type.size != self.block_size:
            raise VisaError(
                f"dst of type {self.dst.type.name} ({self.dst.type.size} bytes) with "
                f"{self.block_size}-byte blocks: {RULE_DST_TYPE}"
            )

    # -- layout -----------------------------------------------------------------

    @property
    def min_block_size(self) -> int:
        """``UD min_block_size = num_blocks < 4 ? 4 : num_blocks`` (1-byte gathers)."""
        return 4 if self.num_blocks < 4 else self.num_blocks

    @property
    def dst_elements(self) -> int:
        """Number of <dst> elements the instruction writes into (its footprint)."""
        if self.block_size == 1:
            return self.exec_size * self.min_block_size
        return self.exec_size * self.num_blocks

    @property
    def dst_dtype(self) -> np.dtype:
        """dtype of <dst> elements: the declared type, else unsigned of the block size."""
        if self.dst.type is not None:
            return self.dst.type.dtype
        return np.dtype({1: "u1", 4: "<u4", 8: "<u8"}[self.block_size])

    # -- binary -----------------------------------------------------------------

    def encode(self) -> bytes:
        """The 19-byte binary form."""
        exec_field = EXEC_SIZES.index(self.exec_size) | (self.emask << 4)
        pred_field = self.predicate.encode() if self.predicate else 0
        return (
            bytes((OPCODE_SVM, SUBOP_GATHER, exec_field))
            + pred_field.to_bytes(2, "little")
            + bytes((BLOCK_SIZES[self.block_size], NUM_BLOCKS[self.num_blocks]))
            + self.addresses.encode()
            + self.dst.encode()
        )

    @classmethod
    def decode(cls, data: bytes, types: Types | None = None) -> SvmGather:
        """Inverse of :meth:`encode`. ``types`` maps variable ids to their declared types."""
        data = bytes(data)
        if len(data) != ENCODED_SIZE:
            raise VisaError(f"SVM_GATHER is {ENCODED_SIZE} bytes, got {len(data)}")
        if data[0] != OPCODE_SVM or data[1] != SUBOP_GATHER:
            raise VisaError(
                f"opcode 0x{data[0]:02x} sub-opcode 0x{data[1]:02x} is not SVM (0x4e) GATHER (0x03)"
            )
        exec_field, block_field, num_field = data[2], data[5], data[6]
        if exec_field & 0b1000 or (exec_field & 0b111) >= len(EXEC_SIZES):
            raise VisaError(f"Exec_size byte 0x{exec_field:02x}: bits 2..0 must be 0b000-0b100, bit 3 is 0")
        if block_field not in BLOCK_SIZES.values():
            raise VisaError(f"Block_size byte 0x{block_field:02x}: must be 0b00, 0b01 or 0b11")
        if num_field > 0b11:
            raise VisaError(f"Num_blocks byte 0x{num_field:02x}: only bits 1..0 are defined")
        types = types or {}
        addresses = RawOperand.decode(data[7:13])
        dst = RawOperand.decode(data[13:19])
        return cls(
            exec_size=EXEC_SIZES[exec_field & 0b111],
            block_size=next(k for k, v in BLOCK_SIZES.items() if v == block_field),
            num_blocks=1 << num_field,
            addresses=RawOperand(addresses.var_id, addresses.offset, types.get(addresses.var_id)),
            dst=RawOperand(dst.var_id, dst.offset, types.get(dst.var_id)),
            emask=EMask(exec_field >> 4),
            predicate=Predicate.decode(int.from_bytes(data[3:5], "little")),
        )

    # -- text -------------------------------------------------------------------

    def to_text(self) -> str:
        """``[(<P>)] SVM_GATHER.<block_size>.<num_blocks> (<exec_size>) <addresses> <dst>``,
        the spec's form; an execution mask control other than M1 is written ``(<mask>, <size>)``."""
        pred = f"({self.predicate.to_text()}) " if self.predicate else ""
        size = f"{self.exec_size}" if self.emask is EMask.M1 else f"{self.emask.name}, {self.exec_size}"
        return (
            f"{pred}SVM_GATHER.{self.block_size}.{self.num_blocks} "
            f"({size}) {self.addresses.to_text()} {self.dst.to_text()}"
        )

    @classmethod
    def parse(cls, text: str, types: Types | None = None) -> SvmGather:
        """Inverse of :meth:`to_text`; ``(<exec_size>)`` (the spec's form, mask M1) and
        ``(<mask>, <exec_size>)`` are both accepted, the mnemonic and mask names are
        case-insensitive (IGC prints ``svm_gather``), ``types`` maps variable ids to declared types."""
        m = _TEXT.fullmatch(text)
        if not m:
            raise VisaError(
                f"cannot parse {text!r}: expected '[(<P>)] SVM_GATHER.<block_size>.<num_blocks> "
                "(<exec_size>) <addresses> <dst>' (or '(<mask>, <exec_size>)')"
            )
        try:
            emask = EMask[m["mask"].upper()] if m["mask"] is not None else EMask.M1
        except KeyError:
            raise VisaError(f"unknown execution mask control {m['mask']!r}") from None
        types = types or {}
        addresses = RawOperand.parse(m["addr"])
        dst = RawOperand.parse(m["dst"])
        return cls(
            exec_size=int(m["es"]),
            block_size=int(m["bs"]),
            num_blocks=int(m["nb"]),
            addresses=RawOperand(addresses.var_id, addresses.offset, types.get(addresses.var_id)),
            dst=RawOperand(dst.var_id, dst.offset, types.get(dst.var_id)),
            emask=emask,
            predicate=Predicate.parse(m["pred"]) if m["pred"] is not None else None,
        )

    # -- execution ----------------------------------------------------------------

    def channel_enables(self, exec_mask: MaskLike = None, predicate: MaskLike = None) -> np.ndarray:
        """ChEn over the ``exec_size`` channels; see :func:`sgvm.visa.execute.channel_enables`."""
        return channel_enables(self, exec_mask, predicate)

    def execute(
        self,
        memory: MemoryLike,
        addresses: object,
        channel_enable: MaskLike = None,
        dst: object = None,
        predicate: MaskLike = None,
    ) -> np.ndarray:
        """Run the gather; see :func:`sgvm.visa.execute.execute_gather`."""
        return execute_gather(self, memory, addresses, channel_enable, dst, predicate)
