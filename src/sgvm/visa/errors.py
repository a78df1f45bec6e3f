"""The error every vISA check raises."""

from __future__ import annotations

from ..errors import SgvmError


class VisaError(SgvmError):
    """A vISA instruction, its encoding, its text or its operands break a rule of the spec.

    The message names the violated rule, quoting the spec where it can.
    """
