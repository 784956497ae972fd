"""Which files the repository has, read once and parsed lazily.

Nothing outside the repository root is read: a symlink that leaves the root is reported, not
followed, and symlinked directories are not descended (no loops; a path through one that stays
inside names the file of its target: `through_links`). A file that cannot be read or parsed
becomes a `Failure` (BL001) and the rest of the repository is still linted.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import posixpath
import re
import shutil
import stat
import weakref
from collections.abc import Callable, Container
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlint.cache import RACY_NS, Cache
from benchlint.config import Config, Layout
from benchlint.finding import FILE_START, Finding, Span, Undecided
from benchlint.layout import SITE_CONFIGS, Detected, detect, detect_recipe_roots, entries_in
from benchlint.lazyre import lazy_compile
from benchlint.source import SourceText
from benchlint.yamlmodel import YamlDocument, encode_documents

if TYPE_CHECKING:  # (loaded where a file is modelled: a run the cache answers models none)
    from benchlint.perfile import Facts, Pool
    from benchlint.shell.model import Script

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
SKIP_DIRS = frozenset(
    {
        ".benchlint_cache",
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
    }
)
SHELL_SUFFIXES = (".sh", ".bash")
YAML_SUFFIXES = (".yaml", ".yml")
# Slurm batch scripts: shell files when their `#!` line names a shell (sbatch runs them so)
JOB_SUFFIXES = (".slurm", ".sbatch", ".sub")
# files a script may source for their assignments (`source ./runners/h200.env`): shell when a
# script sources them, and read only then (a `.env` file of a container or of docker compose
# is not shell: it is not linted on its own)
SOURCED_SUFFIXES = (".env",)
# Python scripts the shell scripts run: listed, and read only when one is run (BL116)
PYTHON_SUFFIXES = (".py",)
# a YAML file this large that a pass over every file reads is not kept (`Workspace.yaml`):
# generated manifests and CRDs hold most of some repositories' YAML, and a model takes about
# 15 bytes per byte of the file (kserve: 116 of its 121 MB in 93 files of 256 KiB or more;
# InferenceX's largest, a 395 KB changelog, no rule reads again)
TRANSIENT_BYTES = 256 << 10
# Jinja templates (`job_script.j2`, `values.yaml.j2`) and Terraform ones (`templatefile`'s
# `vllm.tftpl`, `.tpl`): of a script where their `#!` line names a shell, of YAML where their
# name says so or, for Terraform's, a line starts a mapping's key (a manifest, Helm values);
# counted as templates, not linted. A Helm helper (`{{ define ... }}` blocks) is none.
TEMPLATE_SUFFIXES = (".j2", ".jinja", ".jinja2", ".tftpl", ".tpl")
_YAML_KEY_LINE = lazy_compile(rb"^[ \t]*[A-Za-z_][A-Za-z0-9_-]*:(?:[ \t]|\r?$)", re.MULTILINE)
_HELM_DEFINE = lazy_compile(rb"\{\{-?\s*define\b")
# a line of YAML (or of a template of it): a key, an item, a comment, a template's own line
_YAML_LIKE = lazy_compile(
    r"\s*(?:#|-(?:\s|$)|[\"']?[A-Za-z0-9_./${}-]+[\"']?\s*:(?:\s|$)|\{[{%]|\$\{|%\{)"
)


def _reads_as_yaml(text: str) -> bool:
    """Whether nine lines in ten of the text read as YAML's: a key, an item, a comment, a
    template's own line, or a line of a block scalar (after `key: |`, indented more); a Go
    template of Python (`try:` in `def main():`) or of a mail (`Results are at {{ .URL }}.`)
    does not."""
    lines = [line for line in text.split("\n")[:-1] if line.strip()]
    block = -1  # (the indentation a block scalar's lines go beyond)
    depth = 0  # (the flow collections open: `command: [` over several lines)
    fits = 0
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        if depth == 0 and block >= 0 and indent > block:
            fits += 1
            continue
        if depth == 0:
            block = -1
            if _MESSAGE_OPEN.match(line):
                return False  # (`toolchain {`: protobuf's text format, which YAML cannot be)
            if not _YAML_LIKE.match(line):
                continue  # (its brackets open nothing)
            if line.rstrip().endswith(("|", ">", "|-", ">-")):
                block = indent
        fits += 1
        bare = _TEMPLATE_PART.sub("", line)
        depth = max(
            0, depth + bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}")
        )
    return bool(lines) and fits * 10 >= len(lines) * 9


# a line that opens a message of protobuf's text format (`default_toolchain {`)
_MESSAGE_OPEN = lazy_compile(r"\s*[A-Za-z_][\w.-]*\s*\{\s*$")
_TEMPLATE_PART = lazy_compile(r"\{\{.*?\}\}|\{%.*?%\}|\$\{[^}]*\}|%\{[^}]*\}|\"[^\"]*\"|'[^']*'")


# a Dockerfile's name: `Dockerfile`, `Dockerfile.cuda`, `serve.Dockerfile`, `Containerfile`
DOCKERFILE = lazy_compile(
    r"(?:Dockerfile|Containerfile)(?:\.[\w.-]+)?|[\w.-]+\.(?:Dockerfile|dockerfile)"
)

_READ_SUFFIXES = (
    SHELL_SUFFIXES + YAML_SUFFIXES + JOB_SUFFIXES + SOURCED_SUFFIXES + PYTHON_SUFFIXES
) + TEMPLATE_SUFFIXES
_SHEBANG = lazy_compile(rb"^#!\s*\S*(?:/|env\s+)(?:ba|da|k|z)?sh\b")
_SBATCH_LINE = lazy_compile(rb"(?m)^#SBATCH\s")
# make's files, whatever their first line says (make reads a `#!` line as a comment; t84b)
_MAKEFILE = lazy_compile(r"(?:GNU)?[Mm]akefile(?:\..+)?|.+\.mk|.+\.make")
# a `#!` line that names a shell whose language is not bash's
_OTHER_SHELL = lazy_compile(rb"^#!\s*\S*(?:/|env\s+)(?:zsh|m?ksh(?:93)?|fish|t?csh)\b")
_BASH_ERROR = lazy_compile(r"line (\d+): (.*)")
_DASH_ERROR = lazy_compile(r"^(?:\S*/)?(?:dash|sh): (\d+): (.*)$", re.M)


@functools.lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def path_matches(path: str, pattern: str, inside: bool = False) -> bool:
    """Glob match of a repository path: `*` stays within one folder, `**` crosses folders.

    With `inside`, a pattern naming a folder also matches every path under it.
    """
    pattern = pattern.rstrip("/") if inside else pattern
    if _glob_regex(pattern).fullmatch(path):
        return True
    if inside:
        parent = path
        while "/" in parent:
            parent = parent.rsplit("/", 1)[0]
            if _glob_regex(pattern).fullmatch(parent):
                return True
    return False


# The shell source (bytes) whose models a whole run holds all at once. A repository with more
# streams: it lets go of each model when its passes are done, or at once when it was modelled
# in passing (for its calls), and models it again when asked. Its memory stays bounded, at a
# price in time: most scripts are modelled twice, and each model freed costs a third of what
# making it did (the synthetic repository at 10 times InferenceX's size, 10 MB of scripts, made
# to stream: 405 MiB instead of 629, and 27 s instead of 12: docs/performance.md). InferenceX
# (1.7 MB) and repositories ten times its size do not stream.
HOLD = 16 << 20
# the source bytes let go of between two collections of the freed models' cycles (the run's
# collector is off: see __main__), and between two full collections (a model that lived
# through a collection is freed only by a full one)
COLLECT = 4 << 20
FULL = 16 << 20


@dataclass(frozen=True)
class Failure:
    path: str
    message: str
    span: Span = FILE_START
    # a script bash rejects: the first line of the statement bash could not read (it runs the
    # statements before it, then exits with status 2); 0 for the span's line
    stops: int = 0
    # the compound command left open before the line bash stopped at (`if` with no `fi`): where
    # it starts, and what closes it
    opened: tuple[Span, str, str] | None = None

    @property
    def stops_at(self) -> int:
        return self.stops or self.span.line


class TooManyFiles(Exception):
    """A walk outside any repository met more entries than `max_entries`."""


@dataclass
class Parsed:
    """A file's model as one run parsed it, with what that run learnt from parsing it."""

    data: bytes
    model: Script | YamlDocument | None
    failure: Failure | None
    template: bool = False
    partial: int | None = None  # the first line tree-sitter-bash could not parse


