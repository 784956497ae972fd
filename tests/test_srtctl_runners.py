"""The model of srtctl's benchmark runners' `validate_config`: what it decides, and where it says
it cannot."""

from __future__ import annotations

from benchlint import srtctl_runners
from benchlint.source import SourceText
from benchlint.yamlmodel import parse_yaml

SCHEMA = """
@dataclass(frozen=True)
class ResourceConfig:
    gpus: int = field(default=4, metadata={"data_key": "gpus_per_node"})


@dataclass(frozen=True)
class BenchmarkConfig:
    type: str = "manual"
    workload: str | None = None
    ttft_ms: int | None = None
    isl: int | None = None
    num_examples: int | None = None
    max_tokens: int | None = None


@dataclass(frozen=True)
class SrtConfig:
    name: str
    benchmark: BenchmarkConfig = field(default_factory=BenchmarkConfig)
    resources: ResourceConfig = field(default_factory=ResourceConfig)
"""

RUNNERS = """
@register_benchmark("mooncake")
class MooncakeRunner(BenchmarkRunner):
    def validate_config(self, config: SrtConfig) -> list[str]:
        errors = []
        b = config.benchmark
        valid = {"conversation", "synthetic"}
        workload = getattr(b, "workload", None) or "conversation"
        if workload not in valid:
            errors.append(f"benchmark.workload must be one of {valid}, got: {workload}")
        ttft = getattr(b, "ttft_ms", None) or 2000
        if ttft <= 0:
            errors.append("benchmark.ttft_ms must be positive")
        return errors


@register_benchmark("gpus")
class GpusRunner(BenchmarkRunner):
    def validate_config(self, cfg: SrtConfig) -> list[str]:
        if cfg.resources.gpus < 8:
            return ["needs 8 GPUs"]
        return []


@register_benchmark("isl")
class IslRunner(BenchmarkRunner):
    def validate_config(self, config: SrtConfig) -> list[str]:
        errors = []
        if config.benchmark.isl is None:
            errors.append("benchmark.isl is required")
        elif config.benchmark.isl <= 0:
            errors.append("benchmark.isl must be positive")


@register_benchmark("loop")
class LoopRunner(BenchmarkRunner):
    def validate_config(self, config: SrtConfig) -> list[str]:
        b = config.benchmark
        errors: list[str] = []
        for field in ("num_examples", "max_tokens"):
            value = getattr(b, field, None)
            if value is not None and value <= 0:
                errors.append(f"benchmark.{field} must be > 0")
        return errors


@register_benchmark("loopset")
class LoopSetRunner(BenchmarkRunner):
    def validate_config(self, config: SrtConfig) -> list[str]:
        errors = []
        for field in {"num_examples", "max_tokens"}:
            if getattr(config.benchmark, field, None) == 0:
                errors.append(f"benchmark.{field!r} is 0")
        return errors


@register_benchmark("loopbreak")
class LoopBreakRunner(BenchmarkRunner):
    def validate_config(self, config: SrtConfig) -> list[str]:
        errors = []
        for field in ("num_examples", "max_tokens"):
            if getattr(config.benchmark, field, None) == 0:
                errors.append(field)
                break
        return errors
"""


def _errors(runner: str, recipe: str) -> list[str] | None:
    schema, runners = srtctl_runners.read(
        [
            SourceText("src/srtctl/core/schema.py", SCHEMA.encode()),
            SourceText("src/srtctl/benchmarks/all.py", RUNNERS.encode()),
        ]
    )
    root = parse_yaml(SourceText("r.yaml", recipe.encode())).root
    assert root is not None
    return srtctl_runners.errors(runners[runner], schema, root)


def test_values_with_defaults_sets_and_comparisons_are_read() -> None:
    assert _errors("mooncake", "name: a\nbenchmark: {type: mooncake}\n") == []
    assert _errors("mooncake", "name: a\nbenchmark: {type: mooncake, workload: toolagent}\n") == [
        "benchmark.workload must be one of {valid}, got: toolagent"
    ]
    assert _errors("mooncake", "name: a\nbenchmark: {type: mooncake, ttft_ms: -1}\n") == [
        "benchmark.ttft_ms must be positive"
    ]


def test_a_check_that_falls_off_its_end_returns_none_which_passes() -> None:
    """`validate_config` without a `return`: Python returns None, and srtctl's `if errors:`
    lets the job go on whatever it appended."""
    assert _errors("isl", "name: a\nbenchmark: {type: isl}\n") == []


