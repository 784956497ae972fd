"""An option a repository's own Python script rejects or ignores: its parser has no such option.

## What it does
Reads the command lines that run a Python script of the repository (`python3 utils/client.py
--num-prompts 8`, also behind wrappers, as `./client.py`, a module of the repository run with
`python3 -m bench.collector` (a package: its `__main__.py`), or behind a launcher's own options:
`torchrun`, `deepspeed`, `accelerate launch`, `coverage run`, `horovodrun`, `python3 -m
torch.distributed.run`, `-m accelerate.commands.launch`, `-m deepspeed.launcher.runner`, a
launcher's module as `torchrun -m pkg.train`), also those built in an argument array
(`cmd=(python3 "$WORKSPACE/utils/client.py" ...)` with what `cmd+=(...)` appends) or in a string
run unquoted (`CMD="python3 x.py"; CMD+=" --x"; $CMD`), in shell scripts and in the `run:` steps
of GitHub workflows (a relative path from the step's `working-directory`, else the root, in
the folder an `actions/checkout` `path:` puts the repository in; a `${{...}}` expression is a
value not known, but a `run:` that is wholly `${{ matrix.task.run }}` runs the scripts the
matrix writes out). It finds the parser that script parses its command
line with, read from its code with Python's `ast` (the options given to `add_argument`, to its
argument groups, its parents, its subcommands, and in the functions it is handed to: the
script's own, or one another module of the repository defines (`add_cache_args(parser)` imported
from it, and that module's functions it calls); where the script makes no parser and parses with
another module's, `from utils.cli import parse_args` or `PARSER.parse_args()` of an imported
`PARSER`, that module's; a parser that parses a function's parameter parses the command line
where every call of the module gives it `sys.argv[1:]` or None, as `main(sys.argv[1:])` does),
and reads each word of the command line as argparse reads it. Reports a word every parser the
script may use rejects:

- an option it has no option string for, not even as the start of one (`--ignore-eos`;
  `--save_result` where the option is `--save-result`);
- the start of several of its options (`--num-prompt` where it has `--num-prompts` and
  `--num-prompts-per-turn`);
- a subcommand it does not have, where its parser has subcommands (`sync.py barier`);
- an option it has no option string for, where it parses with `parse_known_args()` and nothing
  reads what that leaves over (`args, unknown = p.parse_known_args()` with `unknown` never
  mentioned again, or `p.parse_known_args()[0]`, in a script that parses its command line once,
  reads no `argv` itself, imports no package whose entry points parse it (`fire`, `absl`,
  `click`, ...), runs no `unittest.main()` or `pytest.main()`, and calls no function of another
  package or module, which may; constructing its classes is no such call): argparse does not
  stop it, the script runs as if the option were not given (`-n 1` to a script whose option is
  `--count`);
- no word for an option it requires (`add_argument("--io_size", required=True)` in the body that
  makes the parser, not under an `if`, before a parse that always runs: not one in a `try:`
  that may catch its `SystemExit`), on a line every word of which is known and none rejected,
  where the parser has no subcommands, reads no words from files (`fromfile_prefix_chars`), and
  is not asked for its help or version first; or on a line with an unquoted variable the script
  gives several values, each a plain string, on every way to the line (`if ...; then
  ARGS="--port 1"; else ARGS="--port 2"; fi`), none of which gives it either.

A finding's related locations are where the parser is made, and where a function of another
module that adds options to it is defined. A run that names a Python file (pre-commit, on a
commit that changes only the client, or a module whose function adds options to its parser)
reads every script that names it or a Python file of the repository that imports it, so an
option removed from the client is found in the launchers that still give it.

## Why is this bad?
argparse stops the script with `error: unrecognized arguments` (or `ambiguous option`) before it
does anything. A benchmark client runs after the server it measures has loaded its model, so the
mistake surfaces only after the long start-up of a multi-GPU job, and the job produces nothing.
InferenceX fixed such a command line (its multi-turn client defined none of `--ignore-eos`,
`--save-result`, `--result-dir` and `--result-filename`) only after its jobs failed.

## Example
```bash path=benchmarks/run_client.sh
python3 utils/client.py --model "$MODEL" --num-prompt 8 --save_results
```

```python path=utils/client.py
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--model", required=True)
parser.add_argument("--num-prompts", type=int, default=100)
parser.add_argument("--save-result", action="store_true")
args = parser.parse_args()
```

## Use instead
```bash path=benchmarks/run_client.sh
python3 utils/client.py --model "$MODEL" --num-prompts 8 --save-result
```

## Exceptions
Only what the script's parser decides alone is read. A script is left alone, and counted in the
report's warnings with the reason, when its parser cannot be told from its code: it is handed to
a function that is not the repository's or not one it can read (`EngineArgs.add_cli_args(parser)`:
any option may be added), an
option string is computed, the script changes its command line before parsing it
(`sys.argv.remove(...)`; one that changes it only after its parser read it, in the same body,
`own, rest = p.parse_known_args()` then `sys.argv = [sys.argv[0], *rest]`, is read), the name
it parses with is bound to another value too, one the code
does not tell (`parser = utils.get_argument_parser()` after `parser = ArgumentParser()`), or it
makes its parser from a class of its own. vLLM's
`FlexibleArgumentParser` is read as vLLM reads it (`--max_model_len` is `--max-model-len`), and
where the code may use either it or argparse's own (an import that falls back), a word is
reported only when both reject it (and, as vLLM may turn abbreviations off, only when it is
rejected with them and without). A parser that reads options with `parse_known_args` keeps the
ones it does not know: only an ambiguous prefix is reported for it (and an option nothing reads,
as above), and a line that gives it an option it does not know is counted in the run's warnings
(what reads the options it keeps, a parser of another module or `sys.argv`, is not followed);
where the script reads its command line with such a parser first (for `--config`) and then with
one that keeps nothing, the second decides, as does `parse_args` of the same parser where it
always follows in the same body (not under an `if`, a loop or a `try`). A script that parses it
with two parsers that keep nothing is not read.

A module that is no package's, run with `-m`, is read only where the repository's file of that
name is at its root (`python3 -m client`, from the checkout's root as CI runs it): Python finds
the module from the folder it runs in, and where that folder has no such file it imports an
installed module of the name (`python3 -m coverage` beside a `scripts/coverage.py`); such a
line is counted in the report's warnings. A package's module (`python3 -m bench.client`) is
the file of that path at the root or under `src/` (`src/bench/client.py`, as `pip install -e`
installs a src layout); under another folder (`lib/bench/client.py`, importable only where
that folder is on the path or installed) or inside another package's folder
(`inference/eval/mmlu/run_eval.py` for `-m eval.mmlu.run_eval`, where `inference/` is a
package: from that folder it is that file, from elsewhere an installed `eval`), it is counted
too.

A command a program benchlint does not know runs after its `--` (`gantry run ... -- python3
x.py ...`, or in a shell string there, `-- bash -c "source env.sh && torchrun x.py ..."`) is
counted in the warnings, not read: where and how that program runs it is not known. A script
of the repository that runs its arguments (`"$@"`, `exec "$@"`) is a wrapper: in `bash
infra/wrap.sh python3 x.py ...` or `./profwrap torchrun x.py ...` the words after it
are read as the command line; where it changes folders first or runs them in a container,
where a script of the repository does not plainly run its arguments, and where the program is
at a path outside the repository (`/fsx/profwrap torchrun x.py ...`), the line is counted, not
read; so is a line in a string a function runs through a variable (`launch() { eval "$CMD --k
1"; }`) that the script gives another value after the function: the call may run either.
`${PWD}/x.py` and `$(pwd)/x.py` are `x.py` (so is `$D/x.py` after `D=$(pwd)`),
`$(git rev-parse --show-toplevel)/x.py` the root's `x.py`; a folder written from one of the
script's own (`$(realpath $HERE/..)`) is that folder; one another command prints (`$(mktemp
-d)`), or one the job may give in place of a default (`${WS:-/opt/w}/x.py`, `: ${WS:=/opt/w}`),
is not taken for the repository's (the job-given one is counted). A relative path that names a
file from the checkout's root and another from the script's own folder (`python3 main.py` in
`bench/run.sh`) is read where every one's parser rejects the word; one that reads no command
line at all (no `__main__`, no `argv`, no parser library: the root's `main.py` of mkdocs'
macros) is not what the script runs with options, and the other decides.

A word that is a variable's whole value, assigned once before the line and never appended to,
is read as what it holds: the script's path (`SCRIPT=tools/x.py; python3 "$SCRIPT" ...`), a
string run unquoted as bash splits it (`python3 x.py $OPTS`, `python3 $OPTS` where OPTS holds
the script's path too; the finding at the option in the assignment), an array's items
(`"${ARGS[@]}"`, `"${CMD[@]}" --k 1`); so is a string the script builds by appending to the
value it gives first (`o="$o --x"`, `o+=" --x"`, under a condition too: a run that takes every
branch), each piece at its place, and a heredoc read into it (`read -r -d '' CMD <<EOF`). Options
in a variable the script gives a value otherwise (another value under a condition, in a loop
or a function) are not read, and the line is counted in the warnings. A script's path in a
variable the script assigns
otherwise (twice, as an `if` and its `else` do, after the line, with an expansion, or as a
default the environment may override, `${T:-train.py}`) is counted in the warnings where one
of those paths is a file of the repository and options follow, not read: which file runs is
not known. Another word whose
value is not known is not read, and is taken not to be `--` unless the script gives that
variable a `--`; nothing after a `--` is read. With subcommands (`sync.py barrier
--node-ips ...`), the words before the subcommand's word are read as the parser's and the rest
as that subcommand's; nothing is read from where that word cannot be told (an option before it
takes a number of words the code does not fix, the parser has positional arguments, or the word
is not known). A parser with an argument that takes every word after it (`nargs=REMAINDER`, as a
launcher of another script has) is read up to its first positional word, or up to the option
that takes the rest; where that word names a Python script of the repository
(`multiproc.py --nproc_per_node 8 train.py --lr 1`), the words from it on are read as that
script's command line.

A workflow step is read where bash runs it: its `shell:` (or its job's or workflow's default)
is bash or sh, or none is given and its `runs-on` names a runner that is not Windows (a
matrix's label, `${{ matrix.os }}`, by each value of the matrix). A step whose runner is
another expression (a `fromJSON` of inputs) may run in PowerShell, unless its script names
the runner's files as only a POSIX shell does (`>> "$GITHUB_OUTPUT"`), and one with a
`working-directory` not known may run anywhere: their lines are counted in the warnings
(`defaults: run: shell: bash` on the job has them read). A script a job gives another
repository's reusable workflow (`uses: org/infra/.github/workflows/linux_job.yml@main` with
`script: |`) is counted too: where and in which shell that workflow runs it is not known.

A relative script path names the file under the checkout's root, beside the script, or under a
folder the script is in (which folder the script runs in is not known), and a word is reported only
when each of them that is there rejects it. A launcher's script is the first word that names a
`.py` file (a word after one of the launcher's options that take a value is that value: every
option but its flags, as the launchers' parsers define them); nothing is read where a word not
known could be it, or could be the program (`${LAUNCHER} train.py`, `srun $SRUN_ARGS python3
train.py`; counted in the warnings), but a variable the script assigns once before the line, and
never appends to, is read as what it holds (`torchrun ${DIST_ARGS[@]} train.py ...` with
`DIST_ARGS=(--nproc_per_node 8)`; a string run unquoted, `$DIST_ARGS` or `$LAUNCHER`, as bash
splits it). Another path that names no repository file, or several, is not read, nor is a relative
path where the script may have changed its folder before (a `cd` in its shell, or in a function it
calls outside a command substitution) to one that is not known; after `cd "$(dirname "$0")"` (or
`cd "$SCRIPT_DIR/.."`, a variable of the script's own folder) the path names the file of that
folder alone (also `cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &> /dev/null && pwd` and `$(dirname
"$(readlink -f "$0")")`), and in a workflow step, whose folder is known, after a plain relative `cd
load_tests` the file of that folder. A path after a `cd` elsewhere is counted where some folder of
the repository has a file of that path, as is one whose folder a variable holds that the script
does not give a known value (`$WS_PATH/sync.py`: set by its caller or the job, by a file it
sources, by a loop or a `read`) where a file of the repository ends in that path (not a loop's
whose every value is written out and names no file of the repository: `for d in /opt`; with a
default, `${D:-bench}/x.py`, where the caller may give another), and one whose folder a variable
holds that the script gives a value naming a folder outside the repository too (`D=bench` and
`D=/opt/elsewhere`: which file runs is not known); where each of its values names a file of the
repository (`T=bench` or `T=tools`), the path is read as each, and reported where every one rejects
the word; at the script's top level, where the last assignment before the line is there too, under
no condition, and written out (`D=tools`, then `D=bench`), and no function assigns it, the path is
that value's. A command line in a string the script runs with `eval`, itself or through a function
that `eval`s an argument (`run_or_die "barrier" "python3 sync.py ..."`), is read as bash reads it.
Nor is a path in a container or on another host (`docker exec`, `ssh`, `srun --container-image`),
or in a Ray job (`ray job submit -- python3 train.py`: it runs in the working directory its runtime
environment gives) unless it is
at a mount of the checkout
(`/workspace/utils/client.py`); where a file of the repository has that path, the report's warnings
count the line. A module run with `python3 -m` is not the file of that path inside another
package's folder (`-m lm_eval` runs an installed `lm_eval`, not `srtctl/benchmarks/lm_eval.py`).
Another module's parser is read only where the script makes no parser of its own, takes exactly one
from other modules (a function that parses the command line, or a parser it parses as it is and
does nothing else with), and the import names the module without doubt (beside the script, or the
one file of that name under a folder it is in); that parser must be told from its code alone, as
above.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import posixpath
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from benchlint import pyargs
from benchlint.calls import (
    LOOP_VALUE,
    PATH_EXPANSION,
    _leading_expansion,
    fixed_folder,
    from_known_folder,
    loop_words,
    own_default,
    resolve,
    script_runs_arguments,
    script_word_at,
)
from benchlint.calls import ROOT_MOUNTS as MOUNTS
from benchlint.context import Context
from benchlint.engines import assignments_of, set_otherwise
from benchlint.finding import Finding, Location, Severity, Span, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import rule
from benchlint.shell.held import built_before, once_before, read_before, same_subshell
from benchlint.shell.invocation import FILES, WRAPPER_GRAMMARS, Invocation, resolve_words
from benchlint.shell.model import Assignment, Command, Heredoc, Script, Word, blank_separated
from benchlint.source import SourceText
from benchlint.workflow import (
    WORKFLOWS,
    checkout_prefix,
    job_steps,
    plain_folder,
    runs_in_posix_shell,
    step_folder,
    step_runs,
    step_script,
    workflow_roots,
)
from benchlint.workspace import Workspace
from benchlint.yamlmodel import YNode

_PYTHON = lazy_compile(r"python(?:\d+(?:\.\d+)*)?")
_SUBSTITUTION = lazy_compile(r"\$\((?:[^()]|\([^()]*\))*\)|`[^`]*`")
# launchers that run a Python script after options of their own
_LAUNCHERS: frozenset[object] = frozenset(
    {
        "torchrun",
        "deepspeed",
        "horovodrun",
        ("accelerate", "launch"),
        ("coverage", "run"),
    }
)
# modules that are such a launcher (`python3 -m torch.distributed.run` is `torchrun`)
_LAUNCHER_MODULES = frozenset(
    {
        "torch.distributed.run",
        "torch.distributed.launch",
        "accelerate.commands.launch",
        "deepspeed.launcher.runner",
    }
)
# the options of those launchers that take no value (read from their parsers: torchrun and
# `torch.distributed.launch` of PyTorch 2.13, DeepSpeed 0.19.8's `deepspeed` and the
# `--elastic_training` of its earlier releases, Accelerate 1.16.0's `accelerate launch`,
# Horovod 0.28.1's `horovodrun`, coverage's `run`), named without dashes and with `-` for `_`:
# every other option of theirs takes the next word as its value, a word not known too
_FLAG_NAMES = """
    h help m module no-python run-path standalone virtual-local-rank use-env elastic-training
    bind-cores-to-rank force-multi no-local-rank no-ssh no-ssh-check q quiet save-pid
    cpu debug downcast-bf16 dynamo-use-dynamic dynamo-use-fullgraph
    dynamo-use-regional-compilation enable-cpu-affinity fp8-use-autocast-during-eval multi-gpu
    no-tpu-cluster same-network tpu tpu-cluster tpu-use-sudo use-deepspeed use-fsdp
    use-megatron-lm use-parallelism-config
    cb check-build disable-cache gloo jsrun mpi prefix-output-with-timestamp prefix-timestamp
    tcp v verbose version autotune no-autotune hierarchical-allreduce no-hierarchical-allreduce
    hierarchical-allgather no-hierarchical-allgather torus-allreduce no-torus-allreduce
    timeline-mark-cycles no-timeline-mark-cycles stall-check no-stall-check
    mpi-threads-disable no-mpi-threads-disable log-with-timestamp log-without-timestamp
    log-hide-timestamp no-log-hide-timestamp
    a append branch L pylib p parallel-mode timid
