"""Missing or malformed settings: one line on stderr and exit 2, before anything listens."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.serve.world import free_port, get


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"REVIEWBOT_APP_ID": None}, "needs REVIEWBOT_APP_ID"),
        ({"REVIEWBOT_APP_ID": "app"}, "REVIEWBOT_APP_ID must be a positive whole number"),
        ({"REVIEWBOT_APP_PRIVATE_KEY": None}, "REVIEWBOT_APP_PRIVATE_KEY or _FILE"),
        ({"REVIEWBOT_APP_PRIVATE_KEY": "not a key"}, "not a PEM private key"),
        (
            {
                "REVIEWBOT_APP_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----"
            },
            "cannot sign a JWT",
        ),
        (
            {
                "REVIEWBOT_APP_PRIVATE_KEY": None,
                "REVIEWBOT_APP_PRIVATE_KEY_FILE": "/nonexistent/app.pem",
            },
            "cannot read",
        ),
        ({"REVIEWBOT_WEBHOOK_SECRET": None}, "needs REVIEWBOT_WEBHOOK_SECRET"),
        ({"REVIEWBOT_QUEUE_URL": "redis://localhost"}, "must be a postgresql:// URL"),
        ({"REVIEWBOT_MAX_BODY": "0"}, "REVIEWBOT_MAX_BODY must be a positive whole number"),
        ({"GITHUB_TOKEN": "ghp_" + "x" * 36}, "unset GITHUB_TOKEN"),
    ],
)
def test_a_bad_setting_is_one_line_and_exit_2(module_world, change, expected):
    env = module_world.env()
    for name, value in change.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    port = free_port()
    done = subprocess.run(
        [sys.executable, "-m", "reviewbot", "serve", "--port", str(port)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert expected in lines[0]
    assert "AAAA" not in done.stderr  # no key material in the message
    assert module_world.app.private_pem.splitlines()[1] not in done.stderr
    assert get(f"http://127.0.0.1:{port}/healthz")[0] == 0  # nothing listened


def test_the_private_key_file_is_read(module_world, tmp_path):
    pem = tmp_path / "app.pem"
    pem.write_text(module_world.app.private_pem, encoding="utf-8")
    env = module_world.env(REVIEWBOT_APP_PRIVATE_KEY_FILE=str(pem), REVIEWBOT_WEBHOOK_SECRET="")
    del env["REVIEWBOT_APP_PRIVATE_KEY"]
    done = subprocess.run(
        [sys.executable, "-m", "reviewbot", "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # The key was accepted: the next missing setting is what stops it.
    assert done.returncode == 2, done.stderr
    assert "REVIEWBOT_WEBHOOK_SECRET" in done.stderr
