"""The repository's docs name only files that exist.

Every path a doc names in backticks (`reviewbot/github/reader.py`, `memory/prior.py`,
`cli.py`, `tests/e2e/`) and every relative link must exist: in the repository, inside
`reviewbot/` for a path named relative to the package, or (a bare file name such as
`release.yml`) anywhere in the tree. An example that does not exist yet is
written in italics, not as a path. Globs (`prompts/*.j2`) and paths under a placeholder are
not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "CONTRIBUTING.md", "docs/ARCHITECTURE.md")
# Where a bare file name (`cli.py`, `release.yml`) is a path too; the README's prose also
# names files of a reviewed PR (`auth.py`), so there only names with a folder are paths.
BARE_NAMES_ARE_PATHS = ("CONTRIBUTING.md", "docs/ARCHITECTURE.md")
_SUFFIXES = (".py", ".md", ".j2", ".toml", ".yml", ".yaml", ".json", ".txt", ".in", ".ambr")
_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_PATH = re.compile(r"^\.?[\w.-]+(?:/[\w.-]+)*/?$")
# Backticked names that are not paths of this tree: a GitHub organisation and a repository
# name the README spells.
EXTERNAL = frozenset({"ai-code-review-evaluation/", "acme/shop/"})


def named_paths(text: str, *, bare: bool = True) -> set[str]:
    """The paths a markdown text names: backticked path-like spans and relative links
    outside code spans; `bare`: also file names without a folder."""
    found = set()
    for span in _SPAN.findall(text):
        word = span.strip().rstrip(".,:;")
        if not _PATH.match(word) or word.startswith(("-", ".reviewbot")):
            continue
        if not bare and "/" not in word.rstrip("/"):
            continue
        if word.endswith("/") or (
            word.endswith(_SUFFIXES) and ("/" in word or word.count(".") == 1)
        ):
            found.add(word)
    for link in _LINK.findall(_SPAN.sub("", text)):
        if "://" not in link and not link.startswith(("#", "mailto:")):
            found.add(link.split("#", 1)[0])
    return {p for p in found if p and "*" not in p}


def exists(path: str, root: Path, here: Path) -> bool:
    """At the root, in the package or beside the doc; a bare file name anywhere in the tree."""
    if any((base / path).exists() for base in (root, root / "reviewbot", here)):
        return True
    bare = "/" not in path.rstrip("/")
    return bare and any(p.is_file() for p in root.rglob(path) if ".venv" not in p.parts)


def missing(doc: Path, root: Path, *, bare: bool = True) -> list[str]:
    paths = named_paths(doc.read_text(encoding="utf-8"), bare=bare) - EXTERNAL
    return sorted(path for path in paths if not exists(path, root, doc.parent))


class TestDocsNameWhatExists:
    @pytest.mark.parametrize("doc", DOCS)
    def test_every_path_a_doc_names_exists(self, doc):
        """Every backticked path and relative link in the doc is a file or folder of the tree."""
        assert missing(ROOT / doc, ROOT, bare=doc in BARE_NAMES_ARE_PATHS) == []


class TestTheCheckCanFail:
    def test_a_stale_path_and_a_broken_link_are_found(self, tmp_path):
        """A moved module named in backticks and a link to a missing doc are both reported."""
        (tmp_path / "reviewbot" / "memory").mkdir(parents=True)
        (tmp_path / "reviewbot" / "memory" / "prior.py").write_text("")
        doc = tmp_path / "GUIDE.md"
        doc.write_text(
            "Read `memory/prior.py`, not `publish/prior.py`; see [the map](docs/MAP.md),\n"
            "*reviewbot/gitlab/* (an example), `prompts/*.j2`, `--format json`, `auth.py`\n"
            "and `![a](…/blob/<sha>/a.png)` (a code span, not a link).\n"
        )
        assert missing(doc, tmp_path) == ["auth.py", "docs/MAP.md", "publish/prior.py"]
        assert missing(doc, tmp_path, bare=False) == ["docs/MAP.md", "publish/prior.py"]
