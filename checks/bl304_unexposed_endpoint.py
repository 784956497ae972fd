"""A probe of an HTTP route or a metric the server on that path does not expose.

## What it does
Finds the probes in scripts — `curl`/`wget` URLs with a path (with no scheme too, a local address
and its port, `localhost:8000/health`, which they take for http; also a URL given to a function of
the script that fetches its argument: `wait_for "http://..."`), `--health-endpoint` style flags
(with the command's own `--port`/`--node-ports` as the port), and metric names (`vllm:…`,
`sglang:…`, `dynamo_frontend_…`) matched in the script, also in a command held in a string that
`eval`, `bash -c "$CMD"` or a function that runs its arguments (`wait_or_die "$pid" bash -c "$CMD"`)
runs, and metric names in a program fed to an interpreter as a heredoc (`python3 - "$URL" <<'PY'`,
or `"$AIPERF_PYTHON" - ...` where the script or a file it sources gives the variable only
interpreters' paths) — and decides which server each talks to: the launch in the same script (by
port when there are several), or the recipes that run the script as their `benchmark.command` (`bash
/infmax-workspace/<path>`; in an srt-slurm checkout, the script of their `benchmark.type`,
`src/srtctl/benchmarks/scripts/<type>/bench.sh`; the probe may reach the recipe's frontend —
srtctl's `sglang` frontend is sglang_router — or its workers; one report per set of servers the
recipes give it).

It reports a route that server does not expose, from the route tables of every released vLLM
(0.10.0-0.34.0) and SGLang (0.4.0-0.5.23) server and sglang-router (0.0.2-0.3.2) in
`benchlint/data/endpoints.json` (with FastAPI's own `/openapi.json`, `/docs` and `/redoc`, which
vLLM's and SGLang's servers serve though their source declares no such route; a server started
without them, vLLM's `--disable-fastapi-docs`, is not read so):
- against the release that runs it when that is known: the `image:` of the master-config entries
  whose jobs run the script, the router release they declare (`router: {name: sglang-router,
  version: ...}`), or the recipe's `model.container` when its workers serve; the message names
  the release and when the route arrives or leaves;
- otherwise against every release: a route none of them has, and vLLM's development routes
  such as `/reset_prefix_cache` without `VLLM_SERVER_DEV_MODE=1`.

It reads the `httpGet` probes of a Kubernetes container (`readinessProbe`, `startupProbe`,
`livenessProbe`) whose own `command`/`args` start the server, on that server's port (`--port`,
or its default; a named port is the container's port of that name): a route the release its
`image` names lacks (else one no release has) fails the probe, and the pod never becomes ready,
or its container is restarted over and over. A probe of another port (a sidecar's, a router's)
is not checked.

It also reports a metric family the server's frontend and workers do not publish. For a client
script that several recipes run, the message names the recipes for which the probe fails. Where
the same command also reads a metric of the other role (a frontend's beside the workers') that
the servers do publish, the wait rests on that one (if the command reads it from a server that
publishes it: the URL each metric is read from is not followed) and the finding is a warning; a
`grep -q` last in an `until` or `while` loop's condition is said to never end or to end at once.

## Why is this bad?
A readiness probe of a route that does not exist fails until the job's time runs out; a drain
step that waits for a metric nobody publishes passes at once, or never; a cache flush that 404s
leaves warm caches in the next measurement.

## Example
```bash path=benchmarks/single_node/serve.sh
vllm serve "$MODEL" --port 8000 &
curl -sf -X POST http://localhost:8000/flush_cache
```

## Use instead
```bash path=benchmarks/single_node/serve.sh
export VLLM_SERVER_DEV_MODE=1
vllm serve "$MODEL" --port 8000 &
curl -sf -X POST http://localhost:8000/reset_prefix_cache
```

## Exceptions
A probe under a condition on the server type (`if [[ $FRAMEWORK == vllm* ]]`) is taken as guarded,
and so is a metric of an engine read by a program whose URL the script gives only under such a
condition naming that engine (`case "$FRAMEWORK" in dynamo-*) URL=...`). SGLang's `/metrics` and
`sglang:` metrics are reported on an SGLang launch in the same script without `--enable-metrics`
(not when some of its flags come from variables benchlint cannot read; `--model-path $MODEL`, a
value, is not flags). A release outside the measured range, or between two measured ones that differ
on the route, is not decided. Routes of Dynamo's frontend and of TRT-LLM are not checked: their
route tables cannot be read from the released packages reliably; their metric families are. A probe
whose URL path is built from variables is not checked, nor one whose host is a variable with no port
after it that the script does not give one address of this machine (`http://$ROUTER/...` with ROUTER
an argument: another server's). An engine's metric name is not reported when the same program or
command line also reads another engine's that the servers publish: a drain that sums
`vllm:num_requests_running` and `sglang:num_requests_running` counts whichever is there (a Dynamo
frontend's metric is no such alternative to an engine's).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from benchlint import profile
from benchlint.context import Context
from benchlint.endpoints import NAMES, endpoints
from benchlint.engines import Launch, launches
from benchlint.finding import Finding, Location, Severity, Undecided
from benchlint.images import image_release
from benchlint.lazyre import lazy_compile
from benchlint.manifests import Container, containers
from benchlint.recipe import ScriptRun
from benchlint.registry import rule
from benchlint.releases import Running, beyond_scope, launch_releases, router_releases
from benchlint.shell.model import Command, Script, Word, runs
from benchlint.wiring import Entry
from benchlint.yamlmodel import YamlDocument, YNode

_URL_START = r"https?://"
_URL = lazy_compile(_URL_START + r"([^/\s\"']*)(/[^\s\"'?#]*)")
# a URL curl and wget are given with no scheme, which they take for http (`localhost:8000/x`;
# with its port: `localhost/out.json` may be a file, `-o localhost/out.json`)
_BARE_HOST = r"(?:localhost|127\.0\.0\.1|0\.0\.0\.0)"
# curl's and wget's options whose value is a file (`-o localhost:8000/x.json`: h140 F8), the
# short ones also last in a cluster (`-so FILE`: h141 F6); not curl's `-O`, wget's `-c`,
# which take none (h141 M1)
_FILE_OPTIONS = {
    "curl": ("oDTKbc", {"--output", "--dump-header", "--upload-file", "--config", "--cookie"}),
    "wget": ("Oaoi", {"--output-document", "--append-output", "--output-file", "--input-file"}),
}


def _file_option(program: str | None, word: str) -> bool:
    """Whether the word is an option of curl or wget that takes a file as the next word."""
    short, long = _FILE_OPTIONS.get(program or "", ("", set()))
    if word.startswith("--"):
        return word in long or (program == "curl" and word == "--cookie-jar")
    return len(word) > 1 and word[0] == "-" and word[1:].isalpha() and word[-1] in short


_BARE_URL = lazy_compile(r"(" + _BARE_HOST + r":[^/\s\"']+)(/[^\s\"'?#]*)")
# metric name prefix -> what may follow it (a name: a letter first, so no process title,
# `sglang::scheduler`, and a whole word, so no image, `lmsysorg/sglang:v0.5.8-cu130`; the words
# of a command that names images or processes, `docker tag sglang:dev`, are none: `_IMAGES`)
_METRIC_FAMILIES = {
    "vllm:": "[a-z][a-z0-9_:]*",
    "sglang:": "[a-z][a-z0-9_:]*",
    "dynamo_frontend_": "[a-z0-9_]+",
}
_METRIC = lazy_compile(
    r"(?<![A-Za-z0-9_/.-])("
    + "|".join(re.escape(k) + v for k, v in _METRIC_FAMILIES.items())
    + r")(?![A-Za-z0-9_:./-])"
)
# commands whose words name images or processes, not metrics (`docker pull sglang:dev`)
_IMAGES = frozenset(
    {"docker", "podman", "enroot", "singularity", "apptainer", "pkill", "pgrep", "killall", "ps"}
)
_FRONTEND_FAMILIES = ("dynamo_",)  # metric families of a frontend, not of an engine's server
_HEALTH_FLAGS = ("--health-endpoint", "--health-path", "--health-check-path")
# a file with none of these holds no probe (tested once, before its words are looked at)
_MAY_PROBE = lazy_compile("|".join([_URL_START, _BARE_HOST, *_HEALTH_FLAGS, *_METRIC_FAMILIES]))
_MAY_PROBE_BYTES = lazy_compile(_MAY_PROBE.pattern.encode())  # the same, on one command's bytes
_HEALTH_PREFIXES = tuple(f + "=" for f in _HEALTH_FLAGS)
_SERVER_TYPE = lazy_compile(r"FRAMEWORK|BACKEND|FRONTEND|ENGINE|SERVER_TYPE|_TYPE\b", re.I)
DEFAULT_PORTS = profile.DEFAULT_PORTS


@dataclass(frozen=True)
class Probe:
    command: Command
    word: Word
    kind: str  # "route" | "metric"
    value: str  # the path or the metric name
    port: str | None  # the URL's port text, for matching a launch
    start: int = 0  # where the value sits in the word's text
    end: int = 0

    @property
    def location(self) -> Location:
        word = self.word
        if word.offsets and self.end > self.start:
            span = word.script.file.span(word.offsets[self.start], word.offsets[self.end - 1] + 1)
        else:
            span = word.span
        return Location(word.script.path, span)


def _probes(
    script: Script, interpreters: Callable[[], frozenset[str]] = frozenset
) -> Iterator[Probe]:
    """`interpreters`: the variables that hold an interpreter (`AIPERF_PYTHON`), asked only
    where a heredoc is fed to a variable's program."""
    if not _MAY_PROBE.search(script.file.text):
        return  # no URL, health flag or metric name anywhere in the file
    for command in script.all_commands():
        if command.base in ("echo", "printf", "cat", "tee", ":"):
            continue
        yield from _embedded_probes(command, interpreters)
        node = command.node
        if not _MAY_PROBE_BYTES.search(command.script.src, node.start_byte, node.end_byte):
            continue  # nor in this command
        words = command.words
        fetches = command.base in ("curl", "wget") or _fetches_argument(script, command)
        for i, word in enumerate(words):
            value = word.value
            if fetches:
                valued = i and _file_option(command.base, words[i - 1].value)
                bare = _BARE_URL.fullmatch(value) if "://" not in value and not valued else None
                for match in [bare] if bare is not None else _URL.finditer(value):
                    host, path = match.group(1), match.group(2)
                    if ":" not in host and host.startswith("$"):
                        host = _held_address(command.script, host)  # (`http://$ADDR/x`)
                    if "$" in path or "`" in path or not _local(host):
                        continue
                    port = host.rsplit(":", 1)[1] if ":" in host else None
                    yield Probe(command, word, "route", path, port, match.start(2), match.end(2))
            if value in _HEALTH_FLAGS and i + 1 < len(words) and words[i + 1].static:
                path = words[i + 1].value
                yield Probe(command, words[i + 1], "route", path, _port_option(words))
            elif value.startswith(_HEALTH_PREFIXES) and word.static:
                path = value.split("=", 1)[1]
                yield Probe(command, word, "route", path, _port_option(words))
            images = command.base in _IMAGES or command.invocation.base in _IMAGES
            # (not in a substitution, read in its own command, nor an option naming an image)
            plain = "$(" not in value and "`" not in value and "image" not in value
            for match in _METRIC.finditer(value) if plain and not images else ():
                yield Probe(
                    command, word, "metric", match.group(1), None, match.start(), match.end()
                )


