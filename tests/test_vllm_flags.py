"""tools/vllm_flags.py against argparse: a small source tree written in vLLM's shape (config
dataclasses, `get_kwargs`, `EngineArgs.add_cli_args`, `FrontendArgs`, `make_arg_parser`, `vllm
serve`'s subcommand) is read statically, then imported and its parser built: the option strings
the reader finds are the ones argparse registers."""

from __future__ import annotations

import argparse
import importlib
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from vllm_flags import Sources, serve_flags

_UTILS = '''
import argparse


class EnableDisableAction(argparse.BooleanOptionalAction):
    """--enable-x also as --disable-x (and the other way round)."""

    def __init__(self, option_strings, dest, *args, **kwargs):
        super().__init__(option_strings, dest, *args, **kwargs)
        pairs = {"--enable-": "--disable-", "--disable-": "--enable-"}
        inverses = [
            inverse + o[len(prefix):]
            for o in option_strings
            for prefix, inverse in pairs.items()
            if o.startswith(prefix)
        ]
        self.option_strings = [*self.option_strings, *inverses]


class FlexibleArgumentParser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        PAIRING
'''

_CONFIG = """
from dataclasses import dataclass, field
from typing import Annotated, Literal, Optional


class SkipValidation:
    def __class_getitem__(cls, item):
        return item


@dataclass
class BaseConfig:
    inherited_switch: bool = False


@dataclass
class ModelConfig(BaseConfig):
    model: str = "m"
    enforce_eager: bool = False
    trust_remote_code: Optional[bool] = None
    chunked: SkipValidation[bool] = None
    quantization: Literal["fp8", "awq"] | None = None
    hf_token: bool | str | None = None
    max_model_len: int = 0
    enable_prefix_caching: bool | None = None
    disable_sliding_window: bool = False
    sizes: list[bool] = field(default_factory=list)
    renamed: Annotated[bool, "help"] = False
"""

_ARG_UTILS = """
import argparse
import typing
from dataclasses import MISSING, dataclass, fields

from vllm.config.model import ModelConfig
from vllm.utils.argparse_utils import FlexibleArgumentParser


def _members(hint):
    if typing.get_origin(hint) in (typing.Union, type(int | None)):
        return [m for a in typing.get_args(hint) for m in _members(a)]
    if typing.get_origin(hint) is typing.Annotated:
        return _members(typing.get_args(hint)[0])
    return [hint]


def get_kwargs(cls):
    hints = typing.get_type_hints(cls, include_extras=True)
    kwargs = {}
    for f in fields(cls):
        members = set(_members(hints[f.name]))
        kwargs[f.name] = {"default": None}
        if bool in members and members != {bool, str, type(None)}:
            kwargs[f.name]["action"] = argparse.BooleanOptionalAction
    return kwargs


@dataclass
class EngineArgs:
    model: str = "m"

    @staticmethod
    def add_cli_args(parser):
        model_kwargs = get_kwargs(ModelConfig)
        model_kwargs["disable_sliding_window"]["action"] = "store_true"
        group = parser.add_argument_group(title="ModelConfig")
        group.add_argument("--model", **model_kwargs["model"])
        group.add_argument("--enforce-eager", **model_kwargs["enforce_eager"])
        group.add_argument("--trust-remote-code", **model_kwargs["trust_remote_code"])
        group.add_argument("--enable-chunked-prefill", **model_kwargs["chunked"])
        group.add_argument("--quantization", "-q", **model_kwargs["quantization"])
        group.add_argument("--hf-token", **model_kwargs["hf_token"])
        group.add_argument("--max-model-len", **model_kwargs["max_model_len"])
        group.add_argument("--enable-prefix-caching", **model_kwargs["enable_prefix_caching"])
        group.add_argument(
            "--disable-sliding-window", **model_kwargs["disable_sliding_window"]
        )
        group.add_argument("--sizes", **model_kwargs["sizes"])
        group.add_argument("--inherited-switch", **model_kwargs["inherited_switch"])
        group.add_argument(
            "--renamed-flag", **{**model_kwargs["renamed"], "action": "store_true"}
        )
        group.add_argument("--disable-log-stats", action="store_true")
        group.add_argument("--async-scheduling", action=argparse.BooleanOptionalAction)
        for arg, kind in [("--old-backend", str), ("--old-switch", bool)]:
            group.add_argument(arg, type=kind, help="deprecated")
        return parser


@dataclass
class AsyncEngineArgs(EngineArgs):
    @staticmethod
    def add_cli_args(parser):
        parser = EngineArgs.add_cli_args(parser)
        parser.add_argument("--enable-log-requests", action=argparse.BooleanOptionalAction)
        return parser
"""

