"""A content-addressed cache of parsed YAML under the user's cache directory.

An entry's name is the SHA-256 of benchlint's version, the cache format and the file's bytes, so
an entry can never be stale; deleting the directory is always safe; a damaged entry is ignored.
`--no-cache` turns it off; BENCHLINT_CACHE_DIR moves it.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any

from benchlint import __version__

FORMAT = "yaml-1"


def default_directory() -> Path:
    explicit = os.environ.get("BENCHLINT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "benchlint"


class ParseCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.hits = 0
        self.misses = 0

    def _path(self, data: bytes) -> Path:
        digest = hashlib.sha256(f"{__version__}\0{FORMAT}\0".encode() + data).hexdigest()
        return self.directory / digest[:2] / digest[2:]

    def load(self, data: bytes) -> Any | None:
        try:
            value = marshal.loads(self._path(data).read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return value

    def store(self, data: bytes, value: Any) -> None:
        path = self._path(data)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
                handle.write(marshal.dumps(value))
            os.replace(handle.name, path)
        except (OSError, ValueError):
            pass  # a cache that cannot be written is no cache, not an error
