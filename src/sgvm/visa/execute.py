"""Execution of SVM_GATHER against byte-addressed memory.

The spec's semantics::

    for (i = 0; i < exec_size; ++i) {
        if (ChEn[i]) {
            if (block_size == 4 || block_size == 8) {
                for (j = 0; j < num_blocks; ++j)
                    dst[j*exec_size+i] = *(Addresses[i] + j*block_size);
            } else { // block_size == 1
                UD min_block_size = num_blocks < 4 ? 4 : num_blocks;
                for (j = 0; j < num_blocks; ++j)
                    dst[i*min_block_size+j] = *(Addresses[i] + j);
            }
        }
    }

ChEn is evaluated as the vISA operands chapter says (``EvaluateChEn``): the
execution mask from the mask control's offset unless ``_NM``, and-ed with the
predicate (read from the same offset, combined by any/all, then inverted).
Elements the loop does not write keep the prior contents of <dst>: disabled
channels, and the bytes ``j >= num_blocks`` of a 1-byte gather's slot, which
the layout table calls undefined ("Ai[N] has undefined value if N>=num_blocks").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .errors import VisaError
from .operands import PredControl

if TYPE_CHECKING:
    from .svm_gather import SvmGather

MaskLike = int | ArrayLike | None
MemoryLike = bytes | bytearray | memoryview | np.ndarray

RULE_ALIGNMENT = "Addresses: 'Each address must be aligned to the <block_size>'"


def _mask_bits(mask: MaskLike, start: int, count: int, what: str) -> np.ndarray:
    """Channels ``start … start+count-1`` of a 32-channel mask given as an int or bools."""
    if isinstance(mask, (int, np.integer)):
        return np.array([(int(mask) >> n) & 1 for n in range(start, start + count)], dtype=bool)
    bits = np.asarray(mask, dtype=bool).ravel()
    if bits.size < start + count:
        raise VisaError(
            f"{what} has {bits.size} channels; the mask control reads channels "
            f"{start}..{start + count - 1}"
        )
    return bits[start : start + count]


def channel_enables(
    inst: SvmGather, exec_mask: MaskLike = None, predicate: MaskLike = None
) -> np.ndarray:
    """ChEn[0..exec_size-1] ("EvaluateChEn").

    ``exec_mask`` is the thread's execution mask EM (None: all channels on),
    ``predicate`` the predicate variable's value; both are 32-channel masks (an
    int, bit n = channel n, or a bool sequence) read from ``inst.emask.offset``:
    "ChEn[n] = EM[n + mask_control_offset]", "PMask[n] = Pred[n + mask_control_offset]".
    """
    n, offset = inst.exec_size, inst.emask.offset
    if inst.emask.no_mask or exec_mask is None:
        chen = np.ones(n, dtype=bool)
    else:
        chen = _mask_bits(exec_mask, offset, n, "execution mask")
    if inst.predicate is None:
        if predicate is not None:
            raise VisaError("a predicate value was given to an instruction without predicate")
        return chen
    if predicate is None:
        raise VisaError(f"instruction is predicated on P{inst.predicate.var_id}: give its value")
    pmask = _mask_bits(predicate, offset, n, "predicate")
    if inst.predicate.control == PredControl.ANY:
        pmask = np.full(n, pmask.any())
    elif inst.predicate.control == PredControl.ALL:
        pmask = np.full(n, pmask.all())
    if inst.predicate.inverse:
        pmask = ~pmask
    return chen & pmask


def _as_bytes(memory: MemoryLike) -> np.ndarray:
    if isinstance(memory, np.ndarray):
        return np.ascontiguousarray(memory).reshape(-1).view(np.uint8)
    return np.frombuffer(memory, dtype=np.uint8)


def execute_gather(
    inst: SvmGather,
    memory: MemoryLike,
    addresses: object,
    channel_enable: MaskLike = None,
    dst: object = None,
    predicate: MaskLike = None,
) -> np.ndarray:
    """Run ``inst`` and return the new contents of <dst> (``inst.dst_elements`` elements).

    ``addresses``: the ``exec_size`` 64-bit byte addresses (Addresses[i]) into
    ``memory``; ``channel_enable``/``predicate``: see :func:`channel_enables`;
    ``dst``: prior contents of <dst> (zeros if None), kept where nothing is
    written. Raises :class:`VisaError` for a misaligned or out-of-bounds
    address of an enabled channel (disabled channels are not accessed).
    """
    mem = _as_bytes(memory)
    addr = np.asarray(addresses, dtype=np.uint64).ravel()
    n, bs, nb = inst.exec_size, inst.block_size, inst.num_blocks
    if addr.size != n:
        raise VisaError(f"{addr.size} addresses for exec size {n}")
    dtype = inst.dst_dtype
    out = np.zeros(inst.dst_elements, dtype) if dst is None else np.array(dst, dtype=dtype).ravel()
    if out.size != inst.dst_elements:
        raise VisaError(f"dst has {out.size} elements; this gather uses {inst.dst_elements}")
    chen = channel_enables(inst, channel_enable, predicate)
    lanes = np.flatnonzero(chen)
    base = addr[lanes]
    bad = lanes[base % np.uint64(bs) != 0]
    if bad.size:
        i = int(bad[0])
        raise VisaError(f"channel {i} address 0x{int(addr[i]):x} not {bs}-byte aligned: {RULE_ALIGNMENT}")
    span = nb * bs
    oob = lanes[(base > np.uint64(max(mem.size - span, 0))) | (mem.size < span)]
    if oob.size:
        i = int(oob[0])
        raise VisaError(
            f"channel {i} reads {span} bytes at 0x{int(addr[i]):x}, past the {mem.size}-byte memory"
        )
    offsets = np.arange(span, dtype=np.uint64)
    raw = mem[(base[:, None] + offsets[None, :]).astype(np.intp)]  # (lanes, nb*bs) bytes
    if bs == 1:
        out.reshape(n, inst.min_block_size)[lanes, :nb] = raw
    else:
        values = raw.reshape(lanes.size, nb, bs).copy().view(dtype)[..., 0]  # (lanes, nb)
        out.reshape(nb, n)[:, lanes] = values.T
    return out