def _fetches_argument(script: Script, command: Command) -> bool:
    """Whether the command calls a function of the script that fetches one of its arguments
    (`wait_for() { until curl -fsS "$1"; do sleep 5; done; }`): a URL it is given is probed."""
    name = command.base
    if not name or name not in script.top.functions:
        return False
    return any(
        c.base in ("curl", "wget") and any(_ARGUMENT.fullmatch(w.value) for w in c.words[1:])
        for c in script.top.body(name)
    )


_ARGUMENT = lazy_compile(r"\$(?:[1-9@*]|\{[1-9@*]\})")
_PORT_OPTION = lazy_compile(r"--[a-z-]*ports?")


def _port_option(words: list[Word]) -> str | None:
    """The port a health-check command probes, from its own port option (`--port 30000`,
    `--node-ports 30000`); None when it has none or several."""
    found = []
    for i, word in enumerate(words):
        option, equals, value = word.value.partition("=")
        if not _PORT_OPTION.fullmatch(option):
            continue
        if not equals:
            value = words[i + 1].value if i + 1 < len(words) and words[i + 1].static else ""
        found.append(value)
    return found[0] if len(found) == 1 and found[0].isdigit() else None


_INTERPRETERS = ("python", "python3", "perl", "ruby", "node")


def _embedded_probes(
    command: Command, interpreters: Callable[[], frozenset[str]]
) -> Iterator[Probe]:
    """Metric names in a program fed to an interpreter as a heredoc (`python3 - "$URL" <<'EOF'`,
    `"$AIPERF_PYTHON" - <<'PY'`): the program reads the metrics of the server whose URL the
    script gave it."""
    if not command.heredocs:
        return
    base = command.invocation.base or ""
    words = command.invocation.words
    held = words[0].variable() if words and not base else None
    if not base.startswith(_INTERPRETERS) and (held is None or held not in interpreters()):
        return
    script = command.script
    for heredoc in command.heredocs:
        if heredoc.body is None:
            continue
        value, offsets = heredoc.value(heredoc.body, script)
        if not _METRIC.search(value):
            continue
        body = Word(script, heredoc.body, value, runs(offsets), heredoc.quoted)
        for match in _METRIC.finditer(value):
            yield Probe(command, body, "metric", match.group(1), None, match.start(), match.end())


