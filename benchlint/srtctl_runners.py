"""What the benchmark runners of an srt-slurm tree's own srtctl require of a recipe, read from
their `validate_config` and the recipe schema's defaults.

srtctl runs a runner's `validate_config(config)` only once the workers are up and healthy
(`benchmark_stage.py`, `do_sweep.py` before it): a recipe it rejects there ends its job
having held the allocation and measured nothing ("router benchmark requires
frontend.use_sglang_router: true"). The function is Python; this reads the shapes srtctl's
runners are written in and says "not known" for any other:

- `errors = []`, `errors.append("...")`, `return errors`, `return []`, `return ["..."]`;
- `b = config.benchmark`, and `if`/`elif`/`else` on a test of the recipe's values:
  `not X`, `X is None`, `X is not None`, `X == "lit"`, `X != "lit"`, `X <= 0` (and the other
  comparisons with a number), `and`, `or`, `getattr(b, "field", default)`;
- `for field in ("num_examples", "max_tokens"):` over a tuple or list of literals, each in
  turn (`getattr(b, field, None)`; an f-string's `{field}` put in its message); not a set
  (its order is its strings' hashes') nor a loop with `break`, `continue` or `else`;
- a value is the recipe's, else the default its schema's dataclass gives the field
  (`use_sglang_router: bool = False`); a class with a hook that may change what was read
  (`__post_init__`, marshmallow's `pre_load`, `post_load`) gives none: not known.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchlint.source import SourceText
    from benchlint.yamlmodel import YNode

UNKNOWN = object()  # a value, or a test, this model cannot tell
_MISSING = object()  # a field the recipe does not give and its schema gives no default
_RENAMED = object()  # a field whose YAML key its metadata may rename (marshmallow's data_key)


@dataclass
class Schema:
    """The recipe schema's dataclasses: for each, its fields' defaults (a literal) or the class
    a field holds (`frontend: FrontendConfig = field(default_factory=FrontendConfig)`)."""

    defaults: dict[str, dict[str, Any]] = field(default_factory=dict)
    nested: dict[str, dict[str, str]] = field(default_factory=dict)
    hooked: set[str] = field(default_factory=set)  # classes whose values a hook may change
    # benchmark types whose check is not read: registered twice, or with no check of its own
    unread: set[str] = field(default_factory=set)
    # every benchmark type a module under `srtctl/benchmarks/` registers, as a decorator or a
    # call (`register_benchmark(name="lm-eval")(Runner)`), read from its code, not a docstring
    registered: set[str] = field(default_factory=set)
    # a registration whose name is not a literal (`register_benchmark(NAME)`): the types
    # registered are not all known (h106 F7)
    unnamed: bool = False


@dataclass(frozen=True)
class Runner:
    """A registered benchmark runner's `validate_config`, with the name of its config
    parameter."""

    name: str
    check: ast.FunctionDef
    config: str
    path: str  # (the module that defines it)


def read(sources: list[SourceText]) -> tuple[Schema, dict[str, Runner]]:
    """The schema and the runners (by the type they are registered under) of srtctl's
    source."""
    schema = Schema()
    runners: dict[str, Runner] = {}
    for source in sources:
        text = source.text
        if "class SrtConfig" not in text and "register_benchmark" not in text:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if "srtctl/benchmarks/" in source.path:
            for call in ast.walk(tree):
                name = _registered_name(call) if isinstance(call, ast.expr) else None
                if name is not None:
                    schema.registered.add(name)
                elif isinstance(call, ast.Call) and _callee(call) == "register_benchmark":
                    schema.unnamed = True
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                _read_class(node, schema, runners, source.path)
    return schema, runners


def _read_class(node: ast.ClassDef, schema: Schema, runners: dict[str, Runner], path: str) -> None:
    registered = [_registered_name(d) for d in node.decorator_list]
    names = [n for n in registered if n is not None]
    if names:
        check = next(
            (
                f
                for f in node.body
                if isinstance(f, ast.FunctionDef) and f.name == "validate_config"
            ),
            None,
        )
        for name in names:
            if name in runners or name in schema.unread:
                # (registered by two modules: which one srtctl imports is not read)
                schema.unread.add(name)
                runners.pop(name, None)
            elif check is not None and len(check.args.args) == 2:
                runners[name] = Runner(name, check, check.args.args[1].arg, path)
            else:
                schema.unread.add(name)  # (no check of its own: inherited, not read)
        return
    if not any(_is_dataclass(d) for d in node.decorator_list):
        return
    if node.name in schema.defaults:
        schema.hooked.add(node.name)  # (two classes of the name: which one is used, not read)
    defaults: dict[str, Any] = {}
    nested: dict[str, str] = {}
    if node.bases:
        schema.hooked.add(node.name)  # (a base class's fields, defaults and hooks: not read)
    elif any(
        _hook(d) for f in node.body if isinstance(f, ast.FunctionDef) for d in f.decorator_list
    ):
        schema.hooked.add(node.name)  # (marshmallow's hooks: they change the data read)
    elif any(_sets_self(f) for f in node.body if isinstance(f, ast.FunctionDef)):
        schema.hooked.add(node.name)  # (`object.__setattr__(self, ...)` in `__post_init__`)
    for item in node.body:
        if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
            continue
        name = item.target.id
        value = item.value
        if isinstance(value, ast.Call) and _callee(value) == "field":
            given = {k.arg: k.value for k in value.keywords}
            if "default_factory" in given and isinstance(given["default_factory"], ast.Name):
                nested[name] = given["default_factory"].id
                continue
            value = given.get("default")
            if "metadata" in given:  # (`data_key`: another name in the YAML, not read)
                defaults[name] = _RENAMED
                continue
        if value is None:
            defaults[name] = _MISSING
        elif isinstance(value, ast.Constant):
            defaults[name] = value.value
        else:
            defaults[name] = UNKNOWN
    schema.defaults[node.name] = defaults
    schema.nested[node.name] = nested


def _sets_self(function: ast.FunctionDef) -> bool:
    """Whether a method may change a field of the object: `self.x = ...`, `setattr(self,
    ...)`, `object.__setattr__(self, ...)` (a frozen dataclass's `__post_init__` that only
    checks, raising, changes nothing)."""
    for node in ast.walk(function):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(
                isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == "self"
                for t in targets
            ):
                return True
        if isinstance(node, ast.Call) and _callee(node) in ("setattr", "__setattr__"):
            return True
    return False


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def _registered_name(decorator: ast.expr) -> str | None:
    if not isinstance(decorator, ast.Call) or _callee(decorator) != "register_benchmark":
        return None
    given = [*decorator.args[:1], *(k.value for k in decorator.keywords if k.arg == "name")]
    for value in given:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return None


def _is_dataclass(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")) in (
        "dataclass",
        "dataclasses",
    )


def _hook(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
    return name in ("pre_load", "post_load", "validates_schema", "post_dump")


@dataclass(frozen=True)
class _Part:
    """A part of the config: its schema class, and the recipe's mapping for it (None: the
    recipe gives none, so every field is its default)."""

    kind: str
    node: YNode | None


class _Unknown(Exception):
    """The function does something this model does not read."""


def errors(runner: Runner, schema: Schema, recipe: YNode) -> list[str] | None:
    """The errors the runner's `validate_config` returns for the recipe (its top-level
    mapping), or None where that is not known."""
    scope: dict[str, Any] = {runner.config: _Part("SrtConfig", recipe)}
    try:
        returned = _run(runner.check.body, scope, schema)
    except (_Unknown, RecursionError):
        return None
    return [] if returned is None else returned  # (no `return`: None, which passes)


class _Messages(list[str]):
    """A list the function makes (`errors = []`) and appends messages to: each its own (a
    `notes = []` beside it is not what the function returns)."""


def _run(body: list[ast.stmt], scope: dict[str, Any], schema: Schema) -> Any:
    """Run statements; the list a `return` gives, else None (fell off the end)."""
    for statement in body:
        if isinstance(statement, ast.Expr):
            value = statement.value
            if isinstance(value, ast.Constant):
                continue  # (a docstring)
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr == "append"
                and isinstance(value.func.value, ast.Name)
                and isinstance(scope.get(value.func.value.id), _Messages)
                and len(value.args) == 1
            ):
                scope[value.func.value.id].append(_message(value.args[0], scope))
                continue
            raise _Unknown
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if len(targets) != 1 or not isinstance(targets[0], ast.Name) or statement.value is None:
                raise _Unknown
            value_node = statement.value
            if isinstance(value_node, ast.List) and not value_node.elts:
                scope[targets[0].id] = _Messages()
            else:
                scope[targets[0].id] = _value(value_node, scope, schema)
            continue
        if isinstance(statement, ast.If):
            test = _truth(statement.test, scope, schema)
            if test is UNKNOWN:
                raise _Unknown
            returned = _run(statement.body if test else statement.orelse, scope, schema)
            if returned is not None:
                return returned
            continue
        if isinstance(statement, ast.Return):
            returned_node = statement.value
            if isinstance(returned_node, ast.Name) and isinstance(
                scope.get(returned_node.id), _Messages
            ):
                return list(scope[returned_node.id])
            if isinstance(returned_node, ast.List):
                return [_message(e, scope) for e in returned_node.elts]
            raise _Unknown
        if isinstance(statement, ast.For):  # (`for field in ("num_examples", ...)`)
            items = _value(statement.iter, scope, schema)
            target = statement.target
            if statement.orelse or not isinstance(target, ast.Name) or not isinstance(items, tuple):
                raise _Unknown  # (a set's order is its hashes': which message comes first)
            for item in items:
                scope[target.id] = item
                returned = _run(statement.body, scope, schema)
                if returned is not None:
                    return returned
            continue
        if isinstance(statement, ast.Pass):
            continue
        raise _Unknown
    return None


def _message(node: ast.expr, scope: dict[str, Any]) -> str:
    """An error's text: a string, or an f-string with the values of names that hold a string
    or a number put in (a loop's `{field}`, a recipe's `{workload}`), the others left as
    written (`{valid}`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(p.value) if isinstance(p, ast.Constant) else _formatted(p, scope)
            for p in node.values
            if isinstance(p, (ast.Constant, ast.FormattedValue))
        )
    raise _Unknown


