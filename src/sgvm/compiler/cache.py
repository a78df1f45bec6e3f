"""On-disk cache of compiled SPIR-V.

An entry is found by a hash of everything known before compiling (source,
options, sgvm's headers, the compiler's identity). It records the files the
build ``#include``d with the hash of their contents, and is used only while
those files are unchanged (like ccache's "direct mode").
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path


def cache_dir() -> Path:
    """``$SGVM_CACHE_DIR``, else ``$XDG_CACHE_HOME/sgvm``, else ``~/.cache/sgvm``."""
    env = os.environ.get("SGVM_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "sgvm"


def digest(*parts: str | bytes) -> str:
    """SHA-256 over length-prefixed parts (so that part boundaries matter)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def file_digest(path: str) -> str | None:
    """Digest of a file's contents, or None if it cannot be read."""
    try:
        return digest(Path(path).read_bytes())
    except OSError:
        return None


def load(key: str) -> tuple[bytes, str, str] | None:
    """The cached (spirv, log, line dump) for ``key`` if its recorded includes are unchanged
    and the module is the one stored (its digest matches: a truncated or overwritten
    ``.spv`` is a miss, and the build that follows replaces it)."""
    base = cache_dir() / key[:2] / key
    try:
        meta = json.loads(base.with_suffix(".json").read_text())
        if any(file_digest(p) != h for p, h in meta["includes"].items()):
            return None
        spirv = base.with_suffix(".spv").read_bytes()
        if digest(spirv) != meta["spirv"]:
            return None
        return spirv, meta["log"], meta.get("line_dump", "")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def store(key: str, spirv: bytes, log: str, includes: list[str], line_dump: str = "") -> None:
    """Record a successful build; a cache that cannot be written is skipped silently."""
    base = cache_dir() / key[:2] / key
    meta = {"log": log, "includes": {p: file_digest(p) for p in includes}, "line_dump": line_dump,
            "spirv": digest(spirv)}
    try:
        base.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(base.with_suffix(".spv"), spirv)
        _write_atomic(base.with_suffix(".json"), json.dumps(meta).encode())
    except OSError:
        pass