def _held_address(script: Script, host: str) -> str:
    """The address a variable with no port after it holds (`http://$SERVER_ADDR/health`): the
    `host:port` the script's assignments give it, where each names this machine (`localhost:8000`,
    `localhost:$PORT`; `localhost`, its port not known, where they differ); the variable as it
    is where the script sets none but sources a file (which may: t83a); else "" (t82b, open-r1:
    `$ROUTER_ADDRESS`, an argument, is a router's address on another node, whose routes are not
    the script's server's)."""
    name = host.strip("${}")
    top = script.top
    assigned = [a for a in top.assignments if a.name == name]
    if not assigned:
        return host if any(c.base in ("source", ".") for c in top.commands) else ""
    values = {a.value.value for a in assigned if a.value is not None}
    if any(a.value is None or a.kind == "read" for a in assigned):
        return ""
    if not all(":" in v and _local(v) and "$(" not in v for v in values):
        return ""
    return values.pop() if len(values) == 1 else "localhost"


def _local(host: str) -> bool:
    """A server this job started: a port, a loopback name, or a host held in a variable (with a
    port: `_held_address` reads one without); not a download from the internet."""
    name = host.rsplit(":", 1)[0] if ":" in host else host
    return ":" in host or name in ("localhost", "127.0.0.1", "0.0.0.0") or name.startswith("$")


