"""The data files in benchlint/data: their schema, and every fact with its source."""

from __future__ import annotations

import json
from pathlib import Path

from benchlint import endpoints, profile
from benchlint.engine_flags import version_key

DATA = Path(__file__).resolve().parent.parent / "benchlint" / "data"


def test_the_profile_names_a_source_for_every_fact() -> None:
    data = json.loads((DATA / "profile.json").read_text())
    assert data["schema_version"] == profile.SCHEMA_VERSION
    assert data["facts"], "no facts"
    for name, fact in data["facts"].items():
        assert set(fact) == {"value", "description", "source"}, name
        assert fact["source"].strip() and fact["description"].strip(), name
        assert profile.fact(name) == fact["value"]


def test_the_profile_is_what_the_code_uses() -> None:
    from benchlint import calls, recipe
    from benchlint.environment import VALIDATORS

    assert profile.fact("health_check_defaults")["max_attempts"] == recipe.DEFAULT_MAX_ATTEMPTS
    assert tuple(profile.fact("workspace_mounts")) == calls.ROOT_MOUNTS
    assert frozenset(profile.fact("validators")) == VALIDATORS
    assert profile.launcher_prefix("gb200-nv_12") == "gb200-nv"


def test_engine_flags_have_provenance_and_the_docs_quote_their_range() -> None:
    from benchlint.engine_flags import SCHEMA_VERSION, engine_flags
    from benchlint.registry import get_rule

    data = json.loads((DATA / "engine_flags.json").read_text())
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["generator"] == "tools/import_engine_flags.py"
    for engine, table in data["engines"].items():
        versions = [r["version"] for r in table["releases"]]
        assert len(versions) > 10, engine
        assert all(r["source"] for r in table["releases"])
        runs = [run for ranges in table["flags"].values() for run in ranges]
        assert all(0 <= first <= last < len(versions) for first, last in runs)
    assert all("sha256" in r for r in data["engines"]["sglang"]["releases"])
    flags = engine_flags()
    doc = get_rule("BL303").doc  # type: ignore[union-attr]
    assert flags.span("vllm") in doc and flags.span("sglang") in doc


def test_every_release_in_the_example_images_is_measured_or_between_measured_ones() -> None:
    import re

    from benchlint.engine_flags import engine_flags, version_key
    from benchlint.images import image_release

    master = (DATA.parent.parent / "testdata/example/configs/nvidia-master.yaml").read_text()
    images = re.findall(r"image:\s*(\S+)", master)
    flags = engine_flags()
    named = [r for r in (image_release(i) for i in images) if r is not None]
    assert named
    routes = endpoints.endpoints()
    for engine, version in named:
        versions = flags.versions[engine]
        assert version_key(versions[0]) <= version_key(version) <= version_key(versions[-1])
        served = [r.version for r in routes.releases[engine]]
        assert version_key(served[0]) <= version_key(version) <= version_key(served[-1])
    routers = re.findall(r'router: \{name: sglang-router, version: "([^"]+)"\}', master)
    assert routers
    measured = {r.version for r in routes.releases["sglang_router"]}
    assert set(routers) <= measured


def test_endpoint_data_records_each_release_it_read() -> None:
    data = json.loads((DATA / "endpoints.json").read_text())
    assert data["schema_version"] == endpoints.SCHEMA_VERSION
    assert data["generator"] == "tools/import_endpoints.py"
    flags = json.loads((DATA / "engine_flags.json").read_text())["engines"]
    for server in ("vllm", "sglang", "sglang_router"):
        table = data["servers"][server]
        releases = table["releases"]
        versions = [r["version"] for r in releases]
        assert versions == sorted(versions, key=version_key), server
        assert all(len(r["sha256"]) == 64 and "from PyPI" in r["source"] for r in releases)
        assert set(table["routes"]) == {route for r in releases for route in r["routes"]}
        if server in flags:  # the engines' routes come from the releases their flags do
            assert versions == [r["version"] for r in flags[server]["releases"]], server
    vllm = data["servers"]["vllm"]
    assert not set(vllm["dev_mode_routes"]) & set(vllm["routes"])
    for server in ("vllm", "sglang"):  # FastAPI applications
        assert "/openapi.json" in data["servers"][server]["framework_routes"]
    # the router's readiness route arrived in 0.1.6 (actix-web's #[get("/readiness")])
    router = {r["version"]: set(r["routes"]) for r in data["servers"]["sglang_router"]["releases"]}
    assert "/readiness" not in router["0.1.5"] and "/readiness" in router["0.1.6"]
    assert "/health" in router["0.3.2"]


