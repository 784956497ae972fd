"""A file benchlint was asked to read but could not read or parse.

## What it does
Reports a shell script or YAML file that cannot be read (permissions, a symlink loop, a symlink
that leaves the repository, binary content) or parsed (invalid YAML; shell that `bash -n`
rejects). A workflow's `run:` step that runs in bash is read too, each `${{ }}` expression a
word (a `run:` that is wholly `${{ matrix.task.run }}`: each script the matrix writes out for
it): a script bash rejects fails the step with status 2; so does one whose shell is `sh` on
GitHub's Ubuntu runners, where `sh` is dash, that `dash -n` rejects (bash-only syntax, `CONCS=(4
8)`). A reserved word where a command's
name stands (`FRAMEWORK=$( elif ...; fi )`, its `if` left out), which tree-sitter-bash reads as
a command, is asked of bash as any other stumble. Every other file is still linted. In a script
bash rejects, the other rules report only what comes before the statement bash cannot read (an
`if`, a function or a quote left open starts before the line bash names): bash runs the
statements before it, then exits with status 2, and nothing from there on ever runs. So does a
script a string or a heredoc gives a shell (`docker run IMAGE bash -c "..."`, `ssh host bash
<<EOF`), where bash rejects its text: the container or remote shell exits with status 2; and one
a container's command line gives a shell (a Kubernetes container's `command: ["/bin/bash",
"-c"]` with the script in `args` or a probe's, a Compose service's `bash -c` command or health
check, a SkyPilot task's `run:`), which then fails at every start, and a recipe's
`benchmark.command` of `type: custom`, which srtctl hands to `bash -lc` as it is: the benchmark
fails after the workers came up. Where bash names, in a
script file, a line after the fault (an `if` with no `fi` in a function, reported at the
function's `}`), the compound command tree-sitter-bash finds left open before it is named too
(not where bash stops at the very word that would close it: closers swapped). A script
whose lines end with `\\r\\n` (Windows line endings) is reported too, all or some of them: bash
reads the `\\r` as part of each such line's last word, and sbatch refuses such a batch script
(not where every shell file of the repository has them: a checkout git's `autocrlf` wrote so).
So is a recipe, a master config or the runners file that holds more than one YAML document (a
`---` after the first, even with nothing after it): srtctl and InferenceX's sweep tools load
them with PyYAML's `safe_load`, which refuses it (`expected a single document in the stream`).

## Why is this bad?
A file benchlint cannot read is a file no rule checked. A recipe with a YAML syntax error fails
when srtctl loads it, after the allocation was granted.

## Example
```yaml path=recipes/broken.yaml
backend:
  vllm_config: {prefill: [--tensor-parallel-size, 8}
```

## Use instead
```yaml path=recipes/broken.yaml
backend:
  vllm_config: {prefill: [--tensor-parallel-size, 8]}
```

## Exceptions
tree-sitter-bash does not parse a few valid constructs; shell is reported only when `bash -n` (which
reads a script without running any of it) rejects it too. A script a string or heredoc gives a shell
(`bash -c "..."`, a container's `-c`, `eval`, `ssh host bash <<EOF`) is reported where its text as
written, the outer shell's expansions kept as words, is what `bash -n` rejects (an `if` opened twice
and closed once); not one a variable's value gives (`bash -c "$CMD"`: which value runs is not always
known), nor one inside a file bash rejects, nor a workflow's `run:` step with an expression GitHub
cannot parse (BL208 reports it: GitHub refuses the workflow, and the text bash would read is not
known). A `.env` file is shell only where a script sources it
(`source ./settings.env`), and read only then. Templates are counted ("templates not linted") and
not reported: YAML in a Helm chart's `templates/`, YAML with Go or Jinja syntax or that fails just
after a line that is one placeholder (`${PULL_SECRETS_BLOCK}`, filled in by `envsubst`; `${indent(4,
yamlencode(labels))}`, by Terraform's `templatefile`) or at a `{name}` placeholder glued to more
text (`image: {username}/model:latest`, for `str.format` or the reader), a script bash rejects at a
fill-in placeholder (`partition=<partition>`; a string's or a container's script is counted so
too), a Jinja template file (`.j2`) of a script (its `#!`
line names a shell) or of YAML (`values.yaml.j2`), and a Terraform template file (`.tftpl`, `.tpl`)
of a script, or of YAML (by its name, or a line that starts a mapping's key; not a Helm helper's
`define`). A script whose `#!` line names zsh, ksh, fish or csh is another shell's (zsh's
`${(kv)map}` is not bash): counted ("scripts for another shell not linted") and not read by any
rule.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from benchlint.actions import embedded, parse_error
from benchlint.calls import call_graph
from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity, Span, Undecided
from benchlint.layout import srtctl_reads
from benchlint.lazyre import lazy_compile
from benchlint.manifests import (
    command_line,
    containers,
    healthcheck_scripts,
    may_hold_containers,
)
from benchlint.registry import rule
from benchlint.shell.model import Script, parse_tree, syntax_suspect
from benchlint.source import SourceText
from benchlint.workflow import (
    ACTIONS,
    WORKFLOWS,
    job_steps,
    runs_in_bash,
    step_runs,
    step_shell,
    step_text,
    workflow_roots,
)
from benchlint.workspace import bash_syntax_error, dash_syntax_error, placeholder_at
from benchlint.yamlmodel import YamlDocument, YNode, value_span


def _script_pass(ctx: Context, script: Script) -> Iterator[Finding]:
    """A script a string or a heredoc gives a shell (`bash -c "..."`, a container's `-c`, `eval`,
    `ssh host bash <<EOF`) as written, that `bash -n` rejects (asked only where tree-sitter
    stumbles): the shell runs the commands before the statement it cannot read, then exits with
    status 2 (h91 O2: an `if` opened twice and closed once, in a `docker run ... -c` string).
    The file's own failure is recorded where the run models it (`Workspace.failures`, reported
    below)."""
    crlf = script.parent is None and script.contiguous and b"\r\n" in script.src
    if crlf and _apart_from_checkout(ctx, script):
        yield _windows_lines(script)
    if script.path in ctx.ws.failures:
        return
    for item in _nested_rejected(script):
        if isinstance(item, Undecided):
            ctx.count(item.what, item.where)
        else:
            yield item


def _nested_rejected(script: Script) -> Iterator[Finding | Undecided]:
    """The scripts nested in `script` as written that `bash -n` rejects; counted where bash
    stops at a value to fill in (`export HF_TOKEN=<YOUR_TOKEN_HERE>`: a template, as a script
    file with one is; h130 W1)."""
    for nested in script.walk():
        if nested is script or not nested.verbatim or not nested.has_error:
            continue
        parent = nested.parent
        assert parent is not None
        if parent.invocation.base in _OTHER_SHELLS or b"{{" in nested.src:
            # (another shell's script, `zsh -c 'for f (a b) ...'` (h101 F2); a template's
            # placeholder, Argo's `{{=expr}}` or Helm's, filled in before it runs: h101 F3)
            continue
        problem = bash_syntax_error(nested.src)
        if problem is None:
            continue
        line, message = problem
        lines = nested.src.split(b"\n")
        line = min(max(line, 1), len(lines))
        if placeholder_at(SourceText(script.path, nested.src), line):
            where = parent.first_line_span
            yield Undecided(_FILL_IN, Location(script.path, where))
            continue
        if _AT_END in message:  # (bash names the end: the script's start is where to look)
            line = next((i + 1 for i, t in enumerate(lines) if t.strip()), 1)
            message += ": a compound command or a quote it opens is never closed"
        text = lines[line - 1]
        at = sum(len(t) + 1 for t in lines[: line - 1]) + len(text) - len(text.lstrip())
        place = nested.char_of(min(at, max(len(nested.src) - 1, 0)))
        runs = parent.first_line_span
        # (a script of one line: bash reads the whole line before it runs any of it; h101 W1)
        one_line = b"\n" not in nested.src.strip()
        shell = "shell" if parent.invocation.base in ("sh", "dash") else "bash"
        yield Finding(
            "BL001",
            f"the script line {runs.line} gives a shell is not valid {shell} ({message}): that "
            + (
                "shell runs none of it and exits with status 2"
                if one_line
                else "shell runs the commands before the statement it cannot read, then exits "
                "with status 2"
            ),
            Location(script.path, script.file.span(place, place + 1)),
            related=(Location(script.path, runs, "runs it"),),
            subject=f"nested:{message}",
        )


def _container_scripts(document: YamlDocument) -> list[Finding | Undecided]:
    """The rule's document pass: a script a Kubernetes container's `command` and `args`, a
    Compose service's command or a SkyPilot task's `run:` gives a shell (`["/bin/bash", "-c"]`
    with the script in `args`), where `bash -n` rejects it: the container's shell exits with
    status 2 at every start (h98 M2)."""
    source = document.file
    text = source.text
    if not (may_hold_containers(text) or "healthcheck" in text) or not _SHELL_OPTION_C.search(text):
        return []
    found: list[Finding | Undecided] = []
    for container in containers(source, document):
        found += _nested_rejected(container.script)
    for script in healthcheck_scripts(source, document):
        found += _nested_rejected(script)
    return found


# a shell's `-c` option, alone or among others (`-c`, `-lc`, `-ec`, `-xc`), a SkyPilot task's
# `run:` (a script its bash runs), a Compose health check's test
_SHELL_OPTION_C = lazy_compile(r"(?<![\w-])-[A-Za-z]*c\b|^run[ \t]*:|healthcheck", re.M)


_AT_END = "unexpected end of file"
_FILL_IN = (
    "scripts a string or a container's command line gives a shell, that stop at a value to fill "
    "in (`<YOUR_TOKEN>`), not reported (BL001: templates, as a script file with one is)"
)
# shells whose scripts are not bash's (as a file whose `#!` line names one is not read)
_OTHER_SHELLS = frozenset({"zsh", "ksh", "mksh", "ksh93", "fish", "csh", "tcsh"})


def _recipe_command(document: YamlDocument) -> Iterator[Finding]:
    """A recipe's `benchmark.command` of `type: custom`, which srtctl hands to `bash -lc` as it
    is (srt-slurm's `benchmarks/custom.py`), where bash rejects it (h138 M1)."""
    root = document.root
    benchmark = root.get("benchmark") if root is not None and root.is_map else None
    if benchmark is None or not benchmark.is_map:
        return
    kind, command = benchmark.get("type"), benchmark.get("command")
    if kind is None or not kind.is_scalar or kind.value != "custom":
        return
    if command is None or not command.is_scalar or not command.value.strip():
        return
    script = command_line(document.file, [command], ("bash", "-lc"), command, dollars=False)
    for item in _nested_rejected(script):
        if isinstance(item, Finding):
            yield item


def _single_document_files(ctx: Context, recipes: set[str]) -> dict[str, str]:
    """The files their readers load with PyYAML's `safe_load`, one document each: recipes
    (srtctl's `load_config`), master configs and the runners file (InferenceX's sweep tools,
    `utils/matrix_logic`), with what reads each."""
    ws = ctx.ws
    readers = {
        path: "srtctl reads a recipe" if srtctl_reads(path) else "its reader loads it"
        for path in recipes
    }  # (InferenceX's llm-d recipes: its llm-d scripts' safe_load; h140 W4)
    if ctx.wiring.entries:
        readers.update(dict.fromkeys(ws.glob(ws.layout.master_configs), "the sweep tools read it"))
        readers[ws.layout.runners_file] = "the sweep tools read the runners file"
    return readers


def _documents(document: YamlDocument, reader: str) -> Finding:
    """A file of more than one YAML document its reader loads with `safe_load`, which refuses
    it (`expected a single document in the stream`; h128 M11): at the second one's `---`."""
    source = document.file
    first = document.documents[0].span.line
    line = next(
        (n for n in range(first + 1, source.line_count + 1) if _MARKER.match(source.line_text(n))),
        first,
    )
    return Finding(
        "BL001",
        f"{document.path} holds {len(document.documents)} YAML documents (the second starts "
        f"at line {line}): {reader} with PyYAML's `safe_load`, which refuses more than one "
        "(`expected a single document in the stream`)",
        Location(document.path, Span(line, 1, line, 4)),
        subject="documents",
        help="remove the `---` and what follows it, or move it to a file of its own",
    )


_MARKER = lazy_compile(r"---(?:[ \t]|$)")


def _apart_from_checkout(ctx: Context, script: Script) -> bool:
    """Whether a script's `\r\n` endings are its own, not the checkout's (git's `autocrlf` on
    Windows writes every text file so): some of its lines end with `\n` alone, or another shell
    file of the repository has none."""
    src = script.src
    if src.count(b"\n") != src.count(b"\r\n"):
        return True
    memo = ctx.ws.models.setdefault("unix-line-endings", {})
    assert isinstance(memo, dict)
    if "any" not in memo:
        memo["any"] = any(
            (source := ctx.ws.source(path)) is not None
            and "\n" in source.text
            and "\r\n" not in source.text
            for path in ctx.ws.shell_paths
        )
    return bool(memo["any"])


def _windows_lines(script: Script) -> Finding:
    """A script whose lines end with `\r\n` (h89 M2): bash reads the `\r` as the last
    character of each such line's last word, and sbatch refuses a batch script with them."""
    src = script.src
    first = src.index(b"\r\n")
    lines = src.count(b"\n")
    ending = src.count(b"\r\n")
    place = script.char_of(first)
    return Finding(
        "BL001",
        f"{script.path} ends {ending} of its {lines} lines with `\\r\\n` (Windows line "
        "endings): bash reads the `\\r` as part of each such line's last word (`then\\r` is "
        "no `then`; `$'\\r': command not found`)"
        + (", and sbatch refuses the batch script" if b"#SBATCH" in src else ""),
        Location(script.path, script.file.span(place, place + 1)),
        help="convert the file to `\\n` line endings (`dos2unix`, or `sed -i 's/\\r$//'`)",
        subject="crlf",
    )


@rule(
    "BL001",
    "parse-failure",
    Severity.ERROR,
    tags=("reliability",),
    precision="very-high",
    script_pass=_script_pass,
    document_pass=_container_scripts,
)
def check(ctx: Context) -> Iterator[Finding]:
    ws = ctx.ws
    recipes = set(ws.recipe_paths)
    single = _single_document_files(ctx, recipes)
    for path in ctx.in_scope(ws.yaml_paths):
        document = ws.yaml(path, keep=False)  # (a large one no later rule keeps is let go)
        if path in single and document is not None and len(document.documents) > 1:
            yield _documents(document, single[path])
        if path not in recipes:
            yield from ctx.document_pass("BL001", path, _container_scripts)
        elif document is not None:
            yield from _recipe_command(document)
    sourced = ctx.in_scope(ws.sourced_only)
    if sourced:  # (a `.env` file is shell only where a script sources it)
        graph = call_graph(ws)
        for path in sourced:
            if graph.is_sourced(path):
                ws.shell(path)
    for failure in ws.failures.values():
        related: tuple[Location, ...] = ()
        help_ = ""
        if failure.opened is not None:  # (where the fault is: bash names where it gave up)
            span, opener, closer = failure.opened
            related = (Location(failure.path, span, f"`{opener}` with no `{closer}`"),)
            help_ = f"close the `{opener}` of line {span.line} with `{closer}`"
        yield Finding(
            "BL001",
            f"{failure.path} {failure.message}",
            Location(failure.path, failure.span),
            subject=failure.message,
            related=related,
            help=help_,
        )
    paths = ctx.in_scope(ws.glob([*ws.layout.workflows, *WORKFLOWS]))
    for source, root in workflow_roots(ws, paths, "run"):
        yield from _run_steps(source, root)
        if "sh" in source.text:
            yield from _sh_steps(source, root)
    for source, root in workflow_roots(ws, ctx.in_scope(ws.glob(list(ACTIONS))), "bash"):
        runs = root.get("runs")
        steps = runs.get("steps") if runs is not None and runs.is_map else None
        for step in steps.items if steps is not None and steps.is_seq else ():
            shell = step.get("shell") if step.is_map else None  # (a composite's steps name it)
            run = step.get("run") if step.is_map else None
            if shell is not None and shell.is_scalar and _bash(shell.value) and run is not None:
                yield from _rejected(source, run)


def _run_steps(source: SourceText, root: YNode) -> Iterator[Finding]:
    """A `run:` step that runs in bash whose script bash rejects (`bash -n`, asked only where
    tree-sitter stumbles), each expression a word: the runner's bash runs the commands before
    the statement it cannot read, then the step fails with status 2. (A composite action's
    steps too, where their `shell:` is bash.)"""
    for _, job, steps in job_steps(root):
        for step in steps:
            for run in step_runs(job, step) if runs_in_bash(root, job, step) else ():
                yield from _rejected(source, run)


def _refused(value: str) -> bool:
    """Whether an expression of the value is one GitHub's parser rejects."""
    pieces = embedded(value) if "${{" in value else ()
    return any(piece.closed and parse_error(piece.text) is not None for piece in pieces)


def _bash(shell: object) -> bool:
    words = shell.split() if isinstance(shell, str) else []
    return bool(words) and posixpath.basename(words[0]) == "bash"


def _rejected(source: SourceText, run: YNode) -> Iterator[Finding]:
    """A step's `run:` script (`step_runs`), where bash rejects it; not where GitHub refuses
    the workflow for an expression in it (BL208's: no step runs, and the text bash would read
    is not known: h129 W1)."""
    if run.is_scalar and run.value and not _refused(run.value):
        text = step_text(run).encode()
        problem = bash_syntax_error(text) if syntax_suspect(parse_tree(text)) else None
        if problem is not None:
            line, at = _step_line(run, text, problem[0])
            yield Finding(
                "BL001",
                f"this step's `run:` script is not valid bash (its line {line}: {problem[1]}): "
                "the runner's bash runs the commands before that statement, then the step "
                "fails with status 2",
                Location(source.path, value_span(source, run, at)),
                subject=f"run:{problem[1]}",
            )


def _step_line(run: YNode, text: bytes, line: int) -> tuple[int, int]:
    """The step's own line of a line a shell names in its script, and where its text starts."""
    lines = text.decode().split("\n")  # (an expression is as long as it was)
    line = min(max(line, 1), len(lines))
    before = sum(len(t) + 1 for t in lines[: line - 1])
    at = before + len(lines[line - 1]) - len(lines[line - 1].lstrip())
    return run.value.count("\n", 0, at) + 1, at


def _sh_steps(source: SourceText, root: YNode) -> Iterator[Finding]:
    """A `run:` step whose shell is `sh` on GitHub's Ubuntu runners, where `sh` is dash, whose
    script dash rejects (bash-only syntax, `CONCS=(4 8)`: h135 M11); not in a job's container
    (its own `sh`), nor on another runner (macOS's `sh` is bash)."""
    for _, job, steps in job_steps(root):
        runs_on = job.get("runs-on")
        label = runs_on.value if runs_on is not None and runs_on.is_scalar else ""
        if not label.startswith("ubuntu-") or job.get("container") is not None:
            continue
        for step in steps:
            run = step.get("run")
            if run is None or not run.is_scalar or not run.value or _refused(run.value):
                continue
            if step_shell(root, job, step) != "sh":
                continue
            text = step_text(run).encode()
            problem = dash_syntax_error(text)
            if problem is None:
                continue
            line, at = _step_line(run, text, problem[0])
            yield Finding(
                "BL001",
                f"this step's `run:` script is not valid for `sh`, which is dash on GitHub's "
                f"Ubuntu runners (its line {line}: {problem[1]}): the step fails with status 2 "
                "before it runs anything",
                Location(source.path, value_span(source, run, at)),
                subject=f"run-sh:{problem[1]}",
                help="write it for POSIX sh, or give the step `shell: bash`",
            )