def _guarded_by_server_type(probe: Probe) -> bool:
    script = probe.command.script
    if any(_SERVER_TYPE.search(script.text_of(g.node)) for g in probe.command.guards):
        return True
    return probe.kind == "metric" and _url_for_server_type(probe)


def _url_for_server_type(probe: Probe) -> bool:
    """A metric of an engine's family read by a program whose URL is given only under a
    condition on the server type that names that engine (`case "$FRAMEWORK" in dynamo-*)
    FRONTEND_URL=...`, the program reading `dynamo_frontend_...` only when it has a URL)."""
    engine = probe.value.split(":", 1)[0].split("_", 1)[0]  # vllm, sglang, dynamo, trtllm
    command = probe.command
    script = command.script
    for word in command.args:
        for read in word.reads():
            given = [
                a
                for a in script.assignments
                if a.name == read.name and a.value is not None and a.value.value
            ]
            if given and all(_under_server_type(a.command, engine) for a in given):
                return True
    return False


def _under_server_type(command: Command, engine: str) -> bool:
    script = command.script
    for guard in command.guards:
        text = " ".join(script.text_of(n) for n in (guard.node, *guard.patterns))
        if _SERVER_TYPE.search(text) and engine in text.lower():
            return True
    return False


_DEV_MODE = lazy_compile(r"VLLM_SERVER_DEV_MODE=[\"']?(1|true)")


def _dev_mode(script: Script) -> bool:
    """Whether a command of the script turns vLLM's development mode on (`export
    VLLM_SERVER_DEV_MODE=1`, `docker run -e VLLM_SERVER_DEV_MODE=1`): a comment that says so
    does not."""
    if not _DEV_MODE.search(script.text):
        return False
    return any(_DEV_MODE.search(script.text_of(c.node)) for c in script.all_commands())


def _problem(
    probe: Probe, frontend: str | None, workers: set[str] | frozenset[str], dev_mode: bool
) -> str | None:
    """What is wrong with the probe on any release of the servers; for a route, `frontend`
    serves it (None: the frontend or any worker may)."""
    data = endpoints()
    if probe.kind == "route":
        reached = [frontend] if frontend is not None else sorted(workers)
        answers = [data.exposes(s, probe.value, dev_mode) for s in reached]
        if not reached or any(a is not False for a in answers):
            return None
        if reached == ["vllm"] and probe.value in data.dev_routes:
            return f"{NAMES['vllm']} exposes `{probe.value}` only with VLLM_SERVER_DEV_MODE=1"
        names = [NAMES.get(s, s) for s in reached]
        if len(names) == 1:
            return f"{names[0]} has no route `{probe.value}`"
        if len(names) == 2:
            return f"neither {names[0]} nor {names[1]} has a route `{probe.value}`"
        return f"none of {', '.join(names)} has a route `{probe.value}`"
    servers = ({frontend} if frontend else set()) | workers
    allowed = tuple(p for s in servers for p in data.prefixes.get(s, ()))
    if not servers or probe.value.startswith(allowed):
        return None
    names = sorted(NAMES[s] for s in servers if s in NAMES)
    if len(names) == 2:
        return f"`{probe.value}` is a metric of neither {names[0]} nor {names[1]}"
    if len(names) > 2:
        return f"`{probe.value}` is a metric of none of {', '.join(names)}"
    return f"`{probe.value}` is not a metric of {''.join(names)}"


@dataclass(frozen=True)
class Lacking:
    """A route the releases that run the server lack, though another release has it."""

    message: str
    note: str
    related: tuple[Location, ...]