def test_what_it_cannot_tell_is_not_known() -> None:
    # a field its metadata may rename in the YAML (marshmallow's data_key): the key of the
    # attribute's name may be another field's, or none
    assert _errors("gpus", "name: a\nbenchmark: {type: gpus}\n") is None
    assert _errors("gpus", "name: a\nresources: {gpus: 2}\nbenchmark: {type: gpus}\n") is None
    # a number srtctl's schema would read from a string: not compared here
    assert _errors("mooncake", "name: a\nbenchmark: {type: mooncake, ttft_ms: '-1'}\n") is None
    # a part of the config written as something other than a mapping
    assert _errors("mooncake", "name: a\nbenchmark: mooncake\n") is None


def test_what_srtctl_may_read_otherwise_is_not_known() -> None:
    """(h26, against srtctl's own runners and marshmallow) a schema class with a base (its
    fields, defaults and hooks are the base's too), a runner registered twice (which module
    srtctl imports is not read), a quoted number compared with a number (marshmallow makes
    `"8"` 8): not known. A second list the check makes is not the one it returns."""
    schema = """
@dataclass
class Base:
    tp: int = 8


@dataclass
class BenchmarkConfig(Base):
    type: str = "manual"


@dataclass
class SrtConfig:
    benchmark: BenchmarkConfig = field(default_factory=BenchmarkConfig)
"""
    runners = """
@register_benchmark("tp")
class TpRunner(BenchmarkRunner):
    def validate_config(self, config):
        if getattr(config.benchmark, "tp", 0) != 8:
            return ["benchmark.tp must be 8"]
        return []


@register_benchmark("twice")
class One(BenchmarkRunner):
    def validate_config(self, config):
        return ["one"]


@register_benchmark("twice")
class Other(BenchmarkRunner):
    def validate_config(self, config):
        return []


@register_benchmark("notes")
class Notes(BenchmarkRunner):
    def validate_config(self, config):
        errors = []
        notes = []
        notes.append("a note")
        return errors
"""
    read = srtctl_runners.read(
        [
            SourceText("src/srtctl/core/schema.py", schema.encode()),
            SourceText("src/srtctl/benchmarks/all.py", runners.encode()),
        ]
    )
    root = parse_yaml(SourceText("r.yaml", b"benchmark: {type: tp}\n")).root
    assert root is not None
    assert srtctl_runners.errors(read[1]["tp"], read[0], root) is None
    assert "twice" not in read[1]
    assert srtctl_runners.errors(read[1]["notes"], read[0], root) == []
    flat = read[0]
    flat.hooked.discard("BenchmarkConfig")  # (as if the field were the class's own)
    flat.defaults["BenchmarkConfig"]["tp"] = 8
    quoted = parse_yaml(SourceText("r.yaml", b"benchmark: {type: tp, tp: '8'}\n")).root
    assert quoted is not None
    assert srtctl_runners.errors(read[1]["tp"], flat, quoted) is None
    plain = parse_yaml(SourceText("r.yaml", b"benchmark: {type: tp, tp: 4}\n")).root
    assert plain is not None
    assert srtctl_runners.errors(read[1]["tp"], flat, plain) == ["benchmark.tp must be 8"]


def test_a_loop_over_a_tuple_of_names_runs_once_per_name() -> None:
    """(srt-slurm's gsm8k runner: `for field in ("num_examples", ...)`, `getattr(b, field,
    None)`) each name in turn, its f-string's `{field}` put in; a loop over a set (its order is
    the strings' hashes') or one that leaves early (`break`): not known."""
    assert _errors("loop", "name: a\nbenchmark: {type: loop}\n") == []
    assert _errors("loop", "name: a\nbenchmark: {type: loop, max_tokens: 0}\n") == [
        "benchmark.max_tokens must be > 0"
    ]
    two = "name: a\nbenchmark: {type: loop, num_examples: -1, max_tokens: 0}\n"
    assert _errors("loop", two) == [
        "benchmark.num_examples must be > 0",
        "benchmark.max_tokens must be > 0",
    ]
    # (h30) a fraction an `int` field truncates (srtctl loads `0.5` as 0, `-0.5` as 0): not known
    assert _errors("loop", "name: a\nbenchmark: {type: loop, max_tokens: 0.5}\n") is None
    assert _errors("loop", "name: a\nbenchmark: {type: loop, num_examples: -0.5}\n") is None
    assert _errors("loop", "name: a\nbenchmark: {type: loop, max_tokens: 2.0}\n") == []
    assert _errors("loopset", "name: a\nbenchmark: {type: loopset, max_tokens: 0}\n") is None
    assert _errors("loopbreak", "name: a\nbenchmark: {type: loopbreak, max_tokens: 0}\n") is None