"""
_LAUNCHER_FLAGS = frozenset(_FLAG_NAMES.split())
_MODULE = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
# the interpreter's own options that take the next word (`-X dev`, `-W ignore`)
_VALUE_OPTIONS = ("-X", "-W")
_UNTOLD = "Python scripts run with options whose parser cannot be told, not read (BL116)"
_NO_PARSER_SAID = (
    "scripts whose code makes no argparse parser benchlint follows (a library may make it)"
)
_ELSEWHERE_SAID = (
    "Python scripts run with options where their path may name a file other than the "
    "repository's ({}), not read (BL116)"
)
_KEY = "pyargs"
# `o="--lr 1"; if ...; then o="--lr 2 --x"; fi; python3 x.py $o`: which value runs is not known
_VARIED_SAID = (
    "Python scripts run with options held in a variable of the script whose value there is not "
    "known (given several values, in a loop or a function): the options it holds not read, "
    "those written out read (BL116)"
)
# `cfg, rest = p.parse_known_args()` in a script run with options `p` does not know: it keeps
# them, for code that may read them (another module's parser, `sys.argv`) or for none
_KEPT_SAID = (
    "Python scripts run with options their parser does not know and keeps (`parse_known_args`: "
    "what reads them after it is not followed), not checked (BL116)"
)
# `torchrun $DIST_ARGS train.py --lr 1`, `${LAUNCHER} train.py`: a word not known may name
# another script
_UNREAD_SAID = (
    "Python scripts run after words whose values are not known (the program, or a launcher's "
    "options: one could name another script), not read (BL116)"
)
# `launch() { eval "$CMD"; }` where the script gives CMD another value after the function: the
# string the call runs may be either
_DIFFER_SAID = (
    "Python scripts run with options in a string a function runs whose text there may be "
    "another (the variable it reads given another value after the function), not read (BL116)"
)
# `gantry run ... -- python3 x.py`: a program benchlint does not know runs the command
_BEHIND_SAID = (
    "Python scripts run with options by a program benchlint does not know (the command after "
    "its `--`: where and how it runs it is not known), not read (BL116)"
)
# `/fsx/profwrap torchrun x.py --lr 1`: a program that is no file of the repository
_PROGRAM_SAID = (
    "Python scripts run with options behind a program benchlint cannot read (at a path outside "
    "the repository, or one no file of it has: what it runs them with is not known), not read "
    "(BL116)"
)
# `bash scripts/docker/launch.sh python3 x.py --lr 1`, where launch.sh runs no `"$@"`
_GIVEN_SAID = (
    "Python scripts given with options to a script of the repository that does not plainly run "
    'its arguments (`"$@"`: what it does with them is not known), not read (BL116)'
)
# `python3 "$SCRIPT" --lr 1` where the script gives SCRIPT more than one path, or one with an
# expansion, or none before the line
_HELD_SAID = (
    "Python scripts run with options from a variable whose path there cannot be told (the "
    "script assigns it more than once, after the line, or with an expansion), not read (BL116)"
)
# a workflow step bash may not run: another `shell:`, or a runner that may be Windows (its
# default shell is PowerShell), as a `runs-on` expression may be
_SHELL_SAID = (
    "Python scripts run with options in workflow steps that may not run in bash (another "
    "`shell:`, or a runner that may be Windows, whose default shell is PowerShell), not read "
    "(BL116)"
)
# a job's input to another repository's reusable workflow (`with: script: |`)
_EXTERNAL_SAID = (
    "Python scripts run with options in inputs to another repository's reusable workflow "
    "(`with:` of a job's `uses:`: where and how it runs them is not known), not read (BL116)"
)
# `python3 -m coverage` where the repository's `coverage.py` is beside the script, not at the root
_INSTALLED_SAID = (
    "Python modules run with options where the repository's file of that name is not at its "
    "root, so an installed module of the name may be the one that runs, not read (BL116)"
)


def _beyond(ctx: Context) -> list[str]:
    """Where Python files are named (a commit that changes a client alone), every script whose
    text names one of them, or one of the repository's Python files that import one (a module
    that may make or add to their parser): a finding's related locations are where the
    script's parser is made, and where another module's function adds to it."""
    return _naming(ctx, ctx.ws.shell_paths)


def _naming(ctx: Context, paths: list[str]) -> list[str]:
    """Those of the paths whose text names a named Python file, or one of the repository's
    Python files that imports one (`_beyond`)."""
    named = ctx.in_scope(ctx.ws.python_paths)
    # the file's name without `.py`, as `python3 -m pkg.client` names it too
    names = {_stem(p) for p in named}
    if names:  # and the scripts importing one: the module may make or add to their parser
        alternatives = "|".join(map(re.escape, sorted(names)))
        imports = re.compile(rf"^[ \t]*(?:from|import)[ \t]+[\w., \t]*\b(?:{alternatives})\b", re.M)
        for path in ctx.ws.python_paths:
            source = ctx.ws.source(path)
            if path not in named and source is not None and imports.search(source.text):
                names.add(_stem(path))
    found = []
    for path in paths if names else ():
        source = ctx.ws.source(path)
        if source is not None and any(name in source.text for name in names):
            found.append(path)
    return found


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".py")


def _script_pass(ctx: Context, script: Script) -> Iterator[Finding]:
    if not ctx.ws.python_paths or not _may_run_python(script.file.text):
        return
    folders = _Folders.of(script)
    for line in _command_lines(script):
        yield from _command_line(ctx, script, line, folders, _IN_SCRIPT)
    for inner in _differing(script):
        for line in _command_lines(inner):
            _say_line(ctx, inner, line, _IN_SCRIPT, _DIFFER_SAID)


def _differing(script: Script) -> Iterator[Script]:
    """The strings nested in the script whose text may be another where they run
    (`Script.may_differ`: a function's `eval \"$CMD\"`, the variable given another value after
    the function), which `Script.walk` leaves out."""
    for inner in script.nested:
        if inner.may_differ:
            yield inner
        else:
            yield from _differing(inner)


def _may_run_python(text: str) -> bool:
    return ".py" in text or " -m " in text or " --module " in text


@rule(
    "BL116",
    "unknown-script-option",
    Severity.ERROR,
    tags=("shell", "python"),
    script_pass=_script_pass,
    beyond=_beyond,
)
def check(ctx: Context) -> Iterator[Finding]:
    """The workflows' `run:` steps, each read as a script that runs in the step's working
    directory (said, not read, where bash may not run it)."""
    if not ctx.ws.python_paths:
        return
    workflows = ctx.ws.glob([*ctx.ws.layout.workflows, *WORKFLOWS])
    read = ctx.in_scope(workflows)
    if ctx.scope is not None:
        read += [p for p in _naming(ctx, workflows) if p not in read]
    for source, root in workflow_roots(ctx.ws, read):
        for _, job, steps in job_steps(root):
            yield from _external_inputs(ctx, source, job)
            for step in steps:
                for run in step_runs(job, step):
                    if _may_run_python(run.value):
                        yield from _step(ctx, source, root, job, step, run)


def _step(
    ctx: Context, source: SourceText, root: YNode, job: YNode, step: YNode, run: YNode
) -> Iterator[Finding]:
    found = step_script(source, run)
    if found is None:
        return
    script, folder = found.script, step_folder(root, job, step)
    posix = runs_in_posix_shell(root, job, step)
    prefix = checkout_prefix(root, job, step)
    if prefix:  # (the workspace above the checkout's `path:`)
        folder = ""
    where = _Where(folder, found.place, folder is None, not posix, prefix=prefix)
    folders = _Folders.of(script, folder)
    for line in _command_lines(script):
        yield from _command_line(ctx, script, line, folders, where)


def _external_inputs(ctx: Context, source: SourceText, job: YNode) -> Iterator[Finding]:
    """A job that calls another repository's reusable workflow with a script among its inputs
    (`uses: org/infra/.github/workflows/linux_job.yml@main` with `script: |`): its Python lines
    are said, not read (where and in which shell that workflow runs them is not known)."""
    uses, given = job.get("uses"), job.get("with")
    if uses is None or not uses.is_scalar or str(uses.value).startswith("./"):
        return
    for _, value in given.pairs if given is not None and given.is_map else []:
        if not value.is_scalar or "\n" not in str(value.value):
            continue
        if not _may_run_python(str(value.value)):
            continue
        found = step_script(source, value)
        if found is None:
            continue
        where = _Where(None, found.place, external=True)
        for line in _command_lines(found.script):
            yield from _command_line(ctx, found.script, line, _Folders.of(found.script), where)


@dataclass(frozen=True)
class _Where:
    """Where a script's command lines run and are written: the repository folder a relative
    path is from (None: the script's own candidates, `_targets`), where a span of the script
    is in its file (a workflow step's script is a part of the workflow's text), whether that
    folder is not known (a step's `working-directory: ${{ inputs.dir }}`), and whether the
    shell may not be bash (a step whose runner is an expression: a Windows runner runs it in
    PowerShell), so its lines are said, not read."""

    folder: str | None
    place: Callable[[Span], Span]
    unknown: bool = False
    other_shell: bool = False
    # an input of another repository's reusable workflow (`with: script:`): how it runs it
    external: bool = False
    # the folder of the workspace the repository is checked out to, where the step runs in the
    # workspace (`path: src`): a relative path names the repository's file only below it
    prefix: str = ""


_IN_SCRIPT = _Where(None, lambda span: span)


@dataclass(frozen=True)
class _Line:
    """A command line that may run a Python script: where it runs, and its words: each as
    argparse gets it (None where it is not known), as written (expansions as text), its place."""

    command: Command
    words: tuple[_Piece, ...]
    # it runs in a container or on another host (`docker exec`, `ssh`, `srun
    # --container-image`): a path there is the repository's only at a mount of it
    elsewhere: bool = False
    # a launcher's line whose script cannot be told, as a word before the `.py` one is not
    # known (`torchrun $DIST_ARGS train.py ...`): said where the file is the repository's
    unread: bool = False
    # the command a program benchlint does not know runs after its `--` (`gantry run ... --
    # python3 x.py`): where and how it runs it is not known, so said, not read
    behind: bool = False
    # the paths a variable may hold that names the script (`python3 "$SCRIPT" --lr 1`), where
    # it is not given one path once before (`once_before`): said, not read
    held: tuple[str, ...] = ()
    # the repository file the script word surely names (`EVAL="${SCRIPT_DIR}/eval.py"` once
    # before `python3 "$EVAL"`, the folder the script is in: that file wherever it runs); with
    # `held`, "" where the variable is given its one path once before, "param" where that is a
    # function's parameter
    fixed: str | None = None
    # the repository script the words are given to (`bash infra/wrap.sh python3 x.py ...`): the
    # words are a command line where that script runs its arguments (`"$@"`)
    wrapper: str | None = None


_Piece = tuple[str | None, str, Span]


def _command_lines(script: Script) -> Iterator[_Line]:
    """Each command's words behind its wrappers, and each command built in an argument array
    (`cmd=(python3 x.py ...)`, run as `"${cmd[@]}"`) or in a string run unquoted (`CMD="python3
    x.py"`, run as `$CMD`), with what later `NAME+=` lines of the script append to it."""
    scripts = _script_variables(script)
    for command in script.all_commands():
        if not any(
            ".py" in w.value or w.value in ("-m", "--module") or _holder(w) in scripts
            for w in command.words
        ):
            continue
        words = _past_env_assignments(command)
        if not words:
            continue
        # (as argparse reads them: `"--nnodes=$N"` is an option, whatever its value)
        pieces = [_word(script, w) for w in words]
        texts = _texts(pieces)
        named = _script_index(texts)
        whole: list[_Piece] = []
        if named is None and scripts:  # (`SCRIPT=x.py; python3 "$SCRIPT" --k 1`)
            whole = [_whole_value(script, command, w) for w in words]
            found = _named(whole)
            if found is not None:
                pieces, named = whole, found
                texts = _texts(pieces)
        if named is None:
            # (`OPTS="x.py --k 1"; python3 $OPTS`, `"${CMD[@]}" --k 1`: the script's word in a
            # string or an array assigned once before, put in place as bash splits it; `read -r
            # -d '' CMD <<EOF` then `deepspeed --module $CMD`: the module a heredoc gives)
            expanded = _expanded(script, command, words)
            if expanded and _named(expanded) is not None:
                yield _Line(command, tuple(expanded), _away(command))
                continue
        unread = named is None
        if named is not None:  # (`python3 x.py $OPTS`: the options a variable holds)
            after = [p for w in words[named[0] + 1 :] for p in _in_place(script, command, w)]
            pieces = pieces[: named[0] + 1] + after
        if unread and _launched_after_unknown(texts):
            # (`torchrun ${DIST_ARGS[@]} x.py`: the launcher's options a variable holds)
            expanded = _expanded(script, command, words)
            wrappers = command.invocation.wrappers
            if expanded is not None and texts[0][0] is None and wrappers:
                # (`srun $SRUN_ARGS python3 x.py`: the wrapper's options the variable holds)
                expanded = expanded[_options_end(wrappers[-1].name, expanded) :]
            if expanded is not None and expanded and _named(expanded) is not None:
                pieces, unread = expanded, False
        elif unread:
            behind = _after_dashdash(texts)
            string = _shell_after_dashdash(texts, words) if behind is None else None
            if behind is not None:  # (`gantry run ... -- python3 x.py --lr 1`)
                yield _Line(command, tuple(pieces[behind:]), behind=True)
            elif string is not None:  # (`gantry run ... -- bash -c "torchrun x.py --lr 1"`)
                split = _pieces(script, string)
                firsts = [0] + [i + 1 for i, (_, raw, _) in enumerate(split) if raw in _LISTS]
                for first in firsts:  # (each command of the string: `source x && torchrun ...`)
                    part = split[first:]
                    part = part[: next((i for i, p in enumerate(part) if p[1] in _LISTS), None)]
                    if _after_dashdash([(None, ""), ("--", "--"), *_texts(part)]) is not None:
                        yield _Line(command, tuple(part), behind=True)
            elif (start := _wrapped_at(texts, whole)) is not None:
                # (`bash infra/wrap.sh python3 x.py --k 1`: a script that may run its arguments;
                # the words after it as what the variables assigned once before hold)
                rest = tuple(p for w in words[start:] for p in _held_in_place(script, command, w))
                yield _Line(
                    command, rest, _elsewhere(command.invocation), wrapper=texts[start - 1][1]
                )
            elif scripts:  # (`SCRIPT=a.py` or `SCRIPT=b.py`, then `python3 "$SCRIPT" --k 1`)
                holder = _held(script, command, words, pieces, scripts)
                if holder is not None:
                    at, paths, once, param = holder
                    fixed = ("param" if param else "") if once else None
                    yield _Line(command, tuple(pieces[at:]), held=paths, fixed=fixed)
            continue
        yield _Line(command, tuple(pieces), _away(command), unread)
    run, evaluated, elsewhere_run, by_line = _run_variables(script)
    built: dict[str, tuple[Command, list[_Piece], bool, bool]] = {}
    ended: set[str] = set()  # of those `eval "$CMD"` runs, the strings past their first line
    unknown: set[str] = set()  # of those, the lines whose script cannot be told (`_Line.unread`)
    for inner in script.walk():
        for assignment in inner.assignments:
            given = assignment.value
            if given is None:
                continue
            name = assignment.name
            items = given.items
            appends = name in built and inner.text_of(assignment.node).startswith(f"{name}+=")
            wrapped = _rewraps(assignment.command, name, items) if name in built else None
            if wrapped is not None:  # (`RUN=(nsys profile -o p "${RUN[@]}")`: wrapped)
                command_of, held, array, away = built[name]
                built[name] = (command_of, held, array, away or _elsewhere(wrapped))
                continue
            values = [item.value for item in items[:8]] if items else [given.value]
            if not appends and not any(".py" in v or v == "-m" or " -m " in v for v in values):
                built.pop(name, None)  # (the variable holds another command line now)
                continue
            invocation = resolve_words(assignment.command, tuple(items or ()))
            if items:
                pieces = [_word(script, w) for w in invocation.words]
            else:
                pieces = _pieces(script, given)
                if name in by_line:  # (`eval "$CMD"`: a newline in it ends the command)
                    if appends and name in ended:
                        continue
                    first = _first_line(script, given, appends)
                    if first < len(pieces):
                        pieces = pieces[:first]
                        ended.add(name)
                    elif not appends:
                        ended.discard(name)
            if appends:
                built[name][1].extend(pieces)
                continue
            unread = False
            if pieces and _named(pieces) is None and items:
                # (`cmd=("$PY" x.py ...)`: the program a variable assigned once before holds;
                # not known, the line is said)
                pieces = [_whole_value(script, assignment.command, w) for w in invocation.words]
                unread = _named(pieces) is None and _launched_after_unknown(_texts(pieces))
            elif pieces and _named(pieces) is None:
                # (`run_cmd="torchrun $DIST x.py ..."`: the launcher's options a string holds)
                pieces = _expanded_pieces(script, assignment.command, pieces)
                unread = _named(pieces) is None and _launched_after_unknown(_texts(pieces))
            if pieces and (_named(pieces) is not None or unread):
                built[name] = (assignment.command, pieces, bool(items), _elsewhere(invocation))
                if unread:
                    unknown.add(name)
            else:
                built.pop(name, None)
                unknown.discard(name)
    for name, (command, pieces, array, elsewhere) in built.items():
        if name in evaluated and not array:  # (what follows a pipe or a redirection: not its)
            ends = (i for i, (_, raw, _) in enumerate(pieces) if _SHELL_SYNTAX.match(raw))
            pieces = pieces[: next(ends, len(pieces))]
        if array or name in run:
            away = elsewhere or name in elsewhere_run
            yield _Line(command, tuple(pieces), away, name in unknown)


def _rewraps(command: Command, name: str, items: list[Word] | None) -> Invocation | None:
    """Where an array's new items are its old ones (`"${RUN[@]}"`, last) behind wrappers alone
    (`RUN=(nsys profile -o prof "${RUN[@]}")`: it runs the same command line), the wrappers'
    invocation; None otherwise."""
    whole = f"${{{name}[@]}}"
    if not items or items[-1].value != whole or any(i.value == whole for i in items[:-1]):
        return None
    prefix = resolve_words(command, tuple(items[:-1]))
    return prefix if prefix.wrappers and not prefix.words else None


# a piece of a string `eval` runs that is shell syntax, not a word: an operator, a redirection
_SHELL_SYNTAX = lazy_compile(r"\|\|?|&&?|;|\d*[<>]|&>")


def _past_env_assignments(command: Command) -> tuple[Word, ...]:
    """The command's words behind its wrappers, past the leading words of an `env` that are a
    string variable assigned once before holding only `NAME=VALUE` words (`env $EXTRA_ENVS
    python3 x.py`: env sets them, and runs the next word)."""
    invocation = command.invocation
    words = invocation.words
    if not invocation.wrappers or invocation.wrappers[-1].name != "env":
        return words
    while words:
        name = words[0].unquoted_variable()
        given = once_before(command, name) if name is not None else None
        pieces = given.pieces() if given is not None and given.items is None else []
        if not pieces or not all(_ENV_ASSIGNMENT.match(piece) for piece, _ in pieces):
            break
        words = words[1:]
    return words


_ENV_ASSIGNMENT = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _holder(word: Word) -> str | None:
    """The variable a word is the whole value of (`$OPTS`, `"$SCRIPT"`, `"${CMD[@]}"`)."""
    array = _ARRAY_WORD.fullmatch(word.value) if not word.static else None
    return array.group(1) if array else word.variable()


def _away(command: Command) -> bool:
    """Whether the command, or a command whose shell it runs in, runs it where the checkout's
    paths are not its own (`ssh host "python3 x.py"`)."""
    elsewhere = _elsewhere(command.invocation)
    inside = command.script.parent
    while inside is not None and not elsewhere:
        elsewhere = _elsewhere(inside.invocation)
        inside = inside.script.parent
    return elsewhere


def _elsewhere(invocation: Invocation) -> bool:
    """Whether a wrapper runs the command where the checkout's paths are not its own."""
    return any(FILES in w.apart for w in invocation.wrappers)


def _run_variables(script: Script) -> tuple[set[str], set[str], set[str], set[str]]:
    """The variables a command of the script runs as a command line (`$CMD ...` unquoted,
    `eval "$CMD"`), those of them `eval` runs (bash reads their text as a script: `| tee log`
    is a pipe there, not words), those a command that runs in a container or on another host
    reads (`docker exec "$C" "${cmd[@]}"`, `ssh "$HOST" $CMD`), and those only `eval "$CMD"`
    runs, quoted (each line of the text a command: unquoted, bash splits the value at its
    newlines too, and `eval` joins the words on one line)."""
    run: set[str] = set()
    evaluated: set[str] = set()
    elsewhere: set[str] = set()
    quoted: set[str] = set()
    split: set[str] = set()
    for command in script.all_commands():
        words = command.words
        if not words:
            continue
        first = words[0]
        if (name := first.unquoted_variable()) is not None:
            run.add(name)
            split.add(name)
        elif first.value == "eval" and len(words) == 2:
            name = words[1].variable()
            if name is not None:
                run.add(name)
                evaluated.add(name)
                (split if words[1].unquoted_variable() else quoted).add(name)
        if any(not w.static for w in words) and _elsewhere(command.invocation):
            elsewhere.update(read.name for word in words for read in word.reads())
    return run, evaluated, elsewhere, quoted - split


def _assigned_in(script: Script, raw: str) -> bool:
    """Whether a word is a variable's whole value (`$OPTS`, `${OPTS}`, `"${ARGS[@]}"`) that the
    script (its file) gives options: a value (or an array item) whose first word is an option
    (`OPTS="--lr 1"`, `ARGS=(--lr 1)`), not an option's value (`--base-ref "$REF"`) or an
    argument (`-t $PRECISION`, from a loop)."""
    match = _VARIABLE_PIECE.fullmatch(raw) or _ARRAY_WORD.fullmatch(raw)
    if match is None:
        return False
    name = match.group(1) or match.group(2)
    for inner in script.top.walk():
        for assignment in inner.assignments:
            given = assignment.value
            if assignment.name != name or given is None:
                continue
            values = [item.value for item in given.items] if given.items else [given.value]
            if any(v.lstrip().startswith("-") for v in values[:1]):
                return True
            if given.items is None and _starts_with_own(given.value, name):
                return True  # (`OPTS="$OPTS --x"`: options appended)
    return False


def _starts_with_own(value: str, name: str) -> bool:
    """`$NAME --x`, `${NAME} --x`: a value that appends to the variable's own."""
    match = _VARIABLE_PIECE.match(value)
    return (
        match is not None
        and (match.group(1) or match.group(2)) == name
        and value[match.end() :].lstrip().startswith("-")
    )


def _first_line(script: Script, given: Word, appended: bool = False) -> int:
    """How many of a string's pieces (`_pieces`) are on its first line: before the first
    newline in its value (one a `\\` before it joined is not in the value); of a value
    `NAME+=` appends, one before its first piece ends the line too."""
    if _sets_ifs(script):
        return 1
    value = given.value
    found = blank_separated(value)
    ends = [0 if appended else None, *(end for _, end in found)]
    return next(
        (
            i
            for i, (start, _) in enumerate(found)
            if ends[i] is not None and "\n" in value[ends[i] : start]
        ),
        len(found),
    )


def _word(script: Script, word: Word) -> _Piece:
    return _option_text(script, word), word.value, word.span


def _pieces(script: Script, word: Word) -> list[_Piece]:
    """The words bash splits a string's value into when it runs it unquoted (`$CMD`): its
    blank-separated pieces (`_piece`). Where the script sets `IFS` (`IFS=$'\\n\\t'`: a blank no
    longer splits), one word not known."""
    if _sets_ifs(script):
        return [(None, word.value, word.span)]
    return [_piece(script, text, span) for text, span in word.pieces()]


def _piece(script: Script, text: str, span: Span) -> _Piece:
    """One piece of a value run unquoted: its text; for one that holds an expansion, a quote
    or a pattern, not known, but an option written with its value is that option
    (`--num_gpus=$G`: `--num_gpus=0`, as `Word.option_form` reads one)."""
    if not any(c in text for c in "$`'\"\\*?[{"):
        return text, text, span
    option = _OPTION_PIECE.match(text)
    if option is not None:
        return option.group(1) + "=0", text, span
    names = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", text))
    return ("--" if _may_be_dashdash(script, names) else None), text, span


def _read_pieces(script: Script, command: Command, name: str) -> list[_Piece] | None:
    """The words bash splits a variable's value into when it runs it unquoted, where the one
    assignment before the command reads a heredoc's whole text into it (`read -r -d '' CMD
    <<EOF`, `read_before`), each at its place in the heredoc; None for any other value."""
    read = read_before(command, name)
    if read is None:
        return None
    heredoc, at = read
    if heredoc.body is None:
        return None
    text, offsets = heredoc.value(heredoc.body, at)
    if not text.strip():
        return []

    def span(start: int, end: int) -> Span:
        return at.file.span(offsets[start], offsets[end - 1] + 1)

    if _sets_ifs(script):
        return [(None, text.strip(), span(0, len(text)))]
    # (split as `Word.pieces` splits a value: a substitution's blanks split nothing)
    return [_piece(script, text[a:b], span(a, b)) for a, b in blank_separated(text)]


# a piece that starts with an option written with its value (`--num_gpus=...`)
_OPTION_PIECE = lazy_compile(r"(--[A-Za-z0-9][A-Za-z0-9_.-]*)=")


def _sets_ifs(script: Script) -> bool:
    """Whether the script assigns `IFS` (not as a command's prefix: `IFS= read -r line`), so
    a blank may no longer split; worked out once per script."""
    top = script.top
    known = top.memo.get("sets-ifs")
    if not isinstance(known, bool):
        known = top.memo["sets-ifs"] = any(
            a.name == "IFS" and a.kind not in ("prefix", "read")
            for inner in top.walk()
            for a in inner.assignments
        )
    return known


def _texts(pieces: list[_Piece] | tuple[_Piece, ...]) -> list[tuple[str | None, str]]:
    """The words' texts and sources, where a `--` is one only as written (not a value's)."""
    return [(t if t != "--" or raw == "--" else None, raw) for t, raw, _ in pieces]


def _named(words: list[_Piece] | tuple[_Piece, ...]) -> tuple[int, str] | None:
    """`_script_index` of pieces: a word that may be `--` is one not known there."""
    return _script_index(_texts(words))


def _script_index(words: list[tuple[str | None, str]]) -> tuple[int, str] | None:
    """Where the script is named among the words ((known text, text as written) each), and
    its path as written: after `python3` and its own options, or the first word
    (`./client.py`); a module the interpreter runs (`python3 -m bench.collector`) as the path
    of its file (`bench/collector.py`); None when they run no script (`-c`, `-m json.tool`
    where no such file is in the repository is left to the caller)."""
    first, written = words[0]
    if written.endswith(".py") and not written.startswith("-"):
        return 0, written
    if first is None:
        return None
    name = first.rsplit("/", 1)[-1]
    second = words[1][0] if len(words) > 1 else None
    if name in _LAUNCHERS or (name, second) in _LAUNCHERS:
        start = 1 if name in _LAUNCHERS else 2
        return _launched(words, start)
    if not _PYTHON.fullmatch(name):
        return None
    i = 1
    while i < len(words):
        value, written = words[i]
        if value is None:
            return (i, written) if written.endswith(".py") else None
        if value in _VALUE_OPTIONS:
            i += 2
            continue
        if value == "-m" and i + 1 < len(words):
            module = words[i + 1][0]
            if module is None or not _MODULE.fullmatch(module):
                return None
            if module in _LAUNCHER_MODULES:  # (`python3 -m torch.distributed.run`: torchrun)
                return _launched(words, i + 2)
            return i + 1, module.replace(".", "/") + ".py"
        if value == "-" or value.startswith(("-m", "-c", "--")) or value[:1] != "-":
            return (i, value) if value.endswith(".py") else None
        if "c" in value[1:] or "m" in value[1:]:
            return None  # `-uc CODE`, `-um MODULE`
        i += 1
    return None


def _expanded(script: Script, command: Command, words: tuple[Word, ...]) -> list[_Piece] | None:
    """The words with each one that is a variable's whole value in their place: an array's
    items (`${ARGS[@]}`, `"${ARGS[@]}"`), or the pieces of a string run unquoted (`$ARGS`),
    where the script assigns the variable once, before the command, and nowhere appends to it;
    None where a word cannot be (a variable assigned otherwise). Only the words up to the
    script's (a `.py` word, or a module after `-m`) are put in place: those after it are the
    script's own, and cannot name it."""
    found: list[_Piece] = []
    past = False
    for word in words:
        if past:
            found += _in_place(script, command, word)
            continue
        module = (
            found and found[-1][0] in ("-m", "--module") and word.value not in _LAUNCHER_MODULES
        )
        past = _is_script(word.value) or bool(module)
        array = _ARRAY_WORD.fullmatch(word.value) if not word.static else None
        if array and array.group(2) == "*" and word.node.type == "string":
            return None  # (`"${ARGS[*]}"`: one word, the items joined)
        name = array.group(1) if array else word.unquoted_variable()
        if name is None:
            found.append(_word(script, word))
            continue
        given = once_before(command, name)
        if given is None:
            read = _held_pieces(script, command, name) if array is None else None
            if read is None:
                return None
            found += read
            continue
        if array is not None and given.items is not None:
            found += [_word(script, item) for item in given.items]
        elif array is None and given.items is None:
            found += _pieces(script, given)
        else:
            return None
    return found


def _in_place(script: Script, command: Command, word: Word) -> list[_Piece]:
    """A word of the script's own command line, as what it holds where it is a variable's whole
    value assigned once before (`once_before`): an array's items (`"${ARGS[@]}"`), or a string
    run unquoted as bash splits it (`$OPTS`); else the word, not known where it is not."""
    array = _ARRAY_WORD.fullmatch(word.value) if not word.static else None
    quoted_star = array is not None and array.group(2) == "*" and word.node.type == "string"
    name = array.group(1) if array else word.unquoted_variable()
    given = once_before(command, name) if name is not None and not quoted_star else None
    if given is not None and array is not None and given.items is not None:
        return [_word(script, item) for item in given.items]
    if given is not None and array is None and given.items is None:
        return _pieces(script, given)
    if given is None and array is None and name is not None and not quoted_star:
        read = _held_pieces(script, command, name)
        if read is not None:
            return read
    if given is None and array is not None and name is not None and not quoted_star:
        built = built_before(command, name)  # (`args=(...)`, then `args+=(...)`)
        if built is not None and all(w.items is not None for w, _ in built):
            return [_word(script, item) for w, _ in built for item in w.items or ()]
    return [_word(script, word)]


def _held_pieces(script: Script, command: Command, name: str) -> list[_Piece] | None:
    """The words bash splits a string variable's value into where the script does not assign
    it once: a heredoc read into it (`_read_pieces`), or a string it builds by appending
    (`o="$o --x"`, `o+=" --x"`: `built_before`), each piece at its place; None otherwise."""
    read = _read_pieces(script, command, name)
    if read is not None:
        return read
    built = built_before(command, name)
    if built is None or any(w.items is not None for w, _ in built):
        return None
    if _sets_ifs(script):
        return [(None, "".join(w.value[start:] for w, start in built), built[0][0].span)]
    found: list[_Piece] = []
    for word, start in built:
        offsets, file = word.offsets, word.script.file
        found += [
            _piece(script, word.value[a:b], file.span(offsets[a], offsets[b - 1] + 1))
            for a, b in blank_separated(word.value)
            if a >= start
        ]
    return found


def _script_variables(script: Script) -> frozenset[str]:
    """The variables the script gives a value naming a Python file (`SCRIPT=bench/x.py`, a
    function's parameter a call gives one: `local script=$1` and `run examples/peer.py`, or a
    heredoc read into it whose text names one: `read -r -d '' CMD <<EOF`)."""
    return frozenset(
        a.name
        for inner in script.top.walk()
        for a in inner.assignments
        if (
            a.value is not None
            and any(".py" in v for v in _assigned_values(script, a.value.value, a.command))
        )
        or (a.kind == "read" and any(_names_python(h, inner) for h in a.command.heredocs))
    )


def _names_python(heredoc: Heredoc, script: Script) -> bool:
    """Whether a heredoc's text holds a `.py` (the file a command line read from it runs)."""
    if heredoc.body is None:
        return False
    return ".py" in heredoc.value(heredoc.body, script)[0]


def _assigned_values(script: Script, value: str, at: Command) -> list[str]:
    """What an assignment gives: its value, or for a function's positional parameter (`$1`,
    `${2}`) the word each call of the function at the script's top level passes there."""
    match = _POSITIONAL.fullmatch(value)
    if match is None or at.function is None:
        return [value]
    if any(
        c.base == "shift" and c.node.start_byte < at.node.start_byte
        for c in script.top.body(at.function)
    ):
        return [_UNKNOWN_ARGUMENT]  # (`shift` first: which argument it is, not followed)
    index = int(match.group(1) or match.group(2))
    return [
        (c.words[index].value if c.words[index].static else _UNKNOWN_ARGUMENT)
        if len(c.words) > index
        else _UNKNOWN_ARGUMENT
        for c in script.top.all_commands()
        if c.words and c.words[0].value == at.function
    ]


# a call that passes no plain word where a function reads its parameter
_UNKNOWN_ARGUMENT = "$?"
_POSITIONAL = lazy_compile(r"\$(?:([1-9])|\{([1-9])\})")


def _whole_value(script: Script, command: Command, word: Word) -> _Piece:
    """A word that is a variable's whole value (`"$SCRIPT"`, `$SCRIPT`) as the one word it
    holds, where the script assigns it once before, a value with no expansion and, unquoted,
    no blank (`once_before`); else the word."""
    name = word.variable()
    given = once_before(command, name) if name is not None else None
    if given is None or not given.static or given.items is not None:
        return _word(script, word)
    if word.node.type != "string" and any(c in given.value for c in " \t\n"):
        return _word(script, word)
    return given.value, given.value, word.span


def _held_in_place(script: Script, command: Command, word: Word) -> list[_Piece]:
    """`_in_place`, and a quoted variable's one word (`"$S"`, `_whole_value`)."""
    pieces = _in_place(script, command, word)
    if len(pieces) == 1 and pieces[0][0] is None:
        return [_whole_value(script, command, word)]
    return pieces


def _on_line(line: _Line, index: int) -> Span:
    """Where a word of the line is, or, for one a variable put in place (its span is in the
    assignment), the line itself: where a line that is said is counted."""
    span, command = line.words[index][2], line.command.first_line_span
    return span if command.line <= span.line <= line.command.span.end_line else command


def _wrapped_at(texts: list[tuple[str | None, str]], whole: list[_Piece]) -> int | None:
    """`_after_wrapper_script` of the words, or of them with each variable's whole value in its
    place (`/fsx/profwrap torchrun $TRAIN_SCRIPT ...`)."""
    start = _after_wrapper_script(texts)
    if start is None and whole:
        held = _texts(whole)
        start = _after_wrapper_script(held)
    return start


def _after_wrapper_script(words: list[tuple[str | None, str]]) -> int | None:
    """Where a command line given to a program starts (`bash infra/wrap.sh python3 x.py`,
    `./wrap.sh python3 -m pkg.x`, `/fsx/profwrap torchrun x.py`): the word after a `.sh` path a
    shell runs, or a path the command runs as its program, where those words run a Python
    script; None otherwise."""
    at = script_word_at([text for text, _ in words])
    if at is None:
        return None
    return at + 1 if _script_index(words[at + 1 :]) is not None else None


def _array_scripts(
    script: Script, command: Command, name: str, pieces: list[_Piece], at: int
) -> tuple[str, ...]:
    """The script paths the items of an array's assignments that may reach the command name
    where the line puts them in place of its word `at`, with options after them (in the items
    or on the line); none where one assignment alone reaches it (the line is read)."""
    found: dict[str, None] = {}
    assigned = [
        (inner, a)
        for inner in script.top.walk()
        for a in inner.assignments
        if a.name == name
        and a.value is not None
        and a.value.items is not None
        and not inner.text_of(a.node).startswith(f"{name}+=")
        and _may_reach(a.command, command, a.kind)
    ]
    # (an assignment in the command's own body, under no condition or loop, before it: the
    # ones before that one are replaced)
    last = max(
        (
            i
            for i, (_, a) in enumerate(assigned)
            if a.command.function == command.function
            and not a.command.guards
            and not a.command.loops
        ),
        default=0,
    )
    if len(assigned) < 2:
        return ()  # (assigned once, then appended to: the command line it builds is read)
    assigned = assigned[last:]
    for _, assignment in assigned:
        given = assignment.value
        assert given is not None and given.items is not None  # (the filter above)
        items = [_word(script, item) for item in given.items]
        line = [*pieces[:at], *items, *pieces[at + 1 :]]
        named = _named(line)
        if named is None or not at <= named[0] < at + len(items):
            continue
        if any(t is not None and t[:1] == "-" for t, _, _ in line[named[0] + 1 :]):
            found[named[1]] = None
    return tuple(found)


def _may_reach(at: Command, command: Command, kind: str) -> bool:
    """Whether an assignment may give its value to a command: one in the command's own body
    (its function's, or the top level's) before it, or any one another function makes that is
    no `local` of it."""
    if at.function == command.function:
        return at.node.start_byte < command.node.start_byte or bool(command.loops)
    return at.function is None or kind != "local"


def _from_zero(script: Script, value: str) -> bool:
    """Whether a path is written from `$0` (`$(dirname "$0")/x.py`), directly or through the
    variable it starts with (`HERE=$(dirname "$0")`; `TOOL="${HERE}/x.py"`), two deep."""
    texts = [value]
    for _ in range(2):
        found = _ZERO.search(" ".join(texts))
        if found is not None:
            return True
        names = {m.group(1) or m.group(2) for t in texts for m in _LEADING_NAME.finditer(t)}
        texts = [
            a.value.value
            for inner in script.top.walk()
            for a in inner.assignments
            if a.name in names and a.value is not None
        ]
        if not texts:
            return False
    return _ZERO.search(" ".join(texts)) is not None


_ZERO = lazy_compile(r"\$0\b|\$\{0\}")
_LEADING_NAME = lazy_compile(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _held(
    script: Script,
    command: Command,
    words: tuple[Word, ...],
    pieces: list[_Piece],
    variables: frozenset[str],
) -> tuple[int, tuple[str, ...], bool, bool] | None:
    """Where a variable the script gives a Python file's path names the script, though not one
    path with no expansion once before (`_whole_value`), and options follow it or, unquoted,
    its values hold some (`OPTS="bench.py "`, then `OPTS="$OPTS --k 1"` in a loop): the word's
    index, the paths its assignments give (each put in its place names the script there), and
    whether it is given one once before (`once_before`: a path with an expansion, or a
    function's parameter; not a default the environment may override), and whether that one is
    a function's parameter (`local script=$1`)."""
    for i, word in enumerate(words):
        array = _ARRAY_WORD.fullmatch(word.value) if not word.static else None
        if array is not None and array.group(1) in variables:
            # (`"${CMD[@]}" --k 1`, CMD assigned twice: the script its items may name)
            paths = _array_scripts(script, command, array.group(1), pieces, i)
            if paths:
                return i, paths, False, False
            continue
        name = word.variable()
        if name not in variables:
            continue
        values = [
            v
            for inner in script.top.walk()
            for a in inner.assignments
            if a.name == name and a.value is not None
            for v in _assigned_values(script, a.value.value, a.command)
        ]
        # (`${TRAIN_SCRIPT:-src/train.py}`: the default, where the environment gives none)
        values = [own_default(v, name) for v in values]
        split = word.node.type != "string"  # (unquoted: bash splits it at blanks)
        firsts = dict.fromkeys((v.split() or [""])[0] if split else v for v in values)
        held = tuple(
            v
            for v in firsts
            if _is_script(v)
            and _named([*pieces[:i], (v, v, word.span), *pieces[i + 1 :]]) == (i, v)
        )
        # (options on the line, or in an array or a string assigned once before it)
        after = [p for w in words[i + 1 :] for p in _in_place(script, command, w)]
        options = any(t is not None and t[:1] == "-" for t, _, _ in after)
        if held and (options or (split and any(" -" in v for v in values))):
            given = once_before(command, name)
            once = given is not None and own_default(given.value, name) == given.value
            return (
                i,
                held,
                once,
                once
                and given is not None
                and bool(_POSITIONAL.fullmatch(given.value))
                and _UNKNOWN_ARGUMENT not in values,
            )
    return None


# the folder the command runs in, written as an expansion before a relative path
_CURRENT_FOLDER = lazy_compile(r"^(?:\$PWD|\$\{PWD\}|\$\(pwd\)|`pwd`)/(?=[^/])")


def _expanded_pieces(script: Script, command: Command, pieces: list[_Piece]) -> list[_Piece]:
    """A string's pieces (`run_cmd="torchrun $DIST x.py ..."`) with each that is a string
    variable's whole value (`$DIST`), assigned once before, in its place as bash splits it."""
    found: list[_Piece] = []
    for piece in pieces:
        text, raw, _ = piece
        match = _VARIABLE_PIECE.fullmatch(raw) if text is None else None
        given = once_before(command, match.group(1) or match.group(2)) if match else None
        if given is None or given.items is not None:
            found.append(piece)
        else:
            found += _pieces(script, given)
    return found


_VARIABLE_PIECE = lazy_compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
# `${NAME[@]}` and `"${NAME[@]}"` (an array's items, each a word)
_ARRAY_WORD = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\[([@*])\]\}")


def _launched_after_unknown(words: list[tuple[str | None, str]]) -> bool:
    """Whether the script (a `.py` word, or a module after `-m`) is named after a word that is
    not known where the program or a launcher's options are, so which script runs cannot be
    told: the program a variable holds (`${LAUNCH_SCRIPT} train.py`, `srun $SRUN_ARGS python3
    train.py`, where the wrapper's options end at the variable), or a launcher's options
    (`torchrun $DIST_ARGS train.py`, `python3 -m torch.distributed.run $DIST_ARGS -m pkg`:
    `_launched`)."""
    if not words:
        return False
    first = words[0][0]
    if first is None:
        return _script_word(words[1:]) is not None
    start = _launcher_start(words)
    if start is None:
        return False
    for i in range(start, len(words)):
        text, written = words[i]
        if _is_script(written) or text in ("-m", "--module"):
            return False
        if text is None:
            return _script_word(words[i + 1 :]) is not None
    return False


def _options_end(wrapper: str, pieces: list[_Piece]) -> int:
    """Where a wrapper's own options end among the pieces that follow its known words (its
    grammar's: an option that takes a value takes the next piece); 0 where they are not all
    known options, as the variable may hold the command itself."""
    grammar = WRAPPER_GRAMMARS.get(wrapper)
    i = 0
    while grammar is not None and i < len(pieces):
        text = pieces[i][0]
        if text is None or text[:1] != "-" or text == "--":
            return i if text is not None and text[:1] != "-" else 0
        long = text[2:] if text.startswith("--") else ""
        valued = (long and "=" not in long and long in grammar.long_values) or (
            not long and len(text) == 2 and text[1] in grammar.short_values
        )
        i += 2 if valued else 1
    return 0


def _after_dashdash(words: list[tuple[str | None, str]]) -> int | None:
    """Where the command a program runs after its `--` starts, when that command runs a Python
    interpreter or a launcher and names a script (`efficiency-pentathlon run ... -- python3
    x.py`); None otherwise."""
    texts = [text for text, _ in words]
    if "--" not in texts[1:]:
        return None
    at = texts.index("--", 1) + 1
    rest = words[at:]
    if not rest or rest[0][0] is None:
        return None
    name = rest[0][0].rsplit("/", 1)[-1]
    if not (_PYTHON.fullmatch(name) or name in _LAUNCHERS or _launcher_start(rest) is not None):
        return None
    return at if _script_index(rest) is not None else None


# the operators that end a command in a shell string's words
_LISTS = frozenset({"&&", "||", ";", "|"})


def _shell_after_dashdash(
    texts: list[tuple[str | None, str]], words: tuple[Word, ...]
) -> Word | None:
    """The string a shell runs after a program's `--` (`gantry run ... -- /bin/bash -c
    "torchrun x.py ..."`): the program runs that shell, whose command line benchlint reads as
    the text's words (no nested shell is made of a command an unknown program runs)."""
    values = [text for text, _ in texts]
    if "--" not in values[1:]:
        return None
    at = values.index("--", 1) + 1
    shell = values[at] if at + 2 < len(values) else None
    if shell is None or values[at + 1] != "-c" or shell.rsplit("/", 1)[-1] not in ("bash", "sh"):
        return None
    return words[at + 2] if at + 2 < len(words) else None


def _launcher_start(words: list[tuple[str | None, str]]) -> int | None:
    """Where a launcher's own words start (`torchrun`, `accelerate launch`, `python3 -m
    torch.distributed.run`); None where the words run no launcher."""
    first = words[0][0] or ""
    name = first.rsplit("/", 1)[-1]
    second = words[1][0] if len(words) > 1 else None
    if name in _LAUNCHERS:
        return 1
    if (name, second) in _LAUNCHERS:
        return 2
    if _PYTHON.fullmatch(name):
        texts = [text for text, _ in words[:4]]
        at = texts.index("-m") if "-m" in texts else -1
        if 0 < at < len(words) - 1 and words[at + 1][0] in _LAUNCHER_MODULES:
            return at + 2
    return None


def _script_word(words: list[tuple[str | None, str]]) -> int | None:
    """Where among the words the script is named: a `.py` word, or a module after `-m`."""
    for i, (text, written) in enumerate(words):
        if _is_script(written):
            return i
        if text in ("-m", "--module") and i + 1 < len(words):
            return i + 1
    return None


def _is_script(written: str) -> bool:
    return written.endswith(".py") and written[:1] != "-"


def _launched(words: list[tuple[str | None, str]], start: int) -> tuple[int, str] | None:
    """The script a launcher runs (`torchrun --nproc-per-node 8 train.py ...`): the first
    word that names a `.py` file, or what a Python interpreter it runs is given; None where a
    word not known could be it (one that is not the value of a launcher's option)."""
    for i in range(start, len(words)):
        text, written = words[i]
        if written.endswith(".py") and not written.startswith("-"):
            return i, written
        if text is not None and _PYTHON.fullmatch(text.rsplit("/", 1)[-1]):
            found = _script_index(words[i:])
            return None if found is None else (i + found[0], found[1])
        if text in ("-m", "--module"):  # (`torchrun -m pkg.train`: a module, as `python3 -m`)
            module = words[i + 1][0] if i + 1 < len(words) else None
            if module is None or not _MODULE.fullmatch(module):
                return None
            return i + 1, module.replace(".", "/") + ".py"
        if text == "--":
            return None
        if text is None:  # (the value of the option before it, or not known)
            previous = words[i - 1][0] or ""
            if previous[:1] != "-" or "=" in previous:
                return None
            if previous.lstrip("-").replace("_", "-") in _LAUNCHER_FLAGS:
                return None
    return None


def _say_line(ctx: Context, script: Script, line: _Line, site: _Where, said: str) -> None:
    """Count a line that is not read, where the script it names is a file of the repository
    and options follow it."""
    named = _named(line.words)
    if named is None:
        return
    index, value = named
    if not any(t is not None and t[:1] == "-" for t, _, _ in line.words[index + 1 :]):
        return
    targets = _targets(ctx, script, value, not line.words[index][1].endswith(".py"))
    if targets:
        at = Location(script.path, site.place(_on_line(line, index)))
        ctx.count(said, at, involves=tuple(targets))


def _command_line(
    ctx: Context, script: Script, line: _Line, folders: _Folders, site: _Where, depth: int = 0
) -> Iterator[Finding]:
    if line.unread:
        _say_unread(ctx, script, line, site)
        return
    if line.wrapper is not None:
        runs = script_runs_arguments(ctx.ws, script, line.wrapper)
        if not isinstance(runs, tuple):  # (what it runs them with: not known)
            _say_line(ctx, script, line, site, _PROGRAM_SAID if runs is None else _GIVEN_SAID)
            return
        invocation, moves = runs
        away = line.elsewhere or _elsewhere(invocation)
        if moves:  # (its paths are from the folder it changes to: said, as after a `cd`)
            why = "in a working directory not known"
            _say_line(ctx, script, line, site, _ELSEWHERE_SAID.format(why))
            return
        line = replace(line, wrapper=None, elsewhere=away)
    if line.held:  # (options follow, or the variable holds some: `_held`)
        targets = list(dict.fromkeys(t for v in line.held for t in _targets(ctx, script, v)))
        value = line.held[0]
        once = line.fixed is not None  # (given once before: `_held`)
        # (from a folder known wherever it runs, or a function's parameter every call gives
        # the same plain path: `local script=$1`, `run examples/peer.py`)
        plain = line.fixed == "param" and len(line.held) == 1 and "$" not in value
        if (
            once
            and len(targets) == 1
            and not line.elsewhere
            and (plain or from_known_folder(script, value))
        ):
            words = ((value, value, line.words[0][2]), *line.words[1:])
            line = replace(line, words=words, held=(), fixed=targets[0])
        else:
            if targets:
                at = Location(script.path, site.place(line.words[0][2]))
                ctx.count(_HELD_SAID, at, involves=tuple(targets))
            return
    named = _named(line.words)
    if named is None:
        return
    index, value = named
    value = _CURRENT_FOLDER.sub("", value, count=1)  # (`${PWD}/src/x.py` is `src/x.py`)
    if site.prefix and not value.startswith(("/", "$", "`")):
        value = value.removeprefix("./")
        if not value.startswith(site.prefix + "/"):
            return  # (a file of the workspace beside the checkout: not the repository's)
        value = value[len(site.prefix) + 1 :]
    where = site.place(line.words[index][2])
    words = line.words[index + 1 :]
    texts = [text for text, _, _ in words]
    options = any(text is not None and text[:1] == "-" for text in texts)
    # (`python3 x.py $OPTS` where the script gives OPTS several values: which is not known)
    varied = any(text is None and _assigned_in(script, raw) for text, raw, _ in words)
    if line.behind:
        module = not line.words[index][1].endswith(".py")
        targets = _targets(ctx, script, value, module) if options else []
        if targets:
            ctx.count(_BEHIND_SAID, Location(script.path, where), involves=tuple(targets))
        return
    if _from_zero(script, value) and ctx.environment.calls.is_sourced(script.top.path):
        # (`$(dirname "$0")` in a file a script sources: `$0` is the sourcing script's)
        targets = _targets(ctx, script, value) if options else []
        if targets:
            why = "from `$0`, which names the script that sources this file"
            ctx.count(
                _ELSEWHERE_SAID.format(why), Location(script.path, where), involves=tuple(targets)
            )
        return
    relative = not value.startswith(("/", "$", "`"))
    moved, into = folders.changed(line.command) if relative else (False, None)
    if relative and not moved and (site.folder is not None or site.unknown):
        moved, into = True, site.folder  # (a workflow step's working directory)
    away = line.elsewhere and not value.startswith(MOUNTS)
    if not options and not varied:
        return  # (no option to read)
    module = not line.words[index][1].endswith(".py")  # `python3 -m pkg.mod`
    path = value
    targets = _paths_of(ctx, script, path, module, into if moved else None)
    if not targets and module:  # (`python3 -m verl.model_merger`: the package's `__main__.py`)
        path = value.removesuffix(".py") + "/__main__.py"
        targets = _paths_of(ctx, script, path, module, into if moved else None)
    if moved and into is not None:  # (`cd "$(dirname "$0")"`: the path is from that folder)
        moved = False
    if not targets and relative and (site.unknown or moved):  # (that name in any folder)
        suffix = "/" + posixpath.normpath(path)
        targets = [p for p in ctx.ws.python_paths if ("/" + p).endswith(suffix)]
    if not targets and module and into is None and "/" in value:
        # (`-m eval.mmlu.run_eval` where the repository's file is inside another package's
        # folder, `inference/eval/mmlu/run_eval.py`: run from that folder it is that file,
        # from elsewhere an installed module: said, not read)
        suffix = "/" + value
        inside = [p for p in ctx.ws.python_paths if ("/" + p).endswith(suffix)]
        if inside:
            ctx.count(_INSTALLED_SAID, Location(script.path, where), involves=tuple(inside))
        return
    if not targets and value.startswith("/") and not module:
        # (`/fsx/ubuntu/proj/src/x.py`: a clone of the repository elsewhere, or a mount, may
        # hold the file whose path the path ends in: said, not read)
        clones = [p for p in ctx.ws.python_paths if "/" in p and value.endswith("/" + p)]
        if clones:
            why = "at an absolute path another clone or a mount of the repository may hold"
            ctx.count(
                _ELSEWHERE_SAID.format(why), Location(script.path, where), involves=tuple(clones)
            )
        return
    folder = None
    if not targets and not module:
        folder = _variable_folder(ctx, script, value, line.command)
    if folder is not None:
        # (`$WS_PATH/sync.py`, WS_PATH set by a script that sources this one, or the job, or by
        # a file this one sources: a file of the repository may be the one, at a folder not
        # known here: said, not read)
        ends = [m.end() for m in PATH_EXPANSION.finditer(value)]
        tail = value[ends[-1] :] if ends else ""
        alike = [p for p in ctx.ws.python_paths if tail[:1] == "/" and ("/" + p).endswith(tail)]
        if alike:
            ctx.count(
                _ELSEWHERE_SAID.format(folder), Location(script.path, where), involves=tuple(alike)
            )
        return
    expanded = not module and into is None and ("$" in value or "`" in value)
    if expanded and not targets:  # (`D=tools; D=bench; python $D/x.py`: bench's, as bash runs)
        in_effect = _value_in_effect(ctx, value, line.command)
        targets = _targets(ctx, script, in_effect) if in_effect is not None else []
    every = resolve(ctx.ws, script, value, python=True) if expanded and not targets else None
    if every is not None and len(every) > 1:
        # (`if ...; then T=bench; else T=tools; fi`: each value names a file of the repository,
        # any may run: reported where every one rejects the word, as below)
        targets = every
    elif not targets and expanded:
        # (`D=bench; D=/opt/other; python $D/client.py`: which file runs is not known; said,
        # not read)
        maybe = resolve(ctx.ws, script, value, python=True, some=True)
        if maybe:
            why = (
                "through a variable given several values that do not all name one file of it: "
                "another file, a folder outside it, or one its caller or the job gives"
            )
            ctx.count(
                _ELSEWHERE_SAID.format(why), Location(script.path, where), involves=tuple(maybe)
            )
        return
    if not targets:
        return
    if module and into is None and "/" not in value and posixpath.normpath(path) not in targets:
        # (`-m` finds the module from the folder the script runs in, the checkout's root as a
        # rule; where that folder has no file of the name, an installed module runs. A
        # package's module, `-m triton.runner`, is its folder's: installed, as `pip install
        # -e` installs `src/pkg`, or an error where there is no such package)
        ctx.count(_INSTALLED_SAID, Location(script.path, where))
        return
    if site.external:
        ctx.count(_EXTERNAL_SAID, Location(script.path, where), involves=tuple(targets))
        return
    if site.other_shell:
        ctx.count(_SHELL_SAID, Location(script.path, where), involves=tuple(targets))
        return
    if moved or away:  # (a file of the repository has the name: said, not read)
        why = "in a container, on another host or as a Ray job" if away else "after a `cd`"
        if not away and site.unknown:
            why = "in a working directory not known"
        at = Location(script.path, where)
        ctx.count(_ELSEWHERE_SAID.format(why), at, involves=tuple(targets))
        return
    if varied:
        ctx.count(_VARIED_SAID, Location(script.path, where), involves=tuple(targets))
    read = [(target, script_parser(ctx.ws, target)) for target in targets]
    if any(not isinstance(p, str) for _, p in read):
        # (a file its path may name that reads no command line at all, beside one whose parser
        # is told: not what the script runs with options; mlcommons' `main.py` of mkdocs at
        # the root beside each benchmark's own: h72 M1)
        read = [(t, p) for t, p in read if p != pyargs.NO_PARSER or _reads_command_line(ctx, t)]
        targets = [t for t, _ in read]
    untold = next(((t, p) for t, p in read if isinstance(p, str)), None)
    if untold is not None:
        # (with the others its path may name: which runs depends on the folder it runs in; the
        # reason is the first file's, and says so where another one's parser is told)
        target, reason = untold
        others = ", ".join(f"`{t}`" for t in targets if t != target)
        told = [t for t, p in read if not isinstance(p, str)]
        whose = ", whose parser is told" if told and len(told) == len(targets) - 1 else ""
        said = (
            f"`{target}` (or {others} where it runs from another folder{whose})"
            if others
            else f"`{target}`"
        )
        at = Location(script.path, where)
        if reason == pyargs.NO_PARSER and not others:  # (one line for them all: each run
            said, reason = _NO_PARSER_SAID, ""  # names its script)
        ctx.count(f"{_UNTOLD}: {said}" + (f": {reason}" if reason else ""), at, tuple(targets))
        return
    parsers = [p for _, p in read if not isinstance(p, str)]
    found = [dict(pyargs.problems(parser, texts)) for parser, _ in parsers]
    if any(
        parser.keeps_unknown
        and not parser.drops_at
        and pyargs.problems(replace(parser, keeps_unknown=False), texts)
        for parser, _ in parsers
    ):  # (options its `parse_known_args` keeps: what later code does with them is not known)
        ctx.count(_KEPT_SAID, Location(script.path, where), tuple(targets))
    for i, problem in sorted(found[0].items()):
        if all(i in other for other in found[1:]):
            made = [
                _made(ctx, path, other[i].line or parser.line)
                for (parser, path), other in zip(parsers, found, strict=True)
            ]
            # (and where another module's function adds options to it)
            made += [_made(ctx, file, at) for parser, _ in parsers for file, at in parser.added]
            # (and the script itself, where another module makes its parser: a run that
            # names the script reports the line)
            made += [
                Location(t, _made(ctx, t, 1).span, "the script it runs")
                for t in targets
                if all(t != m.path for m in made)
            ]
            at = Location(script.path, site.place(words[i][2]))
            yield _finding(targets, parsers[0][0], problem, at, made, texts)
    if not any(found):
        # (`$ARGS` the script gives several values, each known: a required option none of them
        # and no written word gives is missing whichever runs, h33 N1)
        given = _with_held_values(ctx, script, line.command, words) if varied else None
        missing = {_required_missing(parser, given or texts) for parser, _ in parsers}
        if len(missing) == 1 and None not in missing:
            made = [_made(ctx, path, parser.line) for parser, path in parsers]
            yield _missing_finding(targets, missing.pop() or "", Location(script.path, where), made)
    # a launcher of another script (`multiproc.py --nproc 8 train.py --lr 1`): the words from
    # the script's on are that script's command line
    starts = {pyargs.remainder_start(parser, texts) for parser, _ in parsers}
    start = starts.pop() if len(starts) == 1 else None
    if start is not None and depth < 3 and all(p.positionals <= 1 for p, _ in parsers):
        inner = _Line(line.command, words[start:], line.elsewhere)
        yield from _command_line(ctx, script, inner, folders, site, depth + 1)


def _with_held_values(
    ctx: Context, script: Script, command: Command, words: Sequence[_Piece]
) -> list[str | None] | None:
    """The command line's words with each unquoted variable the script gives several values
    (`$ARGS`) replaced by the words of all of them, where every value is known: the variable
    gets a value on every way to the command (an assignment of the top level under no
    condition, or one in each branch of an `if`), each a plain string, and nothing else sets
    it (no `read`, loop, `eval` or sourced file). None where one is not known. (A required
    option missing from this line is missing from every line the values make.)"""
    if command.function is not None or command.loops or script.parent is not None:
        return None
    state = ctx.environment.state_before(script, command.file_offset, command)
    if state.unknown or any(c.kind == "source" for c in ctx.environment.calls.calls_in(script)):
        return None
    texts: list[str | None] = []
    for text, raw, _ in words:
        if text is not None:
            texts.append(text)
            continue
        match = _VARIABLE_PIECE.fullmatch(raw)
        name = (match.group(1) or match.group(2)) if match is not None else None
        if (
            name is None
            or name not in state.assigned
            or not _given_every_way(script, name, command.file_offset)
            or _set_otherwise(script, name)
        ):
            return None
        values = [a.value for a in assignments_of(script, name)]
        if not values or any(v is None or v.items is not None or "$(" in v.text for v in values):
            return None
        for value in values:
            assert value is not None
            texts += [None if "$" in piece else piece for piece in value.value.split()]
    return texts


def _given_every_way(script: Script, name: str, before: int) -> bool:
    """Whether the script's top level gives the variable a value on every way to the offset:
    an assignment under no condition, or one in each branch of an `if` (`if ...; then A=1;
    else A=2; fi`: one condition, taken one way and the other)."""
    made = [
        a.command
        for a in script.assignments
        if a.name == name
        and a.command.node.start_byte < before
        and a.command.function is None
        and not a.command.loops
        and not a.command.apart_from_script
    ]
    if any(not c.guards for c in made):
        return True
    for first, second in itertools.combinations(made, 2):
        one, other = first.guards, second.guards
        if (
            len(one) == len(other) == 1
            and not one[0].patterns
            and one[0].node == other[0].node
            and one[0].expect != other[0].expect
        ):
            return True
    return False


def _set_otherwise(script: Script, name: str) -> bool:
    """`set_otherwise`, and any `eval` or name reference at all (what they set is not
    followed here)."""
    return set_otherwise(script, name) or any(
        command.base == "eval"
        or (
            command.base in ("declare", "local", "typeset")
            and any(w.value.startswith("-") and "n" in w.value for w in command.args)
        )
        for command in script.all_commands()
    )


def _value_in_effect(ctx: Context, value: str, command: Command) -> str | None:
    """A path that starts with a variable (`$D/client.py`), with the value the variable holds
    where a command of the script's top level runs it, when that is plain: the assignment in
    effect there (`Environment.state_before`, the calls before it too) is the script's own, at
    its top level, under no condition or loop, and written out. None otherwise."""
    head, rest = _leading_expansion(value.strip())
    match = re.fullmatch(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))", head)
    script = command.script
    if match is None or command.function is not None or command.loops or script.parent:
        return None
    name = match.group(1) or match.group(2)
    state = ctx.environment.state_before(script, command.file_offset, command)
    known = state.assigned.get(name)
    at = known.at if known is not None else None
    if not isinstance(at, Assignment) or at.command.script is not script:
        return None  # (a file it sources, a wrapper, or nothing of the script's)
    if at.command.function is not None or at.command.guards or at.command.loops:
        return None  # (a function's, whose call may be under a condition; or a condition's)
    held = at.value
    if at.kind not in ("assign", "export") or held is None or not held.static:
        return None
    if not held.value or "$" in held.value:
        return None
    return held.value + rest


def _variable_folder(ctx: Context, script: Script, value: str, command: Command) -> str | None:
    """Why the folder a path starts with (`$WS_PATH/...`, `${DIR}/...`, `$1/...`) is not known
    here: a variable that neither the script nor a file it sources assigns, and no shell sets
    (`$HOME`): its caller's or the job's; one a file it sources assigns (not followed); one
    only a loop or a `read` of the script sets. None otherwise (the script assigns it: where
    that names no file of the repository, the path is not the repository's)."""
    # (a name, or a positional parameter: `$1/main.py`, the caller's argument; with a default,
    # `${D:-bench}/x.py`, the caller's value where it gives one)
    match = re.match(
        r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*|[1-9])(?::?[-=][^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*|[1-9]))",
        value,
    )
    name = (match.group(1) or match.group(2)) if match is not None else None
    if name is None or name in _SHELL_SET:
        return None
    top = script.top
    kinds = {a.kind for a in top.assignments if a.name == name}
    if kinds == {"for"} and match is not None:
        # (`for d in /opt; do python3 $d/sync.py`: where every value the loop gives is written
        # out and none names a file of the repository, the path is not the repository's)
        rest = value[match.end() :]
        loops = [  # (the loops of the variable the command runs in)
            a.command.node for a in top.assignments if a.name == name and a.kind == "for"
        ]
        inside = [n for n in loops if n in command.loops] or loops
        values = [v for n in inside for v in loop_words(top.text_of(n), name)]
        if all(LOOP_VALUE.fullmatch(v) for v in values) and not _PATH_EXPANSION_IN.search(rest):
            paths = {posixpath.normpath(v + rest) for v in values}
            if not any(ctx.ws.is_python(p) for p in paths):
                return None
    if kinds and kinds <= {"for", "read"}:
        return "in a folder named by a variable a loop or a `read` of the script sets: not followed"
    if "default" in kinds:  # (`: ${WS:=/opt/w}`)
        return "in a folder named by a variable the job may give, else the script's default"
    if kinds:
        return None
    for call in ctx.environment.calls.calls_in(top):
        for target in call.targets if call.kind == "source" else ():
            library = ctx.ws.shell(target)
            if library is not None and any(a.name == name for a in library.assignments):
                return "in a folder named by a variable a file it sources sets: not followed"
    return "in a folder a variable the script does not set names: its caller's, or the job's"


