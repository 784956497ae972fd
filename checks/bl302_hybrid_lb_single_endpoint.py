"""`--data-parallel-hybrid-lb` on several nodes with only the head node's endpoint in use.

## What it does
Reports `--data-parallel-hybrid-lb` in a native multi-node vLLM launch where nothing spreads the
requests over the nodes:
- a `vllm serve` command line (or the argument array it runs) in a script that starts ranks on
  other nodes (`--data-parallel-start-rank`, `--data-parallel-address`, a
  `--data-parallel-size-local` below `--data-parallel-size` or not known, `srun -N 2`...) and
  runs no router, proxy or Dynamo frontend (the flag as vLLM reads it: `-dph`,
  `--data_parallel_hybrid_lb`);
- across files, `--data-parallel-hybrid-lb` in an entrypoint (often only in its DP-attention
  arm, also behind `uv run`) that a launcher starts on several nodes (`srun --nodes=N`,
  `salloc -N` with N above 1, or a variable the launcher sets only to such numbers; a count it
  reads at run time is taken as several and the message says so, one it may set to 1 is not)
  while the launcher probes only the head node's endpoint (`curl http://$head_node:$PORT/...`,
  also in a retry loop); the launcher's start and probe are related locations;
- `data-parallel-hybrid-lb: true` in a `frontend.type: vllm` recipe with more than one node and
  no multiple-frontend load balancing.

## Why is this bad?
With hybrid load balancing every node runs its own API server that only feeds its local ranks.
When the client and the health check talk to the head node alone, the other nodes never see a
request: the "16-GPU" numbers measure 8 GPUs, and nothing fails to say so.

## Example
```bash path=benchmarks/multi_node/serve.sh
vllm serve "$MODEL" --data-parallel-size 16 --data-parallel-size-local 8 \
    --data-parallel-start-rank "$START_RANK" --data-parallel-address "$HEAD" \
    --data-parallel-hybrid-lb --port 8000
```

## Use instead
Internal load balancing: the head node's API server spreads requests over every rank, the other
nodes run `--headless`.
```bash path=benchmarks/multi_node/serve.sh
if [[ "$NODE_RANK" == 0 ]]; then
    vllm serve "$MODEL" --data-parallel-size 16 --data-parallel-size-local 8 \
        --data-parallel-address "$HEAD" --port 8000
else
    vllm serve "$MODEL" --data-parallel-size 16 --data-parallel-size-local 8 \
        --data-parallel-start-rank "$START_RANK" --data-parallel-address "$HEAD" --headless
fi
```

## Exceptions
A script (or its launcher) that also runs a router or a proxy (`*router*`, `*proxy*`, nginx,
envoy, an llm-d endpoint picker) or `dynamo.frontend` (the program a command runs behind any
wrapper, its Python module or script, a container's image; not another program's word, `source
site_proxy.sh`, `pip install sglang-router`) is taken to spread requests over every
node's endpoint, and so is a launcher whose probe loops over the nodes; an entrypoint with a
`--headless` launch uses internal load balancing. Recipes served by a Dynamo frontend are not
reported. Whether the client talks to one endpoint is inferred from the absence of such a
router, not traced through the client's code.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from benchlint.context import Context
from benchlint.engines import Launch, launches
from benchlint.finding import Finding, Location, Severity, Span
from benchlint.lazyre import lazy_compile
from benchlint.recipe import engine_configs, frontend_type, settings_root
from benchlint.registry import rule
from benchlint.shell.model import Command, Script, Syn, Word
from benchlint.yamlmodel import YNode

HYBRID = "--data-parallel-hybrid-lb"
# vLLM's spellings of it: its short alias, and `_` for `-` (FlexibleArgumentParser reads both)
_HYBRID_SPELLINGS = frozenset({HYBRID, "-dph"})
# ranks on other nodes: a start rank or the head's address given (with their short aliases)
_OTHER_NODES = lazy_compile(
    r"(?<![\w-])(?:--data[-_]parallel[-_](?:start[-_]rank|address)|-dp[ra])\b"
)
# the ranks on this node (`--data-parallel-size-local 8`, `-dpl 8`), and in all
_LOCAL_SIZE = lazy_compile(r"(?<![\w-])(?:--data[-_]parallel[-_]size[-_]local|-dpl)\b")
_LOCAL_NAMES = ("--data-parallel-size-local", "--data_parallel_size_local", "-dpl")
_SIZE_NAMES = ("--data-parallel-size", "--data_parallel_size", "-dp")
# commands whose words name no program they run (`unset http_proxy`, `curl --noproxy '*'`)
_NOT_RUN = frozenset(
    {"unset", "export", "declare", "local", "readonly", "echo", "printf", "curl", "wget"}
)
_URL_HOST = lazy_compile(r"https?://([^/:\s\"']+)")
_HEAD = lazy_compile(r"(?i)head|master")
_ROUTER = lazy_compile(r"router|proxy|nginx|envoy|haproxy|^epp$|dynamo\.frontend|llm-d-inference")


def _runs_vllm_serve(script: Script) -> bool:
    return any(launch.engine == "vllm" for launch in launches(script))


def _is_hybrid(flag: str) -> bool:
    return flag.replace("_", "-") in _HYBRID_SPELLINGS


def _multi_node(script: Script) -> bool:
    """Ranks on other nodes: DP start ranks or addresses, a local DP size below the whole
    (not one every launch gives the whole size: one node holds every rank, h123 F5), or `srun
    -N 2`."""
    # (the commands' text, not a comment's: `# on two nodes use --data-parallel-size-local 4`)
    text = "\n".join(c.script.text_of(c.node) for c in script.all_commands())
    if _OTHER_NODES.search(text):
        return True
    if _LOCAL_SIZE.search(text):
        vllm = [launch for launch in launches(script) if launch.engine == "vllm"]
        written = [launch for launch in vllm if _option(launch, _LOCAL_NAMES) is not None]
        if not written or any(_below_whole(launch) for launch in written):
            return True  # (one a variable or an array holds: not known, taken as several)
    for command in script.all_commands():
        srun = command.invocation.wrapper("srun")
        count = srun.option("-N", "--nodes") if srun is not None else None
        minimum = count.split("-", 1)[0] if count is not None else ""  # `-N 2-4`
        if minimum.isdigit() and int(minimum) > 1:
            return True
    return False


def _option(launch: Launch, names: tuple[str, ...]) -> str | None:
    return next((v for v in map(launch.option, names) if v is not None), None)


def _below_whole(launch: Launch) -> bool:
    """Whether the launch's local DP size may be below its whole DP size: not two numbers
    written out, the local one at least the whole (one node holds every rank: h123 F5)."""
    local, whole = _option(launch, _LOCAL_NAMES), _option(launch, _SIZE_NAMES)
    return not (
        local is not None
        and whole is not None
        and local.isdigit()
        and whole.isdigit()
        and int(local) >= int(whole)
    )


def _has_router(script: Script) -> bool:
    """A command that runs a program named as a router or proxy (`vllm-router`, `python3
    toy_proxy_server.py`, `python3 -m sglang_router.launch_router`, `docker run ... nginx`),
    behind any wrapper: the program, its module or script, a container's image; not a word of
    another program (`source site_proxy.sh`, `pip install sglang-router`, `mkdir -p
    /tmp/router-logs`, `git config http.proxy`: h135 M8), nor an assignment (`https_proxy=...`)."""
    for command in script.all_commands():
        if command.base in _NOT_RUN:
            continue  # (`unset http_proxy`, `curl --noproxy`: h125 F2)
        invocation = command.invocation
        words = invocation.words
        names = [invocation.base or "", invocation.module or ""]
        if words and (invocation.base in _INTERPRETERS or not words[0].static):
            script_word = _script_word(words[1:])  # (the script it runs: h140 F5)
            if script_word is not None:
                names.append(script_word)
        for wrapper in ("docker run", "podman run"):
            runner = invocation.wrapper(wrapper)
            if runner is not None and runner.operands and runner.operands[0].static:
                names.append(runner.operands[0].value)  # (the image)
        for name in names:
            name = name.rsplit("/", 1)[-1]
            if name and "=" not in name and name[:1] != "-" and _ROUTER.search(name):
                return True
    return False


_INTERPRETERS = frozenset({"python", "python3", "node", "bash", "sh", "uv", "uvicorn"})
# an interpreter's options that take the next word (`python3 -X importtime proxy.py`)
_VALUED = frozenset({"-X", "-W", "-Q", "--check-hash-based-pycs"})


def _script_word(words: Sequence[Word]) -> str | None:
    """The first word after an interpreter's options: the script it runs."""
    index = 0
    while index < len(words) and words[index].value.startswith("-"):
        index += 2 if words[index].value in _VALUED else 1
    word = words[index] if index < len(words) else None
    return word.value if word is not None and word.static else None


