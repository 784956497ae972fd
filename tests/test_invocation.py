"""The invocation resolver: what a command line runs behind its wrappers, and their options."""

from __future__ import annotations

import pytest

from benchlint.calls import _leading_expansion
from benchlint.engines import launches
from benchlint.environment import wrapper_settings
from benchlint.shell.model import parse_file
from benchlint.source import SourceText


def _invocation(line: str):  # type: ignore[no-untyped-def]
    script = parse_file(SourceText("t.sh", (line + "\n").encode()))
    return script.commands[0].invocation


@pytest.mark.parametrize(
    ("line", "wrappers", "runs"),
    [
        ('srun -N2 -t30 --jobid="$JOB" bash x.sh', ["srun"], "bash x.sh"),
        (
            "srun --nodes 2 --overlap --container-image=img python3 -m vllm.x",
            ["srun"],
            "python3 -m vllm.x",
        ),
        # Slurm's own tables: pyxis's flags take no value, every option with one does
        ("srun --container-writable --container-mount-home bash x.sh", ["srun"], "bash x.sh"),
        ("srun --cpus-per-gpu 4 --gpus-per-socket 2 -W 60 python3 x.py", ["srun"], "python3 x.py"),
        ("sbatch --wait --parsable job.sh", ["sbatch"], "job.sh"),
        ("timeout -k 5 60 flock -w 5 9", ["timeout"], "flock -w 5 9"),
        ("env -u X A=1 B=2 vllm serve m", ["env"], "vllm serve m"),
        (
            "nohup setsid stdbuf -oL numactl --cpunodebind=0 -m 0 cmd",
            ["nohup", "setsid", "stdbuf", "numactl"],
            "cmd",
        ),
        ("taskset -c 0-3 cmd a", ["taskset"], "cmd a"),
        ("sudo -u svc -E cmd", ["sudo"], "cmd"),
        ("ssh -p 22 -o X=y host cmd a", ["ssh"], "cmd a"),
        # the command follows `--`, options may follow the pod; without `--`, the pod ends them
        ('kubectl exec -it "$POD" -n ns -c main -- bash -c "x"', ["kubectl exec"], 'bash -c "x"'),
        ("kubectl exec pod curl u", ["kubectl exec"], "curl u"),
        ("incus exec c1 --env A=1 -- sh -c y", ["incus exec"], "sh -c y"),
        ("lxc exec c1 -- pkill -f z", ["lxc exec"], "pkill -f z"),
        (
            "docker run --rm -dit --gpus all -e A=1 --name s img python -m m",
            ["docker run"],
            "python -m m",
        ),
        # (what follows the image is the container's command line: its flags are not docker's)
        (
            "docker run --gpus all img --model m --port 8000",
            ["docker run"],
            "--model m --port 8000",
        ),
        ("ssh host --verbose", ["ssh"], "--verbose"),
        # a variable of the image where one is due: what follows is the entrypoint's
        ("docker run --gpus all $IMAGE --model m", ["docker run"], "--model m"),
        (
            "docker run --entrypoint=python3 $IMAGE -m sglang.launch_server --tp 8",
            ["docker run"],
            "--entrypoint=python3 -m sglang.launch_server --tp 8",  # (the option stands for it)
        ),
        ("docker run $DOCKER_OPTS --rm img cmd", ["docker run"], "cmd"),
        # the family's global options before the subcommand; one not known: not read
        ("docker -H ssh://gpu1 --tls run --rm img cmd", ["docker run"], "cmd"),
        ("docker --context=remote -D container run img cmd", ["docker run"], "cmd"),
        ("podman --root /var/x --remote run -d img cmd", ["podman run"], "cmd"),
        ("docker --bogus run img cmd", [], "docker --bogus run img cmd"),
        ("docker -Hssh://gpu1 run img cmd", ["docker run"], "cmd"),
        ("docker -DH ssh://gpu1 run img cmd", ["docker run"], "cmd"),
        ("docker -DX run img cmd", [], "docker -DX run img cmd"),
        ("docker -H ssh://gpu1 ps", [], "docker -H ssh://gpu1 ps"),
        # an array's items before a command written out: none, or a wrapper's words
        ('"${prefix[@]}" vllm serve m --tp 8', ["${prefix[@]}"], "vllm serve m --tp 8"),
        ('"${cmd[@]}" --extra 1', [], '"${cmd[@]}" --extra 1'),
        ("podman exec -it box bash", ["podman exec"], "bash"),
        ("enroot start --rw -m a:b img cmd", ["enroot start"], "cmd"),
        ("enroot exec 1234 sh -c x", ["enroot exec"], "sh -c x"),
        ("apptainer exec --nv -B /a:/a img.sif cmd", ["apptainer exec"], "cmd"),
        ("singularity exec img.sif cmd", ["singularity exec"], "cmd"),
        ("uv run --with x vllm serve m", ["uv run"], "vllm serve m"),
        ("conda run -n env --no-capture-output python app.py", ["conda run"], "python app.py"),
        ("micromamba run -n env cmd", ["micromamba run"], "cmd"),
        ("pixi run -e gpu serve", ["pixi run"], "serve"),
        ("poetry run -C app python x.py --k 1", ["poetry run"], "python x.py --k 1"),
        ("pipenv run python x.py", ["pipenv run"], "python x.py"),
        ("pdm run -p . python x.py", ["pdm run"], "python x.py"),
        ('xvfb-run -a -s "-screen 0 1x1x24" python3 x.py', ["xvfb-run"], "python3 x.py"),
        ("poetry install", [], "poetry install"),
        (
            "mpirun -n 1 --oversubscribe --allow-run-as-root trtllm-serve m --tp_size 8",
            ["mpirun"],
            "trtllm-serve m --tp_size 8",
        ),
        (
            "mpirun -np 4 -x NCCL_DEBUG --mca btl self,tcp -H a,b python -m m",
            ["mpirun"],
            "python -m m",
        ),
        ("mpiexec -n 2 -ppn 1 -genv A 1 -f hosts ./serve", ["mpiexec"], "./serve"),
        # (Hydra's `-genv NAME=VALUE` is the pair in one word)
        ("mpirun -n 2 -genv A=4 -genv B=1 python x.py --k", ["mpirun"], "python x.py --k"),
        (
            "trtllm-llmapi-launch trtllm-serve m --tp_size 16",
            ["trtllm-llmapi-launch"],
            "trtllm-serve m --tp_size 16",
        ),
        (
            "nsys profile -o out -t cuda,nvtx --force-overwrite true trtllm-serve m",
            ["nsys profile"],
            "trtllm-serve m",
        ),
        ("nsys stats report.nsys-rep", [], "nsys stats report.nsys-rep"),
        # a Ray job's entrypoint follows `--`; the family's other subcommands run nothing
        (
            "ray job submit --address=\"$A\" --runtime-env-json='{}' -- python3 t.py --lr 1",
            ["ray job submit"],
            "python3 t.py --lr 1",
        ),
        ("ray job submit --no-wait --working-dir . python t.py", ["ray job submit"], "python t.py"),
        ("ray job status raysubmit_1", [], "ray job status raysubmit_1"),
        ("ray job", [], "ray job"),
        ("salloc --no-shell -N 2 --time=60", ["salloc"], ""),
        ("sbatch --wrap 'srun x'", ["sbatch"], ""),
        ("command -v vllm", ["command"], ""),
        ("docker ps -a", [], "docker ps -a"),
        ("vllm serve m", [], "vllm serve m"),
    ],
)
def test_wrapped_command(line: str, wrappers: list[str], runs: str) -> None:
    invocation = _invocation(line)
    assert [w.name for w in invocation.wrappers] == wrappers
    assert " ".join(w.text for w in invocation.words) == runs