_PATH_EXPANSION_IN = lazy_compile(r"[$`]")

# variables a shell or login sets: a path under one is not a caller's folder
_SHELL_SET = frozenset({"HOME", "PWD", "OLDPWD", "TMPDIR", "USER", "SHELL", "PATH"})


def _made(ctx: Context, path: str, line: int) -> Location:
    """Where a parser that rejects the word is made: the line's text, without its indent."""
    source = ctx.ws.source(path)
    text = source.line_text(line) if source is not None and line <= source.line_count else ""
    start = len(text) - len(text.lstrip()) + 1
    return Location(path, Span(line, start, line, max(len(text.rstrip()) + 1, start)))


def _paths_of(
    ctx: Context, script: Script, value: str, module: bool, into: str | None
) -> list[str]:
    """The repository's Python files a script path may name (`_targets`), or, after a `cd`
    into a fixed folder (`into`), the one of that folder. A package's module found nowhere
    there is the file under `src/` where the package is there (`-m bench.client`:
    `src/bench/client.py`, as `pip install -e` installs a src layout)."""
    if into is None:
        found = _targets(ctx, script, value, module)
    else:
        joined = posixpath.normpath(posixpath.join(into, value))
        found = [joined] if ctx.ws.is_python(joined) else []
    package = value.split("/", 1)[0]
    installed = ctx.ws.is_python(f"src/{package}/__init__.py") and ctx.ws.is_python(f"src/{value}")
    if not found and module and "/" in value and installed:
        found = [f"src/{value}"]
    return found


