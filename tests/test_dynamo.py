"""The Dynamo worker flag data: release lookup and the facts BL301 relies on."""

from __future__ import annotations

from pathlib import Path

from benchlint.config import parse_config
from benchlint.dynamo import flag_name, worker_flags
from tests.conftest import run_lint, write_repo


def test_release_lookup() -> None:
    data = worker_flags()
    assert data.release_for("1.4.0.dev20260807") == "1.4.0"
    assert data.release_for("1.2.0") == "1.2.0.post1"
    assert data.release_for("1.3.5") == "1.3.0.post1"
    assert data.release_for("0.3.0") is None
    assert data.release_for("nightly") is None


def test_measured_facts() -> None:
    data = worker_flags()
    for release in data.releases:
        assert "--tool-call-parser" in data.rejected_by(release)
        assert "--enable-prompt-tokens-details" in data.rejected_by(release)
        assert "--reasoning-parser" not in data.rejected_by(release)
        assert "--tensor-parallel-size" not in data.rejected_by(release)
    assert "--headless" in data.rejected_by("0.9.0")
    assert "--headless" not in data.rejected_by("1.0.0")
    assert "--headless" not in data.rejected_by(None)  # not rejected by every release
    assert data.advice("--tool-call-parser").startswith("use --dyn-tool-call-parser")
    assert flag_name("enable_prompt_tokens_details") == "--enable-prompt-tokens-details"
    assert flag_name("--tool-call-parser=hermes") == "--tool-call-parser"


def test_message_follows_the_configured_release(tmp_path: Path) -> None:
    recipe = (
        "backend:\n  type: vllm\n  vllm_config:\n    decode:\n      headless: true\n"
        "      is-prefill-worker: true\n"
    )
    root = write_repo(tmp_path / "r", {"benchmarks/multi_node/srt-slurm-recipes/a.yaml": recipe})
    old = run_lint(root, "BL301", config=parse_config({"dynamo-version": "0.9.0"}, None))
    assert [f.message.split(" (")[0] for f in old.findings] == [
        "`headless: true` in backend.vllm_config.decode is rejected by the Dynamo vLLM worker "
        "of Dynamo 0.9.0"
    ]
    new = run_lint(root, "BL301", config=parse_config({"dynamo-version": "1.4.0"}, None))
    assert [f.message.split(":")[0] for f in new.findings] == ["`is-prefill-worker"]
    assert "use --disaggregation-mode prefill" in new.findings[0].help


def test_a_flag_a_later_release_added_is_not_to_be_dropped(tmp_path: Path) -> None:
    """`--disaggregation-mode` is new in 1.0.0: under 0.8.1 the advice is a release that has
    it or the release's own spelling (the flags whose replacement it is), and no fix drops the
    key (a prefill worker would become an aggregated one)."""
    data = worker_flags()
    assert data.added_in("--disaggregation-mode", "0.8.1") == "1.0.0"
    assert data.added_in("--disaggregation-mode", None) is None
    assert data.added_in("--tool-call-parser", "0.8.1") is None
    assert data.advice("--disaggregation-mode", "0.8.1") == (
        "Dynamo 1.0.0 added it: use a release from 1.0.0 on, or this release's spelling: "
        "--is-decode-worker for --disaggregation-mode decode; --is-prefill-worker for "
        "--disaggregation-mode prefill"
    )
    assert not data.droppable("--disaggregation-mode", "0.8.1")
    assert (
        data.advice("--headless", "0.9.0") == "Dynamo 1.0.0 added it: use a release from 1.0.0 on"
    )
    recipe = (
        "dynamo: {install: true, wheel: 0.8.1}\nbackend:\n  type: vllm\n  vllm_config:\n"
        "    prefill:\n      disaggregation-mode: prefill\n      max-model-len: 8192\n"
    )
    root = write_repo(tmp_path / "r", {"benchmarks/multi_node/srt-slurm-recipes/a.yaml": recipe})
    (finding,) = run_lint(root, "BL301").findings
    assert (finding.location.span.line, finding.location.span.column) == (6, 7)
    assert "--is-prefill-worker for --disaggregation-mode prefill" in finding.help
    assert finding.fix is None