def _release_problem(
    server: str, path: str, dev_mode: bool, runs: list[Running], whose: str
) -> Lacking | None:
    """The route checked against the releases that run the server: reported when every one
    of them lacks it (`whose` says where the releases were read)."""
    data = endpoints()
    if not all(data.exposes(server, path, dev_mode, r.version) is False for r in runs):
        return None
    entries = [e for r in runs for e in r.entries]
    named = ", ".join(e.name for e in entries[:2]) + (
        f" and {len(entries) - 2} more" if len(entries) > 2 else ""
    )
    versions = ", ".join(r.version for r in runs)
    return Lacking(
        f"{NAMES[server]} {versions}, the release {whose.format(named)}, has no route `{path}`",
        data.history(server, runs[-1].version, path),
        tuple(Location(e.location.path, e.location.span, f"entry {e.name}") for e in entries[:3]),
    )


def _launched_release_problem(
    ctx: Context, probe: Probe, server: str, served_by: list[Launch], dev_mode: bool
) -> Lacking | None:
    """For a route some release of the server has: whether the releases that run this launch
    do (the images of the entries whose jobs run the script; the router release they
    declare)."""
    if probe.kind != "route" or server not in ("vllm", "sglang", "sglang_router"):
        return None
    runs: list[Running] = []
    for launch in served_by:
        if server == "sglang_router":
            found = router_releases(ctx, launch)
        else:
            found = launch_releases(ctx, launch)
        if found is None:
            return None
        runs.extend(found)
    if not runs:
        return None
    whose = "that {} declares" if server == "sglang_router" else "the image of {} runs"
    return _release_problem(server, probe.value, dev_mode, _merged(runs), whose)


def _merged(runs: list[Running]) -> list[Running]:
    """One per release, with the entries of every launch it runs."""
    by_version: dict[str, list[Entry]] = {}
    for run in runs:
        by_version.setdefault(run.version, []).extend(run.entries)
    return [Running(v, tuple(dict.fromkeys(e))) for v, e in sorted(by_version.items())]


def _launch_server(
    script: Script, probe: Probe
) -> tuple[str | None, set[str], list[Launch]] | None:
    """(frontend, workers, the launches of that server) from the launches in the script, or
    None when it starts none."""
    servers = [(launch, launch.server) for launch in launches(script) if launch.server]
    if not servers:
        return None
    if probe.port is not None:
        # the launch serving that port; a port no launch names belongs to something else
        serving = [
            (launch, s)
            for launch, s in servers
            if (launch.option("--port") or DEFAULT_PORTS.get(s or "", "")) == probe.port
        ]
        matching = {s for _, s in serving}
        if len(matching) != 1:
            return None
        server = matching.pop()
        return server, {server}, [launch for launch, _ in serving]
    kinds = {s for _, s in servers}
    if len(kinds) == 1:
        server = kinds.pop()
        return server, {server}, [launch for launch, _ in servers]
    return None


def _metrics_off(probe: Probe, server: str | None, served_by: list[Launch]) -> str | None:
    """SGLang serves `/metrics` (and so its `sglang:` metrics) only with `--enable-metrics`."""
    if server != "sglang" or not served_by:
        return None
    reads_metrics = (probe.kind == "route" and probe.value == "/metrics") or (
        probe.kind == "metric" and probe.value.startswith("sglang:")
    )
    if not reads_metrics:
        return None
    if any(
        arg.value.split("=", 1)[0] == "--enable-metrics"
        for launch in served_by
        for arg in launch.flags
    ):
        return None
    for launch in served_by:
        values = {id(word) for i, (word, _) in enumerate(launch.argv) if launch.value_slot(i)}
        if any(
            arg.word.node.type in ("simple_expansion", "expansion")
            and arg.value.startswith("$")
            and id(arg.word) not in values  # (`--model-path $MODEL`: a value, not flags)
            for arg in launch.flags
        ):
            return None  # an unquoted `$EXTRA_ARGS` benchlint cannot read may hold the option
    return (
        f"{NAMES['sglang']} serves `/metrics` only with `--enable-metrics`, which its launch lacks"
    )


def _interpreter_variables(ctx: Context, script: Script) -> frozenset[str]:
    """Variables the script, or a file it sources, gives only interpreters' paths as values
    (`AIPERF_PYTHON="${AIPERF_VENV}/bin/python"`, `PY="${PY:-python3}"`)."""
    if "<<" not in script.file.text:
        return frozenset()  # no heredoc: no program fed to one
    sourced = [
        ctx.ws.shell(target)
        for call in ctx.environment.calls.calls_in(script)
        if call.kind == "source"
        for target in call.targets
    ]
    values: dict[str, list[str]] = {}
    for each in (script, *(s for s in sourced if s is not None)):
        for assignment in each.assignments:
            if assignment.value is not None:
                text = _DEFAULT_OF.sub(r"\1", assignment.value.value)
                values.setdefault(assignment.name, []).append(text)
    return frozenset(
        name
        for name, found in values.items()
        if all(v.rsplit("/", 1)[-1].startswith(_INTERPRETERS) for v in found)
    )