def test_option_forms() -> None:
    srun = _invocation('srun -N2 -t30 --jobid="$JOB" --ntasks-per-node 1 -l x').wrapper("srun")
    assert srun is not None
    assert srun.option("-N", "--nodes") == "2"
    assert srun.option("-t", "--time") == "30"
    assert srun.option("--jobid") == "$JOB"
    assert srun.option("--ntasks-per-node") == "1"
    assert srun.has("-l") and not srun.has("--overlap")
    mpirun = _invocation("mpirun -np 4 --mca btl self,tcp -x A=1 x").wrapper("mpirun")
    assert mpirun is not None
    assert (mpirun.option("--np"), mpirun.option("--mca"), mpirun.option("--x")) == (
        "4",
        "btl self,tcp",
        "A=1",
    )
    salloc = _invocation("salloc --nodes=4 --time 8:00:00 --no-shell").wrapper("salloc")
    assert salloc is not None
    assert (salloc.option("-N", "--nodes"), salloc.option("-t", "--time")) == ("4", "8:00:00")


def test_python_module_behind_options() -> None:
    assert _invocation("python3 -u -X dev -m sglang.launch_server --tp 8").module == (
        "sglang.launch_server"
    )
    assert _invocation("python3 serve.py -m x").module is None


def test_engine_launches_through_any_wrapper() -> None:
    text = (
        "srun --nodes=2 uv run vllm serve m --port 8000\n"
        "docker run --rm img python3 -m sglang.launch_server --tp 8\n"
        "conda run -n e python -m dynamo.vllm --model m\n"
    )
    script = parse_file(SourceText("t.sh", text.encode()))
    found = [(launch.engine, launch.args[0].value) for launch in launches(script)]
    assert found == [("vllm", "m"), ("sglang", "--tp"), ("dynamo", "--model")]


