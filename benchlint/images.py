"""Which engine release an image runs, read from its name and tag.

An image names a release when it is a release tag of the engine's own images
(`vllm/vllm-openai:v0.15.1`, `vllm/vllm-openai-rocm:v0.27.1`, `lmsysorg/sglang:v0.5.8-cu130`,
`lmsysorg/sglang-rocm:v0.5.16-rocm720`, with any platform suffix or digest); a nightly, a
custom build or another image names none.
"""

from __future__ import annotations

import re

_IMAGES = {
    "vllm/vllm-openai": "vllm",
    "vllm/vllm-openai-rocm": "vllm",
    "lmsysorg/sglang": "sglang",
    "lmsysorg/sglang-rocm": "sglang",
}
_TAG = re.compile(r"v(\d+\.\d+\.\d+(?:\.\d+)?(?:\.post\d+)?)(?:-[A-Za-z0-9._]+)*")


def image_release(image: str) -> tuple[str, str] | None:
    """(engine, version) of an engine release image; None for anything else."""
    image = image.split("@", 1)[0].strip().strip("'\"")
    name, _, tag = image.rpartition(":")
    if not name or "/" in tag:
        return None
    repository = name.replace("#", "/").split("/")  # `nvcr.io#org/name`: a registry prefix
    engine = _IMAGES.get("/".join(repository[-2:]))
    if engine is None:
        return None
    match = _TAG.fullmatch(tag)
    return (engine, match.group(1)) if match else None
