"""The GitHub read adapter against `responses` fakes with real GitHub response shapes."""

from __future__ import annotations

import base64
import copy
import json
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses
from responses import matchers

from reviewbot.config.file import ReviewConfig
from reviewbot.errors import (
    AuthError,
    ConfigError,
    GitHubAPIError,
    NetworkError,
    NotFoundError,
    UsageError,
)
from reviewbot.github.client import make_client
from reviewbot.github.reader import (
    fetch_base_config,
    fetch_ci_checks,
    fetch_pull_request,
    fetch_snapshot,
)
from reviewbot.sources.ci import CheckKind, CheckStatus
from reviewbot.sources.diff_index import FileStatus
from reviewbot.sources.pr_ref import PRRef, parse_pr_url
from reviewbot.sources.snapshot import Origin, PRComment

DATA = Path(__file__).resolve().parents[1] / "data" / "github-webhooks"
API = "https://api.github.com"
REPO = "Codertocat/Hello-World"
REPO_ID = 186853002  # in the Link headers GitHub writes /repositories/{id}/…
BASE_SHA = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
HEAD_SHA = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
TOKEN = "ghs_s3cret"
EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
# The publisher's reads of the PR's comments, handed to the snapshot as they are.
COMMENTS = (
    PRComment(id=1, author="alice", body="Looks good"),
    PRComment(id=2, author="bob", body="why?", path="README.md", line=3, in_reply_to=9),
)


def payload(name: str) -> dict:
    return json.loads((DATA / f"{name}.payload.json").read_text(encoding="utf-8"))


def api(path: str) -> re.Pattern[str]:
    """PyGithub writes the default port into URLs; match with or without it, any query."""
    return re.compile(re.escape(API) + r"(?::443)?" + re.escape(path) + r"(?:\?.*)?$")


def pull_json(**changes) -> dict:
    pull = copy.deepcopy(payload("pull_request.opened")["pull_request"])
    pull.update(changes)
    return pull


def file_json(name: str, **changes) -> dict:
    entry = {
        "sha": "bbcd538c8e72b8c175046e27cc8f907076331401",
        "filename": name,
        "status": "modified",
        "additions": 1,
        "deletions": 1,
        "changes": 2,
        "blob_url": f"https://github.com/{REPO}/blob/{HEAD_SHA}/{name}",
        "raw_url": f"https://github.com/{REPO}/raw/{HEAD_SHA}/{name}",
        "contents_url": f"{API}/repos/{REPO}/contents/{name}?ref={HEAD_SHA}",
        "patch": "@@ -1 +1 @@\n-old\n+new",
    }
    entry.update(changes)
    return {k: v for k, v in entry.items() if v is not None}


def paginated(items: list, *, path: str, key: str | None = None, seen: list[int] | None = None):
    """A callback serving `items` 100 per page with GitHub's `Link` header."""

    def callback(request):
        query = parse_qs(urlsplit(request.url).query)
        page = int(query.get("page", ["1"])[0])
        per_page = int(query["per_page"][0])
        if seen is not None:
            seen.append(page)
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        link = f"{API}/repositories/{REPO_ID}{path}?per_page={per_page}&page="
        links = []
        if page < last:
            links = [f'<{link}{page + 1}>; rel="next"', f'<{link}{last}>; rel="last"']
        body = {"total_count": len(items), key: chunk} if key else chunk
        headers = {"Link": ", ".join(links)} if links else {}
        return 200, headers, json.dumps(body)

    return callback


def serve_list(rsps, path: str, items: list, *, key: str | None = None, seen=None) -> None:
    for prefix in (f"/repos/{REPO}", f"/repositories/{REPO_ID}"):
        rsps.add_callback(
            responses.GET,
            api(prefix + path),
            callback=paginated(items, path=path, key=key, seen=seen),
            content_type="application/json",
        )


@pytest.fixture
def gh():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield rsps


@pytest.fixture
def client():
    return make_client(API, TOKEN, backoff=0, retries=2)


@pytest.fixture
def ref() -> PRRef:
    return parse_pr_url(f"https://github.com/{REPO}/pull/2")