def _say_unread(ctx: Context, script: Script, line: _Line, site: _Where) -> None:
    """Count a launcher's line whose script cannot be told (`_Line.unread`), where the script
    it names (a `.py` word, or a module after `-m`) is a file of the repository and options
    (or words not known) follow it."""
    # (as `_named` reads them: a word that may be `--` is not known)
    texts = _texts(line.words)
    unknown = next((i for i, (text, _) in enumerate(texts) if text is None), None)
    at = _script_word(texts[unknown + 1 :]) if unknown is not None else None
    if unknown is None or at is None:
        return
    at += unknown + 1
    rest = [text for text, _, _ in line.words[at + 1 :]]
    # (a word not known may hold options too: `"${ARGS[@]}"`; h82 W2)
    options = any(text is None or text[:1] == "-" for text in rest)
    written = line.words[at][1]
    module = not _is_script(written)
    value = written.replace(".", "/") + ".py" if module else written
    targets = _targets(ctx, script, value, module) if options else []
    if targets:
        where = Location(script.path, site.place(line.words[at][2]))
        ctx.count(_UNREAD_SAID, where, involves=tuple(targets))


def _targets(ctx: Context, script: Script, value: str, module: bool = False) -> list[str]:
    """The repository's Python files a script path may name: a relative path names the one
    under the checkout's root, beside the script or under a folder the script is in (which
    folder the script runs in is not known: each of them that is there); another path the
    one file it resolves to. A module (`module`: `python3 -m pkg.mod`) is not the file of that
    path under a folder that is itself a package's (`-m lm_eval` names an installed
    `lm_eval`, not `srtctl/benchmarks/lm_eval.py`: that is `srtctl.benchmarks.lm_eval`)."""
    if value.startswith("/") or "$" in value or "`" in value:
        found = resolve(ctx.ws, script, value, python=True)
        return found if found and len(found) == 1 else []
    parts = posixpath.dirname(script.path).split("/")
    bases = ["/".join(parts[:i]) for i in range(len(parts) + 1)]  # "", "a", "a/b" ...
    if module:
        bases = [b for b in bases if not ctx.ws.is_python(posixpath.join(b, "__init__.py"))]
    joined = [posixpath.normpath(posixpath.join(base, value)) for base in bases]
    # (through a symlinked folder of the repository, the file it names: `modules/Repo/x.py`)
    real = [ctx.ws.through_links(p) for p in joined] if ctx.ws.folder_links else joined
    return [p for p in dict.fromkeys(real) if ctx.ws.is_python(p)]


