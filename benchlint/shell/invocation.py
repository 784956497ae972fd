"""The command a command line runs, behind its wrappers: the one invocation resolver.

`srun -N2 --jobid="$JOB" timeout 60 bash -c '...'` runs `bash -c '...'` behind `srun` and
`timeout`. Each wrapper has a grammar: the options that take a value (as the next word,
attached to a short option as in `-N2` or `-t30`, or after `=`), the operands that come before
the wrapped command (the duration of `timeout`, the host of `ssh`, the image of `docker run`),
and the options that mean it runs no command (`salloc --no-shell`, `command -v`). Rules ask for
the wrapped command and for a wrapper's options here, and never parse either themselves.

An option a grammar does not list is read as a flag; a long one with `=` carries its value.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from benchlint import slurm
from benchlint.lazyre import lazy_compile

if TYPE_CHECKING:  # the model builds on this module: nested shells are found through it
    from benchlint.shell.model import Assignment, Command, Script, Word

SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh"})


@dataclass(frozen=True)
class Grammar:
    # options taking a value: short letters ("N" for -N 2, -N2) and long names ("nodes")
    short_values: str = ""
    long_values: frozenset[str] = frozenset()
    operands: int = 0  # words before the wrapped command: `timeout DURATION`, `ssh HOST`
    # options after which nothing is run (`command -v`, `salloc --no-shell` runs no command)
    stops: frozenset[str] = frozenset()
    # NAME=VALUE words before the command are assignments (`env A=1 cmd`)
    assignments: bool = False
    # `-np 4` is one option named `np`, not the letters n and p (MPI launchers)
    single_dash_long: bool = False
    # long options that take two values (`--mca btl self`, `-genv NAME VALUE`; one word holding
    # `NAME=VALUE` is the pair)
    long_pairs: frozenset[str] = frozenset()
    # the command follows a `--` when there is one (`kubectl exec POD -c C -- cmd`: options
    # may follow the operand); without, the first operand ends the wrapper's words
    dashdash: bool = False
    # what the wrapped command does not share with the caller (`Wrapper.apart`): PROCESSES, it
    # runs on another host or in a container (the caller's processes are not among those it
    # sees); FILES, in a container or on another host (a path it is given is not the
    # checkout's, unless at a mount of it)
    apart: frozenset[str] = frozenset()
    # options that put the command in a container all the same (`srun --container-image`)
    container_options: frozenset[str] = frozenset()
    # options whose value `NAME=VALUE` sets a variable for the command (`docker run -e`)
    env_options: frozenset[str] = frozenset()
    # the command starts from the container's environment, not the caller's (`docker run`),
    # or does with one of these options (`apptainer exec --cleanenv`)
    own_env: bool = False
    clean_options: frozenset[str] = frozenset()


PROCESSES, FILES = "processes", "files"
_HOST = frozenset({PROCESSES})  # another host of the job, sharing its filesystem
_CONTAINER = frozenset({PROCESSES, FILES})  # a container, or a host of its own
_ENV = frozenset({"-e", "--env"})


def _g(
    short: str = "",
    long: str = "",
    operands: int = 0,
    stops: str = "",
    assignments: bool = False,
    single_dash_long: bool = False,
    pairs: str = "",
) -> Grammar:
    return Grammar(
        short,
        frozenset(long.split()),
        operands,
        frozenset(stops.split()),
        assignments,
        single_dash_long,
        frozenset(pairs.split()),
    )


def _apart(
    grammar: Grammar,
    apart: frozenset[str],
    env_options: frozenset[str] = frozenset(),
    own_env: bool = False,
    clean_options: frozenset[str] = frozenset(),
) -> Grammar:
    """The grammar with where its command runs, and how its environment is given there."""
    return replace(
        grammar,
        apart=apart,
        env_options=env_options,
        own_env=own_env,
        clean_options=clean_options,
    )


# Open MPI's mpirun and MPICH's mpiexec (Hydra) take long options after one dash or two.
_MPI = _g(
    long="n np c N H host hosts hostfile machinefile f npernode ppn ppr map-by rank-by bind-to "
    "x wdir wd path prefix output-filename timeout rankfile cpu-set cpus-per-proc am tune "
    "genvlist envlist launcher bootstrap iface",
    single_dash_long=True,
    pairs="mca gmca genv env",
)
_MPI = _apart(_MPI, _HOST)


def _slurm(command: str, stops: frozenset[str] = frozenset()) -> Grammar:
    """srun's, sbatch's or salloc's options that take the next word as their value in some
    release, and pyxis's (`benchlint.slurm`'s data: Slurm's own option tables); the command
    runs on the job's hosts, in a container where pyxis is given an image."""
    short, long = slurm.value_options(command)
    image = frozenset({"--container-image"})
    return Grammar(short, long, stops=stops, apart=_HOST, container_options=image)


