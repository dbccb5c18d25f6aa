"""Release readiness: the version comes from git tags, the Action's lock covers every dependency,
and one URL names the repository everywhere.

The build and install themselves run in .ci/run (sdist, wheel, `twine check`, a hash-checked
install of the lock and the wheel into a throwaway venv); these tests check the mechanisms
offline, through the build backend's own PEP 517 hook.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

import reviewbot
from reviewbot.output import sarif

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "action.txt"
EXTRAS = ("bedrock", "vertex")  # the providers' extras: action.yml picks action-<extra>.txt
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT_FILES = (
    "pyproject.toml",
    "README.md",
    ".git_archival.txt",
    ".gitattributes",
    "version_from_git.py",
)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PATH": "/usr/bin:/bin",
}
# The build backend's metadata hook, as pip and `build` call it, in a fresh interpreter.
HOOK = """
import sys, hatchling.build as backend
print(backend.prepare_metadata_for_build_wheel(sys.argv[1]))
"""


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _project(tmp_path: Path) -> Path:
    """A git repository holding reviewbot's packaging files and an empty package."""
    repo = tmp_path / "repo"
    (repo / "reviewbot").mkdir(parents=True)
    (repo / "reviewbot" / "__init__.py").write_text("", encoding="utf-8")
    for name in PROJECT_FILES:
        shutil.copy(ROOT / name, repo / name)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first")
    return repo


