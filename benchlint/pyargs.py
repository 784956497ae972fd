"""The command-line options a repository's Python script accepts, read from its `argparse` code.

`read` reads a script's source with Python's `ast` (it never runs it) and finds the parser that
parses its command line: the one `ArgumentParser` (or vLLM's `FlexibleArgumentParser`) whose
`parse_args` it calls, with every option string given to its `add_argument`, to its groups', to
its parents' and to those of the module's own functions it is handed to. A function another
module defines that it is handed to (`add_cache_args(parser)`, imported by name) is named in
`Parser.handed`, for the caller to find that module and read what it adds (`additions`). A
parser is read only when every use of it is one this module understands; otherwise `read` says
why it cannot tell (a parser handed to an object's method may get any option; an option named
by code is not known). With `parse_known_args` the options it does not know are kept, not
rejected, and only an ambiguous prefix is one it rejects.

`problem` reads one word of a command line as argparse's `_parse_optional` does (an option
string, `--name=value`, a unique prefix of a long option where abbreviations are allowed, a
short option with its value attached; a negative number or a word with a blank is no option)
and says whether every parser the script may use rejects it: with vLLM's parser (which reads
`--max_model_len` as `--max-model-len`) where it may be the one, and then under `allow_abbrev`
true and false where the code does not set it (argparse's own allows abbreviations).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from benchlint.lazyre import lazy_compile

# methods of a parser (or a group) that add nothing and read nothing of the command line
_HARMLESS = frozenset(
    {
        "set_defaults",
        "get_default",
        "print_help",
        "print_usage",
        "format_help",
        "format_usage",
        "error",
        "exit",
    }
)
_GROUPS = frozenset({"add_argument_group", "add_mutually_exclusive_group"})
_READ = (
    ast.Assign,
    ast.AnnAssign,
    ast.NamedExpr,
    ast.withitem,
    ast.Return,
    ast.Call,
    ast.Expr,
    ast.Name,
)
_NAMED_DEFINITIONS = (ast.ExceptHandler, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BINDING = (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.withitem, ast.Return, ast.Call)
# actions that take no word after their option
_NO_VALUE = frozenset(
    {"store_true", "store_false", "store_const", "append_const", "count", "help", "version"}
)
_PARSE = frozenset({"parse_args", "parse_intermixed_args"})
_KNOWN_ONLY = frozenset({"parse_known_args", "parse_known_intermixed_args"})
ARGPARSE = "argparse.ArgumentParser"
FLEXIBLE = "vllm.FlexibleArgumentParser"
# argparse's `_negative_number_matcher` (3.13 widened it to `-1e5`, `-.5`: the wider one, as a
# word it matches is then no option under either)
_NEGATIVE = lazy_compile(r"-\.?\d")
NO_PARSER = "it makes no argparse parser"
NOT_PARSED = "no parser of it parses the command line (`parse_args`)"
CHANGED = "changed"  # (`delegates`: a parser of another module the script adds to)


@dataclass(frozen=True)
class Parser:
    """What one script's command line may hold: its parser's option strings."""

    options: frozenset[str]
    abbreviations: tuple[bool, ...]  # the `allow_abbrev` values it may have
    classes: tuple[str, ...]  # ARGPARSE and/or FLEXIBLE
    line: int  # where the parser is made
    fromfile: str = ""  # `fromfile_prefix_chars`
    # option strings that belong to one action (`-o`, `--output`): an ambiguity among them
    # is not one in every Python release
    actions: tuple[tuple[str, ...], ...] = ()
    # how many words each option takes after it (None: not a fixed number); read only to find
    # a subcommand's word, or the value of an option before a required one's check
    arity: tuple[tuple[str, int | None], ...] = ()
    # its subcommands (`add_subparsers`): each name (and alias) with the parser it selects
    commands: tuple[tuple[str, Parser], ...] = ()
    positionals: int = 0  # positional arguments before the subcommand's word
    keeps_unknown: bool = False  # `parse_known_args`: an option it does not know is kept
    # an argument takes every word from where it starts (`nargs=REMAINDER`): a positional's
    # ("positional") from the first positional word, an option's ("option") after it; nothing
    # from there is read
    remainder: str = ""
    # functions of other modules it is handed to, which may add options: (module, level of a
    # relative import, name, line) each, for the caller to read (`additions`) and add
    handed: tuple[tuple[str, int, str, int], ...] = ()
    # where the functions of other modules that added options to it are defined (file, line):
    # set by the caller that read them
    added: tuple[tuple[str, int], ...] = ()
    # the option strings of each option it requires (`required=True`, added whenever the code
    # that adds it runs)
    required: tuple[tuple[str, ...], ...] = ()
    # with `keeps_unknown`: the line of its `parse_known_args()` whose leftovers nothing reads
    # (`args, _ = p.parse_known_args()`, `p.parse_known_args()[0]`, and nothing else that may
    # read the command line: `_Module._leftovers_unread`): an option it does not know is
    # ignored (0: they may be read)
    drops_at: int = 0

    def encode(self) -> tuple[Any, ...]:
        return (
            sorted(self.options),
            list(self.abbreviations),
            list(self.classes),
            self.line,
            self.fromfile,
            [list(a) for a in self.actions],
            [list(a) for a in self.arity],
            [(name, sub.encode()) for name, sub in self.commands],
            self.positionals,
            self.keeps_unknown,
            self.remainder,
            [list(h) for h in self.handed],
            [list(a) for a in self.added],
            [list(r) for r in self.required],
            self.drops_at,
        )

    @staticmethod
    def decode(data: Any) -> Parser:
        (
            options,
            abbreviations,
            classes,
            line,
            fromfile,
            actions,
            arity,
            commands,
            positionals,
            keeps_unknown,
            remainder,
            handed,
            added,
            required,
            drops_at,
        ) = data
        return Parser(
            frozenset(options),
            tuple(abbreviations),
            tuple(classes),
            line,
            fromfile,
            tuple(tuple(a) for a in actions),
            tuple((o, n) for o, n in arity),
            tuple((name, Parser.decode(sub)) for name, sub in commands),
            positionals,
            keeps_unknown,
            remainder,
            tuple((m, level, n, line) for m, level, n, line in handed),
            tuple((file, line) for file, line in added),
            tuple(tuple(r) for r in required),
            drops_at,
        )


@dataclass(frozen=True)
class Problem:
    # "unknown" | "ambiguous" | "choice" (no subcommand has that name) | "ignored" (unknown to
    # a parser whose `parse_known_args` leftovers the script never reads: `Parser.drops_at`)
    kind: str
    option: str  # the option as the parser reads it
    candidates: tuple[str, ...] = ()
    command: str = ""  # the subcommand whose parser rejects it ("": the script's parser)
    line: int = 0  # where the parser that rejects it is made


class _Unknown(Exception):
    """The parser cannot be told: why, for the report."""


@dataclass(eq=False)
class _Made:
    """A parser the module makes, as its code is read."""

    node: ast.Call
    classes: tuple[str, ...]
    options: set[str]
    actions: list[tuple[str, ...]]
    abbreviations: tuple[bool, ...] = ()  # (): not set in the code
    keeps_unknown: bool = False
    # a `parse_known_args()` of it whose leftovers nothing reads (its line), and whether one's
    # may be read (`Parser.drops_at`)
    drops_at: int = 0
    leftovers_read: bool = False
    fromfile: str = ""
    parents: list[_Made] | None = None
    parsed: bool = False
    parsed_in: set[ast.AST | None] = field(default_factory=set)  # the scopes that parse it
    unknown: str = ""  # why it cannot be told
    arity: dict[str, int | None] = field(default_factory=dict)
    commands: dict[str, _Made] = field(default_factory=dict)
    positionals: int = 0
    subcommands: bool = False  # `add_subparsers` was called
    remainder: str = ""  # an argument of it takes every word after it (`REMAINDER`)
    handed: list[tuple[str, int, str, int]] = field(default_factory=list)  # see Parser.handed
    required: list[tuple[str, ...]] = field(default_factory=list)  # see Parser.required
    # where it parses with `parse_known_args`, and with `parse_args` always (a statement of
    # its body, not under an `if`, a loop or a `try`): (scope, line) each
    known_in: list[tuple[ast.AST | None, int]] = field(default_factory=list)
    strict_in: list[tuple[ast.AST | None, int]] = field(default_factory=list)
    # every parse of it: (scope, line, whether a statement of its body always runs it)
    parses: list[tuple[ast.AST | None, int, bool]] = field(default_factory=list)

    def cannot_tell(self, why: str) -> None:
        """The parser cannot be told from the code: the first reason, as the code reads, is
        the one said (a loop adding computed options is named at its first line)."""
        if not self.unknown:
            self.unknown = why


@dataclass(frozen=True, eq=False)
class _Group:
    parser: _Made


@dataclass(frozen=True, eq=False)
class _Subcommands:
    """What `add_subparsers` returns: `add_parser` makes a subcommand's parser."""

    parser: _Made


