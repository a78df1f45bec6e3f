"""Family 5: buffer and image block IO alignment, image formats and bounds.

From the CollectiveEvent masks: ``read_misaligned`` / ``write_misaligned``
(buffer block pointers; the image block write x coordinate on image writes),
``texel_size_undefined`` and ``oob_undefined``.
"""

from __future__ import annotations

from typing import Any

from .plugin import Plugin
from .subgroups import flagged_lanes

IMAGE = ("OpSubgroupImageBlockReadINTEL", "OpSubgroupImageBlockWriteINTEL")


class BlockIOPlugin(Plugin):
    """Alignment and format rules of sub-group block reads and writes."""

    def collective(self, st: Any, ev: Any) -> None:
        d, act = ev.diagnostics, ev.active
        image = ev.op in IMAGE
        if "read_misaligned" in d:
            self.flag(st, "block-read-misaligned", flagged_lanes(d["read_misaligned"], act),
                      "block read pointer not 4-byte aligned")
        if "write_misaligned" in d:
            if image:
                self.flag(st, "image-block-write-misaligned",
                          flagged_lanes(d["write_misaligned"], act),
                          "image block write byte x coordinate not a multiple of 4")
            else:
                self.flag(st, "block-write-misaligned", flagged_lanes(d["write_misaligned"], act),
                          "block write pointer not 16-byte aligned")
        if "texel_size_undefined" in d:
            self.flag(st, "image-block-wide-format", flagged_lanes(d["texel_size_undefined"], act),
                      "image block IO on an image whose elements are wider than 4 bytes")
        if "oob_undefined" in d:
            self.flag(st, "image-block-out-of-bounds", flagged_lanes(d["oob_undefined"], act),
                      "image block IO out of bounds on an image with elements under 4 bytes")