class Kept:
    """Models kept across runs by a long-lived process (the language server): a file whose
    bytes are what they were is not parsed again. Models hold nothing of other files (what a
    run derives across files is kept with its Workspace), so reusing one is sound."""

    def __init__(self) -> None:
        self.shell: dict[str, Parsed] = {}
        self.yaml: dict[str, Parsed] = {}


class Workspace:
    def __init__(
        self,
        root: Path,
        config: Config,
        cache: Cache | None = None,
        only: list[str] | None = None,
        max_entries: int | None = None,
        overlay: dict[str, bytes] | None = None,
        kept: Kept | None = None,
        jobs: int | None = 1,
    ) -> None:
        """`only`: these root-relative files, not a walk (loose scripts outside a repository);
        `max_entries`: stop a walk that meets more folder entries (TooManyFiles); `overlay`:
        the text of files as an editor holds them, read instead of the disk's; `kept`: models
        an earlier run of this process parsed, reused where the file is unchanged; `jobs`: the
        processes `prefetch` may use (None: the CPUs available)."""
        self.kept = kept
        self.jobs = jobs
        self._pool: Pool | None = None
        self._cached: dict[str, Facts] = {}  # facts prefetch found in the cache
        self.keep_scripts = True  # scripts modelled here go to the cache (see engine.lint)
        # scripts modelled here keep tree-sitter's tree, which answers what the model does not
        # (guards' conditions, `syntax`) without a second parse: set for a run that models
        # few (a whole run lets them go: 29 MiB on InferenceX)
        self.keep_trees = False
        self.root = root.resolve()
        self.config = config
        self.cache = cache  # facts kept between runs (None: none)
        self.failures: dict[str, Failure] = {}
        # scripts bash accepts but tree-sitter-bash parses only in part: the first line lost
        self.partial: dict[str, int] = {}
        self.shell_paths: list[str] = []
        self.yaml_paths: list[str] = []
        self.sourced_only: list[str] = []  # SOURCED_SUFFIXES: shell only where sourced
        self.python_paths: list[str] = []  # PYTHON_SUFFIXES: not linted, read where run
        self.docker_paths: list[str] = []  # Dockerfiles: not linted, read for what they run
        # A symlink to another file of the repository is linted once, as its target.
        self.symlinks: dict[str, str] = {}
        # A symlinked folder inside the repository (not descended): its target folder, by which
        # a script's path through it (`modules/Repo/examples/x.py`) names a file.
        self.folder_links: dict[str, str] = {}
        # files discovery found under the root through no symlink: read without resolving
        self._plain: set[str] = set()
        self._sources: dict[str, SourceText | None] = {}
        # each plain file's status when it was read: size, modification and change times, inode
        self.statuses: dict[str, list[int]] = {}
        # the folders whose files a rule listed (`folder_files`): the run depends on them too
        self.folders: dict[str, tuple[str, ...]] = {}
        # the paths a rule asked what is there (`kind_of`): the run depends on them too
        self.probed: dict[str, str] = {}
        # what earlier runs with this cache read: each file's content hash and status then
        self._index: dict[str, Any] | None = None
        # files whose content hash came from the index, unread (the run depends on them too)
        self._known: dict[str, bytes] = {}
        self._shell: dict[str, Script | None] = {}
        # models the run let go of (`let_go`): each found again while something holds it
        self._let_go: dict[str, weakref.ref[Script]] = {}
        self.remodelled = 0  # scripts let go of and modelled again (a measure of the order)
        self._released = 0  # the bytes of the scripts let go of since the last collection
        self._since_full = 0  # and since the last full collection
        # the scripts whose guards' facts came from the cache: how many of their scripts had them
        self._guards_stored: dict[str, int] = {}
        self._yaml: dict[str, YamlDocument | None] = {}
        self._documented: list[str] = []  # the documents `done` let go of
        # the rules' passes over one YAML document (rule id -> pass), set by the run, and what
        # each found (rule id -> path -> findings)
        self.document_passes: dict[str, Callable[[YamlDocument], list[Finding | Undecided]]] = {}
        self._passed: dict[str, dict[str, list[Finding | Undecided]]] = {}
        # YAML files that are templates, not YAML documents: Helm chart templates, and YAML
        # with `{{ ... }}`/`{% ... %}` that does not parse (Go templates, Jinja)
        self.templates: set[str] = set()
        # YAML files in a Helm chart's templates folder: templates where they hold `{{` (Helm
        # renders the whole text, comments too), else YAML Helm passes on as it is
        self._in_chart: set[str] = set()
        # scripts whose `#!` line names a shell other than bash or sh (zsh, ksh, fish, csh):
        # their syntax and meaning are not bash's, so they are not linted (and the run says so)
        self.other_shells: set[str] = set()
        # Slurm batch scripts with no `#!` line (`_unmarked_job`), linted as bash scripts
        self.unmarked_jobs: set[str] = set()
        # files larger than `max-file-size` (not master configs), not linted: path -> bytes
        self.oversized: dict[str, int] = {}
        self.models: dict[str, object] = {}  # built from the workspace once per run (wiring)
        self._globbed: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._max_entries = max_entries
        self.overlay = overlay or {}
        if only is None:
            self._discover()
        else:
            for rel in only:
                self._classify(rel, rel.rsplit("/", 1)[-1], Path(self.root, rel).is_symlink())
        known = set(self.shell_paths + self.yaml_paths)
        for rel in self.overlay:  # a buffer not saved yet
            if rel not in known and not Path(self.root, rel).is_symlink():
                self._classify(rel, rel.rsplit("/", 1)[-1], False)

    # -- discovery -------------------------------------------------------------------------------
    @functools.cached_property
    def detected(self) -> Detected:
        """The layout in effect (configured, the rest detected) and how each fact was found."""
        return detect(self)

    @property
    def layout(self) -> Layout:
        return self.detected.layout

    @functools.cached_property
    def recipe_roots(self) -> list[str]:
        """The folders that hold this repository's recipes (configured, else detected: worked
        out when first needed, as it models the launchers)."""
        return detect_recipe_roots(self, self.detected)

    @functools.cached_property
    def recipe_paths(self) -> list[str]:
        """The recipes: the YAML files inside a recipe root, save srtctl's site configuration
        (`srtslurm.yaml`, which srtctl reads by that name wherever it sits: its keys are the
        cluster's defaults, not a job's)."""
        roots = self.recipe_roots
        return [
            path
            for path in self.yaml_paths
            if posixpath.basename(path) not in SITE_CONFIGS
            and any(path_matches(path, root, inside=True) for root in roots)
        ]

    def excluded(self, rel: str) -> bool:
        """Whether `exclude` names this path: its findings are not reported, but it is read
        like any other file (a recipe a launcher runs still exists for BL202)."""
        return any(path_matches(rel, pattern, inside=True) for pattern in self.config.exclude)

    def _discover(self) -> None:
        """Every shell and YAML file, depth first, each folder's files (by name) before its
        folders (by name). `os.scandir` says which entries are symlinks without a system call
        per file; symlinked folders are not descended."""
        pending = [("", str(self.root), False)]
        seen = 0
        while pending:
            rel_dir, directory, in_templates = pending.pop()
            try:
                with os.scandir(directory) as scan:
                    entries = sorted(scan, key=lambda e: e.name)
            except OSError:
                continue
            seen += len(entries)
            if self._max_entries is not None and seen > self._max_entries:
                raise TooManyFiles(f"more than {self._max_entries} files")
            chart = any(e.name == "Chart.yaml" for e in entries)  # a Helm chart's folder
            folders = []
            for entry in entries:
                name = entry.name
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    link = entry.is_symlink()
                    if link and name not in SKIP_DIRS:
                        self._link_folder(rel_dir + name)
                    if not (name in SKIP_DIRS or link):
                        templates = in_templates or (chart and name == "templates")
                        folders.append((rel_dir + name + "/", entry.path, templates))
                    continue
                if not name.endswith(_READ_SUFFIXES) and "." in name:
                    if DOCKERFILE.fullmatch(name) and not entry.is_symlink():
                        self.docker_paths.append(rel_dir + name)
                    continue  # not a file benchlint reads (checked first: most files)
                self._classify(rel_dir + name, name, entry.is_symlink(), in_templates)
            pending.extend(reversed(folders))

    def _classify(self, rel: str, name: str, link: bool, in_templates: bool = False) -> None:
        """Add a file found by the walk (or named) to the shell or YAML files, if it is one."""
        if DOCKERFILE.fullmatch(name):
            if not link:
                self.docker_paths.append(rel)
            return
        shell = name.endswith(SHELL_SUFFIXES)
        yaml = not shell and name.endswith(YAML_SUFFIXES)
        if link and self._is_internal_link(rel):
            return
        if shell:
            self.shell_paths.append(rel)
        elif yaml:
            self.yaml_paths.append(rel)
            if in_templates:
                self._in_chart.add(rel)
        elif name.endswith(SOURCED_SUFFIXES):
            if not in_templates:
                self.sourced_only.append(rel)
            return
        elif name.endswith(PYTHON_SUFFIXES):
            if not in_templates and not link:
                self.python_paths.append(rel)
                self._plain.add(rel)
            return
        elif name.endswith(TEMPLATE_SUFFIXES):
            stem = name.rsplit(".", 1)[0]
            # (a Terraform template whose name says another format, `cfg.toml.tpl`, is none)
            terraform = name.endswith((".tftpl", ".tpl")) and "." not in stem
            if not link and (
                stem.endswith(YAML_SUFFIXES)
                or self._has_shell_shebang(rel)
                or (terraform and self._is_manifest(rel))
            ):
                self.templates.add(rel)
            return
        elif not link and not _MAKEFILE.fullmatch(name) and self._has_shell_shebang(rel):
            self.shell_paths.append(rel)
        elif not link and name.endswith(JOB_SUFFIXES) and self._unmarked_job(rel):
            self.shell_paths.append(rel)  # (linted as bash; the run says sbatch refuses it)
            self.unmarked_jobs.add(rel)
        else:
            return
        if not link:
            self._plain.add(rel)

    def _is_internal_link(self, rel: str) -> bool:
        try:
            real = (self.root / rel).resolve(strict=True)
        except (OSError, RuntimeError):
            return False  # broken or looping: kept, so that reading it reports why
        if not real.is_relative_to(self.root) or not real.is_file():
            return False
        self.symlinks[rel] = real.relative_to(self.root).as_posix()
        return True

    def _link_folder(self, rel: str) -> None:
        try:
            real = (self.root / rel).resolve(strict=True)
        except (OSError, RuntimeError):
            return
        if real.is_relative_to(self.root) and real.is_dir():
            target = real.relative_to(self.root).as_posix()
            self.folder_links[rel] = "" if target == "." else target

    def through_links(self, rel: str) -> str:
        """The path with a symlinked folder of the repository it goes through replaced by its
        target (`modules/Repo/x.py`, where `modules/Repo` links to the root: `x.py`); the path
        itself where it goes through none."""
        for _ in range(8):  # (links to links, bounded)
            for link, target in self.folder_links.items():
                if rel.startswith(link + "/"):
                    rel = posixpath.normpath(posixpath.join(target, rel[len(link) + 1 :]))
                    break
            else:
                return rel
        return rel

    def aliases(self, rel: str) -> list[str]:
        """The paths a file is known by: itself and every symlink to it."""
        return [rel, *(link for link, target in self.symlinks.items() if target == rel)]

    def _is_manifest(self, rel: str) -> bool:
        """Whether the file's first 4 KiB hold two lines that start a YAML mapping's key (at
        any depth), and no Helm `define` (a template of YAML: a manifest, Helm values; not a
        message with one `Note:` line)."""
        head = self._head(rel)
        if head is None:
            return False
        if len(_YAML_KEY_LINE.findall(head)) < 2 or _HELM_DEFINE.search(head):
            return False
        return _reads_as_yaml(head.decode("utf-8", "replace"))

    def _unmarked_job(self, rel: str) -> bool:
        """A Slurm batch script (`#SBATCH` lines) whose first line is no `#!` line: sbatch
        refuses it ("This does not look like a batch script"); bash reads it as any script."""
        head = self._head(rel)
        return head is not None and not head.startswith(b"#!") and bool(_SBATCH_LINE.search(head))

    def _head(self, rel: str) -> bytes | None:
        """The file's first 4 KiB (None where it cannot be read)."""
        if rel in self.overlay:
            return self.overlay[rel][:4096]
        try:
            with (self.root / rel).open("rb") as handle:
                return handle.read(4096)
        except OSError:
            return None

    def _has_shell_shebang(self, rel: str) -> bool:
        if rel in self.overlay:
            return bool(_SHEBANG.match(self.overlay[rel][:128]))
        path = self.root / rel
        if not path.is_file():
            return False
        try:
            with path.open("rb") as handle:
                head = handle.read(128)
        except OSError:
            return False
        return bool(_SHEBANG.match(head))

    def is_yaml(self, rel: str) -> bool:
        """Whether the repository has this YAML file (a set, where the list would be scanned)."""
        return rel in self._path_sets[0]

    def is_shell(self, rel: str) -> bool:
        return rel in self._path_sets[1]

    def is_python(self, rel: str) -> bool:
        return rel in self._python_set

    @functools.cached_property
    def _python_set(self) -> frozenset[str]:
        return frozenset(self.python_paths)

    def is_script(self, rel: str) -> bool:
        """Whether a script may run or source this file: a shell file, or one of the files
        read as shell only where sourced (`sourced_only`)."""
        return rel in self._path_sets[2]

    @functools.cached_property
    def script_paths(self) -> list[str]:
        """The shell files and the files read as shell only where sourced."""
        return self.shell_paths + self.sourced_only

    @functools.cached_property
    def _path_sets(self) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        shell = frozenset(self.shell_paths)
        return frozenset(self.yaml_paths), shell, shell.union(self.sourced_only)

    @property
    def read_paths(self) -> list[str]:
        """The files the run depends on: those it read, and those it knew from the index."""
        return list(self._sources) + [p for p in self._known if p not in self._sources]

    @property
    def files_read(self) -> int:
        return len(self.read_paths)

    @property
    def paths(self) -> list[str]:
        return list(self._paths)

    @functools.cached_property
    def _paths(self) -> tuple[str, ...]:
        return tuple(sorted(self.shell_paths + self.yaml_paths))  # (fixed once discovered)

    def glob(self, patterns: list[str]) -> list[str]:
        key = tuple(patterns)
        if key not in self._globbed:  # (asked again and again by the wiring and the rules)
            # (one expression for every pattern: one match per path)
            either = re.compile("|".join(f"(?:{_glob_regex(p).pattern})" for p in patterns))
            self._globbed[key] = tuple(p for p in self._paths if either.fullmatch(p))
        return list(self._globbed[key])

    # -- reading ---------------------------------------------------------------------------------
    def source(self, rel: str) -> SourceText | None:
        if rel not in self._sources:
            self._sources[rel] = self._read(rel)
        return self._sources[rel]

    def search(self, rel: str, pattern: re.Pattern[bytes]) -> bool | None:
        """Whether the file's bytes hold the pattern, without keeping its text for the run (a
        question about every Python file: their text is megabytes); the run depends on the
        file as on one it read (`read_paths`). None when it cannot be read."""
        source = self._sources[rel] if rel in self._sources else self._read(rel)
        if source is None:
            return None
        if rel not in self._sources:
            self._known[rel] = source.digest
        return pattern.search(source.data) is not None

    def folder_files(self, rel: str) -> tuple[str, ...]:
        """The names of the files in a folder of the repository ("" its root; none when it is
        no folder), as a rule asks whether a file a workflow names is there: the run depends on
        the listing (`runcache.file_states` keeps it with the files read)."""
        if rel not in self.folders:
            self.folders[rel] = folder_listing(self.root, rel)
        return self.folders[rel]

    def kind_of(self, rel: str) -> str:
        """What the repository holds at a path: "file", "folder" or "" (nothing), through
        symlinks, walked or not (`venv/`), as a rule asks whether a path a script names is
        there: the run depends on the answer (`runcache.file_states` keeps it)."""
        if rel not in self.probed:
            self.probed[rel] = path_kind(self.root, rel)
        return self.probed[rel]

    # -- the index: files as earlier runs read them ----------------------------------------------
    def known_digest(self, rel: str) -> bytes | None:
        """The file's content hash, without reading it when an earlier run with this cache read
        it and its status is the same now (size, modification and change times, inode: a write
        changes the change time), as git's index does; None when it must be read. Known either
        way, the run depends on the file (`read_paths`)."""
        if rel in self._sources:
            source = self._sources[rel]
            return source.digest if source is not None else None
        if rel in self._known:
            return self._known[rel]
        entry = self._load_index().get(rel)
        if entry is None or rel not in self._plain or rel in self.overlay:
            return None
        try:
            digest, status = entry
            found = os.stat(self.root / rel, follow_symlinks=False)
        except (OSError, TypeError, ValueError):
            return None
        now = file_status(found)
        if now != status or not isinstance(digest, bytes):
            return None
        self._known[rel] = digest
        self.statuses[rel] = now
        return digest

    def digest(self, rel: str) -> bytes | None:
        """The file's content hash: known unchanged (`known_digest`), else read; None when it
        cannot be read."""
        digest = self.known_digest(rel)
        if digest is None:
            source = self.source(rel)
            digest = source.digest if source is not None else None
        return digest

    def _load_index(self) -> dict[str, Any]:
        if self._index is None:
            stored = self.cache.get("index", str(self.root), b"") if self.cache else None
            self._index = stored if isinstance(stored, dict) else {}
        return self._index

    def store_index(self, started_ns: int) -> None:
        """Keep for later runs each plain file this run read, with its content hash and status;
        not a file changed less than RACY_NS before the run started (its times may not show a
        write that follows within the clock's granularity)."""
        if self.cache is None:
            return
        index = self._load_index()
        listed = self._path_sets
        kept = {p: e for p, e in index.items() if p in listed[0] or p in listed[1]}
        for rel, source in self._sources.items():
            status = self.statuses.get(rel)
            if source is None or status is None or rel in self.overlay:
                continue
            if status[2] >= started_ns - RACY_NS:
                kept.pop(rel, None)
            else:
                kept[rel] = [source.digest, status]
        if kept != index:
            self.cache.put("index", str(self.root), b"", kept)

    def _read(self, rel: str) -> SourceText | None:
        if rel in self.overlay:
            return self._text(rel, self.overlay[rel])
        if rel in self._plain:
            return self._read_plain(rel)
        path = self.root / rel
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            reason = "a symlink loop" if isinstance(exc, RuntimeError) else _reason(exc)
            self._fail(rel, f"cannot be read: {reason}")
            return None
        if not real.is_relative_to(self.root):
            self._fail(rel, "is a symlink to a path outside the repository; not read")
            return None
        if not real.is_file():  # a FIFO or device would block or never end
            self._fail(rel, "is not a regular file; not read")
            return None
        try:
            data = real.read_bytes()
        except OSError as exc:
            self._fail(rel, f"cannot be read: {_reason(exc)}")
            return None
        return self._text(rel, data)

    def _read_plain(self, rel: str) -> SourceText | None:
        """A file discovery found through no symlink: opened without following one (should it
        have become a link since) and without blocking (should it have become a FIFO)."""
        try:
            fd = os.open(self.root / rel, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        except OSError as exc:
            self._fail(rel, f"cannot be read: {_reason(exc)}")
            return None
        try:
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode):
                self._fail(rel, "is not a regular file; not read")
                return None
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = handle.read()
            # as it was read: a write since changes its change time (`runcache.file_states`)
            self.statuses[rel] = file_status(found)
        except OSError as exc:
            self._fail(rel, f"cannot be read: {_reason(exc)}")
            return None
        finally:
            os.close(fd)
        return self._text(rel, data)

    def _text(self, rel: str, data: bytes) -> SourceText | None:
        if b"\0" in data[:8192]:
            self._fail(rel, "is a binary file, not text")
            return None
        source = SourceText(rel, data)
        if self._over_limit(rel, source):  # (its text let go as it is read: t73a, kserve's
            return SourceText.stand_in(rel, source.digest)  # install bundles held 133 MB)
        return source

    def _fail(self, rel: str, message: str, span: Span = FILE_START) -> None:
        self.failures.setdefault(rel, Failure(rel, message, span))

    # -- parsing ---------------------------------------------------------------------------------
    def shell(self, rel: str) -> Script | None:
        if rel not in self._shell:
            held = self._let_go.get(rel)
            script = held() if held is not None else None
            if script is not None:
                return script  # (still let go of: held by what holds it)
            if held is not None:
                del self._let_go[rel]
                self.remodelled += 1
            found = self._model(rel, self.kept.shell if self.kept else None, self._parse_shell)
            assert not isinstance(found, YamlDocument)
            self._shell[rel] = found
            if self._pool is not None:  # (workers done with their files end now)
                self._pool.finished()
        return self._shell[rel]

    def model_scripts(self) -> None:
        """Model every script now, where the run holds every model (see HOLD): workers parse
        the YAML meanwhile, and the rules' passes, which soon read the recipes, do not wait on
        them (InferenceX, 2 CPUs: the worker ends before the passes grow this process)."""
        if not self.streams:
            for rel in self.shell_paths:
                self.shell(rel)
            # then the YAML the workers made, before the passes grow this process (all but
            # the large documents a pass over every file lets go of: taken where they are read)
            for rel in self.yaml_paths if self._pool is not None else ():
                source = self.source(rel)
                if source is not None and len(source.data) < TRANSIENT_BYTES:
                    self.yaml(rel)

    def holds(self, rel: str) -> bool:
        """Whether the run holds the script's model now (made, and not let go of)."""
        return rel in self._shell

    def modelled(self) -> list[str]:
        """The scripts this run modelled (those let go of too)."""
        return [*self._shell, *(rel for rel in self._let_go if rel not in self._shell)]

    def let_go(self, rel: str) -> None:
        """The run needs the script's model no more for now (its passes are done, or it was
        modelled in passing), and lets go of it where it streams (see HOLD): what still holds
        it (the wiring a launcher's) keeps it, and the workspace gives that one again; else it
        is freed, and modelled again if asked for."""
        script = self._shell.get(rel)
        if script is None or not self.streams:
            return
        self._store_guards(rel, script)
        del self._shell[rel]
        self._let_go[rel] = weakref.ref(script)
        self._released += len(script.src)
        if self._released > COLLECT:
            self._since_full += self._released
            self._released = 0
            full = self._since_full > FULL
            if full:
                self._since_full = 0
            gc.collect(2 if full else 1)

    @functools.cached_property
    def streams(self) -> bool:
        """Whether the run lets go of scripts' models (see HOLD): not a language server's (it
        keeps every model), not one that names files."""
        if self.kept is not None or self.keep_trees:
            return False
        sources = (self.source(rel) for rel in self.shell_paths)
        return sum(len(s.data) for s in sources if s is not None) > HOLD

    def _model(
        self,
        rel: str,
        kept: dict[str, Parsed] | None,
        parse: Callable[[str], Script | YamlDocument | None],
    ) -> Script | YamlDocument | None:
        """The file's model: the one kept from an earlier run for the same bytes, or parsed."""
        reused = self._reuse(rel, kept)
        if reused is not None:
            return reused.model
        model = parse(rel)
        self._keep(rel, model, kept)
        return model

    def _reuse(self, rel: str, kept: dict[str, Parsed] | None) -> Parsed | None:
        """The model an earlier run parsed from these same bytes, its failure recorded again."""
        if kept is None or rel not in kept:
            return None
        source = self.source(rel)
        parsed = kept[rel]
        if source is None or source.data != parsed.data:
            return None
        if parsed.model is not None:
            self._sources[rel] = parsed.model.file  # the text its positions are in
        if parsed.failure is not None:
            self.failures.setdefault(rel, parsed.failure)
        if parsed.template:
            self.templates.add(rel)
        if parsed.partial is not None:
            self.partial[rel] = parsed.partial
        return parsed

    def _keep(
        self, rel: str, model: Script | YamlDocument | None, kept: dict[str, Parsed] | None
    ) -> None:
        source = self._sources.get(rel)
        if kept is not None and source is not None:
            failure, partial = self.failures.get(rel), self.partial.get(rel)
            kept[rel] = Parsed(source.data, model, failure, rel in self.templates, partial)

    def too_large(self, rel: str, source: SourceText) -> bool:
        """Whether the file is larger than `max-file-size` and so not modelled (it is listed in
        `oversized`, and the run says so; decided as it is read, `_over_limit`)."""
        return rel in self.oversized

    def _over_limit(self, rel: str, source: SourceText) -> bool:
        """Whether a shell or YAML file just read is larger than `max-file-size` (recorded in
        `oversized`): its text is not kept. A master config (what `layout` detects as one, or
        the configuration names) is modelled whatever its size: the wiring starts there. A
        Python file is read whole (BL116 reads its parser)."""
        limit = self.config.max_file_size
        if not limit or len(source.data) <= limit or rel.endswith(PYTHON_SUFFIXES):
            return False
        configured = self.config.layout.master_configs
        if "master-configs" in self.config.layout_keys:
            if any(path_matches(rel, pattern) for pattern in configured):
                return False
        elif rel.endswith(YAML_SUFFIXES) and entries_in(source.text) is not None:
            return False
        self.oversized[rel] = len(source.data)
        return True

    def _unmodelled(self, rel: str, source: SourceText) -> bool:
        """Whether the file is not modelled: too large, or a YAML template of a Helm chart
        (`_in_chart`, listed in `templates`)."""
        if self.too_large(rel, source):
            return True
        if rel not in self._in_chart or b"{{" not in source.data:
            return False
        self.templates.add(rel)
        return True

    def _parse_shell(self, rel: str) -> Script | None:
        """The per-file step's result for the file: from a worker, the cache, or done here."""
        from benchlint.perfile import TOO_DEEP, script_facts
        from benchlint.shell.model import parse_file
        from benchlint.shell.summary import apply_guard_facts, decode_script

        source = self.source(rel)
        if source is None or self.too_large(rel, source):
            return None
        if "{%" in source.text and _JINJA_STATEMENT.search(source.text):
            self.templates.add(rel)  # a Jinja template of a script, rendered before it runs
            return None
        if _OTHER_SHELL.match(source.data[:128]):
            self.other_shells.add(rel)
            return None
        facts = self._facts("shell", rel, source)
        script: Script | None = None
        if facts is not None and facts[0] == "failure":
            self._fail(rel, str(facts[1]))
            return None
        if facts is not None and facts[0] == "script":
            with contextlib.suppress(RecursionError):  # then modelled here, as it can be
                script = decode_script(source, facts[1])
            if script is not None and self.cache is not None:
                stored = self.cache.get("guards", rel, source.digest)
                if stored is not None:
                    apply_guard_facts(script, stored)
                    self._guards_stored[rel] = _worked_out(stored)
        if script is None:
            try:
                script = parse_file(source, self.keep_trees)
            except RecursionError:
                script = None
            keep = self.cache is not None and self.keep_scripts
            facts = script_facts(script) if keep else None
            if self.cache is not None and facts is not None:
                self.cache.put("shell", rel, source.digest, facts)
            if script is None:
                self._fail(rel, TOO_DEEP)
                return None
        if script.has_error:
            problem = bash_syntax_error(source.data)
            if problem is not None and placeholder_at(source, problem[0]):
                self.templates.add(rel)  # a script to fill in, not one to run: not linted
                return None
            if problem is not None:
                line, message = problem
                line = min(max(line, 1), source.line_count)
                width = len(source.line_text(line)) + 1
                span = Span(line, 1, line, width)
                stops = _statement_start(source, line)
                failure = Failure(
                    rel,
                    f"is not valid shell: {message}",
                    span,
                    stops,
                    unclosed(source, line, message),
                )
                self.failures.setdefault(rel, failure)
            elif not _only_final_continuation(source.data):
                # bash reads it: tree-sitter-bash cannot (`exec 9<>file`), some commands lost
                self.partial[rel] = _first_error_line(script)
        return script

    def done(self, let_go: bool) -> None:
        """The run is over. `let_go`: no later run reuses its models (a language server's does),
        and the YAML documents are let go of before the report is written, which reads files'
        text, not their models (a model asked for again is built again). A document holds no
        cycle, so it is freed at once, with the collector off: the report's memory is then
        the documents' (InferenceX in SARIF: a peak of 151 MiB instead of 155); scripts' models
        would need a collection (0.4 s on InferenceX), and are kept."""
        if let_go:
            self._documented = [*self._documented, *self._yaml]
            self._yaml.clear()
            self._passed.clear()

    def documents(self) -> list[str]:
        """The YAML files this run made documents of and kept (those let go of at its end too;
        not a file of TRANSIENT_BYTES or more that only the passes over every file read)."""
        return [*self._documented, *self._yaml]

    def store_guard_facts(self) -> None:
        """Keep in the cache the guards' facts this run worked out (`summary.encode_guard_facts`),
        for the scripts whose models are kept there too."""
        held = (self._let_go[rel]() for rel in self._let_go)
        for script in [*self._shell.values(), *held]:
            if script is not None:
                self._store_guards(script.path, script)

    def _store_guards(self, rel: str, script: Script) -> None:
        if self.cache is None or not self.keep_scripts:
            return
        source = self._sources.get(rel)
        if source is None or rel in self.overlay:
            return
        from benchlint.shell.summary import encode_guard_facts

        encoded = encode_guard_facts(script)
        if encoded is not None and _worked_out(encoded) > self._guards_stored.get(rel, 0):
            self.cache.put("guards", rel, source.digest, encoded)
            self._guards_stored[rel] = _worked_out(encoded)  # (a model let go twice: once)

    def yaml(self, rel: str, keep: bool = True) -> YamlDocument | None:
        """The file's document. `keep=False` (a pass over every file): a document of at least
        TRANSIENT_BYTES, not a master config, is not kept for the run once the document passes
        have read it (a caller that keeps it builds it again: a large generated manifest no
        route reaches costs its parse, not its model's memory, for the rest of the run)."""
        if rel in self._yaml:
            return self._yaml[rel]
        document = self._model(rel, self.kept.yaml if self.kept else None, self._parse_yaml)
        if self._pool is not None:  # (workers done with their files end now)
            self._pool.finished()
        assert document is None or isinstance(document, YamlDocument)
        source = self._sources.get(rel)
        if (
            keep
            or document is None
            or source is None
            or len(source.text) < TRANSIENT_BYTES
            or rel in self.layout.master_configs  # (the largest file the wiring reads)
        ):
            self._yaml[rel] = document
        else:
            for rule_id, run in self.document_passes.items():
                self._passed.setdefault(rule_id, {})[rel] = run(document)
        return document

    def pass_findings(
        self, rule_id: str, rel: str, run: Callable[[YamlDocument], list[Finding | Undecided]]
    ) -> list[Finding | Undecided]:
        """What a rule's document pass (`run`, its `Rule.document_pass`) finds in the file,
        worked out once: when the document was built, if the run registered the pass in
        `document_passes` and the document was let go, else now."""
        found = self._passed.get(rule_id, {}).get(rel)
        if found is None:
            document = self.yaml(rel, keep=False)
            found = self._passed.get(rule_id, {}).get(rel)
            if found is None:
                found = run(document) if document is not None else []
                self._passed.setdefault(rule_id, {})[rel] = found
        return found

    def prefetch(self) -> None:
        """Start modelling every file no model is kept or cached for in worker processes (with
        `jobs` > 1 and enough to do), while this process goes on: the YAML, and the scripts
        too with `perfile.SHELL_JOBS` processes or more; listed in the order a run asks for
        them (BL001 asks for every script's model, then every YAML file's)."""
        from benchlint.perfile import SHELL_JOBS, Pool, default_jobs

        jobs = self.jobs if self.jobs is not None else default_jobs()
        files = []
        kinds: list[tuple[str, list[str], Container[str], dict[str, Parsed]]] = []
        if jobs >= SHELL_JOBS:
            kinds.append(
                ("shell", self.shell_paths, self._shell, self.kept.shell if self.kept else {})
            )
        kinds.append(("yaml", self.yaml_paths, self._yaml, self.kept.yaml if self.kept else {}))
        for kind, paths, done, kept in kinds:
            for rel in paths:
                if rel in done or rel in kept:
                    continue
                source = self.source(rel)
                if source is None or self._unmodelled(rel, source):
                    continue
                cached = self._cached_facts(kind, rel, source)
                if cached is not None:
                    self._cached[rel] = cached  # (read once: kept until the model is made)
                else:
                    files.append((kind, rel, source.data))
        self._pool = Pool(files, jobs, self.cache)

    def close(self) -> None:
        """Stop the worker processes, if any."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def _cached_facts(self, kind: str, rel: str, source: SourceText) -> Facts | None:
        stored = self.cache.get(kind, rel, source.digest) if self.cache is not None else None
        return tuple(stored) if isinstance(stored, (tuple, list)) and stored else None

    def _facts(self, kind: str, rel: str, source: SourceText) -> Facts | None:
        """The file's facts made already: found by `prefetch`, by a worker, or in the cache."""
        facts = self._cached.pop(rel, None)
        if facts is None and self._pool is not None:
            facts = self._pool.take(rel)
        if facts is None:
            facts = self._cached_facts(kind, rel, source)
        return facts

    def _parse_yaml(self, rel: str) -> YamlDocument | None:
        """The per-file step's result for the file: from a worker, the cache, or done here."""
        from benchlint.perfile import read_yaml, yaml_document

        source = self.source(rel)
        if source is None or self._unmodelled(rel, source):
            return None
        facts = self._facts("yaml", rel, source)
        if facts is not None:
            document = yaml_document(source, facts)
        else:
            document, facts = read_yaml(source)
            if self.cache is not None:
                stored = ("document", encode_documents(document)) if document is not None else facts
                self.cache.put("yaml", rel, source.digest, stored)
        if facts[0] == "template":
            self.templates.add(rel)
        elif facts[0] == "failure":
            line, column, end_line, end_column = facts[2]
            self._fail(rel, str(facts[1]), Span(line, column, end_line, end_column))
        return document

    def shell_scripts(self) -> list[Script]:
        return [s for s in (self.shell(p) for p in self.shell_paths) if s is not None]