_Value = Any  # _Made | _Group | _Subcommands


def read(text: str, entry: str = "", parses: str = "") -> Parser | str:
    """The parser a script parses its command line with, or why it cannot be told. `entry`: a
    function of the module another script calls (`delegates`): only what that function, and the
    module's functions it calls, parse is read; with `parses`, the method the other script
    parses its command line with, the parser `entry` holds (a module-level name) or returns (a
    function) is read."""
    if "ArgumentParser" not in text:
        return NO_PARSER
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "its code does not parse (as this Python reads it)"
    return _read_tree(tree, entry, parses)


def _read_tree(tree: ast.Module, entry: str = "", parses: str = "") -> Parser | str:
    try:
        return _Module(tree).parser(entry, parses)
    except _Unknown as exc:
        return str(exc)
    except RecursionError:
        return "its code is nested too deeply to read"


_ENTRY = "_benchlint_entry"


def additions(text: str, name: str) -> Parser | str:
    """What the module's function `name` adds to a parser it is handed (`Parser.handed`): the
    parser of a function appended to the module that makes an argparse parser, hands it to
    `name` and parses the command line with it, its line the function's; or why it cannot be
    told."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "its code does not parse (as this Python reads it)"
    defined = next(
        (
            node
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
        ),
        None,
    )
    if defined is None or name not in _bound_once(tree):
        return f"`{name}` is not one function the module defines"
    if not [*defined.args.posonlyargs, *defined.args.args]:
        return f"`{name}` takes the parser where this does not follow it (`*args`)"
    entry = (
        f"def {_ENTRY}():\n    import argparse as _argparse\n\n"
        f"    parser = _argparse.ArgumentParser()\n    {name}(parser)\n    parser.parse_args()\n"
    )
    # the module parsed once: the function appended to it, its lines past the module's
    appended = ast.increment_lineno(ast.parse(entry), text.count("\n") + 1)
    tree.body += appended.body
    found = _read_tree(tree, _ENTRY)
    return replace(found, line=defined.lineno) if isinstance(found, Parser) else found


def delegates(text: str) -> tuple[tuple[str, int, str, str], ...]:
    """What a script that makes no parser of its own takes from other modules that may parse
    its command line: (module, level, name, how) each, `level` being the leading dots of a
    relative import. `how` is "" for a function it calls (`from utils.cli import parse_args`,
    then `parse_args()`), or the method it parses with for a parser the name holds or returns
    (`PARSER.parse_args()`, `build_parser().parse_args()`, `p = build_parser()` then
    `p.parse_known_args()`), CHANGED for such a parser the script does anything else with
    (adds an option to). None where the script changes its command line (`sys.argv`) first."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    nodes = list(ast.walk(tree))
    if _changes_argv(nodes):
        return ()
    names: dict[str, tuple[str, int, str]] = {}  # a name bound to another module's object
    modules: dict[str, str] = {}  # `import a.b as m`: "m" -> "a.b"; `import a.b`: "a.b"
    once = _bound_once(tree, nodes)  # (a name imported twice, or defined too: not one object)
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if (alias.asname or alias.name) in once:
                    names[alias.asname or alias.name] = (node.module, node.level, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name] = alias.name
    # `p = build_parser()`: a variable of the script holding what an imported name returns
    bindings: dict[str, list[str | None]] = {}
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bindings.setdefault(node.id, [])
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if isinstance(target, ast.Name):
                called = value.func if isinstance(value, ast.Call) else None
                imported = called.id if isinstance(called, ast.Name) else None
                bindings.setdefault(target.id, []).append(imported if imported in names else None)
    held = {  # (bound once, to that call: `p = build(); p = wrap(p)` holds another parser)
        name: values[0]
        for name, values in bindings.items()
        if len(values) == 1 and values[0] is not None
    }
    found: dict[tuple[str, int, str, str], str] = {}  # -> the local name it came through
    parses: set[int] = set()  # the names that are a parse call's receiver
    rebound: set[str] = set()  # (`p = build(); p = wrap(p)`: what `build` returns, changed)
    for node in nodes:
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Name) and func.id in names:
            found[names[func.id] + ("",)] = func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, (ast.Name, ast.Attribute)):
            module = modules.get(ast.unparse(func.value))
            if module is not None:
                found[(module, 0, func.attr, "")] = ""
        if not isinstance(func, ast.Attribute) or func.attr not in _PARSE | _KNOWN_ONLY:
            continue
        assert isinstance(node, ast.Call)
        receiver = func.value
        local: str | None = None
        if isinstance(receiver, ast.Name):
            local = receiver.id if receiver.id in names else held.get(receiver.id)
            if local is None and receiver.id not in held:
                local = next((v for v in bindings.get(receiver.id, ()) if v is not None), None)
                rebound.update([local] if local is not None else [])
        elif isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name):
            local = receiver.func.id if receiver.func.id in names else None
        if local is not None and _parses_argv(node):
            found[names[local] + (func.attr,)] = local
            parses.add(id(receiver))
    # a parser the script does anything else with: adds an option to, hands to a function
    # (`deepspeed.add_config_arguments(parser)`), binds to another name; not a call of the
    # imported name (`build_parser()`: a new parser, read where it is bound or parsed)
    callees = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    changed = {
        held.get(node.id, node.id)
        for node in nodes
        if isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Load)
        and id(node) not in parses | callees
        and (node.id in held or node.id in names)
    }
    return tuple(
        (*item[:3], CHANGED) if item[3] and local in changed | rebound else item
        for item, local in found.items()
    )


def _bound_once(tree: ast.Module, nodes: Iterable[ast.AST] | None = None) -> set[str]:
    """The names the module binds once only, anywhere (a `def`, a class, an import, an
    assignment, a parameter): a function defined and then imported under its name, or imported
    twice (`try: from a import f` / `except ImportError: from b import f`), is not one function.
    `nodes`: the module's nodes, where already listed (else walked)."""
    seen: dict[str, int] = {}
    for node in ast.walk(tree) if nodes is None else nodes:
        names: list[str] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names = [node.id]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        for name in names:
            seen[name] = seen.get(name, 0) + 1
    return {name for name, count in seen.items() if count == 1}


