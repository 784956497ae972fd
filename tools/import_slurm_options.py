"""Build benchlint/data/slurm_options.json: the command-line options srun, sbatch and salloc
accept, per Slurm release, and those the pyxis SPANK plugin adds.

Usage: python tools/import_slurm_options.py SLURM_GIT_DIR PYXIS_GIT_DIR

SLURM_GIT_DIR is a clone of https://github.com/SchedMD/slurm and PYXIS_GIT_DIR one of
https://github.com/NVIDIA/pyxis (a bare clone will do: files are read with `git show`).

Slurm: each release's `src/common/slurm_opt.c` (the last tag of each major release from 20.11,
when the three commands' options moved there). Its `common_options[]` table lists every option;
an option is in a command's getopt table when it has a `.name` and a `.set_func` (all three
commands) or the command's own `.set_func_srun`, `.set_func_sbatch` or `.set_func_salloc`
(`slurm_option_table_create`). `.has_arg` says whether it takes a value, `.val` its short letter
when it is a character. The options stop at the first operand (the table's `+`). Whether the
release keeps an option's value as written (`text`): its set function is one a macro defines as
an `xstrdup(arg)` (`COMMON_STRING_OPTION(partition)`), which checks nothing, so a later value
(sbatch's command line after the `#SBATCH` lines) replaces it before anything reads it.
sbatch also reads the environment variables of `env_vars[]` in each release's
`src/sbatch/opt.c` (`{ "SBATCH_PARTITION", 'p' }`: a variable and the `.val` of the option it
sets), after the `#SBATCH` lines and before its command line (`process_options_second_pass`):
`env`, per sbatch option, the variables each release reads.

pyxis: `spank_opts[]` in each release's `args.c` (`pyxis_slurmstepd.c` before 0.8): name and
`has_arg` of each option. SPANK options are offered by srun, and by salloc and sbatch for the
plugins a cluster loads in their context; pyxis registers its options for all three.

Every release is recorded with its tag, its commit and the blob hash of the file read.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "benchlint" / "data" / "slurm_options.json"
SCHEMA_VERSION = 3
SLURM_MAJORS = ("20-11", "21-08", "22-05", "23-02", "23-11", "24-05", "24-11", "25-05", "25-11")
SLURM_MAJORS += ("26-05",)
COMMANDS = ("srun", "sbatch", "salloc")
_HAS_ARG = {"no_argument": 0, "required_argument": 1, "optional_argument": 2}
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[A-Za-z_]\w*|\d+|\S')


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def _last_tag(repo: Path, pattern: str) -> str:
    tags = [t for t in _git(repo, "tag", "--list").split() if re.fullmatch(pattern, t)]
    if not tags:
        raise SystemExit(f"{repo}: no tag matches {pattern}")
    return max(tags, key=lambda t: [int(n) for n in re.findall(r"\d+", t)])


def _source(repo: Path, tag: str, path: str) -> tuple[str, dict[str, str]]:
    text = _git(repo, "show", f"{tag}:{path}")
    where = {
        "tag": tag,
        "commit": _git(repo, "rev-list", "-n", "1", tag).strip(),
        "file": path,
        "blob": _git(repo, "rev-parse", f"{tag}:{path}").strip(),
    }
    return text, where


def _without_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


# what Slurm's configure defines in a default build (`X_AC_X11`: internal X11 forwarding unless
# `--disable-x11`); any other macro an `#ifdef` of slurm_opt.c tests is taken as not defined
# (`WITH_SELINUX`: only `--with-selinux`)
DEFAULT_BUILD = frozenset({"WITH_SLURM_X11"})


def default_build(text: str) -> str:
    """The text a default build compiles: of each `#ifdef`/`#ifndef`/`#else`/`#endif` (on a
    macro), the branch its macro's definition in `DEFAULT_BUILD` selects (slurm_opt.c's
    `slurm_opt_x11` is named `x11` only `#ifdef WITH_SLURM_X11`: h123 M17)."""
    kept, stack = [], []  # (stack: whether each open branch is compiled)
    for line in text.split("\n"):
        directive = re.match(r"\s*#\s*(ifdef|ifndef|if|else|elif|endif)\b\s*(\w*)", line)
        if directive is None:
            if all(stack):
                kept.append(line)
            continue
        word, macro = directive.groups()
        if word in ("ifdef", "ifndef"):
            stack.append((macro in DEFAULT_BUILD) == (word == "ifdef"))
        elif word == "if":  # (an expression: both branches kept, as before)
            stack.append(True)
        elif word in ("else", "elif") and stack:
            stack[-1] = not stack[-1] if word == "else" else stack[-1]
        elif word == "endif" and stack:
            stack.pop()
    return "\n".join(kept)


def text_setters(text: str) -> frozenset[str]:
    """The set functions that keep the value as written, checking nothing (`arg_set_partition`:
    `opt->partition = xstrdup(arg)`): those a macro of slurm_opt.c defines whose body, or a
    macro it expands, writes `arg_set_##field` as an `xstrdup(arg)`, invoked with a field."""
    text = _without_comments(text)
    bodies = {
        name: body.replace("\\\n", " ")
        for name, body in re.findall(r"#define (\w+)\(field\)((?:[^\n]*\\\n)*[^\n]*)", text)
    }

    def sets_text(macro: str, depth: int = 0) -> bool:
        body = bodies.get(macro, "")
        if "arg_set_##field(" in body and re.search(r"=\s*xstrdup\(arg\)", body):
            return True
        return depth < 3 and any(
            sets_text(inner, depth + 1) for inner in re.findall(r"\b(\w+)\(field\)", body)
        )

    setters = [name for name in bodies if sets_text(name)]
    if not setters:
        raise SystemExit("slurm_opt.c: no macro that defines a set function keeping its text")
    fields = re.findall(rf"^(?:{'|'.join(setters)})\((\w+)\)", text, re.M)
    return frozenset(f"arg_set_{field}" for field in fields if field != "field")  # (not in a macro)


def slurm_options(text: str) -> dict[str, dict[str, tuple[int, str | None, bool]]]:
    """Each command's named options in slurm_opt.c: {command: {name: (has_arg, short letter,
    whether its value is kept as written: `text_setters`)}} (one name may be two options:
    srun's `--wait=SECONDS`, sbatch's `--wait`)."""
    setters = text_setters(text)
    text = default_build(_without_comments(text))
    table = re.search(r"common_options\[\]\s*=\s*\{(.*?)\};", text, re.S)
    if table is None:
        raise SystemExit("slurm_opt.c: no common_options[] table")
    found: dict[str, dict[str, tuple[int, str | None, bool]]] = {c: {} for c in COMMANDS}
    for variable in re.findall(r"&slurm_opt_(\w+)", table.group(1)):
        body = re.search(rf"slurm_cli_opt_t slurm_opt_{variable}\s*=\s*\{{(.*?)\}};", text, re.S)
        if body is None:
            raise SystemExit(f"slurm_opt.c: no definition of slurm_opt_{variable}")
        fields = {k: v.strip() for k, v in re.findall(r"\.(\w+)\s*=\s*([^,\n]+)", body.group(1))}
        name = fields.get("name", "NULL")
        if name == "NULL":
            continue  # (options that exist only as environment variables)
        val = fields.get("val", "")
        arg, short = _HAS_ARG[fields["has_arg"]], val[1] if re.fullmatch(r"'.'", val) else None
        for command in COMMANDS:
            setter = fields.get(f"set_func_{command}", fields.get("set_func"))
            if setter is not None:
                found[command][json.loads(name)] = (arg, short, setter in setters)
    return found


def sbatch_env(options_text: str, opt_text: str) -> dict[str, list[str]]:
    """{sbatch option name: the environment variables sbatch reads for it}: `env_vars[]` of
    sbatch/opt.c, each variable's `.val` resolved to the option of slurm_opt.c with that `.val`
    that sbatch has (`.set_func` or `.set_func_sbatch`)."""
    options_text, opt_text = _without_comments(options_text), _without_comments(opt_text)
    by_val: dict[str, str] = {}
    for body in re.findall(r"slurm_cli_opt_t slurm_opt_\w+\s*=\s*\{(.*?)\};", options_text, re.S):
        fields = {k: v.strip() for k, v in re.findall(r"\.(\w+)\s*=\s*([^,\n]+)", body)}
        if fields.get("name", "NULL") == "NULL" or "val" not in fields:
            continue
        if "set_func" in fields or "set_func_sbatch" in fields:
            by_val[fields["val"]] = json.loads(fields["name"])
    table = re.search(r"env_vars_t env_vars\[\]\s*=\s*\{(.*?)\};", opt_text, re.S)
    if table is None:
        raise SystemExit("sbatch/opt.c: no env_vars[] table")
    found: dict[str, list[str]] = {}
    for variable, val in re.findall(r'\{\s*"(\w+)"\s*,\s*([^,}\s]+)\s*[,}]', table.group(1)):
        if val in by_val:
            found.setdefault(by_val[val], []).append(variable)
    if not found:
        raise SystemExit("sbatch/opt.c: no variable of env_vars[] sets an option")
    return found


def pyxis_options(text: str) -> dict[str, int]:
    """{name: has_arg} of pyxis's spank_opts[]."""
    text = _without_comments(text)
    table = re.search(r"struct spank_option spank_opts\[\]\s*=\s*\{(.*)\};", text, re.S)
    if table is None:
        raise SystemExit("pyxis: no spank_opts[] table")
    found: dict[str, int] = {}
    depth, fields, current = 0, [], []  # (the fields of one `{...}` entry, string literals joined)
    for token in _TOKEN.findall(table.group(1)):
        if token == "{":
            depth += 1
            fields, current = [], []
        elif token == "}":
            depth -= 1
            if depth < 0:
                break  # (the end of the table)
            fields.append(" ".join(current))
            if len(fields) >= 4 and fields[0].startswith('"'):
                found[json.loads(fields[0])] = int(fields[3])
        elif token == "," and depth == 1:
            fields.append(" ".join(current))
            current = []
        elif depth == 1:
            current.append(token)
    return found


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    slurm, pyxis = Path(sys.argv[1]), Path(sys.argv[2])
    releases = []
    # {command: {name: {"short": letter, "arg": its has_arg in each release, "-": absent}}}
    options: dict[str, dict[str, dict[str, object]]] = {c: {} for c in COMMANDS}
    env: dict[str, dict[str, str]] = {}  # {sbatch option: {variable: "1" per release reading it}}
    for index, major in enumerate(SLURM_MAJORS):
        tag = _last_tag(slurm, rf"slurm-{major}-\d+-\d+")
        text, where = _source(slurm, tag, "src/common/slurm_opt.c")
        opt_text, opt_where = _source(slurm, tag, "src/sbatch/opt.c")
        sbatch_file = {k: opt_where[k] for k in ("file", "blob")}
        releases.append({"version": major.replace("-", "."), **where, "sbatch": sbatch_file})
        for name, variables in sbatch_env(text, opt_text).items():
            known_env = env.setdefault(name, {})
            for variable in variables:
                was = known_env.get(variable, "-" * len(SLURM_MAJORS))
                known_env[variable] = was[:index] + "1" + was[index + 1 :]
        for command, table in slurm_options(text).items():
            for name, (arg, short, kept) in table.items():
                absent = "-" * len(SLURM_MAJORS)
                known = options[command].setdefault(
                    name, {"short": short, "arg": absent, "text": absent}
                )
                was, text_was = str(known["arg"]), str(known["text"])
                known["arg"] = was[:index] + str(arg) + was[index + 1 :]
                known["text"] = text_was[:index] + str(int(kept)) + text_was[index + 1 :]
                known["short"] = short  # (the newest release's)
    for name, variables in env.items():
        if name in options["sbatch"]:
            options["sbatch"][name]["env"] = dict(sorted(variables.items()))
    pyxis_releases = []
    pyxis_found: dict[str, int] = {}
    tags = [t for t in _git(pyxis, "tag", "--list").split() if re.fullmatch(r"v\d+\.\d+\.\d+", t)]
    for tag in sorted(tags, key=lambda t: [int(n) for n in t[1:].split(".")]):
        files = _git(pyxis, "ls-tree", "--name-only", tag).split()
        text, where = _source(pyxis, tag, "args.c" if "args.c" in files else "pyxis_slurmstepd.c")
        pyxis_releases.append({"version": tag.removeprefix("v"), **where})
        pyxis_found.update(pyxis_options(text))  # (the newest release's value for each)
    data = {
        "schema_version": SCHEMA_VERSION,
        "generator": "tools/import_slurm_options.py",
        "slurm": {
            "source": "https://github.com/SchedMD/slurm",
            "releases": releases,
            # per command, each option: its short letter and, one character per release,
            # whether it takes a value (0 none, 1 required, 2 optional: only as --name=VALUE;
            # -: the release has no such option), and whether the release keeps its value as
            # written, checking nothing (1: `xstrdup(arg)`, as for `--partition`; 0: its set
            # function reads it; -: no such option); sbatch's options, the environment
            # variables that set them (`env`: 1 for each release that reads the variable)
            "options": {c: dict(sorted(table.items())) for c, table in options.items()},
        },
        "pyxis": {
            "source": "https://github.com/NVIDIA/pyxis",
            "releases": pyxis_releases,
            # every option any release registers, and whether it takes a value
            "options": dict(sorted(pyxis_found.items())),
        },
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    counts = ", ".join(f"{c} {len(t)}" for c, t in options.items())
    print(f"{OUT}: options of {counts} over {len(releases)} releases; pyxis {len(pyxis_found)}")


if __name__ == "__main__":
    main()