_COUNT_VARIABLE = lazy_compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_DEFAULTED = lazy_compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-(\d+)\}")


def _several_nodes(command: Command, caller: Script) -> tuple[str, bool] | None:
    """The node count of an `srun`/`salloc` that can run on more than one node, and whether it
    is known: a number above 1, or a variable the caller assigns only such numbers (known);
    a variable it sets from the environment or not at all (not known: the count is said to be
    unknown in the message). None when it runs on one node."""
    for name in ("srun", "salloc"):
        wrapper = command.invocation.wrapper(name)
        count = wrapper.option("-N", "--nodes") if wrapper is not None else None
        if count is None:
            continue
        minimum = count.split("-", 1)[0]
        if minimum.isdigit():
            return (count, True) if int(minimum) > 1 else None
        variable = _COUNT_VARIABLE.fullmatch(count)
        if variable is None:
            return None
        values = [
            a.value.value
            for a in caller.assignments
            if a.name == variable.group(1) and a.value is not None
        ]
        if values and all(v.isdigit() for v in values):
            return (count, True) if all(int(v) > 1 for v in values) else None
        if any(v.isdigit() and int(v) <= 1 for v in values):
            return None  # some path runs it on one node
        defaults = [d for v in values if (d := _DEFAULTED.fullmatch(v)) is not None]
        if any(int(d.group(1)) <= 1 for d in defaults):
            return None
        return count, False
    return None


