"""The cffi module of the running library and the lock every entry point takes."""

from __future__ import annotations

import threading
from typing import Any

ffi: Any = None  # the embedded module's FFI (set by entry.install)
lib: Any = None
LOCK = threading.RLock()
CHANGED = threading.Condition(LOCK)  # notified when an event completes
