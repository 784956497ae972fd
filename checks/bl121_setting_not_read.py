"""An entry's setting that nothing on its jobs' route reads: they run without it.

## What it does
Reports a launcher's command that runs a benchmark script for master-config entries whose
search-space elements set a field the benchmark workflow passes the launcher as a variable
(`spec-decoding: mtp`, as `SPEC_DECODING`) to a value other than the field's default (`none`),
where nothing those jobs run reads the variable:

- not the launcher, nor a launcher it hands the job over to (`exec bash other.sh`);
- not the script the command runs on their route, a script or library that one runs or
  sources, or a function of those they call;
- not a Python file of the repository any of them runs.

A read that only writes the value out counts for nothing: `echo`, `printf` or a `cat`/`tee`
heredoc, as the results' labels are written. Any other mention of the name counts as a read: a
condition, an argument, a path, a name passed on (`-e SPEC_DECODING`), or an assignment whose
variable is itself read so.

## Why is this bad?
The jobs run as if the field were left out, while the sweep files their results under the
value the entry gives: an "MTP" number measured without MTP. Nothing fails, so only a reader of
the published numbers could notice. InferenceX shipped this twice: a launcher that built its
script's path without `${SPEC_SUFFIX}` (`launch_mi325x-amds.sh`), so its `spec-decoding: mtp`
entries ran the non-MTP script beside the `_mtp.sh` one, until the launcher was fixed.

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
Not reported, as what the job does with the setting is not known: a job whose launcher runs
srtctl or whose element names a recipe (the recipe sets the job up), a command whose script is
not one known file on the route, a script that names the value itself (`qwen_mtp.sh`, a comment
on MTP: it may be the one made for it), a job whose workflow does not pass the variable, and a
route through an `eval` or a file sourced or run that is not found. A mention of the name
benchlint cannot place (in a `for` list or a `case` word) is taken as a read; one in a comment,
or in a function nothing on the route calls, is not.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from benchlint import profile
from benchlint.calls import resolve
from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity
from benchlint.launcher import RECIPE_VARIABLES
from benchlint.registry import rule
from benchlint.releases import ScriptRun, runs_srtctl, scripts_run
from benchlint.shell.expand import UNSET
from benchlint.shell.model import Command, Script
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
    Severity.ERROR,
    tags=("wiring", "environment"),
    precision="medium",
)
def check(ctx: Context) -> Iterator[Finding]:
    fields = profile.ELEMENT_ENVIRONMENT
    if not fields:
        return
    wiring = ctx.wiring
    verdicts: dict[tuple[object, ...], bool | None] = {}
    found: dict[tuple[int, str, str], _Ignored] = {}
    for launcher, pairs in sorted(wiring.pairs_of_launcher.items()):
        configs = {wiring.pairs[i][0].path for i in pairs}
        if not ctx.route_in_scope(launcher, *configs) or runs_srtctl(ctx, launcher):
            continue
        for route in wiring.routes_for_launcher(launcher):
            if any(name in route.element.settings for name in RECIPE_VARIABLES):
                continue  # (the recipe sets the job up)
            for name, source in fields.items():
                value = _given(route, name, source["field"], source["default"])
                if value is None:
                    continue
                run = _the_run(ctx, route)
                if run is None or _names_value(ctx, run.scripts[0], value):
                    continue
                # (the launchers that handed the job over, `exec bash other.sh`, and the one that
                # runs the script)
                last = route.launcher.path
                paths = (*(c.script.top.path for c in route.via), last, run.scripts[0])
                # (the launcher's other commands that run scripts, which do not run here)
                others = frozenset(id(r.call.command) for r in scripts_run(ctx, route))
                key = (paths, others, id(run.call), name)
                if key not in verdicts:
                    verdicts[key] = _Reading(ctx, name, run, others).reads(paths)
                if verdicts[key] is False:
                    ignored = found.setdefault(
                        (id(run.call), name, value), _Ignored(run, last, name, value)
                    )
                    ignored.add(route.element, run.scripts[0])
    for ignored in found.values():
        yield ignored.finding(ctx)


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
    scripts: list[str] = field(default_factory=list)

    def add(self, element: Element, script: str) -> None:
        if element not in self.elements:
            self.elements.append(element)
        if script not in self.scripts:
            self.scripts.append(script)

    def finding(self, ctx: Context) -> Finding:
        entries: list[Entry] = list(dict.fromkeys(e.entry for e in self.elements))
        field_name = profile.ELEMENT_ENVIRONMENT[self.name]["field"]
        default = profile.ELEMENT_ENVIRONMENT[self.name]["default"]
        word = self.run.call.word
        scripts = _listed(sorted(self.scripts))
        return Finding(
            "BL121",
            f"`{field_name}: {self.value}` of {_listed([e.name for e in entries])} reaches this "
            f"line, and nothing their jobs run reads `{self.name}` (this launcher, nor {scripts} "
            f"it runs for them): those jobs run as if it were `{default}`, and their results "
            f"are filed as `{self.value}`" + ctx.wiring.assumption(entries, self.launcher),
            Location(self.launcher, word.span),
            related=tuple(
                Location(e.location.path, e.location.span, f"{field_name}: {self.value}")
                for e in self.elements[:_NAMED]
            ),
            help=f"pick the script by `{self.name}` (or read it in the script)",
            subject=f"{self.name}={self.value}:{word.value}",
            involves=tuple(e.name for e in entries),
        )


def _listed(names: list[str]) -> str:
    more = len(names) - _NAMED
    return ", ".join(names[:_NAMED]) + (f" and {more} more" if more > 0 else "")


class _Reading:
    """Whether anything a route runs from its launcher reads a variable (None: not known)."""

    def __init__(self, ctx: Context, name: str, run: ScriptRun, others: frozenset[int]) -> None:
        self.ctx = ctx
        self.run = run
        self.others = others
        self.names = {name}  # the variable, and those given a value from it
        self.functions: dict[str, Script] = {}  # every function the files define
        self.called: set[tuple[int, str]] = set()  # (definer, name) of functions called
        self.files: dict[str, Script] = {}

    def reads(self, paths: tuple[str, ...]) -> bool | None:
        todo = list(paths)
        while todo:  # the files the route runs or sources (the functions they call)
            path = todo.pop(0)
            if path in self.files:
                continue
            script = self.ctx.ws.shell(path)
            if script is None:
                return None
            self.files[path] = script
            for name, definer in self.ctx.environment.functions_at_end(script).items():
                self.functions.setdefault(name, definer)
            more = self._called_from(script)
            if more is None:
                return None
            todo.extend(more)
        while True:  # each mention of a name, until no assignment gives a new one
            known = len(self.names)
            pattern = _mentions(self.names)
            for script in self.files.values():
                if self._mentioned(script, pattern):
                    return True
            for definer, _ in self._definers():
                if self._mentioned(definer, pattern):
                    return True
            if self._python_reads(pattern):
                return True
            if len(self.names) == known:
                return False

    def _definers(self) -> Iterator[tuple[Script, str]]:
        seen = {id(s) for s in self.files.values()}
        for definer in {id(d): d for d in self.functions.values()}.values():
            if id(definer) not in seen:
                seen.add(id(definer))
                yield definer, definer.path

    def _called_from(self, script: Script) -> list[str] | None:
        """The files the script's commands that run on the route source or run (None: one of
        them is not found, or an `eval` runs), following the functions they call."""
        calls = {id(c.command): c for c in self.ctx.environment.calls.calls_in(script)}
        targets: list[str] = []
        commands = [c for c in script.all_commands() if _owner(c) is None]
        while commands:
            command = commands.pop()
            if command.base == "eval":
                return None
            for word in (command.base, *(w.value for w in command.words if w.static)):
                definer = self.functions.get(word or "")
                if definer is not None and (id(definer), word) not in self.called:
                    self.called.add((id(definer), word or ""))
                    commands.extend(c for c in definer.all_commands() if _owner(c) == word)
                    if definer.path != script.path:
                        more = self._calls_of(definer, word or "")
                        if more is None:
                            return None
                        targets.extend(more)
            call = calls.get(id(command))
            if call is None:
                continue
            if id(command) == id(self.run.call.command):
                continue  # (the script the route runs: given)
            if id(command) in self.others or (not call.targets and call.known is not None):
                continue  # (another script's command, not run on this route)
            if not call.targets:
                return None
            targets.extend(call.targets)
        return targets

    def _calls_of(self, definer: Script, function: str) -> list[str] | None:
        """The files a library's function sources or runs."""
        calls = self.ctx.environment.calls.calls_in(definer)
        found: list[str] = []
        for call in calls:
            if _owner(call.command) != function:
                continue
            if not call.targets and call.known is None:
                return None
            found.extend(call.targets)
        return found

    def _mentioned(self, script: Script, pattern: re.Pattern[bytes]) -> bool:
        """Whether a command of the script that runs on the route (at its top level, or in a
        function called) reads one of the names; the names assignments give a value from them
        are added."""
        src = script.src
        if pattern.search(src) is None:
            return False
        spans = [(n.start_byte, n.end_byte, name) for name, n in script.functions.items()]
        commands = script.commands
        for match in pattern.finditer(src):
            at = match.start()
            inside = [s for s in spans if s[0] <= at < s[1]]
            function = min(inside, key=lambda s: s[1] - s[0])[2] if inside else None
            if not self._runs(script, function):
                continue  # (a function nothing on the route calls; a file's top level only
                # where the route sources or runs it)
            if _reads_at(script, commands, at, self.names):
                return True
        return False

    def _runs(self, script: Script, function: str | None) -> bool:
        """Whether the route runs the script's top level (None) or this function of it."""
        if function is None:
            return script.path in self.files
        return (id(script), function) in self.called

    def _python_reads(self, pattern: re.Pattern[bytes]) -> bool:
        """Whether a Python file of the repository that a command on the route runs mentions
        one of the names (as `os.environ["SPEC_DECODING"]`: the environment it inherits)."""
        ws = self.ctx.ws
        for script in [*self.files.values(), *(d for d, _ in self._definers())]:
            for command in script.all_commands():
                if not self._runs(script, _owner(command)):
                    continue
                for path in _python_files(self.ctx, command):
                    if ws.search(path, pattern):
                        return True
        return False


