"""An option srun, sbatch or salloc rejects: no Slurm release has it, or it is ambiguous.

## What it does
Reads the options of every `srun`, `sbatch` and `salloc` command line (also behind wrappers, in
`bash -c` strings, in argument arrays that hold one, `launch=(srun ...)`, and in the `run:`
steps of workflows that run in bash or sh) and the `SBATCH` directive lines of batch scripts
(also of a heredoc `sbatch <<EOF` reads as its script, after the shell expanded what an unquoted
delimiter lets it) as the commands read them (glibc's `getopt_long`: options end at the first
operand or `--`, a long option may be shortened to a prefix of one option only, a required value
is the next word or after `=`), against the options each
Slurm release from 20.11 to 26.05 defines (`src/common/slurm_opt.c`) and those of the pyxis
SPANK plugin (`--container-image`...); and the keys of srtctl recipes' `sbatch_directives` and
`srun_options` (`cpus-per-tasks: "144"`), as the `--KEY=VALUE` options srtctl writes for them.
Reports a word every release rejects:

- a long option that no release has and that is spelled like one (`--timeout` for `--time`,
  `----ntasks-per-node` with four dashes, `--ntask-per-node`, `--mem-4G` for `--mem=4G`);
- a short option no release has (`-z`);
- a prefix of several options (`--ntasks-per`: `--ntasks-per-node`, `--ntasks-per-gpu`...);
- a value given with `=` to an option that takes none (`--label=1`);
- a short option written with `=` (`-N=2`, `-A=acct`): its value is the rest of the word, the `=`
  with it, which srun and sbatch reject for a number, a time or a distribution (`-N`, `-n`, `-c`,
  `-t`, `-m`), and the controller for a partition, an account or a QOS (`-p`, `-A`, `-q`) that
  sbatch or salloc asks for (not srun's: inside an allocation its job step asks for none of them);
  a name or a file given so (`-J=x`, `-o=x.log`) is taken as written, not reported;
- in `#SBATCH` lines, a word that is no option (`#SBATCH time=10`), and a variable in an
  option's value (`#SBATCH --nodes=$NUM_NODES`): sbatch expands none there, and reads the line
  even where its command line gives the option (`sbatch --nodes=2 job.sh` still stops at the
  directive's `$NUM_NODES`: the line must go); in the job's name or comment (`--job-name`, `-J`,
  `--comment`), where the job still runs under that text, a warning. An option whose value sbatch
  keeps as text, checking nothing (`--partition`, `--account`, `--qos`: its set function in each
  release's `slurm_opt.c` is an `xstrdup`), is replaced by the same option on sbatch's command
  line, or by its environment variable (`SBATCH_PARTITION`, `SBATCH_ACCOUNT`: `env_vars[]` of
  each release's `sbatch/opt.c`), both read after the directives: not reported where every
  `sbatch` in the repository that submits the script (or reads it from a heredoc) gives the
  option, or runs with the variable (exported before it, set on its command line or by `env`);
  counted where one may (the variable exported under a condition, a script that sources a file
  benchlint cannot resolve, a caller of the submitting script or a workflow step that runs it
  and may set the variable, a composite action's step too, with its callers' `env:`), and
  where a script to fill in (`partition=<partition>`: not linted) has an `sbatch` line that
  names it;
- in a batch script with `#SBATCH` lines before its first command, one after it (`set -ex`
  above `#SBATCH --ntasks-per-core=1`), in a loop, an `if` or a function body too: sbatch reads
  no directive past the first line that is neither blank nor a comment, so the job runs without
  that option (a warning; not the lines of a heredoc or a string a command writes out, a
  commented-out `#SLURM_ARRAY_TASK_ID=7`, a script sbatch refuses whole: no `#!` line, DOS line
  ends); and an `#SBATCH` line before it that starts with blanks, which sbatch takes for a
  comment (it matches the word at the line's start).

## Why is this bad?
The command stops at once with `unrecognized option`, `option is ambiguous` or `Invalid
directive found in batch script`, before it allocates or submits anything: the job a launcher
meant to start never starts, often after a long wait in the queue for the allocation around it.
InferenceX fixed an `srun --timeout=30` in a multi-node job script and a four-dash
`----ntasks-per-node=1` in a launcher, each found only when a run failed.

## Example
```bash path=runners/launch_mi355x-amd.sh
srun --jobid="$JOB_ID" --timeout=30 ----ntasks-per-node=1 bash benchmarks/run.sh
```

## Use instead
```bash path=runners/launch_mi355x-amd.sh
srun --jobid="$JOB_ID" --time=30 --ntasks-per-node=1 bash benchmarks/run.sh
```

## Exceptions
A SPANK plugin the cluster loads adds long options of its own, and which plugins a cluster has
is not known: a long option no release has and that is spelled like none of them is not
reported (every report counts them), nor is what follows it (it may take the next word as its
value: Shifter's `--image docker:...`). An option some release accepts is not reported either
(which release the cluster runs is not known), nor anything after a word whose value is not
known where an option could be (`srun $SRUN_ARGS ...` where the script gives SRUN_ARGS no
value, or more than one; nor anything after a word bash makes several of, `-w node{1..4}`).
A variable the script assigns once before the command, and never appends to, is read as what
it holds, the finding in the assignment: a string run unquoted as bash splits it (`srun
$SRUN_ARGS`), an array's items (`srun "${SRUN_ARGS[@]}"`). A word whose option name is written
out and whose value is not (`--jobid=$JOB_ID`, `-N"$NODES"`) is read. An `SBATCH` line with a
value to fill in (`-A <project id>`, `-p { partition }`: a template to copy) ends what is read
of its job's lines.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from benchlint import slurm
from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity, Span, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import rule
from benchlint.shell.held import once_before
from benchlint.shell.invocation import Wrapper, resolve_words
from benchlint.shell.model import Assignment, Command, Script, Word, heredoc_reader
from benchlint.source import SourceText
from benchlint.workflow import (
    ACTIONS,
    WORKFLOWS,
    checkout_path,
    env_file_writes,
    job_steps,
    runs_in_posix_shell,
    step_folder,
    step_runs,
    step_script,
    workflow_roots,
)
from benchlint.yamlmodel import YNode

# (plain substrings: a regular expression takes 0.1 s over a 2.5 MB installer script)
_MAY = ("srun", "sbatch", "salloc", "#SBATCH", "#SLURM")
_SPANK = (
    "srun, sbatch and salloc options neither Slurm nor pyxis has, not reported (BL115: a SPANK "
    "plugin of the cluster may add them)"
)
_NONE = SourceText("", b"")
_RELEASES = f"Slurm {slurm.releases()[0]} to {slurm.releases()[-1]}"


def _script_pass(ctx: Context, script: Script) -> Iterator[Finding]:
    text = script.file.text
    if not any(word in text for word in _MAY):
        return
    yield from _directives(ctx, script)
    yield from _unread_directives(script)
    yield from _fed_directives(ctx, script)
    for command, name, problem, span in _command_lines(script):
        yield from _report(ctx, name, problem, command.script.path, span)


@rule(
    "BL115",
    "unknown-slurm-option",
    Severity.ERROR,
    tags=("shell", "slurm"),
    script_pass=_script_pass,
)
def check(ctx: Context) -> Iterator[Finding]:
    for path in ctx.in_scope(ctx.ws.yaml_paths):
        source = ctx.ws.source(path)
        if source is not None and any(key in source.text for key in _RECIPE_KEYS):
            yield from _recipe_options(ctx, path)
    paths = [
        path
        for path in ctx.in_scope(ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS]))
        if any(word in (ctx.ws.source(path) or _NONE).text for word in _MAY[:3])
    ]
    for source, root in workflow_roots(ctx.ws, paths):
        jobs = root.get("jobs")
        for _, job in jobs.pairs if jobs is not None and jobs.is_map else ():
            steps = job.get("steps") if job.is_map else None
            for step in steps.items if steps is not None and steps.is_seq else ():
                runs = [r for r in step_runs(job, step) if any(w in r.value for w in _MAY[:3])]
                for run in runs if runs and runs_in_posix_shell(root, job, step) else ():
                    yield from _run_step(ctx, source, run)


def _command_lines(script: Script) -> Iterator[tuple[Command, str, slurm.Problem, Span]]:
    """The problems of the srun, sbatch and salloc command lines of a script: each command's
    (behind its wrappers, in nested scripts) and each argument array's that holds one."""
    lines = [(c, c.invocation, c.words) for c in script.all_commands()]
    # argument arrays that hold a command line (`SRUN=(srun --nodes=1 ...)`, run later)
    for assignment in (a for inner in script.walk() for a in inner.assignments):
        items = assignment.value.items if assignment.value is not None else None
        if items and items[0].static and items[0].value in slurm.COMMANDS:
            invocation = resolve_words(assignment.command, tuple(items))
            lines.append((assignment.command, invocation, items))
    for command, invocation, all_words in lines:
        for wrapper in invocation.wrappers:
            if wrapper.name not in slurm.COMMANDS:
                continue
            first = wrapper.words[0]
            start = next((i for i, w in enumerate(all_words) if w is first), None)
            if start is None:
                continue
            read = [p for w in all_words[start + 1 :] for p in _in_place(wrapper.name, command, w)]
            texts = [text for text, _ in read]
            for problem in slurm.problems(wrapper.name, texts):
                yield command, wrapper.name, problem, read[problem.index][1]