def test_a_container_entrypoint_runs_the_command_words() -> None:
    """`docker run --entrypoint=/bin/bash IMAGE x.sh` runs bash with the script: a call of it;
    `--entrypoint python3 IMAGE -m sglang.launch_server` is an engine launch."""
    from benchlint.calls import script_word

    text = (
        'docker run --rm --entrypoint=/bin/bash -v "$PWD:/w" img:1 "$BENCH_SCRIPT"\n'
        "docker run --entrypoint python3 img:1 -m sglang.launch_server --tp 8\n"
        'docker run --entrypoint "$EP" img:1 x.sh\n'
    )
    script = parse_file(SourceText("run.sh", text.encode()))
    first, _, third = script.commands
    assert first.invocation.base == "bash"
    found = script_word(first)
    assert found is not None and (found[0], found[1].value) == ("run", "$BENCH_SCRIPT")
    assert [launch.module for launch in launches(script)] == ["sglang.launch_server"]
    assert third.invocation.base == "x.sh"  # an entrypoint from a variable is not known


@pytest.mark.parametrize(
    ("line", "apart", "own_env", "sets", "runs"),
    [
        # another host of the job, on its filesystem; in a container where pyxis has an image
        ("srun -N2 bash x.sh", {"processes"}, False, set(), "bash x.sh"),
        ("srun --container-image=img bash x.sh", {"processes", "files"}, False, set(), "bash x.sh"),
        ("mpirun -np 4 python3 x.py", {"processes"}, False, set(), "python3 x.py"),
        ("ssh host cmd", {"processes", "files"}, False, set(), "cmd"),
        ("docker run -e A=1 --env B=2 img cmd", {"processes", "files"}, True, {"A", "B"}, "cmd"),
        ("podman exec -e A=1 box cmd", {"processes", "files"}, False, {"A"}, "cmd"),
        ("kubectl exec pod -- cmd", {"processes", "files"}, False, set(), "cmd"),
        ("ray job submit -- cmd", {"processes", "files"}, False, set(), "cmd"),
        # apptainer's `-e` is `--cleanenv`, a switch (not a variable, and not the image's word)
        (
            "apptainer exec -e img.sif python3 x.py",
            {"processes", "files"},
            True,
            set(),
            "python3 x.py",
        ),
        ("apptainer exec --env A=1 img.sif cmd", {"processes", "files"}, False, {"A"}, "cmd"),
        (
            "singularity exec --env A=1 --cleanenv img.sif cmd",
            {"processes", "files"},
            True,
            {"A"},
            "cmd",
        ),
        ("timeout 60 env A=1 cmd", set(), False, {"A"}, "cmd"),
    ],
)
def test_where_a_wrapper_runs_its_command(
    line: str, apart: set[str], own_env: bool, sets: set[str], runs: str
) -> None:
    """Each wrapper's grammar says what its command does not share with the caller, whether it
    starts from an environment of its own, and which options set a variable for it: the facts
    BL109, BL111 and BL116 ask for."""
    invocation = _invocation(line)
    assert set().union(*(w.apart for w in invocation.wrappers)) == apart
    assert any(w.own_env for w in invocation.wrappers) is own_env
    assert set(wrapper_settings(invocation.command)) == sets
    assert " ".join(w.value for w in invocation.words) == runs


