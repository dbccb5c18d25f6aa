"""reviewbot: a pull-request review bot that drives Claude as a read-only review agent."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("reviewbot")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