class _Module:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.scope_of: dict[ast.AST, ast.AST | None] = {}  # every node below the module's
        self.globals: dict[ast.AST, set[str]] = {}  # the names a function declares global
        self._scopes(tree, None)
        nodes = self.scope_of  # (one walk of the tree: the passes below go through its nodes)
        once = _bound_once(tree, nodes)
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in once:
                self.functions[node.name] = node
        # a name one `from ... import` binds, and nothing else: (module, level, name)
        self.imported: dict[str, tuple[str, int, str]] = {
            alias.asname or alias.name: (node.module, node.level, alias.name)
            for node in nodes
            if isinstance(node, ast.ImportFrom) and node.module
            for alias in node.names
            if (alias.asname or alias.name) in once
        }
        # the calls that are statements of their own (their result unused)
        self.statements = {id(n.value) for n in nodes if isinstance(n, ast.Expr)}
        self.made: dict[ast.Call, _Made] = {}
        # (scope, name) -> the parsers and groups a name of a scope may hold; a scope is a
        # function (its node) or the module (None)
        self.names: dict[tuple[ast.AST | None, str], set[_Value]] = {}
        self.returns: dict[str, set[_Value]] = {}
        # names also bound to a value the module does not tell (`parser =
        # utils.get_argument_parser()`): a parser read through one may be another
        # the line, and the function whose result it is where it is a call's
        self.opaque: dict[tuple[ast.AST | None, str], tuple[int, str | None]] = {}
        self.subs: dict[int, _Subcommands] = {}
        self.groups: dict[int, _Group] = {}
        self.classes = _parser_classes(self.scope_of)
        self.unconditional = _unconditional_calls(tree)
        self._parents: dict[int, ast.AST] | None = None  # (`_leftovers_unread`)
        self._mentions: set[str] = set()
        self._parses = 0
        self._hands_on = False
        # the nodes that bind, return, call or name something: each pass goes through these
        self.nodes = [node for node in self.scope_of if isinstance(node, _READ)]
        self.binding = [node for node in self.nodes if isinstance(node, _BINDING)]

    def _scopes(self, node: ast.AST, scope: ast.AST | None) -> None:
        for child in ast.iter_child_nodes(node):
            self.scope_of[child] = scope
            if isinstance(child, ast.Global) and scope is not None:
                self.globals.setdefault(scope, set()).update(child.names)
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inner = child
            self._scopes(child, inner)

    @cached_property
    def _locals(self) -> dict[ast.AST, set[str]]:
        """The names each function binds (a parameter, an assignment's or a `for` target, an
        `import`, an `except ... as`, a nested `def`), not declared `global`: Python reads them
        in the function, never the module's of that name."""
        found: dict[ast.AST, set[str]] = {}
        # (a comprehension's targets are its own, in a scope of its own: `_own_names`)
        comprehended = {
            id(n)
            for node in self.scope_of
            if isinstance(node, ast.comprehension)
            for n in ast.walk(node.target)
        }
        for node, scope in self.scope_of.items():
            if scope is None or id(node) in comprehended:
                continue
            names: list[str] = []
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                names = [node.id]
            elif isinstance(node, ast.arg):
                names = [node.arg]
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [(a.asname or a.name).split(".")[0] for a in node.names]
            elif isinstance(node, _NAMED_DEFINITIONS) and node.name:  # (`except E as e`, `def f`)
                names = [node.name]
            if names:
                found.setdefault(scope, set()).update(names)
        for scope, declared in self.globals.items():
            found.get(scope, set()).difference_update(declared)
        return found

    @cached_property
    def _own_names(self) -> set[int]:
        """The names (node ids) a comprehension's expressions read of its own variables
        (`[x for group in groups for x in group]`: `group` is the comprehension's, in a scope
        of its own, not a parser group of the module's of that name)."""
        found: set[int] = set()
        for node in self.scope_of:
            if not isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                continue
            own = {
                n.id
                for generator in node.generators
                for n in ast.walk(generator.target)
                if isinstance(n, ast.Name)
            }
            # (the first generator's iterable is read in the enclosing scope)
            inside = [c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.comprehension)]
            inside += [*node.generators[0].ifs, *node.generators[1:]]
            for child in inside:
                found.update(
                    id(n)
                    for n in ast.walk(child)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in own
                )
        return found

    def _parses_before(self, scope: ast.AST | None, line: int) -> bool:
        """Whether the scope's code parses the command line (`parse_args()`, `parse_known_args()`)
        on a line before this one."""
        return any(
            owner is scope
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _PARSE | _KNOWN_ONLY
            and node.lineno < line
            for node, owner in self.scope_of.items()
        )

    def _ends_between(self, scope: ast.AST | None, first: int, last: int) -> bool:
        """Whether the scope's code may end it between the two lines: a `return`, a `raise`,
        a `sys.exit()` (`exit`, `quit`, `os._exit`) on a line between them."""
        for node, owner in self.scope_of.items():
            if owner is not scope or not first < getattr(node, "lineno", 0) < last:
                continue
            if isinstance(node, (ast.Return, ast.Raise)):
                return True
            if isinstance(node, ast.Call) and _ENDS.fullmatch(ast.unparse(node.func)):
                return True
        return False

    def _handed_away(self) -> str | None:
        """Where nothing of the module parses its parser, a function of another module it gives
        the parser to, whose result it keeps (`args = add_common_args_and_parse(parser)`; h20,
        SGLang's benchmarks), as `NAME` (line N): the reason the parser cannot be told."""
        for node in ast.walk(self.tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in self.imported
            ):
                continue
            scope = self.scope_of.get(node)
            for argument in node.args:
                if any(isinstance(v, _Made) for v in self._value(argument, scope)):
                    return f"`{node.func.id}` (line {node.lineno})"
        return None

    def _held_in_attribute(self, entry: str) -> str | None:
        """Where no parser this reads parses the command line, a call that parses it with a
        parser an attribute holds (`self.parser.parse_args()`, line N), which is not followed:
        the reason it cannot be told, not that nothing parses it."""
        if entry:
            return None
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                receiver = node.func.value
                if node.func.attr in _PARSE | _KNOWN_ONLY and isinstance(receiver, ast.Attribute):
                    return f"`{ast.unparse(node.func)}()`, line {node.lineno}"
        return None

    # -- what each expression may hold -----------------------------------------------------------
    def parser(self, entry: str = "", parses: str = "") -> Parser:
        for node in self.nodes:
            if isinstance(node, ast.Call):
                classes = self._constructor(node.func)
                if classes is not None:
                    self.made[node] = self._make(node, classes)
        if not self.made:
            for call in self.nodes:  # (`CustomArgumentParser(...)` of another module)
                if not isinstance(call, ast.Call):
                    continue
                called = call.func
                name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", "")
                if name.endswith("ArgumentParser"):
                    raise _Unknown(
                        f"its parser's class is one it defines or imports (`{name}`, line "
                        f"{call.lineno}), not argparse's"
                    )
            raise _Unknown(NO_PARSER)
        for node in self.nodes:  # a subcommand's parser (its class: its parent's)
            func = node.func if isinstance(node, ast.Call) else None
            if isinstance(func, ast.Attribute) and func.attr == "add_parser":
                assert isinstance(node, ast.Call)
                self.made[node] = self._make(node, (ARGPARSE,), subcommand=True)
        for _ in range(8):  # until what names hold no longer grows
            if not self._bind():
                break
        else:
            raise _Unknown("its parser passes through too many names to follow")
        self._opaque()
        changes = _argv_changes(self.scope_of)
        self._uses()
        if changes and not self._parsed_before(changes):
            raise _Unknown("it changes its command line before parsing it (`sys.argv`)")
        for made in self.made.values():
            if made.known_in and all(
                any(
                    s == scope and line > at and not self._ends_between(scope, at, line)
                    for s, line in made.strict_in
                )
                for scope, at in made.known_in
            ):
                made.keeps_unknown = False  # (the strict parse that follows decides)
        parsed = [m for m in self.made.values() if m.parsed]
        if parses:  # another script parses what the name holds or the function returns
            held = self.returns.get(entry) if entry in self.functions else None
            values = held if held is not None else self.names.get((None, entry), set())
            parsed = [v for v in values if isinstance(v, _Made)]
            for made in parsed:
                made.keeps_unknown |= parses in _KNOWN_ONLY
            if len(parsed) != len(values):
                raise _Unknown(f"`{entry}` may hold what is not a parser")
        elif entry:
            reached = self._reached(entry)
            parsed = [m for m in parsed if m.parsed_in & reached]
        if not parsed:
            attribute = self._held_in_attribute(entry)
            if attribute is not None:
                why = f"it parses with a parser an attribute holds ({attribute}): not followed"
                raise _Unknown(why)
            handed = self._handed_away()
            if handed is not None:
                why = f"it hands its parser to {handed} of another module, which may parse it"
                raise _Unknown(why + ": not followed")
            raise _Unknown(NOT_PARSED)
        if len(parsed) > 1:
            # a parser that keeps what it does not know (`cfg, _ = pre.parse_known_args()` for
            # `--config`) and one that does not: the command line must pass the strict one
            strict = [m for m in parsed if not m.keeps_unknown]
            if len(strict) != 1:
                raise _Unknown(f"it parses its command line with {len(parsed)} parsers")
            parsed = strict
        made = parsed[0]
        drops = made.drops_at if not (parses or made.leftovers_read) else 0
        return self._build(made, made.classes, 0, made.keeps_unknown, drops)

    def _leftovers_unread(self, call: ast.Call) -> bool:
        """Whether nothing reads the options a `parse_known_args()` call leaves over: the call
        is `p.parse_known_args()[0]`, or `args, rest = p.parse_known_args()` with no other
        mention of `rest` in the module; and the module parses its command line only there,
        reads no `argv` itself and hands it to no code that may (`_may_read_argv`)."""
        if self._parents is None:
            self._parents = {
                id(child): node
                for node in ast.walk(self.tree)
                for child in ast.iter_child_nodes(node)
            }
            parsing = {  # (what a parse call is given: `p.parse_known_args(sys.argv[1:])`)
                id(inner)
                for node in ast.walk(self.tree)
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _PARSE | _KNOWN_ONLY
                for arg in node.args
                for inner in ast.walk(arg)
            }
            self._mentions = {
                node.id if isinstance(node, ast.Name) else node.attr
                for node in ast.walk(self.tree)
                if isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in parsing
            }
            self._parses = sum(
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _PARSE | _KNOWN_ONLY
                for node in ast.walk(self.tree)
            )
            self._hands_on = _may_read_argv(self.tree)
        if "argv" in self._mentions or self._mentions & _ARGV_READERS or self._parses > 1:
            return False
        if self._hands_on:  # (code that may read the command line again)
            return False
        parent = self._parents.get(id(call))
        if isinstance(parent, ast.Subscript):
            return isinstance(parent.slice, ast.Constant) and parent.slice.value == 0
        if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1):
            return False
        target = parent.targets[0]
        if not (isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2):
            return False
        rest = target.elts[1]
        return isinstance(rest, ast.Name) and not any(
            isinstance(n, ast.Name) and n.id == rest.id and n is not rest
            for n in ast.walk(self.tree)
        )

    def _build(
        self, made: _Made, classes: tuple[str, ...], depth: int, keeps: bool, drops: int = 0
    ) -> Parser:
        if depth > 4:
            raise _Unknown("its subcommands nest too deeply")
        options: set[str] = set()
        actions: list[tuple[str, ...]] = []
        arity: dict[str, int | None] = {}
        seen: set[int] = set()
        handed: list[tuple[str, int, str, int]] = []
        required: list[tuple[str, ...]] = []
        self._collect(made, options, actions, arity, seen, handed, required)
        if handed and depth:
            raise _Unknown(f"a subcommand's parser is handed to `{handed[0][2]}` of another module")
        if made.subcommands and not made.commands:
            raise _Unknown("its subcommands cannot be told")
        kinds = {m.remainder for m in self.made.values() if id(m) in seen and m.remainder}
        remainder = "positional" if "positional" in kinds else "".join(kinds)
        if remainder and made.subcommands:
            raise _Unknown("an argument of its parser takes every word after it (`REMAINDER`)")
        commands = tuple(
            (name, self._build(sub, classes, depth + 1, keeps, drops))
            for name, sub in made.commands.items()
        )
        # argparse allows abbreviations unless told not to; vLLM's parser may not
        default = (True,) if classes == (ARGPARSE,) else (True, False)
        return Parser(
            frozenset(options),
            made.abbreviations or default,
            classes,
            made.node.lineno,
            made.fromfile,
            tuple(actions),
            tuple(sorted(arity.items())) if commands or remainder or required else (),
            commands,
            made.positionals,
            keeps,
            remainder,
            tuple(handed),
            # (required where a parse always runs: not one in a `try:` that may catch its
            # `SystemExit`, nor under an `if`)
            required=tuple(required) if any(always for *_, always in made.parses) else (),
            drops_at=drops if keeps else 0,
        )

    def _collect(
        self,
        made: _Made,
        options: set[str],
        actions: list[tuple[str, ...]],
        arity: dict[str, int | None],
        seen: set[int],
        handed: list[tuple[str, int, str, int]],
        required: list[tuple[str, ...]],
    ) -> None:
        if id(made) in seen:
            return
        seen.add(id(made))
        if made.unknown:
            raise _Unknown(made.unknown)
        options |= made.options
        actions += made.actions
        arity.update(made.arity)
        handed += made.handed
        required += made.required
        for parent in made.parents or ():
            if parent.subcommands:
                raise _Unknown("a parent of its parser has subcommands")
            self._collect(parent, options, actions, arity, seen, handed, required)

    def _constructor(self, func: ast.expr) -> tuple[str, ...] | None:
        """The classes a call makes a parser of, when it makes one."""
        if isinstance(func, ast.Attribute) and func.attr == "ArgumentParser":
            base = func.value
            if isinstance(base, ast.Name) and "argparse" in self.classes.get(base.id, ()):
                return (ARGPARSE,)
            return None
        if isinstance(func, ast.Name):
            found = self.classes.get(func.id)
            if found and (ARGPARSE in found or FLEXIBLE in found):
                return tuple(sorted(found))
        return None

    def _make(self, node: ast.Call, classes: tuple[str, ...], subcommand: bool = False) -> _Made:
        made = _Made(node, classes, set(), [])
        made.options |= {"-h", "--help"}
        made.actions.append(("-h", "--help"))
        made.arity.update({"-h": 0, "--help": 0})
        if any(c not in (ARGPARSE, FLEXIBLE) for c in classes):
            made.cannot_tell("its parser's class may be one it defines or imports (not argparse's)")
        for keyword in node.keywords:
            name, value = keyword.arg, keyword.value
            if name is None:
                made.cannot_tell("its parser is made with `**` arguments")
            elif subcommand and name in ("aliases", "help", "description", "parents"):
                pass  # (`add_parser`'s own; parents are read where the parsers are known)
            elif name == "allow_abbrev":
                if isinstance(value, ast.Constant) and isinstance(value.value, bool):
                    made.abbreviations = (value.value,)
            elif name == "add_help":
                if isinstance(value, ast.Constant) and value.value is False:
                    made.options -= {"-h", "--help"}
                    made.actions.remove(("-h", "--help"))
            elif name == "prefix_chars":
                if not (isinstance(value, ast.Constant) and value.value == "-"):
                    made.cannot_tell("its parser reads options with other prefix characters")
            elif name == "fromfile_prefix_chars":
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    made.fromfile = value.value
                elif not (isinstance(value, ast.Constant) and value.value is None):
                    made.cannot_tell("its parser reads arguments from files it names")
            elif name == "exit_on_error":
                made.cannot_tell("its parser may not stop on an error (`exit_on_error`)")
        if len(node.args) > (1 if subcommand else 4):
            made.cannot_tell("its parser is made with positional arguments past `description`")
        return made

    def _value(self, node: ast.expr, scope: ast.AST | None) -> set[_Value]:
        """The parsers and groups an expression may hold."""
        if isinstance(node, ast.Call):
            if node in self.made:
                return {self.made[node]}
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _GROUPS:
                return {self._group(_parser_of(v)) for v in self._value(func.value, scope)}
            if isinstance(func, ast.Attribute) and func.attr == "add_subparsers":
                made = self._value(func.value, scope)
                return {self._subcommands(v) for v in made if isinstance(v, _Made)}
            if isinstance(func, ast.Name) and func.id in self.functions:
                return set(self.returns.get(func.id, ()))
            return set()
        if isinstance(node, ast.Name):
            if id(node) in self._own_names:
                return set()  # (a comprehension's variable: a name of its own scope)
            found = self.names.get((scope, node.id))
            if found is None and scope is not None and node.id not in self._locals.get(scope, ()):
                found = self.names.get((None, node.id))  # (a function's free name: the module's)
            return set(found or ())
        if isinstance(node, ast.NamedExpr):
            return self._value(node.value, scope)
        return set()

    def _bind(self) -> bool:
        """One pass over the module: what each name, parameter and function return may hold.
        Whether anything grew."""
        grew = False

        def add(key: tuple[ast.AST | None, str], values: set[_Value]) -> None:
            nonlocal grew
            if values:
                held = self.names.setdefault(key, set())
                if not values <= held:
                    held |= values
                    grew = True

        for node in self.binding:
            scope = self.scope_of.get(node)
            if isinstance(node, ast.Assign):
                values = self._value(node.value, scope)
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        add((self._binding_scope(scope, target.id), target.id), values)
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                target = node.target
                if isinstance(target, ast.Name):
                    add((scope, target.id), self._value(node.value, scope))
            elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
                add((scope, node.optional_vars.id), self._value(node.context_expr, scope))
            elif isinstance(node, ast.Return) and node.value is not None and scope is not None:
                name = getattr(scope, "name", "")
                if self.functions.get(name) is scope:
                    values = self._value(node.value, scope)
                    held = self.returns.setdefault(name, set())
                    if values and not values <= held:
                        held |= values
                        grew = True
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                function = self.functions.get(node.func.id)
                if function is None:
                    continue
                parameters = [a.arg for a in function.args.posonlyargs + function.args.args]
                for i, argument in enumerate(node.args):
                    if i < len(parameters) and not isinstance(argument, ast.Starred):
                        add((function, parameters[i]), self._value(argument, scope))
                for keyword in node.keywords:
                    if keyword.arg is not None:
                        add((function, keyword.arg), self._value(keyword.value, scope))
        return grew

    def _binding_scope(self, scope: ast.AST | None, name: str) -> ast.AST | None:
        if scope is not None and name in self.globals.get(scope, ()):
            return None
        return scope

    # -- how each parser is used -----------------------------------------------------------------
    def _uses(self) -> None:
        """Read every place a parser or group is used; a use not understood makes its parser
        one that cannot be told."""
        understood: set[int] = set()  # ids of expression nodes whose use is read
        for node in self.nodes:
            scope = self.scope_of.get(node)
            if isinstance(node, ast.Call):
                self._call(node, scope, understood)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
                value = node.value
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if value is not None and all(isinstance(t, ast.Name) for t in targets):
                    understood.add(id(value))  # (bound: its uses are where the name is)
            elif isinstance(node, ast.Return) and node.value is not None:
                name = getattr(scope, "name", "")
                if scope is not None and self.functions.get(name) is scope:
                    understood.add(id(node.value))
                if isinstance(node.value, ast.Tuple) and self._parses_before(scope, node.lineno):
                    # (`return args, parser` once the function parsed: what the caller does with
                    # it comes after the parse, which has read the command line)
                    understood.update(id(e) for e in node.value.elts)
            elif isinstance(node, ast.Expr):
                understood.add(id(node.value))  # (a statement of a call alone)
            if isinstance(node, ast.Assign):  # `subparsers.required = True`
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr in _HARMLESS_FIELDS:
                        understood.add(id(target.value))
        handed: dict[int, str] = {}  # an argument's node: the function it is given to
        for node in self.nodes:
            if isinstance(node, ast.Call) and (name := _called_name(node.func)) is not None:
                for argument in [*node.args, *(k.value for k in node.keywords)]:
                    handed[id(argument)] = name
        for node in self.nodes:
            if not isinstance(node, (ast.Name, ast.Call)) or id(node) in understood:
                continue
            scope = self.scope_of.get(node)
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                continue
            to = handed.get(id(node))
            why = (
                f"its parser is given to `{to}` (line {node.lineno}), which may change its options"
                if to is not None
                else f"its parser is used where its options may change (line {node.lineno})"
            )
            for value in self._value(node, scope):
                _parser_of(value).cannot_tell(why)

    def _call(self, node: ast.Call, scope: ast.AST | None, understood: set[int]) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in self.functions:
            # read through the parameters it binds (`_bind`); an argument `*args` or `**kwargs`
            # takes is not followed
            signature = self.functions[func.id].args
            positional = [*signature.posonlyargs, *signature.args]
            named = {a.arg for a in [*signature.args, *signature.kwonlyargs]}
            understood.update(
                id(a)
                for i, a in enumerate(node.args)
                if i < len(positional) and not isinstance(a, ast.Starred)
            )
            understood.update(id(k.value) for k in node.keywords if k.arg in named)
            return
        if (
            isinstance(func, ast.Name)
            and func.id in self.imported
            and not node.keywords
            and id(node) in self.statements  # (`parser = add_args(parser)` may be another)
        ):
            # `add_cache_args(parser)`: a function of another module that may add options,
            # read by the caller (`Parser.handed`); any other use of it is not understood
            for argument in node.args[:1]:  # (as its first argument: read so, see additions)
                for value in self._value(argument, scope):
                    if not isinstance(value, _Subcommands):
                        parser = _parser_of(value)
                        parser.handed.append((*self.imported[func.id], node.lineno))
                        understood.add(id(argument))
            return
        if node in self.made:  # `parents=[base]`; a subcommand's parser
            made = self.made[node]
            if isinstance(func, ast.Attribute) and func.attr == "add_parser":
                self._subcommand(node, made, self._value(func.value, scope))
                understood.add(id(func.value))
            for keyword in node.keywords:
                if keyword.arg != "parents":
                    continue
                items = keyword.value
                if not isinstance(items, (ast.List, ast.Tuple)):
                    made.cannot_tell("its parser's parents cannot be told")
                    continue
                made.parents = []
                for item in items.elts:
                    found = [v for v in self._value(item, scope) if isinstance(v, _Made)]
                    understood.add(id(item))
                    if len(found) != 1:
                        made.cannot_tell("its parser's parents cannot be told")
                    else:
                        made.parents.append(found[0])
                understood.add(id(items))
            return
        if not isinstance(func, ast.Attribute):
            return
        receivers = self._value(func.value, scope)
        if not receivers:
            return
        understood.add(id(func.value))
        method = func.attr
        for value in receivers:
            parser = _parser_of(value)
            if isinstance(value, _Subcommands):
                parser.cannot_tell(f"its subcommands' `{method}` is called (line {node.lineno})")
            elif method == "add_argument":
                # (required of every command line where it always runs with the parser: in
                # the body that makes it, not under an `if`; not in a helper called under one,
                # nor one never called, whose parameter has the parser's name)
                scope = self.scope_of.get(node)
                always = scope is self.scope_of.get(parser.node) and not any(
                    where is scope and line < node.lineno for where, line, _ in parser.parses
                )  # (not one added after the parse: `parse_args()`, then `add_argument`)
                _add_argument(parser, node, always and id(node) in self.unconditional)
            elif method in _GROUPS or method in _HARMLESS:
                pass
            elif method in _PARSE | _KNOWN_ONLY and isinstance(value, _Made):
                rebound = self._rebound(func.value, scope)
                if rebound is not None:
                    line, called = rebound
                    parser.cannot_tell(
                        f"the name it parses with is bound to what `{called}` returns too (line "
                        f"{line})"
                        if called is not None
                        else f"the name it parses with is bound to another value too (line {line})"
                    )
                parser.parsed = True
                parser.parsed_in.add(scope)
                parser.parses.append((scope, node.lineno, id(node) in self.unconditional))
                # (`parse_known_args` keeps what it does not know: an ambiguous prefix is still
                # rejected; where `parse_args` of the same parser always follows it in the same
                # body, that one decides)
                if method in _KNOWN_ONLY:
                    parser.keeps_unknown = True
                    parser.known_in.append((scope, node.lineno))
                    if self._leftovers_unread(node):
                        parser.drops_at = parser.drops_at or node.lineno
                    else:
                        parser.leftovers_read = True
                elif id(node) in self.unconditional:
                    parser.strict_in.append((scope, node.lineno))
                if not _parses_argv(node) and not self._argv_parameter(node, scope):
                    parser.cannot_tell("its parser parses a list the script builds")
            elif method == "add_subparsers" and isinstance(value, _Made):
                parser.subcommands = True
                if any(k.arg not in _SUBPARSERS_KEYWORDS for k in node.keywords) or node.args:
                    parser.cannot_tell("its subcommands' parsers cannot be told")
            else:
                parser.cannot_tell(f"its parser's `{method}` is called (line {node.lineno})")

    def _parsed_before(self, changes: list[ast.AST]) -> bool:
        """Whether the module changes `sys.argv` only after its parsers have read it: every
        parse of them always runs in the body (not under an `if`, a loop or a `try`) that
        makes every change, on an earlier line (`own, rest = p.parse_known_args()` then
        `sys.argv = [sys.argv[0], *rest]`, handing the rest on): what the parser rejects, it
        rejects on the command line as given."""
        parses = [at for made in self.made.values() for at in made.parses]
        if not parses:
            return False
        for change in changes:
            scope, line = self.scope_of.get(change), getattr(change, "lineno", 0)
            if not all(s == scope and always and at < line for s, at, always in parses):
                return False
        return True

    def _opaque(self) -> None:
        """Once what names hold is worked out: the names also bound to a value it does not
        tell, that may be a parser (`opaque`)."""
        for node in self.binding:
            if not isinstance(node, ast.Assign) or not isinstance(node.value, _MAY_BE_PARSER):
                continue
            func = node.value.func if isinstance(node.value, ast.Call) else None
            if isinstance(func, ast.Attribute) and func.attr in _PARSE | _KNOWN_ONLY:
                continue  # (`args = args.parse_args()`: what it parsed, after it parsed it)
            scope = self.scope_of.get(node)
            if self._value(node.value, scope):
                continue
            for target in node.targets:
                if isinstance(target, ast.Name):
                    key = (self._binding_scope(scope, target.id), target.id)
                    called = _called_name(func) if func is not None else None
                    self.opaque.setdefault(key, (node.lineno, called))

    def _rebound(self, receiver: ast.expr, scope: ast.AST | None) -> tuple[int, str | None] | None:
        """Where the name a parser is used through is bound to a value the module does not
        tell (`opaque`), if it is: the line, and the function whose result that value is."""
        if not isinstance(receiver, ast.Name):
            return None
        found = self.opaque.get((scope, receiver.id))
        return found if found is not None else self.opaque.get((None, receiver.id))

    def _argv_parameter(self, node: ast.Call, scope: ast.AST | None) -> bool:
        """`def main(argv=None): ... parser.parse_args(argv)`, where the function never gets
        the parameter another value than the command line: argparse reads the command line
        (`sys.exit(main())`, `main(sys.argv[1:])`). Not where the function assigns it, or a
        call of it in the module gives it anything else, or `*args`/`**kwargs`."""
        given = [*node.args, *(k.value for k in node.keywords if k.arg == "args")]
        if len(given) != 1 or not isinstance(given[0], ast.Name):
            return False
        return self._none_parameter(given[0].id, scope, 0, node.lineno)

    def _none_parameter(self, name: str, scope: ast.AST | None, depth: int, before: int) -> bool:
        """Whether `name` is a parameter of the function `scope` whose value is the command
        line in every call (`_argv_parameter`): its default None, and what each call of it in
        the module gives, None itself, `sys.argv[1:]`, or such a parameter of the calling
        function (`def main(argv=None): run(argv)`, `def run(argv=None):
        parser.parse_args(argv)`, `main(sys.argv[1:])` of a `def main(args)` that no other
        call gives another list; three calls deep at most). A parameter with no default is one
        only where the module calls the function. Bound again only as `args =
        parse_args(args)`: read before."""
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) or depth > 3:
            return False
        arguments = scope.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = dict(
            zip(
                positional[len(positional) - len(arguments.defaults) :],
                arguments.defaults,
                strict=True,
            )
        )
        defaults.update(
            (a, d)
            for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
            if d is not None
        )
        parameter = next((a for a in [*positional, *arguments.kwonlyargs] if a.arg == name), None)
        if parameter is None:
            return False
        default = defaults.get(parameter)
        required = parameter not in defaults
        if not required and not (isinstance(default, ast.Constant) and default.value is None):
            return False
        if any(
            isinstance(n, ast.Name)
            and n.id == name
            and not isinstance(n.ctx, ast.Load)
            and not _consumed(n, name, scope)
            for n in ast.walk(scope)
        ):
            return False  # (`argv = ["--x"]`: another list)
        if _mutated(name, scope, before):
            return False  # (`args.remove("--legacy")`: a list the script changes)
        index = positional.index(parameter) if parameter in positional else None
        called = False
        for call in self.nodes:
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                continue
            if call.func.id != scope.name or self.functions.get(scope.name) is not scope:
                continue
            called = True
            values = [k.value for k in call.keywords if k.arg == name or k.arg is None]
            if index is not None and len(call.args) > index:
                values.append(call.args[index])
            if any(isinstance(a, ast.Starred) for a in call.args):
                return False
            if required and not values:
                return False
            for value in values:
                if isinstance(value, ast.Constant) and value.value is None:
                    continue
                if ast.unparse(value).replace(" ", "") == "sys.argv[1:]":
                    continue  # (`main(sys.argv[1:])`: the command line, as argparse reads it)
                caller = self.scope_of.get(call)
                if not isinstance(value, ast.Name) or caller is scope:
                    return False
                if not self._none_parameter(value.id, caller, depth + 1, call.lineno):
                    return False
        return called or not required

    def _reached(self, entry: str) -> set[ast.AST | None]:
        """The function and the module's own functions it calls, directly or through others."""
        start = self.functions.get(entry)
        if start is None:
            return set()
        reached: set[ast.AST | None] = {start}
        todo = [start]
        while todo:
            function = todo.pop()
            for node in ast.walk(function):
                func = node.func if isinstance(node, ast.Call) else None
                if isinstance(func, ast.Name) and func.id in self.functions:
                    called = self.functions[func.id]
                    if called not in reached:
                        reached.add(called)
                        todo.append(called)
        return reached

    def _group(self, made: _Made) -> _Group:
        """A parser's argument group: one value per parser (what names hold stops growing)."""
        if id(made) not in self.groups:
            self.groups[id(made)] = _Group(made)
        return self.groups[id(made)]

    def _subcommands(self, made: _Made) -> _Subcommands:
        if id(made) not in self.subs:
            self.subs[id(made)] = _Subcommands(made)
        return self.subs[id(made)]

    def _subcommand(self, node: ast.Call, made: _Made, receivers: set[_Value]) -> None:
        """`subparsers.add_parser("name", aliases=[...])`: a subcommand of each receiver."""
        names: list[str] = []
        given = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "aliases")]
        for value in given:
            items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            for item in items:
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    names.append(item.value)
                else:
                    made.cannot_tell("a subcommand's name is computed")
        if not node.args:
            made.cannot_tell("a subcommand's name is computed")
        for value in receivers:
            if isinstance(value, _Subcommands):
                for name in names:
                    value.parser.commands[name] = made