def _option_text(script: Script, word: Word) -> str | None:
    """The word as argparse reads it: its text, or for a word whose value is not known only its
    option (`--model=$MODEL`: `--model=0`); None for a word not read (its value is not known,
    or bash makes several words of it: `--tp={4,8}`), `--` when it may be one (the script gives
    a variable it reads a `--`)."""
    if word.brace_expands:
        return None
    known = word.option_form
    if known is not None:
        return known
    if _may_be_dashdash(script, {read.name for read in word.reads()}):
        return "--"
    return None


def _may_be_dashdash(script: Script, names: set[str]) -> bool:
    """Whether the script gives one of these variables a value that holds a `--` word (not
    one a command substitution runs with: `$(cd -- "$DIR" && pwd)`)."""
    for assignment in script.top.assignments:
        if assignment.name in names and assignment.value is not None:
            given = assignment.value
            items = given.items or [given]
            if any(" -- " in f" {_SUBSTITUTION.sub(' ', item.value)} " for item in items):
                return True
    return False


@dataclass(frozen=True)
class _Folders:
    """A script's `cd`s, `pushd`s and `popd`s, each with the repository folder it goes to where
    that is fixed (`cd "$(dirname "$0")"`, `cd "$SCRIPT_DIR/.."`: `calls.fixed_folder`; None:
    not known), and the names its commands run (functions it calls)."""

    # each change, with the `popd` that undoes a `pushd` (the next one in the same function and
    # shell that no later `pushd` before it takes): commands after that are where they were
    changes: tuple[tuple[Command, str | None, Command | None], ...]
    called: frozenset[str | None]
    # where the top level calls each function (line, column), first and last: a function's
    # `cd` whose every call comes after every call of the command's function moves nothing
    # before it; a function called elsewhere (from another function) has none here
    calls: dict[str, tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=dict)

    @staticmethod
    def of(script: Script, base: str | None = None) -> _Folders:
        """`base`: the repository folder the script runs in, where that is known (a workflow
        step's): a plain relative `cd` from it goes to a known folder."""
        commands = list(script.top.all_commands())
        moves = [c for c in commands if c.base in ("cd", "pushd", "popd")]
        undone: dict[int, Command] = {}
        pushed: list[Command] = []
        for move in moves:
            if move.base == "pushd":
                pushed.append(move)
            elif move.base == "popd" and pushed:
                opened = pushed[-1]
                # (both under the same conditions and loops: not a `popd` under an `if`, nor a
                # `pushd` in a loop with the `popd` after it)
                same = (opened.function, opened.subshell, opened.guards, opened.loops) == (
                    move.function,
                    move.subshell,
                    move.guards,
                    move.loops,
                )
                if same and not move.tested:
                    undone[id(pushed.pop())] = move
        closing = set(map(id, undone.values()))
        # (a plain relative `cd` goes on from where the ones before it surely went: the top
        # level's own moves, in order, each under no condition or loop; a folder not known, or
        # a move that may not run, leaves where the next one starts from not known)
        folders: dict[int, str | None] = {}
        current: str | None = base
        stack: list[str | None] = []
        for move in moves:
            folders[id(move)] = _folder_of(script, move, current)
            sure = move.function is None and not move.subshell and not move.guards
            if move.base == "popd":
                current = stack.pop() if id(move) in closing and stack else None
            elif not sure or move.loops:
                current = None
            else:
                if move.base == "pushd":
                    stack.append(current)
                current = folders[id(move)]
        changes = tuple(
            (c, folders[id(c)], undone.get(id(c))) for c in moves if id(c) not in closing
        )
        # (a function called only in a subshell, `$(patches_dir)`, moves no caller)
        called = frozenset(c.base for c in commands if not c.subshell) if changes else frozenset()
        calls: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {}
        # (called from a function, a subshell or a loop: when, not known)
        nested = {
            c.words[0].value for c in commands if c.words and (c.function or c.subshell or c.loops)
        }
        for command in commands if changes else ():
            name = command.words[0].value if command.words else ""
            if command.function is None and not command.subshell and name in script.functions:
                at = (command.span.line, command.span.column)
                first, last = calls.get(name, (at, at))
                calls[name] = (min(first, at), max(last, at))
        for name in nested:
            calls.pop(name, None)
        return _Folders(changes, called, calls)

    def changed(self, command: Command) -> tuple[bool, str | None]:
        """Whether the shell that runs the command may have changed its folder before it, and
        to which repository folder where every change that may have is to one fixed folder. A
        change counts when it is a `cd` in the same function or at the top before it, at the
        top where the command is in a function (which may be called after), or in a function
        the script calls outside a subshell; not one in a subshell the command is not in
        (`$(cd "$DIR" && pwd)`)."""
        before = (command.span.line, command.span.column)
        folders: set[str | None] = set()
        for change, folder, popped in self.changes:
            if change.subshell and not command.subshell:
                continue
            if change.function is not None and change.function != command.function:
                if (
                    change.function in self.called
                    and popped is None
                    and not self._called_after(change.function, command, before)
                ):
                    folders.add(folder)
                continue
            at = (change.span.line, change.span.column)
            back = popped is not None and (popped.span.line, popped.span.column) < before
            if back and change.function == command.function:
                continue  # (a `popd` took it back where it was)
            if (change.function is None and command.function is not None) or at < before:
                if (
                    at < before
                    and change.function is None
                    and command.function is None
                    and (not change.subshell or same_subshell(change, command))
                    and (not change.guards or _ran_first(change, command))
                    and not change.loops
                    and change.base != "popd"
                ):
                    folders.clear()  # (it surely runs before: where it went is where it is)
                folders.add(folder)
        if not folders:
            return False, None
        return True, folders.pop() if len(folders) == 1 else None

    def _called_after(self, function: str, command: Command, before: tuple[int, int]) -> bool:
        """Whether every call of the function comes after the command runs for the last time:
        after the command itself at the top level, or after every call of its function."""
        calls = self.calls.get(function)
        if calls is None:
            return False
        if command.function is None:
            last = before
        else:
            own = self.calls.get(command.function)
            if own is None:
                return False
            last = own[1]
        return calls[0] > last