def _in_place(name: str, command: Command, word: Word) -> list[tuple[str | None, Span]]:
    """The word as the options reader needs it (`_option_text`), with its place; a variable's
    whole value assigned once before the command (`once_before`) as the words it holds, each
    at its place in the assignment: an array's items (`"${SRUN_ARGS[@]}"`), or a string run
    unquoted as bash splits it (`$SRUN_ARGS`)."""
    array = _ARRAY.fullmatch(word.value) if not word.static else None
    variable = array.group(1) if array else word.unquoted_variable()
    given = once_before(command, variable) if variable is not None else None
    if given is not None and array is not None and given.items is not None:
        return [(_option_text(name, item), item.span) for item in given.items]
    if given is not None and array is None and given.items is None:
        return [(_piece_text(name, piece), span) for piece, span in given.pieces()]
    return [(_option_text(name, word), word.span)]


_ARRAY = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\[@\]\}")


def _piece_text(command: str, piece: str) -> str | None:
    """A piece of a string's value (`_in_place`) as `_option_text` reads a word: an expansion
    in it stands for one word, its option read where written out before it (`--time=$T`)."""
    cut = min((i for i in (piece.find("$"), piece.find("`")) if i >= 0), default=-1)
    if cut < 0:
        return piece
    head = piece[:cut]
    if head.startswith("--") and "=" in head:
        return head.split("=", 1)[0] + "=0"
    if len(head) == 2 and head[0] == "-" and slurm.short_takes_value(command, head[1]):
        return head + "0"
    return slurm.ONE


