"""The version the build backend gives reviewbot (pyproject.toml, `[tool.hatch.version]`).

git's version as hatch-vcs computes it (setuptools-scm: the tag `vX.Y.Z`, a later commit
`X.Y.(Z+1).devN+gSHA`, an sdist its PKG-INFO), with one correction: a `git archive` of a
commit no tag reaches — how GitHub serves a `uses: …@<sha>` Action, and how a tarball of a
fork is fetched — comes out as a bare `0.0` (setuptools-scm's answer when `describe-name` is
empty), which names no commit. There the archive's `node` (its commit, written by git's
export-subst into .git_archival.txt) becomes the local part: `0.0+g1a2b3c4d5e6f`.
"""

from __future__ import annotations

import os
import re

from setuptools_scm import get_version

ROOT = os.path.dirname(os.path.abspath(__file__))
FALLBACK = "0.0.0"  # no git, no archival data, no PKG-INFO: still builds


def _archived_commit() -> str | None:
    """The commit an unpacked `git archive` was made from; None in a clone or an sdist."""
    if os.path.exists(os.path.join(ROOT, ".git")):
        return None
    try:
        with open(os.path.join(ROOT, ".git_archival.txt"), encoding="utf-8") as archival:
            text = archival.read()
    except OSError:
        return None
    found = re.search(r"^node:\s*([0-9a-f]{40})\s*$", text, re.M)
    return found.group(1) if found else None


def _version() -> str:
    version: str = get_version(root=ROOT, fallback_version=FALLBACK)
    commit = _archived_commit()
    if version == "0.0" and commit is not None:
        return f"0.0+g{commit[:12]}"
    return version


__version__ = _version()
