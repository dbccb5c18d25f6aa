"""The GitHub App endpoints of the loopback GitHub: `GET /app` and installation tokens.

A `FakeApp` holds the App's RSA key pair (the test hands the private PEM to reviewbot, the
fake keeps the public key), its installations, and the tokens it issued. Requests to
`/app/...` must carry the App's JWT (`Authorization: Bearer`), checked as GitHub does:
RS256 signed by the App's key, `iss` the App id, `exp` in the future and at most ten
minutes after `iat`. `POST /app/installations/{id}/access_tokens` answers 201 with GitHub's
shape (`token` ghs_…, `expires_at`, `permissions`, `repository_selection`), and every other
route of the fake then accepts that token until it expires.

    app = FakeApp(app_id=4242, slug="reviewbot-test", installations={77: ("octo",)})
    github = FakeGitHub(login=app.bot_login, user_endpoint=False, app=app)
"""

from __future__ import annotations

import datetime as dt
import itertools
import secrets
import string
import threading
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.fakes.server import Request, Response

TOKEN_LIFETIME = dt.timedelta(hours=1)  # GitHub's installation tokens last one hour
JWT_MAX_LIFETIME = 600 + 60  # ten minutes, and a minute of clock drift
PERMISSIONS = {
    "contents": "read",
    "pull_requests": "write",
    "checks": "write",
    "issues": "write",
    "metadata": "read",
}
_DOCS = "https://docs.github.com/rest/apps/apps"
_ALPHABET = string.ascii_letters + string.digits


def new_private_key() -> rsa.RSAPrivateKey:
    # 2048 bits as GitHub issues; public exponent 65537.
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem_of(key: rsa.RSAPrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,  # what GitHub's download is: RSA PRIVATE KEY
        serialization.NoEncryption(),
    ).decode("ascii")


@dataclass(slots=True)
class FakeApp:
    app_id: int = 4242
    slug: str = "reviewbot-test"
    installations: dict[int, tuple[str, ...]] = field(default_factory=lambda: {77: ("octo",)})
    key: rsa.RSAPrivateKey = field(default_factory=new_private_key)
    now: Any = field(default=lambda: dt.datetime.now(dt.UTC))
    lifetime: dt.timedelta = TOKEN_LIFETIME
    issued: dict[str, tuple[int, dt.datetime]] = field(default_factory=dict)  # token → (inst, exp)
    token_requests: list[int] = field(default_factory=list)
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def private_pem(self) -> str:
        return pem_of(self.key)

    @property
    def bot_login(self) -> str:
        return f"{self.slug}[bot]"

    def accepts(self, token: str) -> bool:
        """Whether `token` is an installation token this App issued and still valid."""
        found = self.issued.get(token)
        return found is not None and found[1] > self.now()

    def handles(self, request: Request) -> bool:
        return request.path == "/app" or request.path.startswith("/app/")

    def __call__(self, request: Request) -> Response:
        refused = self._check_jwt(request)
        if refused is not None:
            return refused
        if request.method == "GET" and request.path == "/app":
            return Response.json(200, self._app_json())
        parts = request.path.strip("/").split("/")
        if (
            request.method == "POST"
            and len(parts) == 4
            and parts[1] == "installations"
            and parts[3] == "access_tokens"
        ):
            return self._access_token(parts[2])
        return Response.json(
            404, {"message": "Not Found", "documentation_url": _DOCS, "status": "404"}
        )

    def _check_jwt(self, request: Request) -> Response | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return _unauthorized("A JSON web token could not be decoded")
        try:
            claims = jwt.decode(
                token,
                self.key.public_key(),
                algorithms=["RS256"],
                options={"require": ["iat", "exp", "iss"], "verify_iat": False},
                leeway=60,
            )
        except jwt.ExpiredSignatureError:
            return _unauthorized(
                "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
            )
        except jwt.InvalidTokenError:
            return _unauthorized("A JSON web token could not be decoded")
        if str(claims["iss"]) != str(self.app_id):
            return _unauthorized("'Issuer' claim ('iss') must be an Integer")
        if int(claims["exp"]) - int(claims["iat"]) > JWT_MAX_LIFETIME:
            return _unauthorized("'Expiration time' claim ('exp') is too far in the future")
        return None

    def _access_token(self, raw_id: str) -> Response:
        if not raw_id.isdigit() or int(raw_id) not in self.installations:
            return Response.json(
                404, {"message": "Not Found", "documentation_url": _DOCS, "status": "404"}
            )
        installation = int(raw_id)
        with self._lock:
            token = "ghs_" + "".join(secrets.choice(_ALPHABET) for _ in range(36))
            expires = (self.now() + self.lifetime).replace(microsecond=0)
            self.issued[token] = (installation, expires)
            self.token_requests.append(installation)
        return Response.json(
            201,
            {
                "token": token,
                "expires_at": expires.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "permissions": dict(PERMISSIONS),
                "repository_selection": "all",
            },
        )

    def _app_json(self) -> dict[str, Any]:
        return {
            "id": self.app_id,
            "slug": self.slug,
            "node_id": f"A_kwDO{self.app_id:08d}",
            "client_id": f"Iv1.{self.app_id:016x}",
            "owner": {"login": "octo", "id": 1, "type": "Organization"},
            "name": self.slug.replace("-", " ").title(),
            "description": "",
            "external_url": "https://example.com",
            "html_url": f"https://github.com/apps/{self.slug}",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "permissions": dict(PERMISSIONS),
            "events": ["check_suite", "issue_comment", "pull_request"],
            "installations_count": len(self.installations),
        }


def _unauthorized(message: str) -> Response:
    return Response.json(401, {"message": message, "documentation_url": _DOCS, "status": "401"})