def _run_step(ctx: Context, source: SourceText, run: YNode) -> Iterator[Finding]:
    """A workflow step's `run:` script (its `${{ }}` expressions stand for a word each)."""
    found = step_script(source, run)
    if found is None:
        return
    for _, name, problem, span in _command_lines(found.script):
        # (in the step's text: a nested `bash -c` string's word too)
        yield from _report(ctx, name, problem, source.path, found.place(span))


# srtctl's keys whose mapping becomes options: `#SBATCH --KEY=VALUE` lines of the job script
# (`--KEY` for an empty value), `srun --KEY=VALUE` on each of its steps
_RECIPE_KEYS = {
    "sbatch_directives": "sbatch",
    "default_sbatch_directives": "sbatch",
    "srun_options": "srun",
}


def _recipe_options(ctx: Context, path: str) -> Iterator[Finding]:
    """The keys of an srtctl recipe's `sbatch_directives` and `srun_options` (and a cluster
    configuration's `default_sbatch_directives`), as the options srtctl writes for them."""
    document = ctx.ws.yaml(path)
    if document is None:
        return
    if not document.may_hold(*_RECIPE_KEYS):
        return
    for node in document.walk():
        if not node.is_map:
            continue
        for key, value in node.live_pairs():
            command = _RECIPE_KEYS.get(key.value) if key.is_scalar else None
            if command is None or not value.is_map:
                continue
            for option, given in value.live_pairs():
                if not option.is_scalar or not isinstance(option.scalar, str):
                    continue
                # srtctl writes `--KEY=VALUE`, `--KEY` for an empty string; what it makes of a
                # value that is no string (`true`, `4`, none) is not known: only the name is read
                text = given.scalar if given.is_scalar else None
                string = isinstance(text, str)
                if not string:
                    word = f"--{option.value}=0"  # (a stand-in value)
                else:
                    word = f"--{option.value}={text}" if text else f"--{option.value}"
                for problem in slurm.problems(command, [word]):
                    unknown = problem.kind == "no-value" and not string
                    if problem.kind == "missing-value" or unknown:
                        continue  # (a value alone: the next line's option would be its value)
                    context = f"srtctl writes `{clip(word, 40)}` for `{key.value}`: "
                    if not string:
                        context = f"`{key.value}` gives `{clip(option.value, 40)}`: "
                    yield from _report(ctx, command, problem, path, option.span, context)


def _option_text(command: str, word: Word) -> str | None:
    """The word as the options reader needs it: its text, or for a word whose value is not
    known, its option with a stand-in value (`--jobid=$JOB`: `--jobid=0`; `-N$N`: `-N0`);
    `slurm.ONE` for a word whose text is not known (`"$NODES"`; a variable's value is taken to
    be one word, as everywhere in the model), None where bash makes several words of it
    (`-w node{1..4}`: what follows is not where the reader would take it)."""
    if word.brace_expands:
        return None
    known = word.option_form
    if known is not None:
        return known
    head = word.literal_prefix
    if len(head) == 2 and head[0] == "-" and slurm.short_takes_value(command, head[1]):
        return head + "0"
    return slurm.ONE


# the nodes of commands whose text is their words (not a loop's or a group's, which hold
# comment lines of their own)
_SIMPLE = frozenset({"command", "declaration_command", "unset_command", "test_command"})


def _unread_directives(script: Script) -> Iterator[Finding]:
    """An `#SBATCH` line before a batch script's first command that starts with blanks (h89
    M3: sbatch takes it for a comment); one after the first command of a batch script that has
    some before it
    (not one in a heredoc or a string a command writes out): sbatch reads no directive past
    that command, so the option is not applied (h88 M1: `set -ex` above `#SBATCH
    --ntasks-per-core=1`). Not in a file with no directive before its first command (a
    library it sources, a script bash runs), one sbatch refuses whole (no `#!` line, DOS line
    ends: said apart), or a template whose first line to fill in is no command (h89)."""
    if script.top is not script:
        return
    source = script.file
    text = source.text
    if not text.startswith("#!") or "\r\n" in text:
        return  # (sbatch refuses the whole script: said apart)
    first_command, indented, late = slurm.unread_directives(text)
    for number, start, end in indented:  # (h89 M3)
        shown = clip(source.line_text(number).strip(), 50)
        yield Finding(
            "BL115",
            f"`{shown}` is indented: sbatch reads a `{shown.split(None, 1)[0]}` line only where "
            "it starts the line, and takes this one for a comment, so the job runs without "
            "this option",
            Location(script.path, source.span(start, end)),
            subject=shown,
            severity=Severity.WARNING,
            help="remove the blanks before it",
        )
    if first_command is None or not late or not any(words for words in slurm.directives(text)):
        return
    first, first_start, first_end = first_command
    if "{{" in text[first_start:first_end]:
        return  # (a template's line to fill in: not known to be a command)
    char_of = script.char_of
    inside = [
        (char_of(syn.start_byte), char_of(syn.end_byte))
        for c in script.commands
        for syn in (
            *((c.node,) if c.node.type in _SIMPLE else ()),  # (a here-string's text too)
            *(h.body for h in c.heredocs if h.body is not None),
        )
    ] + [
        (char_of(a.value.node.start_byte), char_of(a.value.node.end_byte))
        for a in script.assignments
        if a.value is not None
    ]
    for number, start, end in late:
        if any(low <= start < high for low, high in inside):
            continue  # (a line of a heredoc or a string: what a command writes, not a comment)
        shown = clip(source.line_text(number).strip(), 50)
        magic = shown.split(None, 1)[0]
        yield Finding(
            "BL115",
            f"`{shown}` comes after the script's first command (line {first}): sbatch reads no "
            f"`{magic}` line past it, so the job runs without this option",
            Location(script.path, source.span(start, end)),
            related=(Location(script.path, source.span(first_start, first_end), "first command"),),
            subject=shown,
            severity=Severity.WARNING,
            help=f"move it above line {first}, with the other `#SBATCH` lines",
        )


