"""`${{ env.NAME }}` or `$NAME` in a job where NAME is written to `$GITHUB_ENV` only by another job.

## What it does
Reports a `${{ env.NAME }}` in a step of a workflow job (its `if:`, `with:`, `run:` or any other
field) where NAME is written to `$GITHUB_ENV` (`echo "NAME=..." >> "$GITHUB_ENV"`, a `NAME<<EOF`
block, `printf`, `tee -a`, a composite action of the repository) by steps of other jobs of the
workflow only, and nothing gives it a value in this job before the step: not the workflow's, the
job's or the step's `env:`, nor an earlier step of the job. So is a `$NAME` in the step's `run:`
script (bash or sh) that reads such a name: the first plain read of the script's top level (not
`${NAME:-default}`), before anything in the script assigns NAME, sources a file or loads names it
does not write out (`eval`, `export $(grep ... | xargs)`); not in a job that runs in a container
(its image and its `env:` may set the name), nor a name a hosted runner's image sets for its tools
(`JAVA_HOME`, `ANDROID_SDK_ROOT`, `CONDA`).

## Why is this bad?
A line written to `$GITHUB_ENV` sets the variable for the later steps of the job that wrote it:
each job runs on a runner of its own and starts from the workflow's and its own `env:`. In any
other job `env.NAME` is empty, so a test of it is decided (`if: ${{ env.FLAVOR == 'trt' }}`
skips the step on every run, and the job passes having run nothing) and a value built from it
loses that part. huggingface/text-generation-inference's C++ backend tests were skipped so.

## Example
```yaml path=.github/workflows/build.yml
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo "FLAVOR=trt" >> "$GITHUB_ENV"
  test:
    needs: build
    runs-on: ubuntu-latest
    steps:
      - if: ${{ env.FLAVOR == 'trt' }}
        run: ./run_tests.sh
```

## Use instead
Hand the value over as an output of the job that makes it:
```yaml path=.github/workflows/build.yml
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    outputs:
      flavor: ${{ steps.flavor.outputs.flavor }}
    steps:
      - id: flavor
        run: echo "flavor=trt" >> "$GITHUB_OUTPUT"
  test:
    needs: build
    runs-on: ubuntu-latest
    steps:
      - if: ${{ needs.build.outputs.flavor == 'trt' }}
        run: ./run_tests.sh
```

## Exceptions
Not reported where something before the step in the job may write names benchlint does not see:
a step that uses an action from outside the repository (an action may write `$GITHUB_ENV`), a
`run:` that writes a name not written plainly (`echo "$KEY=1" >> "$GITHUB_ENV"`) or runs a file
of the repository that names `GITHUB_ENV`; nor in a job whose `env:` is not a mapping (an
expression gives it). The `env` context holds only what the workflow sets: the runner's own
variables (`HOME`, `GITHUB_SHA`) are not in it, but names the runner sets (`GITHUB_*`, `RUNNER_*`)
are not reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from benchlint.context import Context
from benchlint.environment import is_builtin, set_by_image
from benchlint.finding import Finding, Location, Severity
from benchlint.lazyre import lazy_compile
from benchlint.registry import rule
from benchlint.shell.model import Read, Script
from benchlint.source import SourceText
from benchlint.workflow import (
    WORKFLOWS,
    env_file_writes,
    env_names,
    expressions_at,
    needs_items,
    runs_in_posix_shell,
    step_script,
    workflow_roots,
)
from benchlint.workspace import Workspace
from benchlint.yamlmodel import YNode, value_span

# `env.NAME` (or `env['NAME']`) in an expression (not `steps.x.env`, `github.env`)
_ENV_READ = lazy_compile(
    r"(?<![\w.])env(?:\.([A-Za-z_][A-Za-z0-9_-]*)|\[\s*'([A-Za-z_][A-Za-z0-9_-]*)'\s*\])"
)
# on a `run:` line that names GITHUB_ENV: a name a variable gives (`echo "$KEY=1"`, `${K}<<EOF`),
# and one written plainly (`NAME=`, `NAME<<`)
_DYNAMIC = lazy_compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?(?:=|<<)")
_PLAIN = lazy_compile(r"(?<![\w$\-/.{])[A-Za-z_][A-Za-z0-9_]*(?:=|<<)")
# a repository file a `run:` names (`./ci/env.sh`, `python3 tools/setup.py`)
_FILE = lazy_compile(r"(?<![\w$/.-])(?:\./)?([\w.-]+(?:/[\w.-]+)*\.(?:sh|bash|py))\b")
_GITHUB_ENV = lazy_compile(rb"GITHUB_ENV")


@rule("BL214", "env-file-other-job", Severity.ERROR, tags=("workflow", "correctness"))
def check(ctx: Context) -> Iterator[Finding]:
    paths = ctx.in_scope(ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS]))
    # (the writes may be a composite action's: the workflow need not name GITHUB_ENV, h111 M2;
    # the reads `$NAME` in a script: it need not name `env` either)
    for source, root in workflow_roots(ctx.ws, paths):
        jobs = root.get("jobs")
        if jobs is None or not jobs.is_map:
            continue
        workflow_env = env_names(root)
        if workflow_env is None:
            continue
        steps_of = {
            key.value: _steps(job) for key, job in jobs.pairs if key.is_scalar and job.is_map
        }
        # what each step writes (read once), and name -> (job, the step that writes it)
        writes = {id(s): env_file_writes(s, ctx.ws) for steps in steps_of.values() for s in steps}
        written: dict[str, list[tuple[str, YNode]]] = {}
        for job_name, steps in steps_of.items():
            for step in steps:
                for name in writes[id(step)]:
                    written.setdefault(name, []).append((job_name, step))
        for key, job in jobs.pairs:
            if not key.is_scalar or key.value not in steps_of:
                continue
            job_env = env_names(job)
            if job_env is None:
                continue
            given = workflow_env | job_env
            for step in steps_of[key.value]:
                yield from _reads(source, (key.value, job), jobs, step, given, written)
                if runs_in_posix_shell(root, job, step):
                    yield from _shell_reads(source, (key.value, job), jobs, step, given, written)
                if _hides_writes(step, ctx.ws):
                    break  # (what the job's later steps see is not known)
                given |= writes[id(step)]


def _reads(
    source: SourceText,
    reading: tuple[str, YNode],
    jobs: YNode,
    step: YNode,
    given: set[str],
    written: dict[str, list[tuple[str, YNode]]],
) -> Iterator[Finding]:
    job, job_node = reading
    own = env_names(step)
    if own is None:
        return
    for node, text, start in _expressions(step):
        for match in _ENV_READ.finditer(text):
            name = match.group(1) or match.group(2)
            writers = written.get(name, [])
            others = [(j, s) for j, s in writers if j != job]
            if not others or name in given or name in own or is_builtin(name):
                continue
            if any(s is step for _, s in writers):
                continue  # (this step writes it itself: BL210's, h113 W5)
            other, writer = others[0]
            line = _write_line(source, writer, name)
            # (this job writes it too, in a step after this one: h112 W1)
            later = next((s for j, s in writers if j == job), None)
            where = (
                f"in job `{other}` (line {line}) and, in job `{job}`, only after this step (line "
                f"{_write_line(source, later, name)}): each write sets it for the later steps of "
                "its own job"
                if later is not None
                else f"only in job `{other}` (line {line}), which sets it for that job's later "
                f"steps, not for job `{job}`"
            )
            yield Finding(
                "BL214",
                f"`{match.group(0)}` is empty here: {name} is written to $GITHUB_ENV {where}",
                Location(source.path, value_span(source, node, start + match.start())),
                related=(Location(source.path, writer.span, f"writes {name}"),),
                subject=f"{job}:{other}@{name}",
                help=_help(job_node, jobs, other, name),
            )


def _shell_reads(
    source: SourceText,
    reading: tuple[str, YNode],
    jobs: YNode,
    step: YNode,
    given: set[str],
    written: dict[str, list[tuple[str, YNode]]],
) -> Iterator[Finding]:
    """`$NAME` in a step's `run:` script where NAME is written to `$GITHUB_ENV` by other jobs
    only (h135 M5): the first plain read (not `${NAME:-d}`, which gives a value of its own) of
    the script's top level, before anything in it assigns NAME or sources a file (which may);
    the step's own `env:` and the names a container's image sets left out."""
    job, job_node = reading
    own = env_names(step)
    run = step.get("run")
    if own is None or run is None or not run.is_scalar or "$" not in run.value:
        return
    if job_node.get("container") is not None:
        return  # (its image's, its `env:` and `options: --env` may set the name: h141 F2)
    names = {
        name
        for name, writers in written.items()
        if any(j != job for j, _ in writers)
        and not any(s is step for _, s in writers)
        and name not in given
        and name not in own
        and not is_builtin(name)
        and not set_by_image(name)
        and not _RUNNER_PRESET.search(name)
    }
    if not names or not any(name in run.value for name in names):
        return
    found = step_script(source, run)
    if found is None:
        return
    script = found.script
    # (a file sourced, an `eval`, `export $(grep ... | xargs)`: may set any name; h141 F3)
    sourcing = [c.node.start_byte for c in script.commands if c.base in ("source", ".", "eval")]
    sourcing += [a.command.node.start_byte for a in script.assignments if a.kind == "dynamic"]
    for name in sorted(names):
        read = _first_plain_read(script, name)
        if read is None or any(at < read.node.start_byte for at in sourcing):
            continue
        writers = written[name]
        other, writer = next((j, s) for j, s in writers if j != job)
        if any(j == job for j, _ in writers):
            continue  # (this job writes it too: where it is read after is `_reads`'s shape)
        line = _write_line(source, writer, name)
        yield Finding(
            "BL214",
            f"`${name}` is empty here: {name} is written to $GITHUB_ENV only in job `{other}` "
            f"(line {line}), which sets it for that job's later steps, not for job `{job}`",
            Location(source.path, found.place(read.span)),
            related=(Location(source.path, writer.span, f"writes {name}"),),
            subject=f"{job}:{other}@{name}:shell",
            help=_help(job_node, jobs, other, name),
        )


# names a hosted runner's image sets for the tools it holds (`JAVA_HOME`, `ANDROID_SDK_ROOT`,
# `CONDA`, `GOROOT_1_22_X64`...): a shell reads the image's value there (h141 F4)
_RUNNER_PRESET = lazy_compile(
    r"_HOME(?:_\w+)?$|_ROOT$|^(?:JAVA|ANDROID|CONDA|GOROOT|VCPKG|DOTNET|POWERSHELL|CHROME|EDGE|"
    r"GECKO|SELENIUM|PIPX|HOMEBREW|NVM|RUNNER|AGENT|ImageOS|ImageVersion)"
)


def _first_plain_read(script: Script, name: str) -> Read | None:
    """The first `$NAME` (no default) of the script's top level, where nothing in it assigned
    NAME before."""
    assigned = [a.node.start_byte for a in script.assignments if a.name == name]
    reads = [
        r
        for c in script.commands
        if c.function is None
        for w in [
            *c.words,
            *(a.value for a in c.assignments if a.value),
            *(r.target for r in c.redirects),
        ]
        for r in w.reads()
        if r.name == name and r.operator == ""
    ]
    if not reads:
        return None
    first = min(reads, key=lambda r: r.node.start_byte)
    return None if any(at < first.node.start_byte for at in assigned) else first


def _help(job: YNode, jobs: YNode, other: str, name: str) -> str:
    """How to hand the value over: the output of the writing job that holds it already, where
    the reading job needs that job (`needs.build.outputs.label_extension` for LABEL_EXTENSION:
    h114 W2), else one to add."""
    writer = jobs.get(other)
    outputs = writer.get("outputs") if writer is not None and writer.is_map else None
    if other in {n.value for n in needs_items(job)}:
        for key, _ in outputs.pairs if outputs is not None and outputs.is_map else ():
            if key.is_scalar and str(key.value).lower() == name.lower():
                return (
                    f"read `needs.{other}.outputs.{key.value}`: `{other}` hands the value over "
                    "as that output already"
                )
    return (
        f"hand it over as an output of `{other}` (`$GITHUB_OUTPUT`, `outputs:`) and read "
        f"`needs.{other}.outputs.<name>`"
    )


def _expressions(step: YNode) -> Iterator[tuple[YNode, str, int]]:
    """The step's expressions (`expressions_at`), its `if:` without `${{ }}` as one (h111 M1)."""
    for node, text, start, _ in expressions_at(step):
        yield node, text, start
    condition = step.get("if")
    value = condition.value if condition is not None and condition.is_scalar else None
    if condition is not None and isinstance(value, str) and "${{" not in value:
        yield condition, value, 0


