"""What benchlint keeps between runs: facts derived from one file's content, and whole results.

Like ruff's cache: a `.benchlint_cache/` folder in the repository root (with a `.gitignore` that
keeps it out of git), or `BENCHLINT_CACHE_DIR`; `--no-cache` (or `BENCHLINT_NO_CACHE=1`) turns it
off. Outside a repository the user's cache folder is used (`$XDG_CACHE_HOME/benchlint`).

Every entry is keyed by the *tool fingerprint* (benchlint's version, the bytes of every module
and data file of `benchlint/` and `checks/`, the versions of tree-sitter, ruamel.yaml and Python,
and the bytes of the compiled tree-sitter-bash grammar): a change to any code that derives a fact
gives new keys, with no hand-kept list of modules (the fingerprint is kept in `code.fingerprint`
with the status of the files it was made from: a run reads them only after one changed).
Entries can never be stale, and deleting the folder is always safe. Values are `marshal`led
plain data (never pickles: loading one runs no code). A cache that cannot be read or written is
no cache, never an error.

Two kinds of entry:
- a file's fact (`get`/`put`): keyed by the kind of fact, the path and the file's bytes (a YAML
  file's documents as plain data, the entries of a master config, a script's calls);
- a run's result (`get_run`/`put_run`): keyed by what was asked (configuration, rules, the
  named paths) and kept with the content hash of every file the run read and the listing of the
  repository's files; it answers a later run only when all of them are unchanged.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import marshal
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlint import __version__

# A file changed less than this long before a run started may change again within the clock's
# granularity without its times moving (git's "racy" files): its content is hashed, not trusted.
RACY_NS = 2_000_000_000

# Entries beyond this are pruned, oldest first, at a run's first store, at most once in
# PRUNE_EVERY_S. A run stores a fact per YAML file and per script (InferenceX: about 1,100
# entries, 9 MB): room for a repository ten times its size.
MAX_ENTRIES = 16384
PRUNE_EVERY_S = 600
FOLDER = ".benchlint_cache"


class Cache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._code = kept_fingerprint(directory)
        self._pruned = False  # pruned once per run, at its first store
        # `get_run` found a result stored for the question, current or not: this benchlint
        # has run the same way with this cache before
        self.ran_before = False

    @staticmethod
    def default(root: Path | None = None) -> Cache | None:
        """The cache for a repository root (its `.benchlint_cache/`), the user's cache without
        one, or None when turned off by the environment."""
        if os.environ.get("BENCHLINT_NO_CACHE", "") not in ("", "0"):
            return None
        configured = os.environ.get("BENCHLINT_CACHE_DIR")
        if configured:
            return Cache(Path(configured))
        if root is not None:
            return Cache(root / FOLDER)
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return Cache(Path(base) / "benchlint")

    # -- facts of one file -----------------------------------------------------------------------
    def _file(self, kind: str, *parts: bytes) -> Path:
        digest = hashlib.sha256()
        for part in (self._code, kind.encode(), *parts):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
        return self.directory / f"{kind}-{digest.hexdigest()[:40]}.marshal"

    def get(self, kind: str, path: str, content: bytes) -> Any:
        """The value stored for this content (a file's `SourceText.digest`, or the bytes its
        facts are derived from), or None."""
        return self._load(self._file(kind, _encode(path), content))

    def put(self, kind: str, path: str, content: bytes, value: Any) -> None:
        """Store a value (plain data: tuples, lists, dicts, strings, numbers)."""
        self._store(self._file(kind, _encode(path), content), value)

    # -- results of a run ------------------------------------------------------------------------
    def get_run(self, question: bytes, listing: bytes, unchanged: Any) -> tuple[Any, bytes] | None:
        """The result stored for this question, if the listing is the same and
        `unchanged(states)` says the files it read are as they were; with the content hash of
        the stored entry (what a report rendered from that result is kept by)."""
        data = self._read(self._file("run", question))
        stored = _loads(data)
        self.ran_before = isinstance(stored, tuple) and len(stored) == 3
        if not isinstance(stored, tuple) or len(stored) != 3 or stored[0] != listing:
            return None
        _, states, value = stored
        if not isinstance(states, dict) or not unchanged(states):
            return None
        return value, hashlib.sha256(data).digest()

    def put_run(
        self, question: bytes, listing: bytes, states: dict[str, Any], value: Any
    ) -> bytes | None:
        """Store a run's result; the content hash of the entry written (None: not written)."""
        return self._store(self._file("run", question), (listing, states, value))

    # -- storage ---------------------------------------------------------------------------------
    def _load(self, target: Path) -> Any:
        return _loads(self._read(target))

    def _read(self, target: Path) -> bytes:
        try:
            return target.read_bytes()
        except OSError:
            return b""

    def _store(self, target: Path, value: Any) -> bytes | None:
        try:
            _prepare(self.directory)
            data = marshal.dumps(value)
            handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, target)
            self._prune()
        except (OSError, ValueError):
            return None
        return hashlib.sha256(data).digest()

    def _prune(self) -> None:
        """Past MAX_ENTRIES, the oldest entries go (those of an earlier benchlint among them).
        At a run's first store, at most once per PRUNE_EVERY_S (the `pruned` file's time says
        when it was last done): listing 16,000 entries takes 20 ms, a twentieth of a
        pre-commit run, and a run stores at most a few thousand."""
        if self._pruned:
            return
        self._pruned = True
        marker = self.directory / "pruned"
        try:
            if time.time() - marker.stat().st_mtime < PRUNE_EVERY_S:
                return
        except OSError:
            pass  # never pruned
        marker.touch()
        with os.scandir(self.directory) as found:
            entries = [e for e in found if e.name.endswith(".marshal")]
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort(key=lambda e: e.stat().st_mtime)
        for stale in entries[: len(entries) - MAX_ENTRIES // 2]:
            Path(stale.path).unlink(missing_ok=True)


def _prepare(directory: Path) -> None:
    """The folder, with a `.gitignore` that keeps it (and itself) out of git."""
    directory.mkdir(parents=True, exist_ok=True)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Created by benchlint: a cache, safe to delete.\n*\n")


def _loads(data: bytes) -> Any:
    try:
        return marshal.loads(data) if data else None
    except (EOFError, ValueError, TypeError):
        return None


def _libraries() -> list[tuple[str, str]]:
    """The parsing libraries' versions: each named by its installed distribution's metadata
    folder, found beside the package without importing it (a run the cache answers loads no
    parser; importlib.metadata costs a tenth of such a run to import). Else from the module:
    its version, or for tree-sitter-bash, which has none, its compiled grammar's bytes."""
    return [
        ("tree-sitter", _installed("tree_sitter") or _module_version("tree_sitter")),
        ("tree-sitter-bash", _installed("tree_sitter_bash") or _grammar_digest()),
        ("ruamel.yaml", _installed("ruamel.yaml") or _module_version("ruamel.yaml")),
    ]


def _installed(module: str) -> str | None:
    """`<distribution>-<version>.dist-info` of the module's package, when exactly one such folder
    lies beside it (a wheel's install); None otherwise."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    top = folder.parent.parent if "." in module else folder.parent
    name = module.replace(".", "_")
    found = sorted(p.name for p in top.glob(f"{name}-*.dist-info"))
    return found[0] if len(found) == 1 else None


def _module_version(module: str) -> str:
    return str(getattr(importlib.import_module(module), "__version__", "?"))


def _grammar_digest() -> str:
    import tree_sitter_bash

    digest = hashlib.sha256()
    folder = Path(tree_sitter_bash.__file__).parent
    for binary in sorted(folder.glob("*.so")) + sorted(folder.glob("*.pyd")):
        digest.update(binary.read_bytes())
    return digest.hexdigest()


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


@functools.lru_cache(maxsize=1)
def tool_fingerprint() -> bytes:
    """What the cached facts were derived with: every module and data file of the packages that
    derive them (found by walking them, not listed by hand), the parsing libraries' versions and
    Python's."""
    return fingerprint_of(_packages())


# the file that keeps the tool fingerprint: the status of the files it was made from (their
# digest), then the fingerprint
_KEPT = "code.fingerprint"


def kept_fingerprint(directory: Path, packages: list[Path] | None = None) -> bytes:
    """`tool_fingerprint()`, kept in the cache folder with the status of every file it reads
    (size, modification and change times, inode: as the run's index trusts a repository's
    files), so that a run reads and hashes benchlint's 1.6 MB of modules only after one of
    them changed. Made from the bytes, not kept, while a file changed within RACY_NS (its
    times may not move at the next write). `packages`: benchlint's own by default."""
    made = tool_fingerprint if packages is None else functools.partial(fingerprint_of, packages)
    statuses = _package_statuses(_packages() if packages is None else packages)
    if statuses is None:
        return made()
    key = hashlib.sha256(f"{__version__}\0{sys.version}\0{_libraries()}\0".encode())
    key.update(statuses)
    target = directory / _KEPT
    try:
        kept = target.read_bytes()
    except OSError:
        kept = b""
    if len(kept) == 64 and kept[:32] == key.digest():
        return kept[32:]
    fingerprint = made()
    try:
        _prepare(directory)
        handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(key.digest() + fingerprint)
        os.replace(temporary, target)
    except OSError:
        pass  # no cache folder to keep it in: made each time
    return fingerprint


def _package_statuses(packages: list[Path]) -> bytes | None:
    """The status of every file `fingerprint_of` reads, as bytes; None when one changed within
    RACY_NS of now (or went while listed)."""
    newest = time.time_ns() - RACY_NS
    parts = []
    for package in packages:
        for path in _sources(package):
            try:
                status = os.stat(path)
            except OSError:
                return None
            if max(status.st_mtime_ns, status.st_ctime_ns) >= newest:
                return None
            parts.append(
                f"{os.path.relpath(path, package.parent)}\0{status.st_size}\0"
                f"{status.st_mtime_ns}\0{status.st_ctime_ns}\0{status.st_ino}\0"
            )
    return "".join(parts).encode("utf-8", "surrogateescape")


def fingerprint_of(packages: list[Path]) -> bytes:
    digest = hashlib.sha256(f"{__version__}\0{sys.version}".encode())
    for library, version in _libraries():
        digest.update(f"{library}={version}\0".encode())
    for package in packages:
        for path in _sources(package):
            digest.update(os.path.relpath(path, package.parent).encode())
            digest.update(Path(path).read_bytes())
    return digest.digest()


def _sources(folder: Path | str) -> list[str]:
    """The `.py` and `.json` files under a folder, sorted (`os.scandir`: a quarter of the time
    `Path.rglob` takes)."""
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir():
                if entry.name != "__pycache__":
                    found += _sources(entry.path)
            elif entry.name.endswith((".py", ".json")):
                found.append(entry.path)
    return sorted(found)


def _packages() -> list[Path]:
    import checks

    return [Path(__file__).resolve().parent, Path(checks.__file__).resolve().parent]