def _directives(ctx: Context, script: Script) -> Iterator[Finding]:
    """The `#SBATCH` lines of a batch script (a script with none has no words here)."""
    if script.top is not script:
        return
    source = script.file
    filled: bool | None = None  # (whether a script fills this one in: asked once, on need)
    submissions: list[_Submission] | None = None  # (the repository's `sbatch` of it: on need)
    for words in slurm.directives(source.text):
        yield from _directive_problems(ctx, script.path, words, source.span)
        for option, word, variable, start, end in _variables(words, source.text):
            if filled is None:
                filled = _filled_in(ctx, script.path)
            text = _keeps_text(option)  # (the command line's option replaces it)
            if text and submissions is None:
                submissions = _submissions(ctx, script.path)
            replaced = _replaced(option, submissions or []) if text else False
            if filled or replaced:
                continue
            at = source.span(start, end)
            if text and _templates_submitting(ctx, script.path):
                ctx.count(_TEMPLATE, Location(script.path, at))
            elif replaced is None:
                ctx.count(_ENVIRONMENT, Location(script.path, at))
            else:
                help_ = (
                    f"drop the line and give it on sbatch's command line (`sbatch {option}=...`), "
                    "where the shell expands it (left in, the line is still read: a number or a "
                    "time sbatch cannot read stops it even with the option on its command line)"
                )
                yield _variable_finding(script.path, option, word, variable, at, help_)


def _keeps_text(option: str) -> bool:
    name = slurm.option_name("sbatch", option)
    return name is not None and slurm.keeps_text("sbatch", name)


@dataclass(frozen=True)
class _Submission:
    """An `sbatch` that submits a batch script: its command line, and the environment
    variables it surely runs with (`SBATCH_PARTITION`), and those it may."""

    wrapper: Wrapper
    surely: frozenset[str]
    maybe: frozenset[str]
    unknown: bool  # (the script may have set any: an `eval`, a file it sources not known)


def _submissions(ctx: Context, path: str) -> list[_Submission]:
    """The `sbatch` command lines of the repository's scripts that submit the batch script."""
    found = []
    for call in ctx.environment.calls.callers_of(path):
        wrappers = call.command.invocation.wrappers
        if wrappers and wrappers[-1].name == "sbatch":
            found.append(_submission(ctx, call.caller.top, call.command, wrappers[-1]))
    return found


def _submission(ctx: Context, top: Script, command: Command, wrapper: Wrapper) -> _Submission:
    """The sbatch's environment: surely, what its script exported with a value before it, in
    its own shell and under no condition, what its command line assigns (`SBATCH_PARTITION=gpu
    sbatch job.sh`) and what a plain `env` before it sets (not sbatch's `--export`, the job's);
    maybe, what it exported under a condition or in a function, and what the scripts that start
    it pass it. A wrapper before sbatch that may drop the environment (`env -i`, ssh, sudo),
    or a script that may have set anything: not known."""
    environment = ctx.environment
    state = environment.state_before(top, command.file_offset)
    surely: set[str] = set()
    maybe: set[str] = set()
    for name, provenance in state.exported.items():
        at = provenance.at
        if isinstance(at, Assignment):
            made = at.command
            if made.apart_from_script and not command.in_its_shell(made.node.start_byte):
                continue  # (`( export X=1 )`, a pipeline's element: another shell's)
            if name not in state.assigned:
                continue  # (`export X` with no value: what reached the script, as without it)
            if made.guards or made.function is not None:
                maybe.add(name)  # (under a condition, or a function's)
                continue
        surely.add(name)
    surely |= {a.name for a in command.assignments}
    unknown = state.unknown is not None
    for before in command.invocation.wrappers:
        if before is wrapper:
            break
        settings = before.words[1:]
        if before.name != "env" or any(w.value.startswith("-") for w in settings):
            unknown = True  # (`env -i`, `ssh host`, `sudo`, `srun --export=NONE`: not read)
            continue
        for setting in settings:
            name, equals, _ = setting.value.partition("=")
            if equals and name.isidentifier():
                surely.add(name)
    # (what reaches the submitting script from the scripts that start it, and from the
    # workflow steps that run it: the start paths of a script that is no launcher leave those
    # out)
    for start in environment.routes(top.path):
        maybe.update(n for n in start.env if n.startswith(_SLURM_NAMES))
    maybe |= _step_environment(ctx, top.path)
    # (what the script itself unsets before the sbatch, under no condition and in no function,
    # reaches it from no one: h30)
    maybe -= {n for n, gone in state.unset.items() if not gone.guards and gone.function is None}
    return _Submission(wrapper, frozenset(surely), frozenset(maybe - surely), unknown)


_SLURM_NAMES = ("SBATCH_", "SLURM_")