def _only_final_continuation(data: bytes) -> bool:
    """Whether all tree-sitter-bash stumbles on is a `\\` that ends the file (bash reads the
    command before it as it is): the text without it parses whole, so nothing was lost."""
    from benchlint.shell.model import parse_tree

    text = data.rstrip()
    return text.endswith(b"\\") and not parse_tree(text[:-1] + b"\n").root_node.has_error


def _first_error_line(script: Script) -> int:
    """The line of the first part of the script tree-sitter-bash could not parse; at most the
    line of the file's last character that is not blank (a backslash that ends the file leaves a
    missing node after the last line)."""
    last = script.src.rstrip().count(b"\n") + 1
    return min((script.error_row or 0) + 1, last)


def folder_listing(root: Path, rel: str) -> tuple[str, ...]:
    """The sorted names of the regular files in a folder of the repository (none when it
    cannot be listed, or lies outside the repository)."""
    path = root / rel
    try:
        if not path.resolve().is_relative_to(root.resolve()):
            return ()
        with os.scandir(path) as scan:
            return tuple(sorted(e.name for e in scan if e.is_file(follow_symlinks=False)))
    except (OSError, RuntimeError):
        return ()


def path_kind(root: Path, rel: str) -> str:
    """ "file", "folder" or "" for a path of the repository (`Workspace.kind_of`), through
    symlinks (one that leaves the root too: whether it is there, not what it holds)."""
    path = root / rel
    try:
        return "folder" if path.is_dir() else ("file" if path.exists() else "")
    except (OSError, ValueError):
        return ""


