"""reviewbot: a pull-request review bot that drives Claude as a read-only review agent.

`__version__` is read from the installed package's metadata when first asked for:
importing `importlib.metadata` costs about as much as click itself, and `--help`
or a usage error never needs it (bench/bench_startup.py).
"""

from __future__ import annotations

from functools import cache

# Where reviewbot lives: SARIF's informationUri and the docs point here. It must equal
# pyproject.toml's [project.urls] Repository (tests/test_packaging.py); `your-org` is a
# placeholder until the repository exists, and the release workflow refuses to publish it.
REPOSITORY_URL = "https://github.com/your-org/reviewbot"


@cache
def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("reviewbot")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+source"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return _version()
    raise AttributeError(f"module 'reviewbot' has no attribute {name!r}")