def _step_environment(ctx: Context, path: str) -> set[str]:
    """The SBATCH_ and SLURM_ names the workflow `run:` steps that run the script (by its path
    from the step's folder) may give it: their workflow's, job's and own `env:`, what an
    earlier step of the job writes to `GITHUB_ENV`, and what the step's script gives the
    command that runs it (`SBATCH_PARTITION=gpu bash submit.sh`, `env SBATCH_PARTITION=gpu
    bash ...`, an `export` before it, in the step's own shell); for a composite action's step,
    its own `env:` and what the steps that use the action get (`_callers_env`): more than may
    reach it (a value `unset` or an empty one), which only makes a finding a count."""
    name = posixpath.basename(path)
    found: set[str] = set()
    paths = ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS])
    actions = ctx.ws.glob(list(ACTIONS))
    for source, root in workflow_roots(ctx.ws, list(dict.fromkeys([*paths, *actions])), name):
        action = root.get("runs")
        for job, steps in _step_lists(root):
            ran = False
            for index, step in enumerate(steps):
                folder = step_folder(root, job, step)
                inside = _ACTION_PATH.fullmatch(str(_value(step.get("working-directory"))))
                if job is action and folder is None and inside is not None:
                    # (`working-directory: ${{ github.action_path }}/scripts`: in the action's
                    # folder)
                    below = posixpath.normpath(
                        posixpath.join(posixpath.dirname(source.path), inside.group(1) or ".")
                    )
                    folder = None if below.startswith("..") else "" if below == "." else below
                runs = [r for r in step_runs(job, step) if name in r.value]
                given = [g for r in runs for g in _given(source, r, folder or "", path)]
                if folder is None or not given:
                    continue
                # (a composite action's steps: their own `env:` alone; GitHub reads no `env:`
                # of the action or of its `runs:`)
                holders = (step,) if job is action else (root, job, job.get("container"), step)
                found |= _env_names(*holders)
                for earlier in steps[:index]:
                    found |= env_file_writes(earlier, ctx.ws)
                for names in given:
                    found |= names
                ran = True
            if ran and job is action:  # (a composite action's: its callers' too)
                found |= _callers_env(ctx, paths, actions, source.path)
    return {n for n in found if isinstance(n, str) and n.startswith(_SLURM_NAMES)}


# a step's working directory that is its composite action's folder
_ACTION_PATH = lazy_compile(r"\$\{\{\s*github\.action_path\s*\}\}(?:/([\w./-]*))?")


def _value(node: YNode | None) -> object:
    return node.value if node is not None and node.is_scalar else None


def _env_names(*holders: YNode | None) -> set[str]:
    """The names the `env:` mappings of these workflow nodes (a workflow, a job, a step) set."""
    found: set[str] = set()
    for holder in holders:
        env = holder.get("env") if holder is not None and holder.is_map else None
        if env is not None and env.is_map:
            found.update(k.value for k, _ in env.pairs if k.is_scalar)
    return found


def _step_lists(root: YNode) -> Iterator[tuple[YNode, list[YNode]]]:
    """A workflow's jobs, each with its steps; a composite action's `runs:`, with its steps."""
    for _, job, steps in job_steps(root):
        yield job, steps
    runs = root.get("runs")
    listed = runs.get("steps") if runs is not None and runs.is_map else None
    if runs is not None and listed is not None and listed.is_seq:
        yield runs, [step for step in listed.items if step.is_map]


def _callers_env(
    ctx: Context, workflows: list[str], actions: list[str], action: str, depth: int = 0
) -> set[str]:
    """The names a composite action's steps may get from the steps that use it (`uses:
    ./.github/actions/submit`, `uses: ./` for one at the root, a path in the folder the job
    checks the repository out to): the calling workflow's, job's and step's `env:`, what the
    job's earlier steps write to `GITHUB_ENV`; where another composite action uses it, that
    step's `env:`, what its earlier steps write, and what its own callers give (a few deep)."""
    folder = posixpath.dirname(action)
    found: set[str] = set()
    for source, root in workflow_roots(ctx.ws, [*workflows, *actions], holding="uses"):
        caller = root.get("runs")
        for job, steps in _step_lists(root):
            checkout = "" if job is caller else checkout_path(job)
            ran = False
            for index, step in enumerate(steps):
                named = _local_action(_value(step.get("uses")), checkout)
                # (from a composite action, the folder the repository is checked out to is its
                # caller's job's, not known here: `./src/.github/actions/inner` names it too)
                if named != folder and not (
                    job is caller and named is not None and named.endswith("/" + folder)
                ):
                    continue
                holders = (step,) if job is caller else (root, job, job.get("container"), step)
                found |= _env_names(*holders)
                for earlier in steps[:index]:
                    found |= env_file_writes(earlier, ctx.ws)
                ran = True
            if ran and job is caller and depth < 3 and source.path != action:
                found |= _callers_env(ctx, workflows, actions, source.path, depth + 1)
    return found


def _local_action(uses: object, checkout: str | None) -> str | None:
    """The repository folder of the action a step's `uses:` names in the workspace (`./x`, `./`
    the root; in the folder the job checks the repository out to, `./src/x` with `path: src`);
    None for any other (an action of another repository, a path without `./`)."""
    if not isinstance(uses, str) or not uses.startswith("./") or checkout is None:
        return None
    folder = posixpath.normpath(uses[2:].strip())
    folder = "" if folder == "." else folder
    if checkout:
        if folder != checkout and not folder.startswith(checkout + "/"):
            return None
        folder = folder[len(checkout) + 1 :]
    return folder