def _owner(command: Command) -> str | None:
    """The function of its file a command runs in (a nested shell's, its command's)."""
    top = command
    while top.script.parent is not None:
        top = top.script.parent
    return top.function


def _mentions(names: set[str]) -> re.Pattern[bytes]:
    alternatives = "|".join(re.escape(n) for n in sorted(names))
    return re.compile(rb"(?<![A-Za-z0-9_])(?:" + alternatives.encode() + rb")(?![A-Za-z0-9_])")


def _reads_at(script: Script, commands: list[Command], at: int, names: set[str]) -> bool:
    """Whether the mention of a name at this offset reads it (see the rule's doc); an
    assignment from it adds its name to `names`."""
    for command in commands:
        for heredoc in command.heredocs:
            body = heredoc.body
            if body is not None and body.start_byte <= at < body.end_byte:
                return heredoc.quoted is False and not (
                    command.base in _COPIERS and _plain(command)
                )
    holding = [c for c in commands if c.node.start_byte <= at < c.node.end_byte]
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
            name_end = node.start_byte + len(assignment.name.encode())
            if at < name_end:
                return False  # (the name assigned: `SPEC_DECODING=...`)
            names.add(assignment.name)
            return False
    for redirect in command.redirects:
        node = redirect.target.node
        if node.start_byte <= at < node.end_byte:
            return True
    base = command.base
    if base in _DECLARATIONS:
        return False  # (`export SPEC_DECODING`: the name's attributes)
    return not (base in _WRITERS and _plain(command) and not _sets_variable(command))


