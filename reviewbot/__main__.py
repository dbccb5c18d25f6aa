"""`python -m reviewbot`: the same as the `reviewbot` console script."""

from reviewbot.cli import main

main()
