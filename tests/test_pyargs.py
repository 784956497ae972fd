"""`benchlint.pyargs` held to argparse itself: the option strings read from a script's code are
the ones its parser has when the code runs, and a word is reported only where argparse rejects
it (and for the reason argparse gives)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import random
import re
from typing import Any

import pytest

from benchlint import pyargs

# -- what the code says: the option strings, against the parser the code builds ----------------

_PIECES = {
    "plain": 'parser.add_argument("--{a}", type=int)\n',
    "short": 'parser.add_argument("-{s}", "--{a}", default="x")\n',
    "flag": 'parser.add_argument("--{a}", action="store_true")\n',
    "boolean": 'parser.add_argument("--{a}", action=argparse.BooleanOptionalAction)\n',
    "positional": 'parser.add_argument("{a}", nargs="?")\n',
    "group": 'group = parser.add_argument_group("g")\ngroup.add_argument("--{a}")\n',
    "exclusive": (
        "excl = parser.add_mutually_exclusive_group()\n"
        'excl.add_argument("--{a}")\nexcl.add_argument("--{b}")\n'
    ),
    "inline": 'parser.add_argument_group("g").add_argument("--{a}", "--{b}")\n',
    "helper": "add_more(parser)\n",
    "subcommands": (
        'subs = parser.add_subparsers(dest="command")\n'
        'one = subs.add_parser("{a}", aliases=["{b}"])\none.add_argument("--in-{a}")\n'
        'two = subs.add_parser("{b}-two", parents=[common])\ntwo.add_argument("-{s}", "--in-{b}")\n'
    ),
}
_COMMON = 'common = argparse.ArgumentParser(add_help=False)\ncommon.add_argument("--shared")\n'

_HELPER = 'def add_more(p):\n    p.add_argument("--helper-{a}")\n    p.add_argument("-{s}")\n\n'


def _source(rng: random.Random) -> str:
    """A script that builds its parser one of several ways, from a random choice of pieces."""
    names = iter(f"opt-{i}" for i in range(100))
    shorts = iter("abcdefgijklmnopqrstuvwxyz")
    body = ""
    helper = ""
    for kind in rng.sample(sorted(_PIECES), rng.randint(1, len(_PIECES))):
        text = _PIECES[kind].format(a=next(names), b=next(names), s=next(shorts))
        if kind == "helper":
            helper += _HELPER.format(a=next(names), s=next(shorts))
        if kind == "subcommands":
            helper += _COMMON
        body += text
    keywords = rng.choice(["", "add_help=False", "allow_abbrev=False", 'description="d"'])
    shape = rng.choice(["module", "main", "builder", "parents"])
    if shape == "module":
        return (
            f"import argparse\n{helper}parser = argparse.ArgumentParser({keywords})\n"
            f"{body}args = parser.parse_args()\n"
        )
    indented = "".join(f"    {line}\n" for line in body.splitlines())
    if shape == "main":
        return (
            f"import argparse\n{helper}def main():\n"
            f"    parser = argparse.ArgumentParser({keywords})\n{indented}"
            "    return parser.parse_args()\n\nif __name__ == '__main__':\n    main()\n"
        )
    if shape == "builder":
        return (
            f"from argparse import ArgumentParser\nimport argparse\n{helper}def build():\n"
            f"    parser = ArgumentParser({keywords})\n{indented}    return parser\n\n"
            "args = build().parse_args()\n"
        )
    return (
        f"import argparse\n{helper}base = argparse.ArgumentParser(add_help=False)\n"
        'base.add_argument("--from-parent")\n'
        f"parser = argparse.ArgumentParser(parents=[base], {keywords})\n"
        f"{body}args = parser.parse_args()\n"
    )


def _built(source: str) -> argparse.ArgumentParser:
    """The parser the code parses its command line with, when it runs (this test's own code)."""
    used: list[argparse.ArgumentParser] = []

    def parse_args(self: argparse.ArgumentParser, *_: Any, **__: Any) -> argparse.Namespace:
        used.append(self)
        return argparse.Namespace()

    real = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = parse_args  # type: ignore[method-assign]
    try:
        exec(compile(source, "<generated>", "exec"), {"__name__": "__main__"})
    finally:
        argparse.ArgumentParser.parse_args = real  # type: ignore[method-assign]
    assert len(used) == 1
    return used[0]


def test_option_strings_are_the_parsers_own() -> None:
    rng = random.Random(116)
    for _ in range(300):
        source = _source(rng)
        read = pyargs.read(source)
        assert isinstance(read, pyargs.Parser), (read, source)
        built = _built(source)
        assert read.options == set(built._option_string_actions), source
        lines = source.splitlines()
        assert read.line == next(i for i, t in enumerate(lines, 1) if "parser = " in t), source
        groups = {tuple(a.option_strings) for a in built._actions if a.option_strings}
        assert {tuple(sorted(a)) for a in read.actions} == {tuple(sorted(g)) for g in groups}
        subparsers = [a for a in built._actions if isinstance(a, argparse._SubParsersAction)]
        choices = subparsers[0].choices if subparsers else {}
        assert {name for name, _ in read.commands} == set(choices), source
        for name, sub in read.commands:
            assert sub.options == set(choices[name]._option_string_actions), (name, source)


@pytest.mark.parametrize(
    "local",
    [
        "def flatten(groups):\n    return [x for group in groups for x in group]\n",
        "def show(items):\n    for group in items:\n        print(group.title)\n",
        "def show(group):\n    group.add_argument('--other')\n",
        "def show():\n    try:\n        pass\n    except ValueError as group:\n"
        "        print(group)\n",
        "def show(items):\n    return {group: len(group) for group in items}\n",
        "def show():\n    import group\n    group.add_argument('--other')\n",
    ],
)
def test_a_name_a_function_binds_is_its_own_not_the_modules(local: str) -> None:
    """A comprehension's variable, a `for` target, a parameter, an `except ... as` name or an
    import of a function (t61b, sglang's bench_serving.py) is not the module's parser group of
    that name: the parser is read, with the options Python's run gives it."""
    source = (
        "import argparse\n" + local + "parser = argparse.ArgumentParser()\n"
        'group = parser.add_argument_group("g")\ngroup.add_argument("--foo")\n'
        "parser.parse_args()\n"
    )
    read = pyargs.read(source)
    assert isinstance(read, pyargs.Parser), read
    assert read.options == set(_built(source)._option_string_actions)


def test_a_function_that_hands_on_the_modules_group_makes_its_parser_untold() -> None:
    """The near miss: a function whose `group` is the module's (a free name, or declared
    `global`), handed to a call benchlint does not follow, may add options to it."""
    for local in (
        "def more():\n    hooks.setup(group)\n",
        "def more():\n    global group\n    hooks.setup(group)\n    group = None\n",
        "def more(items):\n    return [hooks.setup(group) for item in items]\n",
        # (a comprehension's own `group` does not make the function's free `group` its own)
        "def more(items):\n    [g for group in items]\n    hooks.setup(group)\n",
    ):
        source = (
            "import argparse\nimport hooks\n" + local + "parser = argparse.ArgumentParser()\n"
            'group = parser.add_argument_group("g")\ngroup.add_argument("--foo")\n'
            "more()\nparser.parse_args()\n"
        )
        assert isinstance(pyargs.read(source), str), local


def test_a_parser_handed_back_after_it_parsed_is_read() -> None:
    """(t62b, LMBench) `return args, parser` once the function parsed: the caller's uses come
    after the command line was read; near miss, a parser handed back before any parse (its
    caller may add options before it parses)."""
    parsed = (
        "import argparse\ndef get_args():\n    p = argparse.ArgumentParser()\n"
        '    p.add_argument("--n", type=int)\n    args = p.parse_args()\n    return args, p\n'
        "def main():\n    args, p = get_args()\n    if args.n is None:\n"
        '        p.error("need --n")\nmain()\n'
    )
    read = pyargs.read(parsed)
    assert isinstance(read, pyargs.Parser) and read.options == {"-h", "--help", "--n"}
    early = (
        "import argparse\ndef make():\n    p = argparse.ArgumentParser()\n"
        '    p.add_argument("--n", type=int)\n    return p, 1\n'
        'p, _ = make()\np.add_argument("--m")\np.parse_args()\n'
    )
    assert isinstance(pyargs.read(early), str)


# -- what argparse makes of one word ---------------------------------------------------------------


def _argparse_verdict(
    options: list[tuple[str, ...]], abbrev: bool, word: str, known: bool = False
) -> str | None:
    """What argparse says of the word: None (accepted), "unknown" or "ambiguous" (with
    `known`, what `parse_known_args` says)."""
    parser = argparse.ArgumentParser(allow_abbrev=abbrev, add_help=False)
    for strings in options:
        parser.add_argument(*strings, nargs="?", default=None)
    parser.add_argument("rest", nargs="*")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
        if known:
            parser.parse_known_args([word])
        else:
            parser.parse_args([word])
        return None
    text = err.getvalue()
    if "unrecognized arguments" in text:
        return "unknown"
    if "ambiguous option" in text:
        return "ambiguous"
    return "other: " + text


def _words(rng: random.Random, strings: list[str]) -> list[str]:
    out = []
    for _ in range(12):
        base = rng.choice(strings)
        cut = rng.randint(2, len(base)) if len(base) > 2 else len(base)
        out += [
            base[:cut],
            base[:cut] + "=v",
            base + "x",
            base.replace("-", "_").replace("__", "--", 1),
            base[:2] + "VALUE",
            "-" + base.lstrip("-"),
            "--" + base.lstrip("-"),
            rng.choice(["-1", "-0.5", "-.5", "-1e3", "- x", "--a b", "-", "x", "-Z", "---x"]),
        ]
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_word_is_reported_only_where_argparse_rejects_it(seed: int) -> None:
    rng = random.Random(seed)
    agreed = reported = rejected = 0
    for _ in range(40):
        stems = rng.sample(["model", "mode", "max-len", "max-lenx", "port", "p", "seed"], 4)
        options: list[tuple[str, ...]] = []
        for stem in stems:
            strings = ("-" + stem,) if len(stem) == 1 else ("--" + stem,)
            if rng.random() < 0.3:
                strings += ("-" + rng.choice("abcdfg"),)
            if strings[-1] not in {s for o in options for s in o}:
                options.append(strings)
        abbrev = rng.random() < 0.6
        parser = pyargs.Parser(
            frozenset(s for o in options for s in o),
            (abbrev,),
            (pyargs.ARGPARSE,),
            1,
            actions=tuple(options),
        )
        keeping = dataclasses.replace(parser, keeps_unknown=True)  # `parse_known_args`
        for word in _words(rng, [s for o in options for s in o]):
            truth = _argparse_verdict(options, abbrev, word)
            found = pyargs.problem(parser, word)
            mine = None if found is None else found.kind
            if mine is not None:
                reported += 1
                assert mine == truth, (options, abbrev, word, truth)
            kept = pyargs.problem(keeping, word)
            if kept is not None:
                assert _argparse_verdict(options, abbrev, word, known=True) == kept.kind
            if truth in ("unknown", "ambiguous"):
                rejected += 1
            agreed += mine == truth
    # silent only where argparse's release decides differently (a prefix of one action's
    # strings, a single-dash prefix under allow_abbrev=False in old releases): rarely
    assert reported >= 0.9 * rejected, (reported, rejected)


def test_a_string_run_with_an_option_written_with_its_value_is_read_once(tmp_path: Any) -> None:
    """(t62c, DeepSpeedExamples) `CMD="deepspeed --num_gpus=$G x.py --bogus 1"; eval $CMD`:
    `--num_gpus=$G` is an option, whatever `$G` holds, as on a command line; the line is read
    (one finding) and not also said to be unread."""
    from tests.conftest import positions, run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "x.py": 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--lr")\n'
            "p.parse_args()\n",
            "run.sh": '#!/bin/bash\nG=1\nCMD="deepspeed --num_gpus=$G x.py --bogus 1"\n'
            'eval $CMD\nOPTS="--num_gpus=$G x.py --bogus 2"\ndeepspeed $OPTS\n',
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == ["run.sh:3:35", "run.sh:5:26"]
    assert result.warnings() == []


def test_a_script_whose_parser_cannot_be_told_is_said(tmp_path: Any) -> None:
    from tests.conftest import run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "client.py": (
                "import argparse\nfrom vllm.engine.arg_utils import EngineArgs\n"
                "parser = argparse.ArgumentParser()\nEngineArgs.add_cli_args(parser)\n"
                "args = parser.parse_args()\n"
            ),
            "sync.py": (
                "import argparse\nparser = argparse.ArgumentParser()\n"
                'parser.add_argument("rest", nargs=argparse.REMAINDER)\n'
                'parser.add_subparsers(dest="cmd").add_parser("barrier")\nparser.parse_args()\n'
            ),
            "kept.py": (
                "import argparse\nparser = argparse.ArgumentParser()\nkept = [parser]\n"
                "parser.parse_args()\n"
            ),
            "rebound.py": (
                "import argparse\nfrom helpers import add_tokenizer_args\n"
                "parser = argparse.ArgumentParser()\nparser = add_tokenizer_args(parser)\n"
                "parser.parse_args()\n"
            ),
            "run.sh": (
                "#!/bin/bash\npython3 client.py --max-model-len 8\n"
                "python3 sync.py barrier --n 2\npython3 sync.py wait\npython3 kept.py --k 1\n"
                "python3 rebound.py --k 1\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`client.py`: its parser is given to `EngineArgs.add_cli_args` (line 4), which may change "
        "its options: 1 (run.sh:2)"
    ) in result.warnings()
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`sync.py`: an argument of its parser takes every word after it (`REMAINDER`): "
        "1 (run.sh:3)"  # (run.sh:4 gives it no option: nothing to read)
    ) in result.warnings()
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`kept.py`: its parser is used where its options may change (line 3): 1 (run.sh:5)"
    ) in result.warnings()
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`rebound.py`: the name it parses with is bound to what `add_tokenizer_args` returns "
        "too (line 4): 1 (run.sh:6)"
    ) in result.warnings()
    # a run that names the Python file (pre-commit) says it too, where it was met
    named = run_lint(root, select="BL116", named=[root / "client.py"])
    assert named.warnings() == [
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`client.py`: its parser is given to `EngineArgs.add_cli_args` (line 4), which may change "
        "its options: 1 (run.sh:2)"
    ]