# a line's text before a mention that puts it in a comment: `# ...`, or `cmd  # ...` with no
# quote before the `#`
_COMMENT = re.compile(rb"\s*#|[^'\"#]*\s#")


def _plain(command: Command) -> bool:
    """A command whose output is not read by another (not in a pipeline or a substitution)."""
    return not command.piped and command.apart is None and command.subshell is None


def _sets_variable(command: Command) -> bool:
    return command.base == "printf" and any(w.value.startswith("-v") for w in command.args)


_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)?)?")


def _python_files(ctx: Context, command: Command) -> list[str]:
    """The repository's Python files a command runs (`python3 x.py`, `python3 -m pkg.mod`),
    where they can be told."""
    invocation = command.invocation
    base = invocation.base
    if base is None or _PYTHON.fullmatch(base) is None:
        return []
    module = invocation.module
    if module is not None:
        tail = "/" + module.replace(".", "/")
        return [
            p
            for p in ctx.ws.python_paths
            if f"/{p}".endswith((f"{tail}.py", f"{tail}/__main__.py"))
        ]
    operand = next((w for w in invocation.args if not w.value.startswith("-")), None)
    if operand is None:
        return []
    found = resolve(ctx.ws, command.script.top, operand.value, python=True, some=True) or []
    if found:
        return found
    tail = re.split(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|`[^`]*`", operand.value)[-1]
    if not tail.endswith(".py"):
        return []
    tail = "/" + posixpath.normpath(tail).lstrip("/")
    return [p for p in ctx.ws.python_paths if f"/{p}".endswith(tail)]