@pytest.mark.parametrize(
    ("body", "runs"),
    [
        ('local secs="$1"\n    shift\n    "$@"', True),
        # its arguments behind a wrapper the resolver knows
        ('local secs="$1"\n    shift\n    timeout "$secs" "$@"', True),
        # near misses: a wrapper given them as one word, a command of its own
        ('shift\n    timeout 5 "$*"', False),
        ('shift\n    echo "$@"', False),
    ],
)
def test_a_function_that_runs_its_arguments_is_a_wrapper(body: str, runs: bool) -> None:
    """`runit 60 srun -N1 hostname` with `runit() { ...; shift; timeout "$1" "$@"; }`: the
    call runs srun, behind a wrapper named after the function."""
    text = f"runit() {{\n    {body}\n}}\nrunit 60 srun -N1 hostname\n"
    script = parse_file(SourceText("t.sh", text.encode()))
    call = script.commands[-1]
    invocation = call.invocation
    if not runs:
        assert invocation.wrappers == ()
        return
    assert [w.name for w in invocation.wrappers] == ["runit", "srun"]
    assert " ".join(w.value for w in invocation.words) == "hostname"


def test_a_function_that_hands_its_arguments_to_one_that_runs_them_is_a_wrapper() -> None:
    """`g() { f "$@"; }` with `f() { "$@"; }`: `g srun -N1 hostname` runs srun too; a function
    that calls itself is no wrapper (and the reading ends)."""
    text = 'f() { "$@"; }\ng() { f "$@"; }\nh() { h "$@"; }\ng srun -N1 hostname\nh srun x\n'
    script = parse_file(SourceText("t.sh", text.encode()))
    g_call, h_call = script.commands[-2], script.commands[-1]
    assert [w.name for w in g_call.invocation.wrappers] == ["g", "srun"]
    assert h_call.invocation.wrappers == ()


def test_a_variable_that_holds_a_wrapper_or_nothing_is_a_wrapper() -> None:
    """An unquoted `$NUMA_CMD` every assignment of the script gives a wrapper's words or nothing
    is that wrapper (bash drops it when empty); its engine launch is read. Near misses: a
    variable the script does not set, one that may hold another program, a quoted one (an
    empty command name)."""
    script = parse_file(
        SourceText(
            "t.sh",
            b'NUMA_CMD=""\n'
            b'[ -n "$B" ] && NUMA_CMD="numactl -m 0,1"\n'
            b'P="nsys profile -o x"\n'
            b"OTHER=echo\n"
            b"$NUMA_CMD vllm serve m --port 8000\n"
            b"${P} trtllm-serve m\n"
            b"$UNSET vllm serve m\n"
            b"$OTHER vllm serve m\n"
            b'"$NUMA_CMD" vllm serve m\n',
        )
    )
    runs = {c.span.line: c.invocation for c in script.commands if c.words}
    assert [w.name for w in runs[5].wrappers] == ["numactl"]
    assert [w.name for w in runs[6].wrappers] == ["nsys profile"]
    assert [launch.command.span.line for launch in launches(script)] == [5, 6]
    assert all(runs[line].base is None for line in (7, 8, 9))