def test_route_lookup_between_measured_releases() -> None:
    data = endpoints.endpoints()
    assert data.exposes("sglang_router", "/readiness", False, "0.1.4") is False
    assert data.exposes("sglang_router", "/readiness", False, "0.1.6") is True
    assert data.exposes("sglang_router", "/readiness", False, "9.0.0") is None  # not measured
    assert data.exposes("sglang_router", "/readiness", False) is True  # any release
    # vLLM 0.13 lies between 0.12.0 and 0.14.1: decided only where both agree
    assert data.exposes("vllm", "/health", False, "0.13.0") is True
    assert data.exposes("vllm", "/v1/responses/abc", False, "0.31.0") is True  # {response_id}
    assert data.exposes("vllm", "/no/such/route", False, "0.13.0") is False
    # FastAPI's own routes, which no decorator declares (h135 F4)
    assert data.exposes("vllm", "/openapi.json", False, "0.13.0") is True
    assert data.exposes("sglang", "/redoc", False) is True
    assert data.exposes("sglang_router", "/openapi.json", False) is False
    assert (
        data.history("sglang_router", "0.1.4", "/readiness")
        == "the first measured release with it is 0.1.6"
    )


def test_slurm_options_have_provenance_and_the_docs_quote_their_range() -> None:
    from benchlint import slurm
    from benchlint.registry import get_rule

    data = json.loads((DATA / "slurm_options.json").read_text())
    assert data["schema_version"] == slurm.SCHEMA_VERSION
    assert data["generator"] == "tools/import_slurm_options.py"
    releases = data["slurm"]["releases"]
    for release in [*releases, *data["pyxis"]["releases"]]:
        assert set(release) - {"sbatch"} == {"version", "tag", "commit", "file", "blob"}, release
        assert len(release["commit"]) == 40 and len(release["blob"]) == 40
    for release in releases:  # (sbatch's environment variables: its own opt.c)
        assert (
            release["sbatch"]["file"] == "src/sbatch/opt.c" and len(release["sbatch"]["blob"]) == 40
        )
    versions = [r["version"] for r in releases]
    assert versions == sorted(versions, key=lambda v: [int(n) for n in v.split(".")])
    for command in slurm.COMMANDS:
        table = data["slurm"]["options"][command]
        assert len(table) > 100, command
        for name, option in table.items():
            assert len(option["arg"]) == len(releases) and set(option["arg"]) <= set("-012"), name
            assert option["arg"] != "-" * len(releases), name
            # (kept as text where the release has the option, and only there)
            assert [a == "-" for a in option["arg"]] == [t == "-" for t in option["text"]], name
    every = "1" * len(releases)
    assert data["slurm"]["options"]["srun"]["time"] == {
        "short": "t",
        "arg": every,
        "text": "0" * len(releases),
    }
    for name, option in data["slurm"]["options"]["sbatch"].items():
        for variable, seen in option.get("env", {}).items():
            assert variable.startswith(("SBATCH_", "SLURM_")), (name, variable)
            # (read only by releases that have the option)
            assert all(a != "-" for a, s in zip(option["arg"], seen, strict=True) if s == "1"), name
    assert slurm.sbatch_variables("partition") == (frozenset({"SBATCH_PARTITION"}), frozenset())
    assert data["slurm"]["options"]["sbatch"]["partition"] == {
        "short": "p",
        "arg": every,
        "text": every,
        "env": {"SBATCH_PARTITION": every},
    }
    assert slurm.keeps_text("sbatch", "account") and not slurm.keeps_text("sbatch", "nodes")
    assert (
        slurm.option_name("sbatch", "-pgpu") == slurm.option_name("sbatch", "--part") == "partition"
    )
    assert slurm.option_name("sbatch", "--n") is None  # (a prefix of several)
    doc = get_rule("BL115").doc  # type: ignore[union-attr]
    assert f"Slurm release from {versions[0]} to {versions[-1]}" in doc


