"""A variable a `run:` step writes to `$GITHUB_ENV` and then reads itself: it is empty there.

## What it does
Reports, in a workflow step's `run:` script, a read of `$NAME` after the script wrote `NAME=...`
(or a `NAME<<EOF` block) to `$GITHUB_ENV` with `echo`, `printf` or `cat`, when nothing else gives
NAME a value in that step: the script does not assign or export it before the read, and neither
the step's, the job's nor the workflow's `env:` nor an earlier step of the job (through
`$GITHUB_ENV`) sets it.

## Why is this bad?
The runner reads `$GITHUB_ENV` when the step ends, to set the variables of the steps after it:
the step that writes it does not get them. `RESULT_FILENAME=... >> $GITHUB_ENV` followed by
`bash ./runners/launch.sh` and `[ -f "$RESULT_FILENAME.json" ]` in the same step gives the
launcher no result name and checks for a file named `.json`: every job reports a failed run.
InferenceX fixed this in four jobs of one workflow by exporting the variable instead.

## Example
```yaml path=.github/workflows/sweep.yml
on: workflow_dispatch
jobs:
  benchmark:
    runs-on: ubuntu-latest
    steps:
      - name: Run benchmark
        run: |
          echo "RESULT_FILENAME=${EXP_NAME}_tp${TP}" >> $GITHUB_ENV
          bash ./runners/launch.sh
          test -f "$RESULT_FILENAME.json"
```

## Use instead
```yaml path=.github/workflows/sweep.yml
on: workflow_dispatch
jobs:
  benchmark:
    runs-on: ubuntu-latest
    steps:
      - name: Run benchmark
        run: |
          export RESULT_FILENAME="${EXP_NAME}_tp${TP}"
          echo "RESULT_FILENAME=$RESULT_FILENAME" >> $GITHUB_ENV
          bash ./runners/launch.sh
          test -f "$RESULT_FILENAME.json"
```

## Exceptions
Not reported: a name the runner, the job's container image or a toolkit in it may set already
(`PATH`, `HOME`, `CUDA_HOME`, `LD_*`, `PYTHON*`: the step sees that value), a step that may not run
in bash or sh (its `shell:` or the job's default names another, or the job may run on Windows,
whose default is PowerShell: a `runs-on` that names Windows; one an expression or a runner group
gives, where the script names no runner file as a shell variable, `$GITHUB_ENV`, as PowerShell's
`$env:GITHUB_ENV` does not), a write whose name is not written plainly (`echo "$KEY=1"`), a read
inside a function or a `bash -c` string of the script, and the programs the step runs (the
launcher's reads are its own: BL104 and the routes see them).
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.environment import is_builtin, set_by_image
from benchlint.finding import Finding, Location, Severity, Span
from benchlint.lazyre import lazy_compile
from benchlint.registry import rule
from benchlint.shell.model import Command, Read, Script
from benchlint.source import SourceText
from benchlint.workflow import (
    WORKFLOWS,
    env_file_writes,
    env_names,
    runs_in_posix_shell,
    step_runs,
    step_script,
    workflow_roots,
)
from benchlint.yamlmodel import YNode, value_span

_ENV_FILE = lazy_compile(r"\$\{?GITHUB_ENV\}?")
_WRITTEN = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:=|<<)")
# a `NAME=` after a `\n` printf writes as a line break
_LATER_LINE = lazy_compile(r"\\n([A-Za-z_][A-Za-z0-9_]*)(?:=|<<)")
_ENV_EXPRESSION = lazy_compile(r"\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


@rule("BL210", "env-file-same-step", Severity.ERROR, tags=("workflow", "correctness"))
def check(ctx: Context) -> Iterator[Finding]:
    paths = ctx.in_scope(ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS]))
    for source, root in workflow_roots(ctx.ws, paths, "GITHUB_ENV"):
        jobs = root.get("jobs")
        if jobs is None or not jobs.is_map:
            continue
        outer = _given_by(root)
        for _, job in jobs.pairs:
            steps = job.get("steps") if job.is_map else None
            if steps is None or not steps.is_seq:
                continue
            earlier = outer | _given_by(job)
            for step in steps.items:
                if not step.is_map:
                    continue
                for run in step_runs(job, step) if runs_in_posix_shell(root, job, step) else ():
                    yield from _step(source, run, earlier | _given_by(step))
                earlier |= env_file_writes(step, ctx.ws)


def _given_by(node: YNode | None) -> set[str]:
    return env_names(node) or set()  # (an `env:` an expression gives: none known)


def _step(source: SourceText, run: YNode, given: set[str]) -> Iterator[Finding]:
    if not run.is_scalar or "GITHUB_ENV" not in run.value:
        return
    found = step_script(source, run)
    if found is None:
        return
    script = found.script
    reported: set[str] = set()
    for index, command in enumerate(script.commands):
        for name in _written(command, script.commands[index - 1] if index else None):
            if name in given or name in reported or is_builtin(name) or set_by_image(name):
                continue  # (the runner, the job's container or the toolkit may set it)
            written = found.at(script.char_of(command.node.start_byte))
            read = _read_after(script, command, name)
            if read is not None:
                reported.add(name)
                yield Finding(
                    "BL210",
                    f"`${name}` is empty here: this step writes {name} to $GITHUB_ENV (line "
                    f"{written.line}), which sets it for the steps after this one, not for this "
                    "one",
                    Location(source.path, found.place(read)),
                    subject=f"{name}@{read.line}",
                    help=f"also `export {name}=...` in this step, or read it in a later step",
                )
                continue
            after = script.char_of(command.node.end_byte)
            for match in _ENV_EXPRESSION.finditer(run.value, after):
                if match.group(1) == name:
                    reported.add(name)
                    yield Finding(
                        "BL210",
                        f"`{match.group(0)}` is empty here: GitHub puts the value in before the "
                        f"step runs, and this step writes {name} to $GITHUB_ENV (line "
                        f"{written.line}) only for the steps after it",
                        Location(source.path, value_span(source, run, match.start())),
                        subject=f"{name}@expression",
                        help=f"read `${name}` after an `export {name}=...` in this step",
                    )
                    break


def _written(command: Command, before: Command | None) -> list[str]:
    """The name a command writes to `$GITHUB_ENV`: the `NAME=` or `NAME<<` an `echo`, `printf`
    or `cat` writes there (its first word that starts so), or pipes to a `tee -a` of it (the
    command before, `before`, in the pipeline)."""
    if command.base == "tee" and before is not None and before.piped:
        files = [w.text for w in command.words[1:] if not w.value.startswith("-")]
        if any(_ENV_FILE.fullmatch(f.strip("\"'")) for f in files):
            return _written_names(before)
        return []
    if command.base not in ("echo", "printf", "cat"):
        return []
    targets = [r.target.text for r in command.redirects if r.operator in (">>", ">")]
    if not any(_ENV_FILE.fullmatch(t.strip("\"'")) for t in targets):
        return []
    return _written_names(command)


def _written_names(command: Command) -> list[str]:
    if command.base not in ("echo", "printf", "cat"):
        return []
    names = []
    for word in command.words[1:]:
        match = _WRITTEN.match(word.value)
        if match and word.value.startswith(match.group(0)):
            names.append(match.group(1))
            if command.base == "printf":  # (its format's lines: `'A=%s\nB=%s\n'`; h135 M4)
                names += _LATER_LINE.findall(word.value)
            break
    return names


def _sourced_sets(writer: Command, name: str) -> bool:
    """Whether the line the writer writes for the name sets it when a shell sources the file:
    an `echo`'s `NAME=word`, the value one word with no quote or operator in it (a value with a
    blank is refused: h140 R2); what a `printf` or a `tee -a` writes is taken to set it."""
    if writer.base != "echo":
        return True  # (printf's arguments, a `tee -a`'s input: not read here, taken as one word)
    for word in writer.words[1:]:
        value = word.value if word.static else _EXPANSION.sub("x", word.value)
        if value.startswith(name + "<<"):
            return False  # (a block's first line: a heredoc to the sourcing shell)
        if value.startswith(name + "="):
            # (what an expansion gives is taken for one word: the usual value, not known)
            return not _NOT_ONE_WORD.search(value[len(name) + 1 :])
    return True  # (not written out so: not known, taken as set; h141 F1)


_NOT_ONE_WORD = lazy_compile(r"[\s'\"\\;&|<>()`]")
_EXPANSION = lazy_compile(r"\$(?:\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*|\([^)]*\))")


def _read_after(script: Script, writer: Command, name: str) -> Span | None:
    """The first top-level read of `$name` after the writer (in a command's words, its
    redirections or the conditions it runs under), where the script has not assigned the name
    before it: the expansion's span; None otherwise."""
    end = writer.node.end_byte
    assigned = [a.node.start_byte for a in script.assignments if a.name == name]
    # (`source "$GITHUB_ENV"` after the write sets a name written as `NAME=word`: h135 F2;
    # not `NAME=a b`, which bash reads as `b` run with NAME set for it, nor a `NAME<<EOF`
    # block: h140 R2)
    assigned += [
        c.node.start_byte
        for c in script.commands
        if c.base in ("source", ".")
        and c.node.start_byte >= end
        and any(_ENV_FILE.fullmatch(w.text.strip("\"'")) for w in c.words[1:2])
        and _sourced_sets(writer, name)
    ]
    reads: list[Read] = []
    for command in script.commands:
        if command.node.start_byte < end or command.function is not None:
            continue
        words = [*command.words, *(a.value for a in command.assignments if a.value)]
        words += [r.target for r in command.redirects]
        reads += [r for w in words for r in w.reads() if r.name == name]
        for guard in command.guards:
            if guard.node.start_byte >= end:
                reads += [r for r in guard.test_reads if r.name == name]
    if not reads:
        return None
    first = min(reads, key=lambda r: r.node.start_byte)
    at = first.node.start_byte
    if any(start < at for start in assigned):
        return None
    return first.span
