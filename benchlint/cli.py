"""The command line: `benchlint [PATHS]`, `benchlint rules`, `benchlint rule ID`.

Exit codes: 0 nothing at or above --fail-on, 1 findings, 2 usage, configuration or internal error.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from benchlint import __version__, fixes
from benchlint.cache import Cache
from benchlint.config import (
    Config,
    ConfigError,
    find_config,
    find_root,
    is_repository,
    load_config,
    parse_size,
)
from benchlint.engine import STANDALONE_ENTRIES, lint
from benchlint.finding import Finding, Severity
from benchlint.layout import Fact
from benchlint.registry import Selection, all_rules, expand_selectors, get_rule
from benchlint.report import FORMATS, renderer
from benchlint.result import Result, counted
from benchlint.suppress import baseline_fingerprints, new_since
from benchlint.workspace import TooManyFiles, Workspace

if TYPE_CHECKING:  # (the models: loaded by the commands that read them, `lint` only to lint)
    from benchlint.wiring import Entry

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _DefaultToLint(click.Group):
    """`benchlint PATHS...` means `benchlint lint PATHS...`. Errors that are not findings exit 2
    with one line: a configuration mistake, or an internal error (its traceback only with
    `--debug` or BENCHLINT_DEBUG=1)."""

    debug = False

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        end = args.index("--") if "--" in args else len(args)
        # (each run's own: a process that runs several, as the tests do, must not keep it)
        _DefaultToLint.debug = "--debug" in args[:end]
        if _DefaultToLint.debug:
            args = [a for i, a in enumerate(args) if i >= end or a != "--debug"]
        # `benchlint --no-config explain ENTRY`, `benchlint --format json explain ENTRY`: the
        # command after options (and their values), not a path to lint; the command then says
        # whether it takes them
        first = self._first_word(args[:end])
        if (
            first
            and args[first] in self.commands
            and not Path(args[first]).exists()
            and not {"--version", "--help", "-h"} & set(args[:first])
        ):
            args = [args[first], *args[:first], *args[first + 1 :]]
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "--version")):
            args = ["lint", *args]
        return super().parse_args(ctx, args)

    def _first_word(self, args: list[str]) -> int | None:
        """Where the first word that is neither an option nor an option's value is."""
        takes_value = self._value_options()
        skip = False
        for i, arg in enumerate(args):
            if skip:
                skip = False
            elif arg.startswith("-"):
                skip = arg in takes_value
            else:
                return i
        return None

    def _value_options(self) -> set[str]:
        """lint's options that take a value (`--format`, `-o`): the word after one is its value."""
        lint = self.commands.get("lint")
        return {
            name
            for param in (lint.params if lint is not None else [])
            if isinstance(param, click.Option) and not param.is_flag
            for name in param.opts
        }

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The group's options, the default command's (lint's) options, then the commands."""
        super().format_options(ctx, formatter)
        lint = self.commands.get("lint")
        if lint is None:
            return
        rows = [
            row
            for param in lint.get_params(ctx)
            if isinstance(param, click.Option)
            and (row := param.get_help_record(ctx)) is not None
            and "--help" not in row[0]
        ]
        with formatter.section("Lint options (benchlint [OPTIONS] [PATHS]...)"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ConfigError as exc:
            _fail(str(exc))
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except BrokenPipeError:
            raise  # the reader went away (`benchlint layout | head`): click ends quietly
        except Exception as exc:
            import traceback  # (only here: a run that ends well never needs it)

            if self.debug or os.environ.get("BENCHLINT_DEBUG"):
                traceback.print_exc()
            where = traceback.extract_tb(exc.__traceback__)[-1]
            _fail(
                f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())} "
                f"(at {Path(where.filename).name}:{where.lineno}; --debug shows the traceback)"
            )


@click.group(cls=_DefaultToLint, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="benchlint")
def main() -> None:
    """Static analysis for LLM-inference benchmark launchers, recipes and master configs.

    `lint` is the default command: `benchlint [PATHS]...` is `benchlint lint [PATHS]...`, with
    the lint options below. `--debug` before any command shows the traceback of an internal
    error.
    """


def _split(values: tuple[str, ...]) -> list[str]:
    return [part for value in values for part in value.split(",") if part.strip()]