def test_the_workflow_schema_has_provenance_is_closed_and_the_doc_quotes_its_release() -> None:
    """data/workflow_schema.json names the package release and hashes it was read from, every
    type a definition names is defined (or one the parser defines itself), and BL208's doc
    quotes the release."""
    from benchlint import workflow_schema
    from benchlint.registry import get_rule

    data = json.loads((DATA / "workflow_schema.json").read_text())
    assert data["schema_version"] == workflow_schema.SCHEMA_VERSION
    assert data["generator"] == "tools/import_workflow_schema.py"
    source = data["source"]
    assert source["package"] == "@actions/workflow-parser"
    assert source["integrity"].startswith("sha512-") and len(source["sha256"]) == 64
    defined = set(data["definitions"]) | {"null", "boolean", "number", "string"}
    defined |= {"sequence", "mapping", "any"}
    for name, definition in data["definitions"].items():
        named = [
            *definition.get("properties", {}).values(),
            *definition.get("one-of", ()),
            *(
                definition[k]
                for k in ("item-type", "loose-key-type", "loose-value-type")
                if k in definition
            ),
        ]
        assert set(named) <= defined, name
    assert data["root"] in data["definitions"]
    doc = get_rule("BL208").doc  # type: ignore[union-attr]
    assert f"{source['package']}` {source['version']}" in doc


def _slurm_importer():  # type: ignore[no-untyped-def]
    """tools/import_slurm_options.py as a module (the tools are scripts, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "import_slurm_options", Path(__file__).parent.parent / "tools/import_slurm_options.py"
    )
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_the_slurm_reader_takes_the_branches_a_default_build_compiles() -> None:
    """`#ifdef WITH_SLURM_X11` (on unless `--disable-x11`) names the option; `#ifdef
    WITH_SELINUX` (off unless `--with-selinux`) and `#ifndef WITH_SLURM_X11` do not (h123 M17:
    `--x11` was missing, and srun read nothing after it)."""
    tool = _slurm_importer()
    source = """
