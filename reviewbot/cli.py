"""The command line: click commands that parse, call one function, map to an exit code.

No logic lives here beyond argument parsing and the last-resort error mapping:
a `ReviewbotError` prints its one-line message and exits with its code; any
other exception is a bug and says so (with the traceback only under --verbose).
"""

from __future__ import annotations

import sys

import click

from reviewbot import __version__
from reviewbot.report import schema_json


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reviewbot")
def cli() -> None:
    """Review GitHub pull requests with Claude as a read-only agent.

    \b
    Examples:
      reviewbot review https://github.com/octo/app/pull/42
      reviewbot review --local --base main
      reviewbot schema > report.schema.json
    """


@cli.command()
def schema() -> None:
    """Print the JSON Schema of the `--format json` report.

    \b
    Example:
      reviewbot schema > report.schema.json
    """
    click.echo(schema_json())


@cli.command()
def version() -> None:
    """Print reviewbot's version.

    \b
    Example:
      reviewbot version
    """
    click.echo(__version__)


def main() -> None:
    """Console-script entry point."""
    sys.exit(cli.main(standalone_mode=True))