_CLI_ARGS = """
from dataclasses import dataclass, field

from vllm.engine.arg_utils import AsyncEngineArgs, get_kwargs


@dataclass
class BaseFrontendArgs:
    enable_auto_tool_choice: bool = False
    middleware: list[str] = field(default_factory=list)

    @classmethod
    def _customize_cli_kwargs(cls, frontend_kwargs):
        frontend_kwargs["middleware"]["action"] = "append"
        return frontend_kwargs

    @classmethod
    def add_cli_args(cls, parser):
        frontend_kwargs = get_kwargs(cls)
        frontend_kwargs = cls._customize_cli_kwargs(frontend_kwargs)
        group = parser.add_argument_group(title="Frontend")
        for key, value in frontend_kwargs.items():
            group.add_argument(f"--{key.replace('_', '-')}", **value)
        return parser


@dataclass
class FrontendArgs(BaseFrontendArgs):
    host: str | None = None
    port: int = 8000
    disable_fastapi_docs: bool = False
    quiet: bool = False

    @classmethod
    def _customize_cli_kwargs(cls, frontend_kwargs):
        frontend_kwargs = super()._customize_cli_kwargs(frontend_kwargs)
        frontend_kwargs["quiet"]["action"] = "store_true"
        return frontend_kwargs


def make_arg_parser(parser):
    parser.add_argument("model_tag", nargs="?")
    parser.add_argument("--headless", action="store_true")
    parser.add_argument("--api-server-count", "-asc", type=int)
    parser = FrontendArgs.add_cli_args(parser)
    parser = AsyncEngineArgs.add_cli_args(parser)
    return parser
"""

_SERVE = """
from vllm.entrypoints.openai.cli_args import make_arg_parser
from vllm.utils.argparse_utils import FlexibleArgumentParser


class ServeSubcommand:
    def subparser_init(self, subparsers):
        serve_parser = subparsers.add_parser("serve")
        serve_parser = make_arg_parser(serve_parser)
        serve_parser.add_argument("--grpc", action="store_true")
        return serve_parser


def build():
    parser = FlexibleArgumentParser(prog="vllm")
    subparsers = parser.add_subparsers(parser_class=FlexibleArgumentParser)
    return ServeSubcommand().subparser_init(subparsers)
"""


def _tree(pairing: bool) -> dict[str, str]:
    register = 'self.register("action", BooleanOptionalAction, EnableDisableAction)'
    utils = _UTILS.replace("PAIRING", register if pairing else "pass")
    if pairing:
        imports = "import argparse\nfrom argparse import BooleanOptionalAction\n"
        utils = utils.replace("import argparse\n", imports, 1)
    return {
        "vllm/__init__.py": "",
        "vllm/config/__init__.py": "",
        "vllm/config/model.py": _CONFIG,
        "vllm/engine/__init__.py": "",
        "vllm/engine/arg_utils.py": _ARG_UTILS,
        "vllm/entrypoints/__init__.py": "",
        "vllm/entrypoints/openai/__init__.py": "",
        "vllm/entrypoints/openai/cli_args.py": _CLI_ARGS,
        "vllm/entrypoints/cli/__init__.py": "",
        "vllm/entrypoints/cli/serve.py": _SERVE,
        "vllm/utils/__init__.py": "",
        "vllm/utils/argparse_utils.py": utils,
    }


def _argparse_options(root: Path) -> tuple[set[str], set[str]]:
    """The option strings of the tree's `vllm serve` parser, and of its engine's alone."""
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == "vllm" or m.startswith("vllm.")]:
            del sys.modules[name]
        serve = importlib.import_module("vllm.entrypoints.cli.serve")
        arg_utils = importlib.import_module("vllm.engine.arg_utils")
        utils = importlib.import_module("vllm.utils.argparse_utils")
        parser = serve.build()
        engine = arg_utils.AsyncEngineArgs.add_cli_args(utils.FlexibleArgumentParser())
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "vllm" or m.startswith("vllm.")]:
            del sys.modules[name]

    def options(p: argparse.ArgumentParser) -> set[str]:
        return {o for o in p._option_string_actions if o not in ("-h", "--help")}

    return options(parser), options(engine)


@pytest.mark.parametrize("pairing", [False, True], ids=["argparse-pairs", "enable-disable"])
def test_the_reader_finds_the_option_strings_argparse_registers(
    tmp_path: Path, pairing: bool
) -> None:
    texts = {path: textwrap.dedent(text) for path, text in _tree(pairing).items()}
    for path, text in texts.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    every, engine_only = _argparse_options(tmp_path)
    engine, frontend, subcommand = serve_flags(Sources(texts))
    assert engine == engine_only
    assert engine | frontend | subcommand == every
    assert subcommand == {"--grpc"}
    # what each form of the tree's shape gives (so that a reader and parser wrong alike fail)
    assert {"--enforce-eager", "--no-enforce-eager", "--no-trust-remote-code"} <= engine
    assert {"--no-enable-chunked-prefill", "--no-inherited-switch"} <= engine
    assert not {"--no-hf-token", "--no-quantization", "--no-sizes", "--no-max-model-len"} & engine
    assert not {"--no-disable-sliding-window", "--no-renamed-flag", "--no-old-switch"} & engine
    assert {"--old-backend", "--old-switch", "--no-async-scheduling", "-q"} <= engine
    assert {"--no-enable-auto-tool-choice", "--middleware", "--quiet", "-asc"} <= frontend
    assert "--no-quiet" not in frontend and "--no-middleware" not in frontend
    assert ("--disable-log-requests" in engine) is pairing
    assert ("--disable-prefix-caching" in engine) is pairing
    assert ("--enable-fastapi-docs" in frontend) is pairing