def file_status(found: os.stat_result) -> list[int]:
    """What says a file is as it was (git's index keeps the same): its size, modification and
    change times (a write sets the change time), and inode."""
    return [found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino]


def _worked_out(encoded: Any) -> int:
    """How many of a file's scripts (its own, those nested in it) have their guards' facts in
    `summary.encode_guard_facts`'s data."""
    return sum(1 for entry in encoded if entry is not None) if isinstance(encoded, list) else 0


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


# A fill-in placeholder where bash failed (`partition=<partition>`, `--mounts <mounts>;`): the
# file is a template of a script, as a Helm chart's YAML is a template of YAML
# `<partition>`, `<YOUR_HF_TOKEN>`, `<Replace with your HF token>`, `<Path to checkpoint (e.g
# /345m)>`: a value to fill in
_PLACEHOLDER = lazy_compile(r"(?:^|[\s=/])<[A-Za-z_][A-Za-z0-9_., ()/:-]*>(?=[\s;/]|$)")


def placeholder_at(source: SourceText, line: int) -> bool:
    """Whether the line bash rejects, or a line it continues (`X=<PATH> \\`, then a line bash
    rejects), holds a value to fill in: `<partition>`, `/<username>/`, `<partition, for -p>`."""
    for at in range(line, max(line - 4, 0), -1):
        text = source.line_text(at)
        if at < line and not text.rstrip().endswith("\\"):
            return False  # (a line before that does not run on into the next)
        if _PLACEHOLDER.search(text):
            return True
    return False


