"""Hostile input: BL001 or nothing, never a traceback, and the rest is still linted."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from benchlint.cli import main
from tests.conftest import positions, run_lint, write_repo

BAD_LOCK = "set +e\nflock -w 5 9\n"  # a BL102 finding, to show the rest is still linted


def _messages(result, rule="BL001"):  # type: ignore[no-untyped-def]
    return {f.location.path: f.message for f in result.findings if f.rule == rule}


def test_binary_non_utf8_and_still_linted(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"ok.sh": BAD_LOCK})
    (root / "blob.sh").write_bytes(b"\x7fELF\x00\x00\x01binary")
    (root / "latin1.sh").write_bytes(b"# caf\xe9\nflock -n 9\n")
    (root / "bad.yaml").write_bytes(b"key: \xff\xfe value\n")
    result = run_lint(root)
    messages = _messages(result)
    assert messages["blob.sh"] == "blob.sh is a binary file, not text"
    assert "latin1.sh" not in messages  # bash reads bytes; so does benchlint
    assert positions(result, "BL102") == ["latin1.sh:2:1", "ok.sh:2:1"]
    assert not result.errors


def test_symlink_loop_outside_root_and_fifo(tmp_path: Path) -> None:
    outside = tmp_path / "secret.sh"
    outside.write_text("flock -n 9\n")
    root = write_repo(tmp_path / "r", {"ok.sh": BAD_LOCK})
    (root / "loop_a.sh").symlink_to("loop_b.sh")
    (root / "loop_b.sh").symlink_to("loop_a.sh")
    (root / "escape.sh").symlink_to(outside)
    os.mkfifo(root / "pipe.sh")
    (root / "dirlink").symlink_to(root)  # a directory loop is not descended
    result = run_lint(root)
    messages = _messages(result)
    assert messages["escape.sh"].endswith("is a symlink to a path outside the repository; not read")
    assert "cannot be read" in messages["loop_a.sh"]
    assert messages["pipe.sh"].endswith("is not a regular file; not read")
    assert positions(result, "BL102") == ["ok.sh:2:1"]  # secret.sh was never read


def test_a_file_swapped_for_a_link_or_fifo_after_discovery_is_not_followed(
    tmp_path: Path,
) -> None:
    """Discovered files are read without resolving their path: opened without following a
    link and without blocking, should one be there by the time they are read."""
    from benchlint.config import Config
    from benchlint.workspace import Workspace

    outside = tmp_path / "secret.sh"
    outside.write_text("flock -n 9\n")
    root = write_repo(tmp_path / "r", {"a.sh": BAD_LOCK, "b.sh": BAD_LOCK, "c.sh": BAD_LOCK})
    ws = Workspace(root, Config())
    (root / "a.sh").unlink()
    (root / "a.sh").symlink_to(outside)
    (root / "b.sh").unlink()
    os.mkfifo(root / "b.sh")
    assert ws.source("a.sh") is None and "cannot be read" in ws.failures["a.sh"].message
    assert ws.source("b.sh") is None
    assert ws.failures["b.sh"].message.endswith("is not a regular file; not read")
    source = ws.source("c.sh")
    assert source is not None and source.text == BAD_LOCK


def test_deep_nesting_and_long_line(tmp_path: Path) -> None:
    deep_yaml = "a: " + "[" * 2000 + "]" * 2000 + "\n"
    deep_shell = "echo " + "$(" * 300 + "x" + ")" * 300 + "\n"
    long_line = "echo " + "x" * 2_000_000 + "\n"
    root = write_repo(
        tmp_path / "r",
        {"deep.yaml": deep_yaml, "deep.sh": deep_shell, "long.sh": long_line, "ok.sh": BAD_LOCK},
    )
    result = run_lint(root)
    assert not result.errors
    assert positions(result, "BL102") == ["ok.sh:2:1"]


def test_expansions_nested_hundreds_deep_are_read(tmp_path: Path) -> None:
    """(h123 F3) 400 defaults nested in one another, which bash reads (`bash -n` accepts
    them): BL108, BL117 and BL119 read them (a brace in the innermost default, found), no
    internal error."""
    deep = 'echo "' + "${A:-" * 400 + "{x}" + "}" * 399 + '}"\n'
    root = write_repo(tmp_path / "r", {"deep.sh": deep, "ok.sh": BAD_LOCK})
    result = run_lint(root)
    assert not result.errors
    assert positions(result, "BL102") == ["ok.sh:2:1"]
    assert positions(result, "BL108") == ["deep.sh:1:2002"]


def test_cli_never_writes_the_files_it_reads(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"ok.sh": BAD_LOCK, "a.yaml": "a: 1\na: 2\n"})
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    outcome = CliRunner().invoke(main, [str(root), "--format", "sarif"])
    assert outcome.exit_code == 1
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_deep_yaml_is_reported_not_crashed(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"deep.yaml": "a: " + "[" * 5000 + "]" * 5000 + "\n"})
    result = run_lint(root)
    assert positions(result, "BL001") == ["deep.yaml:1:1"]
    assert "nested too deeply" in result.findings[0].message


def test_hostile_files_cold_and_warm(tmp_path: Path) -> None:
    """The same hostile files, linted with the cache filled and then reused: the same BL001
    findings and unparsed files as a run without it, nothing lost."""
    from benchlint.cache import Cache
    from benchlint.config import Config
    from benchlint.engine import lint, select_rules

    root = write_repo(
        tmp_path / "r",
        {
            "ok.sh": BAD_LOCK,
            "broken.yaml": "a: [1, 2\n",
            "deep.yaml": "a: " + "[" * 2000 + "]" * 2000 + "\n",
            "runners/launch_x.sh": BAD_LOCK,
            "benchmarks/bad.sh": "if then fi\n",
        },
    )
    (root / "blob.sh").write_bytes(b"\x7fELF\x00\x00\x01binary")
    (root / "loop_a.sh").symlink_to("loop_b.sh")
    (root / "loop_b.sh").symlink_to("loop_a.sh")
    os.mkfifo(root / "pipe.yaml")
    rules = select_rules(Config(), None, set())
    one = lint(root, Config(), rules, [root])
    cache = Cache(tmp_path / "cache")
    lint(root, Config(), rules, [root], cache=cache)
    two = lint(root, Config(), rules, [root], cache=cache)  # warm
    assert two.workspace is not None and not two.workspace.documents()  # nothing parsed again
    assert [(f.rule, f.location, f.message) for f in two.findings] == [
        (f.rule, f.location, f.message) for f in one.findings
    ]
    assert [(f.path, f.message) for f in two.failures] == [
        (f.path, f.message) for f in one.failures
    ]
    assert set(_messages(two)) == {
        "blob.sh",
        "broken.yaml",
        "deep.yaml",
        "loop_a.sh",
        "loop_b.sh",
        "pipe.yaml",
        "benchmarks/bad.sh",
    }
    assert positions(two, "BL102") == ["ok.sh:2:1", "runners/launch_x.sh:2:1"]
    assert not two.errors


def test_templates_are_not_yaml(tmp_path: Path) -> None:
    """Helm chart templates, YAML with Go/Jinja syntax and YAML whose parse fails just after a
    line that is one placeholder (`envsubst`, string.Template: it stands for a block) are
    skipped (counted), never BL001; a broken YAML file without template syntax still is, and
    so is one whose placeholders are values (valid YAML) and whose error is elsewhere."""
    root = write_repo(
        tmp_path / "r",
        {
            "chart/Chart.yaml": "name: serve\nversion: 1.0.0\n",
            "chart/values.yaml": "a: 1\na: 2\n",
            "chart/templates/deployment.yaml": "{{- if .Values.x }}\nkind: Job\n{{- end }}\n",
            "chart/templates/sub/svc.yaml": 'metadata:\n  name: {{ include "x" . }}\n',
            # Helm renders a chart's templates whole, comments too; one without `{{` is YAML
            "chart/templates/cm.yaml": "# {{ .Chart.Name }}\nkind: ConfigMap\n",
            "chart/templates/crd.yaml": "kind: CustomResourceDefinition\nspec:\n  a: 1\n  a: 2\n",
            "deploy/job.yaml": "spec:\n  {% for n in nodes %}\n  - {{ n }}\n  {% endfor %}\n",
            "broken.yaml": "a: [1, 2\n",
            "dgd/frontend.yaml": (
                "spec:\n  frontend:\n    replicas: ${REPLICAS}\n    podSpec:\n"
                "${PULL_SECRETS_BLOCK}\n      image: ${IMAGE}\n"
            ),
            "eks/cluster.yaml": "region: $AWS_REGION\nzones:\n$ZONES\nauto:\n  enabled: true\n",
            # a Terraform `templatefile` input: an interpolation that is a whole line
            "tf/values.yaml": (
                "head:\n  labels:\n    app: head\n    ${indent(4, yamlencode(labels))}\n"
                "  serviceAccountName: ${k8s_service_account}\n"
            ),
            "dgd/broken.yaml": "image: ${IMAGE}\nargs: [--port, 8000\nreplicas: 2\n",
            # a GitHub expression and a comment are no template syntax: broken YAML is BL001
            ".github/workflows/w.yml": "jobs:\n  a:\n    ref: ${{ github.sha }}\n   bad: 1\n",
            "recipe.yaml": "# rendered by hand; see {{ docs }}\nbackend: {a: [1}\n",
            # a Jinja template of a launch script (Ansible renders it before bash reads it);
            # Go templates in quotes (`docker ps --format '{{.Names}}'`) are a script's own
            "roles/serve.sh": (
                "MODEL=${MODEL:-{{ model }}}\n{% if eager %}\nEXTRA=--enforce-eager\n"
                "{% endif %}\nvllm serve $MODEL --port {{ port }} $EXTRA\n"
            ),
            "ps.sh": "docker ps --format '{{.Names}}' | grep -q x && echo \"{% done %}\"\n",
            # a Go template libyaml reads (a flow mapping keying one) but PyYAML cannot load
            "cl2/priority.yaml": "kind: PriorityClass\nmetadata:\n  name: {{.Name}}\n",
            # a quoted field is a value: YAML, linted
            "cl2/quoted.yaml": 'kind: Service\nmetadata:\n  name: "{{.Name}}"\n  a: 1\n  a: 2\n',
        },
    )
    result = run_lint(root)
    assert positions(result) == [
        ".github/workflows/w.yml:4:4",
        "broken.yaml:2:1",
        "chart/templates/crd.yaml:4:3",
        "chart/values.yaml:2:1",
        "cl2/quoted.yaml:5:3",
        "dgd/broken.yaml:3:9",
        "recipe.yaml:2:16",
    ]
    assert result.workspace is not None
    assert sorted(result.workspace.templates) == [
        "chart/templates/cm.yaml",
        "chart/templates/deployment.yaml",
        "chart/templates/sub/svc.yaml",
        "cl2/priority.yaml",
        "deploy/job.yaml",
        "dgd/frontend.yaml",
        "eks/cluster.yaml",
        "roles/serve.sh",
        "tf/values.yaml",
    ]
    outcome = CliRunner().invoke(main, ["--statistics", str(root)])
    assert "templates not linted 9" in outcome.stderr
    # named, a template is said to be skipped, not read as a file without findings
    named = CliRunner().invoke(main, [str(root / "chart/templates/deployment.yaml")])
    assert named.exit_code == 0
    assert (
        "warning: 1 template not linted (chart/templates/deployment.yaml): YAML with Go or Jinja"
        in named.stderr
    )


def test_a_script_to_fill_in_is_a_template(tmp_path: Path) -> None:
    """A script bash rejects at a fill-in placeholder (`partition=<partition>`) is a template,
    counted and not linted; one that bash rejects first elsewhere is BL001, and a redirection
    is no placeholder."""
    root = write_repo(
        tmp_path / "r",
        {
            "slurm/submit.sh": "#!/bin/bash\n\npartition=<partition>\nsbatch -p $partition j\n",
            "slurm/run.sh": "srun -A <account> -N 2 ./job.sh\n",
            "slurm/broken.sh": "echo a )\nx=<partition>\n",
            "slurm/redirect.sh": "sort <input.txt >out.txt\nif true; then\n",
            "k8s/launch.sh": "pip install x\nexport HF_TOKEN=<Replace with your HF token>\n",
            # a placeholder with a comma, one between slashes, and one on a line the line bash
            # rejects continues; a placeholder on a line that does not run on is no excuse
            "t/config.sh": "export P=<slurm partition, used to feed -p>\n",
            "t/job.sh": "cd /scratch/<username>/<directory>\n",
            "t/prep.sh": "F=<PATH_OF_DATA> \\\n  (e.g., /data.txt)\n",
            "t/real.sh": "# set F=<PATH_OF_DATA> first\necho a )\n",
            "t/serve.sh": "#!/bin/bash\nCKPT=<Path to checkpoint (e.g /345m)>\necho $CKPT\n",
        },
    )
    result = run_lint(root)
    assert positions(result) == ["slurm/broken.sh:1:1", "slurm/redirect.sh:3:1", "t/real.sh:2:1"]
    assert result.workspace is not None
    # `-A <account> -N 2` is valid bash (input from `account`, output to `-N`): linted
    assert sorted(result.workspace.templates) == [
        "k8s/launch.sh",
        "slurm/submit.sh",
        "t/config.sh",
        "t/job.sh",
        "t/prep.sh",
        "t/serve.sh",
    ]
    # (a template is counted as one, not also as a script read)
    assert result.coverage is not None and result.coverage.scripts == 4


def test_a_script_for_another_shell_is_not_linted_and_the_run_says_so(tmp_path: Path) -> None:
    """A script whose `#!` line names zsh (ksh, fish, csh) is not linted as bash: zsh's
    `${(kv)tasks}` and `${lg:l}` are no BL001 or BL105; every report names it. A bash script
    beside it, and a `.sh` file with no `#!` line, still are linted."""
    zsh = "#!/usr/bin/env zsh\nfor task path in ${(kv)tasks}; do echo $task; done\necho ${lg:l}\n"
    root = write_repo(
        tmp_path / "r",
        {
            "scripts/sweep.sh": zsh,
            "scripts/prep.sh": "#!/bin/zsh\nL=${lg:l}\n",
            "scripts/old.sh": "#!/bin/ksh\nprint -r -- $x\n",
            "scripts/run.sh": "#!/bin/bash\necho a )\n",
            "scripts/plain.sh": "echo b )\n",
        },
    )
    result = run_lint(root)
    assert positions(result) == ["scripts/plain.sh:1:1", "scripts/run.sh:2:1"]
    assert result.warnings()[-1] == (
        "scripts for another shell not linted (their #! line names zsh, ksh, fish or csh, whose "
        "language is not bash's): 3 (scripts/old.sh:1, scripts/prep.sh:1, scripts/sweep.sh:1)"
    )


def test_a_batch_script_with_no_shebang_is_linted_and_the_run_says_sbatch_refuses_it(
    tmp_path: Path,
) -> None:
    """A `.slurm` file with `#SBATCH` lines and no `#!` line (`bin/bash` as its first line): sbatch
    refuses it, bash runs it; it is linted as a bash script and every report says so, named or
    not. Near misses: one with its `#!` line; a `.sub` file with no `#SBATCH` line (an HTCondor
    submit file) is not read."""
    job = "#SBATCH --nodes=1\nsrun --timeout=10 hostname\n"
    root = write_repo(
        tmp_path / "r",
        {
            "jobs/launch.slurm": "bin/bash\n" + job,
            "jobs/ok.slurm": "#!/bin/bash\n" + job,
            "jobs/condor.sub": "executable = run.sh\nqueue\n",
            # (a Jinja template of one: not linted, and said as a template alone)
            "jobs/tmpl.slurm": (
                "#SBATCH --nodes={{ nodes }}\n{% if gpus %}\nsrun hostname\n{% endif %}\n"
            ),
        },
    )
    said = (
        "Slurm batch scripts whose first line is no `#!` line, linted as bash scripts (sbatch "
        'refuses them: "This does not look like a batch script"; add `#!/bin/bash` as the first '
        "line): 1 (jobs/launch.slurm:1)"
    )
    for named in (None, [root / "jobs/launch.slurm"]):
        result = run_lint(root, select="BL115", named=named)
        expected = ["jobs/launch.slurm:3:6"] + ([] if named else ["jobs/ok.slurm:3:6"])
        assert positions(result) == expected
        assert said in result.warnings()
    assert result.workspace is not None
    assert "jobs/condor.sub" not in result.workspace.shell_paths


def test_a_script_bash_accepts_but_tree_sitter_parses_in_part_is_said(tmp_path: Path) -> None:
    """`${X:/path}` is valid bash that tree-sitter-bash cannot parse: not a BL001 finding, but
    every report says which lines were not analysed (named or not)."""
    import json

    root = write_repo(
        tmp_path / "r",
        {"run.sh": 'set -e\necho a\nD="${D:/tmp/x}"\necho "$D"\n', "ok.sh": "echo b\n"},
    )
    warning = (
        "1 script that `bash -n` accepts but tree-sitter-bash parses only in part (run.sh:3): the "
        "commands from that line on may be misread or missed"
    )
    for args in ([str(root)], [str(root / "run.sh")]):
        outcome = CliRunner().invoke(main, [*args, "--format", "json"])
        assert json.loads(outcome.stdout)["warnings"] == [
            {
                "message": warning,
                "rule": None,
                "places": [{"path": str(root / "run.sh"), "line": 3}],
                "entries": [],
            }
        ], args
        assert outcome.stderr == f"benchlint: warning: {warning}\n", args
    outcome = CliRunner().invoke(main, [str(root / "ok.sh"), "--format", "json"])
    assert json.loads(outcome.stdout)["warnings"] == []  # not named: not said


def test_a_script_wrapped_whole_in_an_error_is_said_where_the_parser_stumbled(
    tmp_path: Path,
) -> None:
    """tree-sitter-bash wraps the whole script, from its first command, in one ERROR node around
    the construct it cannot parse (`case ${@:$i:1} in`, valid bash): the warning names that
    construct's line, not the script's first command."""
    script = (
        "#!/bin/bash\nset -e\nMODEL=${MODEL:-m}\nfor (( i=0; i<=$#; i++ )); do\n"
        "    case ${X:a.b:1} in\n        -p=*) tag=${X:a.b:1} ;;\n    esac\ndone\n"
        'echo "$MODEL $tag"\n'
    )
    root = write_repo(tmp_path / "r", {"run.sh": script})
    result = run_lint(root)
    assert result.partial == [("run.sh", 5)]


def test_an_error_around_whole_statements_is_said_at_the_first_it_could_not_parse(
    tmp_path: Path,
) -> None:
    """An ERROR node that holds the statements tree-sitter-bash parsed and the loose pieces of
    the one it could not (a function whose body holds `case ${X:a.b:1} in`, valid bash) is said
    at the first loose piece, the function's line, not the script's first."""
    script = (
        "#!/usr/bin/env bash\nset -euo pipefail\necho start\nrun_node() {\n    echo one\n"
        "    case ${X:a.b:1} in\n        -p=*) tag=1 ;;\n    esac\n    echo two\n}\nrun_node\n"
    )
    root = write_repo(tmp_path / "r", {"run.sh": script})
    result = run_lint(root)
    assert result.partial == [("run.sh", 4)]


def test_a_backslash_that_ends_a_script_loses_nothing(tmp_path: Path) -> None:
    """tree-sitter-bash puts a missing command after a final `\\`; bash runs the command
    before it as it is, and so does the model: no partial-parse warning, and what the last
    command does is still reported."""
    root = write_repo(tmp_path / "r", {"run.sh": "set +e\necho a\nflock -w 5 9 \\\n"})
    result = run_lint(root)
    assert result.partial == []
    assert positions(result, "BL102") == ["run.sh:3:1"]


def test_a_comment_in_backticks_is_said_at_the_command_it_breaks(tmp_path: Path) -> None:
    """A comment in backticks glued to a command's word, then a continuation: tree-sitter-bash
    reads the comment to the end of the line, so a later backtick opens a substitution that
    never closes, its missing end at the end of the command. The warning names the command's
    first line, where the reading went wrong (bash reads it all). After a blank, the same
    comment is read as the blanks bash leaves of it (`model._unparsed_forms`): the script is
    read whole, and the launch in the foreground is reported (BL114)."""
    glued = (
        "#!/bin/bash\nMODEL=m\necho start\n"
        'vllm serve "$MODEL"`# the model` \\\n    --port 8000   `# port` \\\n    --x\n'
        "curl -sf localhost:8000/health\n"
    )
    root = write_repo(
        tmp_path / "r", {"run.sh": glued, "apart.sh": glued.replace("`# the", " `# the")}
    )
    result = run_lint(root, select="BL114")
    assert result.partial == [("run.sh", 4)]
    assert positions(result) == ["apart.sh:4:1"]


def test_an_oversized_file_is_not_kept_in_memory(tmp_path: Path) -> None:
    """(t73a, kserve: 46 install bundles of 1 to 4 MiB held 133 MB of text for the whole run)
    A shell or YAML file over `max-file-size` is let go as it is read: the workspace keeps its
    content hash (the run cache names the file by it) and no text; a master config and a Python
    file of any size are kept whole."""
    from benchlint.config import Config
    from benchlint.source import content_digest
    from benchlint.workspace import Workspace

    pad = "# generated\n" * 200
    files = {
        "bundle.yaml": "a: 1\n" + pad,
        "run.sh": "echo hi\n" + pad,
        "tools/big.py": "import argparse\n" + pad,
        "configs/big-master.yaml": (
            "dsr1-fp8-h200:\n  image: img\n  runner: h200\n  scenarios:\n    - isl: 1\n"
            "      search-space:\n        - {tp: 8}\n" + pad
        ),
    }
    root = write_repo(tmp_path / "r", files)
    ws = Workspace(root, Config(max_file_size=2048))
    for rel in ("bundle.yaml", "run.sh"):
        source = ws.source(rel)
        assert source is not None and source.text == ""
        assert source.digest == content_digest(files[rel].encode())
        assert ws.too_large(rel, source)
    assert ws.yaml("bundle.yaml") is None and ws.shell("run.sh") is None
    assert sorted(ws.oversized) == ["bundle.yaml", "run.sh"]
    for rel in ("tools/big.py", "configs/big-master.yaml"):
        source = ws.source(rel)
        assert source is not None and source.text == files[rel]


def test_files_larger_than_max_file_size_are_listed_not_linted(tmp_path: Path) -> None:
    """A file over `max-file-size` (a generated install bundle, a CRD) is not modelled: nothing
    is reported in it, not even BL001, and every report lists it with its size, a run the cache
    answers too. A file at the limit is linted, and so is a master config of any size; the rest
    of the repository is linted as before."""
    from benchlint.config import Config

    pad = "# generated\n" * 200  # 2,400 bytes
    entries = (
        "dsr1-fp8-h200:\n  image: img\n  runner: h200\n  scenarios:\n    - isl: 1\n"
        "      isl: 2\n      search-space:\n        - {tp: 8}\n"
    )
    root = write_repo(
        tmp_path / "r",
        {
            "ok.sh": BAD_LOCK,
            "bundle.sh": BAD_LOCK + pad,  # over the limit: its BL102 is not reported
            "crd.yaml": "a: 1\na: 2\n" + pad,  # nor this BL203
            "broken.yaml": "a: b: c\n" + pad,  # nor a BL001
            "limit.sh": BAD_LOCK + "#" * (2048 - len(BAD_LOCK) - 1) + "\n",  # at it: linted
            "configs/big-master.yaml": entries + pad,  # a master config: read at any size
        },
    )
    assert len((root / "limit.sh").read_bytes()) == 2048
    result = run_lint(root, config=Config(max_file_size=2048))
    assert positions(result, "BL102") == ["limit.sh:2:1", "ok.sh:2:1"]
    assert positions(result, "BL203") == ["configs/big-master.yaml:6:7"]
    assert positions(result, "BL001") == []
    assert result.oversized == [("broken.yaml", 2408), ("bundle.sh", 2420), ("crd.yaml", 2410)]
    # with no limit, each is linted
    unlimited = run_lint(root, config=Config(max_file_size=0))
    assert unlimited.oversized == []
    assert positions(unlimited, "BL001") == ["broken.yaml:1:5"]
    assert positions(unlimited, "BL102") == ["bundle.sh:2:1", "limit.sh:2:1", "ok.sh:2:1"]
    assert positions(unlimited, "BL203") == ["configs/big-master.yaml:6:7", "crd.yaml:2:1"]
    # the configuration's limit, said on stderr, the cache's answer as the run's
    (root / ".benchlint.toml").write_text('max-file-size = "2KiB"\n')
    said = (
        "warning: 3 files larger than max-file-size (2 KiB) not linted (bundle.sh (2.4 KiB), "
        "crd.yaml (2.4 KiB), broken.yaml (2.4 KiB)): generated files, as a rule"
    )
    for _ in range(2):
        outcome = CliRunner().invoke(main, ["--format", "concise", str(root)])
        assert said in outcome.stderr
        assert outcome.stdout.count("BL102") == 2
    # the option wins over the configuration; a bad size exits 2 with one line
    outcome = CliRunner().invoke(main, ["--format", "concise", "--max-file-size", "0", str(root)])
    assert "max-file-size" not in outcome.stderr and outcome.stdout.count("BL102") == 3
    for bad in ("lots", "-1", "2 GB"):
        outcome = CliRunner().invoke(main, ["--max-file-size", bad, str(root)])
        assert outcome.exit_code == 2
        assert outcome.stderr.strip().splitlines() == [
            f"benchlint: error: --max-file-size must be a size in bytes (0: no limit), or with "
            f"a unit: 500KB, 2MiB; not {bad!r}"
        ]
    (root / ".benchlint.toml").write_text("max-file-size = true\n")
    outcome = CliRunner().invoke(main, [str(root)])
    assert outcome.exit_code == 2 and "max-file-size must be a size in bytes" in outcome.stderr


def test_sizes_read_as_documented() -> None:
    from benchlint.config import parse_size

    assert parse_size(0, "x") == 0
    assert parse_size(1500, "x") == 1500
    assert parse_size("500KB", "x") == 500_000
    assert parse_size("1.5MB", "x") == 1_500_000
    assert parse_size("2MiB", "x") == 2 * 1024 * 1024
    assert parse_size("2 M", "x") == 2 * 1024 * 1024
    assert parse_size("512kib", "x") == 512 * 1024
    assert parse_size("900", "x") == 900
    # a file over the limit is shown rounded up: never as large as the limit it is over
    from benchlint.result import _size

    assert [_size(1_053_510, up=True), _size(1_053_510), _size(1 << 20), _size(2420)] == [
        "1.1 MiB",
        "1 MiB",
        "1 MiB",
        "2.4 KiB",
    ]


def test_what_follows_a_statement_bash_cannot_read_is_neither_reported_nor_said(
    tmp_path: Path,
) -> None:
    """bash runs the statements before the one it cannot read, then exits: a line after it is
    no finding (`_never_runs`) and no line of a warning either; one before it still is."""
    parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--n')\n"
    root = write_repo(
        tmp_path / "r",
        {
            "tools/gen.py": "import fire\nfire.Fire(print)\n",
            "tools/ok.py": parser + "p.parse_args()\n",
            "run.sh": (
                "#!/bin/bash\npython3 tools/gen.py --before 1\npython3 tools/ok.py --bogus\n"
                "X=1 (oops)\npython3 tools/gen.py --after 1\npython3 tools/ok.py --bogus\n"
            ),
        },
    )
    result = run_lint(root, select="BL001,BL116")
    assert positions(result) == ["run.sh:3:21", "run.sh:4:1"]
    assert (
        "Python scripts run with options whose parser cannot be told, not read (BL116): "
        "scripts whose code makes no argparse parser benchlint follows (a library may make "
        "it): 1 (run.sh:2)"
    ) in result.warnings()


def test_jinja_templates_of_scripts_and_yaml_are_counted(tmp_path: Path) -> None:
    """A `.j2` template of a batch script (its `#!` line names a shell: srtctl renders one for
    every job) or of YAML (`values.yaml.j2`), and a Terraform template of YAML (a manifest,
    `vllm.tftpl`; Helm values), is counted as a template not linted, not passed over in
    silence; a `.j2` of anything else (HTML), a Helm helper (`_helpers.tpl`) and a `.tpl` of
    text are not benchlint's."""
    root = write_repo(
        tmp_path / "r",
        {
            "templates/job.j2": (
                "#!/bin/bash\n#SBATCH -N {{ nodes }}\n{% if x %}srun x{% endif %}\n"
            ),
            "deploy/values.yaml.j2": "replicas: {{ n }}\n",
            "web/page.html.j2": "<p>{{ x }}</p>\n",
            "run.sh": "echo ok\n",
            # Terraform's `templatefile` inputs: a Kubernetes manifest, a Helm helper (no)
            "tf/manifest-templates/vllm.tftpl": (
                "apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: ${replicas}\n"
            ),
            "charts/x/templates/_helpers.tpl": '{{- define "x.name" -}}\nname: x\n{{- end }}\n',
            "tf/helm/gpu/values.tpl": "# a Go template\nservingEngineSpec:\n  replicas: 1\n",
            "tf/notes.tpl": "Hello {{ .Name }}\n\nNote: your cluster ${cluster} is ready.\n",
            "tf/cfg.toml.tpl": 'model = "${model}"\nport: ${port}\nhost: h\n',
            # a Go template of Python, and one of a mail: not YAML
            "tf/handler.tpl": (
                "def main():\n    try:\n        run({{ .Port }})\n    finally:\n        done()\n"
            ),
            "tf/mail.tpl": (
                "Subject: run {{ .Name }}\nTo: {{ .Owner }}\n\nResults are at {{ .URL }}.\n"
            ),
            # a flow list over several lines
            "tf/server.tpl": (
                'kind: Deployment\nspec:\n  command: [\n    "python3", "-m", "vllm",\n'
                '    "--port", "${port}",\n    "--model", "${model}"\n  ]\n'
            ),
            # a Bazel template in protobuf's text format: its `name {` opens no flow (h82 W4)
            "bazel/CROSSTOOL.tpl": (
                'major_version: "local"\ntoolchain {\n'
                + "".join(f'  key_{i}: "{i}"\n' for i in range(20))
                + "}\n"
            ),
            # Terraform's own directives between YAML lines
            "tf/pool.tpl": (
                "kind: NodePool\nspec:\n  labels:\n%{ for k, v in labels ~}\n    ${k}: ${v}\n"
                "%{ endfor ~}\n"
            ),
        },
    )
    result = run_lint(root)
    assert result.findings == []
    assert result.templates == [
        "deploy/values.yaml.j2",
        "templates/job.j2",
        "tf/helm/gpu/values.tpl",
        "tf/manifest-templates/vllm.tftpl",
        "tf/pool.tpl",
        "tf/server.tpl",
    ]