_DEFAULT_OF = lazy_compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*:?-(.*)\}$")  # `${PY:-python3}`: python3


# the words of a container's command line that may start an engine's server
_SERVERS = ("vllm", "sglang")
# the probes of a Kubernetes container, and what a failing one does to the pod
_K8S_PROBES = {
    "readinessProbe": "the pod never becomes ready (no traffic reaches it)",
    "startupProbe": "the container is restarted before it ever serves",
    "livenessProbe": "the container is restarted again and again",
}


def _manifest_pass(document: YamlDocument) -> list[Finding | Undecided]:
    """The rule's document pass: a Kubernetes container's `httpGet` probes (readiness,
    startup, liveness) of the engine server its own `command`/`args` start, on that server's
    port, against the release its `image` names (else every release)."""
    source = document.file
    text = source.text
    if "httpGet" not in text or "Probe" not in text or not any(e in text for e in _SERVERS):
        return []
    found: list[Finding | Undecided] = []
    for container in containers(source, document, _SERVERS):
        node = container.node
        if node is None:
            continue
        probes = [(key, node.get(key)) for key in _K8S_PROBES if node.get(key) is not None]
        if not probes:
            continue
        served = [(launch, launch.server) for launch in launches(container.script) if launch.server]
        for key, probe in probes:
            get = probe.get("httpGet") if probe is not None and probe.is_map else None
            if get is None or not get.is_map:
                continue
            path = get.get("path")
            if path is None or not path.is_scalar or not path.value.startswith("/"):
                continue
            port = _container_port(node, get.get("port"))
            serving = {
                server
                for launch, server in served
                if port is not None
                and (launch.option("--port") or DEFAULT_PORTS.get(server or "", "")) == port
            }
            if len(serving) != 1:
                continue  # (another process's port, or not known)
            server = serving.pop()
            assert server is not None
            problem = _probe_problem(server, path.value.split("?", 1)[0], container, node)
            if problem is not None:
                found.append(
                    Finding(
                        "BL304",
                        f"{problem}: this {key} on port {port} fails, and {_K8S_PROBES[key]}",
                        Location(source.path, path.span),
                        subject=f"route:{path.value}",
                    )
                )
    return found


def _container_port(node: YNode, port: YNode | None) -> str | None:
    """A probe's port as a number: written so, or the container's port of that name."""
    if port is None or not port.is_scalar:
        return None
    if port.value.isdigit():
        return port.value
    ports = node.get("ports")
    for item in ports.items if ports is not None and ports.is_seq else ():
        name = item.get("name") if item.is_map else None
        number = item.get("containerPort") if item.is_map else None
        if name is not None and name.value == port.value and number is not None:
            return number.value if number.is_scalar and number.value.isdigit() else None
    return None


def _probe_problem(server: str, path: str, container: Container, node: YNode) -> str | None:
    """What is wrong with the route on the server: on the release the image names where it
    is that server's, else on every measured release."""
    data = endpoints()
    env = node.get("env")
    dev_mode = False
    for item in env.items if env is not None and env.is_seq else ():
        name = item.get("name") if item.is_map else None
        value = item.get("value") if item.is_map else None
        if name is not None and name.value == "VLLM_SERVER_DEV_MODE":
            dev_mode = value is None or value.value not in ("", "0")
    if server == "vllm" and path in data.dev_routes and not dev_mode:
        return f"{NAMES['vllm']} exposes `{path}` only with VLLM_SERVER_DEV_MODE=1"
    release = image_release(container.image) if container.image else None
    if release is not None and release[0] == server and server in ("vllm", "sglang"):
        version = release[1]
        if data.exposes(server, path, dev_mode, version) is not False:
            return None
        note = data.history(server, version, path)
        return (
            f"{NAMES[server]} {version}, the release the image {container.image} runs, has no "
            f"route `{path}`" + (f" ({note})" if note else "")
        )
    if data.exposes(server, path, dev_mode) is not False:
        return None
    return f"{NAMES.get(server, server)} has no route `{path}` in any measured release"


