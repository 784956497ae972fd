"""Which engine release an image runs, read from its name and tag.

An image names a release when it is a release tag of the engine's own images
(`vllm/vllm-openai:v0.15.1`, `vllm/vllm-openai-rocm:v0.27.1`, `lmsysorg/sglang:v0.5.8-cu130`,
`lmsysorg/sglang-rocm:v0.5.16-rocm720`, with any platform suffix or digest); a nightly, a
custom build or another image names none. `latest` (or no tag) is the newest release when the
image was pulled (`image_latest`).
"""

from __future__ import annotations

import re

from benchlint.lazyre import lazy_compile

_IMAGES = {
    "vllm/vllm-openai": "vllm",
    "vllm/vllm-openai-rocm": "vllm",
    # vLLM's own CPU release images (its docs' CPU installation, "Pre-built images": x86 and
    # arm64 on public ECR), built from docker/Dockerfile.cpu's target vllm-openai
    "q9t5s3a7/vllm-cpu-release-repo": "vllm",
    "q9t5s3a7/vllm-arm64-cpu-release-repo": "vllm",
    "lmsysorg/sglang": "sglang",
    "lmsysorg/sglang-rocm": "sglang",
}
_TAG = lazy_compile(r"v(\d+\.\d+\.\d+(?:\.\d+)?(?:\.post\d+)?)(?:-[A-Za-z0-9._]+)*")


# What an image runs when a container gives it `args` and no `command`: vLLM's OpenAI image
# starts its server (vLLM's docker/Dockerfile, target vllm-openai: `ENTRYPOINT ["vllm", "serve"]`;
# before 0.9, `python3 -m vllm.entrypoints.openai.api_server`, which reads the same flags)
# (Dockerfile.cpu's target vllm-openai: the same; before, the api_server module, the same flags)
_ENTRYPOINTS = {
    "vllm/vllm-openai": ("vllm", "serve"),
    "q9t5s3a7/vllm-cpu-release-repo": ("vllm", "serve"),
    "q9t5s3a7/vllm-arm64-cpu-release-repo": ("vllm", "serve"),
}


def _parts(image: str) -> tuple[str, str | None]:
    """An image's repository, its last two path parts (`vllm/vllm-openai`, a registry and any
    `nvcr.io#org/` prefix dropped), and its tag (None: it names none, as in
    `registry:5000/vllm/vllm-openai`)."""
    image = image.split("@", 1)[0].strip().strip("'\"")
    name, _, tag = image.rpartition(":")
    if not name or "/" in tag:
        name, tag = image, ""
    return "/".join(name.replace("#", "/").split("/")[-2:]), tag or None


def image_entrypoint(image: str) -> tuple[str, ...]:
    """The command an engine image runs its container's `args` with; () when not known."""
    return _ENTRYPOINTS.get(_parts(image)[0], ())


def image_release(image: str) -> tuple[str, str] | None:
    """(engine, version) of an engine release image; None for anything else."""
    repository, tag = _parts(image)
    engine = _IMAGES.get(repository)
    if engine is None or tag is None:
        return None
    match = _TAG.fullmatch(tag)
    return (engine, match.group(1)) if match else None


_DOCKER_HUB = frozenset({"docker.io", "index.docker.io", "registry-1.docker.io"})


def image_latest(image: str) -> str | None:
    """The engine whose own image this is, from Docker Hub, under the tag `latest`, or no tag
    (which is `latest`): the newest release when it was pulled. None for any other image, one
    pinned by a digest (`@sha256:...`: some release, not known), or one from another registry
    (a mirror's `latest` is what it last copied)."""
    image = image.strip().strip("'\"")
    if "@" in image:
        return None
    first = image.split("/", 1)[0]
    registry = "/" in image and ("." in first or ":" in first or first == "localhost")
    if registry and first not in _DOCKER_HUB:
        return None
    repository, tag = _parts(image)
    engine = _IMAGES.get(repository)
    return engine if engine is not None and tag in (None, "latest") else None


# Dynamo's runtime images name the release they hold: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0
# (a mirror's copy too: .../aibrix/ai-dynamo-vllm-runtime:1.2.0)
_DYNAMO_IMAGE = lazy_compile(
    r"(?:^|/)(?:ai-dynamo-)?(vllm|sglang|trtllm|tensorrtllm)-runtime:v?(\d+\.\d+\.\d+)"
)


def dynamo_release(image: str | None) -> str | None:
    """The Dynamo release a runtime image's tag names; None for any other image or tag."""
    match = _DYNAMO_IMAGE.search(image or "")
    return match.group(2) if match else None


def dynamo_runtime(image: str | None) -> tuple[str, str] | None:
    """(engine, Dynamo release) of one of Dynamo's runtime images, by its name (`ai-dynamo/`
    or `ai-dynamo-` in it: another project's `vllm-runtime` is not one) and a release tag
    (`nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0`, `-cuda13` or `.post1` after it; not a
    pre-release or a dev build, `0.8.0rc1`, `0.8.0.dev20251201`, which may hold another
    engine release: h86 F7, F8); None for any other image or tag."""
    text = image or ""
    match = _DYNAMO_IMAGE.search(text)
    if match is None or "ai-dynamo" not in text[: match.start(1)]:
        return None
    if not _RELEASE_REST.fullmatch(text[match.end(2) :].split("@", 1)[0]):
        return None
    engine = "trtllm" if match.group(1) == "tensorrtllm" else match.group(1)
    return engine, match.group(2)


# what may follow a release's number in a runtime image's tag: a post release, a platform
_RELEASE_REST = lazy_compile(
    r"(?:\.post\d+)?(?:-(?!rc|dev|pre|alpha|beta|nightly)[A-Za-z0-9._]+)?", re.I
)