# a parser's or its subcommands' fields a script may set without changing what they accept
_HARMLESS_FIELDS = frozenset({"required", "dest", "description", "epilog", "usage", "prog"})
_SUBPARSERS_KEYWORDS = frozenset({"dest", "required", "help", "title", "description", "metavar"})


# calls that end a script's run where they are
_ENDS = lazy_compile(r"(?:sys\.)?exit|quit|os\._exit")


def _unconditional_calls(tree: ast.Module) -> set[int]:
    """The calls that run whenever their body does: in a statement of a module's or a
    function's body (or a `with`'s in it), not under an `if`, a loop, a `try` or a `match`, and
    not in a function or a lambda of their own. The module's `if __name__ == "__main__":` runs
    its body whenever the script is run, as a command line runs it."""
    found: set[int] = set()
    bodies: list[list[ast.stmt]] = [tree.body]
    bodies.extend(s.body for s in tree.body if isinstance(s, ast.If) and _main_guard(s.test))
    while bodies:
        for statement in bodies.pop():
            if isinstance(
                statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.With, ast.AsyncWith)
            ):
                bodies.append(statement.body)
            elif not isinstance(
                statement,
                (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.Match, ast.ClassDef),
            ):
                stack: list[ast.AST] = [statement]
                while stack:
                    node = stack.pop()
                    if isinstance(node, ast.Call):
                        found.add(id(node))
                    if not isinstance(node, (ast.Lambda, ast.IfExp, ast.BoolOp)):
                        stack.extend(ast.iter_child_nodes(node))
    return found