def serve_pull(gh, pull: dict | None = None) -> None:
    gh.add(responses.GET, api(f"/repos/{REPO}/pulls/2"), json=pull or pull_json())


def serve_everything(gh, *, files: list, pull: dict | None = None, pages=None):
    """What `fetch_snapshot` reads: the PR, its files and its commits (nothing else is served)."""
    serve_pull(gh, pull)
    serve_list(gh, "/pulls/2/files", files, seen=pages)
    serve_list(gh, "/pulls/2/commits", [commit_json()])


def snapshot_of(client, ref, checkout):
    return fetch_snapshot(
        client,
        fetch_pull_request(client, ref),
        checkout=checkout,
        config=ReviewConfig(),
        comments=COMMENTS,
    )


def serve_config(gh, config: str | None) -> None:
    if config is None:
        gh.add(
            responses.GET,
            api(f"/repos/{REPO}/contents/.reviewbot.toml"),
            status=404,
            json={"message": "Not Found", "documentation_url": "https://docs.github.com/rest"},
        )
    else:
        gh.add(
            responses.GET, api(f"/repos/{REPO}/contents/.reviewbot.toml"), json=content_json(config)
        )


def commit_json() -> dict:
    return {
        "sha": HEAD_SHA,
        "url": f"{API}/repos/{REPO}/commits/{HEAD_SHA}",
        "commit": {
            "message": "Update README\n\nMore emoji.",
            "author": {
                "name": "Codertocat",
                "email": "c@example.com",
                "date": "2019-05-15T15:20:30Z",
            },
            "committer": {
                "name": "GitHub",
                "email": "noreply@github.com",
                "date": "2019-05-15T15:20:30Z",
            },
        },
        "author": None,
        "parents": [{"sha": BASE_SHA}],
    }


def content_json(text: str) -> dict:
    return {
        "type": "file",
        "encoding": "base64",
        "size": len(text),
        "name": ".reviewbot.toml",
        "path": ".reviewbot.toml",
        "content": base64.b64encode(text.encode()).decode(),
        "sha": "3d21ec53a331a6f037a91c368710b99387d012c1",
        "url": f"{API}/repos/{REPO}/contents/.reviewbot.toml?ref={BASE_SHA}",
    }


class TestParsePrUrl:
    @pytest.mark.parametrize(
        ("url", "host", "repo", "number", "api_url"),
        [
            ("https://github.com/o/r/pull/5", "github.com", "r", 5, API),
            ("https://github.com/o/r/pull/5/", "github.com", "r", 5, API),
            ("https://github.com/o/r/pull/5/files", "github.com", "r", 5, API),
            ("https://github.com/o/r/pull/5/commits/0a1b2c", "github.com", "r", 5, API),
            ("https://github.com/o/r/pull/5/checks?check_run_id=9", "github.com", "r", 5, API),
            ("https://github.com/o/r/pull/5#discussion_r1", "github.com", "r", 5, API),
            ("  https://www.github.com/o/r.js/pull/5  ", "github.com", "r.js", 5, API),
            (
                "https://ghe.corp.example/o/r/pull/5",
                "ghe.corp.example",
                "r",
                5,
                "https://ghe.corp.example/api/v3",
            ),
            (
                "https://GHE.corp.example:8443/o/r/pull/5",
                "ghe.corp.example",
                "r",
                5,
                "https://ghe.corp.example:8443/api/v3",
            ),
        ],
        ids=[
            "plain",
            "slash",
            "files",
            "commits",
            "checks",
            "fragment",
            "www-and-dot",
            "ghe",
            "ghe-port",
        ],
    )
    def test_valid_urls(self, url, host, repo, number, api_url):
        """PR URLs with tails, queries, fragments and GHE hosts parse to one PRRef (a GHE host
        with its GITHUB_API_URL: the token never goes to a host the URL alone names)."""
        ref = parse_pr_url(url, api_url=None if host == "github.com" else api_url)
        assert (ref.host, ref.owner, ref.repo, ref.number, ref.api_url) == (
            host,
            "o",
            repo,
            number,
            api_url,
        )
        assert ref.html_url.endswith(f"/o/{repo}/pull/{number}")
        assert str(ref) == f"o/{repo}#{number}"

    def test_api_url_override(self):
        """GITHUB_API_URL (passed in) wins over the host's default, without a trailing slash."""
        ref = parse_pr_url(
            "https://github.com/o/r/pull/1",
            api_url="http://127.0.0.1:8080/api/",
            server_url="https://github.com",
        )
        assert ref.api_url == "http://127.0.0.1:8080/api"
        assert ref.html_url == "https://github.com/o/r/pull/1"

    @pytest.mark.parametrize(
        "url",
        [
            "github.com/o/r/pull/1",
            "https://github.com/o/r/issues/1",
            "https://github.com/o/r/pull/abc",
            "https://github.com/o/r/pull/0",
            "https://github.com/o/pull/1",
            "ftp://github.com/o/r/pull/1",
            "https://github.com/o/r/pull/1/blame",
            "https://github.com/-o/r/pull/1",
            "",
            "https://github.com/o/r/pull/1\nrm -rf /",
        ],
        ids=[
            "no-scheme",
            "issue",
            "not-a-number",
            "zero",
            "no-repo",
            "ftp",
            "bad-tail",
            "bad-owner",
            "empty",
            "newline",
        ],
    )
    def test_malformed_urls(self, url):
        """A malformed URL is a one-line UsageError naming the expected form."""
        with pytest.raises(UsageError) as caught:
            parse_pr_url(url)
        message = str(caught.value)
        assert (
            message
            == f"not a pull request URL: {url!r} — expected https://github.com/OWNER/REPO/pull/NUMBER"
        )
        assert "\n" not in message


