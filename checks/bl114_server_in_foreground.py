"""An engine server started in the foreground, with a readiness poll or a client after it.

## What it does
Reports an engine launch (`vllm serve`, `python3 -m sglang.launch_server`, `sglang serve`,
`trtllm-serve`, `python3 -m dynamo.*`, the SGLang router) that the script runs in the
foreground, at its top level (or in a function a top-level line calls in the foreground): not
with `&`, not in a pipeline or subshell that is, not `exec`,
not in a container started detached, when a later command of the same script talks to a
server: `curl` or `wget` (a readiness poll `until curl .../health`), a URL of this host
(`localhost`, `127.0.0.1`, `0.0.0.0`) in a command that does more than print it (not `echo`,
`printf`, `cat`), a benchmark client (`benchmark_serving.py`, `bench_serving`, `vllm bench`,
`aiperf`, `genai-perf`), a function named `wait_for...`, or one of the script's functions that
does one of these (`check_health() { until curl ...; done; }`).

## Why is this bad?
The shell waits for the server to exit, and a server does not exit: the readiness poll and the
benchmark after it never run, and the job hangs until its time limit (hours of a node). When the
launch's `&` goes missing in an edit (a flag added on the last line of the command, the `&`
left on the old line or dropped), the script still looks right.

## Example
```bash path=benchmarks/gptoss_fp4_h100.sh
vllm serve "$MODEL" --port "$PORT" --tensor-parallel-size "$TP" > "$SERVER_LOG" 2>&1
until curl --output /dev/null --silent --fail "http://localhost:$PORT/health"; do
  sleep 5
done
```

## Use instead
```bash path=benchmarks/gptoss_fp4_h100.sh
vllm serve "$MODEL" --port "$PORT" --tensor-parallel-size "$TP" > "$SERVER_LOG" 2>&1 &
until curl --output /dev/null --silent --fail "http://localhost:$PORT/health"; do
  sleep 5
done
```

## Exceptions
Not reported: a launch in a function's body under a condition there, or in a function no line
of the script's top level calls in the foreground (`start_server &`), in a `bash -c` string or a
heredoc, in a container started detached (`docker run -d`), behind a wrapper that returns
(`timeout` ends it) or one not known to wait for it (`setsid`, `ray job submit`, `ssh`, whose
remote shell may send it to the background, `sudo -b`: not `numactl`,
`taskset`, `nice`, `nohup`, `stdbuf`, `env`, `time` or `nsys profile`, which run it in place,
nor `srun`, `mpirun`, `sudo` or an attached `docker run`/`exec`, `enroot start`,
`apptainer exec`, which run it elsewhere and wait for it to end, nor an unquoted `$NUMA_CMD` the
script gives one of those or nothing), and a server with nothing after it that talks to one (an
entrypoint that serves in the foreground on purpose).
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.engines import Launch, launches
from benchlint.finding import Finding, Location, Severity, clip
from benchlint.lazyre import lazy_compile
from benchlint.registry import script_rule
from benchlint.shell.model import Command, Script, exclusive, first_line

_CLIENTS = lazy_compile(
    r"benchmark_serving|bench_serving|\bvllm\s+bench\b|\baiperf\b|\bgenai-perf\b|localhost"
    r"|127\.0\.0\.1|0\.0\.0\.0"
)
_POLLERS = frozenset({"curl", "wget"})
_WAITER = lazy_compile(r"wait_for\w*|wait_until\w*")
# commands that only print: a URL in their text talks to nothing (`echo "Base URL:
# http://localhost:$PORT"` after a server that serves in the foreground on purpose; t86 h7)
_PRINTERS = frozenset({"echo", "printf", ":", "cat", "tee", "logger"})


@script_rule("BL114", "server-in-foreground", Severity.ERROR, tags=("shell", "correctness"))
def check(ctx: Context, script: Script) -> Iterator[Finding]:
    found = launches(script, shapes=True)
    servers = {id(launch.command) for launch in found}
    for launch in found:
        if _foreground(launch):
            after = _talks_to_server(script, launch.command, servers)
            if after is not None:
                yield _finding(launch, after, _unwritten_log(script, launch.command))
            continue
        call = _foreground_call(launch)
        after = _talks_to_server(script, call, servers) if call is not None else None
        if call is not None and after is not None:
            yield _finding(launch, after, called=call)


def _foreground(launch: Launch) -> bool:
    """A launch the script waits for: a top-level command of the file that runs it in place."""
    command = launch.command
    return command.function is None and _in_place(launch)


def _in_place(launch: Launch) -> bool:
    """A launch of the file's own script (not a nested one's), as written (not an argument
    array run later), not in the background, not `exec`, not in a container, behind no wrapper
    that returns or may run it elsewhere."""
    command = launch.command
    if command.script.parent is not None:
        return False
    if command.background or command.subshell:
        return False
    if not launch.args or not any(word is launch.args[0] for word in command.words):
        return False
    # (`timeout` returns, and so does a container started detached; `numactl`, `nohup` and
    # the like run it in place, as does `$NUMA_CMD` that holds one or nothing; `srun`,
    # `mpirun`, an attached `docker run` wait for it wherever it runs: h134 M13, M14)
    wrappers = command.invocation.wrappers
    if launch.image is not None and not any(w.name in _WAITS for w in wrappers):
        return False  # (an image's entrypoint some other way: not known to wait)
    return (
        all(
            w.name in _IN_PLACE or (w.name in _WAITS and not w.has(*_DETACHES.get(w.name, ())))
            for w in wrappers
        )
        and command.base != "exec"
    )


def _foreground_call(launch: Launch) -> Command | None:
    """For a launch in the foreground of a function's body (not under a condition there), the
    first call of the function at the script's top level that runs it in the foreground too
    (`start_server` on a line of its own, not `start_server &`: h123 M15)."""
    command = launch.command
    name = command.function
    if name is None or command.guards or not _in_place(launch):
        return None
    return next(
        (
            c
            for c in command.script.commands
            if c.base == name
            and c.function is None
            and not (c.background or c.subshell or c.piped or c.invocation.wrappers)
        ),
        None,
    )


# wrappers that run the command in their own process, in the foreground, until it ends
# wrappers that run the command elsewhere (another node, a container) and wait for it to end
_WAITS = frozenset(
    {"srun", "mpirun", "mpiexec", "docker run", "podman run", "docker exec", "podman exec"}
    | {"enroot start", "enroot exec", "apptainer exec", "singularity exec", "sudo"}
)
# the options with which such a wrapper returns at once, its command going on (not srun's `-d`,
# a dependency: h140 F2, M1)
_DETACHES = {
    "docker run": ("-d", "--detach"),
    "podman run": ("-d", "--detach"),
    "docker exec": ("-d", "--detach"),
    "podman exec": ("-d", "--detach"),
    "sudo": ("-b", "--background"),
}
_IN_PLACE = frozenset(
    {"numactl", "taskset", "nice", "nohup", "stdbuf", "env", "time", "nsys profile"}
)


def _talks_to_server(script: Script, launch: Command, servers: set[int]) -> Command | None:
    """The first top-level command after the launch, on the same pass (not in the other
    branch of an `if` or `case` around it), that polls or uses a server (not one that starts
    another: `--host 0.0.0.0`)."""
    end = launch.node.end_byte
    for command in script.commands:
        if command.node.start_byte < end or command.function is not None:
            continue
        if id(command) in servers or exclusive(launch, command):
            continue
        if _talks(script, command, 0):
            return command
    return None


def _talks(script: Script, command: Command, depth: int) -> bool:
    """Whether the command polls or uses a server (`_direct`), or calls one of the script's
    functions that does, itself or through the functions it calls (two calls deep:
    `check_health() { until curl ...; done; }`, whatever its name; h123 M14)."""
    if _direct(script, command):
        return True
    base = command.invocation.base or command.base or ""
    if base not in script.functions or depth > 2:
        return False
    return any(
        _direct(script, c)
        or ((c.invocation.base or c.base) != base and _talks(script, c, depth + 1))
        for c in script.body(base)
    )


def _direct(script: Script, command: Command) -> bool:
    """A poller (`curl`, `wget`), a `wait_for...`, or a client or a URL of this host in a
    command that does more than print it."""
    base = command.invocation.base or command.base or ""
    if base in _POLLERS or _WAITER.fullmatch(base):
        return True
    return base not in _PRINTERS and _CLIENTS.search(script.text_of(command.node)) is not None


# a `tail` that follows a file (`tail -F -n0 "$SERVER_LOG"`, `tail --follow=name log`), its
# options, then the file's word (one variable, or a path with no expansion)
_FOLLOW = lazy_compile(
    r"\btail((?:\s+-[-\w=]*)+)\s+(\"\$\{?[A-Za-z_]\w*\}?\"|\$\{?[A-Za-z_]\w*\}?|[\w./-]+)"
)


def _unwritten_log(script: Script, launch: Command) -> tuple[str, int] | None:
    """A log a later command waits on by following it (`done < <(tail -F -n0 "$SERVER_LOG")`,
    for a line the server prints), where the launch, with no redirection and in no pipeline,
    writes nothing to it: the file and the line of that wait (h61 M2: put in the background,
    the server still leaves the wait reading a file nothing writes)."""
    if launch.redirects or launch.apart is not None:
        return None
    end = launch.node.end_byte
    for command in script.commands:
        if command.node.start_byte < end or command.function is not None:
            continue
        if exclusive(launch, command):
            continue
        for match in _FOLLOW.finditer(script.text_of(command.node)):
            options = match.group(1).split()
            if any(o in ("-f", "-F") or o.startswith("--follow") for o in options):
                return match.group(2).strip('"').replace("{", "").replace("}", ""), (
                    command.span.line
                )
    return None


def _finding(
    launch: Launch,
    after: Command,
    log: tuple[str, int] | None = None,
    called: Command | None = None,
) -> Finding:
    command = launch.command
    script = command.script
    shown = clip(first_line(script.text_of(after.node)), 50)
    if called is not None:  # (in a function the script calls in the foreground: h123 M15)
        return Finding(
            "BL114",
            f"`{launch.module}` runs in the foreground of `{command.function}`, which line "
            f"{called.span.line} calls in the foreground: the script waits for the server, "
            f"which does not exit, so `{shown}` (line {after.span.line}) and what follows never "
            "run; the job hangs until its time limit",
            Location(script.path, command.first_line_span),
            related=(
                Location(script.path, called.first_line_span, "called in the foreground"),
                Location(script.path, after.first_line_span, "never reached"),
            ),
            subject=f"{launch.module}@{shown}",
            help=f"end the launch with `&` (and keep its PID to stop it), or call "
            f"`{command.function} &`",
        )
    cut = _cut_off(command)
    if cut is not None:  # (its `&` and redirections are on a line cut off: h87 W1, h89 W1, W2)
        last = command.span.end_line
        plain = _plain_end(script.file.line_text(last)) and cut.span.line == last + 1
        return Finding(
            "BL114",
            f"`{launch.module}` runs in the foreground: the `&` on line {cut.span.line} ends "
            f"`{clip(cut.name or '', 30)}`, a command of its own that the end of line {last} "
            f"cuts off from the launch (BL110); the script waits for the server, so `{shown}` "
            f"(line {after.span.line}) and what follows never run",
            Location(script.path, command.first_line_span),
            related=(Location(script.path, after.first_line_span, "never reached"),),
            subject=f"{launch.module}@{shown}",
            help=(
                f"move line {cut.span.line}'s options into the launch, before its `|`"
                if command.piped
                else f"end line {last} with `\\`"
                if plain
                else f"join line {cut.span.line} to the launch (BL110 says what cuts it off)"
            ),
        )
    also = (
        f', and send its output to the log the `tail` on line {log[1]} follows (`> "{log[0]}" '
        "2>&1`): nothing writes that file now"
        if log is not None
        else ""
    )
    return Finding(
        "BL114",
        f"`{launch.module}` runs in the foreground: the script waits for the server, which does "
        f"not exit, so `{shown}` (line {after.span.line}) and what follows never run; the job "
        "hangs until its time limit",
        Location(script.path, command.first_line_span),
        related=(Location(script.path, after.first_line_span, "never reached"),),
        subject=f"{launch.module}@{shown}",
        help=f"end the launch with `&` (and keep its PID to stop it){also}",
    )


def _cut_off(command: Command) -> Command | None:
    """The rest of the launch that its line's end cut off, where it is sent to the background:
    the next command, after blank and comment lines only, starts with an option (`--port 8000
    > "$LOG" 2>&1 &`)."""
    script = command.script
    end = command.statement().end_byte  # (a pipeline's end: `vllm serve ... | tee log`)
    following = min(
        (c for c in script.commands if c.node.start_byte >= end),
        key=lambda c: c.node.start_byte,
        default=None,
    )
    if following is None or not following.background or not following.words:
        return None
    between = range(command.span.end_line + 1, following.span.line)
    if any(script.file.line_text(n).strip()[:1] not in ("", "#") for n in between):
        return None
    return following if following.words[0].value.startswith("-") else None


def _plain_end(line: str) -> bool:
    """Whether a `\\` added at the end of the line would continue the command: it ends in a
    word, not `;`, `|`, `&&`, a `\\` with a blank after it, or a comment."""
    text = line.rstrip()
    return bool(text) and "#" not in text and not text.endswith(("\\", ";", "|", "&"))