# a line that is a Jinja statement (`{% if enable_eager %}`, `{%- endfor %}`): no shell has it
_JINJA_STATEMENT = lazy_compile(
    r"^[ \t]*\{%-?[ \t]*(?:if|elif|else|endif|for|endfor|set|macro|endmacro|block|endblock"
    r"|include|import|from|raw|endraw|with|endwith|filter|endfilter|call|endcall)\b.*%\}[ \t]*$",
    re.M,
)


def _statement_start(source: SourceText, line: int) -> int:
    """The first line of the statement bash fails to read at `line` (an `if`, a function or a
    quote left open reaches back further than the line bash names): the last line, at or
    before `line`, whose text before it `bash -n` accepts, tried upwards at most `_TRIES`
    times; the line itself when none is found."""
    lines = source.text.split("\n")
    for start in range(line, max(line - _TRIES, 0), -1):
        before = "\n".join(lines[: start - 1]) + "\n"
        if bash_syntax_error(before.encode("utf-8", errors="surrogateescape")) is None:
            return start
    return line


# `bash -n` runs per try (a few milliseconds), only for a script bash rejects
_TRIES = 200


# the word bash stopped at (`syntax error near unexpected token `done'`)
_UNEXPECTED = lazy_compile(r"unexpected token `([^']*)'")
# the keyword that opens a compound command, by tree-sitter-bash's node, and what closes it
_CLOSERS = {
    "if_statement": ("if", "fi"),
    "case_statement": ("case", "esac"),
    "while_statement": ("while", "done"),
    "for_statement": ("for", "done"),
    "c_style_for_statement": ("for", "done"),
    "do_group": ("do", "done"),
    "compound_statement": ("{", "}"),
}