WRAPPER_GRAMMARS: dict[str, Grammar] = {
    "srun": _slurm("srun"),
    "salloc": _slurm("salloc", stops=frozenset({"--no-shell"})),
    "sbatch": _slurm("sbatch"),
    "timeout": _g("sk", "signal kill-after", operands=1),
    "env": _g("uCS", "unset chdir split-string", assignments=True),
    "nohup": _g(),
    "setsid": _g(),
    "stdbuf": _g("ioe", "input output error"),
    "numactl": _g(
        "NmiCpPwb",
        "cpunodebind membind interleave physcpubind preferred preferred-many weighted-interleave",
    ),
    "taskset": _g("", "", operands=1, stops="-p --pid"),
    "sudo": _g(
        "ugrtTpUhCDRc",
        "user group role type prompt other-user host close-from "
        "chdir chroot command-timeout login-class",
    ),
    "nice": _g("n", "adjustment"),
    "time": _g("fo", "format output"),
    "exec": _g("a"),
    "command": _g(stops="-v -V"),
    "builtin": _g(),  # (`builtin source x.env`: the builtin, in this shell)
    "xargs": _g(
        "nPIdLsaEe", "max-args max-procs replace delimiter max-lines max-chars arg-file eof"
    ),
    "ssh": _apart(_g("BbcDEeFIiJLlmOoPpQRSWw", operands=1), _CONTAINER),
    "docker run": _apart(
        # (every option of `docker run` that takes a value, as Docker 27's reference lists
        # them, `--dns-opt` too: one not known would take its value for the image:
        # `--cgroupns host IMAGE`)
        _g(
            "aevpwulhmc",
            "env volume publish workdir user label hostname memory cpu-shares name network "
            "net gpus ipc shm-size entrypoint runtime ulimit device env-file mount cpus "
            "security-opt cap-add cap-drop platform pull restart log-driver log-opt pid "
            "add-host dns group-add cidfile label-file memory-swap tmpfs uts userns "
            "stop-signal stop-timeout health-cmd health-interval cpuset-cpus attach annotation "
            "blkio-weight blkio-weight-device cgroup-parent cgroupns cpu-count cpu-percent "
            "cpu-period cpu-quota cpu-rt-period cpu-rt-runtime cpuset-mems detach-keys "
            "device-cgroup-rule device-read-bps device-read-iops device-write-bps "
            "device-write-iops dns-option dns-search domainname expose health-retries "
            "health-start-interval health-start-period health-timeout io-maxbandwidth "
            "io-maxiops ip ip6 isolation kernel-memory link link-local-ip mac-address "
            "memory-reservation memory-swappiness network-alias net-alias oom-score-adj "
            "pids-limit storage-opt sysctl volume-driver volumes-from dns-opt "
            # (podman's own, the grammar being podman run's too)
            "pod secret tz arch",
            operands=1,
        ),
        _CONTAINER,
        env_options=_ENV,
        own_env=True,
    ),
    "docker exec": _apart(
        _g("euw", "env user workdir env-file", operands=1), _CONTAINER, env_options=_ENV
    ),
    "kubectl exec": Grammar(
        "cnf",
        frozenset({"container", "namespace", "filename", "context", "kubeconfig", "cluster"}),
        operands=1,
        dashdash=True,
        apart=_CONTAINER,
    ),
    "incus exec": Grammar(
        "",
        frozenset({"env", "cwd", "user", "group", "mode", "project"}),
        1,
        dashdash=True,
        apart=_CONTAINER,
    ),
    "enroot exec": _apart(_g("", "", operands=1), _CONTAINER),
    "enroot start": _apart(_g("emc", "env mount conf", operands=1), _CONTAINER, env_options=_ENV),
    # (its `-e` is `--cleanenv`, a switch: a variable is set with `--env` alone)
    "apptainer exec": _apart(
        _g("BHWo", "bind env home pwd workdir overlay env-file mount", operands=1),
        _CONTAINER,
        env_options=frozenset({"--env"}),
        clean_options=frozenset({"-e", "--cleanenv", "-C", "--containall"}),
    ),
    "uv run": _g(
        "pw",
        "with python project directory env-file extra group package index with-requirements "
        "with-editable no-group only-group index-url extra-index-url",
    ),
    "conda run": _g("np", "name prefix cwd"),
    # the project managers' `run`: the command in the project's environment
    "poetry run": _g("CP", "directory project"),
    "pipenv run": _g(),
    "pdm run": _g("p", "project venv"),
    # a command with a virtual X display (`xvfb-run -a -s "-screen 0 1x1x24" python3 x.py`)
    "xvfb-run": _g("efnpsw", "error-file auth-file server-num xauth-protocol server-args wait"),
    "mpirun": _MPI,
    "mpiexec": _MPI,
    "pixi run": _g("e", "manifest-path environment"),
    # TensorRT-LLM's MPI session launcher: `trtllm-llmapi-launch trtllm-serve ...`
    "trtllm-llmapi-launch": _apart(_g(), _HOST),
    # Nsight Systems: its switches take a value (`-t cuda,nvtx`, `--force-overwrite true`)
    # a Ray job: its entrypoint runs under the cluster's job supervisor, not as the caller's
    # child, in the working directory its runtime environment gives (not the caller's)
    "ray job submit": Grammar(
        "v",
        _g(
            long="address job-id submission-id runtime-env runtime-env-json working-dir "
            "metadata-json entrypoint-num-cpus entrypoint-num-gpus entrypoint-memory "
            "entrypoint-resources entrypoint-label-selector headers log-style log-color"
        ).long_values,
        dashdash=True,
        apart=_CONTAINER,
    ),
    "nsys profile": _g(
        "bcdefnopstwxy",
        "backtrace capture-range capture-range-end cuda-memory-usage cudabacktrace delay "
        "duration env-var export force-overwrite gpu-metrics-devices gpuctxsw cpuctxsw "
        "inherit-environment kill mpi-impl nvtx-capture output osrt-threshold sample "
        "sampling-frequency session-new show-output stats stop-on-exit trace wait",
    ),
}
# the same grammar under other names
for _alias, _same in (
    ("podman run", "docker run"),
    ("podman exec", "docker exec"),
    ("singularity exec", "apptainer exec"),
    ("micromamba run", "conda run"),
    ("lxc exec", "incus exec"),
    ("oc exec", "kubectl exec"),
    ("mamba run", "conda run"),
):
    WRAPPER_GRAMMARS[_alias] = WRAPPER_GRAMMARS[_same]