def _built_version(source: Path, tmp_path: Path) -> str:
    out = tmp_path / f"meta-{source.name}"
    out.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", HOOK, str(out)],
        cwd=source,
        env={**GIT_ENV, "PYTHONPATH": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    metadata = out / done.stdout.strip().splitlines()[-1] / "METADATA"
    version: str = Parser().parsestr(metadata.read_text(encoding="utf-8"))["Version"]
    return version


def _archive(repo: Path, tmp_path: Path) -> Path:
    """`git archive` of HEAD, unpacked: what GitHub serves for a pinned Action's commit."""
    tar = tmp_path / "archive.tar"
    _git(repo, "archive", "--format=tar", "--prefix=archive/", "-o", str(tar), "HEAD")
    with tarfile.open(tar) as archive:
        archive.extractall(tmp_path, filter="data")
    return tmp_path / "archive"


class TestVersionFromGit:
    def test_a_release_tag_is_the_version(self, tmp_path):
        repo = _project(tmp_path)
        _git(repo, "tag", "v1.2.3")
        assert _built_version(repo, tmp_path) == "1.2.3"

    def test_a_commit_after_the_tag_is_a_dev_version_of_the_next_patch(self, tmp_path):
        repo = _project(tmp_path)
        _git(repo, "tag", "v1.2.3")
        _git(repo, "commit", "-q", "--allow-empty", "-m", "second")
        version = Version(_built_version(repo, tmp_path))
        assert (version.base_version, version.dev) == ("1.2.4", 1)
        assert version.local is not None
        assert version.local.startswith("g" + _git(repo, "rev-parse", "--short=7", "HEAD"))

    def test_a_clone_without_tags_still_builds_with_a_dev_version(self, tmp_path):
        repo = _project(tmp_path)
        version = Version(_built_version(repo, tmp_path))
        assert version.is_devrelease
        assert version.local is not None
        assert version.local.startswith("g")

    def test_a_git_archive_of_a_tagged_commit_knows_its_version(self, tmp_path):
        """No .git: the archive's export-subst .git_archival.txt carries the tag."""
        repo = _project(tmp_path)
        _git(repo, "tag", "v2.0.0")
        archive = _archive(repo, tmp_path)
        assert not (archive / ".git").exists()
        assert "$Format" not in (archive / ".git_archival.txt").read_text(encoding="utf-8")
        assert _built_version(archive, tmp_path) == "2.0.0"

    def test_a_git_archive_of_an_untagged_commit_names_that_commit(self, tmp_path):
        """How a `uses: …@<sha>` Action is fetched: not a bare `0.0`, the commit it was."""
        repo = _project(tmp_path)
        archive = _archive(repo, tmp_path)
        version = Version(_built_version(archive, tmp_path))
        assert version.local == "g" + _git(repo, "rev-parse", "HEAD")[:12]
        assert str(version) != "0.0"

    def test_a_git_archive_after_a_tag_is_a_dev_version_of_that_commit(self, tmp_path):
        repo = _project(tmp_path)
        _git(repo, "tag", "v2.0.0")
        _git(repo, "commit", "-q", "--allow-empty", "-m", "second")
        version = Version(_built_version(_archive(repo, tmp_path), tmp_path))
        assert (version.base_version, version.dev) == ("2.0.1", 1)
        assert version.local is not None
        assert version.local.startswith("g" + _git(repo, "rev-parse", "--short=7", "HEAD"))

    def test_a_source_tree_without_git_or_archival_data_falls_back(self, tmp_path):
        repo = _project(tmp_path)
        archive = _archive(repo, tmp_path)
        (archive / ".git_archival.txt").unlink()
        assert _built_version(archive, tmp_path) == "0.0.0"


def _lock(path: Path = LOCK) -> dict[str, tuple[Version, list[str]]]:
    """The lock's pins: name → (version, hashes), one entry per requirement line."""
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    pins: dict[str, tuple[Version, list[str]]] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        spec, *options = re.split(r"\s+--", line)
        requirement = Requirement(spec)
        (pinned,) = requirement.specifier
        assert pinned.operator == "==", f"{spec}: a lock pins one version"
        hashes = [o.removeprefix("hash=") for o in options if o.startswith("hash=sha256:")]
        pins[canonicalize_name(requirement.name)] = (Version(pinned.version), hashes)
    return pins


class TestActionLock:
    def test_every_pin_carries_hashes(self):
        """`pip install --require-hashes` refuses a lock with an unhashed line; so does this."""
        pins = _lock()
        assert pins
        assert all(hashes for _, hashes in pins.values()), [
            n for n, (_, h) in pins.items() if not h
        ]

    @pytest.mark.parametrize(
        "requirement",
        [*PYPROJECT["project"]["dependencies"], *PYPROJECT["build-system"]["requires"]],
    )
    def test_covers_each_runtime_and_build_dependency(self, requirement):
        """A dependency added to or tightened in pyproject.toml without re-locking fails here."""
        wanted = Requirement(requirement)
        pins = _lock()
        name = canonicalize_name(wanted.name)
        assert name in pins, f"{name} is missing from {LOCK.relative_to(ROOT)}: re-lock"
        version, _ = pins[name]
        assert wanted.specifier.contains(version, prereleases=True), (
            f"{LOCK.relative_to(ROOT)} pins {name}=={version}, outside {wanted.specifier}: re-lock"
        )

    @pytest.mark.parametrize("extra", EXTRAS)
    def test_each_providers_lock_adds_its_extra_to_the_same_pins(self, extra):
        """action-<extra>.txt pins what action.txt pins, the same versions, plus the extra's
        own dependencies (their names as the installed anthropic declares them)."""
        base, locked = _lock(), _lock(LOCK.with_name(f"action-{extra}.txt"))
        assert {n: v for n, (v, _) in base.items()} == {
            n: v for n, (v, _) in locked.items() if n in base
        }
        (wanted,) = PYPROJECT["project"]["optional-dependencies"][extra]
        requirement = Requirement(wanted)
        needed = {
            canonicalize_name(Requirement(r).name)
            for r in metadata.requires(requirement.name) or []
            for x in requirement.extras
            if Requirement(r).marker is not None and Requirement(r).marker.evaluate({"extra": x})
        }
        assert needed
        assert needed <= set(locked), sorted(needed - set(locked))
        assert all(hashes for _, hashes in locked.values())

    def test_the_action_installs_the_lock_hash_checked_and_reviewbot_without_deps(self):
        action = (ROOT / "action.yml").read_text(encoding="utf-8")
        assert "--require-hashes" in action
        assert "requirements/action$suffix.txt" in action
        assert re.search(r"--no-deps --no-build-isolation \"\$GITHUB_ACTION_PATH\"", action)

    @pytest.mark.parametrize(
        ("provider", "lock"),
        [
            ("", "action.txt"),
            ("anthropic", "action.txt"),
            ("bedrock", "action-bedrock.txt"),
            ("Bedrock", "action-bedrock.txt"),  # reviewbot lower-cases REVIEWBOT_PROVIDER too
            ("VERTEX", "action-vertex.txt"),
            ("azure", "action.txt"),  # reviewbot itself then refuses it with one line
        ],
    )
    def test_the_lock_follows_the_provider_input(self, tmp_path, provider, lock):
        """The step that picks the lock, run as the runner runs it (bash, its env)."""
        action = (ROOT / "action.yml").read_text(encoding="utf-8")
        step = action.split("- name: Key reviewbot's install cache", 1)[1]
        script = re.search(r"\n      run: \|\n((?:        .*\n)+)", step)
        assert script, "the lock step has no run script"
        out = tmp_path / "output"
        env = {"PROVIDER": provider, "GITHUB_ACTION_PATH": str(ROOT), "GITHUB_OUTPUT": str(out)}
        subprocess.run(["bash", "-euo", "pipefail", "-c", script[1]], env=env, check=True)
        chosen = Path(out.read_text(encoding="utf-8").splitlines()[0].removeprefix("path="))
        assert chosen == ROOT / "requirements" / lock
        assert chosen.is_file()


class TestRepositoryUrl:
    def test_pyproject_and_the_package_name_the_same_repository(self):
        assert PYPROJECT["project"]["urls"]["Repository"] == reviewbot.REPOSITORY_URL

    def test_sarif_points_at_it(self):
        assert sarif.INFORMATION_URI == reviewbot.REPOSITORY_URL

    def test_the_docs_and_examples_name_the_same_repository(self):
        """Replacing the placeholder in one place and not another fails here."""
        owner_repo = reviewbot.REPOSITORY_URL.removeprefix("https://github.com/")
        texts = [ROOT / "README.md", *sorted((ROOT / "examples" / "workflows").glob("*.yml"))]
        named = {
            m
            for path in texts
            for m in re.findall(
                r"(?:github\.com/|githubusercontent\.com/|uses:\s*)([\w.-]+/reviewbot)\b",
                path.read_text(encoding="utf-8"),
            )
        }
        assert named == {owner_repo}, json.dumps(sorted(named))