def unclosed(source: SourceText, line: int, message: str) -> tuple[Span, str, str] | None:
    """The compound command tree-sitter-bash finds left open (its closing word missing) that
    starts before `line`, where bash stopped reading: the last such opener (h116 W1, an `if`
    with no `fi` in a function, which bash reports only at the function's `}`). None where
    bash stopped at the very word that would close it (`done` where tree-sitter finds a `do`
    open: the closers are swapped, and another construct is the one left open: h118 F3)."""
    from benchlint.shell.model import parse_tree

    found = None
    stack = [parse_tree(source.data).root_node]
    while stack:
        node = stack.pop()
        if node.is_missing and node.parent is not None and node.parent.type in _CLOSERS:
            opener, closer = _CLOSERS[node.parent.type]
            start = node.parent.start_point
            if node.type == closer and start.row + 1 < line and (found is None or start > found[0]):
                found = (start, opener, closer)
        stack.extend(node.children)
    token = _UNEXPECTED.search(message)
    if found is None or (token is not None and token.group(1) == found[2]):
        return None
    (row, column), opener, closer = found
    text = source.line_text(row + 1)
    begin = len(text.encode()[:column].decode(errors="replace")) + 1
    return Span(row + 1, begin, row + 1, begin + len(opener)), opener, closer


