"""`${SOURCE_DIR):/workspace}`: a `${...}` bash rejects as "bad substitution" when it runs.

## What it does
Reports a parameter expansion that bash parses (`bash -n` accepts the script) but refuses to
expand: nothing inside (`${}`), a blank or a character that names no parameter where one is due
(`${ MODEL}`, `${.x}`), or a parameter followed by a character that starts no operator
(`${SOURCE_DIR)`, a `)` typed for the `}`; `${MODEL.name}`, `${1a}`, `${X"a"}`), or by a `:`
alone (`${X:}`). The script's text is read as bash reads it (`benchlint.shell.braces`: where
bash ends each `${`), and what bash rejects is checked against bash itself; a finding also needs
tree-sitter-bash to read an expansion there (two readers agreeing: not one in single quotes, a
quoted heredoc, an arithmetic context). A `bash -c '...'` string, a quoted heredoc fed to bash,
and the escaped `\\${...}` of a double-quoted `bash -c "..."` string are read as the shell that
runs them reads them.

## Why is this bad?
bash prints `${SOURCE_DIR):/workspace ...}: bad substitution` and fails the command every time it
reaches it, and skips the rest of the top-level statement it is in (its line, an `if` or loop around
it, the function the line called: an `|| echo failed` after it does not run): the `docker run` or
the launch never starts, and under `set -e` (or `#!/bin/bash -e`) the script ends there. Inside a
`$(...)` only that shell fails: the command around it runs with the output empty. Nothing catches it
before the job runs: `bash -n` accepts the script, as long as a `}` comes later (bash's `${` runs on
to it, over lines).

## Example
```bash path=build.sh
#!/bin/bash -e
SOURCE_DIR=$(pwd)
for model in "${MODELS[@]}"; do
    docker run --rm -v ${SOURCE_DIR):/workspace img bash /workspace/build.sh "$model"
    { set +x; } 2>/dev/null
done
```

## Use instead
```bash path=build.sh
#!/bin/bash -e
SOURCE_DIR=$(pwd)
for model in "${MODELS[@]}"; do
    docker run --rm -v ${SOURCE_DIR}:/workspace img bash /workspace/build.sh "$model"
    { set +x; } 2>/dev/null
done
```

## Exceptions
Not reported: a form this rule does not tell apart (`${#...}`, `${!...}`, an operator's own
text, `${X@}`), an expansion inside another's word (`${A:-${B.c}}`: bash expands it only when A
is unset or empty), and one in single quotes, a quoted heredoc or a comment (not expanded; read
as the shell that runs them reads them where one does: `bash -c '...'`, `bash <<'EOF'`).
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.braces import bad_substitution, every_brace
from benchlint.shell.model import Script, parse_tree, shells_as_written


@script_rule(
    "BL119",
    "bad-substitution",
    Severity.ERROR,
    tags=("shell", "correctness"),
    precision="high",
)
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    source = script.file
    text = source.text
    if not _CANDIDATE.search(text):
        return  # (no `${` of a form that may be bad: the text is not read as bash reads it)
    seen: set[int] = set()
    for start, end, inside, inner in _bad(script):
        if start in seen:
            continue
        seen.add(start)
        written = " ".join(text[start:end].split())
        yield Finding(
            "BL119",
            f'bash cannot expand `{clip(written, 60)}` ("bad substitution"): '
            + (_IN_SUBSTITUTION if inner else _IN_COMMAND),
            Location(script.path, source.span(start, start + 2)),
            help=_advice(inside),
            subject=written,
        )


def _bad(script: Script) -> Iterator[tuple[int, int, str, bool]]:
    """Each `${...}` bash rejects (its start and end in the file's text, its inside, whether it
    is in a `$(...)`), as the shell that expands it reads it: the file's, and the one a `bash
    -c '...'` string or a quoted heredoc fed to one runs (h123 M20); where tree-sitter-bash
    reads an expansion there too."""
    for shell in shells_as_written(script):
        text = shell.text
        outer_end = -1
        parsed: dict[int, bool] | None = None
        for start, end, _ in every_brace(text):
            if start < outer_end:
                continue  # (inside another's word: expanded only when that one needs it)
            outer_end = end
            inside = text[start + 2 : end - 1]
            if not bad_substitution(inside) or not shell.own(start):
                continue
            if parsed is None:
                src = shell.script.parse_src or shell.script.src
                parsed = _expansion_starts(src)
            inner = parsed.get(len(text[:start].encode("utf-8", "surrogateescape")))
            if inner is None:
                continue  # (tree-sitter-bash reads no expansion there: the readers disagree)
            yield shell.at(start), shell.at(end - 1) + 1, inside, inner


# what bash does there (5.2, a script file): it skips the rest of the top-level statement it is
# running (the line, an `if` or loop around it, the function the line called: an `|| echo
# failed` after it does not run), with status 1; in a `$(...)`, that shell's, and the command
# around it goes on with the output empty (t87 h11: Megatron-LM tools/bisect.sh)
_IN_COMMAND = (
    "the command it is in fails there every time it runs, and bash skips the rest of the "
    "top-level statement around it (under `set -e`, the script ends there)"
)
_IN_SUBSTITUTION = (
    "the command substitution it is in fails there every time it runs: the command around it "
    "goes on with its output empty (an assignment of it fails: under `set -e`, the script ends "
    "there)"
)
# a `${` that may be one bash rejects, in any context (a superset of what `bad_substitution`
# tells: `${}`, a first character that names no parameter, a name, digits or a special
# parameter followed by one that starts no operator, `${X:}`, and any subscript)
_CANDIDATE = lazy_compile(
    r"\$\{(?:\}|[^A-Za-z0-9_@*#?$!{-]|[A-Za-z_]\w*(?:[^\w:=?+#%/^,@~}\[-]|:\}|\[)"
    r"|[0-9]+[^0-9:=?+#%/^,@~}\[-]|[@*?$!_-][^:=?+#%/^,@~}\[-])"
)


def _expansion_starts(src: bytes) -> dict[int, bool]:
    """Where tree-sitter-bash reads a `${` as the start of an expansion (in one, or in the
    ERROR it makes of one bash would reject): the second reader a finding needs to agree, as a
    `${` in single quotes, a quoted heredoc or a comment is no token of its (t84d); each with
    whether it is inside a `$(...)` or `<(...)` (its failure is that shell's)."""
    found: dict[int, bool] = {}
    stack = [(parse_tree(src).root_node, False)]
    while stack:
        node, inside = stack.pop()
        if node.type == "${":  # (the token that opens an expansion, in one or in an ERROR)
            found[node.start_byte] = inside
        opened = False  # (after a `$(` token among the children, up to its `)`: also in an
        for child in node.children:  # ERROR tree-sitter makes of the line)
            if child.type in ("$(", "<(", ">("):
                opened = True
            elif child.type == ")":
                opened = False
            elif child.type == "`":  # (a backquote opens one and closes it)
                opened = not opened
            stack.append((child, inside or opened))
    return found


def _advice(inside: str) -> str:
    """What the expansion was likely meant to be."""
    for typed in (")", "]"):
        name, found, rest = inside.partition(typed)
        if found and name.isidentifier():  # (`${SOURCE_DIR):/w...}`: a `}` typed as `)`)
            return f"close it with `}}`: `${{{name}}}{clip(' '.join(rest.split()), 30)}`"
    return "write a name, a positional or special parameter, then an operator or `}`"
