"""vISA memory messages: SVM_GATHER encode, decode, text, execute; the message profile."""

from __future__ import annotations

from .errors import VisaError
from .operands import EMask, PredControl, Predicate, RawOperand, VisaType
from .profile import Message, MessageProfile, ProfileEntry, lower_access
from .profile_observer import ProfileObserver, lower_many
from .svm_gather import SvmGather

__all__ = [
    "EMask",
    "Message",
    "MessageProfile",
    "PredControl",
    "Predicate",
    "ProfileEntry",
    "ProfileObserver",
    "RawOperand",
    "SvmGather",
    "VisaError",
    "VisaType",
    "lower_access",
    "lower_many",
]