def dash_syntax_error(data: bytes) -> tuple[int, str] | None:
    """Ask `dash -n` (read, never execute) whether a script `sh` runs on Debian and Ubuntu is
    invalid there: (its line, dash's message); None where it reads it, or without dash."""
    text = _rejects("dash", [], data)
    match = _DASH_ERROR.search(text) if text is not None else None
    return (int(match.group(1)), match.group(2).strip()) if match else None


def _rejects(program: str, options: list[str], data: bytes) -> str | None:
    """What `PROGRAM -n` (read, never execute) says of the script where it rejects it; None
    where it reads it, fails to run or is not installed."""
    import subprocess  # (only here: most runs meet no such file)

    found = shutil.which(program)
    if found is None:
        return None
    try:
        result = subprocess.run(
            [found, *options, "-n"],
            input=data,
            capture_output=True,
            timeout=10,
            check=False,
            env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return None if result.returncode == 0 else result.stderr.decode("utf-8", errors="replace")


def bash_syntax_error(data: bytes) -> tuple[int, str] | None:
    """Ask `bash -n` (read, never execute) whether a file tree-sitter stumbled on is really invalid.

    tree-sitter-bash rejects some valid constructs; only a script bash itself rejects is reported.
    Without bash on the machine, tree-sitter's recovery is trusted and nothing is reported.
    """
    # `shopt -s extglob` runs before bash reads the lines after it; `bash -n` runs nothing
    text = _rejects("bash", ["-O", "extglob"] if b"extglob" in data else [], data)
    if text is None:
        return None
    for line in text.splitlines():
        match = _BASH_ERROR.search(line)
        if match:
            return int(match.group(1)), match.group(2).strip()
    return 1, " ".join(text.split())[:200] or "bash -n rejects it"
