"""The fake credentials every test world runs reviewbot with, in the real formats.

A GitHub Actions token (`ghs_` and 36 characters) and an Anthropic API key
(`sk-ant-api03-…`), plus an unrelated secret a workflow might also have in its
environment (`DEPLOY_PASSWORD`): none may ever leave a run. Built by concatenation,
so no token-looking literal sits in the source.
"""

from __future__ import annotations

GITHUB_TOKEN = "ghs_" + "Z" * 36
ANTHROPIC_KEY = "sk-ant-" + "api03-" + "K" * 40
OTHER_SECRET = "hunter2-" + "Q" * 24
SECRETS = (GITHUB_TOKEN, ANTHROPIC_KEY, OTHER_SECRET)
# Each secret by the name of the variable that holds it (a report names these, never values).
SECRET_NAMES = {
    GITHUB_TOKEN: "GITHUB_TOKEN",
    ANTHROPIC_KEY: "ANTHROPIC_API_KEY",
    OTHER_SECRET: "DEPLOY_PASSWORD",
}