def test_a_variable_that_holds_only_a_wrappers_options_is_split_among_them() -> None:
    """`sbatch ${slurm_args} job.slurm` where the script gives `slurm_args` one value before
    it, only sbatch's options (an option's value in the next piece too): the job's script
    follows it, and the options are read as written there (h84 W4, ai-dynamo/dynamo's
    submit_disagg.sh; h86 F5: `--container-image`, `--export=NONE`, `--wrap`). Near misses: a
    value that holds a word no option takes (the script), an option whose value is missing, a
    variable given no value written out, or two values, a quoted one (one word)."""
    script = parse_file(
        SourceText(
            "t.sh",
            b'slurm_args="--nodes=2 --segment=2 -N 4 --time 30"\n'
            b'with_job="--nodes=2 job.slurm"\n'
            b'no_value="--nodes=2 -t"\n'
            b"read -r got\n"
            b'two="--nodes=2"\n'
            b'[ -n "$B" ] && two="--nodes=4"\n'
            b'image="--container-image=vllm/vllm-openai:v0.10.2 --export=NONE"\n'
            b'wrap="--wrap=hostname"\n'
            b"sbatch ${slurm_args} job.slurm\n"
            b"sbatch $with_job other.slurm\n"
            b"sbatch $no_value 30 other.slurm\n"
            b"sbatch $got job.slurm\n"
            b'sbatch "$slurm_args" job.slurm\n'
            b"sbatch $two job.slurm\n"
            b"srun $image python3 x.py\n"
            b"sbatch $wrap job.slurm\n",
        )
    )
    runs = {c.span.line: c.invocation for c in script.commands if c.words}
    assert " ".join(w.text for w in runs[9].words) == "job.slurm"
    sbatch = runs[9].wrapper("sbatch")
    assert sbatch is not None
    assert [(o[0], o[2]) for o in sbatch.options] == [
        ("--nodes", "2"),
        ("--segment", "2"),
        ("-N", "4"),
        ("--time", "30"),
    ]
    for line in (10, 11, 12, 13, 14):
        assert runs[line].words[0].text != "job.slurm", line
        assert runs[line].words[0].text.startswith(("$", '"')), line
    srun = runs[15].wrapper("srun")
    assert srun is not None
    assert " ".join(w.text for w in runs[15].words) == "python3 x.py"
    assert srun.option("--container-image") == "vllm/vllm-openai:v0.10.2"
    assert srun.option("--export") == "NONE"
    assert srun.apart  # (in a container: not this host's files)
    assert runs[16].words == ()  # (`--wrap`: sbatch runs the string, not a script)