def _since_baseline(
    findings: list[Finding], known: dict[str, frozenset[str] | None]
) -> list[Finding]:
    """The findings the baseline does not have, and those it has that now cover more (a recipe
    more that runs the probe), with a note naming what is new."""
    kept = []
    for finding in findings:
        new = new_since(finding, known)
        if new:
            shown = ", ".join(new[:3]) + (f" and {len(new) - 3} more" if len(new) > 3 else "")
            finding.notes = (*finding.notes, f"new since the baseline: {shown}")
        if new is None or new:
            kept.append(finding)
    return kept


def _fail(message: str) -> None:
    click.echo(f"benchlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _load(config_file: Path | None, no_config: bool, start: Path) -> Config:
    if no_config:
        return Config()
    path = config_file or find_config(start)
    if path is None:
        return Config()
    try:
        return load_config(path)
    except ConfigError as exc:
        _fail(str(exc))
        raise AssertionError from exc  # unreachable: _fail exits


def _standalone(config: Config, root: Path, root_given: bool) -> bool:
    """No repository around the paths: no `--root`, no configuration file, no `.git` (nor
    `.github/workflows`)."""
    return not root_given and config.path is None and not is_repository(root)


def _setup(
    named: list[Path], config_file: Path | None, no_config: bool, root: Path | None
) -> tuple[Config, Path]:
    """The configuration and repository root for the paths named; exits 2 on a bad one."""
    for path in named:
        if not path.exists() and not path.is_symlink():
            _fail(f"{path}: no such file or directory")
    if config_file is not None and not config_file.is_file():
        _fail(f"{config_file}: configuration file not found")
    if root is not None and not root.is_dir():
        _fail(f"{root}: no such folder (--root)")
    start = named[0].resolve()
    config = _load(config_file, no_config, start)
    if root is None:
        root = find_root(start, config.path or find_config(start))
    root = root.resolve()
    for path in named:
        if not path.resolve().is_relative_to(root):
            _fail(f"{path}: is outside the repository root {root}")
    return config, root


def _report(result: Result, output_format: str, cache: Cache | None) -> str:
    """The report. A result the run cache holds is rendered once per format, folder, colour and
    whether unsafe fixes are shown (`[*]`): a later run answered by the same entry prints what
    was rendered then (rendering SARIF loads its object model, a third of a warm run). `cache`:
    None when the report is not the result's alone (a baseline filtered it)."""
    if cache is None or result.stored is None:
        return renderer(output_format)(result)
    options = f"{output_format}\0{result.cwd}\0{result.color}\0{result.unsafe_fixes}"
    kept = cache.get("report", options, result.stored)
    if isinstance(kept, str):
        return kept
    report = renderer(output_format)(result)
    cache.put("report", options, result.stored, report)
    return report


@main.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(sorted(FORMATS)),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the report here.")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour in the text report (auto: on a terminal, unless NO_COLOR is set).",
)
@click.option(
    "--select", multiple=True, help="Only these rules (IDs or prefixes, comma-separated)."
)
@click.option("--ignore", multiple=True, help="Skip these rules (IDs or prefixes).")
@click.option(
    "--fail-on",
    type=click.Choice([s.value for s in Severity]),
    help="Lowest severity that makes the exit code 1 [default: warning].",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option(
    "--config", "config_file", type=click.Path(path_type=Path), help="Configuration file."
)
@click.option("--no-config", is_flag=True, help="Ignore configuration files.")
@click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Repository root [default: the configuration's folder, else the git root].",
)
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Report only findings not in this earlier JSON or SARIF report.",
)
@click.option(
    "--show-unused-suppressions",
    is_flag=True,
    help="Report inline suppressions that suppress nothing (turns on BL003).",
)
@click.option(
    "--fix", "apply_fixes", is_flag=True, help="Apply the safe fixes, then report what is left."
)
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help="Apply and show the unsafe fixes too (those that change what runs) [default: the "
    "configuration's unsafe-fixes, else no].",
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Print the fixes as a unified diff instead of the report; change nothing "
    "(exit 1 when there is one).",
)
@click.option(
    "--statistics", is_flag=True, help="Print findings per rule, files read and time to stderr."
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Neither read nor write the cache (.benchlint_cache/ in the repository root, or "
    "BENCHLINT_CACHE_DIR; safe to delete).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    help="Processes a whole-repository run may parse YAML in [default: the CPUs available].",
)
@click.option(
    "--max-file-size",
    metavar="SIZE",
    help="Do not lint files larger than this (master configs aside; the run lists them): bytes, "
    "or 500KB, 2MiB; 0 for no limit [default: the configuration's max-file-size, else 1MiB].",
)
def lint_command(
    paths: tuple[Path, ...],
    output_format: str,
    output: Path | None,
    color: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    fail_on: str | None,
    exit_zero: bool,
    config_file: Path | None,
    no_config: bool,
    root: Path | None,
    baseline: Path | None,
    show_unused_suppressions: bool,
    apply_fixes: bool,
    unsafe_fixes: bool | None,
    show_diff: bool,
    statistics: bool,
    no_cache: bool,
    jobs: int | None,
    max_file_size: str | None,
) -> None:
    """Lint PATHS (default: the current directory), reading the whole repository for context."""
    started = time.perf_counter()
    named = list(paths) or [root or Path(".")]  # (`--root TREE` alone: the whole of it)
    root_option = root
    config, root = _setup(named, config_file, no_config, root)
    if max_file_size is not None:
        try:
            config.max_file_size = parse_size(max_file_size, "--max-file-size")
        except ConfigError as exc:
            _fail(str(exc))
    try:
        given = expand_selectors(_split(select)) if _split(select) else None
        dropped = expand_selectors(_split(ignore))
    except ValueError as exc:
        _fail(str(exc))
        return
    # the configuration's, said with its file and key
    listed = [("select", config.select), ("ignore", config.ignore)]
    listed += [(f"per-file-ignores {g!r}", r) for g, r in config.per_file_ignores.items()]
    expanded = {}
    for key, selectors in listed:
        try:
            expanded[key] = expand_selectors(selectors)
        except ValueError as exc:
            _fail(f"{config.path or 'configuration'}: {key}: {exc}")
            return
    dropped |= expanded["ignore"]
    chosen = given if given is not None else (expanded["select"] if config.select else None)
    known: dict[str, frozenset[str] | None] = {}
    if baseline is not None:
        try:
            known = baseline_fingerprints(baseline)
        except ValueError as exc:
            _fail(str(exc))
    added = frozenset({"BL003"} if show_unused_suppressions else ())
    selection = Selection(
        frozenset(chosen) if chosen is not None else None, frozenset(dropped), added
    )
    standalone = _standalone(config, root, root_option is not None)
    unsafe = config.unsafe_fixes if unsafe_fixes is None else unsafe_fixes
    with _collector_paused():
        cache = None if no_cache else Cache.default(None if standalone else root)
        try:
            result = lint(
                root, config, selection, named, cache=cache, standalone=standalone, jobs=jobs
            )
        except TooManyFiles:
            _fail(
                f"{root} is not inside a repository (no .git, no configuration file) and holds "
                f"more than {STANDALONE_ENTRIES} files: name the files to lint, or pass "
                f"--root {root} to lint them all"
            )
            return
        if baseline is not None:
            if any(f.involves and known.get(f.fingerprint, ()) is None for f in result.findings):
                click.echo(
                    f"benchlint: warning: {baseline} does not list what its findings cover (a "
                    "report of benchlint before 0.7.8): a finding it has that now covers more "
                    "(one recipe more) is not reported; write the baseline again",
                    err=True,
                )
            result.findings = _since_baseline(result.findings, known)
        result.cwd = Path.cwd().resolve()
        result.unsafe_fixes = unsafe
        if show_diff:
            sys.exit(_print_diff(result))
        if apply_fixes and _apply_fixes(result):  # then lint again: report what is left
            result = lint(
                root, config, selection, named, cache=cache, standalone=standalone, jobs=jobs
            )
            if baseline is not None:
                result.findings = _since_baseline(result.findings, known)
            result.cwd = Path.cwd().resolve()
            result.unsafe_fixes = unsafe
        result.color = _use_color(color, output)
        report = _report(result, output_format, cache if not known else None)
        if output is not None:
            try:
                output.write_text(report, encoding="utf-8")
            except OSError as exc:
                _fail(f"{output}: cannot be written: {exc.strerror}")
        else:
            click.echo(report, nl=False, color=result.color)  # click strips ANSI codes otherwise
        for warning in result.shown_warnings():
            click.echo(f"benchlint: warning: {warning}", err=True)
        if statistics:
            _print_statistics(result, time.perf_counter() - started)
        if result.errors:
            debug = _DefaultToLint.debug or os.environ.get("BENCHLINT_DEBUG")
            for error in result.errors:
                click.echo(
                    f"benchlint: internal error in {error.rule}: {error.message}"
                    + ("" if debug else " (--debug shows the traceback)"),
                    err=True,
                )
                if debug and error.trace:
                    click.echo(error.trace.rstrip(), err=True)
            sys.exit(EXIT_ERROR)
        threshold = Severity(fail_on) if fail_on else config.fail_on
        failing = [f for f in result.findings if result.severity(f).rank >= threshold.rank]
        sys.exit(EXIT_FINDINGS if failing and not exit_zero else EXIT_OK)


def _fix_plan(result: Result) -> tuple[fixes.Plan, dict[str, tuple[str, str]]]:
    """The fixes of the reported findings, and each touched file's text before and after."""
    unparsed = set(result.workspace.failures) if result.workspace is not None else set()
    chosen = fixes.plan(result.findings, unparsed, unsafe=result.unsafe_fixes)
    texts = {}
    for path in chosen.files():
        source = result.source(path)
        if source is not None:
            texts[path] = (source.text, fixes.apply(source, chosen.edits[path]))
    return chosen, texts


def _print_diff(result: Result) -> int:
    chosen, texts = _fix_plan(result)
    shown = [fixes.diff(path, before, after) for path, (before, after) in texts.items()]
    click.echo("".join(shown), nl=False)
    _say_hidden(chosen)
    return EXIT_FINDINGS if any(shown) else EXIT_OK


def _say_hidden(chosen: fixes.Plan) -> None:
    if chosen.hidden:
        fix = "fix" if chosen.hidden == 1 else "fixes"
        click.echo(
            f"benchlint: {chosen.hidden} unsafe {fix} not applied (they may change what runs, or "
            "throw away what was written; `--unsafe-fixes` applies them)",
            err=True,
        )


def _apply_fixes(result: Result) -> bool:
    """Write the fixes; say on stderr what changed. Whether any file was written."""
    chosen, texts = _fix_plan(result)
    written = []
    for path, (before, after) in texts.items():
        if after != before:
            try:
                fixes.write(result.root, path, after)
            except OSError as exc:
                _fail(f"{path}: cannot be written: {exc.strerror}")
            written.append(path)
    if written:
        count = len(chosen.fixed)
        click.echo(
            f"benchlint: fixed {count} finding{'s' if count != 1 else ''} in "
            f"{len(written)} file{'s' if len(written) != 1 else ''}: "
            + ", ".join(result.display(path) for path in written),
            err=True,
        )
    _say_hidden(chosen)
    return bool(written)


def _use_color(choice: str, output: Path | None) -> bool:
    """`--color`: always, never, or (auto) when the report goes to a terminal and NO_COLOR
    (https://no-color.org) is not set."""
    if choice != "auto":
        return choice == "always"
    if output is not None or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The models live as long as the run and hold few cycles: collecting while they are built,
    or while the report is rendered, costs more than half the run on a large repository. Kept
    off to the exit: the first collection after it is back on walks every object of the run
    (0.1 s on bench/bench.py's repository), which is why the console script never turns it back
    on; here it is restored to what it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _print_statistics(result: Result, seconds: float) -> None:
    counts: dict[str, int] = {}
    for finding in result.findings:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
    lines = [f"{rule.id}  {rule.name:<28} {counts.get(rule.id, 0):>6}" for rule in result.rules]
    templates = len(result.workspace.templates) if result.workspace is not None else 0
    lines.append(
        f"findings {len(result.findings)}, files read {result.files_read}, "
        f"unparsed {len(result.failures)}, templates not linted {templates}, {seconds:.2f} s"
    )
    lines.extend(f"{what}: {len(where)}" for what, where in result.undecided.items())
    if sys.platform != "win32":
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        lines.append(f"peak memory {peak} MiB")
    click.echo("\n".join(lines), err=True)


@main.command("rules")
def rules_command() -> None:
    """List every rule: ID, name, default severity and what it flags."""
    for rule in all_rules():
        click.echo(f"{rule.id}  {rule.name:<28} {rule.severity.value:<8} {rule.summary}")


@main.command("rule")
@click.argument("rule_id")
def rule_command(rule_id: str) -> None:
    """Print the documentation of one rule, by ID (BL102) or name (unguarded-lock)."""
    rule = get_rule(rule_id)
    if rule is None:
        _fail(f"unknown rule {rule_id!r}; `benchlint rules` lists them")
        return
    click.echo(f"# {rule.id} {rule.name} ({rule.severity.value})\n")
    click.echo(rule.doc)


def _report_options(command: Callable[..., None]) -> Callable[..., None]:
    """`--format text|json`, `--config`, `--no-config`, `--root`: explain's and layout's."""
    for option in reversed(
        [
            click.option(
                "--format",
                "output_format",
                type=click.Choice(["text", "json"]),
                default="text",
                show_default=True,
            ),
            click.option(
                "--config",
                "config_file",
                type=click.Path(path_type=Path),
                help="Configuration file.",
            ),
            click.option("--no-config", is_flag=True, help="Ignore configuration files."),
            click.option(
                "--root",
                type=click.Path(path_type=Path, file_okay=False),
                help="Repository root.",
            ),
        ]
    ):
        command = option(command)
    return command


@main.command("explain")
@click.argument("target")
@_report_options
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
def explain_command(
    target: str,
    output_format: str,
    config_file: Path | None,
    no_config: bool,
    root: Path | None,
    no_cache: bool,
) -> None:
    """How a recipe or a script (path), or a master-config entry (name), is reached: entries,
    runner labels, launchers, the scripts they run, the rewrites each launcher applies, and the
    effective values. Files are read through the cache's per-file facts, as a lint reads them."""
    from benchlint import context
    from benchlint.explain import (
        ExplainError,
        explain,
        recipe_alone,
        render_alone,
        render_json,
        render_text,
    )

    candidate = Path(target)
    start = candidate if candidate.exists() else (root or Path("."))
    given = root is not None
    config, root = _setup([start], config_file, no_config, root)
    here = Path(".").resolve()
    # (no repository around the file: the folder the command runs in, where it holds the file,
    # as `benchlint .` and `layout .` there read it; t81b, an extracted srt-slurm tree)
    if (
        candidate.exists()
        and _standalone(config, root, given)
        and root != here
        and candidate.resolve().is_relative_to(here)
    ):
        config, root = _setup([start], config_file, no_config, here)
    if candidate.exists():
        target = candidate.resolve().relative_to(root).as_posix()
    ws = Workspace(root, config, None if no_cache else Cache.default(root))
    ctx = context.Context(ws)
    try:
        items = explain(ctx, target)
    except ExplainError as exc:
        alone = recipe_alone(ctx, target)  # a recipe nothing routes to is still read
        if alone is None:
            rule = get_rule(target)
            hint = f" (`benchlint rule {target}` prints {rule.id}'s documentation)" if rule else ""
            _fail(str(exc) + hint)
            return
        text = (
            json.dumps(alone, indent=2) + "\n" if output_format == "json" else render_alone(alone)
        )
        click.echo(text, nl=False)
        return
    click.echo(render_json(items) if output_format == "json" else render_text(items), nl=False)
    ws.store_guard_facts()  # (a later run decodes them: no script parsed again)


@main.command("layout")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@_report_options
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
def layout_command(
    path: Path | None,
    output_format: str,
    config_file: Path | None,
    no_config: bool,
    root: Path | None,
    no_cache: bool,
) -> None:
    """What benchlint found where: master configs, the runners file, the launchers and the
    recipe roots, each with the file and line that taught it (configured settings win)."""
    config, root = _setup([path or root or Path(".")], config_file, no_config, root)
    ws = Workspace(root, config, None if no_cache else Cache.default(root))
    ws.recipe_roots  # noqa: B018 - worked out on first use; its facts join the others
    facts = ws.detected.facts
    notes = []  # what was looked for and not found
    if any(f.kind == "master config" for f in facts):
        facts = [*facts, _workflows_fact(ws), *_call_facts(ws)]
    else:
        notes.append(
            "no master config: no YAML file here holds entries with a runner and a search space"
        )
        facts = [*facts, *_call_facts(ws)]
    if facts and not any(f.kind == "launchers" for f in facts) and ws.layout.master_configs:
        default = ws.layout.launcher_templates[0] if ws.layout.launcher_templates else ""
        notes.append(
            "no launchers detected: no workflow runs a script by a path built from the "
            "runner's name (`launch_${RUNNER_NAME%%_*}.sh`), nor one named after a runner label "
            f"of the entries (`launch_<label>.sh`); the default, `{default}`, is taken"
        )
    if not any(f.kind == "recipe root" for f in facts):
        notes.append(
            "no recipe root: no launcher copies a folder of recipes, no usual recipe folder "
            "exists, and this is no srt-slurm tree"
        )
    if output_format == "json":
        data = [
            {
                "kind": f.kind,
                "value": f.value,
                "detail": f.detail,
                "configured": f.configured,
                "more": f.more,
                "source": (
                    {"path": f.source.path, "line": f.source.span.line} if f.source else None
                ),
            }
            for f in facts
        ]
        click.echo(json.dumps({"root": str(root), "facts": data, "notes": notes}, indent=2))
        return
    for line in [*(fact.describe() for fact in facts), *notes]:
        click.echo(line)


def _workflows_fact(ws: Workspace) -> Fact:
    """The workflows entries are routed through (`layout.workflows`): a step that runs a
    launcher in another one is not followed, and the run says so."""
    patterns = ws.config.layout.workflows
    found = ws.glob(patterns)
    shown = ", ".join(found[:6]) + (f" and {len(found) - 6} more" if len(found) > 6 else "")
    detail = f"{len(found)} {'file' if len(found) == 1 else 'files'}" + (
        f" ({shown})" if found else ""
    )
    configured = "workflows" in ws.config.layout_keys
    return Fact("workflows", " ".join(patterns), detail, None, configured)


def _call_facts(ws: Workspace) -> list[Fact]:
    """The workflow calls taken as entries (all of them where no master config is; beside
    master configs, those whose runner is written out): one fact per workflow they call, and
    how their labels were followed to launchers without a runners file."""
    from benchlint.context import wiring_of

    wiring = wiring_of(ws)
    calls: dict[str, list[Entry]] = {}
    for entry in wiring.entries:
        if entry.step is not None:
            calls.setdefault(entry.step.workflow, []).append(entry)
    facts = []
    for workflow, entries in calls.items():
        labels = sorted({e.runner for e in entries if e.runner})
        unrouted = [c for c in wiring.unrouted_calls if c.called == workflow]
        calls_ = "call" if len(entries) == 1 else "calls"
        detail = f"{len(entries)} {calls_} with a known runner (labels {', '.join(labels)})"
        if unrouted:  # (where they are: the fact's own place is its first routed call's)
            first = unrouted[0].location
            more = f" and {len(unrouted) - 1} more" if len(unrouted) > 1 else ""
            detail += (
                f", {len(unrouted)} with a runner not known ({unrouted[0].job} at "
                f"{first.path}:{first.span.line}{more})"
            )
        callers: dict[str, list[Entry]] = {}
        for entry in entries:
            callers.setdefault(entry.location.path, []).append(entry)
        if len(callers) == 1:
            facts.append(Fact("entries", f"jobs calling {workflow}", detail, entries[0].location))
            continue
        # (from several workflows: each where its first call is, none as the fact's own place,
        # which would read as every call's; h51 W7)
        shown = [
            f"{path}:{found[0].location.span.line} ({counted(len(found), 'call')})"
            for path, found in list(callers.items())[:4]
        ]
        more = f" and {len(callers) - 4} more" if len(callers) > 4 else ""
        detail += f", from {len(callers)} workflows: {', '.join(shown)}{more}"
        facts.append(Fact("entries", f"jobs calling {workflow}", detail))
    if calls and not wiring.has_runners_file:
        reached = sorted({path for _, path, _ in wiring.pairs})
        guessed = sorted(wiring.guessed)
        also = (
            f", or where no launcher serves those, `<label>_<n>` (labels {', '.join(guessed)})"
            if guessed
            else ""
        )
        unreached = sorted(wiring.unreached)
        none = (
            f"; no launcher is named after {'label' if len(unreached) == 1 else 'labels'} "
            f"{', '.join(unreached)}: their calls reach none, not checked"
            if unreached
            else ""
        )
        facts.append(
            Fact(
                "runners",
                "no runners file",
                f"a label's runners taken as those named `<label>-<site>_<n>`{also}, so its "
                f"launchers as theirs ({len(reached)} "
                f"{'launcher' if len(reached) == 1 else 'launchers'} reached){none}",
            )
        )
    return facts


@main.command("server")
def server_command() -> None:
    """Run the language server (LSP over stdin/stdout) for editors: diagnostics as you type,
    quick fixes, and the rule's documentation on hover."""
    from benchlint.server import serve  # pygls, only when used

    gc.enable()  # a long-lived process: collect as usual
    serve()


def entry() -> None:
    """The console script: `main`, then an immediate exit. Tearing down the models of a large
    repository object by object takes longer than building them, and the process ends anyway.
    For the same reason the cycle collector stays off for the whole process."""
    gc.disable()
    try:
        main()
        code = EXIT_OK
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or EXIT_OK
        else:
            print(exc.code, file=sys.stderr)
            code = EXIT_ERROR
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
