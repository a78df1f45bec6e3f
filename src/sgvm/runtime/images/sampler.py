"""Samplers: host-created, OpenCL C ``sampler_t`` literals and SPIR-V OpConstantSampler."""

from __future__ import annotations

from dataclasses import dataclass

from sgvm.errors import LogicError
from sgvm.runtime.images.enums import addressing_mode as A
from sgvm.runtime.images.enums import filter_mode as F

# OpenCL C sampler literal bits (CLK_*), as clang's opencl-c-base.h defines them.
CLK_NORMALIZED_COORDS_FALSE = 0x0
CLK_NORMALIZED_COORDS_TRUE = 0x1
CLK_ADDRESS_NONE = 0x0
CLK_ADDRESS_CLAMP_TO_EDGE = 0x2
CLK_ADDRESS_CLAMP = 0x4
CLK_ADDRESS_REPEAT = 0x6
CLK_ADDRESS_MIRRORED_REPEAT = 0x8
CLK_FILTER_NEAREST = 0x10
CLK_FILTER_LINEAR = 0x20

_ADDRESS_MASK = 0xE
_FILTER_MASK = 0x30
_CLK_ADDRESS = {
    CLK_ADDRESS_NONE: A.NONE,
    CLK_ADDRESS_CLAMP_TO_EDGE: A.CLAMP_TO_EDGE,
    CLK_ADDRESS_CLAMP: A.CLAMP,
    CLK_ADDRESS_REPEAT: A.REPEAT,
    CLK_ADDRESS_MIRRORED_REPEAT: A.MIRRORED_REPEAT,
}
_CLK_FILTER = {CLK_FILTER_NEAREST: F.NEAREST, CLK_FILTER_LINEAR: F.LINEAR}
# SPIR-V SamplerAddressingMode / SamplerFilterMode, by name and by value.
_SPIRV_ADDRESS = {
    "None": A.NONE, "ClampToEdge": A.CLAMP_TO_EDGE, "Clamp": A.CLAMP,
    "Repeat": A.REPEAT, "RepeatMirrored": A.MIRRORED_REPEAT,
    0: A.NONE, 1: A.CLAMP_TO_EDGE, 2: A.CLAMP, 3: A.REPEAT, 4: A.MIRRORED_REPEAT,
}
_SPIRV_FILTER = {"Nearest": F.NEAREST, "Linear": F.LINEAR, 0: F.NEAREST, 1: F.LINEAR}


@dataclass(frozen=True)
class Sampler:
    """A sampler: normalized coordinates, ``addressing_mode``, ``filter_mode`` (CL enums)."""

    normalized_coords: bool
    addressing_mode: int
    filter_mode: int

    def __post_init__(self) -> None:
        if self.addressing_mode not in _CLK_ADDRESS.values():
            raise LogicError(f"invalid addressing mode {self.addressing_mode:#x}", "CL_INVALID_VALUE")
        if self.filter_mode not in _CLK_FILTER.values():
            raise LogicError(f"invalid filter mode {self.filter_mode:#x}", "CL_INVALID_VALUE")
        object.__setattr__(self, "normalized_coords", bool(self.normalized_coords))

    @classmethod
    def from_literal(cls, value: int) -> Sampler:
        """Decode an OpenCL C ``sampler_t`` value, e.g.
        ``CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR`` (0x27)."""
        address = value & _ADDRESS_MASK
        filt = value & _FILTER_MASK
        if value & ~(_ADDRESS_MASK | _FILTER_MASK | 1) or address not in _CLK_ADDRESS \
                or filt not in _CLK_FILTER:
            raise LogicError(f"invalid sampler literal {value:#x}", "CL_INVALID_SAMPLER")
        return cls(bool(value & 1), _CLK_ADDRESS[address], _CLK_FILTER[filt])

    @classmethod
    def from_spirv(cls, addressing: str | int, normalized: bool | int,
                   filter_mode: str | int) -> Sampler:
        """From OpConstantSampler's operands: addressing ("None", "ClampToEdge",
        "Clamp", "Repeat", "RepeatMirrored" or their values 0-4), the
        normalized flag, filter ("Nearest", "Linear" or 0/1)."""
        try:
            return cls(bool(normalized), _SPIRV_ADDRESS[addressing], _SPIRV_FILTER[filter_mode])
        except KeyError as err:
            raise LogicError(f"invalid OpConstantSampler operand {err}", "CL_INVALID_SAMPLER") from None

    @property
    def literal(self) -> int:
        """The equivalent OpenCL C ``sampler_t`` value."""
        address = next(k for k, v in _CLK_ADDRESS.items() if v == self.addressing_mode)
        filt = next(k for k, v in _CLK_FILTER.items() if v == self.filter_mode)
        return int(self.normalized_coords) | address | filt