def _formatted(part: ast.FormattedValue, scope: dict[str, Any]) -> str:
    """An f-string's `{name}`: the name's string or number as `str` gives it; as written where
    it holds anything else, or has a conversion or a format."""
    node = part.value
    held = scope.get(node.id) if isinstance(node, ast.Name) else None
    plain = part.conversion == -1 and part.format_spec is None
    if plain and isinstance(held, float) and held.is_integer():
        held = int(held)  # (an int field makes `-5.0` -5, as srtctl says it: h31)
    if plain and isinstance(held, (str, int)) and not isinstance(held, bool):
        return str(held)  # (not a fraction: the schema's field may make it another number)
    return "{" + ast.unparse(node) + "}"


def _value(node: ast.expr, scope: dict[str, Any], schema: Schema) -> Any:
    """A Python value; a `_Part` of the config; UNKNOWN."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in scope:
            raise _Unknown
        return scope[node.id]
    if isinstance(node, ast.Attribute):
        return _attribute(_value(node.value, scope, schema), node.attr, schema, _MISSING)
    if isinstance(node, ast.BoolOp):  # (`x or "conversation"`: the value that decides)
        last: Any = None
        for operand in node.values:
            last = _value(operand, scope, schema)
            if last is UNKNOWN or isinstance(last, _Part):
                raise _Unknown
            if bool(last) == isinstance(node.op, ast.Or):
                return last
        return last
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        items = [_value(e, scope, schema) for e in node.elts]
        if any(i is UNKNOWN or isinstance(i, (_Part, list)) for i in items):
            raise _Unknown
        return tuple(items) if not isinstance(node, ast.Set) else frozenset(items)
    if isinstance(node, ast.Compare) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    ):
        truth = _truth(node, scope, schema)
        if truth is UNKNOWN:
            raise _Unknown
        return truth
    if (
        isinstance(node, ast.Call)
        and _callee(node) == "getattr"
        and isinstance(node.func, ast.Name)
    ):
        args = node.args
        name = _value(args[1], scope, schema) if len(args) in (2, 3) else None
        if isinstance(name, str):  # (`getattr(b, "workload", None)`, a loop's `field`)
            default = _value(args[2], scope, schema) if len(args) == 3 else _MISSING
            return _attribute(_value(args[0], scope, schema), name, schema, default)
    raise _Unknown


def _attribute(holder: Any, name: str, schema: Schema, default: Any) -> Any:
    """A field of a part of the config: the recipe's value, else the schema's default."""
    if not isinstance(holder, _Part):
        raise _Unknown
    kind, node = holder.kind, holder.node
    if kind in schema.hooked or kind not in schema.defaults:
        raise _Unknown
    if schema.defaults[kind].get(name) is _RENAMED:
        raise _Unknown
    given = node.get(name) if node is not None and node.is_map else None
    if name in schema.nested.get(kind, {}):
        if given is not None and not given.is_map:
            raise _Unknown
        return _Part(schema.nested[kind][name], given)
    if given is not None:
        if given.is_seq:  # (a list: what its items become is not read, only that it has some)
            return [UNKNOWN] * len(given.items)
        if not given.is_scalar:
            raise _Unknown
        return given.scalar
    value = schema.defaults[kind].get(name, default)
    if value is _MISSING or value is UNKNOWN or value is _RENAMED:
        raise _Unknown
    return value


def _coerced(text: Any, other: Any) -> bool:
    """Whether a string of the recipe is compared with a number or a boolean, which the schema's
    field may have made of it; or a fraction, which an `int` field truncates (`num_shots: -0.5`
    loads as 0: h30)."""
    if isinstance(text, float) and not text.is_integer():
        return True
    return isinstance(text, str) and isinstance(other, (bool, int, float))


_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def _truth(node: ast.expr, scope: dict[str, Any], schema: Schema) -> Any:
    """True, False or UNKNOWN."""
    try:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = _truth(node.operand, scope, schema)
            return UNKNOWN if inner is UNKNOWN else not inner
        if isinstance(node, ast.BoolOp):
            values = [_truth(v, scope, schema) for v in node.values]
            wanted = isinstance(node.op, ast.Or)  # (the value that decides)
            if wanted in values:
                return wanted
            return UNKNOWN if UNKNOWN in values else not wanted
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left = _value(node.left, scope, schema)
            right = _value(node.comparators[0], scope, schema)
            op = node.ops[0]
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (frozenset, tuple)):
                if left is UNKNOWN or isinstance(left, (_Part, list, tuple, frozenset)):
                    return UNKNOWN
                if any(_coerced(left, r) for r in right):
                    return UNKNOWN  # (marshmallow may make `"8"` 8: not decided)
                return (left in right) == isinstance(op, ast.In)
            if _coerced(left, right) or _coerced(right, left):
                return UNKNOWN  # (marshmallow may make `"8"` 8, `"false"` False: not decided)
            if any(
                v is UNKNOWN or isinstance(v, (_Part, list, tuple, frozenset))
                for v in (left, right)
            ):
                if isinstance(left, list) and right is None:  # (`b.concurrencies is None`)
                    return isinstance(node.ops[0], ast.IsNot)
                return UNKNOWN
            op = node.ops[0]
            if isinstance(op, (ast.Is, ast.IsNot)):
                if right is not None:
                    return UNKNOWN
                return (left is None) == isinstance(op, ast.Is)
            compare = _COMPARE.get(type(op))
            if compare is None:
                return UNKNOWN
            if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) and not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)
            ):
                return UNKNOWN  # (marshmallow may turn "8" into 8: not decided here)
            return bool(compare(left, right))
        value = _value(node, scope, schema)
        if value is UNKNOWN or isinstance(value, _Part):
            return UNKNOWN
        return bool(value)  # (a list: whether it has items)
    except _Unknown:
        return UNKNOWN
