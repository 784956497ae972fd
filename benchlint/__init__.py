"""benchlint: a static analyzer for the glue that runs LLM-inference benchmarks."""

__version__ = "0.7.64"
HOMEPAGE = "https://github.com/benchlint/benchlint"