# commands with a subcommand that wraps: the first word names the family
_SUBCOMMANDS = {
    # (`docker container run` is `docker run`: named so below)
    "docker": ("run", "exec", "container run", "container exec"),
    "podman": ("run", "exec", "container run", "container exec"),
    "nvidia-docker": ("run", "exec", "container run", "container exec"),  # (named docker's)
    "enroot": ("exec", "start"),
    "apptainer": ("exec",),
    "singularity": ("exec",),
    "uv": ("run",),
    "conda": ("run",),
    "micromamba": ("run",),
    "mamba": ("run",),
    "pixi": ("run",),
    "nsys": ("profile",),
    "kubectl": ("exec",),
    "oc": ("exec",),
    "incus": ("exec",),
    "lxc": ("exec",),
    "ray": ("job submit",),
    "poetry": ("run",),
    "pipenv": ("run",),
    "pdm": ("run",),
}
WRAPPERS = frozenset(WRAPPER_GRAMMARS) | frozenset(_SUBCOMMANDS)


@dataclass(frozen=True, eq=False)
class Wrapper:
    name: str  # "srun", "docker run", ...
    words: tuple[Word, ...]  # its own words: name, options and operands
    options: tuple[tuple[str, Word | None, str], ...]  # (option, word holding it, its value)
    operands: tuple[Word, ...] = ()

    def option(self, *names: str) -> str | None:
        """The value of the last of these options given (`-N`, `--nodes`), as written."""
        found = None
        for name, _, value in self.options:
            if name in names:
                found = value
        return found

    def has(self, *names: str) -> bool:
        return any(name in names for name, _, _ in self.options)

    @property
    def apart(self) -> frozenset[str]:
        """What the command it runs does not share with the caller (`Grammar.apart`)."""
        grammar = WRAPPER_GRAMMARS.get(self.name)
        if grammar is None:
            return frozenset()
        if grammar.container_options and self.has(*grammar.container_options):
            return _CONTAINER
        return grammar.apart

    @property
    def env_options(self) -> frozenset[str]:
        """Its options whose `NAME=VALUE` sets a variable for the command (`docker run -e`)."""
        grammar = WRAPPER_GRAMMARS.get(self.name)
        return grammar.env_options if grammar is not None else frozenset()

    @property
    def own_env(self) -> bool:
        """The command starts from an environment of its own, not the caller's."""
        grammar = WRAPPER_GRAMMARS.get(self.name)
        if grammar is None:
            return False
        return grammar.own_env or self.has(*grammar.clean_options)


@dataclass(eq=False, slots=True)
class Invocation:
    """A command line as what it runs: the wrappers around it (outermost first) and the words
    of the command they run, from its name on. `words` is empty when the wrappers run nothing
    (`salloc --no-shell`) or the wrapped command cannot be told (`xargs` reads it from input)."""

    command: Command
    wrappers: tuple[Wrapper, ...]
    words: tuple[Word, ...]
    prefix: tuple[Word, ...] = field(default=())  # `env A=1`: assignments for the command
    base: str | None = None  # the command's name without its directory

    @property
    def name(self) -> str | None:
        return self.words[0].value if self.words and self.words[0].static else None

    @property
    def args(self) -> tuple[Word, ...]:
        return self.words[1:]

    def wrapper(self, name: str) -> Wrapper | None:
        return next((w for w in self.wrappers if w.name == name), None)

    @property
    def module(self) -> str | None:
        """MODULE of `python -m MODULE` (after the interpreter's own options)."""
        base = self.base
        if base is None or not base.startswith("python"):
            return None
        values = [w.value for w in self.words[1:]]
        i = 0
        while i < len(values):
            value = values[i]
            if value == "-m":
                if i + 1 >= len(values):
                    return None
                # (`python3 -m "$WORKER_MODULE"`: the one value the script gives it)
                return held_value(self.words[i + 2]) or values[i + 1]
            if value.startswith("-m") and len(value) > 2:
                return value[2:]
            if value in ("-X", "-W", "-Q"):
                i += 2
                continue
            if not value.startswith("-"):
                return None  # a script file
            i += 1
        return None

    @property
    def shell(self) -> bool:
        return self.base in SHELLS


def resolve(command: Command) -> Invocation:
    base = command.base
    if base in WRAPPERS or (
        base is None and (_optional_prefix(command.words) or _held_program(command.words))
    ):
        return resolve_words(command, tuple(command.words))
    if base is not None and base in command.script.functions:
        shifted = command.script.runs_arguments(base)
        if shifted is not None:
            return _function_wrapper(command, shifted)
    if base is None and command.words and not command.words[0].static:
        base = _program_in_folder(command.words[0].value)  # (`"$VENV/bin/python" -m ...`)
    return Invocation(command, (), tuple(command.words), (), base)  # most commands


def _function_wrapper(command: Command, shifted: int) -> Invocation:
    """A call of a function of the script that runs its arguments after its first `shifted`
    ones (`wait_or_die "$pid" bash -c "$CMD"`): a wrapper whose operands are those."""
    words = tuple(command.words)
    name = words[0].value
    wrapper = Wrapper(name, words[: 1 + shifted], (), words[1 : 1 + shifted])
    if len(words) <= 1 + shifted:
        return Invocation(command, (wrapper,), ())
    inner = resolve_words(command, words[1 + shifted :])
    return Invocation(command, (wrapper, *inner.wrappers), inner.words, inner.prefix, inner.base)


