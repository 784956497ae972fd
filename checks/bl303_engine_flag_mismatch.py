"""A flag the engine release that runs it does not accept, or another engine's flag.

## What it does
Reports, from the flags of every released vLLM and SGLang (`benchlint/data/engine_flags.json`:
vLLM 0.10.0-0.34.0, SGLang 0.4.0-0.5.23, per release):
- on an engine launch in a script (`vllm serve`, `python -m sglang.launch_server`, vLLM's
  legacy `api_server` and `grpc_server` too, behind any wrapper or an optional `${PREFIX:-}`,
  run from a string by `bash -c`, `eval` or `$CMD`, with flags in arrays or in plain strings
  expanded unquoted), a flag the release that runs it does not accept. The release is read
  from the `image:` of the master-config entries whose jobs run the script
  (`vllm/vllm-openai:v0.15.1`, `lmsysorg/sglang:v0.5.8-cu130`), through the launcher their
  runner starts and the path it builds from their fields; where no entry's image names one,
  from the configuration's `engine-releases` (`{ vllm = "0.26.0" }`: the release a
  repository's own scripts run, which nothing in it says). The message names the release and
  when the flag left or arrives;
- in a recipe's `backend.<engine>_config.<role>` (keys merged in with `<<: *common` too,
  reported once at the anchor; srtctl's schema 2, a document saying
  `schema: 2`: `roles.<role>.args`, run by the role's own `engine`, else the block's, else the
  base's, else SGLang; in the recipe folders, and in any other YAML file of that shape: a
  template a launcher renders), a flag the release of the recipe's `model.container` image does
  not accept (a schema 2 role's own `container` wins, then an override block's own container; a
  Dynamo vllm-runtime image runs the vLLM its release pins);
- in a Kubernetes container (a Deployment's, a LeaderWorkerSet's: its `command` and `args`,
  or the script a `sh -c` item runs; `args` alone on vLLM's OpenAI image or its CPU release
  images, whose entrypoint runs them with `vllm serve`), in a Compose service (its `entrypoint`,
  else its image's, then its `command`: a list, or a string split into words; options alone on
  another image named for an engine, `opea/vllm-rocm`, whose entrypoint is not known, are
  counted), in a SkyPilot task's `run:` script (in the
  image its `resources` `image_id: docker:...` names, or the exact release its `setup:` installs,
  `pip install vllm==0.19.0`, its comments aside; a task without `resources:` too, where it has a
  `setup:` and only a task's keys), in a script's `docker run` (or `podman
  run`) of that image with flags after it or of any image with the launch after it (`docker run
  lmsysorg/sglang:v0.5.8 python3 -m sglang.launch_server ...`) or in the string its shell runs
  (`bash -c 'exec vllm serve ...'`, not one that first installs the engine; a `-c` string's
  `"$@"` is the arguments after it, a Kubernetes container's `args:` too), and in a launch an `srun
  --container-image=IMAGE` (pyxis) runs, a flag the release of the container's image does not
  accept (not where the container's processes get a PYTHONPATH of their own, `-e
  PYTHONPATH=/src/python` or `PYTHONPATH=python exec python3 -m ...` in its string: a checkout
  of the engine mounted there may run; counted); a Dynamo vLLM runtime image
  (`nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0`) holds the vLLM its release pins, for a
  measured release (`benchlint/data/dynamo_vllm_worker.json`: Dynamo 0.8.0 pins vLLM 0.12.0);
- in a container of the engine's `latest` image (`vllm/vllm-openai:latest`, or no tag), which
  holds the newest release when it was pulled, at least the newest measured one: a flag every
  measured release since one rejects (`--max-seq-len-to-capture`, none from 0.11.0 to 0.34.0), a
  warning whose message says so (a host may keep an older `latest` it pulled before);
- where no release is known (a nightly or custom image, a container alias, a script no entry
  runs, a script a container writes to a file for another to
  run, `cat > entry.sh <<EOF`; every report counts these launches when one of their
  flags is one only some releases accept), a flag only the other engine has: on SGLang
  `--enable-auto-tool-choice`, `--max-num-seqs`, `--gpu-memory-utilization`; on vLLM
  `--mem-fraction-static`, `--max-running-requests`, `--disable-radix-cache`, with the
  engine's own spelling where there is one;
- where the release is known (either way above), a flag no release of the engine has that is
  one slip from a flag that release has (a letter more, less or other, or two neighbours
  swapped: `--tensor-paralel-size`, `--gpu-memory-utilisation`): a misspelling; where no
  release is known, the slip of a flag every measured release has (`--no-enable-prefixcaching`
  in a nightly image), and two flags written on one launch, one gone before a measured release
  that has neither and the other come after it (`--max-seq-len-to-capture`, gone after 0.10.2,
  beside `--disable-access-log-for-endpoints`, from 0.16.0), each a warning whose message says
  the release is not known;
- a flag written with three dashes (`---enable-eplb`), an option of no release, on any launch;
- a vLLM flag written with one dash where the parser reads an option (`-host 0.0.0.0`,
  `-max-model-len=8192`): argparse finds no option of that name in any measured release and
  exits (`-host` is read as `-h`, which prints the usage: an error before Python 3.12.3, the
  help after), or, where the word starts with a one-letter option, reads it as that option
  with the rest as its value (`-quantization fp8`: `-q uantization`) where the rest with two
  dashes is a flag of vLLM (not vLLM's own one-dash options, `-tp 8`, `-tp=8`, an abbreviation
  of one, `-O3`, `-qfp8` read as `-q fp8`, a word an option before it takes as its value, or
  one after a word whose value is not known; SGLang's one-dash options are not in the data,
  so its launches are not judged so);
- an SGLang flag written with `_` on a launch's command line (`--mem_fraction_static`, a
  Kubernetes `args:` item's `--tp_size`): SGLang's parser is argparse's own, which takes only
  `--mem-fraction-static` (vLLM's reads `_` as `-`; a recipe's keys are not read so);
- a flag of the engine and its value written as one word (`"--quantization bitsandbytes"` in a
  Kubernetes `args:` item or a compose list): argparse reads a word with a blank in it as a
  positional argument, on any launch (not `--flag=a b`, whose value is all after the `=`; a
  quoted word of a script is BL106's).

## Why is this bad?
Both servers use argparse and exit at once on an unknown option: the job fails after the
allocation was granted. The usual causes are a flag a newer release removed
(`--max-seq-len-to-capture` is gone after vLLM 0.10.2) kept while the image moved on, and flags
copied between recipes of the two engines.

## Example
```yaml path=benchmarks/multi_node/srt-slurm-recipes/sglang/a.yaml
backend:
  type: sglang
  sglang_config:
    decode:
      enable-auto-tool-choice: true
      gpu-memory-utilization: 0.9
```

## Use instead
```yaml path=benchmarks/multi_node/srt-slurm-recipes/sglang/a.yaml
backend:
  type: sglang
  sglang_config:
    decode:
      tool-call-parser: kimi_k2
      mem-fraction-static: 0.9
```

## Exceptions
A launch a script of the repository is given and runs as its arguments (`./tools/wrap.sh python3 -m
sglang.launch_server ...` with `"$@"`, `exec "$@"` or `exec numactl ... "$@"` in it) is read as that
launch, not where the script changes folders first or runs them in a container. Not reported: a flag
no measured release of the engine knows (Dynamo's `--dyn-*` flags, a fork's options) but a
misspelling where the release is known, a release outside the measured range, a release between two
measured ones that differ on the flag, an abbreviation argparse would accept, and a launch some job
runs with an image that names no release (then only another engine's flags are reported: not a
vLLM `--disable-X` of an `--enable-X`, which vLLM 0.33.0 on accepts as its inverse). Of a
recipe key written twice in one mapping only the last is checked: PyYAML drops the first (BL203
reports it). Launches of programs with no flag data (`trtllm-serve`, `python -m dynamo.sglang`, the
SGLang router) are not checked either; every report counts them, by program, and so does it a launch
behind a word whose value is not known (`$PREFIX vllm serve ...` where the script does not give
PREFIX only a wrapper's words or nothing; `python3 -m "$MODULE"` where it gives MODULE an engine's
module among others, or only under a condition). A launch handed its function's or script's
arguments (`vllm serve m "$@"`) is checked for the flags it writes; those a caller passes are not
read, and every report counts such launches (not a function whose every call passes none).
A flag a line adds under a condition the launch does not run under
(`[[ $PREFILL_ENABLE_DP == true ]] && CONFIG+=" --enable-dp-attention"`) is reported with that
condition, and not where every route through the launcher decides it false; where no route
decides it true (a script the launcher starts, whose conditions its callers' values decide), it
is a warning: the flag is wrong, whether a job sets the condition is not known.
`sglang serve` is read as SGLang's language-model
server, which it runs for every model but a diffusion model (whose server parses other flags, with
no data here): one given `--model-type diffusion` is counted so; one told a diffusion model only by
its model path is not known here, and is read as the language model's.

## Fix safety
Only a flag with three dashes or with one has a fix: dropping a dash (`---enable-eplb` to
`--enable-eplb`), or adding one (`-host` to `--host`), where the result is a flag of the engine,
is safe: it is the option the line means. A flag split from a variable's string or an array's
item has none (the assignment may be used elsewhere).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterator, Sequence

from benchlint.calls import script_runs_arguments, script_word_at
from benchlint.context import Context
from benchlint.dynamo import flag_name, worker_flags
from benchlint.engine_flags import ENGINES, engine_flags
from benchlint.engines import (
    Arg,
    Launch,
    container_image,
    hidden_launches,
    launch_in,
    launches,
)
from benchlint.finding import Edit, Finding, Fix, Location, Severity, Span, Undecided, clip
from benchlint.images import dynamo_runtime, image_latest, image_release
from benchlint.layout import engine_block
from benchlint.lazyre import lazy_compile
from benchlint.manifests import Container, containers, may_hold_containers, only_options
from benchlint.recipe import engine_configs, settings_root
from benchlint.registry import rule
from benchlint.releases import Running, beyond_scope, launch_releases
from benchlint.shell.invocation import FILES
from benchlint.shell.model import Command, Guard, Script, Word, written_later
from benchlint.source import SourceText
from benchlint.wiring import Entry, Route
from benchlint.yamlmodel import YamlDocument, YNode

# The other engine's spelling of the same setting.
EQUIVALENT = {
    "--max-num-seqs": "--max-running-requests",
    "--gpu-memory-utilization": "--mem-fraction-static",
    "--max-num-batched-tokens": "--chunked-prefill-size",
    "--enable-auto-tool-choice": "nothing like it: drop it (--tool-call-parser is enough)",
    "--mem-fraction-static": "--gpu-memory-utilization",
    "--max-running-requests": "--max-num-seqs",
    "--chunked-prefill-size": "--max-num-batched-tokens",
    "--disable-radix-cache": "--no-enable-prefix-caching",
}


def _message(flag: str, shown: str, engine: str, owner: str, where: str) -> tuple[str, str]:
    """The finding's message and its help (the engine's own spelling, where it has one)."""
    equivalent = EQUIVALENT.get(flag)
    hint = f"{ENGINES[engine]}'s spelling: {equivalent}" if equivalent else ""
    if equivalent and equivalent.startswith("nothing"):
        hint = f"{ENGINES[engine]} has {equivalent}"
    message = (
        f"`{shown}` {where} is a {ENGINES[owner]} flag that {ENGINES[engine]} does not have: "
        "the server exits with `unrecognized arguments`"
    )
    return message, hint


def _three_dashes(arg: Arg, engine: str, where: str, path: str) -> Finding:
    """A flag written with three dashes (`---enable-eplb`): no option argparse knows, in any
    release; the fix drops one dash where the rest is a flag of the engine."""
    shown = arg.value.split("=", 1)[0]
    meant = flag_name(shown[1:])
    known = meant in engine_flags().union[engine]
    dash = _first_dash(arg, path, "")
    fix = Fix(f"write `{meant}`", (dash,)) if known and dash is not None else None
    return Finding(
        "BL303",
        f"`{shown}` {where} has three dashes: no release of {ENGINES[engine]} has such an option, "
        "and the server exits with `unrecognized arguments`"
        + (f" (`{meant}` is one of its flags)" if known else ""),
        Location(path, arg.span),
        subject=shown,
        help=f"write `{meant}`" if known else "",
        fix=fix,
    )


def _one_dash(launch: Launch, where: str, path: str) -> Iterator[tuple[Arg, Finding]]:
    """A vLLM flag written with one dash where the parser reads an option (`-host 0.0.0.0`,
    `-max-model-len=8192`): argparse finds no such option in any measured release (it reads
    `-host` as `-h`, which prints the usage and exits; `-quantization` as `-q` with the value
    `uantization`), and the server does not serve as meant; the fix adds the dash where the
    rest is a flag of vLLM, on the launch's own line. Not a word read as an option's value, a
    number, a word with a blank (a positional argument), one after `--`, nor one after a word
    whose value is not known."""
    data = engine_flags()
    if launch.engine != "vllm":
        return
    flags = launch.flags
    measured = data.versions["vllm"]
    for index, arg in enumerate(flags):
        value = arg.value
        if value == "--":
            return
        if not _ONE_DASH.fullmatch(value) or value.startswith("-O") or _value_at(launch, index):
            continue
        reading = data.one_dash_reading("vllm", value)
        if reading is None:
            continue
        shown = value.split("=", 1)[0]
        meant = flag_name("-" + shown)
        known = meant in data.union["vllm"]
        kind, said = reading
        if kind == "short" and not known:
            continue  # (`-qfp8`: `-q fp8`, as meant)
        if kind == "rejected":
            what = f"no vLLM release from {measured[0]} to {measured[-1]} has such an option, "
            what += f"and the server exits with {said}"
        elif kind == "help":
            what = (
                f"no vLLM release from {measured[0]} to {measured[-1]} has such an option: "
                f"argparse reads `-h` (help), then `{said}`, and the server prints its usage "
                "and exits instead of serving"
            )
        else:
            rest = value[len(said) :]  # (`-quantization=fp8`: `uantization=fp8`, h96 W1)
            what = f"argparse reads it as `{said}` with the value `{rest}`, not as `{meant}`"
        own = any(arg.word is w for w in launch.command.words)  # (not an array's item)
        dash = _first_dash(arg, path, "--") if own else None
        written = "-" + shown
        fix = Fix(f"write `{written}`", (dash,)) if known and dash is not None else None
        yield (
            arg,
            Finding(
                "BL303",
                f"`{shown}` {where} has one dash: {what}"
                + (f" (`{meant}` is one of its flags)" if known and kind != "short" else ""),
                Location(path, arg.span),
                subject=shown,
                help=f"write `{written}`" if known else "",
                fix=fix,
            ),
        )


# a word argparse may read as an option with one dash: a letter, then letters, digits, `-`,
# `_`, and a value after `=`
_ONE_DASH = lazy_compile(r"-[A-Za-z][A-Za-z0-9_-]+(?:=.*)?", re.S)


def _value_at(launch: Launch, index: int) -> bool:
    """Whether the word at `index` of the launch's flags may be read as the value of the option
    before it (`--served-model-name -x`), or what comes before is not known (an unquoted `$X`
    the script gives no value: it may be an option, or nothing; a quoted `"$X"` is one word,
    read as a value, the option's before it or the model)."""
    before = launch.flags[:index]
    if not before:
        return False
    previous = before[-1]
    if _UNKNOWN.search(previous.value) and not previous.word.static:
        # (`$EXTRA -host`: `$EXTRA` may be an option, or nothing; `--port "$PORT" -host`: one
        # word, the value of `--port`)
        return previous.word.node.type != "string"
    return launch.after_option(previous.value) == "value"


_UNKNOWN = lazy_compile(r"[$`]")


def _first_dash(arg: Arg, path: str, text: str) -> Edit | None:
    """The edit that writes `text` in place of the flag's first dash, inside its quotes
    (`"---x"`, a Kubernetes `args:` item); None for a flag split from a variable's string
    (its assignment may give other words) or one whose dash is not placed in the file."""
    word = arg.word
    if word.value != arg.value or not word.offsets:
        return None
    line, column = word.script.file.point(word.offsets[0])
    if word.script.file.line_text(line)[column - 1 : column] != "-":
        return None
    return Edit(path, Span(line, column, line, column + 1), text)


def _underscored(arg: Arg, engine: str, where: str, path: str) -> Finding | None:
    """An SGLang flag written with `_` (`--mem_fraction_static`): SGLang parses its command line
    with argparse's own parser, which takes an option only as registered (`--mem-fraction-static`,
    every release measured: 0.5.23's `prepare_server_args` too) and exits with `unrecognized
    arguments`; vLLM's `FlexibleArgumentParser` reads `_` as `-` (t87 h12)."""
    shown = arg.value.split("=", 1)[0]
    if engine != "sglang" or "_" not in shown or not shown.startswith("--"):
        return None
    meant = flag_name(shown)
    if meant not in engine_flags().union[engine]:
        return None  # (no flag of it either way: the other checks say what they can)
    return Finding(
        "BL303",
        f"`{shown}` {where} is written with `_`: SGLang's parser takes `{meant}` only, and the "
        "server exits with `unrecognized arguments`",
        Location(path, arg.span),
        subject=shown,
        help=f"write `{meant}`",
    )


def _quoted_long_flag(arg: Arg) -> bool:
    """A quoted word of a shell script holding a long flag, a blank and more (`"--tp 8"`):
    BL106 reports it (one argument, not flags), with the help to split it; not an item of a
    YAML file's list (a Kubernetes `args:`, a compose `command:`), which BL106 does not read."""
    return (
        arg.word.node.type in ("string", "raw_string")
        and arg.value.startswith("--")
        and not arg.word.script.path.endswith((".yaml", ".yml"))
    )


def _joined(launch: Launch, arg: Arg, engine: str, where: str, path: str) -> Finding | None:
    """A flag of the engine and its value written as one word of the launch (`"--quantization
    bitsandbytes"`, a Kubernetes `args:` item; t82b, inference-perf): argparse takes a word with
    a blank in it for a positional argument, never for the option. Not `--flag=a b` (its value
    is all after the `=`), a word whose first part is no flag of the engine (a fork's, not
    told), an item of an array (unquoted, `${ARGS[@]}` splits it) or a word `ssh` gives a
    remote shell, which splits it again (t83a)."""
    parts = arg.value.split(None, 1)
    if len(parts) < 2 or "=" in parts[0]:
        return None
    if all(arg.word is not word for word in launch.args):
        return None
    if any(w.name == "ssh" for w in launch.command.invocation.wrappers):
        return None
    if flag_name(parts[0]) not in engine_flags().union[engine]:
        return None
    head, value = parts[0], parts[1].strip()
    return Finding(
        "BL303",
        f"`{clip(arg.value, 50)}` {where} is one argument: argparse reads a word with a blank in "
        f"it as a positional argument, never as `{head}` and its value: `{head}` is not set "
        "(the server stops at the word, `unrecognized arguments`, or takes it for another "
        "value: the model, or a list option's before it)",
        Location(path, arg.span),
        subject=head,
        help=f"write `{head}={clip(value, 30)}`, or the flag and its value as two arguments",
    )


def _release_finding(
    flag: str, arg: Arg, engine: str, runs: list[Running], where: str, script_path: str
) -> Finding | None:
    """The finding for a flag every release that runs the launch rejects, else None."""
    data = engine_flags()
    if flag not in data.union[engine] and data.foreign(engine, flag) is None:
        # a flag no measured release knows: a fork's or a newer one's, not told; one a slip
        # from a flag of the releases that run it is a misspelling
        slip = data.slip_of(engine, flag)
        if slip is None or not all(
            data.accepts(engine, r.version, flag) is False and data.accepts(engine, r.version, slip)
            for r in runs
        ):
            return None
        versions = ", ".join(dict.fromkeys(r.version for r in runs))
        entries = [e for r in runs for e in r.entries]
        return _slip_finding(
            arg.value,
            engine,
            slip,
            f"{versions}, {runs[-1].said(_named(entries))}",
            where,
            Location(script_path, arg.span),
            tuple(
                Location(e.location.path, e.location.span, f"entry {e.name}") for e in entries[:3]
            ),
            flag,
        )
    if not all(data.accepts(engine, r.version, flag) is False for r in runs):
        return None
    versions = ", ".join(r.version for r in runs)
    entries = [e for r in runs for e in r.entries]
    named = _named(entries)
    history = data.history(engine, runs[-1].version, flag)
    owner = data.foreign(engine, flag)
    hint = EQUIVALENT.get(flag, "") if owner is not None else ""
    return Finding(
        "BL303",
        f"`{arg.value}` {where} is not a flag of {ENGINES[engine]} {versions}, "
        f"{runs[-1].said(named)}: the server exits with "
        + data.rejection(engine, runs[-1].version, flag),
        Location(script_path, arg.span),
        related=tuple(
            Location(e.location.path, e.location.span, f"entry {e.name}") for e in entries[:3]
        ),
        subject=flag,
        notes=(history,) if history else (),
        involves=tuple(e.name for e in entries),
        help=f"{ENGINES[engine]}'s spelling: {hint}"
        if hint and not hint.startswith("nothing")
        else "",
    )


def _named(entries: list[Entry]) -> str:
    return ", ".join(e.name for e in entries[:2]) + (
        f" and {len(entries) - 2} more" if len(entries) > 2 else ""
    )


def _slip_finding(
    shown: str,
    engine: str,
    slip: str,
    release: str,
    where: str,
    location: Location,
    related: tuple[Location, ...],
    subject: str,
) -> Finding:
    """A flag no release of the engine has, one slip from a flag of the release that runs it
    (`engine_flags.slip_of`): a misspelling the server exits on."""
    measured = engine_flags().versions[engine]
    return Finding(
        "BL303",
        f"`{shown}` {where} is not a flag of {ENGINES[engine]} {release}, nor of any release "
        f"from {measured[0]} to {measured[-1]}: the server exits with "
        f"`unrecognized arguments` (`{slip}` is one of its flags)",
        location,
        related=related,
        subject=subject,
        help=f"did you mean `{slip}`?",
    )


def _written(launch: Launch) -> list[Arg]:
    """The launch's flags written on its own command line (not from an array or a string a
    condition may have built: flags of two branches never run together, t74a)."""
    own = {id(word) for word in launch.command.words}
    return [a for a in launch.flags if a.value.startswith("--") and id(a.word) in own]


def _apart(engine: str, flags: list[tuple[str, str, Location]], where: str) -> Finding | None:
    """Where the release that runs a launch is not known: two of its flags (name, as written,
    where), one that every measured release up to some has and none after, the other one
    every measured release from a later one on has and none before, with a measured release
    between that has neither (t73a: `--max-seq-len-to-capture`, gone after 0.10.2, beside
    `--disable-access-log-for-endpoints`, from 0.16.0; 0.11.0 has neither): whatever the
    release, also one before, after or between the measured ones, the server exits on one of
    them. Not two flags whose measured releases meet (`--num-redundant-experts` to 0.11.0,
    `--all2all-backend` from 0.12.0: the unmeasured 0.11.1 has both, t74a), nor a flag that
    came and went within them (`--device`, 0.26.0 to 0.28.0: an older release may have had it
    too). A warning at the later flag, naming the other and the release with neither."""
    data = engine_flags()
    versions = data.versions[engine]
    # each flag's measured releases, whether they are the first ones (it went) or the last
    # ones (it came), worked out once per flag, not once per pair
    having: dict[str, tuple[tuple[str, ...], frozenset[str], bool, bool, str, Location]] = {}
    for name, shown, location in flags:
        if name not in having and data.varies(engine, name):
            releases = tuple(_releases_with(engine, name))
            gone = releases == tuple(versions[: len(releases)])
            come = releases == tuple(versions[len(versions) - len(releases) :])
            having[name] = (releases, frozenset(releases), gone, come, shown, location)
    names = list(having)
    for index, later in enumerate(names):
        b, b_set, gone_b, come_b, b_shown, b_at = having[later]
        for earlier in names[:index]:
            a, a_set, gone_a, come_a, a_shown, a_at = having[earlier]
            if a_set & b_set or not ((gone_a and come_b) or (gone_b and come_a)):
                continue
            neither = [v for v in versions if v not in a and v not in b]
            if not neither:
                continue  # (their measured releases meet: one between may have both)
            return Finding(
                "BL303",
                f"`{b_shown}` {where} is a flag of {ENGINES[engine]} {_range(b)}, `{a_shown}` "
                f"(line {a_at.span.line}) one of {_range(a)}: no release has both "
                f"({ENGINES[engine]} {neither[0]} has neither), so whatever release runs it (not "
                "known here), the server exits on one of them with `unrecognized arguments`",
                b_at,
                related=(Location(a_at.path, a_at.span, a_shown),),
                subject=f"{earlier}+{later}",
                help="keep only the flags of the release that runs it",
                severity=Severity.WARNING,
            )
    return None


@functools.lru_cache(maxsize=4096)
def _releases_with(engine: str, flag: str) -> tuple[str, ...]:
    """The measured releases of the engine that accept the flag (asked once per flag)."""
    data = engine_flags()
    return tuple(v for v in data.versions[engine] if data.accepts(engine, v, flag))


def _range(versions: Sequence[str]) -> str:
    """The measured releases that have a flag, in words: `0.10.0 to 0.10.2`, or the one."""
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"


def _slip_of_every(engine: str, flag: str) -> str | None:
    """The flag `flag` is one slip from (`engine_flags.slip_of`) where every measured release
    of the engine has that one (and none has `flag`): a misspelling whatever the release."""
    data = engine_flags()
    slip = data.slip_of(engine, flag)
    if slip is None or any(not data.accepts(engine, v, slip) for v in data.versions[engine]):
        return None
    return slip


def _unreleased_slip(
    flag: str, shown: str, engine: str, where: str, location: Location, subject: str
) -> Finding | None:
    """Where the release that runs a launch is not known (a nightly or custom image, a script
    no entry runs): a flag no measured release has, one slip from a flag every one has (t73b,
    InferenceX d7ab47715: `--no-enable-prefixcaching` in a nightly image). A warning: the
    release is not known, and the message says so."""
    slip = _slip_of_every(engine, flag)
    if slip is None:
        return None
    measured = engine_flags().versions[engine]
    return Finding(
        "BL303",
        f"`{shown}` {where} is not a flag of any {ENGINES[engine]} release from {measured[0]} to "
        f"{measured[-1]}, while `{slip}` is one of every one: the release that runs it is not "
        "known here, but every measured one exits on it with `unrecognized arguments`",
        location,
        subject=subject,
        help=f"did you mean `{slip}`?",
        severity=Severity.WARNING,
    )


UNDECIDED = (
    "engine launches with a flag only some releases accept, or one a slip from a flag (no "
    "measured release has it), not checked against their release (BL303: no entry's image names "
    "it, no entry runs the script, or the release lies between two measured ones that differ on "
    "the flag; the configuration's `engine-releases` names the release a repository's own "
    "scripts run)"
)
UNDECIDED_RECIPE = (
    "recipes with an engine flag only some releases accept not checked against their release "
    "(BL303: the recipe's model.container names no release the flag data decides: a nightly or "
    "custom tag, an alias the site's srtslurm.yaml resolves, or a release between two measured "
    "ones that differ on it)"
)
UNDECIDED_UNNAMED = (
    "recipes with an engine flag only some releases accept and no model.container, not checked "
    "against a release (BL303: nothing in them names the image: one the site's srtslurm.yaml "
    "gives, a file of another schema that holds srtctl's `backend.<engine>_config`, or a "
    "template another file completes)"
)
UNDECIDED_MANIFEST = (
    "engine launches in containers (Kubernetes, `docker run`) or SkyPilot tasks with a flag only "
    "some releases accept, or one a slip from a flag, not checked against their release (BL303: "
    "the image names no release, or one outside the measured range; a task may install the "
    "engine itself)"
)


UNKNOWN_ENTRYPOINT = (
    "containers of an image named for an engine given only options (`--model m --port 80`), "
    "not checked as the engine's launch (BL303: the image's entrypoint is not known; vLLM's own "
    "images, `vllm/vllm-openai` and its CPU release images, are known to run `vllm serve` with "
    "them)"
)
PASSED_ON = (
    'engine launches given the arguments of their function or script (`"$@"`, `$*`), not '
    "checked for the flags their callers pass (BL303: a call's words are not read as the "
    "launch's)"
)
# the words that hand a launch the arguments of its function or script (`"${@:2}"`: from the
# second on)
_PASSED = lazy_compile(r'"?\$(?:@|\*|\{[@*](?::[0-9]+(?::[0-9]+)?)?\})"?')


def _passed_on(launch: Launch) -> Word | None:
    """The word handing the launch its function's (or script's) arguments, where a caller may
    give flags (`_may_pass_flags`): not a function whose every call in the script gives
    none, nor a script that sets its own (`set -- --port 8000`) (h113 M4, h118 W4, M7)."""
    script = launch.command.script
    word = next((w for w in launch.args if _PASSED.fullmatch(script.text_of(w.node))), None)
    if word is None:
        return None
    function = launch.command.function
    if function is None:
        own = any(  # (`set -- --port 8000` before it, at the top level, under no condition)
            c.base == "set"
            and c.args[:1]
            and c.args[0].value == "--"
            and c.function is None
            and not c.guards
            and not c.loops
            and c.node.end_byte <= launch.command.node.start_byte
            for c in script.commands
        )
        return None if own else word
    return word if _may_pass_flags(script.top, function, 3) else None


def _may_pass_flags(script: Script, function: str, depth: int) -> bool:
    """Whether a call of the function may give it a flag: a word written with a dash, one
    whose value is not known, or the arguments of a function (or the script) that is so
    called in turn; a function no call of the script reaches (a script that sources it) may be
    given any."""
    calls = [c for c in script.commands if c.base == function]
    if not calls or depth == 0:
        return True
    for call in calls:
        for arg in call.args:
            if _PASSED.fullmatch(script.text_of(arg.node)):
                if call.function is None or _may_pass_flags(script, call.function, depth - 1):
                    return True
            elif not arg.static or arg.value.startswith("-"):
                return True
    return False


def _dashed(launch: Launch) -> list[Arg]:
    """The launch's flags written with two dashes, as `flags` in `check` reads them."""
    return [a for a in launch.flags if a.value.startswith("--")]


# the launches whose flags another rule checks (BL301: the Dynamo vLLM worker's)
_CHECKED_ELSEWHERE = frozenset({"dynamo.vllm"})


def _behind(command: Command) -> Launch | None:
    """The launch a command line would be after the first word whose value is not known
    (`$PREFIX trtllm-serve ...`), where it is one behind such a word."""
    words = command.words
    return next(
        (
            launch
            for i, w in enumerate(words[1:], 1)
            if w.static and (launch := launch_in(words[i:], command)) is not None
        ),
        None,
    )


def _unchecked(launch: Launch) -> str | None:
    """What every report says of a launch whose flags no rule checks (no flag data for its
    program: `trtllm-serve`, Dynamo's SGLang worker, the SGLang router); None for the rest."""
    if launch.engine in ENGINES or launch.module in _CHECKED_ELSEWHERE:
        return None
    plain = launch.engine == "trtllm" or " " in launch.module  # (`sglang serve`)
    program = launch.module if plain else f"python -m {launch.module}"
    return f"engine launches of `{program}` not checked for flags (BL303: no flag data for it)"


def _flag(written: str) -> str:
    """A place's label in a "not checked" note: the flag it could not decide (h116, h117: the
    line alone did not say which)."""
    return f"`{clip(written.split('=', 1)[0], 40)}`"


def _manifest_pass(document: YamlDocument) -> list[Finding | Undecided]:
    """The rule's document pass: the engine launches of a Kubernetes container's `command` and
    `args` (and of a SkyPilot task's `run:`), against the release its `image` names, else the
    other engine's flags."""
    source = document.file
    if not any(name in source.text for name in ENGINES) or not may_hold_containers(source.text):
        return []
    found: list[Finding | Undecided] = []
    path = source.path
    for container in containers(source, document, tuple(ENGINES)):
        found += _options_only(container, path)
        for launch in launches(container.script):
            unchecked = _unchecked(launch)
            if unchecked is not None:
                found.append(Undecided(unchecked, Location(path, launch.command.first_line_span)))
            if launch.engine in ENGINES and written_later(launch.command.script):
                # (a script the container writes to a file: whichever container runs the file
                # runs it, in its own image, not known here)
                found += _in_container(launch, None, None, path)
            elif launch.engine in ENGINES:
                found += _in_container(
                    launch, container.image, container.image_node, path, container.installed
                )
    return found


def _options_only(container: Container, path: str) -> list[Undecided]:
    """A container of an image named for an engine (`opea/vllm-rocm:latest`) given only options
    (`--model m --port 80`), whose entrypoint is not known: counted, not read as the engine's
    launch (h124 W2: it could run anything with them)."""
    image = (container.image or "").lower()
    if not any(engine in image for engine in ENGINES) or not only_options(container):
        return []
    first = container.script.commands[0]
    return [Undecided(UNKNOWN_ENTRYPOINT, Location(path, first.first_line_span))]


def _on(launch: Launch) -> str:
    """Where a message says the flag is: on the engine's program (`vllm serve`, `python3 -m
    sglang.launch_server`; not the `srun`, `setsid` or `docker` that runs it)."""
    module = launch.module
    words = launch.command.words
    # (the interpreter: the last `python...` word before the launch's arguments, behind
    # whatever wrappers or scripts run it: `./wrap.sh python3 -m ...`)
    first = next(
        (i for i, w in enumerate(words) if launch.args and w is launch.args[0]), len(words)
    )
    python = next(
        (
            w.value.rsplit("/", 1)[-1]
            for w in reversed(words[:first])
            if w.static and w.value.rsplit("/", 1)[-1].startswith("python")
        ),
        None,
    )
    if launch.image is None and " " not in module and "." in module and python:
        return f"on `{python} -m {module}`"
    return f"on `{module}`"


def _in_container(
    launch: Launch,
    image: str | None,
    node: YNode | Word | None,
    path: str,
    installed: tuple[str, str] | None = None,
) -> list[Finding | Undecided]:
    """A launch's flags where a container's image (its name, and where it is named) runs it,
    against the release the image names (or a SkyPilot task's `setup:` installs, `installed`,
    named at `node`), else the other engine's flags; a launch with a flag only some releases
    accept, in an image that names none the data knows, counted."""
    data = engine_flags()
    engine = launch.engine
    found_release = installed or (image_release(image) if image is not None else None)
    label, whose = (
        ("setup", "the task's `setup:` install")
        if installed
        else ("image", "the container's image")
    )
    version = found_release[1] if found_release is not None and found_release[0] == engine else None
    runtime = dynamo_runtime(image) if found_release is None and engine == "vllm" else None
    pinned = worker_flags().vllm_of(runtime[1]) if runtime and runtime[0] == engine else None
    if runtime is not None and pinned is not None:  # (`.../vllm-runtime:0.8.0`: the vLLM it pins)
        version = pinned
        whose = f"the container's image (Dynamo {runtime[1]}'s pinned vLLM)"
    # (`latest`: the newest release when pulled, at least the newest measured one)
    latest = (
        version is None
        and not installed
        and image is not None
        and node is not None
        and image_latest(image) == engine
        and not _replaced(launch, image)
    )
    flags = [a for a in launch.flags if a.value.startswith("--")]
    found: list[Finding | Undecided] = []
    undecided = next(
        (
            a
            for a, name in ((a, flag_name(a.value)) for a in flags)
            if (
                data.varies(engine, name)
                and (version is None or data.accepts(engine, version, name) is None)
            )
            # (a slip from a flag, in a release outside the measured range: `v0.8.5`, h72 W2)
            or (
                version is not None
                and data.slip_of(engine, name) is not None
                and data.accepts(engine, version, name) is None
            )
        ),
        None,
    )
    if not latest and undecided is not None:  # (at the flag: h113 W6, as a script's are)
        found.append(
            Undecided(UNDECIDED_MANIFEST, Location(path, undecided.span, _flag(undecided.value)))
        )
    where = _on(launch)
    if version is None and not latest:
        apart = [(flag_name(a.value), a.value, Location(path, a.span)) for a in _written(launch)]
        together = _apart(engine, apart, where)
        if together is not None:
            found.append(together)
    found.extend(dashed for _, dashed in _one_dash(launch, where, path))
    for arg in flags:
        if arg.value.startswith("---"):
            found.append(_three_dashes(arg, engine, where, path))
            continue
        joined = _joined(launch, arg, engine, where, path) or _underscored(arg, engine, where, path)
        if joined is not None:
            if not _quoted_long_flag(arg):  # (BL106's in a script: h125 W5)
                found.append(joined)
            continue
        flag = flag_name(arg.value)
        gone = data.gone_since(engine, flag) if latest else None
        if gone is not None and image is not None and node is not None:
            found.append(_gone_finding(arg.value, engine, gone, image, node, where, path, arg))
            continue
        finding = _image_finding(
            flag,
            arg.value,
            engine,
            (version, node, label, whose),
            where,
            Location(path, arg.span),
            flag,
        )
        if finding is not None:
            found.append(finding)
    return found


_INSTALLERS = frozenset({"pip", "pip3", "uv"})
# an install that may put another release in place of the image's: a pin or an upper bound
# (`vllm==0.9.2`, `sglang[all]<0.5`), a wheel or a git checkout; not `vllm` or `vllm>=0.9`,
# which pip leaves as the image has it ("Requirement already satisfied"; t80a)
_ENGINE_PACKAGE = lazy_compile(
    r"(?:vllm|sglang)(?:\[[^\]]*\])?\s*(?:===?|~=|<=?)\S*"
    r"|\S*(?:vllm|sglang)\S*\.whl|git\+\S*(?:vllm|sglang)\S*"
)
_BUILDERS = frozenset({"docker", "podman", "buildah"})


def _replaced(launch: Launch, image: str) -> bool:
    """Whether the launch may run another release than the image's `latest`: the container's
    own script installs another release of the engine (`pip install vllm==0.10.1 && vllm serve
    ...` in a `sh -c` of a Kubernetes container: a pin, an upper bound, a wheel, a git
    checkout; not a host script's install, for its client, around a `docker run`), or the
    script (or the container's) builds or tags an image of that name (`docker build --tag
    vllm/vllm-openai`). Read from the commands, not the comments."""
    script = launch.command.script
    inside = script.parent is not None or not script.contiguous  # (the container's own text)
    repository = image.strip().strip("'\"").split("@", 1)[0]
    if repository.rsplit("/", 1)[-1].count(":"):
        repository = repository.rsplit(":", 1)[0]
    name = "/".join(repository.split("/")[-2:])
    for command in {id(c): c for c in (*script.commands, *script.top.commands)}.values():
        words = [w.value if w.static else "" for w in command.words]
        base = command.base or ""
        module = words.index("-m") if "-m" in words else -1
        # (`python3 -m pip`, `$PY -m pip`)
        pip = base in _INSTALLERS or words[module + 1 : module + 2] == ["pip"]
        installs = inside and command.script is script and pip
        if installs and "install" in words and _installs_engine(words):
            return True
        builds = base in _BUILDERS and ("build" in words or "tag" in words)
        if builds and any(
            w.split(":", 1)[0].endswith(name) for w in words if w and not w.startswith("-")
        ):
            return True
    return False


def _installs_in(script: Script) -> bool:
    """Whether the script (a string a container's shell runs) may put another release in the
    image's place: any `pip install` (`-U vllm`, `"vllm>=0.16"`, `-e .`, a package that needs
    another), or a script it runs (`bash /w/install_vllm.sh`); t84c."""
    for command in script.commands:
        words = [w.value if w.static else "" for w in command.words]
        module = words.index("-m") if "-m" in words else -1
        pip = (command.base or "") in _INSTALLERS or words[module + 1 : module + 2] == ["pip"]
        if pip and "install" in words:
            return True
        runs_file = command.base in ("bash", "sh") and any(not w.startswith("-") for w in words[1:])
        if runs_file or (command.words and command.words[0].value.endswith(".sh")):
            return True
    return False


def _installs_engine(words: list[str]) -> bool:
    return any(_ENGINE_PACKAGE.fullmatch(w) for w in words[words.index("install") + 1 :])


def _gone_finding(
    shown: str,
    engine: str,
    gone: tuple[str, str],
    image: str,
    node: YNode | Word,
    where: str,
    path: str,
    arg: Arg,
) -> Finding:
    """A flag every measured release since one rejects, where the engine's `latest` image runs
    it (t76a, semantic-router: `--disable-log-requests` on `vllm/vllm-openai:latest`): that
    image holds the newest release when it was pulled, at least the newest measured one. A
    warning: a host may keep an older `latest` it pulled before, and the message says so."""
    since, last = gone
    newest = engine_flags().versions[engine][-1]
    name = ENGINES[engine]
    return Finding(
        "BL303",
        f"`{shown}` {where} is not a flag of any measured {name} release from {since} to "
        f"{newest}, the newest (the last with it is {last}): `{image.strip()}` runs {newest} or "
        "a later release where it was pulled since, and the server exits with "
        + engine_flags().rejection(engine, newest, flag_name(shown)),
        Location(path, arg.span),
        related=(Location(path, node.span, "image"),),
        subject=flag_name(shown),
        help=f"drop it, or pin the image to a release that has it ({last} or earlier)",
        severity=Severity.WARNING,
    )


def _image_finding(
    flag: str,
    shown: str,
    engine: str,
    image: tuple[str | None, YNode | Word | None, str, str],
    where: str,
    location: Location,
    subject: str,
) -> Finding | None:
    """A flag written `shown` where one image runs the engine: rejected by the release the
    image names (`image`: that release, where the image is named, its label, what it is), else
    another engine's flag; None when neither."""
    data = engine_flags()
    version, node, label, whose = image
    if version is None or node is None:
        unreleased = _unreleased_slip(flag, shown, engine, where, location, subject)
        if unreleased is not None:
            return unreleased
    slip = data.slip_of(engine, flag) if version is not None and node is not None else None
    if (
        slip is not None
        and version is not None
        and node is not None
        and data.accepts(engine, version, flag) is False
        and data.accepts(engine, version, slip)
    ):
        related = (Location(location.path, node.span, label),)
        return _slip_finding(
            shown,
            engine,
            slip,
            f"{version}, the release of {whose}",
            where,
            location,
            related,
            subject,
        )
    if (
        version is not None
        and node is not None
        and data.varies(engine, flag)
        and data.accepts(engine, version, flag) is False
    ):
        history = data.history(engine, version, flag)
        return Finding(
            "BL303",
            f"`{shown}` {where} is not a flag of {ENGINES[engine]} {version}, the release of "
            f"{whose}: the server exits with " + data.rejection(engine, version, flag),
            location,
            related=(Location(location.path, node.span, label),),
            subject=subject,
            notes=(history,) if history else (),
        )
    owner = data.foreign(engine, flag)
    if owner is None:
        return None
    message, hint = _message(flag, shown, engine, owner, where)
    return Finding("BL303", message, location, subject=subject, help=hint)


def _through_scripts(ctx: Context, script: Script) -> list[Launch]:
    """Engine launches a repository script is given as its arguments and runs as they are
    (`"$@"`, `exec "$@"`, behind wrappers that run it on this host's files), in its caller's
    folder: `bash tools/wrap.sh python3 -m sglang.launch_server ...`, `./loadTracer.sh vllm
    serve ...`."""
    found = []
    for command in script.all_commands():
        words = command.invocation.words
        at = script_word_at([w.value if w.static else None for w in words]) if words else None
        if at is None:
            continue
        path = words[at].value
        launch = launch_in(list(words[at + 1 :]), command)
        if launch is None:
            continue
        runs = script_runs_arguments(ctx.ws, script, path)
        if not isinstance(runs, tuple) or runs[1]:
            continue  # (not a script of the repository that runs them, or it changes folders)
        if all(FILES not in wrapper.apart for wrapper in runs[0].wrappers):
            found.append(launch)
    return found


HIDDEN = (
    "engine launches behind a word whose value is not known (a program after `$PREFIX`, a "
    "module a variable gives one of several values, the caller's, or one the script gives again "
    "after the function that runs it) not checked for flags (BL301, BL303)"
)


def _script_pass(ctx: Context, script: Script) -> Iterator[Finding]:
    data = engine_flags()
    for command in hidden_launches(script):
        # (`$PREFIX trtllm-serve ...`: no rule checks that program's flags, whatever the word)
        behind = _behind(command)
        unchecked = _unchecked(behind) if behind is not None else None
        ctx.count(unchecked or HIDDEN, Location(script.path, command.first_line_span))
    for launch in [*launches(script), *_through_scripts(ctx, script)]:
        unchecked = _unchecked(launch)
        if unchecked is not None:
            ctx.count(unchecked, Location(script.path, launch.command.first_line_span))
        passed = _passed_on(launch) if launch.engine in ENGINES else None
        if passed is not None:
            ctx.count(PASSED_ON, Location(script.path, passed.span))
        if launch.engine not in ENGINES:
            continue
        wrapped = container_image(launch) if launch.image is None else None
        if wrapped is not None and launch.command.script.parent is not None:
            # (in the shell a container runs, `docker run IMAGE bash -c '...'`: not where that
            # string installs another release first, `pip install vllm==0.9.2 && vllm serve`)
            wrapped = None if _installs_in(launch.command.script) else wrapped
        if launch.image is not None or wrapped is not None:  # its image names the release
            image, node = (
                (launch.image.value, launch.image) if launch.image else wrapped or ("", None)
            )
            for item in _in_container(launch, image, node, script.path):
                if isinstance(item, Undecided):
                    ctx.count(item.what, item.where)
                else:
                    yield item
            continue
        engine, command = launch.engine, launch.command
        runs = None
        flags = [flag_name(a.value) for a in _dashed(launch)]
        # (only then does the release matter: a flag some releases accept, or a misspelling,
        # told against the release; without one, only that of a flag every release has)
        if any(data.varies(engine, f) or data.slip_of(engine, f) for f in flags):
            runs = launch_releases(ctx, launch)
            configured = ctx.config.engine_releases.get(engine)
            if runs is None and configured is not None:  # (the user says which: t81a)
                runs = [Running(configured, (), configured=True)]
        # (counted at the first flag it could not decide, so that the note names its line: h109
        # N9)
        undecided = None
        if runs is None:
            undecided = next(
                (
                    a
                    for a, f in zip(_dashed(launch), flags, strict=True)
                    if data.varies(engine, f)
                    or (data.slip_of(engine, f) and not _slip_of_every(engine, f))
                ),
                None,
            )
        else:
            undecided = next(
                (
                    a
                    for a, f in zip(_dashed(launch), flags, strict=True)
                    if data.varies(engine, f)
                    and any(data.accepts(engine, r.version, f) is None for r in runs)
                ),
                None,
            )
        if undecided is not None:
            ctx.count(UNDECIDED, Location(script.path, undecided.span, _flag(undecided.value)))
        where = _on(launch)
        if runs is None:
            apart = [
                (flag_name(a.value), a.value, Location(script.path, a.span))
                for a in _written(launch)
            ]
            found = _apart(engine, apart, where)
            if found is not None:
                yield found
        for arg, dashed in _one_dash(launch, where, script.path):
            adding = _adding(arg, launch)
            if adding is not None and _never_adds(ctx, adding):
                continue
            yield _conditional(ctx, dashed, adding, launch)
        for arg in launch.flags:
            if not arg.value.startswith("--"):
                continue
            if arg.value.startswith("---"):
                yield _three_dashes(arg, engine, where, script.path)
                continue
            joined = _joined(launch, arg, engine, where, script.path) or _underscored(
                arg, engine, where, script.path
            )
            if joined is not None:
                if not _quoted_long_flag(arg):  # (BL106's, where a script quotes one: h124 W1)
                    yield joined
                continue
            flag = flag_name(arg.value)
            adding = _adding(arg, launch)
            if adding is not None and _never_adds(ctx, adding):
                continue  # (no route runs the line that adds it)
            reaching = _reaching(ctx, adding, runs) if adding is not None else runs
            if reaching == []:
                continue
            if reaching is not None:
                finding = _release_finding(flag, arg, engine, reaching, where, script.path)
            else:
                location = Location(script.path, arg.span)
                finding = _unreleased_slip(flag, arg.value, engine, where, location, flag)
            if finding is not None:
                yield _conditional(ctx, finding, adding, launch)
                continue
            owner = data.foreign(engine, flag)
            if owner is not None:
                message, hint = _message(flag, arg.value, engine, owner, where)
                found = Finding(
                    "BL303", message, Location(script.path, arg.span), subject=flag, help=hint
                )
                yield _conditional(ctx, found, adding, launch)


def _adding(arg: Arg, launch: Launch) -> Command | None:
    """The assignment that gives the flag in a string of its variable, where it is under a
    condition the launch does not run under (`[[ $DP == true ]] && ARGS+=" --enable-dp-attention"`,
    an `else`, a `||`); None for a flag written on the launch, or given where it runs."""
    command = launch.command
    given = next((a for a in arg.word.script.assignments if a.value is arg.word), None)
    if given is None or given.command is command:
        return None
    around = {g.node for g in command.guards}
    if all(g.node in around for g in given.command.guards):
        return None
    return given.command


def _conditional(ctx: Context, finding: Finding, adding: Command | None, launch: Launch) -> Finding:
    """The finding of a flag a line adds under a condition the launch does not run under (h87
    W2, h89 W6): a note with the condition, the launch related; a warning where no route is
    known to run that line (a script another starts, whose condition, `[[ $PREFILL_ENABLE_DP ==
    true ]]`, its callers' values decide: h133 W1, h136 W1)."""
    if adding is None:
        return finding
    script = adding.script
    # (each condition of its own, the way it must go: an `else`'s or a `||`'s where it does not
    # hold, an `elif`'s after those before it did not, a `case` item's pattern or, for `*)`,
    # those of the items before it: h140 W1, h141 W2, W3)
    own = [g for g in adding.guards if g not in launch.command.guards]
    where = " and ".join(_way(script, g) for g in own[:3]) + (" and ..." if len(own) > 3 else "")
    where = where or "its condition holds"
    surely = any(r.holds(adding) is True for r in _routes_through(ctx, adding))
    line = adding.span.line
    note = (
        f"line {line} adds it where {where}, which is so on the routes that run it"
        if surely
        else f"line {line}, which adds it, runs only where {where}, which benchlint cannot decide"
    )
    related = Location(script.path, launch.command.first_line_span, "the launch")
    return dataclasses.replace(
        finding,
        notes=(*finding.notes, note),
        related=(*finding.related, related),
        severity=finding.severity if surely else Severity.WARNING,
    )


def _way(script: Script, guard: Guard) -> str:
    """A condition and the way it goes: `` `[[ $DP == true ]]` holds``, `` `"$MODE"` matches
    `dp` `` (a `case` item's word and patterns)."""
    shown = script.text_of(guard.node)
    if guard.patterns:
        patterns = clip(" | ".join(script.text_of(p) for p in guard.patterns), 40)
        return f"`{clip(shown, 30)}` {'matches' if guard.expect else 'does not match'} `{patterns}`"
    if len(shown) > 60 and " && " in shown:  # (its first test says what it turns on)
        shown = shown.split(" && ", 1)[0] + " && ..."
    return f"`{clip(shown, 70)}` {'holds' if guard.expect else 'does not hold'}"


def _reaching(ctx: Context, adding: Command, runs: list[Running] | None) -> list[Running] | None:
    """The releases of `runs` whose entries' routes may run the launcher's assignment that adds
    the flag: not one each of whose routes decides the condition around it false (h100 F5:
    `[[ $IMAGE == *:v0.9* ]] && ARGS+=" --max-seq-len-to-capture 8192"` for a v0.15.1 image);
    `runs` as they are for an assignment in another script (a benchmark script's conditions
    are not decided per entry here), or where no route through the launcher is known."""
    routes = _routes_through(ctx, adding)
    if runs is None or not routes:
        return runs
    kept = []
    for run in runs:
        mine = [r for r in routes if r.entry in run.entries]
        if not mine or any(r.holds(adding) is not False for r in mine):
            kept.append(run)
    return kept


def _never_adds(ctx: Context, adding: Command) -> bool:
    """Whether every route through the launcher decides the condition around the assignment
    that adds the flag false: the flag never reaches the engine."""
    routes = _routes_through(ctx, adding)
    return bool(routes) and all(r.holds(adding) is False for r in routes)


def _routes_through(ctx: Context, command: Command) -> list[Route]:
    """The routes through the launcher whose command it is (none for another script's)."""
    top = command.script.top
    return [r for r in ctx.routes() if r.launcher.script is top]


@rule(
    "BL303",
    "engine-flag-mismatch",
    Severity.ERROR,
    tags=("engines",),
    document_pass=_manifest_pass,
    script_pass=_script_pass,
    beyond=beyond_scope,
)
def check(ctx: Context) -> Iterator[Finding]:
    recipes = set(ctx.ws.recipe_paths)
    for path in ctx.in_scope(ctx.ws.yaml_paths):
        if path not in recipes:
            yield from ctx.document_pass("BL303", path, _manifest_pass)
            text = (ctx.ws.source(path) or _EMPTY).text
            schema2 = "roles:" in text and engine_block(text)
            if not schema2 and ("_config" not in text or not _RECIPE_SHAPE.search(text)):
                continue  # (one outside the recipe folders, `backend.sglang_config`: read too)
        document = ctx.ws.yaml(path)
        yield from _recipe_findings(ctx, path, document.root if document is not None else None)


# the text of an srtctl recipe: a `backend:` with an engine's `<engine>_config:` under it
_RECIPE_SHAPE = lazy_compile(r"""(?:^|[{,\s])["']?(?:sglang|vllm|trtllm)_config["']?\s*:""", re.M)
_EMPTY = SourceText("", b"")


def _blocks(root: YNode, where: str) -> list[YNode]:
    """The blocks a block's settings come from: an override block's own, then the base (or
    the document)."""
    block = where.split(".", 1)[0]
    own = root.get(block) if block not in ("backend", "roles") else None
    return [b for b in (own, settings_root(root)) if b is not None and b.is_map]


def _role_container(root: YNode, where: str) -> YNode | None:
    """A schema 2 role's own `container` (`roles.prefill.container`), for `where` in its
    `args`: the override block's, else the base's."""
    parts = where.split(".")
    role = parts[parts.index("roles") + 1] if "roles" in parts[:-1] else ""
    for candidate in _blocks(root, where) if role else ():
        roles = candidate.get("roles")
        spec = roles.get(role) if roles is not None and roles.is_map else None
        container = spec.get("container") if spec is not None and spec.is_map else None
        if container is not None and container.is_scalar:
            return container
    return None


def _container(root: YNode, where: str) -> YNode | None:
    """The `model.container` in force for a block: the override block's own, else the
    recipe's (under `base:` in override-style recipes); for a schema 2 role's `args`, the
    role's own `container` first, the override block's, else the base's (h120 F1, M4)."""
    found = _role_container(root, where)
    if found is not None:
        return found
    for candidate in _blocks(root, where):
        model = candidate.get("model")
        container = model.get("container") if model is not None and model.is_map else None
        if container is not None and container.is_scalar:
            return container
    return None


def _container_release(container: YNode | None, engine: str) -> tuple[str | None, str]:
    """The engine release a recipe's `model.container` runs: the one its image names, or for a
    Dynamo vLLM runtime image the vLLM its release pins (h105 M1, as for a launch); with what
    a message calls it."""
    whose = "the recipe's model.container"
    found = image_release(container.value) if container is not None else None
    if found is not None:
        return (found[1] if found[0] == engine else None), whose
    runtime = dynamo_runtime(container.value) if container is not None else None
    if runtime is None or runtime[0] != engine or engine != "vllm":
        return None, whose
    pinned = worker_flags().vllm_of(runtime[1])
    return pinned, f"{whose} (Dynamo {runtime[1]}'s pinned vLLM)"


def _recipe_findings(ctx: Context, path: str, root: YNode | None) -> Iterator[Finding]:
    """A recipe's engine flags: against the release its `model.container` image names (srtctl
    runs the workers in it), else the other engine's flags; a block with a flag only some
    releases accept, whose container names no release the data decides (an alias the site's
    `srtslurm.yaml` resolves, `dynamo-sglang`; a release between two measured ones that differ
    on the flag), counted."""
    if root is None or not root.is_map:
        return
    data = engine_flags()
    merged: set[int] = set()  # (a key merged into several roles from one anchor: once)
    for engine in ENGINES:
        for where, mapping in engine_configs(root, engine):
            # (as PyYAML loads it: keys merged in with `<<: *common` too, h128 M3)
            loaded = mapping.loaded_pairs()
            container = _container(root, where)
            version, whose = _container_release(container, engine)
            label = "model.container"
            if container is not None and container is _role_container(root, where):
                whose = whose.replace("the recipe's model.container", "the role's container")
                label = "the role's container"
            undecided = [
                k
                for k, _ in loaded
                if k.is_scalar
                and data.varies(engine, flag := flag_name(k.value))
                and (version is None or data.accepts(engine, version, flag) is None)
            ]
            if undecided and container is not None:
                ctx.count(
                    UNDECIDED_RECIPE, Location(path, container.span, _flag(undecided[0].value))
                )
            elif undecided:  # (h22: SGLang's CI recipes, their image in `runtime.image`)
                ctx.count(
                    UNDECIDED_UNNAMED, Location(path, undecided[0].span, _flag(undecided[0].value))
                )
            if version is None:
                keys = [k for k, _ in loaded if k.is_scalar]
                apart = [(flag_name(k.value), k.value, Location(path, k.span)) for k in keys]
                together = _apart(engine, apart, f"in {where}")
                if together is not None:
                    yield together
            own = {id(k) for k, _ in mapping.pairs}
            for key, value in loaded:  # (a key written twice: BL203's)
                if not key.is_scalar or id(key) in merged:
                    continue
                if id(key) not in own:
                    merged.add(id(key))
                flag = flag_name(key.value)
                finding = _image_finding(
                    flag,
                    f"{key.value}: {value.value}" if value.is_scalar else key.value,
                    engine,
                    (version, container, label, whose),
                    f"in {where}",
                    Location(path, key.span),
                    f"{where}.{flag}",
                )
                if finding is not None:
                    yield finding
