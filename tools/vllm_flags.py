"""The option strings `vllm serve` accepts, read statically from a vLLM source tree.

`vllm serve` builds its parser with `make_arg_parser` (the module `vllm/entrypoints/cli/serve.py`
imports it from; `ServeSubcommand.subparser_init` there may add more: `--grpc` in 0.19): its
own `add_argument` calls (`--headless`, `--api-server-count`/`-asc`,
`--config`, ...), then `FrontendArgs.add_cli_args` (a flag `--field-name` for every field of
the class and its bases) and `AsyncEngineArgs.add_cli_args` (after `EngineArgs.add_cli_args`:
`group.add_argument("--max-model-len", **model_kwargs["max_model_len"])`, where
`model_kwargs = get_kwargs(ModelConfig)`).

`get_kwargs` gives a field whose type hints hold `bool` (not exactly `bool | str | None`)
argparse's `BooleanOptionalAction`, which adds `--no-FLAG` for every `--FLAG`; an explicit
`action=argparse.BooleanOptionalAction` does too, and an `action` set on the field's kwargs
(`kwargs["f"]["action"] = ...`) replaces it. From the release whose `FlexibleArgumentParser`
registers `EnableDisableAction` in its place, an `--enable-X` also gets `--disable-X` (and the
other way round), `--no-` forms kept.

Checked by tools/import_engine_flags.py against the measured study of 13 releases (argparse's
own option lists): every engine list equal, every frontend list equal up to the flags Dynamo's
worker declares itself.
"""

from __future__ import annotations

import ast
import fnmatch
import tarfile
from pathlib import Path

# the modules the parser's flags and the config classes' fields are read from
_CONFIG = ("vllm/config.py", "vllm/config/*.py", "vllm/engine/arg_utils.py")
_ENTRYPOINTS = ("vllm/entrypoints/*.py", "vllm/entrypoints/**/*.py")
_UTILS = ("vllm/utils.py", "vllm/utils/*.py")
_PAIRING = 'register("action", BooleanOptionalAction, EnableDisableAction)'
_INVERSES = (("--enable-", "--disable-"), ("--disable-", "--enable-"))
_WRAPPERS = frozenset({"SkipValidation", "Annotated"})


class Sources:
    """The Python modules of a release's `vllm/` tree by path (`vllm/engine/arg_utils.py`)."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts
        self._trees: dict[str, ast.Module] = {}

    @classmethod
    def of_sdist(cls, sdist: Path) -> Sources:
        """The modules of a source distribution (`vllm-0.26.0/vllm/...` in the archive)."""
        texts = {}
        wanted = _CONFIG + _ENTRYPOINTS + _UTILS
        with tarfile.open(sdist) as archive:
            for member in archive.getmembers():
                path = member.name.split("/", 1)[-1]
                if member.isfile() and any(fnmatch.fnmatch(path, w) for w in wanted):
                    handle = archive.extractfile(member)
                    if handle is not None:
                        texts[path] = handle.read().decode()
        return cls(texts)

    def matching(self, patterns: tuple[str, ...]) -> list[str]:
        return sorted(p for p in self.texts if any(fnmatch.fnmatch(p, w) for w in patterns))

    def tree(self, path: str) -> ast.Module:
        if path not in self._trees:
            self._trees[path] = ast.parse(self.texts[path])
        return self._trees[path]


class Classes:
    """Class definitions by name, over some modules."""

    def __init__(self, trees: list[ast.Module]) -> None:
        self.by_name: dict[str, ast.ClassDef] = {}
        for tree in trees:
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    self.by_name.setdefault(node.name, node)

    def fields(self, name: str, seen: frozenset[str] = frozenset()) -> dict[str, ast.expr]:
        """The class's annotated fields, its bases' first (a ClassVar is no field)."""
        node = self.by_name.get(name)
        if node is None or name in seen:
            return {}
        found: dict[str, ast.expr] = {}
        for base in node.bases:
            base_name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
            if base_name:
                found.update(self.fields(base_name, seen | {name}))
        for item in node.body:
            if (
                isinstance(item, ast.AnnAssign)
                and isinstance(item.target, ast.Name)
                and "ClassVar" not in ast.unparse(item.annotation)
            ):
                found[item.target.id] = item.annotation
        return found


def is_boolean(annotation: ast.expr) -> bool:
    """Whether `get_kwargs` makes the field a BooleanOptionalAction: `bool` is one of the
    union's members (through `Optional`, `Union`, `SkipValidation[...]`, `Annotated[...]`), and
    the members are not exactly `bool | str | None` (a flag with an optional value)."""
    members = {ast.unparse(m) for m in _members(annotation)}
    return "bool" in members and members != {"bool", "str", "None"}


def _members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _members(node.left) + _members(node.right)
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).split(".")[-1]
        inner = node.slice
        if head in _WRAPPERS:
            return _members(inner.elts[0] if isinstance(inner, ast.Tuple) else inner)
        if head == "Optional":
            return [*_members(inner), ast.Constant(None)]
        if head == "Union" and isinstance(inner, ast.Tuple):
            return [m for e in inner.elts for m in _members(e)]
    return [node]


def _function(tree: ast.Module, owner: str | None, name: str) -> ast.FunctionDef | None:
    """The module's function `name`, or the method of class `owner`."""
    scopes: list[ast.Module | ast.ClassDef] = [tree]
    if owner is not None:
        scopes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner]
    for scope in scopes:
        for node in scope.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
    return None