def _given(source: SourceText, run: YNode, folder: str, path: str) -> Iterator[set[str]]:
    """For each command of a `run:` script that sources or runs the script at `path` (by a path
    written out; by its name where the path holds a variable or follows a `cd`), the names it
    gives that run: assigned before its name or set by an `env` before it, and exported before
    it in the step's shell."""
    from benchlint.calls import script_word

    found = step_script(source, run)
    if found is None:
        return
    script = found.script
    name = posixpath.basename(path)
    moved = False  # (after a `cd`, a relative path names a file of another folder)
    for command in script.all_commands():
        moved = moved or command.base in ("cd", "pushd")
        word = script_word(command)
        if word is None:
            continue
        known = word[1].static and not moved
        value = word[1].value if known else word[1].text.strip("\"'")
        if known and posixpath.normpath(posixpath.join(folder, value)) != path:
            continue
        if not known and not (value == name or value.endswith("/" + name)):
            continue  # (`"$GITHUB_WORKSPACE/submit.sh"`, after a `cd`: by its name, h30)
        names = {a.name for a in command.assignments}
        for wrapper in command.invocation.wrappers:
            if wrapper.name == "env":
                names |= {w.value.partition("=")[0] for w in wrapper.words[1:] if "=" in w.value}
        names |= {
            a.name
            for a in script.assignments
            if a.exported
            and a.kind != "prefix"
            and a.node.start_byte < command.node.start_byte
            and (not a.command.apart_from_script or command.in_its_shell(a.node.start_byte))
        }
        yield names


def _templates_submitting(ctx: Context, path: str) -> bool:
    """Whether a script to fill in (not linted: `Workspace.templates`) has an `sbatch` line
    that names the batch script: its command line is not read (TensorRT-LLM's `submit.sh`:
    `partition=<partition>`, then `sbatch --partition=${partition} ${workdir}/x.slurm`)."""
    name = posixpath.basename(path)
    for template in ctx.ws.templates:
        text = (ctx.ws.source(template) or _NONE).text if ctx.ws.is_shell(template) else ""
        if any("sbatch" in line and name in line for line in _joined_lines(text)):
            return True
    return False


def _joined_lines(text: str) -> list[str]:
    """The lines of a script, those a backslash continues joined to the next."""
    return text.replace("\\\n", " ").splitlines()


_TEMPLATE = (
    "variables in a text option's value in `#SBATCH` lines of batch scripts a script to fill in "
    "submits, not reported (BL115: whether its sbatch command line gives the option, which "
    "replaces the text, is not read)"
)


def _replaced(option: str, submissions: list[_Submission]) -> bool | None:
    """Whether every submission gives the option a text option's directive gives, on its
    command line or in its environment (sbatch reads the variables, `SBATCH_PARTITION`, then its
    command line, after the script's `#SBATCH` lines, and the later value replaces the text,
    which nothing has read: h22, TensorRT-LLM's `#SBATCH --partition=${partition}`, which its
    `submit.sh` gives as `sbatch --partition=...`); no submission: not replaced. None where
    none surely keeps the text but one may (a variable exported under a condition, or a script
    that may have set any)."""
    name = slurm.option_name("sbatch", option)
    if name is None or not submissions:
        return False
    every, some = slurm.sbatch_variables(name)
    decided = True
    for submission in submissions:
        if any(slurm.option_name("sbatch", o) == name for o, _, _ in submission.wrapper.options):
            continue
        if every & submission.surely and not submission.unknown:
            continue
        if submission.unknown or (every | some) & (submission.surely | submission.maybe):
            decided = False
            continue
        return False
    return True if decided else None


_ENVIRONMENT = (
    "variables in a text option's value in `#SBATCH` lines of batch scripts whose `sbatch` may "
    "run with the option's environment variable set (SBATCH_PARTITION: exported under a "
    "condition, a variable only some releases read, or a script that may have set any), not "
    "reported (BL115: the variable replaces the text where it is set)"
)


def _fed_directives(ctx: Context, script: Script) -> Iterator[Finding]:
    """The `#SBATCH` lines of the batch scripts sbatch reads from a heredoc (`sbatch <<EOF`):
    as sbatch gets them, after the shell expanded what an unquoted delimiter lets it expand
    (`--nodes=$N` is a number there, whose value is not known), as written in a quoted one."""
    source = script.file
    for text, offsets, expands, reader, wrapper in _fed_scripts(script):
        submission: _Submission | None = None  # (its environment: on need)

        def span(start: int, end: int, offsets: list[int] = offsets) -> Span:
            return source.span(offsets[start], offsets[end - 1] + 1)

        for words in slurm.directives(text):
            if expands:
                words = [_expanded(w, text, offsets, source.text) for w in words]
            yield from _directive_problems(ctx, script.path, words, span)
            for option, word, variable, start, end in () if expands else _variables(words, text):
                replaced: bool | None = False
                if _keeps_text(option):
                    submission = submission or _submission(ctx, script.top, reader, wrapper)
                    replaced = _replaced(option, [submission])
                if replaced:
                    continue
                at = span(start, end)
                if replaced is None:
                    ctx.count(_ENVIRONMENT, Location(script.path, at))
                    continue
                help_ = "write the heredoc's delimiter unquoted (`<<EOF`): the shell expands it"
                sbatch = "the `sbatch` that reads it does not give"
                yield _variable_finding(script.path, option, word, variable, at, help_, sbatch)