class TestClient:
    def test_construction_makes_no_request(self, gh):
        """Building the client costs no request."""
        make_client(API, TOKEN)
        assert len(gh.calls) == 0

    def test_token_is_sent(self, gh, client, ref):
        """The token travels in the Authorization header."""
        serve_pull(gh)
        fetch_pull_request(client, ref)
        assert gh.calls[0].request.headers["Authorization"] == f"token {TOKEN}"

    def test_no_token_no_header(self, gh, ref):
        """Without a token (public repositories) no Authorization header is sent."""
        serve_pull(gh)
        fetch_pull_request(make_client(API, None, pace_seconds=0), ref)
        assert "Authorization" not in gh.calls[0].request.headers

    def test_secondary_rate_limit_is_retried_after_retry_after(self, gh, client, ref):
        """A 403 secondary rate limit with Retry-After is waited out and retried."""
        gh.add(
            responses.GET,
            api(f"/repos/{REPO}/pulls/2"),
            status=403,
            headers={"Retry-After": "0"},
            json={
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
            },
        )
        serve_pull(gh)
        assert fetch_pull_request(client, ref).title == "Update the README with new information."
        assert len(gh.calls) == 2

    def test_server_errors_are_retried(self, gh, client, ref):
        """A 502 is retried; the next answer is used."""
        gh.add(
            responses.GET,
            api(f"/repos/{REPO}/pulls/2"),
            status=502,
            json={"message": "Server Error"},
        )
        serve_pull(gh)
        assert fetch_pull_request(client, ref).head_sha == HEAD_SHA
        assert [c.response.status_code for c in gh.calls] == [502, 200]

    def test_persistent_server_errors_are_a_network_error(self, gh, client, ref):
        """When retries run out the error is a one-line NetworkError."""
        gh.add(
            responses.GET,
            api(f"/repos/{REPO}/pulls/2"),
            status=503,
            json={"message": "Unavailable"},
        )
        with pytest.raises(
            NetworkError,
            match=r"^GitHub at https://api.github.com could not be reached or kept failing: ",
        ) as caught:
            fetch_pull_request(client, ref)
        assert "\n" not in str(caught.value)
        assert len(gh.calls) == 3  # the first try and two retries


