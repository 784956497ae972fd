"""Regular expressions compiled when first used, not when their module is imported.

`re.compile` is Python code: the 430 patterns the modules define cost about a sixth of
importing benchlint (0.03 s), and a run that names a launcher and a recipe uses about a third of
them. `lazy_compile` keeps the pattern's text and compiles it at the first use of one of its
methods; the compiled pattern's methods are then the object's own attributes, so a later call
costs what a call on the compiled pattern does. It stands for a compiled pattern wherever one of
its methods or `pattern`, `flags`, `groups` and `groupindex` is asked for; not where a function
of `re` is handed it (`re.sub(PATTERN, ...)`: call `PATTERN.sub(...)`).
"""

from __future__ import annotations

import re
from typing import AnyStr, cast

# What a compiled pattern gives, copied onto the object at its first use.
_GIVEN = (
    "search",
    "match",
    "fullmatch",
    "finditer",
    "findall",
    "sub",
    "subn",
    "split",
    "scanner",
    "flags",
    "groups",
    "groupindex",
)


class _Lazy:
    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> object:
        # (asked only for what the object does not have yet: the first use)
        if name not in _GIVEN:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for given in _GIVEN:
            setattr(self, given, getattr(compiled, given))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_compile({self.pattern!r}, {self._flags})"


def lazy_compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """`re.compile(pattern, flags)`, compiled when first used."""
    return cast("re.Pattern[AnyStr]", _Lazy(pattern, flags))
