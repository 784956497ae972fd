"""An entry's setting that nothing on its jobs' route reads, beside a script made for it.

## What it does
Reports a launcher's command that runs a benchmark script for master-config entries whose
search-space elements set a field the benchmark workflow passes the launcher as a variable
(`spec-decoding: mtp`, as `SPEC_DECODING`) to a value other than the field's default (`none`),
where the repository has a script for that value beside the one the command runs (its name
with the value added: `qwen_fp8_mi325x_mtp.sh` beside `qwen_fp8_mi325x.sh`), and nothing
benchlint follows reads the variable:

- not the launcher, nor the script it runs (a mention there that leads nowhere, as below, is
  no read: `SPEC_SUFFIX=$(...)` that nothing uses, an `echo` to the error stream; the message
  names those lines; but a write there to any file counts as read back, as the file may be
  read under another spelling, `$PWD/f` for `f`);
- not a launcher that hands the job over to it (`exec bash other.sh`);
- not a script or library they run or source, or a function of those they call;
- not a Python file of the repository any of them runs, nor a module of the repository it
  imports.

In any of those files a read that only writes the value out counts for nothing: `echo`, `printf` or
a `cat`/`tee` heredoc, to the terminal or to a file no other command names again (a library's
results label; a function that writes to a path it is given, `cat > "$1"`, to the path each call of
it gives, which is not followed after a `shift` or through a caller's own parameter, `outer() {
write "$1"; }`, so the file may be read back; one that prints the path it wrote for its caller,
`echo "$cfg"`, to a path that may be read back). Naming the file again to make its folder, move or
copy it (`mkdir -p "$(dirname "$f")"`, `mv "$f" results/`), to test it or to print its name to the
job's log does not read it, nor does a variable holding its folder or its name that only such
commands use (`D=$(dirname "$f"); mkdir -p "$D"`, `MSG=$(echo "in $(dirname "$f")")`). Any other
mention of the name or the path counts as a read: a condition, an argument, a path, a name passed on
(`-e SPEC_DECODING`), a heredoc fed to a program, a loop's `read` fed the file (`done < "$f"`), an
echo in a function whose output a reader takes (`--config "$(cfg)"`; not one whose output is only
echoed, moved or kept unused), or a variable or a function's parameter given it that is itself read
so where that value reaches, at any depth (`CFG="$f"`, `ARGS=(--config "$f")`, `printf -v CFG %s
"$f"`, the names a prefix lists (`"${!SPEC_@}"`), `read -r CFG <<< "$f"` (a loop's too, `done <<<
"$f"`), `for c in "$f"`, `serve "$f"` with `--config "$1"`, after a `shift` (in an option loop too)
or through `"$@"` or `"${@:2}"` passed on, a name reference to it (`declare -n ref=f`), an array
element `printf -v` sets, a loop over a function's parameters (`for c; do`) where no `set --` gives
others; not where another value reaches the reader: reassigned before it, a local of its function,
given in a subshell or as a prefix). What a function, an `echo` or a `printf` prints into a pipe to
`grep -q` or an `echo`, to a `tee` whose file no other command names (`echo "cfg $f" | tee -a log`),
or into a test (`[[ -f "$(cfg)" ]]`), is not read; nor is a file `tee` writes (`echo ok | tee -a
"$f"`). What benchlint cannot follow keeps it silent (see Exceptions); the finding is a warning, as
a read it does not see may still pick the value up.

## Why is this bad?
The jobs run as if the field were left out, while the sweep files their results under the
value the entry gives: an "MTP" number measured without MTP. Nothing fails, so only a reader of
the published numbers could notice. InferenceX shipped this in two launchers that built their
script's path without `${SPEC_SUFFIX}` (`launch_mi325x-amds.sh` and `launch_h100-cw.sh`, in its
commits of late May and early June 2026), so their `spec-decoding: mtp` entries ran the plain
script beside the `_mtp.sh` one.

## Example
```yaml path=.github/configs/amd-master.yaml
qwen-fp8-mi325x-sglang-mtp:
  image: lmsysorg/sglang:v0.5.9
  model: Qwen/Qwen3.5
  runner: mi325x
  scenarios:
    fixed-seq-len:
    - search-space:
      - {tp: 8, spec-decoding: mtp}
```

```yaml path=.github/configs/runners.yaml
labels:
  mi325x: [mi325x-amds_0]
```

```bash path=runners/launch_mi325x-amds.sh
bash benchmarks/single_node/qwen_fp8_mi325x.sh
```

```bash path=benchmarks/single_node/qwen_fp8_mi325x.sh
python3 -m sglang.launch_server --model-path "$MODEL" --tp 8
```

```bash path=benchmarks/single_node/qwen_fp8_mi325x_mtp.sh
python3 -m sglang.launch_server --model-path "$MODEL" --tp 8 --speculative-algorithm EAGLE
```

## Use instead
```yaml path=.github/configs/amd-master.yaml
qwen-fp8-mi325x-sglang-mtp:
  image: lmsysorg/sglang:v0.5.9
  model: Qwen/Qwen3.5
  runner: mi325x
  scenarios:
    fixed-seq-len:
    - search-space:
      - {tp: 8, spec-decoding: mtp}
```

```yaml path=.github/configs/runners.yaml
labels:
  mi325x: [mi325x-amds_0]
```

```bash path=runners/launch_mi325x-amds.sh
SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')
bash "benchmarks/single_node/qwen_fp8_mi325x${SPEC_SUFFIX}.sh"
```

```bash path=benchmarks/single_node/qwen_fp8_mi325x.sh
python3 -m sglang.launch_server --model-path "$MODEL" --tp 8
```

```bash path=benchmarks/single_node/qwen_fp8_mi325x_mtp.sh
python3 -m sglang.launch_server --model-path "$MODEL" --tp 8 --speculative-algorithm EAGLE
```

## Exceptions
Not reported, as what the jobs do with the setting is not known:
- a route on which the launcher may run srtctl (one in a branch the route's values rule out does
  not count), or an element that names a recipe (the recipe sets the job up);
- a command whose script is not one known file on the route, or a script with no script for
  the value beside it;
- a script that names the value itself (`qwen_mtp.sh`, a comment on MTP: it may be the one
  made for it);
- a workflow that does not pass the variable, or whose step decides by it (its `run:` text
  names it, or another `env:` value computes from it: one that only puts it in a text, a
  results file's name, is a label);
- a route through an `eval`, a file sourced or run that is not found, a command named at run
  time (`"step_$s"`; one held in an array the files assign, `"${cmd[@]}"`, is read from the
  assignment), a listing of the environment (`compgen -e`, `$(env)`), a program that reads
  variables a file names (`envsubst`, `make`, `docker compose`), a Python file not found, or
  one that runs a shell or a shell script (not such a command of the launcher in a branch
  the route's values rule out).

Not seen, so a read there does not keep the finding away:
- what the programs a Python file runs read (other than a shell);
- a file written in a library and read back under another name, by a redirection (`done < f`,
  `$(< f)`) or by a Python file, or whose path a Python file takes from the environment;
- a config file a Python file loads that reads the environment itself (OmegaConf's `oc.env`);
- a variable read in a library by a name made at run time (`${!var}`, `printenv "$k"`);
- a program that reads the whole environment by itself (perl's `%ENV`, a console script
  installed from the repository);
- a function or array a library defines again after it is used;
- a workflow `env:` value that puts the setting into a text (`--spec=${{ inputs.spec-decoding
  }}`), taken as a label, as a results file's name is;
- what an earlier workflow step leaves in `GITHUB_ENV` or a file.

A Python file that loads modules by name (`importlib`, `runpy`, `exec`), hands the environment
over whole (`expandvars`, a template given `os.environ`) or lists it keeps it silent.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from benchlint import profile
from benchlint.calls import Call, resolve
from benchlint.context import Context
from benchlint.environment import appends
from benchlint.finding import Finding, Location, Severity, listed
from benchlint.launcher import RECIPE_VARIABLES
from benchlint.lazyre import lazy_compile
from benchlint.registry import rule
from benchlint.releases import ScriptRun, runs_srtctl, scripts_run, srtctl_commands
from benchlint.shell.expand import UNSET
from benchlint.shell.invocation import SHELLS
from benchlint.shell.model import Assignment, Command, Script, Word, sets_positional
from benchlint.wiring import Element, Entry, Route

# commands whose arguments only write text out (to the terminal, a log or a results file)
_WRITERS = frozenset({"echo", "printf", ":"})
# commands whose heredoc's body only goes to a file or the terminal
_COPIERS = frozenset({"cat", "tee"})
# declarations: a bare name among their words changes the name's attributes, not its value
_DECLARATIONS = frozenset({"export", "local", "declare", "typeset", "readonly"})
_NAMED = 3  # entries named in a message


@rule(
    "BL121",
    "setting-not-read",
    Severity.WARNING,
    tags=("wiring", "environment"),
    precision="medium",
)
def check(ctx: Context) -> Iterator[Finding]:
    fields = profile.ELEMENT_ENVIRONMENT
    if not fields:
        return
    wiring = ctx.wiring
    # (each verdict with the launcher's commands it passed over as not run on its route, and
    # the one that left it not known: a route that may run one of the first, or does not run
    # the last, is asked again, so no route's answer depends on the order they are asked in)
    verdicts: dict[tuple[object, ...], tuple[bool | None, list[Command], Command | None]] = {}
    twins: dict[tuple[str, str], str | None] = {}
    found: dict[tuple[int, str, str], _Ignored] = {}
    for launcher, pairs in sorted(wiring.pairs_of_launcher.items()):
        configs = {wiring.pairs[i][0].path for i in pairs}
        if not ctx.route_in_scope(launcher, *configs):
            continue
        srtctl = runs_srtctl(ctx, launcher)
        for route in wiring.routes_for_launcher(launcher):
            if any(name in route.element.settings for name in RECIPE_VARIABLES):
                continue  # (the recipe sets the job up)
            if srtctl and _srtctl_may_run(ctx, route):
                continue  # (srtctl sets the job up: what it does with the setting, not known)
            for name, source in fields.items():
                value = _given(route, name, source["field"], source["default"])
                if value is None:
                    continue
                run = _the_run(ctx, route)
                if run is None or _names_value(ctx, run.scripts[0], value):
                    continue
                twin = twins.get((run.scripts[0], value), "")
                if twin == "":
                    twin = twins[run.scripts[0], value] = _twin(ctx, run.scripts[0], value)
                if twin is None or _step_reads(ctx, route, name, source["field"]):
                    continue
                # (the launchers that handed the job over, `exec bash other.sh`, and the one that
                # runs the script)
                last = route.launcher.path
                paths = (*(c.script.top.path for c in route.via), last, run.scripts[0])
                # (the launcher's other commands that run scripts, which do not run here)
                others = frozenset(id(r.call.command) for r in scripts_run(ctx, route))
                copies = _step_copies(route, name, source["field"])
                key = (paths, others, id(run.call), name, *sorted(copies))
                known = verdicts.get(key)
                if (
                    known is None
                    or not all(route.runs(c) is False for c in known[1])
                    or (known[2] is not None and route.runs(known[2]) is False)
                ):
                    reading = _Reading(ctx, name, run, others, copies, route)
                    verdict = reading.reads(paths)
                    known = verdicts[key] = (verdict, reading.skipped, reading.blocker)
                if known[0] is False:
                    ignored = found.setdefault(
                        (id(run.call), name, value), _Ignored(run, last, name, value)
                    )
                    ignored.add(route.element, run.scripts[0], twin)
    for ignored in found.values():
        yield ignored.finding(ctx)


def _srtctl_may_run(ctx: Context, route: Route) -> bool:
    """Whether srtctl may run on the route: a command of the launcher that runs it (in a shell
    string too) whose conditions the route's values do not make false, or one in a file it
    sources or runs (h80 M1: `launch_h100-dgxc-slurm.sh` runs srtctl for the `dynamo-*`
    frameworks only, and a single-node script otherwise)."""
    script = ctx.ws.shell(route.launcher.path)
    if script is None:
        return True
    own = srtctl_commands(script)
    return not own or any(route.runs(c) is not False for c in own)


def _given(route: Route, name: str, field_name: str, default: str) -> str | None:
    """The value the route's element gives the field, where the workflow passes it to the
    launcher and it is not the field's default."""
    element = route.element
    if field_name not in element.fields and field_name not in element.entry.fields:
        return None
    value = route.env.get(name)
    if not isinstance(value, str) or value is UNSET or value.strip().lower() in ("", default):
        return None
    return value