def test_a_module_a_variable_holds_once_is_the_module() -> None:
    """`python3 -m "$WORKER_MODULE"` where the script gives it one value, under no condition,
    before the line: that module's launch; with two values, only under a condition, or the
    caller's with an engine's module as its default, none (counted by BL303 as a launch behind
    a word whose value is not known)."""
    from benchlint.engines import hidden_launches

    script = parse_file(
        SourceText(
            "t.sh",
            b'ONE="dynamo.vllm"\n'
            b'python3 -m "$ONE" --model m\n'
            b"TWO=dynamo.vllm\n"
            b'[ -n "$U" ] && TWO=dynamo.vllm.unified_main\n'
            b'python3 -m "$TWO" --model m\n'
            b'[ -n "$U" ] && LATE=dynamo.vllm\n'
            b'python3 -m "$LATE" --model m\n'
            b'python3 -m "$ANY" --model m\n'
            b"$PREFIX vllm serve m\n"
            b"CALLERS=${CALLERS:-dynamo.sglang}\n"
            b'python3 -m "$CALLERS" --model m\n'
            b'TOOL="${TOOL-my.tool}"\n'
            b'python3 -m "$TOOL" --model m\n',
        )
    )
    found = launches(script)
    assert [(launch.command.span.line, launch.module) for launch in found] == [(2, "dynamo.vllm")]
    # (`${CALLERS:-dynamo.sglang}`: the caller's module or an engine's: counted; a default
    # that names no engine's module is no launch)
    assert [c.span.line for c in hidden_launches(script)] == [5, 7, 9, 11]


def test_a_wrapper_that_runs_nothing_hides_no_launch() -> None:
    """`command -v trtllm-serve` looks the program up and runs nothing: no launch, and none
    behind a word whose value is not known (t70b: it was counted so); near miss, a program
    after `$PRE` is one."""
    from benchlint.engines import hidden_launches

    script = parse_file(
        SourceText(
            "t.sh",
            b"command -v trtllm-serve >/dev/null || exit 1\n"
            b"command -V vllm\n"
            b"$PRE trtllm-serve m\n"
            b"command trtllm-serve m\n",
        )
    )
    assert [launch.command.span.line for launch in launches(script)] == [4]
    assert [c.span.line for c in hidden_launches(script)] == [3]


def test_a_program_in_a_folder_not_known_is_that_program_and_hides_what_it_runs() -> None:
    """`"$VENV/bin/python" -m dynamo.vllm` is the worker (its name written after the last `/`);
    a wrapper of the repository's or a tool in such a folder (`"$SCRIPT_DIR/numa_bind.sh"
    python3 -m ...`, `"$CUDA_HOME/bin/nsys" profile ...`) runs a launch benchlint does not
    read, counted as behind a word not known (t71a: it was said nowhere)."""
    from benchlint.engines import hidden_launches

    script = parse_file(
        SourceText(
            "t.sh",
            b'"$SCRIPT_DIR/numa_bind.sh" python3 -m dynamo.vllm --model m\n'
            b'"$CUDA_HOME/bin/nsys" profile python3 -m sglang.launch_server --model-path m\n'
            b'"$VENV/bin/python" -m dynamo.vllm --model m\n'
            b'"$DIR/$PY" -m dynamo.vllm --model m\n',
        )
    )
    assert [(launch.command.span.line, launch.module) for launch in launches(script)] == [
        (3, "dynamo.vllm")
    ]
    assert [c.span.line for c in hidden_launches(script)] == [1, 2]


def test_a_held_value_is_not_taken_where_the_script_may_change_it_or_a_chain_hides_wrappers() -> (
    None
):
    """`MOD=dynamo.vllm`, then `source`, `eval` or `read` before the line: the value may be
    another (not taken: counted as hidden); `$PREFIX` holding `numactl -m 0 timeout 600`: a
    chain of wrappers is not read as one wrapper (the words bash splits it into are)."""
    from benchlint.engines import hidden_launches

    script = parse_file(
        SourceText(
            "t.sh",
            b"MOD=dynamo.vllm\n"
            b"source ./site.sh\n"
            b'python3 -m "$MOD" --model m\n'
            b'PREFIX="numactl -m 0 timeout 600"\n'
            b"$PREFIX vllm serve m\n",
        )
    )
    # (the line bash splits `$PREFIX` on is read as its own command line: numactl, then
    # timeout, which returns; the launch is that nested one's)
    found = launches(script)
    assert [(launch.command.script.parent is not None, launch.module) for launch in found] == [
        (True, "vllm serve")
    ]
    assert found[0].command.invocation.wrappers[-1].name == "timeout"
    assert [c.span.line for c in hidden_launches(script)] == [3]