def _negations(options: list[str], pairing: bool) -> list[str]:
    """The option strings a BooleanOptionalAction (EnableDisableAction with `pairing`) adds."""
    added = ["--no-" + o[2:] for o in options if o.startswith("--")]
    if pairing:
        added += [
            inverse + o[len(prefix) :]
            for o in options
            for prefix, inverse in _INVERSES
            if o.startswith(prefix)
        ]
    return added


def _negatable(action: ast.expr | str) -> bool:
    text = action if isinstance(action, str) else ast.unparse(action)
    return "BooleanOptionalAction" in text or "EnableDisableAction" in text


class _Reader:
    """The flags the `add_argument` calls of some functions register (a method, and the
    methods that set actions on the kwargs it registers)."""

    def __init__(
        self, functions: list[ast.FunctionDef], classes: Classes, pairing: bool, cls: str
    ) -> None:
        self.classes = classes
        self.pairing = pairing
        self.flags: set[str] = set()
        # a variable -> the config class of its `get_kwargs(Class)` (`cls`: the method's own)
        self.kwargs_of: dict[str, str] = {}
        # (variable, field) -> the action set on the field's kwargs: `v["f"]["action"] = ...`
        self.actions: dict[tuple[str, str], str] = {}
        # a loop variable -> the strings of a literal list it runs over (`for arg, type in
        # [("--guided-decoding-backend", str), ...]: group.add_argument(arg, ...)`)
        self.looped: dict[str, list[str]] = {}
        nodes = [node for function in functions for node in ast.walk(function)]
        for node in nodes:
            self._note(node, cls)
        for node in nodes:
            if isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
                self._every_field(node.iter)
            elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith(".add_argument"):
                self._add_argument(node)

    def _note(self, node: ast.AST, cls: str) -> None:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if (
                isinstance(target, ast.Name)
                and isinstance(value, ast.Call)
                and value.args
                and ast.unparse(value.func).split(".")[-1] == "get_kwargs"
            ):
                named = ast.unparse(value.args[0])
                self.kwargs_of[target.id] = cls if named == "cls" else named.split(".")[-1]
            if (
                isinstance(target, ast.Subscript)
                and _constant(target.slice) == "action"
                and isinstance(target.value, ast.Subscript)
                and isinstance(target.value.value, ast.Name)
                and isinstance(_constant(target.value.slice), str)
            ):
                field = str(_constant(target.value.slice))
                self.actions[(target.value.value.id, field)] = ast.unparse(value)
        if isinstance(node, ast.For) and isinstance(node.iter, (ast.List, ast.Tuple)):
            first = node.target.elts[0] if isinstance(node.target, ast.Tuple) else node.target
            if isinstance(first, ast.Name):
                items = [e.elts[0] if isinstance(e, ast.Tuple) else e for e in node.iter.elts]
                self.looped[first.id] = [str(_constant(i)) for i in items if _string(i)]

    def _every_field(self, loop: ast.Call) -> None:
        """`for key, value in frontend_kwargs.items(): group.add_argument(f"--{key...}")`."""
        owner = loop.func.value if isinstance(loop.func, ast.Attribute) else None
        variable = owner.id if isinstance(owner, ast.Name) else ""
        cls = self.kwargs_of.get(variable)
        if cls is None:
            return
        for field, annotation in self.classes.fields(cls).items():
            option = "--" + field.replace("_", "-")
            self.flags.add(option)
            action = self.actions.get((variable, field))
            if _negatable(action) if action is not None else is_boolean(annotation):
                self.flags.update(_negations([option], self.pairing))

    def _add_argument(self, call: ast.Call) -> None:
        options = [str(_constant(a)) for a in call.args if _string(a)]
        for arg in call.args:
            if isinstance(arg, ast.Name):
                options += self.looped.get(arg.id, [])
        options = [o for o in options if o.startswith("-")]
        if not options:
            return
        self.flags.update(options)
        action = next((k.value for k in call.keywords if k.arg == "action"), None)
        if action is not None:
            negatable = _negatable(action)
        else:
            spread = [k.value for k in call.keywords if k.arg is None]
            negatable = any(self._spread_negatable(value) for value in spread)
        if negatable:
            self.flags.update(_negations(options, self.pairing))

    def _spread_negatable(self, value: ast.expr) -> bool:
        """Whether `**value` makes the argument a BooleanOptionalAction: `**v["field"]` of a
        boolean field, or `**{**v["field"], "action": ...}`."""
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values, strict=True):
                if key is not None and _constant(key) == "action":
                    return _negatable(item)
            return any(
                self._spread_negatable(item)
                for key, item in zip(value.keys, value.values, strict=True)
                if key is None
            )
        if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
            return False
        variable, field = value.value.id, _constant(value.slice)
        cls = self.kwargs_of.get(variable)
        if cls is None or not isinstance(field, str):
            return False
        action = self.actions.get((variable, field))
        if action is not None:
            return _negatable(action)
        annotation = self.classes.fields(cls).get(field)
        return annotation is not None and is_boolean(annotation)