def resolve_words(command: Command, words: tuple[Word, ...]) -> Invocation:
    """The invocation of `words` (a command's, or an argument array's items)."""
    wrappers: list[Wrapper] = []
    prefix: list[Word] = []
    skipped = False  # (a prefix read before the command)
    while True:
        if _optional_prefix(words):  # `${LAUNCH_PREFIX:-} python3 -m ...`
            if not _only_nothing(words[0]):  # (`NUMA_CMD=""` alone: no word, no wrapper)
                held = _held_wrapper(words[0]) or words[0].value
                wrappers.append(Wrapper(held, words[:1], ()))
            words = words[1:]
            skipped = True
        elif skipped and len(words) > 1 and _nested_assignment(words[0]):
            # (in a string `eval` runs, after `${SDMA_ENV}` that holds `NAME=VALUE` words or
            # nothing: the `NAME=VALUE` words after it are still the command's assignments)
            prefix.append(words[0])
            words = words[1:]
        else:
            break
    while words:
        program = None if words[0].static else _held_program(words)
        if not words[0].static and program is None:
            break
        base = program or posixpath.basename(words[0].value)
        taken = 1
        name = base
        if base in _SUBCOMMANDS:
            found = _subcommand(words, _SUBCOMMANDS[base], _GLOBAL_OPTIONS.get(base))
            if found is None:
                break
            sub, before = found
            # (NVIDIA's wrapper hands its arguments to docker, with the NVIDIA runtime)
            family = "docker" if base == "nvidia-docker" else base
            name = f"{family} {sub.removeprefix('container ')}"
            taken = 1 + before + len(sub.split())
        grammar = WRAPPER_GRAMMARS.get(name)
        if grammar is None:
            break
        wrapper, rest, assigned = _read(name, grammar, words, taken, command.function)
        wrappers.append(wrapper)
        prefix.extend(assigned)
        if rest is None:
            return Invocation(command, tuple(wrappers), (), tuple(prefix))
        words = rest
        entrypoint = _entrypoint(wrapper)
        if entrypoint is not None:  # `docker run --entrypoint=/bin/bash IMAGE x.sh`
            word, program = entrypoint
            base = posixpath.basename(program)
            return Invocation(command, tuple(wrappers), (word, *words), tuple(prefix), base)
    program = words[0].value if words and words[0].static else ""
    wrapped = posixpath.basename(program) if program else None
    if words and not words[0].static:
        wrapped = _program_in_folder(words[0].value)
    return Invocation(command, tuple(wrappers), words, tuple(prefix), wrapped)


def _held_program(words: Sequence[Word]) -> str | None:
    """The wrapping program a command's first word holds where every assignment of it gives
    that one, alone or after `sudo` (`DOCKER_CMD=docker` or `DOCKER_CMD="sudo docker"`, then
    `$DOCKER_CMD run ... IMAGE bash -lc '...'`; InferenceX's amd_utils job.slurm): `docker`,
    read as written there (`sudo` changes nothing of what the container runs). Quoted, the
    value is one word: `"$DOCKER_CMD"` holding `sudo docker` names no program. None where the
    word is no lone variable, an assignment gives another value or none that is written out,
    or the program is no wrapper's."""
    if len(words) < 2 or words[0].static:
        return None
    assigned = _shell_assignments(words[0])
    if not assigned:
        return None
    quoted = words[0].text.startswith('"')
    programs = set()
    for assignment in assigned:
        value = assignment.value
        if value is None or not value.static or value.items is not None:
            return None
        split = value.value.split()
        if not split or (quoted and len(split) > 1) or any(w != "sudo" for w in split[:-1]):
            return None
        programs.add(posixpath.basename(split[-1]))
    program = programs.pop() if len(programs) == 1 else None
    return program if program in _SUBCOMMANDS or program in WRAPPER_GRAMMARS else None


def _shell_assignments(word: Word) -> list[Assignment]:
    """For a lone `$NAME`, the assignments of NAME its shell makes before it (its own, and
    those of the strings its `eval`s run), else, for a nested script, those the shell that
    runs it passes on (`visible_assignments`: exported, not to `ssh` or a container)."""
    match = LONE_VARIABLE.fullmatch(word.text.strip('"'))
    if match is None:
        return []
    name = match.group(1) or match.group(2)
    before = word.node.start_byte
    own = [
        a
        for script in _same_shell(word.script, before)
        for a in script.assignments
        if a.name == name and (script is not word.script or a.node.start_byte < before)
    ]
    if own or word.script.parent is None:
        return own
    from benchlint.shell.model import visible_assignments  # (the model builds on this module)

    return visible_assignments(word.script, name, before)


def _program_in_folder(value: str) -> str | None:
    """The program a path in a folder not known runs, by its name written out after the last
    `/` (`"$VENV/bin/python"`: python, whichever environment); None for any other word."""
    head, slash, tail = value.rpartition("/")
    tail = tail.rstrip("\"'")
    if not slash or not _PROGRAM_NAME.fullmatch(tail) or head.count("${") != head.count("}"):
        return None
    return tail


_PROGRAM_NAME = lazy_compile(r"[A-Za-z][A-Za-z0-9_.+-]*")


def _subcommand(
    words: Sequence[Word], known: tuple[str, ...], options: _Globals | None
) -> tuple[str, int] | None:
    """Which of the family's wrapping subcommands (`run`, `job submit`) the words after its
    name are, written plainly, after the family's global options (`docker -H ssh://h run`:
    `options`, those that take a value and those that take none), and how many words those
    options are; None for another subcommand, or an option not known."""
    at = 1
    while options is not None and at < len(words) and words[at].value.startswith("-"):
        word = words[at]
        option = word.value.split("=", 1)[0]
        if not word.static:
            return None
        if option in options.valued or option in options.flags:
            at += 2 if option in options.valued and "=" not in word.value else 1
            continue
        if option.startswith("--"):
            return None
        # (short options together: flags, the last of them may take a value, written on
        # (`-Hssh://h`) or in the next word (`-DH ssh://h`), as Docker's parser reads them)
        taken = 1
        for i, letter in enumerate(word.value[1:]):
            if "-" + letter in options.valued:
                taken = 2 if i == len(word.value) - 2 else 1
                break
            if "-" + letter not in options.flags:
                return None
        at += taken
    for sub in known:
        given = [w.value if w.static else None for w in words[at : at + sub.count(" ") + 1]]
        if given == sub.split():
            return sub, at - 1
    return None