def test_a_variable_that_holds_a_wrapping_program_is_that_program() -> None:
    """(t84, InferenceX's amd_utils job.slurm) `$DOCKER_CMD run`, where every assignment of
    DOCKER_CMD its shell makes before it (an `eval`'d snippet's too) gives `docker` or `sudo
    docker`, is `docker run`; `$MAYBE_EXEC` given `exec` or nothing is a wrapper; an unquoted
    `$(...)` and several expansions in a row before the image are options. Near misses: a
    quoted `"$DOCKER_CMD"` holding `sudo docker` (one word names no program), a variable no
    assignment before it gives (an `eval` in a function or after it), one that may hold a
    program no wrapper is known for, and `$(which python3)` after `srun` (a program)."""
    script = parse_file(
        SourceText(
            "t.sh",
            b'eval "DOCKER_CMD=docker"\n'
            b"MAYBE_EXEC=exec\n"
            b'[ -n "$B" ] && MAYBE_EXEC=\n'
            b"$MAYBE_EXEC $DOCKER_CMD run --rm $(echo -v /a:/a) ${MOUNTS} ${ENVS} --name x img"
            b" bash -lc 'echo hi'\n"
            b'S="sudo docker"\n'
            b'"$S" run --rm img true\n'
            b"f() { eval 'LATE=docker'; }\n"
            b"$LATE run --rm img true\n"
            b'R=docker; [ -n "$B" ] && R=nerdctl\n'
            b"$R run --rm img true\n"
            b"srun $(which python3) -m sglang.launch_server --model-path m\n",
        )
    )
    runs = {c.span.line: c.invocation for c in script.commands if c.span.column == 1}
    assert [w.name for w in runs[4].wrappers] == ["exec", "docker run"]
    assert [w.value for w in runs[4].words] == ["bash", "-lc", "echo hi"]
    assert all(not runs[line].wrappers for line in (6, 8, 10))
    assert [w.name for w in runs[11].wrappers] == ["srun"]
    assert runs[11].words[0].value == "$(which python3)"


@pytest.mark.parametrize(
    ("value", "head", "rest"),
    [
        # (bash ends a nested `${...}` at its own `}`: t84, amd_utils/server.sh's WS_PATH)
        ('${WS:-${ALT:-$(dirname "${BASH_SOURCE[0]}")}}/s.sh', None, "/s.sh"),
        ("${!LIB_DIR}/common.sh", "${!LIB_DIR}", "/common.sh"),  # (t84a: not swallowed)
        ("${#X}/x.sh", "${#X}", "/x.sh"),
        ("$DIR/x.sh", "$DIR", "/x.sh"),
    ],
)
def test_a_leading_expansion_ends_where_bash_ends_it(
    value: str, head: str | None, rest: str
) -> None:
    found = _leading_expansion(value)
    assert found == (value[: len(value) - len(rest)] if head is None else head, rest)


def test_env_reads_an_array_of_assignments() -> None:
    """`env "${ENV_ARGS[@]}" vllm serve ...` (h91): each item `NAME=VALUE`, in every assignment of
    the array, is an assignment of `env`'s; not an array with another item, nor one unquoted
    (its items are split again)."""
    text = (
        'A=(X=1 "Y=$Z")\nenv "${A[@]}" vllm serve m\n'
        'B=(X=1 --foo)\nenv "${B[@]}" vllm serve m\n'
        "env ${A[@]} vllm serve m\n"
    )
    script = parse_file(SourceText("t.sh", text.encode()))
    runs = [c.invocation for c in script.commands if c.base == "env"]
    assert [" ".join(w.text for w in i.words) for i in runs] == [
        "vllm serve m",
        '"${B[@]}" vllm serve m',
        "${A[@]} vllm serve m",
    ]