def _script_pass(ctx: Context, script: Script) -> Iterator[Finding]:
    dev_mode = _dev_mode(script)
    interpreters = functools.cache(functools.partial(_interpreter_variables, ctx, script))
    probes = _probes(script, interpreters)
    unguarded = [probe for probe in probes if not _guarded_by_server_type(probe)]
    alternatives, partners = _alternatives(unguarded)
    for probe in unguarded:
        others = alternatives.get(id(probe), [])
        paired = partners.get(id(probe), [])
        lacking = None
        launched = _launch_server(probe.command.script, probe) or _launch_server(script, probe)
        if launched is not None:
            server, _, served_by = launched
            problem = _launched_problem(probe, launched, dev_mode)
            if problem is not None and any(
                _launched_problem(other, launched, dev_mode) is None for other in others
            ):
                continue  # the program reads another metric this server publishes
            if problem is None and server is not None:
                lacking = _launched_release_problem(ctx, probe, server, served_by, dev_mode)
            read = [p for p in paired if _launched_problem(p, launched, dev_mode) is None]
            outcome = _outcome(probe, read)
            severity = _PARTIAL if read else None
        else:
            # the recipes that run the script, by what is wrong for each (the servers differ)
            # (and by the metrics of the other role it reads that the run's servers publish)
            failing: dict[tuple[str, str, bool], list[ScriptRun]] = {}
            for run in ctx.wiring.script_runs.get(script.path, []):
                run_dev_mode = dev_mode or run.dev_mode
                found = _run_problem(probe, run, run_dev_mode)
                if found is None or any(
                    _run_problem(other, run, run_dev_mode) is None for other in others
                ):
                    continue
                read = [p for p in paired if _run_problem(p, run, run_dev_mode) is None]
                failing.setdefault((found, _outcome(probe, read), bool(read)), []).append(run)
            for (found, outcome, partial), runs in failing.items():
                recipes = [run.recipe for run in runs]
                shown = ", ".join(recipes[:3]) + (
                    f" and {len(recipes) - 3} more" if len(recipes) > 3 else ""
                )
                yield Finding(
                    "BL304",
                    f"{found} when run by {shown}: {outcome}",
                    probe.location,
                    related=tuple(
                        Location(run.recipe, run.span, "runs the script")
                        for run in runs
                        if run.span is not None
                    ),
                    subject=f"{probe.kind}:{probe.value}",
                    involves=tuple(sorted(recipes)),
                    severity=_PARTIAL if partial else None,
                )
            continue
        if lacking is not None:
            yield Finding(
                "BL304",
                f"{lacking.message}: {outcome}",
                probe.location,
                related=lacking.related,
                subject=f"{probe.kind}:{probe.value}",
                notes=(lacking.note,) if lacking.note else (),
                severity=severity,
            )
            continue
        if problem is None:
            continue
        yield Finding(
            "BL304",
            f"{problem}: {outcome}",
            probe.location,
            subject=f"{probe.kind}:{probe.value}",
            severity=severity,
        )


# a finding where the wait still rests on metrics of the other role the servers publish: a
# dead half of the check, not a wait that never ends or never waits (h62 W3)
_PARTIAL = Severity.WARNING


def _outcome(probe: Probe, partners: list[Probe]) -> str:
    """What the probe does with what the server lacks (h37 W1, h45 W2: a metric a drain loop
    sums reads as 0, and the wait passes at once). `partners`: the metrics of the other role
    the same command reads that the servers publish, which the wait then rests on (a
    frontend's and the workers': h57 W2)."""
    if probe.kind == "metric" and partners:
        names = sorted({f"`{p.value}`" for p in partners})
        return (
            "a read of it finds nothing, so that part of the wait counts nothing whatever the "
            f"load, and the wait rests on the other metric{'s' if len(names) > 1 else ''} the "
            f"command reads ({', '.join(names)}) if it reads "
            f"{'them' if len(names) > 1 else 'it'} from a server that publishes "
            f"{'them' if len(names) > 1 else 'it'} (the URL each is read from is not followed)"
        )
    if probe.kind == "metric":
        loop = _grep_loop(probe.command)
        if loop is not None:  # (h61 W4: which of the two, where the shell says it)
            ends = "never ends" if loop == "until" else "ends at once"
            return (
                f"a read of it finds nothing, so the `{loop}` loop this grep tests {ends}, "
                "whatever the load"
            )
        return (
            "a read of it finds nothing, so a wait on it never ends or, where nothing counts "
            "as 0, passes at once"
        )
    return (
        "the server answers 404, so this step fails every time or, where the status is not "
        "checked, goes on having done nothing"
    )