@dataclass(frozen=True)
class _Globals:
    valued: frozenset[str]
    flags: frozenset[str]


# the global options of a family that may come before its subcommand (Docker 28's `docker
# --help`, Podman 5's `podman --help`)
_GLOBAL_OPTIONS = {
    "docker": _Globals(
        valued=frozenset(
            {"--config", "-c", "--context", "-H", "--host", "-l", "--log-level", "--tlscacert"}
            | {"--tlscert", "--tlskey"}
        ),
        flags=frozenset({"-D", "--debug", "--tls", "--tlsverify"}),
    ),
    "podman": _Globals(
        valued=frozenset(
            {"--cdi-spec-dir", "--cgroup-manager", "--config", "--conmon", "-c", "--connection"}
            | {"--db-backend", "--events-backend", "--hooks-dir", "--identity", "--imagestore"}
            | {"--log-level", "--module", "--network-cmd-path", "--network-config-dir", "--out"}
            | {"--root", "--runroot", "--runtime", "--runtime-flag", "--ssh", "--storage-driver"}
            | {"--storage-opt", "--tmpdir", "--url", "--volumepath"}
        ),
        flags=frozenset({"--debug", "-r", "--remote", "--syslog", "--noout", "--transient-store"}),
    ),
}


def _optional_prefix(words: Sequence[Word]) -> bool:
    """A first word `${NAME:-}` before the command: empty by default, a wrapper when set
    (`${LAUNCH_PREFIX:-} python3 -m sglang.launch_server ...`). Unset, the shell drops it and
    runs the next word; set, it is taken for a wrapper of that command. So is an array's items
    before a command written out (`"${PREFIX[@]}" vllm serve ...`: none, or a wrapper's words)."""
    if len(words) < 2:
        return False
    if _EMPTY_DEFAULT.fullmatch(words[0].text) is not None:
        return True
    following = words[1]
    plain = following.static and not following.value.startswith("-")
    if _ARRAY_ITEMS.fullmatch(words[0].text) is not None:
        return plain
    if not _wrapper_held(words[0]):
        return False
    return plain or (  # (more of the prefix: `${SDMA_ENV} ${MOE_ENV} A=1 python3 ...`)
        _nested_assignment(following)
        or LONE_VARIABLE.fullmatch(following.text) is not None
        or _EMPTY_DEFAULT.fullmatch(following.text) is not None
    )


def _nested_assignment(word: Word) -> bool:
    """A `NAME=VALUE` word in a nested script (a string `eval` or `bash -c` runs): an
    assignment where the words before it in the command are (what a variable put in place
    there gave bash to parse)."""
    return word.script.parent is not None and _ASSIGNMENT_WORD.match(word.text) is not None


def assigned_to(word: Word) -> tuple[str, list[Assignment]] | None:
    """For a lone `$NAME` (`"$NAME"`, `${NAME}`), the name and every assignment of it in the
    word's script and, for a nested script, in its file's; None for another word."""
    match = LONE_VARIABLE.fullmatch(word.text.strip('"'))
    if match is None:
        return None
    name = match.group(1) or match.group(2)
    return name, _assignments_of(word, name)


def _assignments_of(word: Word, name: str) -> list[Assignment]:
    """Every assignment of `name` in the word's script and, for a nested script, in its
    file's, with those of the strings their `eval`s run before it (`eval "$DETECT"`)."""
    scripts = [word.script, word.script.top]
    shells = dict.fromkeys(
        inner
        for each in scripts
        for inner in _same_shell(each, word.node.start_byte if each is word.script else None)
    )
    return [a for each in shells for a in each.assignments if a.name == name]


def _same_shell(script: Script, before: int | None = None) -> Iterator[Script]:
    """The script and the strings its `eval`s run (before byte `before` of it, where given),
    theirs too: what runs in its shell (not an `eval` in a subshell, a pipeline or the
    background, nor in a function's body: it runs where the function is called; t84a)."""
    yield script
    for inner in script.nested:
        command = inner.parent
        if (
            command is not None
            and command.base == "eval"
            and not command.apart_from_script
            and command.function is None
            and (before is None or command.node.end_byte <= before)
        ):
            yield from _same_shell(inner)


def held_value(word: Word) -> str | None:
    """The value of a lone `$NAME` (quoted or not) where every assignment of the script gives
    NAME the same plain value (`WORKER_MODULE="dynamo.vllm"`), one of them before the word under
    no condition; else None."""
    found = assigned_to(word)
    if found is None:
        return None
    name, assigned = found
    values = {  # (`X=` gives it nothing, as `X=""` does; `read X` a value not known)
        ("" if _empty(a) else None)
        if a.value is None
        else a.value.value
        if a.value.static and a.value.items is None
        else None
        for a in assigned
        if not a.keeps_value  # (`export X`: the value it has)
    }
    sure = [  # (one that surely runs before it: not the environment's value)
        a.node.end_byte
        for a in word.script.assignments
        if a.name == name
        and not a.command.guards
        and a.command.function is None
        and a.node.end_byte <= word.node.start_byte
    ]
    if len(values) != 1 or None in values or not sure:
        return None
    # (nor one a file it sources, an `eval` or a `read` of it may give it after that: not
    # known; a `read` of another name gives it nothing: h121 M1)
    if any(
        c.base in _MAY_ASSIGN
        and sure[-1] <= c.node.start_byte < word.node.start_byte
        and (
            c.base in _RUNS_CODE
            or any(a.name in (name, "") or a.kind == "dynamic" for a in c.assignments)
        )
        for c in word.script.commands
    ):
        return None
    return values.pop()


