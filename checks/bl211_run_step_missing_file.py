"""A workflow `run:` step that runs a file of the repository that does not exist.

## What it does
Reports, in a workflow step's `run:` script, a command that runs a repository file by a plain
relative path (`python3 process_results.py`, `bash utils/collect.sh`, `./scripts/run.sh`,
`source env.sh`; behind a shell's options, `bash -euo pipefail x.sh`, and behind a wrapper,
`timeout 600 ./x.sh`, `sudo -E ./x.sh`, `uv run utils/p.py`) when no file of the repository is
at that path (from the step's `working-directory`, else the job's default, else the
repository's root, moved by each `cd` to a folder written out before it: `cd utils`, `(cd utils
&& ./run.sh)`), while a file with a close name is in the same folder (`process_result.py`): a
typo or a rename the workflow did not follow.

## Why is this bad?
The step fails with `No such file or directory` on every run, after the benchmark it was to
process has already spent its hours; the results are never collected or uploaded. InferenceX's
results step called `process_results.py` when the file was `process_result.py`.

## Example
```yaml path=.github/workflows/benchmark.yml
on: workflow_dispatch
jobs:
  benchmark:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: python3 utils/process_results.py "$RESULT"
```

```python path=utils/process_result.py
print("processing")
```

## Use instead
```yaml path=.github/workflows/benchmark.yml
on: workflow_dispatch
jobs:
  benchmark:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: python3 utils/process_result.py "$RESULT"
```

```python path=utils/process_result.py
print("processing")
```

## Exceptions
Not reported: a step that may not run in bash or sh (another `shell:`, a Windows runner's
PowerShell, which finds `./build` as `./build.ps1`), a path with an expansion or an expression
in it, an absolute path, a file the job may make first (its name appears in an earlier step, or
the step downloads artifacts or checks out another repository or into a folder), a file with no
close name in its folder (it may be generated: benchlint cannot know), files named in a
`bash -c` string, and a command after a `cd` that may not run (under an `if`, in a loop) or to a
folder not written out (`cd "$DIR"`), or after `pushd`/`popd`."""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Iterator, Sequence

from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity
from benchlint.lazyre import lazy_compile
from benchlint.registry import rule
from benchlint.shell.model import Command, Script, Word
from benchlint.source import SourceText
from benchlint.workflow import (
    WORKFLOWS,
    StepScript,
    runs_in_posix_shell,
    step_folder,
    step_runs,
    step_script,
    workflow_roots,
)
from benchlint.yamlmodel import YNode

_PLAIN = lazy_compile(r"(?:\./)?[A-Za-z0-9_][A-Za-z0-9_./-]*")
_INTERPRETERS = lazy_compile(r"python(?:3(?:\.\d+)?)?|bash|sh")
# steps whose `uses:` may put files in the workspace the checkout did not
_MAKES_FILES = lazy_compile(r"actions/download-artifact|actions/cache|actions/checkout")


@rule("BL211", "run-step-missing-file", Severity.ERROR, tags=("workflow", "correctness"))
def check(ctx: Context) -> Iterator[Finding]:
    paths = ctx.in_scope(ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS]))
    for source, root in workflow_roots(ctx.ws, paths):
        jobs = root.get("jobs")
        if jobs is None or not jobs.is_map:
            continue
        for _, job in jobs.pairs:
            steps = job.get("steps") if job.is_map else None
            if steps is None or not steps.is_seq:
                continue
            yield from _job(ctx, source, root, job, steps.items)


def _job(
    ctx: Context, source: SourceText, root: YNode, job: YNode, steps: Sequence[YNode]
) -> Iterator[Finding]:
    seen = ""  # the text of the job's earlier steps
    for step in steps:
        if not step.is_map:
            continue
        uses = step.get("uses")
        if uses is not None and uses.is_scalar:
            if _MAKES_FILES.search(uses.value) and not _plain_checkout(uses.value, step):
                return  # (files may come from elsewhere from here on)
            continue
        runs = step_runs(job, step)
        if not runs_in_posix_shell(root, job, step):
            seen += "".join(run.value + "\n" for run in runs)
            continue  # (PowerShell finds `./build` as `./build.ps1`)
        folder = step_folder(root, job, step)
        for run in runs:
            found = step_script(source, run) if folder is not None else None
            if folder is not None and found is not None:
                yield from _step(ctx, found, folder, seen)
        seen += "".join(run.value + "\n" for run in runs)