def _main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either way round)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    texts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(texts) == 1


def _called_name(func: ast.expr) -> str | None:
    """A call's function as written, where it is a name or a dotted name (`helpers.add_args`)."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    return ".".join([func.id, *reversed(parts)])


def _parser_of(value: _Value) -> _Made:
    return value.parser if isinstance(value, (_Group, _Subcommands)) else value


def _add_argument(parser: _Made, node: ast.Call, always: bool = True) -> None:
    """`always`: whether the call runs whenever its body does (an option added under an `if`
    is not required of every command line)."""
    names: list[str] = []
    for argument in node.args:
        if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
            parser.cannot_tell(f"an option of its parser is named by code (line {node.lineno})")
            return
        names.append(argument.value)
    options = tuple(n for n in names if n[:1] == "-")
    if names and not options:
        parser.positionals += 1
    arity: int | None = 1
    required = False
    for keyword in node.keywords:
        value = keyword.value
        if keyword.arg is None:
            parser.cannot_tell(
                f"an option of its parser is given `**` arguments (line {node.lineno})"
            )
            return
        if keyword.arg == "nargs" and _is_remainder(value):
            arity = None
            if not options:
                parser.positionals -= 1  # (not one before a subcommand's word)
                parser.remainder = "positional"
            elif not parser.remainder:
                parser.remainder = "option"
            continue
        if keyword.arg == "nargs":
            given = value.value if isinstance(value, ast.Constant) else None
            arity = given if type(given) is int else None
        elif keyword.arg == "required":
            required = isinstance(value, ast.Constant) and value.value is True
        elif keyword.arg == "action":
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                arity = 0 if value.value in _NO_VALUE else arity
            else:
                # `BooleanOptionalAction` (or an action class like it) adds `--no-NAME`
                options += tuple(f"--no-{o[2:]}" for o in options if o.startswith("--"))
                arity = 0 if ast.unparse(value).endswith("BooleanOptionalAction") else None
    parser.options.update(options)
    parser.arity.update((o, arity) for o in options)
    if options:
        parser.actions.append(options)
    if options and required and always:
        parser.required.append(options)


def _is_remainder(value: ast.expr) -> bool:
    if isinstance(value, ast.Constant):
        return value.value == "..."
    return isinstance(value, (ast.Attribute, ast.Name)) and "REMAINDER" in ast.unparse(value)


# values that may be a parser the module does not tell (not a constant or a literal)
_MAY_BE_PARSER = (ast.Call, ast.Name, ast.Attribute, ast.Subscript, ast.IfExp, ast.Await)


def _mutated(name: str, scope: ast.AST, before: int) -> bool:
    """Whether the function changes the list a name holds in place before line `before` (where
    it parses it, or hands it on): `args.remove(x)`, `args.pop(0)`, `del args[0]`, `args[1:] =
    ...`, `args += [...]`; not in a function defined inside it (its own names)."""
    for node in _own_nodes(scope, name):
        if getattr(node, "lineno", before) >= before:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            held = node.func.value
            if isinstance(held, ast.Name) and held.id == name and node.func.attr in _MUTATORS:
                return True
        if (
            isinstance(node, ast.Call)
            and not (isinstance(node.func, ast.Name) and node.func.id in _READS_ONLY)
            and any(isinstance(a, ast.Name) and a.id == name for a in node.args)
        ):
            return True  # (`clean(argv)`: a function given the list may change it)
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Delete, ast.Assign)):
            targets = node.targets
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript):  # (`del args[0]`, `args[1:] = ...`)
                target = target.value
            elif not isinstance(node, ast.AugAssign):
                continue  # (`args = ...`: bound again, not changed)
            if isinstance(target, ast.Name) and target.id == name:
                return True
    return False


# functions that only read a list they are given
_READS_ONLY = frozenset(
    {"print", "len", "list", "tuple", "str", "repr", "sorted", "any", "all", "isinstance", "set"}
)


def _own_nodes(scope: ast.AST, name: str) -> Iterator[ast.AST]:
    """The nodes of a function's body, and of the functions it defines that do not take a
    parameter of the name (theirs would be another list: `def helper(args): args.pop()`)."""
    pending = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            given = node.args
            names = [a.arg for a in (*given.posonlyargs, *given.args, *given.kwonlyargs)]
            if name in names:
                continue
        pending.extend(ast.iter_child_nodes(node))


def _consumed(target: ast.Name, name: str, scope: ast.AST) -> bool:
    """Whether a binding of the parameter is `name = f(..., name, ...)`: the call reads the
    parameter before it is bound again (`args = parse_args(args)`)."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and target in node.targets:
            value = node.value
            return isinstance(value, ast.Call) and any(
                isinstance(a, ast.Name) and a.id == name
                for a in [*value.args, *(k.value for k in value.keywords)]
            )
    return False