# commands that may assign a variable the script's own assignments do not show
_MAY_ASSIGN = frozenset({"source", ".", "eval", "read", "getopts", "mapfile", "readarray"})
# of those, the ones that run code (any name may be given), not only set the names they are given
_RUNS_CODE = frozenset({"source", ".", "eval"})


def _wrapper_held(word: Word) -> bool:
    """An unquoted `$NAME` (or `${NAME}`) that every assignment of the script before it gives a
    wrapper's words or nothing (`NUMA_CMD=""`, then `NUMA_CMD="numactl -m 0,1"` under a
    condition): split by bash, no words or a wrapper of the command after it. In a nested
    script (a string `eval` or `bash -c` runs, where the value was put in place before the
    shell parsed it), also `NAME=VALUE` words (`${SDMA_ENV}` given `SGLANG_SDMA=1` or "")."""
    if LONE_VARIABLE.fullmatch(word.text) is not None and _only_nothing(word):  # (unquoted)
        return True
    found = _held_wrappers(word)
    return found is not None and (bool(found) or word.script.parent is not None)


def _only_nothing(word: Word) -> bool:
    """Every assignment of the lone `$NAME` gives it nothing (`NUMA_CMD=""`, `NUMA_CMD=`), one
    before it surely, and no file sourced, `eval` or `read` between may give it another value
    (`held_value`): bash splits it into no word, so the command is the words after it."""
    return held_value(word) == ""


def _held_wrapper(word: Word) -> str | None:
    """The wrapper a `_wrapper_held` word holds where it holds one alone (`numactl`)."""
    found = _held_wrappers(word)
    return found.pop() if found is not None and len(found) == 1 else None


def _held_wrappers(word: Word) -> set[str] | None:
    """The wrappers (`numactl`, `nsys profile`) the assignments of a lone `$NAME` give it,
    where each gives one that runs the command on this host's files (not `srun`, `docker run`:
    their options, which say where it runs, are the variable's), `NAME=VALUE` words, or
    nothing; None where one gives anything else (set() where none gives a wrapper)."""
    found = assigned_to(word) if LONE_VARIABLE.fullmatch(word.text) else None  # (unquoted)
    if found is None:
        return None
    if not found[1] or any(
        not _empty(a) and (a.value is None or a.value.items is not None) for a in found[1]
    ):
        return None
    wrappers: set[str] = set()
    for assignment in found[1]:
        value = assignment.value
        words = value.value.split() if value is not None else []
        if all(_ASSIGNMENT_WORD.match(w) for w in words):
            continue  # (nothing, or assignments: `_wrapper_held` says where they are ones)
        if any(posixpath.basename(w) in WRAPPERS for w in words[1:]):
            return None  # (`numactl -m 0 timeout 600`: a chain whose other links are not read)
        base = posixpath.basename(words[0])
        two = f"{base} {words[1]}" if len(words) > 1 else ""
        program = two if two in WRAPPER_GRAMMARS else base
        grammar = WRAPPER_GRAMMARS.get(program)
        # (one that runs it on this host's files: what a container or a job allocation does
        # is in the options the variable hides)
        if grammar is None or FILES in grammar.apart or grammar.container_options:
            return None
        wrappers.add(program)
    return wrappers


def _empty(assignment: Assignment) -> bool:
    """`NAME=` (`MAYBE_EXEC=` under a condition, `exec` else): the empty string, not a value
    the script does not show (`read NAME`, `export NAME`)."""
    return (
        assignment.value is None
        and assignment.kind in ("assign", "local", "export", "declare")
        and assignment.command.script.text_of(assignment.node).endswith("=")
    )


_ASSIGNMENT_WORD = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*=")


_EMPTY_DEFAULT = lazy_compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-\}")
# a variable's plain read, `$NAME` or `${NAME}` (fullmatch: the whole word)
LONE_VARIABLE = lazy_compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_ARRAY_ITEMS = lazy_compile(r'"?\$\{[A-Za-z_][A-Za-z0-9_]*\[@\]\}"?')


def _entrypoint(wrapper: Wrapper) -> tuple[Word, str] | None:
    """A container run's `--entrypoint PROGRAM`: the program it runs the command words with
    (the option's word stands for it), when written plainly."""
    if wrapper.name not in ("docker run", "podman run"):
        return None
    for option, word, value in wrapper.options:
        if option == "--entrypoint" and word is not None and value and "$" not in value:
            return word, value
    return None