def _ran_first(change: Command, command: Command) -> bool:
    """Whether a `cd` under conditions surely ran, and succeeded, before the command: both in
    an `&&` chain the command runs only after (`cd .github && cd scripts && python3 -m gate`:
    its condition is the chain before it; h83 M6)."""
    return any(
        guard.expect
        and not guard.patterns
        and guard.node.start_byte <= change.node.start_byte < guard.node.end_byte
        and all(
            own.expect
            and not own.patterns
            and guard.node.start_byte <= own.node.start_byte < guard.node.end_byte
            for own in change.guards
        )
        for guard in command.guards
    )


def _folder_of(script: Script, command: Command, base: str | None = None) -> str | None:
    """The repository folder a `cd DIR` or `pushd DIR` goes to, where it is fixed: from the
    script's own folder (`cd "$(dirname "$0")"`), or, where the folder it runs in is known
    (`base`: a workflow step's), a plain relative one from there (`cd load_tests`)."""
    words = [w for w in command.args if not (w.static and w.value.startswith("-"))]
    if command.base == "popd" or len(words) != 1:
        return None
    word = words[0]
    if base is not None and word.static and _PLAIN_PATH.fullmatch(word.value):
        joined = posixpath.normpath(posixpath.join(base or ".", word.value))
        return None if joined == ".." or joined.startswith("../") else plain_folder(joined)
    return fixed_folder(script, word.value)