def _fed_scripts(script: Script) -> Iterator[tuple[str, list[int], bool, Command, Wrapper]]:
    """The heredocs sbatch reads its batch script from (no script operand, no `--wrap`), its
    own or a `cat`'s piped to it (`cat <<EOF | sbatch`): each body's text, each character's
    offset in the file, whether the shell expands in it, and the command and the sbatch that
    read it."""
    for command in script.commands:
        if not command.heredocs:
            continue
        heredoc = command.heredocs[0]
        reader = heredoc_reader(command, heredoc)
        wrapper = next((w for w in reader.invocation.wrappers if w.name == "sbatch"), None)
        first = wrapper.words[0] if wrapper is not None else None
        start = next((i for i, w in enumerate(reader.words) if w is first), None)
        if start is None:
            continue
        texts = [t for w in reader.words[start + 1 :] for t, _ in _in_place("sbatch", reader, w)]
        if not slurm.script_from_stdin(texts):
            continue  # (a script operand, or a command to wrap: stdin is not the batch script)
        at = heredoc.node.start_byte if reader is command else 0
        if len(command.heredocs) > 1 or any(
            r.operator in ("<", "<<<") and r.target.node.start_byte > at for r in reader.redirects
        ):
            continue  # (stdin is the last of them: `sbatch <<EOF < job.sh` reads job.sh)
        if heredoc.body is not None and wrapper is not None:
            text, offsets = heredoc.value(heredoc.body, script)
            if not heredoc.quoted:
                text = _masked(text, offsets, script.file.text)
            yield text, offsets, not heredoc.quoted, reader, wrapper


def _masked(text: str, offsets: list[int], file_text: str) -> str:
    """A heredoc's text with the inside of each expansion bash makes in it (`$(cat n.txt)`,
    `$(( N * 2 ))`, `${NAME:-my job}`, a backquoted command) written as `x`s, the `$` or the
    first backquote kept: one word to sbatch's reader, whose value is not known (`_expanded`);
    every position stays."""
    chars = list(text)
    index = 0
    while index < len(chars):
        char = chars[index]
        escaped = file_text[offsets[index] - 1 : offsets[index]] == "\\"
        if escaped or char not in "$`":
            index += 1
            continue
        if char == "`":
            end = text.find("`", index + 1)
        elif text[index + 1 : index + 2] in ("(", "{"):
            end = _closing(text, index + 1)
        else:
            index += 1
            continue
        end = len(chars) - 1 if end < 0 else end
        chars[index + 1 : end + 1] = "x" * (end - index)
        index = end + 1
    return "".join(chars)


def _closing(text: str, start: int) -> int:
    """Where the bracket at `start` closes (nested ones of its kind counted), or -1."""
    opening = text[start]
    closing = ")" if opening == "(" else "}"
    depth = 0
    for index in range(start, len(text)):
        if text[index] == opening:
            depth += 1
        elif text[index] == closing:
            depth -= 1
            if depth == 0:
                return index
    return -1


def _expanded(
    word: tuple[str | None, int, int], text: str, offsets: list[int], file_text: str
) -> tuple[str | None, int, int]:
    """A directive's word of a heredoc the shell expands in, as the options reader needs it: an
    expansion (`$N`, a backquote; not an escaped `\\$`) stands for a value not known, its
    option read where written out before it (`--nodes=$N`, `-N$N`); else the word is not known
    (it may be several)."""
    value, start, end = word
    cut = next(
        (
            i
            for i in range(start, end)
            if text[i] in "$`" and file_text[offsets[i] - 1 : offsets[i]] != "\\"
        ),
        None,
    )
    if value is None or cut is None:
        return word
    head = text[start:cut]
    if head.startswith("--") and "=" in head:
        return head.split("=", 1)[0] + "=0", start, end
    if len(head) == 2 and head[0] == "-" and slurm.short_takes_value("sbatch", head[1]):
        return head + "0", start, end
    return None, start, end


def _directive_problems(
    ctx: Context,
    path: str,
    words: list[tuple[str | None, int, int]],
    span: Callable[[int, int], Span],
) -> Iterator[Finding]:
    for problem in slurm.problems("sbatch", [w for w, _, _ in words], directives=True):
        _, start, end = words[problem.index]
        yield from _report(ctx, "sbatch", problem, path, span(start, end))


def _variables(
    words: list[tuple[str | None, int, int]], text: str
) -> Iterator[tuple[str, str, re.Match[str], int, int]]:
    """The directive words with a variable in them, which sbatch keeps as text: each with the
    option it belongs to (not `--wrap`'s command, which sh runs on the node and expands)."""
    for index, (word, start, end) in enumerate(words):
        # (in the line as written: an escaped `\$` is one sbatch keeps as it is)
        variable = _VARIABLE.search(text[start:end]) if word is not None else None
        before = words[index - 1][0] if index else None
        option = (word or "").split("=", 1)[0] if (word or "").startswith("-") else before
        if option is not None and "--wrap".startswith(option) and len(option) > 3:
            continue  # (the command sh runs on the node: it expands it there)
        if word is not None and variable is not None:
            yield option or word, word, variable, start, end