def _read(
    name: str, grammar: Grammar, words: tuple[Word, ...], start: int, function: str | None
) -> tuple[Wrapper, tuple[Word, ...] | None, list[Word]]:
    """The wrapper's own words from `start` on; the rest (None: it runs nothing). `function`:
    the function whose body the command is in (None: the top level)."""
    options: list[tuple[str, Word | None, str]] = []
    operands: list[Word] = []
    assigned: list[Word] = []
    i = start
    stopped = False
    if grammar.dashdash:
        marker = next((k for k in range(start, len(words)) if words[k].value == "--"), None)
        if marker is not None:  # its own words, options and operands, up to the `--`
            own = [w for w in words[start:marker] if not w.value.startswith("-")]
            options = [(w.value, None, "") for w in words[start:marker] if w.value.startswith("-")]
            wrapper = Wrapper(name, words[: marker + 1], tuple(options), tuple(own))
            return wrapper, words[marker + 1 :], assigned
    while i < len(words):
        if grammar.operands and len(operands) == grammar.operands:
            break  # (`docker run IMAGE --flag`: what follows its operands is the command's)
        word = words[i]
        value = word.value
        if value == "--":
            i += 1
            if len(operands) < grammar.operands and i < len(words):
                operands.append(words[i])  # (`docker run --rm -- IMAGE`: h118 M6)
                i += 1
            break
        if grammar.single_dash_long and value[:1] == "-" and value[1:2] not in ("", "-"):
            value = "-" + value  # `-np 4`: the option `np`
        if value.startswith("--") and len(value) > 2:
            option, equals, attached = value[2:].partition("=")
            if equals:
                options.append(("--" + option, word, attached))
            elif option in grammar.long_pairs and i + 1 < len(words) and "=" in words[i + 1].value:
                # (`-genv NAME=VALUE`: MPICH's Hydra takes the pair in one word then)
                options.append(("--" + option, words[i + 1], words[i + 1].value))
                i += 1
            elif option in grammar.long_pairs and i + 2 < len(words):
                pair = f"{words[i + 1].value} {words[i + 2].value}"
                options.append(("--" + option, words[i + 1], pair))
                i += 2
            elif option in grammar.long_values and i + 1 < len(words):
                options.append(("--" + option, words[i + 1], words[i + 1].value))
                i += 1
            else:
                options.append(("--" + option, None, ""))
            stopped = stopped or value in grammar.stops
            i += 1
            continue
        if value.startswith("-") and len(value) > 1 and not operands:
            letters = value[1:]
            for j, letter in enumerate(letters):
                if letter in grammar.short_values:
                    attached = letters[j + 1 :].lstrip("=")
                    if attached:
                        options.append(("-" + letter, word, attached))
                    elif i + 1 < len(words):
                        options.append(("-" + letter, words[i + 1], words[i + 1].value))
                        i += 1
                    break
                options.append(("-" + letter, None, ""))
            stopped = stopped or value in grammar.stops
            i += 1
            continue
        if grammar.assignments and (_is_assignment(value) or _assignment_array(word)):
            assigned.append(word)
            i += 1
            continue
        due = len(operands) < grammar.operands  # (an operand is due: `docker run`'s image)
        image = due and IMAGE_VARIABLE.search(value) is not None
        # (several expansions in a row, or a substitution, only where an operand is due: a
        # program follows `srun` at once, `srun $(which python3) -m x`, `srun ${NSYS} ${PY} -u`)
        after = (
            next((k for k in range(i, len(words)) if not _unquoted_expansion(words[k])), None)
            if due
            else i + 1
        )
        if (
            _unquoted_expansion(word, due)
            and after is not None
            and i < after < len(words)
            and words[after].value.startswith("-")
            and not image
        ):
            # `srun $EXTRA_MOUNTS --container-writable bash x.sh`: the shell splits the value
            # into words among the options (a program is not followed by the wrapper's options),
            # several in a row too (`${MOUNTS} ${ENV_ARGS} --name x`); not a variable of the
            # image where one is due (`docker run $IMAGE --model m`: the image's entrypoint is
            # given the rest)
            options.append((value, word, ""))
            i += 1
            continue
        held = _options_held(word, grammar, function) if not due and i + 1 < len(words) else None
        if held is not None:
            # `sbatch ${slurm_args} job.slurm`, `slurm_args` given only options (`--nodes=2
            # --segment=2`): split among them, each read as written there, the script follows
            # (h84 W4; h86 F5: `--container-image=...`, `--export=NONE` in it count)
            options.extend((name, word, given) for name, given in held)
            stopped = stopped or any(name in grammar.stops for name, _ in held)
            i += 1
            continue
        if due and not image and i + 1 < len(words) and _option_array(word):
            # `docker run --rm "${MOUNTS[@]}" img cmd`: an array the script fills only with
            # options (each value it gives starts with one) is options, not the image
            options.append((value, word, ""))
            i += 1
            continue
        if due and not image and i + 1 < len(words) and _option_string(word):
            # `docker run "$RUN_OPTS" img cmd`, `docker run $RUN_OPTS img`: a variable every
            # assignment of the script gives options (a value starting with one) is options,
            # not the image: quoted, one option with blanks in it (BL106's), unquoted, split
            held = _options_held(word, grammar, function)
            options.extend((n, word, given) for n, given in held or [(value, "")])
            i += 1
            continue
        if len(operands) < grammar.operands:
            operands.append(word)
            i += 1
            continue
        break
    wrapper = Wrapper(name, words[:i], tuple(options), tuple(operands))
    if stopped or (name == "sbatch" and wrapper.has("--wrap")):
        return wrapper, None, assigned
    return wrapper, words[i:], assigned


# a variable named for a container's image (`$IMAGE`, `${DOCKER_IMG}`, `$IMAGE_TAG`), not for
# its options (`$IMAGE_ARGS`, `$IMG_OPTS`: h120 M9)
IMAGE_VARIABLE = lazy_compile(
    r"(?:IMAGE|IMG)(?![A-Z0-9_]*?_(?:ARGS?|OPTS?|OPTIONS|FLAGS?|PARAMS?)(?![A-Z0-9]))", re.I
)


def reaches_plainly(assignment: Assignment, function: str | None) -> bool:
    """Whether an assignment gives the variable its value wherever the shell goes on, in the
    top level or the body of `function`: a plain one (not a command's prefix, a `local`, a
    `read`), at the top level or in that body, not in a subshell, a pipeline's element or the
    background."""
    command = assignment.command
    return (
        assignment.kind in ("assign", "export", "declare", "readonly")
        and command.function in (None, function)
        and not command.apart_from_script
    )