def _parses_argv(node: ast.Call) -> bool:
    """`parse_args()`, `parse_args(None)`, `parse_args(sys.argv[1:])`: the command line."""
    given = [*node.args, *(k.value for k in node.keywords if k.arg in ("args", None))]
    if not given:
        return True
    first = given[0]
    if isinstance(first, ast.Constant) and first.value is None:
        return True
    return ast.unparse(first).replace(" ", "") == "sys.argv[1:]"


_MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse"})


def _changes_argv(nodes: Iterable[ast.AST]) -> bool:
    """Whether the module assigns to `sys.argv`, deletes from it or calls a method that
    changes it (`sys.argv.remove("--local")` before `parse_args`)."""
    return bool(_argv_changes(nodes))


def _argv_changes(nodes: Iterable[ast.AST]) -> list[ast.AST]:
    """The nodes that assign to `sys.argv` (or a part of it), delete from it or call a method
    that changes it."""
    names = {
        alias.asname or alias.name
        for node in nodes
        if isinstance(node, ast.ImportFrom) and node.module == "sys"
        for alias in node.names
        if alias.name == "argv"
    }

    def is_argv(node: ast.AST) -> bool:
        if isinstance(node, ast.Subscript):
            return is_argv(node.value)
        if isinstance(node, ast.Attribute) and node.attr == "argv":
            return isinstance(node.value, ast.Name) and node.value.id == "sys"
        return isinstance(node, ast.Name) and node.id in names

    found: list[ast.AST] = []
    for node in nodes:
        written = isinstance(node, (ast.Attribute, ast.Subscript, ast.Name)) and isinstance(
            node.ctx, (ast.Store, ast.Del)
        )
        if written and is_argv(node):
            found.append(node)
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and func.attr in _MUTATORS and is_argv(func.value):
            found.append(node)
    return found


