"""Facts derived from one file's content, kept under the user's cache directory between runs.

An entry is keyed by a hash of the code that derives the fact, the kind of fact, the file's path
and its bytes, so it can never be stale, and deleting the directory is always safe. Values are
`marshal`led plain data (never pickles: loading one runs no code). Only what is dear to compute
and cheap to load is kept: the entries of a master config, whose YAML parse is the largest single
cost of linting one changed launcher or recipe. `--no-cache` (or `BENCHLINT_NO_CACHE=1`) turns it
off; `BENCHLINT_CACHE_DIR` moves it (default `$XDG_CACHE_HOME/benchlint`, else
`~/.cache/benchlint`). Nothing is ever written inside the repository.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any

from benchlint import __version__

# Entries beyond this are pruned, oldest first, when one is added.
MAX_ENTRIES = 256
# The modules whose code decides what a cached fact is: their bytes are part of every key.
_DERIVED_BY = ("wiring.py", "yamlmodel.py", "finding.py", "cache.py", "layout.py", "launcher.py")


class Cache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._code = _code_fingerprint()

    @staticmethod
    def default() -> Cache | None:
        """The user's cache, or None when turned off by the environment."""
        if os.environ.get("BENCHLINT_NO_CACHE", "") not in ("", "0"):
            return None
        configured = os.environ.get("BENCHLINT_CACHE_DIR")
        if configured:
            return Cache(Path(configured))
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return Cache(Path(base) / "benchlint")

    def _file(self, kind: str, path: str, data: bytes) -> Path:
        digest = hashlib.sha256()
        for part in (self._code, kind.encode(), path.encode("utf-8", "surrogateescape"), data):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
        return self.directory / f"{kind}-{digest.hexdigest()[:40]}.marshal"

    def get(self, kind: str, path: str, data: bytes) -> Any:
        """The value stored for this content, or None."""
        try:
            return marshal.loads(self._file(kind, path, data).read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return None

    def put(self, kind: str, path: str, data: bytes, value: Any) -> None:
        """Store a value (plain data: tuples, lists, dicts, strings, numbers); a cache that
        cannot be written is no cache, never an error."""
        target = self._file(kind, path, data)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(handle, "wb") as out:
                out.write(marshal.dumps(value))
            os.replace(temporary, target)
            self._prune()
        except (OSError, ValueError):
            return

    def _prune(self) -> None:
        entries = [p for p in self.directory.iterdir() if p.suffix == ".marshal"]
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort(key=lambda p: p.stat().st_mtime)
        for stale in entries[: len(entries) - MAX_ENTRIES // 2]:
            stale.unlink(missing_ok=True)


def _code_fingerprint() -> bytes:
    digest = hashlib.sha256(__version__.encode())
    here = Path(__file__).parent
    for name in _DERIVED_BY:
        try:
            digest.update((here / name).read_bytes())
        except OSError:
            digest.update(name.encode())
    return digest.digest()