class TestErrors:
    def test_not_found_names_the_fix(self, gh, client, ref):
        """404 (missing, or private without a token) says what to check."""
        gh.add(
            responses.GET, api(f"/repos/{REPO}/pulls/2"), status=404, json={"message": "Not Found"}
        )
        with pytest.raises(NotFoundError) as caught:
            fetch_pull_request(client, ref)
        assert str(caught.value) == (
            "pull request Codertocat/Hello-World#2 not found — check the URL, or set GITHUB_TOKEN for a private repository"
        )

    def test_bad_token(self, gh, client, ref):
        """401 is an AuthError naming GITHUB_TOKEN."""
        gh.add(
            responses.GET,
            api(f"/repos/{REPO}/pulls/2"),
            status=401,
            json={"message": "Bad credentials"},
        )
        with pytest.raises(AuthError) as caught:
            fetch_pull_request(client, ref)
        assert str(caught.value) == "GitHub rejected the token — check GITHUB_TOKEN"

    def test_forbidden(self, gh, client, ref):
        """A 403 that is not a rate limit is an AuthError quoting GitHub and the needed access."""
        gh.add(
            responses.GET,
            api(f"/repos/{REPO}/pulls/2"),
            status=403,
            json={"message": "Resource not accessible by integration"},
        )
        with pytest.raises(
            AuthError,
            match=r"^GitHub refused access \(Resource not accessible by integration\) — the token needs read access",
        ):
            fetch_pull_request(client, ref)
        assert len(gh.calls) == 1  # not a rate limit: not retried

    def test_rate_limit_past_the_wait_cap(self, gh, client, ref):
        """A primary rate limit resetting in an hour is reported, not slept through."""
        gh.add(
            responses.GET,
            api(f"/repos/{REPO}/pulls/2"),
            status=403,
            headers={
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": str(int(time.time()) + 3600),
            },
            json={"message": "API rate limit exceeded for installation ID 1."},
        )
        with pytest.raises(
            GitHubAPIError, match=r"^GitHub rate limit exceeded \(API rate limit exceeded"
        ):
            fetch_pull_request(client, ref)

    def test_connection_error(self, gh, client, ref):
        """An unreachable API is a NetworkError naming the API URL."""
        gh.add(
            responses.GET, api(f"/repos/{REPO}/pulls/2"), body=requests.ConnectionError("refused")
        )
        with pytest.raises(
            NetworkError, match=r"^GitHub at https://api.github.com could not be reached"
        ):
            fetch_pull_request(client, ref)

    def test_other_status(self, gh, client, ref):
        """Another error status is a GitHubAPIError with GitHub's message."""
        gh.add(
            responses.GET,
            api(f"/repos/{REPO}/pulls/2"),
            status=422,
            json={"message": "Validation Failed"},
        )
        with pytest.raises(GitHubAPIError) as caught:
            fetch_pull_request(client, ref)
        assert str(caught.value) == "GitHub answered 422: Validation Failed"


class TestFetchPullRequest:
    def test_metadata_from_a_real_pr_object(self, gh, client, ref):
        """Title, body, author, refs, SHAs and the clone URL come from GET /pulls/{n}."""
        serve_pull(gh)
        info = fetch_pull_request(client, ref)
        assert (info.title, info.author, info.base_ref, info.head_ref) == (
            "Update the README with new information.",
            "Codertocat",
            "master",
            "changes",
        )
        assert (info.base_sha, info.head_sha) == (BASE_SHA, HEAD_SHA)
        assert info.body == "This is a pretty simple change that we need to pull into master."
        assert (info.draft, info.fork, info.state, info.changed_files) == (False, False, "open", 1)
        assert info.clone_url == "https://github.com/Codertocat/Hello-World.git"
        assert [c.request.method for c in gh.calls] == ["GET"]

    def test_fork(self, gh, client, ref):
        """A head repository other than the base repository is a fork PR."""
        pull = pull_json()
        pull["head"]["repo"]["full_name"] = "someone/Hello-World"
        serve_pull(gh, pull)
        info = fetch_pull_request(client, ref)
        assert (info.fork, info.head_repo) == (True, "someone/Hello-World")
        assert info.clone_url == "https://github.com/Codertocat/Hello-World.git"

    def test_deleted_fork_and_null_body(self, gh, client, ref):
        """A deleted fork (head.repo null) is still a fork; a null body is empty text."""
        pull = pull_json(body=None, draft=True)
        pull["head"]["repo"] = None
        serve_pull(gh, pull)
        info = fetch_pull_request(client, ref)
        assert (info.fork, info.head_repo, info.body, info.draft) == (True, None, "", True)


