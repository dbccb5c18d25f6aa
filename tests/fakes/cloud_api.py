"""The fake Messages API behind Amazon Bedrock's and Google Vertex AI's endpoints.

The clouds serve the same Messages body with three differences the SDK's clients make
(anthropic/lib/bedrock/_client.py, anthropic/lib/vertex/_client.py):

    Bedrock  POST /model/{model id}/invoke, SigV4-signed (`Authorization: AWS4-HMAC-SHA256
             Credential=KEY/DATE/REGION/bedrock/aws4_request, …`), body
             `anthropic_version: bedrock-2023-05-31`; errors are `{"message": …}` with an
             `x-amzn-ErrorType` header (403 UnrecognizedClientException for a bad key)
    Vertex   POST /projects/{p}/locations/{r}/publishers/anthropic/models/{m}:rawPredict,
             `Authorization: Bearer TOKEN`, body `anthropic_version: vertex-2023-10-16`;
             errors are Google's `{"error": {"code", "message", "status"}}`

Neither body has a `model` field: the model is in the path. The handler checks all of that,
records each call (`CloudCall`), puts the path's model into the body and answers with the
`FakeMessagesAPI` (streaming endpoints are not served: reviewbot does not stream).
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.messages_api import FakeMessagesAPI
from tests.fakes.server import Request, Response

BEDROCK_VERSION = "bedrock-2023-05-31"
VERTEX_VERSION = "vertex-2023-10-16"
_BEDROCK_PATH = re.compile(r"^/model/(?P<model>[^/]+)/invoke$")
_VERTEX_PATH = re.compile(
    r"^/projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)"
    r"/publishers/anthropic/models/(?P<model>[^/:]+):rawPredict$"
)
_SIGV4 = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/\d{8}/(?P<region>[^/]+)/bedrock/aws4_request, "
    r"SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class CloudCall:
    path: str
    model: str
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass(slots=True, kw_only=True)
class FakeBedrock:
    """Bedrock runtime in one region, accepting one AWS access key (and session token)."""

    api: FakeMessagesAPI
    access_key: str
    region: str
    session_token: str | None = None
    calls: list[CloudCall] = field(default_factory=list)

    def __call__(self, request: Request) -> Response:
        path = urllib.parse.unquote(request.path)
        match = _BEDROCK_PATH.match(path)
        if request.method != "POST" or match is None:
            return _aws_error(404, "ResourceNotFoundException", f"no such operation: {path}")
        signed = _SIGV4.match(request.headers.get("authorization", ""))
        token = request.headers.get("x-amz-security-token")
        if signed is None or signed["key"] != self.access_key or token != self.session_token:
            message = "The security token included in the request is invalid."
            return _aws_error(403, "UnrecognizedClientException", message)
        if signed["region"] != self.region:
            return _aws_error(
                403, "InvalidSignatureException", "Credential should be scoped to a valid region."
            )
        return _answer(self.api, self.calls, request, path, match["model"], BEDROCK_VERSION)


@dataclass(slots=True, kw_only=True)
class FakeVertex:
    """Vertex AI's Anthropic publisher for one project and region, accepting one token."""

    api: FakeMessagesAPI
    access_token: str
    project: str
    region: str
    calls: list[CloudCall] = field(default_factory=list)

    def __call__(self, request: Request) -> Response:
        path = urllib.parse.unquote(request.path)
        match = _VERTEX_PATH.match(path)
        if request.method != "POST" or match is None:
            return _google_error(404, "NOT_FOUND", f"no such method: {path}")
        if request.headers.get("authorization") != f"Bearer {self.access_token}":
            message = "Request had invalid authentication credentials."
            return _google_error(401, "UNAUTHENTICATED", message)
        if (match["project"], match["region"]) != (self.project, self.region):
            return _google_error(403, "PERMISSION_DENIED", "Permission denied on resource project.")
        return _answer(self.api, self.calls, request, path, match["model"], VERTEX_VERSION)


def _answer(
    api: FakeMessagesAPI,
    calls: list[CloudCall],
    request: Request,
    path: str,
    model: str,
    version: str,
) -> Response:
    body = request.json()
    calls.append(CloudCall(path=path, model=model, body=body, headers=dict(request.headers)))
    if body.get("anthropic_version") != version or "model" in body:
        problem = f"body must carry anthropic_version {version!r} and no model"
        api.problems.append(problem)
        return Response.json(400, {"message": problem})
    status, headers, payload = api.handle({**body, "model": model}, request.headers)
    return Response.json(status, payload, {k: v for k, v in headers.items() if k != "request-id"})


def _aws_error(status: int, kind: str, message: str) -> Response:
    return Response.json(
        status,
        {"message": message},
        {"x-amzn-ErrorType": f"{kind}:http://internal.amazon.com/coral/com.amazon.coral.service/"},
    )


def _google_error(status: int, kind: str, message: str) -> Response:
    return Response.json(status, {"error": {"code": status, "message": message, "status": kind}})