def _the_run(ctx: Context, route: Route) -> ScriptRun | None:
    """The one command of the launcher that runs a script of the repository on the route,
    where it surely runs and names one known file."""
    runs = [run for run in scripts_run(ctx, route) if run.runs is not False]
    if len(runs) != 1 or runs[0].runs is not True or len(runs[0].scripts) != 1:
        return None
    return runs[0]


def _twin(ctx: Context, path: str, value: str) -> str | None:
    """The script beside this one made for the value: its name with the value added
    (`qwen_fp8_mi325x_mtp.sh` beside `qwen_fp8_mi325x.sh`)."""
    folder, name = posixpath.split(path)
    lowered, word = name.lower(), value.strip().lower()
    forms = [f"{sep}{word}" for sep in "_-."] + [f"{word}{sep}" for sep in "_-."]
    for other in sorted(ctx.ws.shell_paths):
        if posixpath.dirname(other) != folder or other == path:
            continue
        named = posixpath.basename(other).lower()
        if any(f in named and named.replace(f, "", 1) == lowered for f in forms):
            return other
    return None


def _step_reads(ctx: Context, route: Route, name: str, field_name: str) -> bool:
    """Whether the workflow step that runs the launcher uses the setting itself: another of
    its `env:` values decides by it, or its `run:` text names it (`bash launch.sh
    "$SPEC_DECODING"`, `if [ "$SPEC_DECODING" != none ]; then export SPEC_ARGS=...`)."""
    step = route.step
    if step is None:
        return False
    # (an `env:` value that only puts the setting into a text, a results file's name, is a
    # label; one that decides by it, `${{ inputs.spec-decoding != 'none' && ... }}`, is not)
    for other, text in step.values.items():
        for expression in _EXPRESSIONS.findall(text):
            named = name in expression or field_name in expression
            if other != name and named and not _REFERENCE.fullmatch(expression.strip()):
                return True
            if expression.strip().startswith("steps."):
                return True  # (what an earlier step worked out: from it, maybe)
    run = _run_text(ctx, step.location)
    return name in run or field_name in run


# a workflow expression, and one that only reads a value (`inputs.spec-decoding`)
_EXPRESSIONS = lazy_compile(r"\$\{\{(.*?)\}\}", re.S)
_REFERENCE = lazy_compile(r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\[[^\]]*\])*")


def _step_copies(route: Route, name: str, field_name: str) -> set[str]:
    """The step's `env:` names whose value is the setting itself, under another name
    (`SPEC_METHOD: ${{ inputs.spec-decoding }}`): read as it is."""
    step = route.step
    if step is None:
        return set()
    return {
        other
        for other, text in step.values.items()
        if other != name
        and (m := _EXPRESSIONS.fullmatch(text.strip())) is not None
        and _REFERENCE.fullmatch(m.group(1).strip())
        and (name in m.group(1) or field_name in m.group(1))
    }