def _url_hosts(script: Script) -> Iterator[tuple[Command, str]]:
    """Each request's command and the host its URL names (`$HEAD_NODE`, `${node}`, `10.0.0.1`)."""
    for command in script.all_commands():
        if command.base not in ("curl", "wget") and "http" not in command.script.text_of(
            command.node
        ):
            continue
        for word in command.words:
            match = _URL_HOST.search(word.value)
            if match:
                yield command, match.group(1)


def _head_only_probe(script: Script) -> Command | None:
    """A health check or benchmark request to the head node's endpoint (`$HEAD_NODE`,
    `$head_ip`, `$MASTER_ADDR`) in a launcher that probes no node through a loop variable
    (`for node in $NODES; do curl "http://${node}:8000/health"`). A retry loop around a request
    to the head still reaches only the head."""
    head = None
    for command, host in _url_hosts(script):
        if _loop_variable(command, host):
            return None
        if head is None and _HEAD.search(host):
            head = command
    return head


def _loop_variable(command: Command, host: str) -> bool:
    """Whether the host is a variable that a loop around the command sets in turn: a `for`
    loop's variable, or one that a `read` in a `while`/`until` loop sets (`... | while read -r
    node; do ...`)."""
    variable = _COUNT_VARIABLE.fullmatch(host)
    if variable is None:
        return False
    name = variable.group(1)
    for assignment in command.script.assignments:
        if assignment.name != name:
            continue
        if assignment.kind == "for":  # a for loop is its variable's command
            loop: Syn | None = assignment.command.node
        elif assignment.kind == "read":
            loop = next(
                (
                    where
                    for where in reversed(assignment.command.loops)
                    if where.type in ("while_statement", "until_statement")
                ),
                None,
            )
        else:
            continue
        if loop is not None and loop in command.loops:
            return True
    return False


def _beyond(ctx: Context) -> list[str]:
    """The scripts the named ones run: a named launcher's findings are in the entrypoints it
    starts on several nodes."""
    calls = ctx.environment.calls
    scripts = ctx.shell_scripts()
    targets = {t for s in scripts for c in calls.calls_in(s) for t in c.targets}
    return sorted(targets - {s.path for s in scripts})