def _parser_classes(nodes: Iterable[ast.AST]) -> dict[str, set[str]]:
    """What each module-level name may be: "argparse" (the module), ARGPARSE, FLEXIBLE, or
    "other" (a class the module defines, or a name imported from elsewhere)."""
    names: dict[str, set[str]] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "argparse":
                    names.setdefault(alias.asname or "argparse", set()).add("argparse")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                local = alias.asname or alias.name
                if module == "argparse" and alias.name == "ArgumentParser":
                    kind = ARGPARSE
                elif module.split(".")[0] == "vllm" and alias.name == "FlexibleArgumentParser":
                    kind = FLEXIBLE
                else:
                    kind = "other"
                names.setdefault(local, set()).add(kind)
        elif isinstance(node, ast.ClassDef):
            names.setdefault(node.name, set()).add("other")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in names:
                    names[target.id].add("other")
    return names


# -- a command line, as argparse reads it ----------------------------------------------------------
def problems(parser: Parser, words: list[str | None]) -> list[tuple[int, Problem]]:
    """What every parser the script may use finds wrong with the words of its command line
    (each word's text, None where it is not known), by index. Nothing after `--`, or after a
    word `fromfile_prefix_chars` makes a file of, is read; with subcommands, the words before
    the subcommand's are the parser's and the rest its subcommand's, and nothing is read from
    where the subcommand's word cannot be told; with a `REMAINDER`, nothing from the first
    positional word (or from the option that takes it) on."""
    found: list[tuple[int, Problem]] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word is not None and (word == "--" or (parser.fromfile and word[:1] in parser.fromfile)):
            break
        if parser.remainder and (word is None or not _optional_word(parser, word)):
            break  # (a positional's REMAINDER takes the words from the first positional one)
        if parser.commands:
            if word is None or parser.positionals:
                break
            if not _optional_word(parser, word):
                names = dict(parser.commands)
                sub = names.get(word)
                if sub is not None:
                    rest = problems(sub, words[i + 1 :])
                    for j, inner in rest:
                        named = f"{word} {inner.command}".strip()
                        found.append((i + 1 + j, replace(inner, command=named)))
                elif not any(name.startswith(word) for name in names):
                    # no subcommand has that name (nor one it starts: a release that took
                    # prefixes would take it)
                    choices = tuple(sorted(names))
                    found.append((i, Problem("choice", word, choices, line=parser.line)))
                break
        if word is not None:
            wrong = problem(parser, word)
            if wrong is not None:
                found.append((i, replace(wrong, line=parser.line)))
            if parser.commands or parser.remainder:
                taken = (
                    None
                    if wrong is not None and wrong.kind == "ambiguous"
                    else _taken(parser, word)
                )
                values = words[i + 1 : i + 1 + (taken or 0)]
                if taken is None or any(v is None or _optional_word(parser, v) for v in values):
                    break  # (argparse takes no option-like word as a value: it stops there)
                i += taken
        i += 1
    return found