def test_a_script_run_where_its_path_may_name_another_file_is_said(tmp_path: Any) -> None:
    """A line whose relative path the script may have moved away from (`cd`), or that runs in a
    container or on another host, or whose absolute path ends in a file of the repository's
    (another clone), is not read, and the report says so (only where a file of the repository
    has that name and the line gives it options)."""
    from tests.conftest import run_lint, write_repo

    client = (
        'import argparse\np = argparse.ArgumentParser()\np.add_argument("--a")\np.parse_args()\n'
    )
    root = write_repo(
        tmp_path / "repo",
        {
            "utils/client.py": client,
            "run.sh": (
                "#!/bin/bash\ncd /tmp\npython3 utils/client.py --b 1\n"
                'docker exec "$C" python3 utils/client.py --b 1\n'
                "python3 utils/client.py\npython3 other/none.py --b 1\n"
                # another clone's file at an absolute path (not one named like a file alone)
                "python3 /fsx/me/repo/utils/client.py --b 1\npython3 /opt/client.py --b 1\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    said = "Python scripts run with options where their path may name a file other than the "
    said += "repository's ({}), not read (BL116)"
    assert said.format("after a `cd`") + ": 1 (run.sh:3)" in result.warnings()
    assert (
        said.format("at an absolute path another clone or a mount of the repository may hold")
        + ": 1 (run.sh:7)"
    ) in result.warnings()
    assert (
        said.format("in a container, on another host or as a Ray job") + ": 1 (run.sh:4)"
        in result.warnings()
    )
    # a run that names the client (pre-commit) says them too
    named = run_lint(root, select="BL116", named=[root / "utils/client.py"])
    assert sorted(named.warnings()) == sorted(result.warnings())


def test_a_module_whose_file_is_not_at_the_root_may_be_an_installed_one(tmp_path: Any) -> None:
    """`python3 -m coverage` beside a `scripts/coverage.py`: from the checkout's root, Python
    imports the installed coverage, so the repository's file is not read for it (said), nor
    `scripts/tool.py` for `-m tool`, though `python3 scripts/tool.py` is read; a package's
    module is its folder's wherever that is (`-m bench.client`: `src/bench/client.py`)."""
    from tests.conftest import positions, run_lint, write_repo

    client = (
        'import argparse\np = argparse.ArgumentParser()\np.add_argument("--a")\np.parse_args()\n'
    )
    root = write_repo(
        tmp_path / "repo",
        {
            "scripts/coverage.py": client,
            "scripts/tool.py": client,
            "scripts/run.sh": (
                "#!/bin/bash\nset -e\npython -m coverage run --rcfile=.coveragerc -m pytest\n"
                "python3 -m tool --b 1\npython3 scripts/tool.py --b 1\n"
            ),
            "src/bench/__init__.py": "",
            "src/bench/client.py": client,
            "src/bench/run.sh": "#!/bin/bash\npython3 -m bench.client --b 1\n",
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == ["scripts/run.sh:5:25", "src/bench/run.sh:2:25"]
    said = (
        "Python modules run with options where the repository's file of that name is not at its "
        "root, so an installed module of the name may be the one that runs, not read (BL116): "
        "2 (scripts/run.sh:3, scripts/run.sh:4)"
    )
    assert said in result.warnings()


def test_an_untold_parser_names_the_other_files_the_path_may_name(tmp_path: Any) -> None:
    """`python3 main.py` in `bench/run.sh`: the root's `main.py` (no parser, but it reads its
    command line) or `bench/main.py`, by the folder it runs in. Not every file rejects
    `--bogus`: nothing is reported, and the warning names both."""
    from tests.conftest import run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "main.py": "import sys\nprint(sys.argv[1:])\n",
            "bench/main.py": (
                "import argparse\np = argparse.ArgumentParser()\np.add_argument('--a')\n"
                "p.parse_args()\n"
            ),
            "bench/run.sh": "#!/bin/bash\npython3 -u main.py --a 1 --bogus 2\n",
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`main.py` (or `bench/main.py` where it runs from another folder, whose parser is "
        "told): it makes no argparse parser: 1 "
        "(bench/run.sh:2)"
    ) in result.warnings()


def test_a_file_that_reads_no_command_line_is_not_what_runs_with_options(tmp_path: Any) -> None:
    """`python3 main.py --bogus 2` in `bench/run.sh`, where the root's `main.py` reads no command
    line at all (mkdocs' macros: no `__main__`, no `argv`, no parser library) and
    `bench/main.py` parses it: the script means `bench/main.py`, which rejects `--bogus` (h72
    M1, mlcommons' benchmarks). A word `click` in a string is no parser library."""
    from tests.conftest import positions, run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "main.py": 'def define_env(env):\n    return "click here"\n',
            "bench/main.py": (
                "import argparse\np = argparse.ArgumentParser()\np.add_argument('--a')\n"
                "p.parse_args()\n"
            ),
            "bench/run.sh": "#!/bin/bash\npython3 -u main.py --a 1 --bogus 2\n",
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == ["bench/run.sh:2:26"]


def test_a_script_that_moves_into_a_fixed_folder_runs_the_file_there(tmp_path: Any) -> None:
    """After `cd "$(dirname "$0")"` (or into a variable of it, `cd "$HERE/.."`) a relative path
    names the file of that folder alone: `bench/main.py`, not the root's. Near misses: a `cd`
    that follows into a folder not known (said, not read); a `pushd` undone by `popd`, after
    which the path names what it named before (the root's `main.py`, which has no parser, or
    `bench/main.py`: said as that)."""
    from tests.conftest import positions, run_lint, write_repo

    client = (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--a')\np.parse_args()\n"
    )
    root = write_repo(
        tmp_path / "repo",
        {
            "main.py": "import sys\nprint(sys.argv[1:])\n",
            "bench/main.py": client,
            "bench/sub/tool.py": client,
            "bench/run.sh": (
                '#!/bin/bash\ncd "$(dirname "$0")"\npython3 -u main.py --a 1 --bogus 2\n'
            ),
            "bench/sub/up.sh": (
                '#!/bin/bash\nHERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)\ncd "$HERE/.."\n'
                "python3 main.py --bogus 1\npython3 -m sub.tool --bogus 1\n"
            ),
            "bench/later.sh": (
                '#!/bin/bash\ncd "$(dirname "$0")"\ncd "$1"\npython3 main.py --bogus 1\n'
            ),
            "bench/popd.sh": (
                '#!/bin/bash\npushd "$(dirname "$0")"\npopd\npython3 main.py --bogus 1\n'
            ),
            # the idioms of a script's own folder: `--`, output sent away, the path resolved
            "bench/quiet.sh": (
                '#!/bin/bash\nHERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &> /dev/null'
                ' && pwd)\ncd "$HERE"\npython3 main.py --bogus 1\n'
            ),
            "bench/resolved.sh": (
                '#!/bin/bash\ncd "$(dirname "$(readlink -f "$0")")"\npython3 main.py --bogus 1\n'
            ),
            # a fixed folder after one not known: the last sure move is where it is
            "bench/again.sh": (
                '#!/bin/bash\ncd "$1"\ncd "$(dirname "$0")"\npython3 main.py --bogus 1\n'
            ),
            # a function's `cd` that runs only after the line (its every call comes later):
            # nothing moved before it; one called before the line's function did move it
            "bench/later_fn.sh": (
                "#!/bin/bash\ndl() {\n    python3 bench/main.py --bogus 1\n}\n"
                'build() {\n    cd "$1"\n}\ndl\nbuild x\n'
            ),
            "bench/before_fn.sh": (
                "#!/bin/bash\ndl() {\n    python3 bench/main.py --bogus 1\n}\n"
                'build() {\n    cd "$1"\n}\nbuild x\ndl\n'
            ),
            "bench/loop_fn.sh": (
                "#!/bin/bash\ndl() {\n    python3 bench/main.py --bogus 1\n}\n"
                'build() {\n    cd "$1"\n}\nfor m in a b; do\n    dl\n    build x\ndone\n'
            ),
            # under a condition, the move may not run (said)
            "bench/maybe.sh": (
                '#!/bin/bash\ncd "$(dirname "$0")"\n[ -n "$X" ] && cd "$X"\n'
                "python3 main.py --bogus 1\n"
            ),
            # a workflow step's second plain relative `cd` goes on from the first
            ".github/workflows/ci.yml": (
                "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                "      - run: |\n          cd bench\n          cd sub\n"
                "          python3 tool.py --bogus 3\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == [
        ".github/workflows/ci.yml:9:27",
        "bench/again.sh:4:17",
        "bench/later_fn.sh:3:27",
        "bench/quiet.sh:4:17",
        "bench/resolved.sh:3:17",
        "bench/run.sh:3:26",
        "bench/sub/up.sh:4:17",
        "bench/sub/up.sh:5:21",
    ]
    said = "Python scripts run with options where their path may name a file other than the "
    said += "repository's (after a `cd`), not read (BL116): 4 (bench/before_fn.sh:3, "
    said += "bench/later.sh:4, bench/loop_fn.sh:3 and 1 more)"
    untold = (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`main.py` (or `bench/main.py` where it runs from another folder, whose parser is "
        "told): it makes no argparse parser: 1 "
        "(bench/popd.sh:4)"
    )
    assert said in result.warnings()
    assert untold in result.warnings()


def test_a_parser_taken_from_another_module_and_changed_is_said_so(tmp_path: Any) -> None:
    """`parser = get_argument_parser()` (another module's), then `parser =
    deepspeed.add_config_arguments(parser)`: any option may be added, so it is not read, and the
    warning says that, not that the script makes no parser."""
    from tests.conftest import run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "gan/utils.py": (
                "import argparse\n\ndef get_argument_parser():\n"
                "    p = argparse.ArgumentParser()\n    p.add_argument('--lr')\n    return p\n"
            ),
            "gan/train.py": (
                "import deepspeed\nfrom utils import get_argument_parser\n\ndef main():\n"
                "    parser = get_argument_parser()\n"
                "    parser = deepspeed.add_config_arguments(parser)\n"
                "    args = parser.parse_args()\n\nmain()\n"
            ),
            "gan/run.sh": "#!/bin/bash\npython3 gan/train.py --lr 1 --deepspeed_config c.json\n",
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`gan/train.py`: it changes the parser it takes from `get_argument_parser` of "
        "`gan/utils.py`: 1 (gan/run.sh:2)"
    ) in result.warnings()


def test_a_launcher_line_whose_script_cannot_be_told_is_said(tmp_path: Any) -> None:
    """`torchrun ${ARGS[@]} train.py --bogus 2`: the launcher's options an array or a string
    assigned once before holds are read in its place; where the variable is assigned otherwise
    (appended to, or not at all) a word not known before the script's may name another script,
    so the line is not read, and said (not skipped in silence), also where its options come
    from an array alone; not a line with nothing after the script (`torchrun $DIST train.py`)."""
    from tests.conftest import positions, run_lint, write_repo

    client = (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--lr')\np.parse_args()\n"
    )
    root = write_repo(
        tmp_path / "repo",
        {
            "train.py": client,
            "run.sh": (
                "#!/bin/bash\nARGS=(--nproc_per_node 8)\ntorchrun ${ARGS[@]} train.py --bogus 2\n"
                'torchrun --nproc_per_node "$N" train.py --bogus 2\n'
                "torchrun $DIST other.py --bogus 2\ntorchrun $DIST train.py\n"
                "MORE=(--nnodes 1)\nMORE+=(--nproc_per_node 8)\n"
                'torchrun "${MORE[@]}" train.py --bogus 2\n'
                "torchrun $UNSET_ARGS train.py --bogus 2\n"
                'ONE="--nnodes 1"\ntorchrun $ONE train.py --bogus 2\n'
                'torchrun "${ARGS[*]}" train.py --bogus 2\n'  # (one word: the items joined)
                # (options only from an array: they may be there too; h82 W2)
                'torchrun $DIST train.py "${EXTRA[@]}"\n'
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == ["run.sh:12:24", "run.sh:3:30", "run.sh:4:41"]
    said = (
        "Python scripts run after words whose values are not known (the program, or a "
        "launcher's options: one could name another script), not read (BL116): 4 (run.sh:9, "
        "run.sh:10, run.sh:13 and 1 more)"
    )
    assert said in result.warnings()


def test_a_program_a_variable_holds_and_a_ray_job_are_said(tmp_path: Any) -> None:
    """`${LAUNCHER} train.py --bogus` where the script does not assign the launcher (a file it
    sources does), and `srun $SRUN_ARGS python3 train.py --bogus` (the wrapper's options end at
    the variable): which program runs cannot be told, so the line is said, not skipped in
    silence; assigned once before, the string is read as bash splits it. `ray job submit --
    python3 train.py` runs in the working directory the job's runtime environment gives: said
    as a path that may name another file. Near misses: no option after the script, a `.py`
    that is no file of the repository."""
    from tests.conftest import positions, run_lint, write_repo

    client = (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--lr')\np.parse_args()\n"
    )
    root = write_repo(
        tmp_path / "repo",
        {
            "train.py": client,
            "run.sh": (
                "#!/bin/bash\nsource conf.sh\n"
                "${LAUNCHER} train.py --bogus 2\n"  # 3
                "srun --nodes 2 $SRUN_ARGS python3 train.py --bogus 2\n"  # 4
                "${LAUNCHER} train.py\n"  # 5
                "${LAUNCHER} other.py --bogus 2\n"  # 6
                'ONE="torchrun --nproc_per_node=8"\n'
                "$ONE train.py --bogus 2\n"  # 8: read
                "ray job submit --address http://h:8265 -- python3 train.py --bogus 2\n"  # 9
                "ray job submit -- python3 train.py --lr 1\n"  # 10
            ),
            "conf.sh": 'LAUNCHER="torchrun --nproc_per_node=8"\n',
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == ["run.sh:8:15"]
    unread = (
        "Python scripts run after words whose values are not known (the program, or a "
        "launcher's options: one could name another script), not read (BL116): 2 (run.sh:3, "
        "run.sh:4)"
    )
    away = (
        "Python scripts run with options where their path may name a file other than the "
        "repository's (in a container, on another host or as a Ray job), not read (BL116): 2 "
        "(run.sh:9, run.sh:10)"
    )
    assert unread in result.warnings() and away in result.warnings()


def test_a_required_option_the_line_lacks_is_what_argparse_says_first(tmp_path: Any) -> None:
    """`--input-file` where the parser requires `--input-data`: argparse's error is the missing
    required option, and the message quotes that (as argparse itself prints it); where the line
    gives the required option (or a prefix argparse takes for it), "unrecognized arguments"."""
    from tests.conftest import run_lint, write_repo

    code = (
        "import argparse\np = argparse.ArgumentParser()\n"
        "p.add_argument('--input-data', '-i', required=True)\np.add_argument('--n')\n"
        "p.parse_args()\n"
    )
    lines = [
        ["--input-file", "x.jsonl"],
        ["--input-data", "x", "--bogus"],
        ["--input-d=x", "--bogus"],
        ["-ix", "--bogus"],
    ]
    root = write_repo(
        tmp_path / "repo",
        {
            "t.py": code,
            "run.sh": "#!/bin/bash\n" + "".join(f"python3 t.py {' '.join(w)}\n" for w in lines),
        },
    )
    result = run_lint(root, select="BL116")
    messages = sorted((f.location.span.line, f.message) for f in result.findings)
    assert [line for line, _ in messages] == [2, 3, 4, 5]
    parser = argparse.ArgumentParser()
    parser.add_argument("--input-data", "-i", required=True)
    parser.add_argument("--n")
    for (_, message), words in zip(messages, lines, strict=True):
        error = _argparse_fails(parser, words)
        assert error is not None
        said = re.search(r'argparse stops it with "([^"]+)"', message)
        assert said is not None and said.group(1) in error, (message, error)


def test_a_required_option_is_said_missing_past_an_option_value_not_known(tmp_path: Any) -> None:
    """A word not known that is the value of the option before it (`--n "$i"`, `--n` takes one
    word) cannot give the required option: argparse's first error is still the missing one (t55b,
    TensorRT-Model-Optimizer); a word not known anywhere else may be it (`"$EXTRA"`), and the
    message then names only the unknown option."""
    from tests.conftest import run_lint, write_repo

    code = (
        "import argparse\np = argparse.ArgumentParser()\n"
        "p.add_argument('--input-data', '-i', required=True)\np.add_argument('--n')\n"
        "p.parse_args()\n"
    )
    root = write_repo(
        tmp_path / "repo",
        {
            "t.py": code,
            "run.sh": (
                '#!/bin/bash\nfor i in 1 2; do python3 t.py --input-file x --n "$i"; done\n'
                'python3 t.py --input-file x "$EXTRA"\n'
            ),
        },
    )
    result = run_lint(root, select="BL116")
    messages = sorted((f.location.span.line, f.message) for f in result.findings)
    assert [line for line, _ in messages] == [2, 3]
    parser = argparse.ArgumentParser()
    parser.add_argument("--input-data", "-i", required=True)
    parser.add_argument("--n")
    error = _argparse_fails(parser, ["--input-file", "x", "--n", "1"])
    assert error is not None and "the following arguments are required: --input-data" in error
    assert "the following arguments are required: --input-data/-i" in messages[0][1]
    assert "required" not in messages[1][1]


def _argparse_fails(parser: argparse.ArgumentParser, words: list[str]) -> str | None:
    """argparse's error for the command line, or None when it takes it."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
        parser.parse_args(words)
        return None
    return err.getvalue()


@pytest.mark.parametrize("seed", range(4))
def test_subcommand_lines_are_read_as_argparse_reads_them(seed: int) -> None:
    """Command lines of a parser with subcommands: what is reported is what argparse rejects
    (its "unrecognized arguments" name each reported word), and an option word argparse does
    not recognise is reported (what is not: positional words, and what follows `--`)."""
    rng = random.Random(1000 + seed)
    source = (
        "import argparse\nparser = argparse.ArgumentParser()\n"
        'parser.add_argument("--flag", action="store_true")\n'
        'parser.add_argument("--level", default="info")\n'
        'parser.add_argument("--maybe", nargs="?")\n'
        'subs = parser.add_subparsers(dest="command")\n'
        'run = subs.add_parser("run", aliases=["r"])\n'
        'run.add_argument("--port", type=int)\nrun.add_argument("--fast", action="store_true")\n'
        'stop = subs.add_parser("stop")\nstop.add_argument("--force", action="store_true")\n'
        "args = parser.parse_args()\n"
    )
    read = pyargs.read(source)
    assert isinstance(read, pyargs.Parser)
    built = _built(source)
    vocabulary = [
        "--flag", "--level", "debug", "--maybe", "run", "r", "stop", "--port", "8", "--fast",
        "--force", "--bogus", "--po", "-x", "--", "--level=warn", "-1", "stpo", "ru",
    ]  # fmt: skip
    reported = 0
    for _ in range(400):
        words = [rng.choice(vocabulary) for _ in range(rng.randint(1, 6))]
        error = _argparse_fails(built, words)
        problems = pyargs.problems(read, list(words))
        if problems:
            reported += 1
            assert error is not None, words
            if any(p.kind == "choice" for _, p in problems):
                assert "invalid choice" in error, (words, error)
            if "unrecognized arguments: " in error:
                extras = error.split("unrecognized arguments: ", 1)[1].split()
                assert all(words[i] in extras for i, _ in problems), (words, error)
        elif error is not None and "unrecognized arguments: " in error and "--maybe" not in words:
            # not reported: only positional words argparse has no place for (not read), or
            # `--` and what follows it
            extras = error.split("unrecognized arguments: ", 1)[1].split()
            options = [w for w in extras if w.startswith("-") and w not in ("-1", "--")]
            assert not options or "--" in words, (words, error)
    assert reported > 50, reported


_MODULES = {
    "cli/__init__.py": "",
    "cli/args.py": """\
import argparse
PARSER = argparse.ArgumentParser()
PARSER.add_argument("--model")
PARSER.add_argument("--model-path")


def build_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model")
    parser.add_argument("--port", type=int)
    return parser


def parse_args():
    return build_parser().parse_args()
""",
    "obj.py": "from cli.args import PARSER\nPARSER.parse_args()\n",
    "builder.py": "from cli.args import build_parser\nbuild_parser().parse_args()\n",
    "held.py": "from cli.args import build_parser\np = build_parser()\np.parse_known_args()\n",
    "called.py": "import cli.args as a\na.parse_args()\n",
    # its own parser, parsing `argv`, which no call gives a value: the command line
    "argv.py": (
        "import argparse\nimport sys\n\n\ndef main(argv=None):\n"
        "    p = argparse.ArgumentParser()\n"
        '    p.add_argument("--model")\n    p.add_argument("--model-path")\n'
        "    p.parse_args(argv)\n    return 0\n\n\nsys.exit(main())\n"
    ),
    # its own parser, handed to another module's function that adds options
    "cli/extra.py": (
        'def add_model_args(parser):\n    parser.add_argument("--model")\n    _path(parser)\n'
        '\n\ndef _path(parser):\n    group = parser.add_argument_group("paths")\n'
        '    group.add_argument("--model-path")\n'
    ),
    "handed.py": (
        "import argparse\nfrom cli.extra import add_model_args\n"
        'parser = argparse.ArgumentParser()\nparser.add_argument("--port", type=int)\n'
        "add_model_args(parser)\nparser.parse_args()\n"
    ),
    # the script adds to the parser: not read (argparse accepts its own option)
    "own.py": (
        "from cli.args import build_parser\n\n\ndef add_mine(p):\n"
        '    p.add_argument("--extra")\n\n\n'
        "parser = build_parser()\nadd_mine(parser)\nparser.parse_args()\n"
    ),
}


def test_parsers_of_other_modules_agree_with_python(tmp_path: Any) -> None:
    """A script that parses its command line with a parser another module of the repository
    makes (or its own, in `main(argv=None)`, or its own that another module's function adds
    options to): a line is reported exactly where Python itself,
    running the script, stops with argparse's error (held.py keeps what it does not know: an
    ambiguous prefix only)."""
    import subprocess
    import sys

    from tests.conftest import run_lint, write_repo

    words = ["--model m", "--port 1", "--mod m", "--model-p x", "--prt 1", "--model m -- --x"]
    scripts = ["argv.py", "builder.py", "called.py", "handed.py", "held.py", "obj.py", "own.py"]
    lines = [f"python3 {script} {w}" for script in scripts for w in words]
    root = write_repo(
        tmp_path / "repo", {**_MODULES, "run.sh": "#!/usr/bin/env bash\n" + "\n".join(lines)}
    )
    rejected = set()
    for number, line in enumerate(lines, start=2):
        ran = subprocess.run(
            [sys.executable, *line.split()[1:]],
            cwd=root,
            env={"PYTHONPATH": str(root)},
            capture_output=True,
            text=True,
        )
        if ran.returncode == 2 and "error:" in ran.stderr:
            rejected.add(number)
    result = run_lint(root, select="BL116")
    assert not result.errors
    # (nothing after `--` is read: argparse rejects `--x` there when it takes no positional;
    # nothing of own.py, whose parser the script changes)
    read = {n for n in rejected if " -- " not in lines[n - 2] and "own.py" not in lines[n - 2]}
    assert any("own.py" in lines[n - 2] for n in rejected)  # (what is left unread)
    assert {f.location.span.line for f in result.findings} == read
    assert len(read) >= 6  # (the test reads something)


_REMAINDER_SOURCES = [
    # DeepLearningExamples' multiproc.py shape: the launcher's options, the script, its words
    "import argparse\np = argparse.ArgumentParser()\n"
    'p.add_argument("--nproc", type=int)\np.add_argument("--flag", action="store_true")\n'
    'p.add_argument("script")\np.add_argument("rest", nargs=argparse.REMAINDER)\n'
    "p.parse_args()\n",
    # a command and every word after it
    "from argparse import ArgumentParser, REMAINDER\np = ArgumentParser()\n"
    'p.add_argument("--nproc", type=int)\np.add_argument("command", nargs=REMAINDER)\n'
    "p.parse_args()\n",
    # an option that takes every word after it
    "import argparse\np = argparse.ArgumentParser()\n"
    'p.add_argument("--nproc", type=int)\np.add_argument("--flag", action="store_true")\n'
    'p.add_argument("--rest", nargs=argparse.REMAINDER)\np.parse_args()\n',
]
_REMAINDER_WORDS = ["--nproc", "8", "--bogus", "x.py", "--lr", "1", "--flag", "--fl", "--rest"]


@pytest.mark.parametrize("index", range(len(_REMAINDER_SOURCES)))
def test_a_remainder_is_read_up_to_where_it_takes_the_words(index: int) -> None:
    """A parser with an argument that takes every word after it (`nargs=REMAINDER`): a word
    is reported only where argparse rejects the command line, and every option argparse does
    not know before the first positional word (and before the option that takes the rest) is."""
    source = _REMAINDER_SOURCES[index]
    parser = pyargs.read(source)
    assert isinstance(parser, pyargs.Parser) and parser.remainder
    namespace: dict[str, Any] = {}
    exec(source.replace("p.parse_args()\n", ""), namespace)
    real: argparse.ArgumentParser = namespace["p"]
    rng = random.Random(index)
    checked = 0
    for _ in range(400):
        words = [rng.choice(_REMAINDER_WORDS) for _ in range(rng.randint(1, 6))]
        error = _argparse_fails(real, words)
        found = dict(pyargs.problems(parser, list(words)))
        if found:
            assert error is not None, (words, found)
        start = pyargs.remainder_start(parser, list(words))
        if error is None and start is not None:  # (where the launched command line starts)
            parsed = vars(real.parse_args(words))
            taken = [parsed["script"], *parsed["rest"]] if "script" in parsed else parsed["command"]
            assert taken == words[start:], (words, start, parsed)
            checked += 1
        stop = next(
            (i for i, w in enumerate(words) if w == "--rest" or not w.startswith("-")), len(words)
        )
        read = words[:stop]
        # (an option's value is a word of its own: `--nproc --bogus` stops argparse there)
        if error and "unrecognized arguments" in error and "--nproc" not in read:
            unknown = [i for i, w in enumerate(read) if w == "--bogus"]
            assert all(i in found for i in unknown), (words, found, error)
            checked += bool(unknown)
    assert checked >= 20  # (the test reads something)


def test_an_untold_parser_names_its_first_reason() -> None:
    """Options added in a loop with computed names: the reason names the first such line (the
    loop's first), not the last the code reaches."""
    source = (
        "import argparse\np = argparse.ArgumentParser()\n"
        "for prefix in ('actor', 'critic'):\n"
        "    p.add_argument(f'--{prefix}.lr')\n"
        "    p.add_argument(f'--{prefix}.wd')\n"
        "p.add_argument('--' + 'seed')\np.parse_args()\n"
    )
    assert pyargs.read(source) == "an option of its parser is named by code (line 4)"


def test_workflow_steps_not_surely_read_are_said(tmp_path: Any) -> None:
    """A step whose runner may be Windows (a `runs-on` expression, no `shell:`) or whose
    working directory is an expression, and a script given to another repository's reusable
    workflow (`with: script:`): its line is said, not read (not a local workflow's input, not
    a line with no option). A run that names the Python file alone (pre-commit) reads the
    workflows that run it, and reports there."""
    from tests.conftest import positions, run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "utils/check.py": (
                "import argparse\np = argparse.ArgumentParser()\np.add_argument('--repo')\n"
                "p.parse_args()\n"
            ),
            ".github/workflows/ci.yml": (
                "on: push\njobs:\n  a:\n    runs-on: ${{ inputs.runner }}\n    steps:\n"
                "      - run: python3 utils/check.py --bogus\n"  # 6
                "  b:\n    runs-on: ubuntu-latest\n    steps:\n"
                "      - run: python3 check.py --bogus\n"  # 10
                "        working-directory: ${{ inputs.dir }}\n"
                "      - run: python3 utils/check.py --repo r --bogus\n"  # 12
                "  c:\n    uses: org/infra/.github/workflows/linux_job.yml@main\n    with:\n"
                "      runner: linux.g5\n      script: |\n        set -eux\n"
                "        python3 utils/check.py --bogus\n"  # 19
                "  d:\n    uses: ./.github/workflows/local.yml\n    with:\n"
                "      script: |\n        python3 utils/check.py --bogus\n"
                "  e:\n    uses: org/infra/.github/workflows/linux_job.yml@main\n    with:\n"
                "      script: |\n        python3 utils/check.py\n        echo done\n"
                # checked out to `src/`: the workspace's `src/utils/check.py` is the file
                "  f:\n    runs-on: ubuntu-latest\n    steps:\n"
                "      - uses: actions/checkout@v4\n        with:\n          path: src\n"
                "      - run: python3 src/utils/check.py --bogus\n"  # 37
                "      - run: python3 utils/check.py --bogus\n"  # 38: in the checkout
                "        working-directory: src\n"
                "      - run: python3 utils/check.py --repo r --bogus\n"  # 40: not the repo's
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == [
        ".github/workflows/ci.yml:12:46",
        ".github/workflows/ci.yml:37:41",
        ".github/workflows/ci.yml:38:37",
    ]
    assert (
        "Python scripts run with options in inputs to another repository's reusable workflow "
        "(`with:` of a job's `uses:`: where and how it runs them is not known), not read "
        "(BL116): 1 (.github/workflows/ci.yml:19)"
    ) in result.warnings()
    shell = (
        "Python scripts run with options in workflow steps that may not run in bash (another "
        "`shell:`, or a runner that may be Windows, whose default shell is PowerShell), not read "
        "(BL116): 1 (.github/workflows/ci.yml:6)"
    )
    folder = (
        "Python scripts run with options where their path may name a file other than the "
        "repository's (in a working directory not known), not read (BL116): 1 "
        "(.github/workflows/ci.yml:10)"
    )
    assert shell in result.warnings() and folder in result.warnings()
    named = run_lint(root, select="BL116", named=[root / "utils/check.py"])
    assert positions(named) == positions(result)
    assert shell in named.warnings() and folder in named.warnings()


def test_a_launcher_line_with_a_word_not_known_where_the_script_may_be_is_said(
    tmp_path: Any,
) -> None:
    """After a launcher's flag (`--standalone`), after an option's value, or among the words of
    `python3 -m torch.distributed.run`, a word not known may name the script: the line is said
    where the script after it (a `.py` word, or a module after `-m`) is the repository's."""
    from tests.conftest import run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--steps')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "pkg/__init__.py": "",
            "pkg/train.py": parser + "p.parse_args()\n",
            "train.py": parser + "p.parse_args()\n",
            "run.sh": (
                "#!/bin/bash\n"
                'torchrun --standalone "$X" train.py --bogus\n'
                'torchrun --nnodes 1 "$X" -m pkg.train --bogus\n'
                "python3 -m torch.distributed.run $DIST_ARGS train.py --bogus\n"
                'torchrun --nnodes 1 "$X" -m other.mod --bogus\n'  # (no such file: not said)
                'run_cmd="torchrun $UNSET train.py --bogus"\neval ${run_cmd}\n'  # 6
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    said = (
        "Python scripts run after words whose values are not known (the program, or a "
        "launcher's options: one could name another script), not read (BL116): "
    )
    assert said + "4 (run.sh:2, run.sh:3, run.sh:4 and 1 more)" in result.warnings()
    # a run that names the module the line runs says that line alone
    named = run_lint(root, select="BL116", named=[root / "pkg/train.py"])
    assert named.warnings() == [said + "1 (run.sh:3)"]


def test_the_command_line_handed_through_main_is_the_command_line() -> None:
    """`main(sys.argv[1:])` -> `parse_args(args)` -> `parser.parse_args(args)`, bound again
    only as `args = parse_args(args)`: argparse parses the command line, and the parser is
    read. Near misses: another call gives the function a list of its own; a function no call
    of the module gives the parameter (another module may); one that changes the list in place
    (`args.remove(...)`)."""
    body = (
        "import argparse\nimport sys\n\n\ndef parse_args(args):\n"
        "    parser = argparse.ArgumentParser()\n    parser.add_argument('-m')\n"
        "    return parser.parse_args(args)\n\n\ndef main(args):\n"
        "    args = parse_args(args)\n    print(args)\n\n\n"
    )
    read = pyargs.read(body + "if __name__ == '__main__':\n    main(sys.argv[1:])\n")
    assert isinstance(read, pyargs.Parser), read
    assert read.options == {"-h", "--help", "-m"}
    built = "main(sys.argv[1:])\nmain(['-m', 'x'])\n"
    assert pyargs.read(body + built) == "its parser parses a list the script builds"
    assert pyargs.read(body) == "its parser parses a list the script builds"
    # the function changes the list in place before it parses it: not the command line
    # (a change after it parses the list, or a nested function's own `args`, changes nothing)
    after = body.replace("    print(args)\n", "    args.append('x')\n")
    assert isinstance(pyargs.read(after + "main(sys.argv[1:])\n"), pyargs.Parser)
    nested = body.replace(
        "    args = parse_args(args)\n",
        "    def helper(args):\n        args.pop()\n    args = parse_args(args)\n",
    )
    assert isinstance(pyargs.read(nested + "main(sys.argv[1:])\n"), pyargs.Parser)
    for change in ("args.remove('--legacy')", "del args[0]", "args += ['-m', 'x']"):
        changed = body.replace(
            "    args = parse_args(args)\n", f"    {change}\n    args = parse_args(args)\n"
        )
        assert pyargs.read(changed + "main(sys.argv[1:])\n") == (
            "its parser parses a list the script builds"
        ), change


def test_a_parser_an_attribute_holds_is_the_reason_said() -> None:
    """`self.parser.parse_args()`: the parser is made and parsed with, through an attribute the
    reading does not follow; said as that, not as a script nothing parses."""
    source = (
        "import argparse\n\nclass Launcher:\n    def __init__(self):\n"
        "        self.parser = argparse.ArgumentParser()\n"
        "        self.parser.add_argument('--config-file')\n\n    def run(self):\n"
        "        return self.parser.parse_args()\n\nLauncher().run()\n"
    )
    assert pyargs.read(source) == (
        "it parses with a parser an attribute holds (`self.parser.parse_args()`, line 9): "
        "not followed"
    )
    assert pyargs.read("import argparse\np = argparse.ArgumentParser()\n") == pyargs.NOT_PARSED


def test_a_module_inside_another_packages_folder_is_said(tmp_path: Any) -> None:
    """`python -m eval.mmlu.run_eval` where the repository's file is
    `inference/eval/mmlu/run_eval.py` and `inference/` is a package: run from `inference/` it
    is that file, from elsewhere an installed `eval`; said, not skipped in silence. A module no
    file of the repository has (`-m lm_eval.x`) is not said."""
    from tests.conftest import run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "inference/__init__.py": "",
            "inference/eval/__init__.py": "",
            "inference/eval/mmlu/__init__.py": "",
            "inference/eval/mmlu/run_eval.py": parser + "p.parse_args()\n",
            "inference/eval/mmlu/run.sh": (
                "#!/bin/bash\npython -m eval.mmlu.run_eval --bogus 1\npython -m lm_eval.x --k 1\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    assert (
        "Python modules run with options where the repository's file of that name is not at its "
        "root, so an installed module of the name may be the one that runs, not read (BL116): 1 "
        "(inference/eval/mmlu/run.sh:2)"
    ) in result.warnings()


def test_a_parser_made_two_calls_deep_is_said_as_that(tmp_path: Any) -> None:
    """`train.py` calls `initialize` of `lib/initialize.py`, which calls `parse_args` of
    `lib/arguments.py` (Megatron's `pretrain` -> `initialize_megatron` -> `parse_args`): one
    call is followed, and the reason names the two, not that nothing parses. A script whose
    repository functions parse nothing two calls deep is said as making no parser."""
    from tests.conftest import run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "lib/__init__.py": "",
            "lib/arguments.py": (
                "import argparse\n\ndef parse_args():\n    p = argparse.ArgumentParser()\n"
                "    p.add_argument('--lr')\n    return p.parse_args()\n"
            ),
            "lib/initialize.py": (
                "from lib.arguments import parse_args\n\ndef initialize():\n"
                "    return parse_args()\n"
            ),
            "train.py": "from lib.initialize import initialize\n\ninitialize()\n",
            "run.sh": "#!/bin/bash\npython3 train.py --lr 1 --bogus 2\n",
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`train.py`: it makes no argparse parser, and parses its command line two calls deep "
        "(`initialize` of `lib/initialize.py`, which calls `parse_args` of `lib/arguments.py`): "
        "followed one call deep: 1 (run.sh:2)"
    ) in result.warnings()


def test_a_script_a_program_runs_after_its_dashdash_is_said(tmp_path: Any) -> None:
    """`efficiency-pentathlon run ... -- python3 client.py --k 1`: a program benchlint does not
    know runs the command after its `--`, where and how not known: said, not read. Near
    misses: no option after the script, a file of no repository, no interpreter after `--`."""
    from tests.conftest import run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "client.py": parser + "p.parse_args()\n",
            "submit.sh": (
                "#!/bin/bash\nbench-run --task t -- python3 client.py --bogus 8\n"
                "bench-run -- python3 client.py\nbench-run -- python3 other.py --k 1\n"
                "git log -- client.py --k\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    assert (
        "Python scripts run with options by a program benchlint does not know (the command after "
        "its `--`: where and how it runs it is not known), not read (BL116): 1 (submit.sh:2)"
    ) in result.warnings()


def test_a_script_path_a_variable_holds_is_said_where_it_cannot_be_told(tmp_path: Any) -> None:
    """`python3 "$SCRIPT" --k 1` where the script gives SCRIPT two paths (an if and its else),
    or one with an expansion of a folder not known: which file runs is not told, so the line
    is said, not read. Near misses: one path given once before is read (the finding), as is
    one from the script's own folder (`${HERE}/a.py`, even after a `cd`); no option after the
    script; a variable whose paths name no file of the repository (one under a folder not
    known names none)."""
    from tests.conftest import positions, run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "tools/a.py": parser + "p.parse_args()\n",
            "tools/b.py": parser + "p.parse_args()\n",
            "run.sh": (
                '#!/bin/bash\nif [ "$MODE" = a ]; then\n    SCRIPT=tools/a.py\nelse\n'
                '    SCRIPT=tools/b.py\nfi\npython3 "$SCRIPT" --bogus 3\n'
                'python3 "$SCRIPT"\nONE=tools/a.py\npython3 "$ONE" --bogus 4\n'
                'FAR=$HOME/x.py\npython3 "$FAR" --bogus 5\n'
                'python3 -u "$WHERE/tools/$NAME" --bogus 6\nWHERE=.; NAME=a.py\n'
            ),
            "env.sh": "#!/bin/bash\nT=${T:-tools/a.py}\ntorchrun --nproc_per_node 8 $T --bogus 9\n",
            # (the default quoted inside the expansion: the same path once bash removes them)
            "quoted.sh": '#!/bin/bash\nT=${T:-"tools/a.py"}\npython3 $T --bogus 13\n',
            # a folder whose default is the checkout's mount, behind a program not known
            "lib.sh": (
                '#!/bin/bash\nWS="${WS:-/workspace}"\nTOOLS="${TOOLS:-${WS}/tools}"\n'
                '"$PYBIN" "$TOOLS/a.py" --bogus 10\n'
            ),
            # two functions, each with an array of its own: each line is read
            "locals.sh": (
                '#!/bin/bash\na() { local c=(python3 tools/a.py --k 1); "${c[@]}"; }\n'
                'b() { local c=(python3 tools/b.py --bogus 12); "${c[@]}"; }\na\nb\n'
            ),
            # an array that holds the script, assigned twice
            "arrays.sh": (
                '#!/bin/bash\nCMD=(python3 tools/a.py)\n[ -n "$ALT" ] && CMD=(python3 tools/b.py)\n'
                '"${CMD[@]}" --bogus 11\n'
            ),
            "tools/eval.sh": (
                '#!/bin/bash\nHERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
                'EVAL="${HERE}/a.py"\ncd /tmp\npython3 "$EVAL" --bogus 7\n'
                'OTHER="${SOMEWHERE}/a.py"\npython3 "$OTHER" --bogus 8\n'
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == ["locals.sh:3:35", "run.sh:10:16", "tools/eval.sh:5:17"]
    assert (
        "Python scripts run after words whose values are not known (the program, or a "
        "launcher's options: one could name another script), not read (BL116): 1 (lib.sh:4)"
    ) in result.warnings()
    assert (
        "Python scripts run with options from a variable whose path there cannot be told (the "
        "script assigns it more than once, after the line, or with an expansion), not read "
        "(BL116): 4 (arrays.sh:4, env.sh:3, quoted.sh:3 and 1 more)"
    ) in result.warnings()


def test_a_script_path_through_a_symlinked_folder_is_read(tmp_path: Any) -> None:
    """`python3 modules/Repo/examples/train.py`, where `tools/launcher/modules/Repo` links to
    the repository's root: the file is `examples/train.py`, and its parser is read. Near
    miss: a symlinked folder that leaves the repository names no file of it."""
    import os

    from tests.conftest import positions, run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "examples/train.py": parser + "p.parse_args()\n",
            "tools/launcher/common/run.sh": (
                "#!/bin/bash\npython3 modules/Repo/examples/train.py --k 1 --bogus 2\n"
                "python3 modules/Far/examples/train.py --bogus 3\n"
            ),
        },
    )
    (tmp_path / "far" / "examples").mkdir(parents=True)
    (root / "tools/launcher/modules").mkdir()
    os.symlink("../../..", root / "tools/launcher/modules/Repo")
    os.symlink(tmp_path / "far", root / "tools/launcher/modules/Far")
    assert positions(run_lint(root, select="BL116")) == ["tools/launcher/common/run.sh:2:46"]


def test_a_script_given_to_a_wrapper_script_that_runs_its_arguments_is_read(
    tmp_path: Any,
) -> None:
    """`srun bash infra/wrap.sh python x.py --k 1`, where wrap.sh runs `"$@"`: the words after
    it are the command line that runs, as behind a repository script with no suffix
    (`./profwrap`), and `${PWD}/x.py` is `x.py`. Near misses: a script that does not plainly
    run its arguments (no `"$@"`: said); a wrapper that changes folders first (said, not read);
    one that runs its arguments in a container (said); a program at a path outside the
    repository, even one of the repository's names (said)."""
    from tests.conftest import positions, run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "x.py": parser + "p.parse_args()\n",
            "infra/wrap.sh": '#!/bin/bash\nset -e\nPYTHONPATH=.:$PYTHONPATH "$@"\n',
            "infra/copy.sh": '#!/bin/bash\ncp "$2" /tmp/\n',
            "infra/moved.sh": '#!/bin/bash\ncd /opt/app\nexec "$@"\n',
            "infra/boxed.sh": '#!/bin/bash\ndocker exec box "$@"\n',
            # its only `"$@"` is a function's: the script's own arguments go elsewhere
            "infra/retry.sh": (
                '#!/bin/bash\nretry() { "$@" || "$@"; }\nretry pip install foo\n'
                'exec python3 launch.py "$@"\n'
            ),
            "profwrap": '#!/bin/bash\nnsys profile --output /tmp/r "$@"\n',
            "launch.sh": (
                "#!/bin/bash\nsrun --nodes=1 bash infra/wrap.sh python x.py --bogus 1\n"
                "bash infra/copy.sh python x.py --bogus 2\n"
                "bash -x infra/moved.sh python3 x.py --bogus 3\n"
                "./infra/boxed.sh python3 x.py --bogus 4\n"
                "bash infra/wrap.sh python x.py --k 5\n"
                "srun -l ./profwrap torchrun --nproc_per_node 8 x.py --bogus 6\n"  # 7
                "srun -l /fsx/profwrap torchrun --nproc_per_node 8 x.py --bogus 7\n"  # 8
                "python3 ${PWD}/x.py --bogus 8\n"  # 9
                "bash infra/retry.sh python3 x.py --bogus 9\n"  # 10
                # the script's path in a variable assigned once before, behind either
                'S=x.py\nbash infra/wrap.sh python3 "$S" --bogus 10\n'  # 12
                "srun -l /fsx/profwrap torchrun --nproc_per_node 8 $S --bogus 11\n"  # 13
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == [
        "launch.sh:12:33",
        "launch.sh:2:47",
        "launch.sh:7:53",
        "launch.sh:9:21",
    ]
    assert (
        "Python scripts run with options behind a program benchlint cannot read (at a path "
        "outside the repository, or one no file of it has: what it runs them with is not known), "
        "not read (BL116): 2 (launch.sh:8, launch.sh:13)"
    ) in result.warnings()
    assert (
        "Python scripts given with options to a script of the repository that does not plainly "
        'run its arguments (`"$@"`: what it does with them is not known), not read (BL116): 2 '
        "(launch.sh:3, launch.sh:10)"
    ) in result.warnings()
    assert (
        "Python scripts run with options where their path may name a file other than the "
        "repository's (in a working directory not known), not read (BL116): 1 (launch.sh:4)"
    ) in result.warnings()
    assert (
        "Python scripts run with options where their path may name a file other than the "
        "repository's (in a container, on another host or as a Ray job), not read (BL116): 1 "
        "(launch.sh:5)"
    ) in result.warnings()


def test_a_script_word_inside_a_string_or_an_array_is_read(tmp_path: Any) -> None:
    """The script's word in a string run unquoted (`OPTS="bench.py --k 8"; python3 $OPTS`,
    `PY="python3 bench.py"; $PY $OPTS`) or in an array run with options after it (`"${CMD[@]}"
    --bogus 8`), assigned once before: bash runs the script with those words, and they are
    read. One appended to in a loop is said, not read. Near miss: a quoted `"$OPTS"` is one
    word (no script of that name)."""
    from tests.conftest import positions, run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "bench.py": parser + "p.parse_args()\n",
            "run.sh": (
                '#!/bin/bash\nOPTS="bench.py --bogus 1"\npython3 $OPTS\n'  # 2
                'PYTHON=python3\nOPTS2="bench.py --bogus 2"\n$PYTHON $OPTS2\n'  # 5
                'PY="python3 bench.py"\n$PY --k 1 --bogus 3\n'  # 8
                'CMD=(python3 bench.py)\n"${CMD[@]}" --bogus 4\n'  # 10
                'QUOTED="bench.py --bogus 5"\npython3 "$QUOTED"\n'
                # an array whose program a variable holds: assigned once before, or not known
                'RUN=("$PYTHON" bench.py --bogus 6)\n"${RUN[@]}"\n'  # 13
                'ODD=("$PZ" bench.py --bogus 7)\n"${ODD[@]}"\n'  # 15
            ),
            "loop.sh": (
                '#!/bin/bash\nOPTS="bench.py "\nfor r in 1 2; do\n'
                '  OPTS="$OPTS --k $r --bogus 6"\n  python3 $OPTS\ndone\n'
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == [
        "run.sh:10:13",
        "run.sh:13:25",
        "run.sh:2:16",
        "run.sh:5:17",
        "run.sh:8:11",
    ]
    assert any("not read (BL116): 1 (run.sh:15)" in w for w in result.warnings())
    assert (
        "Python scripts run with options from a variable whose path there cannot be told (the "
        "script assigns it more than once, after the line, or with an expansion), not read "
        "(BL116): 1 (loop.sh:5)"
    ) in result.warnings()


def test_env_assignments_a_variable_holds_are_not_the_program(tmp_path: Any) -> None:
    """`env $EXTRA_ENVS python3 tool.py --bogus`, EXTRA_ENVS assigned `NAME=VALUE` words once
    before (under an `if`: unset, env runs the same command): python3 runs tool.py, read
    whatever else the file runs (`$(python3 detect.py)`). Near miss: a variable the script
    does not assign may hold the program (said, not read)."""
    from tests.conftest import positions, run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "tool.py": parser + "p.parse_args()\n",
            "detect.py": "print('gpu')\n",
            "run.sh": (
                '#!/bin/bash\nif [[ "$1" == deep* ]]; then\n    EXTRA_ENVS="FOO=0 BAR=1"\nfi\n'
                "DEV=$(python3 detect.py)\nenv $EXTRA_ENVS python3 tool.py --k 1 --bogus\n"
                "env $OTHER python3 tool.py --k 1 --bogus\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == ["run.sh:6:39"]
    assert any("not read (BL116): 1 (run.sh:7)" in w for w in result.warnings())


def test_a_root_written_relative_to_the_script_names_its_file(tmp_path: Any) -> None:
    """The checkout's root written from the script's own folder, `$(cd "$(dirname
    "${BASH_SOURCE[0]}")/../.." && pwd)`, `$(realpath "$(dirname "$0")/../..")`, `$(dirname
    "$(dirname "$(readlink -f "$0")")")` (one folder up): a path under it names that file.
    Near miss: one folder up from `ci/scripts` is `ci/`, which has no such file."""
    from tests.conftest import positions, run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    roots = {
        "a.sh": '$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)',
        "b.sh": '$(realpath "$(dirname "$0")/../..")',
        "c.sh": '$(dirname "$(dirname "$(dirname "$(readlink -f "$0")")")")',
        "d.sh": '$(cd "$(dirname "$0")/.." && pwd)',
    }
    files = {
        f"ci/scripts/{name}": f'#!/bin/bash\nROOT="{root}"\npython3 "$ROOT/tools/t.py" --bogus\n'
        for name, root in roots.items()
    }
    root = write_repo(tmp_path / "repo", {"tools/t.py": parser + "p.parse_args()\n", **files})
    assert positions(run_lint(root, select="BL116")) == [
        "ci/scripts/a.sh:3:28",
        "ci/scripts/b.sh:3:28",
        "ci/scripts/c.sh:3:28",
    ]


def test_a_parser_another_call_of_the_parsing_module_gives_is_said_as_that(
    tmp_path: Any,
) -> None:
    """`train.py` parses with `parse_args` of `pkg/utils/common.py`, whose parser is
    `pkg.get_default_parser()` (a package's attribute): not followed, and said as that, not as
    a script that makes no parser."""
    from tests.conftest import run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "pkg/__init__.py": "from .launch import get_default_parser\n",
            "pkg/launch.py": (
                "import argparse\n\ndef get_default_parser():\n"
                "    return argparse.ArgumentParser()\n"
            ),
            "pkg/utils/__init__.py": "",
            "pkg/utils/common.py": (
                "import pkg\n\ndef parse_args():\n    parser = pkg.get_default_parser()\n"
                "    return parser.parse_args()\n\ndef launch_time():\n    return 0\n"
            ),
            # (a function of that module called first, that parses nothing, is not named:
            # t50a, InternEvo)
            "train.py": (
                "from pkg.utils.common import launch_time, parse_args\n"
                "def main(args):\n    launch_time()\n"
                "if __name__ == '__main__':\n    main(parse_args())\n"
            ),
            "run.sh": "#!/bin/bash\npython3 train.py --config c.yaml\n",
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`train.py`: it parses its command line with `parse_args` of `pkg/utils/common.py`, "
        "with a parser another call there gives it (not followed): 1 (run.sh:2)"
    ) in result.warnings()


def test_the_function_that_parses_is_named_past_a_class_and_through_a_helper(
    tmp_path: Any,
) -> None:
    """The module's function that parses is named: not a class of it the script uses first
    (t51a, InternEvo's `BatchSkipper`), and one that parses through a helper of the module
    (`init_indirect` -> `_args`) is one that parses, not a script that makes no parser."""
    from tests.conftest import run_lint, write_repo

    common = (
        "import pkg\n\nclass BatchSkipper:\n    pass\n\n"
        "def initialize():\n    return pkg.get_default_parser().parse_args()\n\n"
        "def init_indirect():\n    return _args()\n\n"
        "def _args():\n    return pkg.get_default_parser().parse_args()\n"
    )
    root = write_repo(
        tmp_path / "repo",
        {
            "pkg/__init__.py": "from .config import get_default_parser\n",
            "pkg/config.py": (
                "import argparse\n\ndef get_default_parser():\n"
                "    return argparse.ArgumentParser()\n"
            ),
            "pkg/utils.py": common,
            "first.py": (
                "from pkg.utils import BatchSkipper, initialize\nBatchSkipper()\ninitialize()\n"
            ),
            "helper.py": "from pkg.utils import init_indirect\ninit_indirect()\n",
            "run.sh": (
                "#!/bin/bash\npython3 first.py --config c.yaml\npython3 helper.py --config c.yaml\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    said = "Python scripts run with options whose parser cannot be told, not read (BL116): "
    assert (
        f"{said}`first.py`: it parses its command line with `initialize` of `pkg/utils.py`, "
        "with a parser another call there gives it (not followed): 1 (run.sh:2)"
    ) in result.warnings()
    assert (
        f"{said}`helper.py`: it parses its command line with `init_indirect` of `pkg/utils.py`, "
        "with a parser another call there gives it (not followed): 1 (run.sh:3)"
    ) in result.warnings()


def test_a_path_from_dollar_zero_in_a_sourced_file_is_said(tmp_path: Any) -> None:
    """`$(dirname "$0")` in a file a script sources is the sourcing script's folder, not the
    file's: said, not read (directly, or through a variable). The same in a script that runs
    on its own is read."""
    from tests.conftest import positions, run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    lib = 'HERE=$(dirname "$0")\nTOOL="${HERE}/x.py"\npython3 "$TOOL" --bogus 1\n'
    root = write_repo(
        tmp_path / "repo",
        {
            "x.py": parser + "p.parse_args()\n",
            "lib/x.py": parser + "p.parse_args()\n",
            "run.sh": "#!/bin/bash\nsource lib/common.sh\n",
            "lib/common.sh": (
                "#!/bin/bash\n"
                + lib
                + 'python3 "$(dirname "$0")/x.py" --bogus 2\n'
                # (with no option after it, nothing would be read: not said; t49b)
                + 'python3 "$(dirname "$0")/x.py"\n'
            ),
            "lib/alone.sh": "#!/bin/bash\n" + lib,
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == ["lib/alone.sh:4:17"]
    assert (
        "Python scripts run with options where their path may name a file other than the "
        "repository's (from `$0`, which names the script that sources this file), not read "
        "(BL116): 2 (lib/common.sh:4, lib/common.sh:5)"
    ) in result.warnings()


def test_a_script_path_a_function_is_given_is_read_where_every_call_gives_it(
    tmp_path: Any,
) -> None:
    """`run_peer() { local script=$1; python3 "$script" --bogus; }` and `run_peer x.py`: the
    path every call passes is the script. Near misses: two calls passing two paths, or one a
    variable (said, not read)."""
    from tests.conftest import positions, run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    body = 'run_peer() {\n    local script=$1\n    python3 "$script" --k 1 --bogus\n}\n'
    root = write_repo(
        tmp_path / "repo",
        {
            "examples/a.py": parser + "p.parse_args()\n",
            "examples/b.py": parser + "p.parse_args()\n",
            "one.sh": "#!/bin/bash\n" + body + "run_peer examples/a.py\nrun_peer examples/a.py\n",
            "two.sh": "#!/bin/bash\n" + body + "run_peer examples/a.py\nrun_peer examples/b.py\n",
            "var.sh": "#!/bin/bash\n" + body + 'run_peer examples/a.py\nrun_peer "$OTHER"\n',
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == ["one.sh:4:29"]
    assert (
        "Python scripts run with options from a variable whose path there cannot be told (the "
        "script assigns it more than once, after the line, or with an expansion), not read "
        "(BL116): 2 (two.sh:4, var.sh:4)"
    ) in result.warnings()


def test_a_named_run_says_the_places_about_the_named_file_alone(tmp_path: Any) -> None:
    """One warning holds lines about several scripts (`a.py` and `b.py`, both run after a
    `cd`): a run that names `a.py` says the places about `a.py`, not every place of it."""
    from tests.conftest import run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "a.py": parser + "p.parse_args()\n",
            "b.py": parser + "p.parse_args()\n",
            "run.sh": '#!/bin/bash\ncd "$1"\npython3 a.py --k 1\npython3 b.py --k 1\n',
        },
    )
    said = (
        "Python scripts run with options where their path may name a file other than the "
        "repository's (after a `cd`), not read (BL116): "
    )
    assert said + "2 (run.sh:3, run.sh:4)" in run_lint(root, select="BL116").warnings()
    named = run_lint(root, select="BL116", named=[root / "a.py"])
    assert named.warnings() == [said + "1 (run.sh:3)"]


def test_a_path_after_a_cd_elsewhere_is_said_where_a_file_of_any_folder_has_it(
    tmp_path: Any,
) -> None:
    """After `cd "$1"` a relative `load/bench.py` may name the file of any folder: said where
    the repository has such a file in some folder (`tests/load/bench.py`), not only where the
    root or the script's folders have it."""
    from tests.conftest import run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "tests/load/bench.py": parser + "p.parse_args()\n",
            "run.sh": '#!/bin/bash\ncd "$1"\npython3 load/bench.py --bogus 1\npython3 x.py --k 1\n',
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    assert (
        "Python scripts run with options where their path may name a file other than the "
        "repository's (after a `cd`), not read (BL116): 1 (run.sh:3)"
    ) in result.warnings()


def test_a_parser_of_a_class_another_module_defines_is_said_as_that() -> None:
    """`CustomArgumentParser(...)` imported from another module: no parser this reading knows
    is made, and the reason names the class, not that none is made."""
    source = (
        "from pkg.utils import CustomArgumentParser\n\n"
        "def main():\n    parser = CustomArgumentParser()\n    parser.add_argument('--k')\n"
        "    parser.parse_args()\n"
    )
    assert pyargs.read(source) == (
        "its parser's class is one it defines or imports (`CustomArgumentParser`, line 4), "
        "not argparse's"
    )


def test_a_named_script_whose_parser_another_module_makes_is_reported(tmp_path: Any) -> None:
    """`server/api.py` parses its command line with the parser `server/cli.py` makes: a run
    that names `api.py` (pre-commit, after an edit of it) reports the launch line that gives
    it an option neither has, as naming `cli.py` or the shell script does."""
    from tests.conftest import positions, run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "server/__init__.py": "",
            "server/cli.py": (
                "import argparse\n\n\ndef make_parser():\n"
                "    p = argparse.ArgumentParser()\n    p.add_argument('--port')\n    return p\n"
            ),
            "server/api.py": "from server.cli import make_parser\n\nmake_parser().parse_args()\n",
            "start.sh": "#!/bin/bash\npython3 -m server.api --port 1 --prot 2\n",
        },
    )
    for named in ("server/api.py", "server/cli.py", "start.sh"):
        assert positions(run_lint(root, select="BL116", named=[root / named])) == [
            "start.sh:2:32"
        ], named


def test_a_script_in_a_folder_the_caller_names_is_said(tmp_path: Any) -> None:
    """`python3 $WS_PATH/sync.py ...` in a file another script sources, WS_PATH set by that
    script (or the job): the repository's `sync.py` may be the one, at a folder not known
    here: counted in a warning, not passed over. Near miss: no file of the repository has the
    name."""
    from tests.conftest import positions, run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "utils/sync.py": parser + "p.parse_args()\n",
            "utils/server.sh": (
                '#!/bin/bash\nWS_PATH="${WS_PATH:-$(dirname "${BASH_SOURCE[0]}")}"\n'
                'source "$WS_PATH/worker.sh"\n'
            ),
            "utils/worker.sh": (
                "#!/bin/bash\npython3 $WS_PATH/sync.py --k 1 --bogus\n"
                "python3 $WS_PATH/other.py --k 1 --bogus\n"
            ),
            # (not a caller's: a variable the script sets, `$HOME`)
            "utils/own.sh": (
                "#!/bin/bash\nfor d in /opt; do python3 $d/sync.py --k 1 --bogus; done\n"
                "python3 $HOME/sync.py --k 1 --bogus\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == []
    assert (
        "Python scripts run with options where their path may name a file other than the "
        "repository's (in a folder a variable the script does not set names: its caller's, or "
        "the job's), not read (BL116): 1 (utils/worker.sh:2)"
    ) in result.warnings()


def test_a_script_in_a_folder_a_sourced_file_or_a_loop_names_is_said(tmp_path: Any) -> None:
    """`python3 "$WS/sync.py" ...` where a file the script sources sets WS, or a loop whose
    values are not all written out, or one that gives a folder holding the file: the folder is
    not followed, so the line is counted in a warning with that reason, not passed over. Near
    misses: a loop whose every value is written out and names no file of the repository."""
    from tests.conftest import positions, run_lint, write_repo

    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k')\n"
    root = write_repo(
        tmp_path / "repo",
        {
            "bench/sync.py": parser + "p.parse_args()\n",
            "bench/env.sh": "export WS=bench\n",
            "bench/run.sh": (
                '#!/bin/bash\nsource "$(dirname "$0")/env.sh"\n'
                'python3 "$WS/sync.py" --k 1 --bogus\n'
                'for d in bench; do python3 "$d/sync.py" --k 1 --bogus; done\n'
                'for d in "$X" /opt; do python3 "$d/sync.py" --k 1 --bogus; done\n'
                'for d in /opt bench2; do python3 "$d/sync.py" --k 1 --bogus; done\n'
                # (a loop's word inside the path: 1 or 2, never `bench`; WORK is the caller's)
                'for n in 1 2; do python3 "$WORK/$n/sync.py" --k 1 --bogus; done\n'
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert positions(result) == []
    said = "Python scripts run with options where their path may name a file other than the "
    assert (
        f"{said}repository's (in a folder named by a variable a file it sources sets: not "
        "followed), not read (BL116): 1 (bench/run.sh:3)"
    ) in result.warnings()
    assert (
        f"{said}repository's (in a folder named by a variable a loop or a `read` of the script "
        "sets: not followed), not read (BL116): 2 (bench/run.sh:4, bench/run.sh:5)"
    ) in result.warnings()
    assert (
        f"{said}repository's (in a folder a variable the script does not set names: its "
        "caller's, or the job's), not read (BL116): 1 (bench/run.sh:7)"
    ) in result.warnings()


def test_a_command_line_changed_after_the_parse_is_read() -> None:
    """`own, rest = p.parse_known_args()` then `sys.argv = [sys.argv[0], *rest]` (the rest
    handed on to another tool): the parser read the command line as given, so what it rejects
    (an ambiguous prefix) is read. Near misses: the change before the parse, the parse under an
    `if` (it may run after a change), a parse in another function, which may run later."""
    body = (
        "import argparse\nimport sys\n\n\ndef main():\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--self-test', action='store_true')\n"
        "    p.add_argument('--seed-file')\n"
        "    own, rest = p.parse_known_args()\n    sys.argv = [sys.argv[0], *rest]\n\n\nmain()\n"
    )
    read = pyargs.read(body)
    assert isinstance(read, pyargs.Parser), read
    assert dict(pyargs.problems(read, ["--se", "1"]))[0].kind == "ambiguous"
    said = "it changes its command line before parsing it (`sys.argv`)"
    before = body.replace(
        "    own, rest = p.parse_known_args()\n    sys.argv = [sys.argv[0], *rest]\n",
        "    sys.argv = sys.argv[:2]\n    own, rest = p.parse_known_args()\n",
    )
    assert pyargs.read(before) == said
    guarded = body.replace(
        "    own, rest = p.parse_known_args()\n",
        "    if len(sys.argv) > 1:\n        own, rest = p.parse_known_args()\n",
    )
    assert pyargs.read(guarded) == said
    elsewhere = body.replace(
        "    own, rest = p.parse_known_args()\n    sys.argv = [sys.argv[0], *rest]\n",
        "    return p\n\n\ndef trim():\n    sys.argv.pop()\n",
    ).replace("\nmain()\n", "\ntrim()\nmain().parse_args()\n")
    assert pyargs.read(elsewhere) == said


def test_scripts_that_make_no_parser_are_said_in_one_line(tmp_path: Any) -> None:
    """Scripts whose parser is in a module not in the repository (a git submodule): one warning
    line for all of them, with each run (which names its script); a script whose parser
    cannot be told for another reason keeps a line of its own (t54a, Pai-Megatron-Patch: 105
    lines)."""
    from tests.conftest import run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "a/train.py": "from megatron import get_args\nget_args()\n",
            "b/train.py": "import megatron\nmegatron.initialize()\n",
            "c/opaque.py": (
                "import argparse\nimport sys\nsys.argv.pop()\n"
                "p = argparse.ArgumentParser()\np.add_argument('--a')\np.parse_args()\n"
            ),
            "run.sh": (
                "#!/bin/bash\npython3 a/train.py --lr 1\npython3 b/train.py --lr 1\n"
                "python3 c/opaque.py --a 1\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    warnings = result.warnings()
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "scripts whose code makes no argparse parser benchlint follows (a library may make "
        "it): 2 (run.sh:2, run.sh:3)"
    ) in warnings
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "`c/opaque.py`: it changes its command line before parsing it (`sys.argv`): 1 (run.sh:4)"
    ) in warnings


def test_options_a_parse_known_args_parser_keeps_are_said_not_passed(tmp_path: Any) -> None:
    """(t64c) A script whose parser reads its command line with `parse_known_args` and does not
    know an option it is run with keeps the option for code after it (ms-swift's sft.py: a
    strict parser in another module reads it next): not reported, and said. A line whose
    options the parser all knows is checked as ever; one the strict parser decides (the
    keeping parser first, then `parse_args`) is read with the strict one."""
    from tests.conftest import run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "sft.py": (
                "import argparse\nfrom pkg import main\np = argparse.ArgumentParser()\n"
                'p.add_argument("--backend")\nargs, _ = p.parse_known_args()\nmain()\n'
            ),
            "strict.py": (
                "import argparse\np = argparse.ArgumentParser()\n"
                'p.add_argument("--config")\ncfg, _ = p.parse_known_args()\n'
                'p.add_argument("--lr")\np.parse_args()\n'
            ),
            "run.sh": (
                "#!/bin/bash\npython3 sft.py --backend x --model m\npython3 sft.py --backend y\n"
                "python3 strict.py --config c --lr 1 --bogus 2\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert [
        (f.location.path, f.location.span.line, f.location.span.column) for f in result.findings
    ] == [("run.sh", 4, 37)]
    assert [w for w in result.warnings() if "keeps" in w] == [
        "Python scripts run with options their parser does not know and keeps "
        "(`parse_known_args`: what reads them after it is not followed), not checked (BL116): "
        "1 (run.sh:2)"
    ]


# a script whose parser takes `--lr` alone
_LR_PARSER = (
    'import argparse\np = argparse.ArgumentParser()\np.add_argument("--lr")\np.parse_args()\n'
)


def test_options_a_variable_of_the_script_holds_with_several_values_are_said(
    tmp_path: Any,
) -> None:
    """(t65b) `o="--lr 1 --bad 2"; if ...; then o="--lr 2"; fi; python3 train.py $o`: which
    value runs is not known, so the options are not read, and the line is said (it was passed
    over: it had no option benchlint could read). A string built by appending is read."""
    from tests.conftest import positions, run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "train.py": _LR_PARSER,
            "run.sh": (
                '#!/bin/bash\nr="--lr 1 --bad 2"\nif [ -n "$X" ]; then r="--lr 2"; fi\n'
                'python train.py $r\no="--lr 1"\no+=" --lr 2"\npython train.py $o\n'
                "python train.py $FROM_CALLER\n"
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    assert [w for w in result.warnings() if "several values" in w] == [
        "Python scripts run with options held in a variable of the script whose value there is "
        "not known (given several values, in a loop or a function): the options it holds not "
        "read, those written out read (BL116): 1 (run.sh:4)"
    ]
    # (h24, srt-slurm's submit_disagg.sh) an option written out after such a variable is read
    with open(root / "run.sh", "a") as script:
        script.write("python train.py $r --bad 3\n")
    result = run_lint(root, select="BL116")
    assert positions(result, "BL116") == ["run.sh:9:20"]
    assert next(w for w in result.warnings() if "several values" in w).endswith(
        "(BL116): 2 (run.sh:4, run.sh:9)"
    )


def test_a_shell_string_a_program_runs_after_its_dashdash_is_said(tmp_path: Any) -> None:
    """(t65b) `gantry run ... -- /bin/bash -c "source env.sh && torchrun x.py --lr 1"`: the
    command the unknown program runs is counted as one after `python3 x.py` directly would be
    (not read: where and how it runs it is not known); a string that runs no script is not."""
    from tests.conftest import run_lint, write_repo

    root = write_repo(
        tmp_path / "repo",
        {
            "train.py": _LR_PARSER,
            "run.sh": (
                "gantry run --gpus 8 -- python train.py --lr 1 --bogus 2\n"
                'gantry run --gpus 8 -- /bin/bash -c "source env.sh && torchrun '
                '--nproc_per_node 8 train.py --lr 1 --bogus 2"\n'
                'gantry run --gpus 8 -- bash -c "echo hi"\n'
            ),
        },
    )
    result = run_lint(root, select="BL116")
    assert result.findings == []
    assert [w for w in result.warnings() if "after its `--`" in w] == [
        "Python scripts run with options by a program benchlint does not know (the command "
        "after its `--`: where and how it runs it is not known), not read (BL116): 2 (run.sh:1, "
        "run.sh:2)"
    ]


def test_a_parser_handed_to_a_function_of_another_module_that_may_parse_it_is_said_so() -> None:
    """(h20, SGLang's benchmarks: `args = add_common_sglang_args_and_parse(parser)`) A script
    whose parser nothing of it parses, handed to another module's function whose result it
    keeps: the reason names that function, not "no parser parses the command line"; near
    misses: a script that hands its parser on for options and parses it itself, and one that
    hands it nowhere."""
    handed = (
        "import argparse\nfrom common import add_args_and_parse\n"
        "p = argparse.ArgumentParser()\np.add_argument('--x')\nargs = add_args_and_parse(p)\n"
    )
    assert pyargs.read(handed) == (
        "it hands its parser to `add_args_and_parse` (line 5) of another module, which may "
        "parse it: not followed"
    )
    parsed = (
        "import argparse\nfrom common import add_args\n"
        "p = argparse.ArgumentParser()\nadd_args(p)\nargs = p.parse_args()\n"
    )
    assert isinstance(pyargs.read(parsed), pyargs.Parser)
    alone = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--x')\n"
    assert pyargs.read(alone) == pyargs.NOT_PARSED