def _run_text(ctx: Context, where: Location) -> str:
    """The text of a step's `run:` from the line its launch is on: that line and those
    indented deeper than the key that holds it (a block scalar's)."""
    source = ctx.ws.source(where.path)
    if source is None:
        return ""
    lines = source.text.splitlines()
    first = where.span.line - 1
    if not 0 <= first < len(lines):
        return ""
    indent = len(lines[first]) - len(lines[first].lstrip())
    found = [lines[first]]
    for line in lines[first + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        found.append(line)
    return "\n".join(found)


def _names_value(ctx: Context, path: str, value: str) -> bool:
    """Whether the script names the value in its file name or its text (`qwen_mtp.sh`, a
    comment on MTP): it may be the one made for it, whatever it reads."""
    word = re.escape(value.strip()).encode()
    pattern = re.compile(rb"(?i)(?<![A-Za-z0-9])" + word + rb"(?![A-Za-z0-9])")
    if pattern.search(posixpath.basename(path).encode()) is not None:
        return True
    return ctx.ws.search(path, pattern) is not False  # (a file not read: it may)


@dataclass
class _Ignored:
    run: ScriptRun
    launcher: str
    name: str
    value: str
    elements: list[Element] = field(default_factory=list)
    scripts: dict[str, str] = field(default_factory=dict)  # script run -> the one for the value

    def add(self, element: Element, script: str, twin: str) -> None:
        if element not in self.elements:
            self.elements.append(element)
        self.scripts.setdefault(script, twin)

    def finding(self, ctx: Context) -> Finding:
        entries: list[Entry] = list(dict.fromkeys(e.entry for e in self.elements))
        field_name = profile.ELEMENT_ENVIRONMENT[self.name]["field"]
        default = profile.ELEMENT_ENVIRONMENT[self.name]["default"]
        word = self.run.call.word
        runs = listed([f"{s} ({t} is there)" for s, t in sorted(self.scripts.items())])
        those = "that script" if len(self.scripts) == 1 else "those scripts"
        twins = listed(sorted(self.scripts.values()))
        named = _named_at(ctx, [self.launcher, *sorted(self.scripts)], self.name)
        said = f"neither this launcher nor {those} names `{self.name}`"
        if named:  # (a read that leads nowhere: an `echo`, a variable nothing reads: h92 M1)
            where: dict[str, list[str]] = {}
            for n in named[:_NAMED]:
                where.setdefault(n.path, []).append(str(n.span.line))
            lines = listed(
                [f"line{'s' * (len(ls) > 1)} {listed(ls)} of {p}" for p, ls in where.items()]
            )
            said = (
                f"this launcher and {those} name `{self.name}` only where benchlint finds "
                f"nothing that reads it on ({lines})"
            )
        return Finding(
            "BL121",
            f"`{field_name}: {self.value}` of {listed([e.name for e in entries])} reaches this "
            f"line, which runs {runs} for them; {said}, and nothing benchlint follows from them "
            "reads it: those jobs "
            f"likely run as if it were `{default}`, while their results are filed as "
            f"`{self.value}`" + ctx.wiring.assumption(entries, self.launcher),
            Location(self.launcher, word.span),
            related=tuple(
                Location(e.location.path, e.location.span, f"{field_name}: {self.value}")
                for e in self.elements[:_NAMED]
            )
            + tuple(named[:_NAMED]),
            help=f"pick the script by `{self.name}`, so that these jobs run {twins}",
            subject=f"{self.name}={self.value}:{word.value}",
            involves=tuple(e.name for e in entries),
        )


def _named_at(ctx: Context, paths: list[str], name: str) -> list[Location]:
    """Where the files name the variable outside comments (where nothing reads it on: the
    finding's reading found no read), each line once."""
    pattern = _mentions({name})
    found: list[Location] = []
    for path in paths:
        script = ctx.ws.shell(path)
        if script is None:
            continue
        src, seen = script.src, set()
        for match in pattern.finditer(src):
            start = src.rfind(b"\n", 0, match.start()) + 1
            line = src.count(b"\n", 0, match.start()) + 1
            if line not in seen and _COMMENT.match(src[start : match.start()]) is None:
                seen.add(line)
                chars = script.char_of(match.start()), script.char_of(match.end() - 1) + 1
                span = script.file.span(*chars)
                found.append(Location(path, span, f"names {name}"))
    return found


class _Reading:
    """Whether anything a route runs from its launcher reads a variable (None: not known)."""

    def __init__(
        self,
        ctx: Context,
        name: str,
        run: ScriptRun,
        others: frozenset[int],
        copies: set[str] | None = None,
        route: Route | None = None,
    ) -> None:
        self.ctx = ctx
        self.route = route
        # the launcher's commands that would leave the answer not known, passed over as the
        # route's values keep them from running (h80 M1: `source "$UV_INSTALL_DIR/env"` in
        # the branch of the launcher that runs srtctl)
        self.skipped: list[Command] = []
        self.blocker: Command | None = None  # (the launcher's command that left it not known)
        self.name = name
        self.copies = copies or set()  # the same value under other names (the step's)
        self.run = run
        self.others = others  # the launcher's commands that run scripts, not run on the route
        self.files: dict[str, Script] = {}  # the files whose top level runs
        self.called: dict[tuple[int, str], Script] = {}  # the functions whose body runs
        self.python: dict[str, None] = {}  # the repository's Python files run
        # the files the claim is about (the launchers, the script run): a file one of them
        # writes the value to is taken as read back, under whatever spelling (h93 F2, F3)
        self.claimed: set[str] = set()
        self.running: list[Command] = []  # the commands that run (of top levels and bodies)
        self._calls: dict[int, dict[int, Call]] = {}
        self._index: _Index | None = None

    def reads(self, paths: tuple[str, ...]) -> bool | None:
        self.claimed = set(paths)
        todo = list(paths)
        while todo:  # the files the route runs or sources, and the functions they call
            path = todo.pop(0)
            if path in self.files:
                continue
            script = self.ctx.ws.shell(path)
            if script is None:
                return None
            self.files[path] = script
            more = self._walk(script)
            if more is None:
                return None
            todo.extend(more)
            if not todo:  # (a function a file defines, called where that file's definitions
                # are not the caller's: `bash -c "source lib.sh && serve"`; any call counts)
                late = self._late_calls()
                if late is None:
                    return None
                todo.extend(late)
        if not self._imports():
            return None
        # each mention of the name, then of the names assignments give its value, and so on
        names = {self.name, *self.copies}
        pending = set(names)
        while pending:
            pattern = _mentions(pending)
            given: set[str] = set()
            for script in self._texts():
                if self._mentioned(script, pattern, given) or _lists_names(script, pending):
                    return True
            lowered = re.compile(pattern.pattern, re.IGNORECASE)  # (pydantic's settings)
            if any(self.ctx.ws.search(path, lowered) is not False for path in self.python):
                return True  # (as `os.environ["SPEC_DECODING"]`: the environment it inherits)
            pending = given - names
            names |= pending
        return False

    def _texts(self) -> list[Script]:
        """The files whose top level or some function runs, each once."""
        found = {id(s): s for s in self.files.values()}
        for definer in self.called.values():
            found.setdefault(id(definer), definer)
        return list(found.values())

    def _late_calls(self) -> list[str] | None:
        """The files sourced or run by the bodies of functions a walked file defines that a
        command walked names but did not reach through its own file's definitions."""
        everywhere: dict[str, Script] = {}
        for script in self.files.values():
            for name in script.functions:
                everywhere.setdefault(name, script)
        bodies = [c for command in list(self.running) for c in self._bodies(command, everywhere)]
        return self._walk_commands(bodies, everywhere) if bodies else []

    def _bodies(self, command: Command, functions: dict[str, Script]) -> list[Command]:
        """The commands of the functions a command names (its name, or a word it passes on:
        `timeout 60 serve`) that are not walked yet, each now taken as called."""
        found: list[Command] = []
        for word in (command.base, *(w.value for w in command.words if w.static)):
            definer = functions.get(word or "")
            if definer is None or (id(definer), word or "") in self.called:
                continue
            self.called[id(definer), word or ""] = definer
            found.extend(c for c in definer.all_commands() if _owner(c) == word)
        return found

    def _walk(self, script: Script) -> list[str] | None:
        """The files the commands of the script's top level (and of the functions they call)
        source or run; None where one is not known: not found, an `eval`, a command named by
        an expansion (`"step_$s"`; `"$@"` runs the words of its callers, which are walked), a
        program that reads the environment from a file benchlint does not read (`envsubst`,
        `make`, `docker compose`), a listing of the environment, a Python file not found."""
        functions = self.ctx.environment.functions_at_end(script)
        commands = [c for c in script.all_commands() if _owner(c) is None]
        return self._walk_commands(commands, functions)

    def _walk_commands(
        self, commands: list[Command], functions: dict[str, Script]
    ) -> list[str] | None:
        targets: list[str] = []
        while commands:
            command = commands.pop()
            invocation = command.invocation
            words = invocation.words
            self.running.append(command)
            unknown = (
                command.base == "eval"
                or invocation.base == "eval"
                or _reads_environment(invocation.base, [w.value for w in words[1:]])
                or _lists_environment(command, invocation.base, len(words))
            )
            if unknown and not self._passed_over(command):
                return None
            if unknown:
                continue
            call = self._call(command)
            commands.extend(self._bodies(command, functions))
            run = list(words)
            if words and not words[0].static and call is None:
                held = self._held(words[0], command.script)
                if held is None:  # (a command named at run time: `"step_$s"`)
                    if self._passed_over(command):
                        continue
                    return None
                run = [w for items in held for w in items]
            python = _python_files(self.ctx, command.script, run)
            if None in python and not self._passed_over(command):
                return None
            self.python.update((path, None) for path in python if path is not None)
            if call is None or id(command) == id(self.run.call.command):
                continue  # (the script the route runs is given)
            if id(command) in self.others or (not call.targets and call.known is not None):
                continue  # (another script's command, not run on this route)
            if not call.targets and not self._passed_over(command):
                return None
            targets.extend(call.targets)
        return targets

    def _passed_over(self, command: Command) -> bool:
        """Whether a command of the route's launcher that would leave the answer not known
        does not run on the route (kept in `skipped`)."""
        route = self.route
        if route is None or command.script.top.path != route.launcher.path:
            return False
        if route.runs(command) is not False:
            self.blocker = command
            return False
        self.skipped.append(command)
        return True

    def _held(self, first: Word, script: Script) -> list[list[Word]] | None:
        """The words a command named by a variable runs, as the files walked assign it
        (`benchmark_cmd=(python3 x.py ...)`, then `"${benchmark_cmd[@]}"`); none for the
        arguments (`"$@"`: the words of the calls, walked); None where it is not known."""
        reads = first.reads()
        if len(reads) != 1:
            return None
        name = reads[0].name
        if name in ("@", "*"):
            return []
        found: list[list[Word]] = []
        added: list[Word] = []  # (`cmd+=(x.py --tp 8)`: part of every value)
        for script in self._texts():
            for assignment in script.assignments:
                if assignment.name != name:
                    continue
                value = assignment.value
                items = (value.items or [value]) if value is not None else []
                if appends(assignment):
                    added += items
                    continue
                if not items or not items[0].static:
                    return None  # (`read -a cmd`, `cmd=("$PY" x.py)`: not known)
                found.append(list(items))
        if not found:
            return None
        held = [[*items, *added] for items in found]
        for words in held:  # (a shell, a script or a function it runs: not followed)
            program = next((w.value for w in words if not w.value.startswith("-")), "")
            if posixpath.basename(program) in SHELLS or program.endswith(".sh"):
                return None
            functions = self.ctx.environment.functions_at_end(script.top)
            if program in functions or any(program in t.functions for t in self._texts()):
                return None
        return held

    def _call(self, command: Command) -> Call | None:
        top = command.script.top
        if id(top) not in self._calls:
            calls = self.ctx.environment.calls.calls_in(top)
            self._calls[id(top)] = {id(c.command): c for c in calls}
        return self._calls[id(top)].get(id(command))

    def _imports(self) -> bool:
        """Add the repository's modules the Python files run import (False: one of them runs
        a shell or a shell script, which may read anything; other programs it runs are not
        followed)."""
        todo = list(self.python)
        while todo:
            path = todo.pop()
            source = self.ctx.ws.source(path)
            if source is None:
                return False
            if _RUNS_PROGRAMS.search(source.data) and _RUNS_SHELL.search(source.data):
                return False  # (a shell it runs reads the environment it is given)
            if _LOADS_OR_LISTS.search(source.data):
                return False  # (a module loaded by name, the environment read by listing it)
            for module in _imported(source.data):
                for found in _modules(self.ctx, path, module):
                    if found not in self.python:
                        self.python[found] = None
                        todo.append(found)
        return True

    def _mentioned(self, script: Script, pattern: re.Pattern[bytes], given: set[str]) -> bool:
        """Whether a command of the script that runs on the route (at its top level, or in a
        function called) reads one of the names; the names assignments give a value from them
        are added to `given`."""
        src = script.src
        if pattern.search(src) is None:
            return False
        spans = [(n.start_byte, n.end_byte, name) for name, n in script.functions.items()]
        places = _Places(script)
        for match in pattern.finditer(src):
            at = match.start()
            inside = [s for s in spans if s[0] <= at < s[1]]
            function = min(inside, key=lambda s: s[1] - s[0])[2] if inside else None
            if not self._runs(script, function):
                continue  # (a function nothing on the route calls; a file's top level only
                # where the route sources or runs it)
            consumed = self._claimed_consumed if script.path in self.claimed else self._consumed
            if places.reads_at(at, given, consumed):
                return True
        return False

    def _claimed_consumed(self, writer: Command) -> bool:
        """`_consumed`, where a write to any file counts as read back: the launcher or the
        script may name it otherwise where it reads it (`$PWD/f` for `f`, `$(dirname "$0")/f`),
        or a later job may."""
        if writer.base == "tee" and any(not w.value.startswith("-") for w in writer.args):
            return True
        for redirect in writer.redirects:
            target = redirect.target
            if redirect.operator in _WRITES and not (target.static and target.value in _NOWHERE):
                return True
        return self._consumed(writer)

    def _consumed(self, writer: Command) -> bool:
        """Whether what the command writes to a file is read back by another command that
        runs (`echo "$SPEC_DECODING" > f`, then `cat f`; a config a server is given): not a
        label; output to the terminal or a log nothing reads is one. Commands that only move,
        copy or test files do not read it, nor does a call of a function (its body's commands
        are looked at as commands of their own)."""
        targets = [r.target for r in writer.redirects if r.operator in _WRITES]
        if writer.base == "tee":
            targets += [w for w in writer.args if not w.value.startswith("-")]
        for target in targets:
            if target.static and target.value in _NOWHERE:
                continue
            given = _parameters(writer, target)
            if given:  # (`write_config() { cat > "$1" <<EOF`: the path each call gives it)
                paths = self._arguments(writer, given)
                if paths is None or any(self._read_back(writer, w) for w in paths):
                    return True
                continue
            if self._read_back(writer, target) or _prints_path(writer, target):
                return True
        return False

    def _read_back(self, writer: Command, target: Word) -> bool:
        """Whether a command other than the writer reads the file a word names: by a name the
        word reads, or (a path written out) by its text."""
        names = {r.name for r in target.reads()}
        if names & _STEP_FILES:
            return True  # (`>> "$GITHUB_ENV"`: the next steps read it)
        counts, joined, own, elsewhere = self._reading_words()
        mine = own.get(id(writer), (set(), []))
        if any(counts[n] > (n in mine[0]) or n in elsewhere for n in names):
            return True
        value = target.value
        return bool(
            not names and value and joined.count(value) > sum(t.count(value) for t in mine[1])
        )

    def _arguments(self, writer: Command, indexes: set[int]) -> list[Word] | None:
        """The words the calls that run of the writer's function give it at these positions
        (1 for `$1`); None where that is not known: no such call runs, or one gives none
        there, or passes its own (`"$@"`)."""
        function = _owner(writer)
        calls = [c for c in self.running if function is not None and c.base == function]
        top = writer.outermost
        if function is None or any(
            c.base == "shift"
            and (c.node.start_byte < top.node.start_byte or set(c.loops) & set(top.loops))
            for c in top.script.body(function)
        ):
            return None  # (`shift` before it, or in a loop around both: which word `$1` is)
        words: list[Word] = []
        for call in calls:
            args = call.args
            for index in indexes:
                if index > len(args) or any(w.value in ("$@", "$*") for w in args[:index]):
                    return None
                word = args[index - 1]
                if _POSITIONAL_READ.search(word.text) or "$@" in word.text or "$*" in word.text:
                    return None  # (a wrapper's own parameter: `outer() { write "$1"; }`)
                words.append(word)
        return words or None

    def _reading_words(self) -> _Index:
        """What the commands that may read a file back read, counted once: how many of them
        read each name, their words' texts joined, each one's own (to leave the writer out),
        and the names read through a variable or a heredoc. Those commands are every command
        that runs but those that only move, copy or test files, calls of functions walked,
        and writers of their own (an `echo` in a function whose output a substitution takes
        is a reader)."""
        if self._index is None:
            calls = {function for _, function in self.called}  # (their bodies: walked)
            counts: Counter[str] = Counter()
            texts: list[str] = []
            own: dict[int, tuple[set[str], list[str]]] = {}
            keepers = [c for c in self.running if c.base in _FILE_KEEPERS]
            printers = [  # (to the job's log, or to a function's caller: `_function_output`)
                c
                for c in self.running
                if c.base in ("echo", "printf")
                and not c.apart_from_script
                and not _sets_variable(c)
            ]
            # (`D=$(dirname "$f")`, `D=$(echo ...)`, `P=$(cfg)`: a read if D or P is one)
            held: list[tuple[Command, str]] = []
            readers: list[tuple[Command, set[str]]] = []
            outputs: dict[str, tuple[bool, set[str]]] = {}  # (`_function_output`, once each)
            for other in self.running:
                if other.base in _FILE_KEEPERS or other.base in calls:
                    continue
                if other.base in _NAME_ONLY:
                    # (`mkdir -p "$(dirname "$f")"`, `[ -d "$(dirname "$f")" ]`, an echo of it)
                    if _argument_of(other, keepers) or _argument_of(other, printers):
                        continue
                    if _in_test(other):
                        continue
                    name = _assigned_from(other, self.running)
                    if name is not None:
                        held.append((other, name))
                        continue
                if other.base in _WRITERS:
                    if _written_away(other) or _sets_variable(other):
                        continue
                    function = _owner(other)
                    if _plain(other) and function is not None:
                        # (what a function prints goes where its calls' output goes)
                        if function not in outputs:
                            outputs[function] = self._function_output(function, frozenset())
                        taken, names = outputs[function]
                        held.extend((other, name) for name in names)
                        if not taken:
                            continue
                    elif _plain(other):
                        continue
                    elif other.piped and _piped_to_printer(other, self.running):
                        continue  # (`echo "cfg $OUT" | tee -a log`: a label; h68 p01)
                    else:  # (`MSG=$(echo "in $(dirname "$f")")`: a read if MSG is one)
                        name = _assigned_from(other, self.running)
                        if name is not None:
                            held.append((other, name))
                            continue
                words = [*other.words, *(r.target for r in other.redirects if r.operator == "<")]
                if other.base == "tee":  # (`tee -a "$OUT"` writes the file, reads none: h68
                    # p02; what it is fed, `tee log < "$OUT"`, it reads: h78 R8)
                    words = [r.target for r in other.redirects if r.operator == "<"]
                read = {r.name for w in words for r in w.reads()}
                values = [w.value for w in words]
                counts.update(read)
                texts += values
                own[id(other)] = (read, values)
                readers.append((other, read | _positional_reads(words)))
            # (a loop fed the file, `while read -r l; do ...; done < "$OUT"`: its `read` reads
            # it; h78 F4)
            for tail in _fed_loops(self.running):
                names = {m.group(1).decode() for m in _BODY_READ.finditer(tail)}
                counts.update(names)
                texts.append(tail.decode(errors="replace"))
            # (names read by an assignment whose variable is itself read, at any depth,
            # `CFG=$D/meta.json`, `ARGS=(--config "$OUT")`, or by a heredoc fed to a program,
            # not copied out to a file)
            fed = [
                (c, _heredoc_reads(c))
                for c in self.running
                if c.heredocs and not (c.base in _COPIERS and _written_away(c))
            ]
            elsewhere = _through(self.running, [*readers, *fed])
            elsewhere.update(*(names for _, names in fed))
            for other, name in held:  # (what they print, read where a reader reads the name)
                if counts[name] or name in elsewhere:
                    read = {r.name for w in other.words for r in w.reads()}
                    counts.update(read)
                    own[id(other)] = (read, [w.value for w in other.words])
            self._index = (counts, "\0".join(texts), own, elsewhere)
        return self._index

    def _function_output(self, function: str, seen: frozenset[str]) -> tuple[bool, set[str]]:
        """Where what a function prints goes, over its calls that run: whether a command that
        may read a file takes it (`--config "$(cfg)"`, `cfg | xargs ...`), and the variables
        given it (`P=$(cfg)`); a bare call's goes to the job's log (or, in a function, where
        that one's output goes), an echo's, a test's or a command's that only moves files is
        read by none (`echo "saved $(cfg)"`)."""
        read = False
        names: set[str] = set()
        for call in self.running:
            if call.base != function or _written_away(call):
                continue
            if call.subshell is None or call.subshell.type != "command_substitution":
                if call.piped or call.apart is not None:
                    read = read or not _piped_to_printer(call, self.running)
                    continue
                outer = _owner(call)
                if outer is not None and outer not in seen and outer != function:
                    more, given = self._function_output(outer, seen | {function})
                    read, names = read or more, names | given
                continue
            name = _assigned_from(call, self.running)
            if name is not None:
                names.add(name)
                continue
            holder = _holder(call, self.running)
            if _in_test(call):
                continue  # (`[[ -f "$(cfg)" ]]`: a test of its name)
            if holder is None or not (holder.base in _FILE_KEEPERS or holder.base in _WRITERS):
                read = True
        return read, names

    def _runs(self, script: Script, function: str | None) -> bool:
        """Whether the route runs the script's top level (None) or this function of it."""
        if function is None:
            return script.path in self.files
        return (id(script), function) in self.called


# what the readers of a route's commands read (`_Reading._reading_words`)
_Index = tuple[Counter[str], str, dict[int, tuple[set[str], list[str]]], set[str]]


def _through(running: list[Command], readers: list[tuple[Command, set[str]]]) -> set[str]:
    """The names read through variables the readers read, at any depth: `CFG="$OUT"`,
    `ARGS=(--config "$OUT")`, `printf -v CFG %s "$OUT"`, `for f in "$OUT"` (OUT, where CFG,
    ARGS or f is read), by the assignments that may give the value read (`_giving`), and a
    function's parameter read by the words its calls give it (`serve "$OUT"`, `S --config
    "$1"` in `serve`)."""
    by_name: dict[str, list[Assignment]] = {}
    for command in running:
        for assignment in command.assignments:
            if assignment.name and assignment.kind != "prefix":
                by_name.setdefault(assignment.name, []).append(assignment)
    found: set[str] = set()
    seen: set[tuple[str, int]] = set()
    todo = [(name, reader) for reader, names in readers for name in names]
    while todo:
        name, reader = todo.pop()
        if (name, id(reader)) in seen:
            continue
        seen.add((name, id(reader)))
        if name.startswith("@") or (name.isdigit() and name != "0"):
            function = _owner(reader)
            for call in running if function is not None else ():
                if call.base != function:
                    continue
                words, forwarded = _given_at(call, _shifted(reader, name))
                if forwarded:  # (`serve "$@"`: its caller's parameter)
                    todo.append((forwarded, call))
                for word in words:
                    for given in {r.name for r in word.reads()} | _positional_reads([word]):
                        found.add(given)
                        todo.append((given, call))
            continue
        for assignment in _giving(by_name.get(name, []), reader):
            for given in _assigned_reads(assignment):
                found.add(given)
                todo.append((given, assignment.command))
    return found


def _positional_reads(words: Sequence[Word]) -> set[str]:
    """The positional parameters the words read (`"$1"`: "1"; `"$@"`, `$*`: "@1", every one
    from the first; `"${@:2}"`: "@2"), which `Word.reads` leaves out."""
    found = {n for w in words if "$" in w.text for n in _POSITIONAL_READ.findall(w.text)}
    found.update(f"@{start}" for w in words if (start := _spread(w)) is not None)
    return found


def _spread(word: Word) -> int | None:
    """The first positional parameter a word expands to with every one after it: 1 for `"$@"`,
    `${@}` or `$*`, 2 for `"${@:2}"` (`${@:2:1}`: taken as 2 and on); None for none."""
    match = _ALL_PARAMETERS.search(word.text)
    if match is None:
        return None
    return int(match.group(1)) if match.group(1) else 1


# every positional parameter from one on: `"$@"`, `${@}`, `$*`, `"${@:2}"`
_ALL_PARAMETERS = lazy_compile(r"(?<!\\)\$(?:\{[@*](?::([1-9][0-9]*))?[^}]*\}|[@*])")


def _shifted(reader: Command, name: str) -> tuple[int, bool]:
    """The first of a call's arguments a positional parameter a command reads may be (`$2`
    after one `shift`: the third), and whether any after it may be (every one from there:
    `"$@"`; a `shift` in a loop, the reader's too, or under a condition, `shift "$n"`). A
    `shift` in a shell of its own (`( shift )`) shifts nothing here."""
    spread = name.startswith("@")
    index, more = int(name.lstrip("@") or 1), spread
    top = reader.outermost
    for command in top.script.body(top.function or ""):
        if command.base != "shift" or command.apart_from_script:
            continue
        looped = bool(set(command.loops) & set(top.loops))
        if command.node.start_byte >= top.node.start_byte and not looped:
            continue
        count = command.args[0].value if command.args else "1"
        if command.guards or command.loops or not count.isdigit():
            more = True
        else:
            index += int(count)
    return index, more


def _given_at(call: Command, at: tuple[int, bool]) -> tuple[list[Word], str]:
    """The words a call gives at a position (`_shifted`), or from it on, and the parameter of
    its own function a `"$@"` there passes on ("2" for `$2` of `serve "$@"`, "@1" for every
    one from the first; "" none)."""
    index, more = at
    args = call.args
    found = next(((i, s) for i, w in enumerate(args, 1) if (s := _spread(w)) is not None), None)
    if found is not None and found[0] <= index:  # (`serve x "$@"`: `$2` is the caller's `$1`)
        position, start = found
        own = index - position + start
        return [], f"@{own}" if more else str(own)
    if not more:
        return list(args[index - 1 : index]), ""
    if found is None:
        return list(args[index - 1 :]), ""
    position, start = found
    return list(args[index - 1 : position - 1]), f"@{start}"


def _giving(assignments: list[Assignment], reader: Command) -> list[Assignment]:
    """The assignments of a name that may give it the value a command reads: in its function,
    those before it there, where there are any; else those of its shell before it (anywhere,
    in a loop or a function: called later), from the last one that surely runs (not under a
    condition or in a loop); not one in a subshell it is not in; those of another file of the
    route where its own file has none."""
    script = reader.script
    at = reader.node.start_byte
    mine = sorted(
        (a for a in assignments if a.command.script is script), key=lambda a: a.node.start_byte
    )
    if not mine:
        return assignments
    function = reader.function
    local = [a for a in mine if function is not None and a.command.function == function]
    if any(a.node.start_byte < at for a in local) and not reader.loops:
        mine = [a for a in local if a.node.start_byte < at]
    anywhere = bool(reader.loops) or function is not None
    found = [
        a
        for a in mine
        if (anywhere or a.node.start_byte < at) and (reader.subshell or not a.command.subshell)
    ]
    last = max(
        (
            i
            for i, a in enumerate(found)
            if a.node.start_byte < at
            and a.command.function == function
            and not a.command.guards
            and not a.command.loops
            and a.command.subshell == reader.subshell
        ),
        default=0,
    )
    return found[last:]


def _assigned_reads(assignment: Assignment) -> set[str]:
    """The names an assignment's value reads: its word's (an array's items too), a `printf
    -v`'s arguments, a `read`'s here-string, a `${X:=...}`'s default, a `for` loop's list."""
    if assignment.reference is not None:  # (`declare -n ref=OUT`: `$ref` reads OUT)
        return {assignment.reference}
    if assignment.value is not None:
        return {r.name for r in assignment.value.reads()} | _positional_reads([assignment.value])
    command = assignment.command
    if assignment.kind == "read" and _sets_variable(command):
        return {r.name for w in command.args for r in w.reads()} | _positional_reads(command.args)
    if assignment.kind == "read":  # (`read -r CFG <<< "$OUT"`, `mapfile -t A <<< ...`, and
        # `while read -r f; do ...; done <<< "$OUT"`)
        text = command.script.text_of(command.node)
        if "<<<" not in text and command.loops:
            loop = command.loops[-1]
            text = command.script.src[loop.end_byte : loop.end_byte + 200].decode(errors="replace")
            text = text if _HERE_STRING.match(text) else ""
        given = text.split("<<<", 1)[1].split("\n", 1)[0] if "<<<" in text else ""
        return {m.group(1).decode() for m in _BODY_READ.finditer(given.encode())} | set(
            _POSITIONAL_READ.findall(given)
        )
    if assignment.kind == "default":  # (`: "${CFG:=$OUT}"`)
        return {r.name for w in command.words for r in w.reads()} - {assignment.name}
    if assignment.kind == "for":
        src = command.script.src
        start = assignment.node.end_byte
        if _NO_LIST.match(src, start, command.node.end_byte):
            # (`for f; do`, `for f do`: the function's parameters, where no `set --` before
            # the loop gives it others; h76 R6, F2)
            return set() if _positionals_set(command) else {"@1"}
        end = _FOR_BODY.search(src, start, command.node.end_byte)
        if end is None:
            return set()
        listed = src[start : end.start()]
        return {m.group(1).decode() for m in _BODY_READ.finditer(listed)}
    return set()


def _fed_loops(running: list[Command]) -> list[bytes]:
    """The redirects' words of the loops whose `read` (or `mapfile`) takes its input from a
    file the loop is fed (`while read -r l; do ...; done < "$OUT"`: `"$OUT"`), once each."""
    found: dict[int, bytes] = {}
    for command in running:
        if command.base not in ("read", "mapfile", "readarray") or not command.loops:
            continue
        loop = command.loops[-1]
        src = command.script.src
        match = _LOOP_INPUT.match(src, loop.end_byte, min(len(src), loop.end_byte + 300))
        if match is not None:
            found.setdefault(loop.start_byte, match.group(1))
    return list(found.values())


# a file a loop is fed (`done < "$OUT"`: what follows the loop's `done`; not `<<<`, `<<`, `<(`)
_LOOP_INPUT = lazy_compile(rb"[ \t]*<(?![<&(])[ \t]*([^\s;&|)]+)")
# a here-string a loop is fed (`done <<< "$OUT"`: what follows the loop's `done`)
_HERE_STRING = lazy_compile(r"[ \t]*<<<")
# where a `for` loop's list of words ends: `; do`, or a line break before `do`
_FOR_BODY = lazy_compile(rb"[;\n]\s*do\b")
# a `for` loop with no list (`for f; do`, `for f do`, `for f  # ...` and `do` on the next line)
_NO_LIST = lazy_compile(rb"[ \t]*(?:#[^\n]*)?(?:;|\n)?\s*do\b")


def _positionals_set(command: Command) -> bool:
    """Whether its function's body gives the positional parameters new values (`set --
    /tmp/x.json`) before the command."""
    function = command.function
    return function is not None and any(
        c.base == "set" and sets_positional(c) and c.node.start_byte < command.node.start_byte
        for c in command.script.body(function)
    )


def _prints_path(writer: Command, target: Word) -> bool:
    """Whether the function the writer is in prints the path it wrote for its caller (`echo
    "$cfg"`, to a standard output not sent to a file): `CFG=$(make_server_config)`, then
    `--config "$CFG"`; where that path goes is not followed, so it may be read back."""
    function = _owner(writer)
    if function is None or not target.reads():
        return False
    top = writer.outermost
    text = target.value
    return any(
        command.base in ("echo", "printf")
        and command.args
        and command.args[-1].value == text
        and all(w.value.startswith(("-", "%")) for w in command.args[:-1])
        and not _written_away(command)
        for command in top.script.body(function)
    )


def _parameters(command: Command, target: Word) -> set[int]:
    """The positional parameters of its function a path a command writes to reads: `$1`, or a
    name the function assigns from one first (`local out=$1`); none where it reads others."""
    function = _owner(command)
    names = {r.name for r in target.reads()}
    positional = {int(n) for n in _POSITIONAL_READ.findall(target.text)}
    if function is None or not (names or positional):
        return set()
    top = command.outermost
    taken: dict[str, int] = {}
    given: Counter[str] = Counter()  # (how many times the body assigns each name)
    for other in top.script.body(function):
        for assignment in other.assignments:
            value = assignment.value
            given[assignment.name] += value is not None or assignment.kind != "local"
            held = _POSITIONAL.fullmatch(value.text) if value is not None else None
            if held is not None and assignment.name not in taken:
                taken[assignment.name] = int(held.group(1))
    taken = {n: i for n, i in taken.items() if given[n] == 1}  # (`out=$1`, then `out=/tmp/x`)
    found = positional
    for name in names:
        if name.isdigit() and name != "0":
            found.add(int(name))
        elif name in taken:
            found.add(taken[name])
        else:
            return set()  # (a path that also reads another name: as any path is)
    return found


# a positional parameter read in a word's text: `$1`, `${1}` (not `$10`, `\\$1`)
_POSITIONAL_READ = lazy_compile(r"(?<!\\)\$\{?([1-9])(?![0-9])\}?")
# a word that is one positional parameter: `$1`, `"$1"`, `${1}`, `"${1}"`
_POSITIONAL = lazy_compile(r'"?\$\{?([1-9])\}?"?')


def _owner(command: Command) -> str | None:
    """The function of its file a command runs in (a nested shell's, its command's)."""
    top = command.outermost
    return top.function


def _lists_names(script: Script, names: set[str]) -> bool:
    """Whether the script expands the names of the variables that start with a prefix of one
    of `names` (`"${!SPEC_@}"`, then `${!v}`: h93 F4), which reads them all."""
    src = script.src
    return any(
        any(n.startswith(m.group(1).decode()) for n in names)
        and _COMMENT.match(src[src.rfind(b"\n", 0, m.start()) + 1 : m.start()]) is None
        for m in _PREFIX_NAMES.finditer(src)
    )


# `${!PREFIX@}`, `${!PREFIX*}`: the names of the variables that start with PREFIX
_PREFIX_NAMES = lazy_compile(rb"\$\{!([A-Za-z_][A-Za-z0-9_]*)[@*]\}")


def _mentions(names: set[str]) -> re.Pattern[bytes]:
    alternatives = "|".join(re.escape(n) for n in sorted(names))
    return re.compile(rb"(?<![A-Za-z0-9_])(?:" + alternatives.encode() + rb")(?![A-Za-z0-9_])")


def _lists_environment(command: Command, base: str | None, words: int) -> bool:
    """A command whose output lists the environment's names or values for another to read
    (`compgen -e | grep SPEC_`, `$(env)`, `printenv | ...`): which it reads is not known."""
    if base == "compgen":
        return True
    return (
        base in ("env", "printenv", "export", "declare", "set")
        and words == 1
        and not (_plain(command))
    )


def _reads_environment(base: str | None, first: list[str]) -> bool:
    """A program that reads variables a file it is given names (`envsubst < t.yaml`, a
    Makefile's `$(SPEC_DECODING)`, a compose file's `${SPEC_DECODING}`)."""
    if base in ("envsubst", "make", "gmake", "docker-compose", "just"):
        return True
    return base in ("docker", "podman") and "compose" in first


class _Places:
    """Where a mention of a name falls in a script's commands, and what it does there."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.commands = script.commands
        self.heredocs = [(h, c) for c in self.commands for h in c.heredocs if h.body is not None]

    def reads_at(self, at: int, given: set[str], consumed: Callable[[Command], bool]) -> bool:
        """Whether the mention at this offset reads the name (see the rule's doc); an
        assignment from it adds the name it assigns to `given`. `consumed`: whether what a
        command writes is read back."""
        script = self.script
        for heredoc, command in self.heredocs:
            body = heredoc.body
            assert body is not None
            if body.start_byte <= at < body.end_byte:
                # (only an expanded body written out by `cat`/`tee` alone: a quoted one is text
                # for a later run, one fed on, `cat <<EOF | python3`, is read there)
                operator = script.src[heredoc.node.start_byte : body.start_byte]
                fed_on = _PIPE.search(operator) is not None
                copied = (
                    command.base in _COPIERS
                    and _plain(command)
                    and not fed_on
                    and _written_away(command)
                )
                return heredoc.quoted or not copied or consumed(command)
        holding = [c for c in self.commands if c.node.start_byte <= at < c.node.end_byte]
        if not holding:
            line = script.src[script.src.rfind(b"\n", 0, at) + 1 : at]
            return _COMMENT.match(line) is None  # (a `for` list, a `case` word: not placed)
        command = min(holding, key=lambda c: c.node.end_byte - c.node.start_byte)
        for assignment in command.assignments:
            node = assignment.node
            if node.start_byte <= at < node.end_byte:
                if assignment.kind in ("dynamic", "arithmetic", "read"):
                    return True
                text = script.text_of(node)
                if text.split("=", 1)[0].split("[", 1)[0].lstrip("+") != assignment.name:
                    return True
                if at < node.start_byte + len(assignment.name.encode()):
                    return False  # (the name assigned: `SPEC_DECODING=...`)
                given.add(assignment.name)
                return False
        for redirect in command.redirects:
            node = redirect.target.node
            if node.start_byte <= at < node.end_byte:
                return True
        base = command.base
        if base in _DECLARATIONS:
            return False  # (`export SPEC_DECODING`: the name's attributes)
        written = base in _WRITERS and _plain(command) and not _sets_variable(command)
        return not written or not _written_away(command) or consumed(command)


# redirections that write a file
_WRITES = frozenset({">", ">>", ">|", "&>", "&>>"})
# where written text goes nowhere a later command reads
_NOWHERE = frozenset({"/dev/null", "/dev/stderr", "/dev/stdout", "/dev/tty"})
# GitHub's files a step writes for the next steps
_STEP_FILES = frozenset({"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_PATH"})
# commands that name a file without reading what it holds
_FILE_KEEPERS = frozenset(
    {"mv", "cp", "rm", "ls", "test", "[", "mkdir", "touch", "chmod", "chown", "stat", "ln"}
)
# commands that print a file's name or folder: no read of it where what they print is an
# argument of one of those (`mkdir -p "$(dirname "$f")"`: h63 R5); a read where a command
# given what they print may read the file (`CFG=$(realpath "$f")`: h64 R2)
_NAME_ONLY = frozenset({"dirname", "basename", "realpath"})


def _heredoc_reads(command: Command) -> set[str]:
    """The names read in the bodies of a command's unquoted heredocs."""
    src = command.script.src
    return {
        m.group(1).decode()
        for heredoc in command.heredocs
        if not heredoc.quoted and heredoc.body is not None
        for m in _BODY_READ.finditer(src, heredoc.body.start_byte, heredoc.body.end_byte)
    }


# a read in a heredoc's body: `$NAME`, `${NAME...}`
_BODY_READ = lazy_compile(rb"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def _assigned_from(command: Command, running: list[Command]) -> str | None:
    """The variable an assignment gives what the command prints (`D=$(dirname "$f")`,
    `printf -v D %s "$(dirname "$f")"`)."""
    start, end = command.node.start_byte, command.node.end_byte
    for other in running:
        if other.script is not command.script:
            continue
        for a in other.assignments:
            node = other.node if _sets_variable(other) else a.node
            if a.name and node.start_byte < start and end <= node.end_byte:
                return a.name
    return None


def _piped_to_printer(command: Command, running: list[Command]) -> bool:
    """Whether a pipeline sends what the command prints only to a command that prints or tests
    it (`cfg | tee -a log`, `cfg | grep -q json`, `cfg | xargs echo saved`): the next
    element's, the last; not a `tee` to a file another command names (`cat path.txt | S`) or
    to a process substitution."""
    script = command.script
    end = command.node.end_byte
    after = [c for c in script.commands if c.node.start_byte >= end]
    if not after:
        return False
    following = min(after, key=lambda c: c.node.start_byte)
    if script.src[end : following.node.start_byte].strip() != b"|" or following.piped:
        return False
    words = [w.value for w in following.words]
    if following.base == "xargs":
        words = [w for w in words[1:] if not w.startswith("-")]
    name = words[0] if words else ""
    if name == "tee":
        files = [w for w in following.args if not w.value.startswith("-")]
        named = [w for c in running if c is not following for w in c.words] + [
            r.target for c in running for r in c.redirects
        ]
        return not any(
            w.text.startswith(">(") or (w.value and any(w.value in n.value for n in named))
            for w in files
        )
    return name in _WRITERS or (name == "grep" and ("-q" in words or "--quiet" in words))


def _holder(command: Command, running: list[Command]) -> Command | None:
    """The innermost other command of its script whose words hold the command's substitution."""
    start, end = command.node.start_byte, command.node.end_byte
    holders = [
        k
        for k in running
        if k.script is command.script
        and k is not command
        and k.node.start_byte <= start
        and end <= k.node.end_byte
    ]
    return min(holders, key=lambda k: k.node.end_byte - k.node.start_byte, default=None)


def _in_test(command: Command) -> bool:
    """Whether the command's substitution is an operand of a test (`[ -d "$(dirname "$f")" ]`,
    `[[ ... ]]`, `test -d ...`): what it prints is compared, not read."""
    src = command.script.src
    line = src[src.rfind(b"\n", 0, command.node.start_byte) + 1 : command.node.start_byte]
    return _OPEN_TEST.search(line) is not None


# an open test before a position on its line: `[ `, `[[ `, `test ` not closed by `]`
_OPEN_TEST = lazy_compile(rb"(?:\[\[?|(?<![\w-])test)\s[^\]]*$")


def _argument_of(command: Command, keepers: list[Command]) -> bool:
    """Whether the command runs in a substitution in the words of one of these commands."""
    start, end = command.node.start_byte, command.node.end_byte
    return any(
        k.script is command.script
        and k is not command
        and k.node.start_byte < start
        and end <= k.node.end_byte
        for k in keepers
    )


# a pipe (not `||`) between a heredoc's operator and its body: `cat <<EOF | python3`
_PIPE = lazy_compile(rb"(?<!\|)\|(?!\|)")
# a line's text before a mention that puts it in a comment: `# ...`, or `cmd  # ...` with no
# quote before the `#`
_COMMENT = lazy_compile(rb"\s*#|[^'\"#]*\s#")


def _written_away(command: Command) -> bool:
    """Whether the command's output goes to a file, the error stream or nowhere, not to a
    standard output its caller may read (`flag=$(spec_args)`, `$(bash helper.sh)`)."""
    if command.base == "tee" and any(not w.value.startswith("-") for w in command.args):
        return True
    for redirect in command.redirects:
        target = redirect.target
        if redirect.operator in _WRITES and not (target.static and target.value == "/dev/stdout"):
            return True
        if redirect.operator == ">&" and target.value == "2":
            return True
    return _to_stderr(command)


def _to_stderr(command: Command) -> bool:
    text = command.script.text_of(command.node)
    return bool(re.search(r"(?:^|\s)(?:1?>&2|>\s*/dev/stderr)(?:\s|$)", text))


def _plain(command: Command) -> bool:
    """A command whose output is not read by another (not in a pipeline or a substitution)."""
    return not command.piped and command.apart is None and command.subshell is None


def _sets_variable(command: Command) -> bool:
    return command.base == "printf" and any(w.value.startswith("-v") for w in command.args)


_PYTHON = lazy_compile(r"python(?:\d+(?:\.\d+)?)?")
# programs that run a Python file they are given (`torchrun x.py`, `uv run x.py`)
_PYTHON_RUNNERS = frozenset(
    {"torchrun", "accelerate", "deepspeed", "uv", "uvx", "mpirun", "pytest"}
)
# a Python module that runs other programs, and one of them a shell or a shell script
_RUNS_PROGRAMS = lazy_compile(rb"subprocess|\bos\.(?:system|popen|exec\w*|spawn\w*)\b")
_RUNS_SHELL = lazy_compile(rb"\.sh\b|[\"'](?:/bin/)?(?:ba)?sh[\"']|shell\s*=\s*True|os\.system")
_IMPORT = lazy_compile(
    rb"(?:^|;)[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[\w., \t*]+)"
    rb"|import[ \t]+([\w., \t]+))",
    re.M,
)
# a module loaded by a name made at run time, or the environment read by listing it
_LOADS_OR_LISTS = lazy_compile(
    rb"\bimportlib\b|\b__import__\b|\brunpy\b|\bexec\("
    # (the environment handed over whole: `expandvars`, `Template(...).substitute(os.environ)`,
    # `os.environ.items()`; not one variable of it, `os.environ["X"]`, `os.environ.get("X")`)
    rb"|\bexpandvars\b|\boc\.env\b|os\.environ(?!\s*(?:\[|\.get\b|\.setdefault\b|\.pop\b))"
)
_EXPANSION = lazy_compile(r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|`[^`]*`")


def _python_files(ctx: Context, script: Script, words: Sequence[Word]) -> list[str | None]:
    """The repository's Python files a command of these words runs (`python3 x.py`,
    `torchrun x.py`, `./x.py`, `python3 -m pkg.mod`, `retry python3 x.py`); None for a path
    that names none and may name one of the repository (an expansion in it)."""
    start = next((i for i, w in enumerate(words) if w.static and _runs_python(w.value)), None)
    if start is None:
        if not words or not words[0].value.endswith(".py"):
            return []
        start = 0
    words = words[start:]
    found: list[str | None] = []
    if _PYTHON.fullmatch(posixpath.basename(words[0].value)):
        operand = _operand(words[1:])
        if isinstance(operand, str):  # (`-m pkg.mod`)
            found.extend(_modules(ctx, "", operand))
        elif operand is not None and not operand.value.endswith(".py"):
            known = resolve(ctx.ws, script.top, operand.value, python=True, some=True) or []
            found.extend(known or [None])  # (a file not found: what it reads is not known)
    for word in words:
        value = word.value
        if not value.endswith(".py"):
            continue
        known = resolve(ctx.ws, script.top, value, python=True, some=True) or []
        if not known:
            tail = _EXPANSION.split(value)[-1]
            tail = "/" + posixpath.normpath(tail).lstrip("/")
            known = [p for p in ctx.ws.python_paths if f"/{p}".endswith(tail)]
        if not known:
            found.append(None)
        found.extend(known)
    return found


def _runs_python(value: str) -> bool:
    name = posixpath.basename(value)
    return _PYTHON.fullmatch(name) is not None or name in _PYTHON_RUNNERS


def _operand(words: Sequence[Word]) -> Word | str | None:
    """What a Python interpreter runs: its first word that is not an option (past the options
    that take a value), or the module of `-m`; None for `-c` and `-` (the code is in the
    text)."""
    index = 0
    while index < len(words):
        value = words[index].value
        if value in ("-c", "-"):
            return None
        if value == "-m":
            return words[index + 1].value if index + 1 < len(words) else None
        if value.startswith("-m") and len(value) > 2:
            return value[2:]
        if value in ("-W", "-X", "-Q"):
            index += 2
            continue
        if not value.startswith("-"):
            return words[index]
        index += 1
    return None


def _imported(data: bytes) -> list[str]:
    """The modules a Python file imports: `import a, b`, `from a import b` (a, and a.b where
    it is a module), `from .a import b` (beside the file)."""
    found: list[str] = []
    for match in _IMPORT.finditer(data):
        if match.group(3) is not None:
            found += [n.split()[0] for n in match.group(3).decode().split(",") if n.strip()]
            continue
        package = match.group(1).decode().lstrip(".")
        listed = match.group(2).decode().strip("()")
        names = [n.split()[0] for n in listed.split(",") if n.strip() and n.strip() != "*"]
        found += [package] if package else []
        found += [f"{package}.{n}" if package else n for n in names]
    return found


def _modules(ctx: Context, importer: str, module: str) -> list[str]:
    """The repository's files a module name may be: `pkg/mod.py`, `pkg/mod/__init__.py` or
    `pkg/mod/__main__.py` anywhere, or `mod.py` beside the importer."""
    tail = "/" + module.replace(".", "/")
    ends = (f"{tail}.py", f"{tail}/__init__.py", f"{tail}/__main__.py")
    found = [p for p in ctx.ws.python_paths if f"/{p}".endswith(ends)]
    if importer and not found:
        beside = posixpath.join(posixpath.dirname(importer), module.split(".")[0] + ".py")
        found = [beside] if ctx.ws.is_python(beside) else []
    return found
