"""Installation tokens: one per installation, reused while they have time left, renewed before
they expire; and the App auth against the fake's real endpoint shapes (JWT checked)."""

from __future__ import annotations

import datetime as dt

import pytest

from reviewbot.github.client import app_login, installation_token
from reviewbot.github.rest import RefusedAuth, RefusedNotFound
from reviewbot.serve.signature import sign, verify
from reviewbot.serve.tokens import RENEW_BEFORE, TokenCache
from tests.fakes.github_api import FakeGitHub
from tests.fakes.github_app import FakeApp
from tests.fakes.server import LoopbackServer

T0 = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


def test_a_token_is_reused_per_installation_and_renewed_before_it_expires():
    clock = [T0]
    fetched = []

    def fetch(installation):
        fetched.append(installation)
        return f"ghs_{installation}_{len(fetched)}", clock[0] + dt.timedelta(hours=1)

    cache = TokenCache(fetch=fetch, now=lambda: clock[0])
    assert cache.token(77) == "ghs_77_1"
    assert cache.token(78) == "ghs_78_2"
    clock[0] = T0 + dt.timedelta(hours=1) - RENEW_BEFORE - dt.timedelta(seconds=1)
    assert cache.token(77) == "ghs_77_1"  # still long enough for a review
    clock[0] += dt.timedelta(seconds=2)
    assert cache.token(77) == "ghs_77_3"  # renewed before it could expire mid-review
    assert fetched == [77, 78, 77]


def test_the_app_jwt_gets_an_installation_token_the_fake_then_accepts():
    app = FakeApp()
    github = FakeGitHub(login=app.bot_login, user_endpoint=False, app=app)
    with LoopbackServer(github) as server:
        assert app_login(server.url, app.app_id, app.private_pem) == "reviewbot-test[bot]"
        token, expires = installation_token(server.url, app.app_id, app.private_pem, 77)
        assert token.startswith("ghs_")
        assert app.accepts(token)
        assert dt.timedelta(minutes=59) < expires - dt.datetime.now(dt.UTC) <= dt.timedelta(hours=1)
        with pytest.raises(RefusedNotFound):
            installation_token(server.url, app.app_id, app.private_pem, 99)
        other = FakeApp(app_id=app.app_id)  # the same id, another key: GitHub refuses the JWT
        with pytest.raises(RefusedAuth):
            installation_token(server.url, app.app_id, other.private_pem, 77)


def test_signatures_verify_only_the_exact_body_and_secret():
    body = b'{"action": "opened"}'
    header = sign(b"secret", body)
    assert verify(b"secret", body, header)
    assert not verify(b"secret", body + b" ", header)
    assert not verify(b"other", body, header)
    assert not verify(b"secret", body, None)
    assert not verify(b"secret", body, header.upper())
    assert not verify(b"secret", body, "sha256=é")
