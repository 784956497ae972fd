"""What a launcher does to the recipe it runs, read from its shell model.

- recipe variables: `CONFIG_FILE`, `EVAL_CONFIG_FILE`, and every variable assigned from one of them
  (`CONFIG_PATH="${CONFIG_FILE%%:*}"`);
- overlays: `cp -rT <repository folder> recipes/<dir>` (and single-file copies) into the
  srt-slurm checkout, which make `recipes/<dir>/...` a file of this repository;
- rewrites of the recipe, in order: `sed -i` (also run by `find DIR -exec sed -i ... {} +` on
  the recipes under DIR), appends (`printf`/`echo`/`cat <<EOF` with `>>`), `yq -i '.a."b-c" = v'`,
  and, not simulated, a script an interpreter runs with the recipe's path, and a call of a
  function (the launcher's, or a sourced library's) given the recipe's path whose body makes any
  of these edits of the file a parameter names;
- the `default_time_limit` written into `srtslurm.yaml`, and whether it sets a
  `default_health_check`.
Each fact keeps its command, whose guards say under which entry values it applies.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchlint import profile
from benchlint.calls import ROOT_VARIABLES
from benchlint.finding import Location, Span
from benchlint.lazyre import lazy_compile
from benchlint.rewrite import (
    PLACEHOLDER,
    RewriteError,
    SedCommand,
    compile_pattern,
    echo_text,
    parse_sed,
    printf_text,
    search,
)
from benchlint.shell.model import Assignment, Command, Script, Word

if TYPE_CHECKING:
    from benchlint.workspace import Workspace

RECIPE_VARIABLES = ("CONFIG_FILE", "EVAL_CONFIG_FILE")
_FIND_DEPTHS = ("-maxdepth", "-mindepth")  # a depth changes no file's name or folder
_INTERPRETERS = ("python", "perl", "ruby", "node")
_MAX_VALUES = 8  # values of one variable an overlay's operand is tried with
_TIME_LIMIT = lazy_compile(r"^default_time_limit:\s*(.+?)\s*$", re.M)
# the site's readiness probe for recipes with none (see `profile.SITE_HEALTH_CHECK_KEY`)
_SITE_HEALTH = lazy_compile(rf"^\s*{re.escape(profile.SITE_HEALTH_CHECK_KEY)}\s*:", re.M)


@dataclass(eq=False)
class Overlay:
    source: str  # repository path copied
    target: str  # path in the srt-slurm checkout, "recipes/..."
    command: Command
    # `cp "$LOCAL" "$CONFIG_PATH"` under `[[ -f "$LOCAL" ]]`: the recipe's own path mirrored
    # from `source`, only where this repository has that file
    if_present: bool = False
    # the assignments that give the operands' variables these values (`cp -rT "$SRC" "$DST"`
    # with SRC and DST set in each branch): the copy is this one where they all run
    givers: tuple[Command, ...] = ()
    # where the copy lands is not known: a folder copied without -T into an engine's folder of
    # a checkout the launcher pins, which may or may not have it (h132 R2)
    uncertain: bool = False


@dataclass(frozen=True)
class Found:
    """The recipes a `find FOLDER -name PATTERN -exec sed -i ... {} +` edits: those under the
    folder whose file name matches every pattern. `folder` as the recipe's setting names it
    (srtctl's checkout, where the launcher runs), or a folder of this repository
    (`$GITHUB_WORKSPACE/...`, edited before it is copied); None: not known (any recipe)."""

    folder: str | None
    patterns: tuple[str, ...] = ()
    repository: bool = False


@dataclass(eq=False)
class Rewrite:
    kind: str  # "sed" | "append" | "yq" | "program" (a script given the recipe: not known)
    command: Command
    sed: list[SedCommand] = field(default_factory=list)
    text: str = ""  # appended text
    yq_path: tuple[str, ...] = ()
    yq_value: str | None = None  # None: del()
    error: str = ""  # why it cannot be simulated
    found: Found | None = None  # the files a `find ... -exec sed` edits; None: the recipe

    @property
    def location(self) -> Location:
        return Location(self.command.script.path, self.command.first_line_span)

    @property
    def line(self) -> int:
        return self.command.span.line


@dataclass(eq=False)
class TimeLimit:
    value: str
    command: Command  # the command that writes srtslurm.yaml (its guards apply)
    span: Span
    guards_from: Command | None = None  # the assignment that gave a `${VAR}` its value


class LauncherModel:
    def __init__(self, script: Script, functions: Mapping[str, Script] | None = None) -> None:
        """`functions`: the functions of the libraries the launcher sources, each with the
        script that defines it (its own are in its script)."""
        self.script = script
        self.path = script.path
        self.functions = functions or {}
        self.recipe_variables = _recipe_variables(script)
        self.overlays: list[Overlay] = []
        self._assigned_after: dict[int, frozenset[str]] = {}  # command -> its late names
        self.rewrites: list[Rewrite] = []
        self.time_limits: list[TimeLimit] = []
        # an unquoted base-60 `default_time_limit: 4:00:00`: srtctl ignores the whole file
        self.rejected_time_limits: list[TimeLimit] = []
        # the commands that write a `default_health_check` into srtslurm.yaml
        self.site_health_checks: list[Command] = []
        for command in script.all_commands():
            self._overlay(command)
            self._rewrite(command)
            self._time_limit(command)

    @functools.cached_property
    def ends(self) -> list[Command]:
        return script_ends(self.script)

    @functools.cached_property
    def eval_switches(self) -> list[Command]:
        """`CONFIG_FILE="$EVAL_CONFIG_FILE"`: from here on the launcher edits, and srtctl
        applies, the recipe EVAL_CONFIG_FILE names."""
        return [
            a.command
            for a in self.script.assignments
            if a.name == "CONFIG_FILE"
            and a.value is not None
            and re.search(r"\$\{?EVAL_CONFIG_FILE\b", a.value.value) is not None
        ]

    @functools.cached_property
    def allocations(self) -> list[tuple[Command, str]]:
        """`salloc` commands with a static `--time`/`-t`, and that time as written."""
        found = []
        for command in self.script.all_commands():
            salloc = command.invocation.wrapper("salloc")
            text = salloc.option("-t", "--time") if salloc is not None else None
            if text is not None and "$" not in text:
                found.append((command, text.strip("\"'")))
        return found

    @functools.cached_property
    def assigned_names(self) -> tuple[set[str], set[str], set[str]]:
        """(variables the launcher sets, variables it only defaults: `X="${X:-d}"`, those of
        them whose default replaces an empty value too)."""
        return assigned_names(self.script)

    @functools.cached_property
    def first_assigned(self) -> dict[str, int]:
        """Where the launcher's text first assigns each variable it assigns (byte offset): a
        condition before that, outside functions and loops, reads the value the launcher was
        started with."""
        found: dict[str, int] = {}
        for assignment in self.script.assignments:
            if assignment.command.script is not self.script or assignment.keeps_value:
                continue  # (a nested shell's offsets are its own)
            at = assignment.node.start_byte
            if at < found.get(assignment.name, at + 1):
                found[assignment.name] = at
        return found

    def assigned_after(self, command: Command) -> frozenset[str]:
        """The names the command's conditions read that the launcher's text first assigns
        after the command, or in it (`if [ "$FRAMEWORK" = vllm ]; then FRAMEWORK=""`: the
        condition is read before its body runs; none for a command in a function or a loop, or
        of a nested shell): where its conditions are read, they still hold the values the
        launcher was started with."""
        known = self._assigned_after.get(id(command))
        if known is None:
            found: frozenset[str] = frozenset()
            if command.script is self.script and not command.function and not command.loops:
                first, at = self.first_assigned, command.node.start_byte
                found = frozenset(
                    read.name
                    for guard in command.guards
                    for read in guard.reads
                    if first.get(read.name, -1) >= at
                )
            known = self._assigned_after[id(command)] = found
        return known

    def grep_probe(self, text: str) -> Callable[[Command], bool | None]:
        """Decides `grep -q PATTERN "$CONFIG_PATH"` conditions against the recipe's current text."""

        def probe(command: Command) -> bool | None:
            if command.base != "grep":
                return None
            args = command.args
            if not any(self.refers_to_recipe(w) for w in args):
                return None
            parsed = _grep_options(args)
            if parsed is None:
                return None
            patterns, extended, flags = parsed
            try:
                compiled = [compile_pattern(p, extended, flags) for p in patterns]
            except RewriteError:
                return None
            lines = text.split("\n")
            return any(search(pattern, line) for pattern in compiled for line in lines)

        return probe

    def refers_to_recipe(self, word: Word) -> bool:
        return any(
            re.search(rf"\$\{{?{name}\b", word.value) is not None for name in self.recipe_variables
        )

    # -- overlays ----------------------------------------------------------------------------
    def _overlay(self, command: Command) -> None:
        """`cp -rT DIR recipes/x`, `cp -r "$DIR"/* recipes/`, `rsync -a DIR/ recipes/x/`."""
        if command.base not in ("cp", "rsync"):
            return
        operands = []
        skip = False
        for word in command.args:
            if skip:
                skip = False
            elif word.value.startswith("-"):
                skip = word.value in ("--exclude", "--include", "--filter", "-e", "-t")
            else:
                operands.append(word)
        if len(operands) != 2:
            return
        mirror = self._mirror(operands[0], operands[1])
        if mirror is not None:
            self.overlays.append(Overlay(mirror, "recipes", command, if_present=True))
            return
        into = not any(
            w.value == "--no-target-directory"
            or (w.value.startswith("-") and not w.value.startswith("--") and "T" in w.value)
            for w in command.args
        )
        for written, from_ in self._values(operands[0].value, command):
            for copied_to, to in self._values(operands[1].value, command):
                self._add_overlay(written, copied_to, command, from_ + to, into)

    def _add_overlay(
        self,
        written: str,
        copied_to: str,
        command: Command,
        givers: tuple[Command, ...],
        into: bool = False,
    ) -> None:
        """`into`: a folder copied without `-T` lands inside the target when the target is a
        folder that exists: `cp -r DIR recipes/` in the srt-slurm checkout (which has
        `recipes/`) makes `recipes/DIR`, `cp -r DIR/vllm recipes/vllm` makes `recipes/vllm/vllm`
        (a current checkout ships `recipes/vllm`: h128 F2); `rsync -a DIR recipes/x` always
        does (`DIR/`: its content)."""
        # DIR/*, DIR/.: its content; DIR/ too for rsync, not for cp (`cp -r DIR/ x` copies DIR
        # as `cp -r DIR x` does: h131 F7)
        content = re.search(r"/(?:\*|\.)$", written) is not None or (
            command.base == "rsync" and written.endswith("/")
        )
        source = _repository_path(re.sub(r"/(?:\*|\.)?$", "", written))  # DIR/* is DIR's content
        target = _checkout_path(copied_to)
        if source is None or target is None:
            return
        source, target = source.rstrip("/"), target.rstrip("/")
        for earlier in reversed(self.overlays):  # `cp recipes/local/a.yaml recipes/local/b.yaml`
            if source.startswith(earlier.target + "/") and not earlier.if_present:
                source = earlier.source + source[len(earlier.target) :]  # a copy of a copy
                break
        is_file = source.endswith((".yaml", ".yml"))
        # `cp recipe.yaml recipes/dir/`; a folder landing inside the target (`into`)
        file_into = is_file and not target.endswith((".yaml", ".yml"))
        nests = into and not is_file and not content
        engine_folder = target in profile.SRT_SLURM_ENGINE_FOLDERS
        if nests and engine_folder and command.base != "rsync" and _pins_checkout(command.script):
            # (a pinned srt-slurm, `git checkout REF`, `clone -b BRANCH`: whether it has
            # recipes/sglang, which it gained on 2026-05-18, is not known here)
            self.overlays.append(Overlay(source, target, command, givers=givers, uncertain=True))
            return
        shipped = (*profile.SRT_SLURM_RECIPE_FOLDERS, *profile.SRT_SLURM_ENGINE_FOLDERS)
        if file_into or (nests and (command.base == "rsync" or target in shipped)):
            target = f"{target}/{source.rsplit('/', 1)[-1]}"
        self.overlays.append(Overlay(source, target, command, givers=givers))

    def _values(self, value: str, command: Command) -> list[tuple[str, tuple[Command, ...]]]:
        """An operand with the value its leading variable has where `command` runs
        (`substituted`); where that cannot be told, each value the script gives the variable,
        with the assignment that gives it (a route keeps those that may run on it)."""
        written = self.substituted(value, command)
        match = leading_variable(written)
        if match is None or match.group(1) in ROOT_VARIABLES:
            return [(written, ())]
        assigned = reaching(match.group(1), command)
        if not assigned or len(assigned) > _MAX_VALUES:
            return [(written, ())]
        rest = written[match.end() :]
        return [
            (self.substituted(a.value.value, a.command) + rest, (a.command,))
            for a in assigned
            if a.value is not None
        ]

    def substituted(self, value: str, command: Command) -> str:
        """`$DIR/x` with the value DIR has where `command` runs (`_value_at`)."""
        for _ in range(3):
            match = leading_variable(value)
            if match is None or match.group(1) in ROOT_VARIABLES:
                return value
            known = self._value_at(match.group(1), command)
            if known is None:
                return value
            value = known + value[match.end() :]
        return value

    def _value_at(self, name: str, command: Command) -> str | None:
        """The value NAME has where `command` runs, as far as the script says: the one value
        the script ever gives it (`LOCAL_RECIPES_DIR="$GITHUB_WORKSPACE/benchmarks/..."`), or
        that of the last assignment before the command when it runs on every path to it (in
        the command's branch or one around it, in this shell, neither in a function nor around
        a loop: `if [[ $M == a ]]; then DIR=x; cp -rT ... "$DIR"; elif ...; then DIR=y; ...`)."""
        assigned = [a for a in self.script.assignments if a.name == name]
        values = {a.value.value for a in assigned if a.value is not None}
        if len(values) == 1:
            return values.pop()
        at = command.node.start_byte
        before = [a for a in assigned if a.node.start_byte < at]
        if not before or command.function is not None or command.loops:
            return None
        last = max(before, key=lambda a: a.node.start_byte)
        where = last.command
        if last.value is None or where.function is not None or where.subshell or where.loops:
            return None
        around = {id(g) for g in command.guards}
        if not all(id(g) in around for g in where.guards):
            return None
        return last.value.value

    def _mirror(self, source: Word, target: Word) -> str | None:
        """The repository folder that mirrors `recipes/`, for `cp "$LOCAL" "$CONFIG_PATH"` with
        LOCAL="$GITHUB_WORKSPACE/<folder>/${CONFIG_PATH#recipes/}"."""
        if not self.refers_to_recipe(target):
            return None
        match = re.fullmatch(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", source.value)
        if match is None:
            return None
        for assignment in self.script.assignments:
            if assignment.name != match.group(1) or assignment.value is None:
                continue
            value = assignment.value.value
            tail = re.search(r"/\$\{([A-Za-z_][A-Za-z0-9_]*)#recipes/\}$", value)
            if tail is None or tail.group(1) not in self.recipe_variables:
                continue
            folder = _repository_path(value[: tail.start()] + "/")
            if folder is not None:
                return folder.rstrip("/")
        return None

    # -- rewrites ----------------------------------------------------------------------------
    def _rewrite(self, command: Command) -> None:
        base = command.base
        if base == "sed":
            self._sed(command)
        elif base == "yq":
            self._yq(command)
        elif base == "find":
            self._find(command)
        elif self._program_given_recipe(command):
            name = _program_name(command)
            error = f"what `{name}` does to the recipe it is given is not known"
            self.rewrites.append(Rewrite("program", command, error=error))
        elif (where := self._function_given_recipe(command)) is not None:
            error = f"what `{command.base}`, a function of {where}, does to the recipe it is given"
            self.rewrites.append(Rewrite("program", command, error=f"{error} is not known"))
        targets = [r for r in command.redirects if r.operator == ">>"]
        if base == "tee" and any(w.value in ("-a", "--append") for w in command.args):
            appended = [w for w in command.args if not w.value.startswith("-")]
            if any(self.refers_to_recipe(w) for w in appended):
                self._append(command)
        elif any(self.refers_to_recipe(r.target) for r in targets):
            self._append(command)

    def _sed(self, command: Command) -> None:
        if any(self.refers_to_recipe(w) for w in command.args):
            rewrite = _sed_rewrite(command, command.args)
            if rewrite is not None:
                self.rewrites.append(rewrite)

    def _find(self, command: Command) -> None:
        """`find DIR -name '*.yaml' -exec sed -i SCRIPT {} +` (or `{} \\;`): a `sed` rewrite of
        every recipe under DIR whose name matches. A predicate other than `-name`, `-type f`
        and the depth options, or a folder named by more than one word, is not simulated."""
        args = command.args
        values = [w.value for w in args]
        start = next((i for i, v in enumerate(values) if v in ("-exec", "-execdir")), None)
        if start is None:
            return
        end = next(
            (
                j
                for j in range(start + 2, len(values))
                if values[j] in ("+", ";") and values[j - 1] == "{}"
            ),
            None,
        )
        if end is None or values[start + 1] != "sed" or "{}" in values[start + 2 : end - 1]:
            return
        rewrite = _sed_rewrite(command, args[start + 2 : end - 1])
        if rewrite is None:
            return  # not an in-place edit
        roots = 0
        while roots < start and not values[roots].startswith(("-", "(", "!")):
            roots += 1
        patterns: list[str] = []
        i = roots
        while i < start and not rewrite.error:
            value = values[i]
            operand = values[i + 1] if i + 1 < start else None
            if value == "-name" and operand is not None:
                patterns.append(operand)
            elif not (operand == "f" if value == "-type" else value in _FIND_DEPTHS):
                rewrite.error = f"`find {value}` is not simulated"
            i += 2
        folder, repository = self._found_folder(args[0] if roots == 1 else None, command)
        if values[start] == "-execdir" or end + 1 < len(values):  # more actions after it
            rewrite.error = rewrite.error or "this find is not simulated"
        if folder is None:
            rewrite.error = rewrite.error or "the folder find searches is not known"
        rewrite.found = Found(folder, tuple(patterns), repository)
        self.rewrites.append(rewrite)

    def _program_given_recipe(self, command: Command) -> bool:
        """`python3 runners/inject.py "$CONFIG_PATH"`, `perl - "$CONFIG_FILE" <<'EOF'`: a
        program of an interpreter (not a module it runs with `-m`) given the recipe's path,
        which it may rewrite."""
        invocation = command.invocation
        base = invocation.base or ""
        if not base.startswith(_INTERPRETERS) or invocation.module is not None:
            return False
        return any(self.refers_to_recipe(w) for w in invocation.args)

    def _function_given_recipe(self, command: Command) -> str | None:
        """`patch_recipe "$CONFIG_FILE"`: a call of a function of the launcher or of a library
        it sources, given the recipe's path, whose body rewrites a file a parameter names
        (`sed -i ... "$1"`, `python3 inject.py "$config_path"` after `config_path="$1"`): the
        path of the script that defines it; None for any other command."""
        name = command.base
        if name is None or command.function == name:
            return None
        where = self.script if name in self.script.functions else self.functions.get(name)
        if where is None:
            return None
        given = [i for i, word in enumerate(command.args, 1) if self.refers_to_recipe(word)]
        return where.path if given and _rewrites_parameters(where, name, given) else None

    def _found_folder(self, word: Word | None, command: Command) -> tuple[str | None, bool]:
        """A folder `find` searches: (as a recipe's setting names it, False), or (a folder of
        this repository, True); None when it is not known."""
        if word is None:
            return None, False
        value = self.substituted(word.value, command).rstrip("/")
        match = leading_variable(value, folder=True)
        if match is not None and match.group(1) in ROOT_VARIABLES:
            return value[match.end() :].removeprefix("./") or None, True
        if not value or "$" in value or value.startswith("/") or ".." in value.split("/"):
            return None, False
        return value.removeprefix("./"), False

    def _append(self, command: Command) -> None:
        rewrite = Rewrite("append", command)
        base = command.base
        values = [w.value for w in command.args]
        if base == "printf" and values:
            try:
                rewrite.text = printf_text(values[0], values[1:])
            except RewriteError as exc:
                rewrite.error = str(exc)
        elif base == "echo":
            rewrite.text = echo_text(values)
        elif base in ("cat", "tee") and command.heredocs:
            heredoc = command.heredocs[0]
            if heredoc.body is not None:
                rewrite.text = heredoc.value(heredoc.body, command.script)[0]
        else:
            rewrite.error = f"what `{base}` appends is not simulated"
        self.rewrites.append(rewrite)

    def _yq(self, command: Command) -> None:
        args = command.args
        values = [w.value for w in args]
        if not any(v in ("-i", "--inplace") for v in values):
            return
        if not any(self.refers_to_recipe(w) for w in args):
            return
        expressions = [v for v in values if not v.startswith("-") and v not in ("e", "eval")]
        rewrite = Rewrite("yq", command)
        expression = expressions[0] if expressions else ""
        match = re.fullmatch(rf"\s*({_YQ_PATH})\s*=\s*(.+?)\s*", expression)
        deletion = re.fullmatch(rf"\s*del\(\s*({_YQ_PATH})\s*\)\s*", expression)
        literal = _yq_literal(match.group(2)) if match else None
        if match and literal is not None:
            rewrite.yq_path = _yq_path(match.group(1))
            rewrite.yq_value = literal
        elif deletion:
            rewrite.yq_path = _yq_path(deletion.group(1))
        else:
            rewrite.error = "this yq expression is not simulated"
        self.rewrites.append(rewrite)

    # -- srtslurm.yaml -----------------------------------------------------------------------
    def _time_limit(self, command: Command) -> None:
        writes = any(r.target.value.endswith("srtslurm.yaml") for r in command.redirects)
        if not writes or not command.heredocs:
            return
        heredoc = command.heredocs[0]
        if heredoc.body is None:
            return
        script = command.script
        text, offsets = heredoc.value(heredoc.body, script)
        if _SITE_HEALTH.search(text):
            self.site_health_checks.append(command)
        for match in _TIME_LIMIT.finditer(text):
            raw, quoted = _yaml_scalar_text(match.group(1))
            start, end = offsets[match.start()], offsets[match.end() - 1] + 1
            span = script.file.span(start, end)
            if not quoted and _SEXAGESIMAL.fullmatch(raw):
                # (unquoted `4:00:00`: PyYAML reads the integer 14400, which srtctl's cluster
                # config, a string field, rejects: it ignores the whole srtslurm.yaml; h131 F8)
                self.rejected_time_limits.append(TimeLimit(raw, command, span))
                continue
            variable = re.fullmatch(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", raw)
            if variable is None:
                self.time_limits.append(TimeLimit(raw, command, span))
                continue
            for assignment in script.assignments:
                if assignment.name == variable.group(1) and assignment.value is not None:
                    value = assignment.value.value.strip("\"'")
                    if not PLACEHOLDER.search(value):
                        self.time_limits.append(
                            TimeLimit(value, command, span, guards_from=assignment.command)
                        )


# a YAML 1.1 base-60 integer, as PyYAML reads an unquoted `4:00:00`
_SEXAGESIMAL = lazy_compile(r"[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+")


def _pins_checkout(script: Script) -> bool:
    """Whether the launcher checks out a ref of its own (`git checkout REF`, `git switch`,
    `git reset --hard REF`, `git clone -b BRANCH`): not the default branch's current tree."""
    for command in script.top.all_commands():
        if command.base != "git" or not command.args:
            continue
        words = [w.value for w in command.args]
        if words[0] in ("checkout", "switch", "reset"):
            return True
        if words[0] == "clone" and any(
            w in ("-b", "--branch") or w.startswith("--branch=") for w in words
        ):
            return True
    return False


def _yaml_scalar_text(text: str) -> tuple[str, bool]:
    """A one-line YAML value's text as written, and whether it is quoted: the inside of its
    quotes, else up to a comment (` #`); `"04:00:00"  # was 2h` is `04:00:00` (h128 M5)."""
    text = text.strip()
    if text[:1] in ("'", '"'):
        end = text.find(text[0], 1)
        return (text[1:end] if end > 0 else text.strip("\"'")), True
    return re.split(r"\s#", text, maxsplit=1)[0].strip(), False


def _program_name(command: Command) -> str:
    """The program an interpreter runs (`inject.py` of `python3 "$W/runners/inject.py" f`), or
    the interpreter where it reads its program from elsewhere (`perl - f <<'EOF'`, `-c`)."""
    invocation = command.invocation
    args = invocation.args
    first = args[0].value if args else ""
    if not first or first.startswith("-"):
        return invocation.base or ""
    return posixpath.basename(first)


def reaching(name: str, command: Command, valued: bool = True) -> list[Assignment]:
    """The assignments of NAME, with a value (`valued`; else any), that may give it the value it
    has where the command runs: those of the command's shell before it in the text, or
    anywhere in it when the command is in a loop (a later one runs before the next pass) or a
    function (called after it); not one in a subshell the command is not in, nor in a
    pipeline's element or a job sent to the background the command is not in (`echo x |
    DIR=/w/`: h78 F2)."""
    at = command.node.start_byte
    anywhere = bool(command.loops) or command.function is not None
    return [
        a
        for a in command.script.assignments
        if a.name == name
        and (a.value is not None or not valued)
        and a.command.script is command.script
        and (anywhere or a.node.start_byte < at)
        and (command.subshell or not a.command.subshell)
        and (a.command is command or not _apart_from(a.command, command))
    ]


def _apart_from(assigning: Command, command: Command) -> bool:
    """Whether the assigning command runs in a shell of its own the command is not in: a
    pipeline's element, or a job sent to the background (itself, or a group with it)."""
    own = assigning.apart or (assigning.group if assigning.background else None)
    if own is None:
        return assigning.background
    return not own.start_byte <= command.node.start_byte < own.end_byte


def _recipe_variables(script: Script, roots: Iterable[str] = RECIPE_VARIABLES) -> set[str]:
    """CONFIG_FILE and the like (`roots`), and every variable assigned from one of them
    (transitively), where the value ends with it (`"${CONFIG_FILE%%:*}"`,
    `"$SRT_DIR/$CONFIG_FILE"`): not a name made from it for another file
    (`"${CONFIG_PATH%.yaml}-eval.yaml"`, `"$CONFIG_PATH.x"`)."""
    names = set(roots)
    # only assignments that expand something can take a recipe variable's value
    candidates = [a for a in script.assignments if a.value is not None and "$" in a.value.text]
    changed = True
    while changed:
        changed = False
        alternatives = "|".join(map(re.escape, sorted(names)))
        reads = re.compile(r"\$\{?(?:" + alternatives + r")\b")
        ends = re.compile(
            r"\$(?:\{(?:" + alternatives + r")(?:[%#][^}]*)?\}|(?:" + alternatives + r"))$"
        )
        for assignment in candidates:
            value = assignment.value
            if value is None or assignment.name in names:
                continue
            # the raw text first: quote removal is dear, and keeps `$NAME` and `${NAME` as written
            if reads.search(value.text) and ends.search(value.value):
                names.add(assignment.name)
                changed = True
    return names


def names_of_recipe(script: Script, variable: str) -> set[str]:
    """The variable and the script's variables that name the same file (`_recipe_variables`)."""
    return _recipe_variables(script, (variable,))


def _sed_rewrite(command: Command, args: Sequence[Word]) -> Rewrite | None:
    """The rewrite `sed ARGS` makes in place; None when it edits nothing in place. The options
    are read as GNU sed's getopt reads them: `-iE` is `-i` with the backup suffix `E` (the
    script stays a BRE), `-Ei` is `-E -i`, `-e SCRIPT`, `-eSCRIPT`, `--expression=SCRIPT`."""
    options = _sed_options(args)
    if options is None:
        return None
    scripts, extended, unsimulated = options
    rewrite = Rewrite("sed", command)
    if unsimulated:
        rewrite.error = f"sed's {unsimulated} is not simulated"
        return rewrite
    try:
        rewrite.sed = parse_sed("\n".join(scripts), extended)
    except RewriteError as exc:
        rewrite.error = str(exc)
    return rewrite


# GNU sed's short options that take an argument (attached, or the next word)
_SED_ARGUMENT = frozenset("efl")
# options that change what the script does in ways the simulation does not model (`-s` is
# implied by `-i`)
_SED_UNSIMULATED = {"n": "-n", "z": "-z", "f": "-f"}
_SED_LONG = {
    "--quiet": "-n",
    "--silent": "-n",
    "--null-data": "-z",
    "--zero-terminated": "-z",
    "--posix": "--posix",
    "--file": "-f",
}


def _sed_options(args: Sequence[Word]) -> tuple[list[str], bool, str] | None:
    """(the script texts, -E given, the first option not simulated or "") of `sed ARGS` that
    edits in place; None when it edits nothing in place."""
    scripts: list[str] = []
    operands: list[str] = []
    in_place = extended = False
    unsimulated = ""
    values = [_evaluated(w) for w in args]
    i = 0
    while i < len(values):
        value = values[i]
        i += 1
        if value == "--":
            operands.extend(values[i:])
            break
        if value.startswith("--"):
            name, _, attached = value.partition("=")
            if name == "--in-place":
                in_place = True
            elif name == "--regexp-extended":
                extended = True
            elif name == "--expression":
                if not attached and i < len(values):
                    attached, i = values[i], i + 1
                scripts.append(attached)
            elif name in _SED_LONG:
                unsimulated = unsimulated or _SED_LONG[name]
            elif name == "--line-length" and not attached:
                i += 1
            continue
        if not value.startswith("-") or value == "-":
            operands.append(value)
            continue
        for k, letter in enumerate(value[1:], start=1):
            if letter == "i":  # the rest of the cluster is the backup suffix
                in_place = True
                break
            if letter in _SED_ARGUMENT:
                argument = value[k + 1 :]
                if not argument and i < len(values):
                    argument, i = values[i], i + 1
                if letter == "e":
                    scripts.append(argument)
                unsimulated = unsimulated or _SED_UNSIMULATED.get(letter, "")
                break
            if letter in ("E", "r"):
                extended = True
            unsimulated = unsimulated or _SED_UNSIMULATED.get(letter, "")
    if not in_place:
        return None
    if not scripts and operands:
        scripts = [operands[0]]
    return scripts, extended, unsimulated


def _evaluated(word: Word) -> str:
    """A word's text with each `$NAME`/`${NAME}` the script assigns exactly once, a plain value
    on a top-level line before the word that always runs, replaced by it (`MAX_SEQS=1024` ...
    `"s/.../${MAX_SEQS}/"`); any other expansion stays as written (the value it stands for is
    not known: `name: "$RUNNER_NAME"`, or one assigned in a branch)."""
    if word.static:
        return word.value
    script = word.script
    text = word.value
    at = word.node.start_byte

    def value_of(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        given = [a for a in script.assignments if a.name == name]
        if len(given) != 1 or given[0].value is None or not given[0].value.static:
            return match.group()
        command = given[0].command
        if command.guards or command.loops or command.function is not None:
            return match.group()  # (a branch may not run: the caller's value then)
        return given[0].value.value if command.node.end_byte <= at else match.group()

    return _ARITHMETIC.sub(_arithmetic, _EXPANSION_NAME.sub(value_of, text))


_EXPANSION_NAME = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
# `$((1440 * 2))`: arithmetic of numbers alone (the names in it replaced first, when known)
_ARITHMETIC = lazy_compile(r"\$\(\(([0-9+\-*/%() \t]+)\)\)")


def _arithmetic(match: re.Match[str]) -> str:
    """The value bash gives an arithmetic expansion of numbers (`+ - * / %` and parentheses;
    `/` and `%` truncate toward zero, as C does), or the text as written when it is anything
    else (a division by zero, a number with a leading 0, which bash reads as octal)."""
    import ast

    text = match.group(1)
    if re.search(r"(?<![0-9])0[0-9]", text):
        return match.group()
    try:
        tree = ast.parse(text.strip(), mode="eval").body
        return str(_integer(tree))
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return match.group()


def _integer(node: object) -> int:
    import ast

    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _integer(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        a, b = _integer(node.left), _integer(node.right)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, (ast.Div, ast.Mod)):
            if b == 0:
                raise ZeroDivisionError
            quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return quotient if isinstance(node.op, ast.Div) else a - b * quotient
    raise ValueError("not arithmetic of numbers")


def _grep_options(args: Sequence[Word]) -> tuple[list[str], bool, str] | None:
    """(the patterns, -E given, "I" for -i) of `grep ARGS` as the probe decides it: `-q`, `-s`,
    `-E`, `-G`, `-i` and `-e PATTERN` (any of several); None for any other option (`-v`, `-w`,
    `-x`, `-F`, `-P`, `-f`...) or a pattern not written plainly."""
    patterns: list[Word] = []
    operands: list[Word] = []
    extended, flags = False, ""
    i = 0
    while i < len(args):
        word, value = args[i], args[i].value
        i += 1
        if value in ("-e", "--regexp"):
            if i >= len(args):
                return None
            patterns.append(args[i])
            i += 1
        elif value in ("--quiet", "--silent", "--basic-regexp"):
            continue
        elif value in ("--extended-regexp",):
            extended = True
        elif value in ("--ignore-case",):
            flags = "I"
        elif value.startswith("-") and value != "-":
            letters = value[1:]
            if value.startswith("--") or not set(letters) <= set("qsEGi"):
                return None
            extended = extended or "E" in letters
            flags = "I" if "i" in letters else flags
        else:
            operands.append(word)
    if not patterns and operands:
        patterns = operands[:1]
    if not patterns or not all(p.static for p in patterns):
        return None
    return [p.value for p in patterns], extended, flags


_LEADING = lazy_compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_LEADING_FOLDER = lazy_compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/")


def leading_variable(value: str, folder: bool = False) -> re.Match[str] | None:
    """The variable a word's value starts with (`$DIR/x`, `${DIR}x`: group 1 its name, the
    match's end where the rest starts); `folder`: only when a `/` follows it (the match
    ends after it)."""
    return (_LEADING_FOLDER if folder else _LEADING).match(value)


def _repository_path(value: str) -> str | None:
    """`$GITHUB_WORKSPACE/benchmarks/x` or `benchmarks/x` as a repository path."""
    match = leading_variable(value, folder=True)
    if match:
        if match.group(1) not in ROOT_VARIABLES:
            return None
        value = value[match.end() :]
    if "$" in value or value.startswith("/"):
        return None
    return value.removeprefix("./")


def _checkout_path(value: str) -> str | None:
    """`recipes/x`, `srt-slurm/recipes/x` or `$SRT_REPO_DIR/recipes/x` as `recipes/x` (or
    `recipies/`, srt-slurm's folder before its rename)."""
    value = value.rstrip("/") + "/"
    for folder in profile.SRT_SLURM_RECIPE_FOLDERS:
        index = value.find(f"{folder}/")
        if index < 0 or "$" in value[index:] or (index and value[index - 1] != "/"):
            continue
        return value[index:]
    return None


_YQ_SCALAR = lazy_compile(r"-?[0-9]+(\.[0-9]+)?|true|false|null")


# a yq path: `.name`, `."gpu-memory-utilization"`, `["name"]` or `.["name"]` segments, from a `.`
_YQ_KEY = r'\.([A-Za-z0-9_-]+)|\."([^"\\]*)"|\.?\["([^"\\]*)"\]'
_YQ_PATH = r'(?=\.)(?:\.[A-Za-z0-9_-]+|\."[^"\\]*"|\.?\["[^"\\]*"\])+'


def _yq_path(text: str) -> tuple[str, ...]:
    """The keys of a `_YQ_PATH`."""
    return tuple(next(g for g in m.groups() if g is not None) for m in re.finditer(_YQ_KEY, text))


def _yq_literal(expression: str) -> str | None:
    """The YAML text yq writes for the right side of `.a.b = VALUE`, when VALUE is a literal
    (a number, true/false/null, a double-quoted string); None for anything yq computes."""
    if _YQ_SCALAR.fullmatch(expression):
        return expression
    if len(expression) >= 2 and expression[0] == expression[-1] == '"':
        inner = expression[1:-1]
        if "\\" not in inner and '"' not in inner:
            return json.dumps(inner)
    return None


def assigned_names(script: Script) -> tuple[set[str], set[str], set[str]]:
    """(variables the script sets, variables it only defaults, `X="${X:-d}"`, or keeps,
    `export X="$X"`, and those of the defaulted whose default replaces an empty value too:
    `${X:-d}`, `${X:=d}`, not `${X-d}`; h100 F3). An assignment in a subshell (`( export X=1;
    ... )`, `$(...)`) sets nothing outside it: it counts only where a guard that may lie inside
    a subshell mentions the name (a guard of a command outside every subshell, too, is outside
    them)."""
    overwritten: set[str] = set()
    defaulted: set[str] = set()
    emptied: set[str] = set()
    commands = list(script.all_commands())
    outside = {id(g) for command in commands if not command.subshell for g in command.guards}
    in_subshells = " ".join(
        script.text_of(guard.node)
        for command in commands
        if command.subshell
        for guard in command.guards
        if id(guard) not in outside
    )
    for assignment in script.assignments:
        if assignment.keeps_value:
            continue
        if assignment.command.subshell and assignment.name not in in_subshells:
            continue
        word = assignment.value
        # `${NAME` is in the text as written whenever the value is `${NAME:-d}`: most values
        # need no quote removal to tell
        default = (
            re.fullmatch(rf"\$\{{{assignment.name}(:?)[-=]([^}}]*)\}}", word.value)
            if word is not None and "${" + assignment.name in word.text
            else None
        )
        # `export ISL="$ISL"`: the value it was started with, as a default keeps it
        keeps = default is not None or (word is not None and word.variable() == assignment.name)
        (defaulted if keeps else overwritten).add(assignment.name)
        if default is not None and default[1] and default[2]:  # (not `${X:-}`: h101 M2)
            emptied.add(assignment.name)
    for command in commands:  # `unset FRAMEWORK` (not `unset -f name`, a function)
        if command.base == "unset" and not command.subshell:
            words = [w.value for w in command.args]
            if not any(w.startswith("-") and "f" in w for w in words):
                overwritten.update(w for w in words if not w.startswith("-"))
    return overwritten, defaulted - overwritten, emptied - overwritten


def script_ends(script: Script) -> list[Command]:
    """A script's own commands that end it when they run: `exit`, and `exec` of a program (the
    shell becomes it); not in a function, a subshell, a loop or a condition."""
    return [
        c
        for c in script.commands
        if (c.base == "exit" or (c.base == "exec" and c.invocation.words))
        and c.function is None
        and not (c.subshell or c.background or c.tested or c.loops)
    ]


def launcher_model(ws: Workspace, path: str) -> LauncherModel | None:
    """The model of a launcher, built once per run (layout detection and the wiring share it)."""
    models = ws.models.setdefault("launchers", {})
    assert isinstance(models, dict)
    if path not in models:
        script = ws.shell(path)
        if script is None:
            models[path] = None
        else:
            models[path] = LauncherModel(script, _sourced_functions(ws, script))
    model = models[path]
    return model if isinstance(model, LauncherModel) else None


def _sourced_functions(ws: Workspace, script: Script) -> dict[str, Script]:
    """The functions of the libraries the script sources, each with its library."""
    from benchlint.calls import call_graph  # (the call graph reads the workspace's scripts)

    found: dict[str, Script] = {}
    for call in call_graph(ws).calls_in(script):
        if call.kind != "source":
            continue
        for target in call.targets:
            library = ws.shell(target)
            if library is not None:
                for name in library.functions:
                    found.setdefault(name, library)
    return found


class _ParameterProbe(LauncherModel):
    """The rewrites a function's body makes of the files its parameters name: the launcher's
    reading, with the parameters (and the variables assigned from them) as the recipe."""

    def __init__(self, script: Script, names: set[str]) -> None:
        self.script = script
        self.path = script.path
        self.functions = {}
        self.recipe_variables = names
        self.rewrites = []
        self.overlays = []

    def refers_to_recipe(self, word: Word) -> bool:
        value = word.value
        return "$@" in value or "${@}" in value or "$*" in value or super().refers_to_recipe(word)


def _rewrites_parameters(script: Script, function: str, given: list[int]) -> bool:
    """Whether the function's body rewrites a file one of these parameters names."""
    names = _recipe_variables(script, [str(i) for i in given])
    probe = _ParameterProbe(script, names)
    for command in script.all_commands():
        if command.function == function:
            probe._rewrite(command)
    return bool(probe.rewrites)