def remainder_start(parser: Parser, words: list[str | None]) -> int | None:
    """Where a positional `REMAINDER` starts taking the words (`multiproc.py --nproc 8 train.py
    --lr 1`: at `train.py`): the first positional word, where reading gets there; None where
    it stops before (a word not known, `--`, an option whose values are not fixed, the option
    that takes the rest) or the parser has no such argument."""
    if parser.remainder != "positional" or parser.commands:
        return None
    i = 0
    while i < len(words):
        word = words[i]
        if word is None or word == "--" or (parser.fromfile and word[:1] in parser.fromfile):
            return None
        if not _optional_word(parser, word):
            return i
        taken = _taken(parser, word)
        values = words[i + 1 : i + 1 + (taken or 0)]
        if taken is None or len(values) < taken:
            return None
        if any(v is None or _optional_word(parser, v) for v in values):
            return None
        i += taken + 1
    return None


def _optional_word(parser: Parser, word: str) -> bool:
    """Whether argparse reads the word as an option (known to the parser or not), not as a
    positional argument."""
    if not word or word[0] != "-" or len(word) == 1:
        return False
    if word in parser.options or word.partition("=")[0] in parser.options:
        return True
    if _NEGATIVE.match(word) and not any(_NEGATIVE.match(o) for o in parser.options):
        return False
    return " " not in word


def _taken(parser: Parser, word: str) -> int | None:
    """How many words after this option word are its values (None: not a fixed number, or
    which option it is depends on what the code leaves open)."""
    if not _optional_word(parser, word):
        return 0
    arity = dict(parser.arity)
    head, sep, _ = word.partition("=")
    if word in arity or (sep and head in arity):
        return 0 if sep and word not in arity else arity[word]
    if word[1] != "-" and word[:2] in arity:
        return 0 if len(word) > 2 else arity[word[:2]]  # `-n4`: the value attached
    matches = [o for o in parser.options if o.startswith(head)]
    if not matches:
        return 0  # (an option it does not know: it takes nothing; it is reported)
    if len(matches) == 1 and parser.abbreviations == (True,) and parser.classes == (ARGPARSE,):
        return 0 if sep else arity.get(matches[0])
    return None


# -- one word, as argparse reads it ----------------------------------------------------------------
# names whose code reads the command line itself (`HfArgumentParser(...)`, OmegaConf's
# `from_cli()`)
_ARGV_READERS = frozenset({"HfArgumentParser", "parse_args_into_dataclasses", "from_cli"})
# packages whose entry points parse the command line (`fire.Fire(main)`, `app.run(main)`)
_CLI_PACKAGES = frozenset(
    {"absl", "fire", "tyro", "hydra", "click", "typer", "jsonargparse", "simple_parsing", "docopt"}
    | {"configargparse"}
)
# packages whose `main()` parses the command line (their other names do not: a test suite run
# with `unittest.TextTestRunner().run(suite)` reads no options)
_MAIN_READS = frozenset({"unittest", "pytest"})


def _may_read_argv(tree: ast.Module) -> bool:
    """Whether the module may hand its command line to other code that reads it: it imports a
    package whose entry points parse it (`fire.Fire`, `absl.app.run`), calls `unittest.main()`
    or `pytest.main()`, or calls a function (a lower-case name: not a class it constructs)
    imported from a module outside the standard library, which may parse it (`from swift.llm
    import sft_main`, then `sft_main()`)."""
    imported: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "main"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in _MAIN_READS
        ):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""] * (node.level == 0)
            )
            if any(m.split(".")[0] in _CLI_PACKAGES for m in modules):
                return True
            if isinstance(node, ast.ImportFrom):
                module = (node.module or "").split(".")[0]
                if node.level or module not in sys.stdlib_module_names or module in _MAIN_READS:
                    imported.update(a.asname or a.name for a in node.names)
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in imported
        and not node.func.id[:1].isupper()
        for node in ast.walk(tree)
    )


def problem(parser: Parser, word: str) -> Problem | None:
    """What every parser the script may use finds wrong with this word, or None when one
    accepts it (or reads it as no option: a value, a negative number)."""
    found: Problem | None = None
    for is_flexible in sorted({c == FLEXIBLE for c in parser.classes}):
        text = flexible(word) if is_flexible else word
        for abbreviations in parser.abbreviations:
            outcome = _optional(parser, text, abbreviations)
            if outcome is None:
                return None
            if found is None or (found.kind == "unknown" and outcome.kind == "ambiguous"):
                found = outcome
    if found is not None and found.kind == "unknown" and parser.keeps_unknown:
        if parser.drops_at:  # (kept where nothing reads it: ignored)
            return Problem("ignored", found.option, found.candidates, found.command, found.line)
        return None  # (`parse_known_args` keeps it)
    return found


def flexible(word: str) -> str:
    """A word as vLLM's `FlexibleArgumentParser` hands it on: `--a_b` (and `--a_b=v`) as
    `--a-b`, a key of a JSON option (`--a-b.key=v`) as the option it belongs to (`--a-b=v`)."""
    if not word.startswith("--"):
        return word
    key, sep, value = word.partition("=")
    key = key[2:].replace("_", "-").split(".", 1)[0]
    return "--" + key + sep + value


def _optional(parser: Parser, word: str, abbreviations: bool) -> Problem | None:
    """argparse's `_parse_optional` on one word: None when it is an option of the parser or
    no option at all; else what is wrong with it."""
    options = parser.options
    if not word or word[0] != "-" or word in options or len(word) == 1 or word == "--":
        return None
    head, sep, _ = word.partition("=")
    if sep and head in options:
        return None
    matches: list[str] = []
    if word[1] == "-":
        if abbreviations:
            matches = [o for o in options if o.startswith(head)]
    else:
        for option in options:
            if option == word[:2] or (abbreviations and option.startswith(word)):
                matches.append(option)
    if len(matches) == 1:
        return None
    if len(matches) > 1:
        if len({_action(parser, m) for m in matches}) == 1:
            return None  # (one action's strings: ambiguous in some releases only)
        return Problem("ambiguous", head if word[1] == "-" else word, tuple(sorted(matches)))
    if _NEGATIVE.match(word) and not any(_NEGATIVE.match(o) for o in options):
        return None  # a negative number: a value
    if " " in word:
        return None  # a value with a blank
    return Problem("unknown", head if word[1] == "-" else word)


def _action(parser: Parser, option: str) -> tuple[str, ...]:
    return next((a for a in parser.actions if option in a), (option,))