def _plain_checkout(uses: str, step: YNode) -> bool:
    """`actions/checkout` of this repository into the workspace itself."""
    if not uses.startswith("actions/checkout"):
        return False
    given = step.get("with")
    if given is None or not given.is_map:
        return True
    return given.get("repository") is None and given.get("path") is None


def _step(ctx: Context, step: StepScript, folder: str, seen: str) -> Iterator[Finding]:
    script = step.script
    text = script.file.text
    for command in script.commands:
        word = _file_word(command)
        if word is None:
            continue
        here = _folder_at(script, command, folder)
        if here is None:
            continue  # (after a `cd` to a folder not written out, or one that may not run)
        value = word.value
        target = posixpath.normpath(posixpath.join(here, value.removeprefix("./")))
        if target == ".." or target.startswith("../"):
            continue  # (outside the repository)
        folder_of, name = posixpath.split(target)
        names = ctx.ws.folder_files(folder_of)
        if name in names:
            continue
        offset = script.char_of(word.node.start_byte)
        if name in seen or name in text[:offset]:
            continue  # (an earlier command may make it)
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.85)
        if not close:
            continue
        near = posixpath.join(folder_of, close[0])
        yield Finding(
            "BL211",
            f"`{value}` names no file of the repository ({target}); {near} is there: the "
            "step fails with `No such file or directory` on every run",
            Location(script.path, step.at(offset)),
            subject=f"run:{target}",
            help=f"did you mean `{near}`?",
        )


def _folder_at(script: Script, command: Command, folder: str) -> str | None:
    """The folder the step's shell is in at the command: the step's, moved by each `cd` before
    it to a folder written out (`cd utils`, `cd utils && python3 x.py`, one in the subshell the
    command runs in); None after one that may not run (under an `if`, in a loop or a function)
    or names a folder not written out, or after `pushd`/`popd` (t87 h13). A `cd` in a shell of
    its own the command is not in moves nothing here."""
    at = folder
    for other in script.commands:
        if other.node.start_byte >= command.node.start_byte:
            break
        if other.base not in ("cd", "pushd", "popd"):
            continue
        if other.apart_from_script and not other.in_its_shell(command.node.start_byte):
            continue
        args = other.args
        if other.base != "cd" or other.guards or other.loops or other.function is not None:
            return None
        if len(args) != 1 or not args[0].static or not _PLAIN.fullmatch(args[0].value):
            return None
        at = posixpath.normpath(posixpath.join(at, args[0].value))
        if at == ".." or at.startswith("../") or args[0].value.startswith("/"):
            return None
    return at


# wrappers that run the command on another machine's or a container's files (h140 F7)
_ELSEWHERE = frozenset(
    {"docker", "podman", "nvidia-docker", "ssh", "srun", "salloc", "sbatch", "kubectl", "oc"}
    | {"enroot", "apptainer", "singularity", "incus", "lxc", "mpirun", "mpiexec", "ray"}
)


def _file_word(command: Command) -> Word | None:
    """The word naming the file a command runs or sources, when written plainly, behind a
    wrapper too (`timeout 600 ./x.sh`, `sudo -E ./x.sh`, `uv run utils/p.py`: h135 M7)."""
    invocation = command.invocation
    if any(w.name in _ELSEWHERE or w.name.split()[0] in _ELSEWHERE for w in invocation.wrappers):
        return None  # (`docker exec ctr ./x.sh`, `ssh host ./x.sh`: another machine's files)
    words = invocation.words
    if not words or not words[0].static:
        return None
    first = words[0].value
    wrapped = len(words) < len(command.words)
    if first in ("source", ".") or _INTERPRETERS.fullmatch(first):
        rest = list(words[1:])
        while rest and rest[0].static and rest[0].value.startswith("-"):
            option = rest[0].value
            if first.startswith("python") and option in ("-m", "-c"):
                return None
            # (a shell's `-o pipefail`, `-euo pipefail`, `-O extglob`: the next word is the
            # option's name, not the script)
            takes = not first.startswith("python") and not option.startswith("--")
            rest = rest[2:] if takes and option[-1] in "oO" else rest[1:]
        candidate = rest[0] if rest else None
    elif first.startswith("./") or (wrapped and "/" in first and not first.startswith("/")):
        candidate = words[0]
    else:
        return None
    if candidate is None or not candidate.static or not _PLAIN.fullmatch(candidate.value):
        return None
    bare = "/" not in candidate.value and first not in ("source", ".")
    if bare and not first.startswith("./") and not candidate.value.endswith((".py", ".sh")):
        return None  # (`bash setup` may be a command on PATH)
    return candidate