def _write_line(source: SourceText, step: YNode, name: str) -> int:
    """The line of the step's `run:` where it writes the name (`NAME=`, `NAME<<`), else the
    step's (a composite action's write)."""
    run = step.get("run")
    if run is not None and run.is_scalar and isinstance(run.value, str):
        found = re.search(rf"(?<![\w$\-/.{{]){re.escape(name)}(?:=|<<)", run.value)
        if found is not None:
            return value_span(source, run, found.start()).line
    return step.span.line


def _steps(job: YNode) -> list[YNode]:
    steps = job.get("steps")
    return [s for s in steps.items if s.is_map] if steps is not None and steps.is_seq else []


def _hides_writes(step: YNode, ws: Workspace) -> bool:
    """Whether the step may write to `$GITHUB_ENV` names benchlint does not see: it uses an
    action from outside the repository, writes a name not written plainly, or runs a file of the
    repository that names `GITHUB_ENV`."""
    uses = step.get("uses")
    if uses is not None:
        return not (uses.is_scalar and str(uses.value).startswith("./"))
    run = step.get("run")
    if run is None or not run.is_scalar or not isinstance(run.value, str):
        return False
    text = run.value
    for line in text.splitlines():
        # (a line that names it with no name written plainly: `cat vars >> "$GITHUB_ENV"`)
        if "GITHUB_ENV" in line and (_DYNAMIC.search(line) or not _PLAIN.search(line)):
            return True
    return any(ws.search(path, _GITHUB_ENV) for path in _FILE.findall(text))