def _constant(node: ast.expr) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _string(node: ast.expr) -> bool:
    return isinstance(_constant(node), str)


def serve_flags(sources: Sources) -> tuple[set[str], set[str], set[str]]:
    """(the engine's flags, the frontend's flags that are not the engine's, and those `vllm
    serve`'s subcommand adds to the parser `make_arg_parser` makes: `--grpc` in 0.19)."""
    config = [sources.tree(p) for p in sources.matching(_CONFIG)]
    entrypoints = {p: sources.tree(p) for p in sources.matching(_ENTRYPOINTS)}
    classes = Classes(config + list(entrypoints.values()))
    pairing = any(_PAIRING in sources.texts[p] for p in sources.matching(_UTILS))
    arg_utils = sources.tree("vllm/engine/arg_utils.py")
    engine: set[str] = set()
    for cls in ("EngineArgs", "AsyncEngineArgs"):
        function = _function(arg_utils, cls, "add_cli_args")
        if function is not None:
            engine |= _Reader([function], classes, pairing, cls).flags
    serve = entrypoints["vllm/entrypoints/cli/serve.py"]
    (module,) = {
        node.module
        for node in ast.walk(serve)
        if isinstance(node, ast.ImportFrom)
        and node.module is not None
        and any(alias.name == "make_arg_parser" for alias in node.names)
    }
    tree = entrypoints[module.replace(".", "/") + ".py"]
    maker = _function(tree, None, "make_arg_parser")
    if maker is None:
        raise ValueError(f"{module} defines no make_arg_parser")
    frontend = _Reader([maker], classes, pairing, "").flags
    # FrontendArgs.add_cli_args (its own or its base's: `cls` is FrontendArgs), with the
    # actions `_customize_cli_kwargs` sets on its fields' kwargs
    owners = ("FrontendArgs", "BaseFrontendArgs")
    methods = [_function(tree, owner, "add_cli_args") for owner in owners]
    customize = [_function(tree, owner, "_customize_cli_kwargs") for owner in owners]
    adding = next((m for m in methods if m is not None), None)
    if adding is not None:
        functions = [adding, *(c for c in customize if c is not None)]
        frontend |= _Reader(functions, classes, pairing, "FrontendArgs").flags
    init = _function(serve, "ServeSubcommand", "subparser_init")
    subcommand = _Reader([init], classes, pairing, "").flags if init is not None else set()
    return engine, frontend - engine, subcommand - frontend - engine
