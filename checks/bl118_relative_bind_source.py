"""`docker run -v benchmarks/x.sh:/tmp/run.sh`: a relative host path is read as a volume name.

## What it does
Reports a `-v`/`--volume` option of `docker run` whose source, the text before its first `:`, is a
relative path with a `/` in it and no leading `.` (`benchmarks/run.sh`, `models/llama`): written
there, or the value of a variable every assignment of the script gives such a path
(`BMK_SCRIPT="benchmarks/${1%%_*}_b200.sh"`, then `-v $BMK_SCRIPT:/tmp/run.sh`): the text before any
expansion in it says so.

## Why is this bad?
docker binds a host path only when the source is absolute (or, since Docker 23, starts with
`.`); any other source is the name of a volume, and a name with a `/` is not one docker allows:
the run stops before the container starts ("includes invalid characters for a local volume
name, only "[a-zA-Z0-9][a-zA-Z0-9_.-]" are allowed. If you intended to pass a host directory,
use absolute path"). The launcher fails on every runner, after whatever it did before (an image
pull, a model download). InferenceX fixed a launcher that mounted its benchmark script so.

## Example
```bash path=runners/launch_b200-tg.sh
BMK_SCRIPT="benchmarks/dsr1_fp8_b200_docker.sh"
docker run --rm --gpus all -v $BMK_SCRIPT:/tmp/run.sh "$IMAGE" bash /tmp/run.sh
```

## Use instead
```bash path=runners/launch_b200-tg.sh
BMK_SCRIPT="benchmarks/dsr1_fp8_b200_docker.sh"
docker run --rm --gpus all -v "$PWD/$BMK_SCRIPT":/tmp/run.sh "$IMAGE" bash /tmp/run.sh
```

## Exceptions
Not reported: an absolute source (`/models`, `$PWD/x`, `$(pwd)/x`, `$HOME/x`), one starting with `.`
or with a `~` bash expands (`-v ~/models:/models`; quoted, `"~/models:/models"`, or after
`--volume=`, followed by quoted text, `~"/x"`, or a variable's quoted value, `Q="~/x"`, it reaches
docker as written: reported), a volume name with no `/` (`hf-cache:/root/.cache`), a source that
starts with an expansion the script does not give a value (`$ROOT/x`), or a variable some assignment
of which is not known or makes it absolute, or that a file the script sources may set; a container
run with `--volume-driver` (another driver's names), `podman run` (whose rules for names differ),
and `--mount` (not read).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.model import Command, Script, Word

# assignments that give a variable the text written (not `read`, `for`, a default, a prefix)
_GIVES_TEXT = frozenset({"assign", "export", "declare", "local", "readonly"})
# a source that is a variable's value, then plain text: `$BMK`, `${BMK}`, `$BMK/run.sh`
_VARIABLE = lazy_compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


@script_rule(
    "BL118",
    "relative-bind-source",
    Severity.ERROR,
    tags=("shell", "containers"),
    precision="high",
)
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    if "-v" not in script.file.text and "--volume" not in script.file.text:
        return
    for command in script.commands:
        for wrapper in command.invocation.wrappers:
            if wrapper.name != "docker run" or wrapper.has("--volume-driver"):
                continue
            for option, word, value in wrapper.options:
                if option not in ("-v", "--volume") or word is None:
                    continue
                source = _source(script, value, _TILDE_EXPANDED.match(word.text) is not None)
                if source is None:
                    continue
                yield _finding(script, command, word, option, value, source)


def _source(script: Script, value: str, tilde: bool) -> str | None:
    """The relative path with a `/` the option's source surely is (for every value of the
    variable it starts with), else None. `tilde`: the word starts with a `~` bash expands (not
    quoted, nor after `--volume=`: docker is given `~/models` as written, a relative path)."""
    if ":" not in value:
        return None  # (an anonymous volume, `-v /data`)
    source = value.split(":", 1)[0]
    if source.startswith("~") and not tilde and "/" in source:
        return source
    if _named_like_a_path(source):
        return source
    variable = _VARIABLE.match(source)
    if variable is None or any(c.base in ("source", ".") for c in script.commands):
        return None  # (a file it sources may give the variable another value: t83a)
    rest = source[variable.end() :]
    values = _assigned_values(script, variable.group(1) or variable.group(2))
    if not values or not all(
        _named_like_a_path(v + rest) or (literal and v.startswith("~") and "/" in v + rest)
        for v, literal in values
    ):
        return None
    return values[0][0] + rest


# a word bash tilde-expands: `~` or `~user`, unquoted, up to a `/`, the `:` of `-v`, or its end
_TILDE_EXPANDED = lazy_compile(r"~[A-Za-z0-9._-]*(?:[/:]|$)")


def _named_like_a_path(source: str) -> bool:
    """A source docker surely reads as a volume name that no volume may have: a relative path,
    as the text before any expansion in it says (`benchmarks/${MODEL}_b200.sh`)."""
    written = re.split(r"[$`]", source, maxsplit=1)[0]
    return "/" in written and not written.startswith(("/", ".", "~"))


def _assigned_values(script: Script, name: str) -> list[tuple[str, bool]]:
    """Every value the script assigns the variable, as written (expansions in it verbatim),
    each with whether a `~` it starts with is kept as written (quoted: `Q="~/models"`; bash
    expands an unquoted one, `Q=~/models`); none where one is not known (`read`, a loop's
    item, the environment's default)."""
    found = []
    for assignment in script.assignments:
        if assignment.name != name:
            continue
        value = assignment.value
        if assignment.keeps_value:
            continue  # (`export NAME`: its value stays)
        if value is None or assignment.kind not in _GIVES_TEXT:
            return []
        found.append((value.value, value.text.startswith(("'~", '"~'))))
    return found


def _finding(
    script: Script, command: Command, word: Word, option: str, value: str, source: str
) -> Finding:
    written = value.split(":", 1)[0]
    named = f"`{clip(source, 40)}`" + (f" (`{written}`)" if written != source else "")
    home = source.startswith("~/")
    # (the option as written: `-v x:/y`, `--volume x:/y`, `--volume=x:/y`; h123 W5)
    shown = word.value if word.value.startswith(option) else f"{option} {value}"
    return Finding(
        "BL118",
        f"docker reads the source {named} of `{clip(shown, 70)}` as a volume name, not as a "
        "host path (it binds an absolute one, or one starting with `.`), and refuses a name "
        "with a `/`: the container never starts",
        Location(script.path, word.span),
        help=f"write it from an absolute folder: `$HOME/{clip(source[2:], 40)}` (bash expands `~` "
        "only at the start of an unquoted word)"
        if home
        else f"write it from an absolute folder: `$PWD/{clip(source, 40)}`",
        subject=source,
    )