_PLAIN_PATH = lazy_compile(r"[A-Za-z0-9_.][A-Za-z0-9_./-]*")


def script_parser(ws: Workspace, path: str) -> tuple[pyargs.Parser, str] | str:
    """The parser of a repository's Python script and the file it is made in (kept per run),
    or why it cannot be told. A script that makes no parser and calls a function of another
    module of the repository that parses its command line (`from utils.cmdline import
    parse_args`) has that function's parser."""
    known: dict[str, tuple[pyargs.Parser, str] | str]
    known = ws.models.setdefault(_KEY, {})  # type: ignore[assignment]
    if path not in known:
        parser = _read(ws, path)
        known[path] = (parser, path) if not isinstance(parser, str) else parser
        if parser == pyargs.NO_PARSER:
            known[path] = _delegated(ws, path)
    return known[path]


def _read(
    ws: Workspace, path: str, entry: str = "", parses: str = "", depth: int = 0, script: str = ""
) -> pyargs.Parser | str:
    """`pyargs.read` of the file (kept by content, entry and method in the cache), with what
    the functions of other modules it hands its parser to add (`_with_additions`)."""
    source = ws.source(path)
    if source is None:
        return "it cannot be read"
    key = source.digest + f"{entry}\0{parses}".encode()
    memo = ws.models.setdefault("bl116-parsers", {})  # (a module many scripts hand over to)
    assert isinstance(memo, dict)
    parser: pyargs.Parser | str | None = memo.get((path, key))
    if parser is None:
        stored = ws.cache.get(_KEY, path, key) if ws.cache else None
        if isinstance(stored, str):
            parser = stored
        elif isinstance(stored, tuple):
            parser = pyargs.Parser.decode(stored)
        else:
            if parses == _ADDS:
                parser = pyargs.additions(source.text, entry)
            else:
                parser = pyargs.read(source.text, entry, parses)
            if ws.cache is not None:
                encoded = parser if isinstance(parser, str) else parser.encode()
                ws.cache.put(_KEY, path, key, encoded)
        memo[path, key] = parser
    if isinstance(parser, str):
        return parser
    return _with_additions(ws, path, parser, depth, script or path)