def test_a_left_shift_in_a_default_is_no_heredoc(tmp_path: Path) -> None:
    """`${SIZE:-$((32 << 30))}`: tree-sitter-bash takes the `<<` for a heredoc and loses the
    rest of the function; bash does not. The script is read whole (no partial-parse warning),
    and a finding after the line is made (BL107: the trap's handler reads a local)."""
    text = (
        "#!/usr/bin/env bash\nset -e\nrun() {\n    local pid=''\n"
        '    export SEG="${SEG:-$((32 << 30))}"\n'
        '    cleanup() { kill "$pid"; }\n    trap cleanup EXIT\n    pid=1\n}\nrun\n'
    )
    root = write_repo(tmp_path / "r", {"run.sh": text})
    result = run_lint(root, select="BL107")
    assert positions(result) == ["run.sh:7:5"]
    assert result.partial == []


def test_a_comment_in_backticks_keeps_the_function(tmp_path: Path) -> None:
    """(t73a, kserve's install scripts) `` `# why` `` after an option: tree-sitter-bash reads
    the comment to the end of the line and loses the function around it, whose launch then
    looked like a foreground one at the top (a false BL114). Read whole: the function's launch
    is put in the background by its call (no finding), while a launch after the same idiom at
    the top is reported at its place; no partial-parse warning."""
    text = (
        "#!/bin/bash\nstart_server() {\n"
        "    export VLLM_LOGGING_LEVEL=INFO `# quieter logs`\n"
        "    vllm serve Qwen/Qwen3-8B --port 8000\n}\nstart_server &\n"
        "until curl -sf http://localhost:8000/health; do sleep 5; done\n"
    )
    top = (
        "#!/bin/bash\nf=abcdef i=1\necho ${f:$i:2}\n"
        "vllm serve m --port 8001 `# the second server`\n"
        "curl -sf http://localhost:8001/health\n"
    )
    root = write_repo(tmp_path / "r", {"serve.sh": text, "top.sh": top})
    result = run_lint(root, select="BL114")
    assert positions(result) == ["top.sh:4:1"]
    assert result.partial == []
