"""Kernel parameter names and qualifiers read from OpenCL C source.

clang's SPIR-V backend drops parameter names, so ``clGetKernelArgInfo``'s NAME,
TYPE_NAME and TYPE_QUALIFIER come from the kernel's signature in the source.
Signatures built by macros are not expanded; such kernels fall back to
"argument N" names (see :func:`source_params`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", re.S)
_KERNEL = re.compile(r"(?<![\w$])(?:__kernel|kernel)(?![\w$])")
_TOKEN = re.compile(r"[A-Za-z_]\w*|\S")
_ADDRESS = {"__global", "global", "__local", "local", "__constant", "constant", "__private", "private",
            "__generic", "generic"}
_ACCESS = {"__read_only": "read_only", "read_only": "read_only", "__write_only": "write_only",
           "write_only": "write_only", "__read_write": "read_write", "read_write": "read_write"}
_QUALIFIERS = {"const": "const", "__const": "const", "volatile": "volatile", "restrict": "restrict",
               "__restrict": "restrict"}


@dataclass(frozen=True)
class SourceParam:
    """One kernel parameter as written in the source."""

    name: str
    type_name: str  # without qualifiers, e.g. "float*", "image2d_t", "struct S"
    qualifiers: frozenset[str]  # "const", "volatile", "restrict" (of the pointee for pointers)
    access: str | None  # "read_only", "write_only", "read_write" when written


def _strip_comments(source: str) -> str:
    def keep(m: re.Match[str]) -> str:
        text = m.group(0)
        return text if text[0] in "\"'" else " " * len(text) if "\n" not in text else "\n" * text.count("\n")

    return _COMMENT.sub(keep, source)


def _match_paren(text: str, start: int) -> int:
    """Index of the ')' closing the '(' at ``start``, or -1."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _drop_attributes(text: str) -> str:
    while (i := text.find("__attribute__")) >= 0:
        j = text.find("(", i)
        end = _match_paren(text, j) if j >= 0 else -1
        if end < 0:
            break
        text = text[:i] + " " + text[end + 1:]
    return text


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _param(text: str) -> SourceParam | None:
    text = _drop_attributes(text)
    tokens = _TOKEN.findall(re.sub(r"\[[^\]]*\]", "", text))
    if "[" in text:  # an array parameter is a pointer
        tokens.insert(-1, "*")
    if not tokens or tokens == ["void"]:
        return None
    name = tokens[-1] if re.match(r"[A-Za-z_]", tokens[-1]) and len(tokens) > 1 else ""
    body = tokens[:-1] if name else tokens
    access = next((_ACCESS[t] for t in body if t in _ACCESS), None)
    star = body.index("*") if "*" in body else len(body)
    quals = {_QUALIFIERS[t] for t in body[:star] if t in _QUALIFIERS} if star < len(body) else set()
    quals |= {_QUALIFIERS[t] for t in body[star:] if t in ("volatile", "restrict", "__restrict")}
    if star == len(body):  # by value: const/volatile on the value itself do not count
        quals = set()
    words = [t for t in body if t not in _ADDRESS and t not in _ACCESS and t not in _QUALIFIERS]
    type_name = re.sub(r"\s*\*", "*", " ".join(words))
    return SourceParam(name, type_name, frozenset(quals), access)


def source_params(source: str) -> dict[str, list[SourceParam]]:
    """Kernel name → its parameters, for every ``__kernel`` definition found in ``source``."""
    text = _strip_comments(source)
    out: dict[str, list[SourceParam]] = {}
    for m in _KERNEL.finditer(text):
        head_end = m.end()
        # The parameter list is the first '(' outside __attribute__((...)).
        i = head_end
        while True:
            j = text.find("(", i)
            if j < 0:
                break
            prefix = text[head_end:j]
            if prefix.rstrip().endswith("__attribute__"):
                end = _match_paren(text, j)
                if end < 0:
                    break
                i = end + 1
                continue
            close = _match_paren(text, j)
            names = re.findall(r"[A-Za-z_]\w*", _drop_attributes(prefix))
            if close < 0 or not names or text[close + 1:].lstrip()[:1] not in ("{", ""):
                break
            params = [p for p in map(_param, _split_top(text[j + 1:close])) if p is not None]
            out[names[-1]] = params
            break
    return out