def _grep_loop(command: Command) -> str | None:
    """ "until" or "while": where the command is a `grep` that says whether its input holds
    a line (`-q`, not `-v`), last in the condition of the loop it runs in (`until curl ... |
    grep -q '^m 0'; do`), not negated: a metric nobody publishes never matches, so an `until`
    loop never ends and a `while` loop ends at once. None otherwise."""
    if command.base != "grep" or not command.loops or not command.tested:
        return None
    flags = "".join(
        w.value[1:] for w in command.args if w.static and w.value[:1] == "-" and w.value[1:2] != "-"
    )
    options = {w.value for w in command.args if w.static and w.value.startswith("--")}
    if "v" in flags or "--invert-match" in options:
        return None
    if "q" not in flags and "--quiet" not in options and "--silent" not in options:
        return None
    loop = command.loops[-1]
    src = command.script.src
    head = _LOOP_HEAD.match(src, loop.start_byte, command.node.start_byte)
    if head is None or not _BEFORE_DO.match(src, command.node.end_byte, loop.end_byte):
        return None  # (not last in the condition, or the condition negated)
    return head.group(1).decode()


# a loop's keyword and what stands before the command in its condition (no `!`)
_LOOP_HEAD = lazy_compile(rb"(until|while)\s+(?!!)[^!]*\Z", re.S)
# the command is the last of its loop's condition: `do` comes next
_BEFORE_DO = lazy_compile(rb"\s*(?:;\s*|\n\s*)do\b")


def _launched_problem(
    probe: Probe, launched: tuple[str | None, set[str], list[Launch]], dev_mode: bool
) -> str | None:
    server, servers, served_by = launched
    return _problem(probe, server, servers, dev_mode) or _metrics_off(probe, server, served_by)


def _alternatives(
    probes: list[Probe],
) -> tuple[dict[int, list[Probe]], dict[int, list[Probe]]]:
    """For each metric probe, the other metric names the same command reads (one program, or
    one command line): those of the same role, and those of the other. A drain that sums
    `vllm:num_requests_running` and `sglang:num_requests_running` counts whichever its workers
    publish. A frontend's metric (`dynamo_frontend_...`) is no alternative to an engine's: the
    two are read from different servers, and one that reads nothing leaves its half of the
    check dead, while the wait rests on the other (its partners)."""
    by_command: dict[int, list[Probe]] = {}
    for probe in probes:
        if probe.kind == "metric":
            by_command.setdefault(id(probe.command), []).append(probe)
    alternatives: dict[int, list[Probe]] = {}
    partners: dict[int, list[Probe]] = {}
    for group in by_command.values():
        for probe in group:
            frontend = probe.value.startswith(_FRONTEND_FAMILIES)
            alternatives[id(probe)] = []
            partners[id(probe)] = []
            for other in group:
                if other.value.startswith(_FRONTEND_FAMILIES) != frontend:
                    partners[id(probe)].append(other)
                elif other.value != probe.value:
                    alternatives[id(probe)].append(other)
    return alternatives, partners


def _run_problem(probe: Probe, run: ScriptRun, dev_mode: bool) -> str | None:
    """The probe of a script a recipe runs: a route may reach the frontend or a worker (which
    one its URL names is not known), so it is reported when none of them has it; when the
    workers serve (frontend `vllm`), against the release of the recipe's image."""
    if probe.kind == "route":
        reached = run.workers | ({run.frontend} if run.frontend else set())
        problem = _problem(probe, None, reached, dev_mode)
        if problem is not None or run.frontend is None or run.release is None:
            return problem
        if endpoints().exposes(run.frontend, probe.value, dev_mode, run.release) is not False:
            return None
        history = endpoints().history(run.frontend, run.release, probe.value)
        return (
            f"{NAMES[run.frontend]} {run.release}, the release of the recipe's model.container, "
            f"has no route `{probe.value}`" + (f" ({history})" if history else "")
        )
    return _problem(probe, run.frontend, run.workers, dev_mode)


def _beyond(ctx: Context) -> list[str]:
    """The scripts out of scope it looks at too: `beyond_scope`'s, and those a named recipe
    runs (`benchmark.command`: a finding there has the recipe as a related location)."""
    scripts = list(beyond_scope(ctx))  # (a copy: it may be the workspace's list)
    for path in ctx.in_scope(ctx.ws.yaml_paths):
        found = ctx.wiring.script_run_of(path)
        if found is not None:
            scripts.append(found[0])
    return list(dict.fromkeys(scripts))


@rule(
    "BL304",
    "unexposed-endpoint",
    Severity.ERROR,
    tags=("engines", "http"),
    precision="medium",
    document_pass=_manifest_pass,
    script_pass=_script_pass,
    beyond=_beyond,
)
def check(ctx: Context) -> Iterator[Finding]:
    for path in ctx.in_scope(ctx.ws.yaml_paths):
        yield from ctx.document_pass("BL304", path, _manifest_pass)