def _cross_file_findings(ctx: Context, script: Script) -> Iterator[Finding]:
    """The entrypoint is started on several nodes by a launcher that probes only the head."""
    for call in ctx.environment.calls.callers_of(script.path):
        caller = call.caller.top
        several = _several_nodes(call.command, caller)
        probe = _head_only_probe(caller) if several is not None else None
        if several is None or probe is None or _has_router(caller):
            continue
        count, known = several
        nodes = f"the {count} nodes" if known else f"the {count} nodes (a count read at run time)"
        for launch in launches(script):
            if launch.engine != "vllm":
                continue
            for arg in launch.flags:
                if not _is_hybrid(arg.value):
                    continue
                line = probe.first_line_span.line
                yield Finding(
                    "BL302",
                    f"`{arg.value}` runs an API server on each of {nodes} "
                    f"{caller.path} starts this script on, but it probes only the head node's "
                    f"endpoint (line {line}): requests reach only the head node's ranks",
                    Location(arg.word.script.file.path, arg.span),
                    related=(
                        Location(
                            caller.path, call.command.first_line_span, "starts it on several nodes"
                        ),
                        Location(caller.path, probe.first_line_span, "probes the head node only"),
                    ),
                    help="use internal load balancing (drop the flag, `--headless` on ranks above "
                    "0) or route to every node's endpoint",
                    subject=HYBRID,
                )
        return


def _script_findings(script: Script) -> Iterator[Finding]:
    if not _runs_vllm_serve(script) or not _multi_node(script) or _has_router(script):
        return
    seen: set[Span] = set()
    for launch in launches(script):
        if launch.engine != "vllm":
            continue
        for arg in launch.flags:
            if not _is_hybrid(arg.value) or arg.span in seen:
                continue
            seen.add(arg.span)
            yield Finding(
                "BL302",
                f"`{arg.value}` runs an API server on every node, but this multi-node vLLM "
                "launch has no router or Dynamo frontend: requests sent to one node's endpoint "
                "reach only its local ranks, unless a client runs on every node (none is "
                "started here)",
                Location(arg.word.script.file.path, arg.span),
                help="use internal load balancing (drop the flag, `--headless` on ranks above "
                "0) or route to every node's endpoint",
                subject=HYBRID,
            )


def _node_count(settings: YNode | None) -> int:
    if settings is None:
        return 0
    resources = settings.get("resources")
    if resources is None or not resources.is_map:
        return 0
    total = 0
    for key, value in resources.pairs:
        if key.is_scalar and key.value.endswith("_nodes") and isinstance(value.scalar, int):
            total = max(total, value.scalar)
    return total


def _recipe_findings(ctx: Context, path: str) -> Iterator[Finding]:
    document = ctx.ws.yaml(path)
    root = document.root if document is not None else None
    if root is None or frontend_type(root) != "vllm":
        return
    settings = settings_root(root)
    frontend = settings.get("frontend") if settings is not None else None
    spread = frontend.get("enable_multiple_frontends") if frontend is not None else None
    if spread is not None and spread.scalar is True:
        return
    if _node_count(settings) < 2:
        return
    for where, mapping in engine_configs(root, "vllm"):
        for key, value in mapping.pairs:
            if key.is_scalar and key.value.replace("_", "-") == HYBRID[2:] and value.scalar is True:
                yield Finding(
                    "BL302",
                    f"`{key.value}: true` in {where} of a multi-node `frontend.type: vllm` recipe "
                    "with a single frontend: only the head node's ranks get requests",
                    Location(path, key.span),
                    help="drop it for internal load balancing, or enable multiple frontends",
                    subject=f"{where}.{HYBRID}",
                )


def _script_pass(ctx: Context, script: Script) -> Iterator[Finding]:
    local = list(_script_findings(script)) if ctx.in_scope([script.path]) else []
    yield from local
    headless = any("--headless" in (a.value for a in launch.flags) for launch in launches(script))
    if not local and not headless and _runs_vllm_serve(script) and not _has_router(script):
        yield from _cross_file_findings(ctx, script)


@rule(
    "BL302",
    "hybrid-lb-single-endpoint",
    Severity.ERROR,
    tags=("engines", "vllm"),
    precision="medium",
    script_pass=_script_pass,
    beyond=_beyond,
)
def check(ctx: Context) -> Iterator[Finding]:
    for path in ctx.in_scope(ctx.ws.recipe_paths):
        yield from _recipe_findings(ctx, path)