def _variable_finding(
    path: str,
    option: str,
    word: str,
    variable: re.Match[str],
    span: Span,
    help_: str,
    sbatch: str = "no `sbatch` of the script in the repository gives",
) -> Finding:
    named = _named(option)  # (a name the job only carries: it runs, so named)
    if named:
        why = f"the job runs with that text as its {named}"
    elif _keeps_text(option):
        name = slurm.option_name("sbatch", option)
        variables = sorted(slurm.sbatch_variables(name)[0]) if name is not None else []
        either = f", nor {' or '.join(variables)} in its environment" if variables else ""
        why = (
            f"sbatch takes the text as written: {sbatch} the option on its command "
            f"line{either}, which would replace it"
        )
    else:
        why = (
            "an option that takes a number or a time rejects it and nothing is submitted; "
            "any other takes the text as written"
        )
    return Finding(
        "BL115",
        f"sbatch expands no variable in an `#SBATCH` line: `{clip(option, 30)}` gets "
        f"the text `{variable.group(0)}` itself, not the variable's value ({why})",
        Location(path, span),
        subject=f"sbatch-variable:{word}",
        help=help_,
        severity=Severity.WARNING if named else None,
    )


def _named(option: str) -> str | None:
    """What an option whose value only names the job sets ("name", "comment"), as sbatch reads
    it (`-J${N}` attached, `--job` a prefix of `--job-name`); None for any other option: a text
    kept as written there changes no resource, partition, account or file."""
    if option.startswith("-J") and not option.startswith("--"):
        return "name"
    long = option.split("=", 1)[0]
    for full, what in (("--job-name", "name"), ("--comment", "comment")):
        if len(long) > 4 and full.startswith(long):
            return what
    return None


# a variable's expansion, which sbatch leaves as text in a directive (not `%j`, its own; not
# an escaped `\$`, meant as written)
_VARIABLE = lazy_compile(r"(?<!\\)\$(?:\{[A-Za-z_][A-Za-z0-9_]*[^}]*\}|[A-Za-z_][A-Za-z0-9_]*)")


def _filled_in(ctx: Context, path: str) -> bool:
    """Whether a script of the repository fills the batch script in before it is submitted: a
    line that names the file with `envsubst`, `sed`, `perl` or `awk` (`envsubst < job.slurm >
    run.slurm`): its `$VAR` are placeholders there."""
    name = posixpath.basename(path)
    for other in ctx.ws.shell_paths:
        source = ctx.ws.source(other)
        if source is None or name not in source.text:
            continue
        for line in source.text.splitlines():
            if name in line and _FILLERS.search(line):
                return True
    return False


_FILLERS = lazy_compile(r"\b(?:envsubst|sed|perl|awk)\b")


def _glued(command: str, option: str) -> tuple[str, str] | None:
    """Two options of the command written with no blank between them (`--a--b=1`): the first
    and the second, where both are options of the command (t72b, NeMo-Run's ray.sub.j2: a
    Jinja `{%-` ate the blank)."""
    name = option.split("=", 1)[0]
    at = name.find("--", 2)
    if at < 0:
        return None
    first, second = option[:at], option[at:]
    names = slurm.every_long(command)
    if first[2:] in names and second.split("=", 1)[0][2:] in names:
        return first, second
    return None


def _report(
    ctx: Context, command: str, problem: slurm.Problem, path: str, span: Span, context: str = ""
) -> Iterator[Finding]:
    option = problem.option
    location = Location(path, span)
    shown = f"`{clip(option, 40)}`"
    help_ = ""
    if problem.kind == "unknown":
        close = slurm.close_names(command, option) if option.startswith("--") else []
        others = [c for c in slurm.COMMANDS if option[2:] in slurm.every_long(c)]
        if option.startswith("--") and not close and not others and not option.startswith("---"):
            ctx.count(_SPANK, location)
            return
        what = f"{command} has no option {shown} in any release from {_RELEASES} (nor pyxis)"
        if others and option.startswith("--") and not close:
            what += f"; it is an option of {' and '.join(others)}"
        why = f'{command} stops with "unrecognized option"'
        if not option.startswith("--"):
            why = f'{command} stops with "invalid option"'
        glued = _glued(command, option)
        if glued is not None:  # (`--no-container-mount-home--gres=gpu:8`: a blank lost)
            help_ = f"put a blank between `{glued[0]}` and `{glued[1]}`: two options ran together"
        elif close:
            help_ = f"did you mean `{close[0]}`?"
    elif problem.kind == "ambiguous":
        names = ", ".join(f"`--{n}`" for n in problem.candidates[:4])
        more = " ..." if len(problem.candidates) > 4 else ""
        what = f"{shown} is the start of several {command} options ({names}{more})"
        why = f'{command} stops with "option is ambiguous"'
        help_ = "write the option in full"
    elif problem.kind == "no-value":
        what = f"{command}'s option {shown} takes no value, and is given one after `=`"
        why = f'{command} stops with "option doesn\'t allow an argument"'
        help_ = f"write {shown} alone"
    elif problem.kind == "equals-value":
        letter = option[1:]
        what = (
            f"{command}'s short option {shown} is written with `=` (`{option}=...`): its value is "
            "the rest of the word, the `=` with it"
        )
        why = (
            f"{command} stops at that value (no number or time starts with `=`)"
            if letter in slurm.EQUALS_STOPS
            else "the controller rejects the job (no partition, account or QOS is named so)"
        )
        help_ = f"write `{option} VALUE` or `{option}VALUE`"
    elif problem.kind == "missing-value":
        what = f"{command}'s option {shown} takes a value, and no word follows it"
        why = f'{command} stops with "option requires an argument"'
    else:  # an `#SBATCH` word that is no option
        what = f"the `#SBATCH` word {shown} is not an option"
        why = 'sbatch stops with "Invalid directive found in batch script"'
        help_ = "write it as an option (`--name=value`)"
    yield Finding(
        "BL115",
        f"{context}{what}: {why} and runs nothing",
        location,
        subject=f"{command}:{option}",
        help=help_,
    )