class TestFetchSnapshot:
    def test_snapshot_fields(self, gh, client, ref, tmp_path):
        """The snapshot carries metadata, files, comments, commits, config and the checkout."""
        serve_everything(gh, files=[file_json("README.md")])
        info = fetch_pull_request(client, ref)
        config = ReviewConfig.model_validate({"budget": {"max_turns": 9}})
        snap = fetch_snapshot(client, info, checkout=tmp_path, config=config, comments=COMMENTS)
        assert (snap.origin, snap.url, snap.repo, snap.number) == (
            Origin.GITHUB,
            "https://github.com/Codertocat/Hello-World/pull/2",
            REPO,
            2,
        )
        assert (snap.head_sha, snap.base_sha, snap.checkout) == (HEAD_SHA, BASE_SHA, tmp_path)
        assert (snap.config, snap.comments) == (config, COMMENTS)
        assert [(c.sha, c.author) for c in snap.commits] == [(HEAD_SHA, "Codertocat")]
        assert snap.diff.files["README.md"].commentable("RIGHT") == {1}

    def test_reads_only_the_pr_its_files_and_commits(self, gh, client, ref, tmp_path):
        """Comments and config come from the caller: no comment listing, no contents read."""
        serve_everything(gh, files=[file_json("README.md")])
        snapshot_of(client, ref, tmp_path)
        paths = [urlsplit(c.request.url).path for c in gh.calls]
        assert paths == [
            f"/repos/{REPO}/pulls/2",
            f"/repos/{REPO}/pulls/2/files",
            f"/repos/{REPO}/pulls/2/commits",
        ]

    def test_a_listing_of_another_head_is_replaced_by_the_compare_of_the_reviewed_sha(
        self, gh, client, ref, tmp_path
    ):
        """Files listed for a newer head (a push) are dropped; the compare API pinned to SHAs lists."""
        newer = "f" * 40
        pushed = file_json(
            "LATER.md", contents_url=f"{API}/repos/{REPO}/contents/LATER.md?ref={newer}"
        )
        serve_everything(gh, files=[pushed])
        compare = f"/repos/{REPO}/compare/{BASE_SHA}...{HEAD_SHA}"
        gh.add(
            responses.GET,
            api(compare),
            json={
                "files": [file_json("README.md")],
                "commits": [commit_json()],
                "total_commits": 1,
            },
        )
        snap = snapshot_of(client, ref, tmp_path)
        assert list(snap.diff.files) == ["README.md"]
        assert [c.sha for c in snap.commits] == [HEAD_SHA]
        assert urlsplit(gh.calls[-1].request.url).path == compare

    def test_commits_pushed_after_the_listing_are_left_out(self, gh, client, ref, tmp_path):
        """The commits listing answers later than the files: commits after the head are not shown."""
        later = {**commit_json(), "sha": "e" * 40, "parents": [{"sha": HEAD_SHA}]}
        serve_pull(gh)
        serve_list(gh, "/pulls/2/files", [file_json("README.md")])
        serve_list(gh, "/pulls/2/commits", [commit_json(), later])
        snap = snapshot_of(client, ref, tmp_path)
        assert [c.sha for c in snap.commits] == [HEAD_SHA]
        assert not [c for c in gh.calls if "/compare/" in c.request.url]

    def test_a_removed_file_does_not_name_the_head(self, gh, client, ref, tmp_path):
        """A removed file's URLs may name another commit: only the head's files are asked."""
        removed = file_json(
            "gone.md",
            status="removed",
            contents_url=f"{API}/repos/{REPO}/contents/gone.md?ref={BASE_SHA}",
        )
        serve_everything(gh, files=[removed, file_json("README.md")])
        snap = snapshot_of(client, ref, tmp_path)
        assert sorted(snap.diff.files) == ["README.md", "gone.md"]
        assert not [c for c in gh.calls if "/compare/" in c.request.url]

    def test_pagination_follows_link_headers(self, gh, client, ref, tmp_path):
        """250 files arrive over three pages of 100, following GitHub's `Link` header."""
        files = [file_json(f"src/f{i:03}.py") for i in range(250)]
        pages: list[int] = []
        serve_everything(gh, files=files, pull=pull_json(changed_files=250), pages=pages)
        snap = snapshot_of(client, ref, tmp_path)
        assert pages == [1, 2, 3]
        assert len(snap.diff) == 250
        assert (snap.diff.listing_truncated, snap.diff.total_files) == (False, 250)

    def test_more_than_3000_files_is_truncated(self, gh, client, ref, tmp_path):
        """GitHub lists 3,000 of 3,500 files: the index says so and keeps the real total."""
        files = [file_json(f"gen/f{i:04}.txt") for i in range(3000)]
        pages: list[int] = []
        serve_everything(gh, files=files, pull=pull_json(changed_files=3500), pages=pages)
        snap = snapshot_of(client, ref, tmp_path)
        assert pages == list(range(1, 31))
        assert (len(snap.diff), snap.diff.listing_truncated, snap.diff.total_files) == (
            3000,
            True,
            3500,
        )

    def test_file_kinds(self, gh, client, ref, tmp_path):
        """Too-large, renamed, mode-changed, submodule, removed, binary and empty files map right."""
        files = [
            file_json("big.sql", additions=40000, deletions=0, changes=40000, patch=None),
            file_json(
                "new.py",
                status="renamed",
                previous_filename="old.py",
                additions=0,
                deletions=0,
                changes=0,
                patch=None,
            ),
            file_json("run.sh", status="changed", additions=0, deletions=0, changes=0, patch=None),
            file_json(
                "vendor/lib",
                patch="@@ -1 +1 @@\n-Subproject commit "
                + "a" * 40
                + "\n+Subproject commit "
                + "b" * 40,
            ),
            file_json(
                "gone.txt",
                status="removed",
                additions=0,
                deletions=2,
                changes=2,
                patch="@@ -1,2 +0,0 @@\n-a\n-b",
            ),
            file_json("logo.png", additions=0, deletions=0, changes=0, patch=None),
            file_json(
                "pkg/__init__.py",
                status="added",
                sha=EMPTY_BLOB,
                additions=0,
                deletions=0,
                changes=0,
                patch=None,
            ),
        ]
        serve_everything(gh, files=files, pull=pull_json(changed_files=7))
        diff = snapshot_of(client, ref, tmp_path).diff
        big, renamed, mode = diff.files["big.sql"], diff.files["new.py"], diff.files["run.sh"]
        assert (big.patch_missing, big.additions, big.hunks) == (True, 40000, ())
        assert (renamed.status, renamed.old_path, renamed.patch_missing) == (
            FileStatus.RENAMED,
            "old.py",
            False,
        )
        assert (mode.status, mode.patch_missing) == (FileStatus.MODE_CHANGED, False)
        assert diff.files["vendor/lib"].submodule is True
        assert diff.files["gone.txt"].status is FileStatus.DELETED
        assert diff.files["gone.txt"].commentable("LEFT") == {1, 2}
        logo, empty = diff.files["logo.png"], diff.files["pkg/__init__.py"]
        assert (logo.binary, logo.patch_missing) == (True, False)
        # An empty added file has no patch and no lines: text, nothing missing (not binary).
        assert (empty.status, empty.binary, empty.patch_missing) == (FileStatus.ADDED, False, False)

    def test_never_asks_for_the_diff_media_type(self, gh, client, ref, tmp_path):
        """A PR too large for the diff media type (406) still reviews: only the files API is used."""
        gh.add(
            responses.GET,
            api(f"/repos/{REPO}/pulls/2"),
            status=406,
            match=[matchers.header_matcher({"Accept": "application/vnd.github.v3.diff"})],
            json={
                "message": "Sorry, the diff exceeded the maximum number of files (300). Consider using 'List pull requests files' API or locally cloning the repository instead.",
                "errors": [{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
                "documentation_url": "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files",
            },
        )
        files = [file_json(f"f{i}.c") for i in range(301)]
        serve_everything(gh, files=files, pull=pull_json(changed_files=301))
        snap = snapshot_of(client, ref, tmp_path)
        assert len(snap.diff) == 301
        assert all("diff" not in c.request.headers.get("Accept", "") for c in gh.calls)


class TestFetchBaseConfig:
    def test_config_comes_from_the_base_sha(self, gh, client, ref):
        """`.reviewbot.toml` is read at the base SHA, never at the head."""
        serve_pull(gh)
        serve_config(gh, "[budget]\nmax_turns = 9\n")
        config = fetch_base_config(client, fetch_pull_request(client, ref))
        assert config.budget.max_turns == 9
        [call] = [c for c in gh.calls if "/contents/" in c.request.url]
        assert parse_qs(urlsplit(call.request.url).query) == {"ref": [BASE_SHA]}

    def test_no_config_on_base_means_defaults(self, gh, client, ref):
        """A base branch without `.reviewbot.toml` (404) reviews with the defaults."""
        serve_pull(gh)
        serve_config(gh, None)
        assert fetch_base_config(client, fetch_pull_request(client, ref)) == ReviewConfig()

    def test_bad_config_on_base_names_branch_and_line(self, gh, client, ref):
        """A broken base config is a ConfigError naming the base branch and line."""
        serve_pull(gh)
        serve_config(gh, "[budget]\n\nmax_turns = -3\n")
        with pytest.raises(ConfigError) as caught:
            fetch_base_config(client, fetch_pull_request(client, ref))
        assert str(caught.value) == (
            "`.reviewbot.toml` (base branch master) line 3: budget.max_turns: Input should be greater than or equal to 1"
        )


class TestFetchCiChecks:
    def run_json(self, name: str, status: str, conclusion: str | None) -> dict:
        run = copy.deepcopy(payload("check_run.completed")["check_run"])
        run.update(name=name, status=status, conclusion=conclusion)
        return run

    def status_json(self, context: str, state: str, n: int) -> dict:
        return {
            "url": f"{API}/repos/{REPO}/statuses/{HEAD_SHA}",
            "id": n,
            "state": state,
            "description": "",
            "target_url": f"https://ci.example/{n}",
            "context": context,
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z",
        }

    def test_check_runs_and_latest_statuses(self, gh, client):
        """Check runs map their conclusion or status; statuses keep the newest per context."""
        runs = [
            self.run_json("Octocoders-linter", "completed", "success"),
            self.run_json("tests", "in_progress", None),
            self.run_json("deploy", "completed", "brand_new_conclusion"),
        ]
        statuses = [self.status_json("ci/jenkins", "failure", 3)]
        statuses += [self.status_json(f"ctx{i}", "success", 10 + i) for i in range(120)]
        statuses.append(self.status_json("ci/jenkins", "success", 1))  # older: superseded
        serve_list(gh, f"/commits/{HEAD_SHA}/check-runs", runs, key="check_runs")
        pages: list[int] = []
        serve_list(gh, f"/statuses/{HEAD_SHA}", statuses, seen=pages)
        checks = fetch_ci_checks(client, REPO, HEAD_SHA)
        by_name = {c.name: c for c in checks}
        assert by_name["Octocoders-linter"].status is CheckStatus.SUCCESS
        assert (
            by_name["Octocoders-linter"].url
            == "https://github.com/Codertocat/Hello-World/runs/128620228"
        )
        assert by_name["tests"].status is CheckStatus.IN_PROGRESS
        assert by_name["deploy"].status is CheckStatus.PENDING  # unknown is never success
        assert (by_name["ci/jenkins"].status, by_name["ci/jenkins"].kind) == (
            CheckStatus.FAILURE,
            CheckKind.STATUS,
        )
        assert len(checks) == 3 + 121
        assert pages == [1, 2]

    def test_missing_commit(self, gh, client):
        """A SHA GitHub does not know is a NotFoundError naming it."""
        gh.add(
            responses.GET,
            api(f"/repos/{REPO}/commits/{HEAD_SHA}/check-runs"),
            status=404,
            json={"message": "No commit found for SHA"},
        )
        with pytest.raises(NotFoundError, match=f"commit {HEAD_SHA} not found in {REPO}"):
            fetch_ci_checks(client, REPO, HEAD_SHA)