def _options_held(
    word: Word, grammar: Grammar, function: str | None
) -> list[tuple[str, str]] | None:
    """The wrapper's options an unquoted lone `$NAME` holds, as (option, value), where the
    script gives it one value before it, written out and only options once split at blanks
    (`slurm_args="--nodes=2 --segment=2"`; an option's value the next piece, `-N 2`, `--time
    30`). None where it gives none written out, several, or a piece that is no option (the
    program, or the script). `function`: the one whose body the word is in."""
    if not _unquoted_expansion(word, False) or LONE_VARIABLE.fullmatch(word.text) is None:
        return None
    given = _shell_assignments(word)
    if len(given) != 1 or given[0].value is None or given[0].value.items is not None:
        return None
    value = given[0].value
    # (one that reaches the word; bash splits the value at blanks where the script leaves IFS
    # alone, and removes no quote in it: h89 F4, F5)
    if (
        not reaches_plainly(given[0], function)
        or not value.static
        or any(c in value.value for c in "'\"\\*?[")
        or any(a.name == "IFS" for a in word.script.top.assignments)
    ):
        return None
    pieces = value.value.split()
    found: list[tuple[str, str]] = []
    k = 0
    while k < len(pieces):
        piece = pieces[k]
        if grammar.single_dash_long and piece[:1] == "-" and piece[1:2] not in ("", "-"):
            piece = "-" + piece
        if piece.startswith("--") and len(piece) > 2:
            option, equals, attached = piece[2:].partition("=")
            if equals or option not in grammar.long_values:
                found.append(("--" + option, attached))
            elif k + 1 < len(pieces):
                found.append(("--" + option, pieces[k + 1]))
                k += 1
            else:
                return None  # (its value missing: the next word would be it)
        elif piece.startswith("-") and len(piece) > 1:
            letters = piece[1:]
            for j, letter in enumerate(letters):
                if letter in grammar.short_values:
                    attached = letters[j + 1 :].lstrip("=")
                    if not attached and k + 1 >= len(pieces):
                        return None
                    if not attached:
                        k += 1
                    found.append(("-" + letter, attached or pieces[k]))
                    break
                found.append(("-" + letter, ""))
        else:
            return None
        k += 1
    return found


def _option_array(word: Word) -> bool:
    """`"${NAME[@]}"` where every value the word's script (and its file's, and the strings
    their `eval`s run) gives NAME is an array that is empty or starts with an option
    (`MOUNTS=()`, `MOUNTS+=(-v /dev/x:/dev/x)`; not one given otherwise: `read -a`, a string)."""
    match = _QUOTED_ITEMS.fullmatch(word.text)
    if match is None:
        return False
    given = _assignments_of(word, match.group(1))
    return bool(given) and all(
        a.value is not None
        and a.value.items is not None
        and (not a.value.items or a.value.items[0].value.startswith("-"))
        for a in given
    )


_QUOTED_ITEMS = lazy_compile(r'"\$\{([A-Za-z_][A-Za-z0-9_]*)\[@\]\}"')


def _option_string(word: Word) -> bool:
    """A lone `$NAME` (quoted or not) where every value the word's script (and its file's, and
    the strings their `eval`s run) gives NAME is a string starting with an option
    (`RUN_OPTS="--rm -it"`, `MOUNT="-v $DIR:/data"`), or nothing (`OPTS=""`: unquoted, no word
    then; quoted, an empty word, which docker takes for the image where it is empty, and BL106
    reports: the words after it are read as on the path where it holds options, h118 M1); not
    one given otherwise (`read`), nor, quoted, one given only the empty string (the image)."""
    found = assigned_to(word)
    if found is None:
        return False
    name, given = found
    from benchlint.shell.model import own_value  # (the model builds on this module)

    unquoted = not word.text.startswith('"')
    own = own_value(name)

    def adds(a: Assignment) -> bool:  # (`OPTS="$OPTS --gpus all"`, `OPTS+=" --gpus all"`: h118 M2)
        return a.appends or (a.value is not None and own.match(a.value.value) is not None)

    starts = [a for a in given if not adds(a)]
    # (one that sets options; unquoted, appends onto nothing do: `OPTS=""`, `OPTS="$OPTS -x"`)
    sets = any(a.value is not None and a.value.value.strip() for a in starts)
    return (sets or (unquoted and len(starts) < len(given))) and all(
        adds(a)
        or _empty(a)
        or (
            a.value is not None
            and a.value.items is None
            and (
                a.value.value.startswith("-")  # (`-v ${DIR}:/data`: a dash written first)
                or (a.value.static and not a.value.value.strip())
            )
        )
        for a in given
    )


def _unquoted_expansion(word: Word, substitution: bool = True) -> bool:
    """A word that is only an unquoted `$NAME`, `${NAME}` or (with `substitution`) `$(...)`:
    zero or more words once split (`$(command -v nicctl >/dev/null && echo "-v ...")` among
    `docker run`'s options)."""
    kinds = ("simple_expansion", "expansion", "command_substitution")
    return word.node.type in (kinds if substitution else kinds[:2])


def _assignment_array(word: Word) -> bool:
    """`"${ENV_ARGS[@]}"` where every assignment the word's shell makes of ENV_ARGS gives
    items that are each `NAME=VALUE` (`ENV_ARGS=(A=1 "B=$X")`; h91, LMCache's
    `env "${ENV_ARGS[@]}" vllm serve ...`): `env` reads each as an assignment. Not unquoted
    (the items are split again), nor where an assignment gives anything else or none."""
    text = word.value
    if not (text.startswith("${") and text.endswith("[@]}") and word.text.startswith('"')):
        return False
    name = text[2:-4]
    given = [a for a in word.script.assignments if a.name == name]
    return bool(given) and all(
        a.value is not None
        and a.value.items is not None
        and all(_PAIR.match(item.value) for item in a.value.items)
        for a in given
    )


_PAIR = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _is_assignment(value: str) -> bool:
    """A word `env` reads as an assignment: any that holds `=` (GNU env's test, `strchr(arg,
    '=')`), whatever expansions it has: `env "$AFFINITY_VAR=$GPU" vllm serve` runs vllm."""
    return "=" in value