_ADDS = "+"  # (`_read`'s `parses` for what a function adds to a parser it is handed)


def _with_additions(
    ws: Workspace, path: str, parser: pyargs.Parser | str, depth: int, script: str
) -> pyargs.Parser | str:
    """The parser with the options each function of another module it is handed adds
    (`add_cache_args(parser)`, imported from the repository); why it cannot be told where such
    a function is not the repository's, or what it adds cannot be told. `path`: the module the
    parser is handed over in (a relative import's base); `script`: the script Python runs (an
    absolute import's: its folder comes first on Python's path)."""
    if isinstance(parser, str) or not parser.handed:
        return parser
    if parser.commands or parser.remainder:
        return f"its parser is handed to `{parser.handed[0][2]}` of another module"
    options, actions, positionals = set(parser.options), list(parser.actions), parser.positionals
    required = list(parser.required)
    added_at = list(parser.added)
    for module, level, name, line in parser.handed:
        file = _module_file(ws, path if level else script, module, level)
        if file is None:
            return f"its parser is handed to `{name}` (line {line}), not a function it can read"
        if depth >= 2:
            return f"its parser is handed to `{name}` of `{file}` through too many modules"
        added = _read(ws, file, name, _ADDS, depth + 1, script)
        if isinstance(added, str):
            return f"its parser is handed to `{name}` of `{file}`, where {added}"
        if added.commands or added.remainder or added.fromfile:
            return f"its parser is handed to `{name}` of `{file}`, which adds what cannot be told"
        options |= added.options
        actions += [a for a in added.actions if a not in actions]
        positionals += added.positionals
        required += added.required
        added_at += [(file, added.line), *added.added]
    return replace(
        parser,
        options=frozenset(options),
        actions=tuple(actions),
        positionals=positionals,
        required=tuple(required),
        handed=(),
        added=tuple(dict.fromkeys(added_at)),
    )


def _delegated(ws: Workspace, path: str) -> tuple[pyargs.Parser, str] | str:
    """The parser of the one function of another module of the repository the script calls
    that parses its command line; why it cannot be told, where such a function's parser
    cannot be, or several may parse it."""
    found: list[tuple[pyargs.Parser, str]] = []
    untold: list[str] = []
    called: list[str] = []  # the repository's functions it calls, that make no parser
    for module, level, name, parses in _delegates(ws, path):
        file = _module_file(ws, path, module, level)
        if file is None:
            continue  # (a module of the standard library, or installed)
        if parses == pyargs.CHANGED:
            untold.append(f"it changes the parser it takes from `{name}` of `{file}`")
            continue
        parser = _read(ws, file, name, parses, script=path)
        if not isinstance(parser, str):
            found.append((parser, file))
        elif parser == pyargs.NO_PARSER:
            deeper = _parsed_in_turn(ws, file, path)
            if deeper is not None:
                called.append(f"`{name}` of `{file}`, which calls {deeper}")
            elif _parses_held(ws, file, name):  # (`parser = pkg.get_default_parser()`)
                untold.append(
                    f"it parses its command line with `{name}` of `{file}`, with a parser another "
                    "call there gives it (not followed)"
                )
        elif parser != pyargs.NOT_PARSED:
            untold.append(f"its parser is made in `{file}`, where {parser}")
    if len(found) > 1:
        return f"it calls {len(found)} functions of other modules that parse its command line"
    if untold:
        return untold[0]
    if not found and called:  # (Megatron's `pretrain` -> `initialize_megatron` -> `parse_args`)
        return (
            f"it makes no argparse parser, and parses its command line two calls deep "
            f"({called[0]}): followed one call deep"
        )
    return found[0] if found else pyargs.NO_PARSER


def _parses_held(ws: Workspace, module: str, name: str) -> bool:
    """Whether a function of a module that makes no parser still parses a command line with one
    (`parser = pkg.get_default_parser(); parser.parse_args()`): a parser it gets from a call.
    The function's own text, and that of the module's functions it calls, where the module
    defines it (not `launch_time` or a class beside the `parse_args` that does: t50a, t51a,
    InternEvo); the module's text where the name is not defined there (imported into it)."""
    source = ws.source(module)
    if source is None or _PARSES.search(source.text) is None:
        return False
    try:
        tree = ast.parse(source.text)
    except (SyntaxError, ValueError, RecursionError):
        return True
    functions: dict[str, ast.AST] = {}
    defined: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {t.id for t in targets if isinstance(t, ast.Name)}
    if name not in defined:
        return True  # (imported into the module: its text is all there is to go by)
    pending, seen = [name], {name}
    while pending:  # (the function, and the module's functions it calls, at any depth)
        function = functions.get(pending.pop())
        if function is None:
            continue
        if _PARSES.search(ast.get_source_segment(source.text, function) or ""):
            return True
        called = {
            c.func.id
            for c in ast.walk(function)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
        }
        for other in sorted(called & functions.keys() - seen):
            seen.add(other)
            pending.append(other)
    return False


_PARSES = lazy_compile(r"\.parse_(?:known_)?args\(")


def _parsed_in_turn(ws: Workspace, module: str, script: str) -> str | None:
    """A function of another module of the repository that the module calls and that parses
    the command line (`parse_args` of `lib/arguments.py`), named; None where none does."""
    for inner, level, name, parses in _delegates(ws, module):
        file = _module_file(ws, module, inner, level)
        if file is None or file in (module, script) or parses == pyargs.CHANGED:
            continue
        if not isinstance(_read(ws, file, name, parses, script=script), str):
            return f"`{name}` of `{file}`"
    return None


def _delegates(ws: Workspace, path: str) -> tuple[tuple[str, int, str, str], ...]:
    """`pyargs.delegates` of a file, worked out once per run (t74b, Megatron-LM: every script
    hands over to the same modules, read again for each: 4.5 of a run's 6 s)."""
    memo = ws.models.setdefault("bl116-delegates", {})
    assert isinstance(memo, dict)
    found = memo.get(path)
    if found is None:
        source = ws.source(path)
        found = memo[path] = tuple(pyargs.delegates(source.text)) if source else ()
    return found


def _module_file(ws: Workspace, script: str, module: str, level: int) -> str | None:
    """The repository's file of a module a script imports: a relative import's, from the
    script's package; an absolute one's, beside the script (Python's first path), else the one
    file of that name under a folder the script is in (the folder a package is installed from,
    `src/`, is not known: two such files are none)."""
    parts = module.split(".")
    folder = posixpath.dirname(script)
    for _ in range(level - 1):
        folder = posixpath.dirname(folder)

    def file_in(base: str) -> str | None:
        stem = posixpath.join(base, *parts)
        return next((p for p in (f"{stem}.py", f"{stem}/__init__.py") if ws.is_python(p)), None)

    own = file_in(folder)
    if own is not None or level:
        return own
    above = folder.split("/") if folder else []
    found = {file_in("/".join(above[:i])) for i in range(len(above))} - {None}
    return found.pop() if len(found) == 1 else None


def _missing_required(parser: pyargs.Parser, texts: list[str | None] | None) -> str | None:
    """The first option the parser requires that the line does not give, where every word of
    it is known, or is the value of the option before it (`--dp-rank "$i"`: no option), as it
    takes one word (a prefix argparse takes for the required option counts as given)."""
    if not texts:
        return None
    arity = dict(parser.arity)
    before = None
    for text in texts:
        if text is None and not (
            before is not None
            and before[:1] == "-"
            and "=" not in before
            and arity.get(before) == 1
        ):
            return None  # (a word not known may be the option)
        before = text
    words = [t.split("=", 1)[0] for t in texts if t is not None and t[:1] == "-"]
    for strings in parser.required:
        if not any(
            w in strings
            or (w.startswith("--") and len(w) > 2 and any(o.startswith(w) for o in strings))
            or any(len(o) == 2 and o[1] != "-" and w.startswith(o) for o in strings)
            for w in words
        ):
            return "/".join(strings)
    return None


def _required_missing(parser: pyargs.Parser, texts: list[str | None] | None) -> str | None:
    """The option the parser requires that a command line with no rejected word does not give
    (`_missing_required`), where argparse surely checks it: the parser reads no words from files
    (`@args.txt`), has no subcommands, and is not asked for its help or version first."""
    if parser.fromfile or parser.commands or not texts:
        return None
    if any(t is not None and t.split("=", 1)[0] in _EARLY_EXITS for t in texts):
        return None
    return _missing_required(parser, texts)


# options argparse ends the run at before it checks the required ones (help, `version`)
_EARLY_EXITS = frozenset({"-h", "--help", "--he", "--hel", "-V", "--version", "-v"})


def _missing_finding(
    targets: list[str], missing: str, location: Location, made: list[Location]
) -> Finding:
    return Finding(
        "BL116",
        f"`{targets[0]}` requires `{missing}` (its parser, made at {made[0].path}:"
        f"{made[0].span.line}, adds it with `required=True`), and this command line does not "
        f'give it: argparse stops it with "the following arguments are required: {missing}" '
        "before it runs",
        location,
        help=f"add `{missing.split('/')[-1]} ...` to the command line",
        related=tuple(Location(m.path, m.span, "parser made here") for m in made),
        subject=f"required:{targets[0]}:{missing}",
    )


def _finding(
    targets: list[str],
    parser: pyargs.Parser,
    problem: pyargs.Problem,
    location: Location,
    parsers_at: list[Location],
    texts: list[str | None] | None = None,
) -> Finding:
    option = f"`{clip(problem.option, 40)}`"
    target = targets[0]
    made = f"{parsers_at[0].path}:{problem.line or parser.line}"
    whose = "its parser"
    if problem.command:
        whose = f"the parser of its `{problem.command}` subcommand"
        target = f"{target} {problem.command}"
    help_ = ""
    if problem.kind == "choice":
        names = ", ".join(f"`{n}`" for n in problem.candidates[:6])
        more = " ..." if len(problem.candidates) > 6 else ""
        what = f"`{target}` has no subcommand {option} (its subcommands: {names}{more})"
        why = 'argparse stops it with "invalid choice"'
        close = difflib.get_close_matches(problem.option, problem.candidates, n=1, cutoff=0.6)
        if close:
            help_ = f"did you mean `{close[0]}`?"
    elif problem.kind == "ambiguous":
        names = ", ".join(f"`{n}`" for n in problem.candidates[:4])
        more = " ..." if len(problem.candidates) > 4 else ""
        what = f"{option} is the start of several options of `{target}` ({names}{more})"
        why = 'argparse stops it with "ambiguous option"'
        help_ = "write the option in full"
    else:
        what = f"`{target}` has no option {option} ({whose}, made at {made}, has no such one)"
        if len(targets) > 1:  # (the script may run in either folder)
            what += f", nor has `{targets[1]}`"
        why = 'argparse stops it with "unrecognized arguments"'
        if problem.kind == "ignored":
            why = (
                f"`parse_known_args()` ({parsers_at[0].path}:{parser.drops_at}) leaves it over, "
                "and nothing reads what it leaves: the script runs as if the option were not "
                "given"
            )
        missing = _missing_required(parser, texts) if not problem.command else None
        if missing and problem.kind != "ignored":  # (argparse says that first)
            why = (
                f'argparse stops it with "the following arguments are required: {missing}" '
                '(the line does not give it), else with "unrecognized arguments"'
            )
        close = difflib.get_close_matches(
            pyargs.flexible(problem.option), sorted(parser.options), n=1, cutoff=0.75
        )
        given = _given(close[0], texts, parser) if close else None
        if given is not None:  # (h109 W2: `--mlperf-conf` beside `--user-conf`)
            spelled = f", as `{given}`" if given != close[0] else ""
            help_ = f"remove it (the line gives `{close[0]}` already{spelled})"
        elif close:
            help_ = f"did you mean `{close[0]}`?"
    return Finding(
        "BL116",
        f"{what}: {why}" + ("" if problem.kind == "ignored" else " before it runs"),
        location,
        related=tuple(parsers_at),
        subject=f"{target}:{problem.option}",
        help=help_,
    )


def _given(option: str, texts: list[str | None] | None, parser: pyargs.Parser) -> str | None:
    """The string by which the command line's words give the option, if they do (`--port`,
    `--port=1`, `-p 1`, `-p1`; `--a_b` for `--a-b` to vLLM's parser: h111 W2)."""
    spellings = next((a for a in parser.actions if option in a), (option,))
    for text in texts or ():
        if text is None:
            continue
        word = pyargs.flexible(text) if pyargs.FLEXIBLE in parser.classes else text
        for spelling in spellings:
            short = len(spelling) == 2 and not spelling.startswith("--")
            if (
                word == spelling
                or word.startswith(spelling + "=")
                or (short and word.startswith(spelling))
            ):
                return spelling
    return None


def _reads_command_line(ctx: Context, path: str) -> bool:
    """Whether a Python file may read its command line: it runs as a program (`__main__`), or
    reads `sys.argv`, or uses a library that parses it (click, typer, fire and the like)."""
    return ctx.ws.search(path, _COMMAND_LINE) is not False


# what a Python file that reads its command line holds
_COMMAND_LINE = lazy_compile(
    rb"__main__|\bargv\b|\bargparse\b|\bparse_args\b|^[ \t]*(?:from|import)[ \t]+(?:click|typer"
    rb"|fire|docopt|absl|hydra|jsonargparse|tyro|simple_parsing)\b",
    re.M,
)