#define COMMON_STRING_OPTION_SET(field)				\\
static int arg_set_##field(slurm_opt_t *opt, const char *arg)	\\
{								\\
	opt->field = xstrdup(arg);				\\
}
COMMON_STRING_OPTION_SET(partition);
static slurm_cli_opt_t slurm_opt_x11 = {
#ifdef WITH_SLURM_X11
	.name = "x11",
#else
	.name = NULL,
#endif
	.has_arg = optional_argument,
	.set_func_srun = arg_set_x11,
};
static slurm_cli_opt_t slurm_opt_context = {
#ifdef WITH_SELINUX
	.name = "context",
#else
	.name = NULL,
#endif
	.has_arg = required_argument,
	.set_func = arg_set_context,
};
static slurm_cli_opt_t slurm_opt_legacy = {
#ifndef WITH_SLURM_X11
	.name = "legacy",
#else
	.name = NULL,
#endif
	.has_arg = no_argument,
	.set_func = arg_set_legacy,
};
static const slurm_cli_opt_t *common_options[] = {
	&slurm_opt_x11,
	&slurm_opt_context,
	&slurm_opt_legacy,
	NULL
};
"""
    assert tool.slurm_options(source)["srun"] == {"x11": (2, None, False)}


def test_the_slurm_reader_tells_text_setters_from_those_that_check() -> None:
    """`tools/import_slurm_options.py` on a slurm_opt.c of Slurm's shape, written here: a set
    function a macro defines as an `xstrdup(arg)` (directly, through a macro that expands it,
    sbatch's own) keeps its text; one written out, or a macro's that parses, does not."""
    tool = _slurm_importer()
    source = """
#define COMMON_STRING_OPTION(field)	\\
COMMON_STRING_OPTION_SET(field)		\\
COMMON_STRING_OPTION_GET(field)
#define COMMON_STRING_OPTION_SET(field)				\\
static int arg_set_##field(slurm_opt_t *opt, const char *arg)	\\
{								\\
	xfree(opt->field);					\\
	opt->field = xstrdup(arg);				\\
	return SLURM_SUCCESS;					\\
}
#define COMMON_STRING_OPTION_GET(field)				\\
static char *arg_get_##field(slurm_opt_t *opt)			\\
{								\\
	return xstrdup(opt->field);				\\
}
#define COMMON_SBATCH_STRING_OPTION_SET(field)			\\
static int arg_set_##field(slurm_opt_t *opt, const char *arg)	\\
{								\\
	if (!opt->sbatch_opt)					\\
		return SLURM_ERROR;				\\
	opt->sbatch_opt->field = xstrdup(arg);			\\
	return SLURM_SUCCESS;					\\
}
#define COMMON_INT_OPTION_SET(field)				\\
static int arg_set_##field(slurm_opt_t *opt, const char *arg)	\\
{								\\
	opt->field = parse_int(#field, arg, true);		\\
	return SLURM_SUCCESS;					\\
}

COMMON_STRING_OPTION(partition);
static slurm_cli_opt_t slurm_opt_partition = {
	.name = "partition",
	.has_arg = required_argument,
	.val = 'p',
	.set_func = arg_set_partition,
};
COMMON_SBATCH_STRING_OPTION_SET(wrap);
static slurm_cli_opt_t slurm_opt_wrap = {
	.name = "wrap",
	.has_arg = required_argument,
	.set_func_sbatch = arg_set_wrap,
};
COMMON_INT_OPTION_SET(ntasks);
static slurm_cli_opt_t slurm_opt_ntasks = {
	.name = "ntasks",
	.has_arg = required_argument,
	.val = 'n',
	.set_func = arg_set_ntasks,
};
static int arg_set_nodes(slurm_opt_t *opt, const char *arg)
{
	opt->nodes = xstrdup(arg);
	return verify_node_count(arg) ? SLURM_SUCCESS : SLURM_ERROR;
}
static slurm_cli_opt_t slurm_opt_nodes = {
	.name = "nodes",
	.has_arg = required_argument,
	.val = 'N',
	.set_func = arg_set_nodes,
};
static const slurm_cli_opt_t *common_options[] = {
	&slurm_opt_nodes,
	&slurm_opt_ntasks,
	&slurm_opt_partition,
	&slurm_opt_wrap,
	NULL
};
"""
    options = tool.slurm_options(source)
    assert options["sbatch"] == {
        "nodes": (1, "N", False),
        "ntasks": (1, "n", False),
        "partition": (1, "p", True),
        "wrap": (1, None, True),
    }
    assert "wrap" not in options["srun"] and options["srun"]["partition"] == (1, "p", True)
    # sbatch/opt.c's env_vars[]: each variable's `.val` is the option's (a character, or a
    # LONG_OPT_ name); one whose `.val` no option of sbatch's has sets none
    opt_c = """
env_vars_t early_env_vars[] = {
  { "SBATCH_DEBUG", 'v' },
  { NULL }
};
env_vars_t env_vars[] = {
  { "SBATCH_NODES", 'N' },
  { "SBATCH_PARTITION", 'p' },
  { "SLURM_PARTITION_ALIAS", 'p' },
  /* { "SBATCH_NTASKS", 'n' }, */
  { "SBATCH_NO_SUCH", LONG_OPT_NO_SUCH },
  { NULL }
};
"""
    assert tool.sbatch_env(source, opt_c) == {
        "nodes": ["SBATCH_NODES"],
        "partition": ["SBATCH_PARTITION", "SLURM_PARTITION_ALIAS"],
    }
