"""A command written in the PR → its handler → one answer posted where it was asked.

The event planner (github/event.py) has parsed the command; here it is checked and answered:

1. a reply in a review thread counts only in one of reviewbot's threads (the thread's first
   comment is a sealed finding of reviewbot's, read from the PR's memory); in anyone else's
   thread it is conversation, and nothing is posted;
2. who may use the command (`commands/table.py`, `[ask] who` for `/ask`) is asked through the
   permission API; an account that may not gets one line and no model request;
3. the handler answers; the answer is posted once (a thread reply, else a PR comment).

A handler is `CommandHandler = Callable[[Asked], Answer]`: it gets the command, the PR, the base
branch's config, the PR's memory and the run's clients in `Asked`, and returns the markdown to
post. Every untrusted part of it (model text, PR text) must already be made inert with
`asked.inert` (publish/inert.py, the sanitiser of everything reviewbot posts).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from reviewbot.agent.messages import ModelClient
from reviewbot.agent.progress import Progress
from reviewbot.commands.grammar import Command, Place, Unknown, Verb, Written
from reviewbot.commands.table import WHO_TEXT, Who, markdown_table, unknown_line, who_may
from reviewbot.config.file import ReviewConfig
from reviewbot.config.settings import Settings
from reviewbot.github.reader import PullRequestInfo
from reviewbot.github.rest import GitHubClient, repo_path
from reviewbot.memory.postings import PriorNode
from reviewbot.memory.read import Memory
from reviewbot.publish.inert import Inert, RepoLinks
from reviewbot.results.plan import FixPlan, SplitProposal
from reviewbot.sources.comments import Where

NOT_YET = "`/{verb}` is not available yet in this version of reviewbot."


@dataclass(frozen=True, slots=True, kw_only=True)
class Asked:
    """One command to answer, and everything a handler may use."""

    command: Command
    client: GitHubClient
    info: PullRequestInfo
    config: ReviewConfig  # the base branch's
    memory: Memory
    settings: Settings
    web_url: str  # the GitHub host's web root (`https://github.com`, a GHE host)
    model: Callable[[], AbstractContextManager[ModelClient | None]]
    progress: Progress
    thread: PriorNode | None = None  # a reply in a finding's thread: that finding

    @property
    def inert(self) -> Inert:
        """The sanitiser of this answer: links may point into the PR's own repository."""
        links = RepoLinks(web_url=self.web_url, repo=self.info.ref.full_name)
        return Inert(redactor=self.settings.redactor, links=links)


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """What a handler answers: markdown to post, its untrusted parts already inert."""

    body: str
    notes: tuple[str, ...] = ()
    proposal: FixPlan | SplitProposal | None = None  # /plan's, /split's: for the JSON report


CommandHandler = Callable[[Asked], Answer]


@dataclass(frozen=True, slots=True, kw_only=True)
class Answered:
    """How answering a command ended: what was posted (None: nothing), and why."""

    reason: str
    posted: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    proposal: FixPlan | SplitProposal | None = None


def not_yet(asked: Asked) -> Answer:
    """The answer of a command this version knows but does not carry out yet."""
    return Answer(body=NOT_YET.format(verb=asked.command.verb.value))


def help_answer(asked: Asked) -> Answer:
    return Answer(body="**reviewbot's commands**\n\n" + markdown_table())


@dataclass(frozen=True, slots=True, kw_only=True)
class Dispatcher:
    """The handlers by verb; who may use each is the command table's rule (`who_may`), `/ask`'s
    the base branch's `[ask] who`."""

    handlers: dict[Verb, CommandHandler]
    ask_who: Who = Who.AUTHOR_AND_WRITERS
    answer_unknown: bool = True  # `[commands] answer_unknown`

    def answer(
        self,
        parsed: Command | Unknown,
        make: Callable[[Command, PriorNode | None], Asked],
        poster: Poster,
        is_writer: Callable[[str], bool],
    ) -> Answered:
        """Answer `parsed` once, where it was written, unless it does not count."""
        written = parsed.written
        if written.author.casefold() == poster.bot_login.casefold():
            return Answered(reason="a command in reviewbot's own comment is text, not a command")
        thread = _thread_of(poster.memory, written.thread_root)
        if written.place is Place.THREAD_REPLY and thread is None:
            return Answered(reason="a reply in a thread that is not one of reviewbot's findings")
        if poster.answered(written):
            return Answered(reason=f"comment {written.comment_id} was answered already")
        if isinstance(parsed, Unknown) and not self.answer_unknown:
            return Answered(
                reason=f"{parsed.word} by {written.author} is not a reviewbot command: "
                "not answered ([commands] answer_unknown = false)"
            )
        if isinstance(parsed, Unknown):
            why = (
                f"{parsed.word} by {written.author} is not a command: answered with the known ones"
            )
            return poster.post(written, Answer(body=unknown_line(parsed.word)), why)
        verb = f"/{parsed.verb.value}"
        where = "in its thread" if thread is not None else "in a PR comment"
        who = who_may(parsed.verb, configured=self.ask_who)
        whom = not_for(who, written.author, poster.pr_author, is_writer)
        if whom is not None:
            line = f"`{verb}` is for {whom}; nothing was run."
            why = f"{verb} by {written.author} refused: it is for {whom}"
            return poster.post(written, Answer(body=line), why)
        handler = self.handlers.get(parsed.verb, not_yet)
        answered = f"{verb} by {written.author} answered {where}"
        return poster.post(written, handler(make(parsed, thread)), answered)


def _thread_of(memory: Memory, root: int | None) -> PriorNode | None:
    if root is None:
        return None
    return next(
        (p for p in memory.prior.nodes if p.where is Where.INLINE and p.comment_id == root), None
    )


def not_for(
    who: Who, login: str, pr_author: str | None, is_writer: Callable[[str], bool]
) -> str | None:
    """None when `login` may use a command for `who`; else whom it is for, in words."""
    if who is Who.ANYONE:
        return None
    is_author = pr_author is not None and login.casefold() == pr_author.casefold()
    if who is Who.AUTHOR_AND_WRITERS and is_author:
        return None
    if who is Who.DECIDERS and is_author:
        return WHO_TEXT[who]
    return None if is_writer(login) else WHO_TEXT[who]


@dataclass(frozen=True, slots=True, kw_only=True)
class Poster:
    """Posts answers on one PR, each once: the marker names the comment it answers."""

    client: GitHubClient
    repo: str
    number: int
    bot_login: str
    pr_author: str | None
    memory: Memory

    def post(self, written: Written, answer: Answer, reason: str) -> Answered:
        """A reply in the thread it was asked in, else a PR comment; never twice."""
        body = f"{answer.body}\n\n{_marker(written)}"
        self.client.write_once(
            self._path(written), {"body": body}, find=lambda: self._find(written)
        )
        return Answered(reason=reason, posted=body, notes=answer.notes, proposal=answer.proposal)

    def answered(self, written: Written) -> bool:
        """A webhook delivered again (or a re-run job) finds its answer already posted."""
        return self._find(written) is not None

    def _path(self, written: Written) -> str:
        if written.place is Place.THREAD_REPLY and written.thread_root is not None:
            root = written.thread_root
            return repo_path(self.repo, "pulls", self.number, "comments", root, "replies")
        return repo_path(self.repo, "issues", self.number, "comments")

    def _find(self, written: Written) -> Any | None:
        kind = "pulls" if written.place is Place.THREAD_REPLY else "issues"
        marker = _marker(written)
        for comment in self.client.pages(repo_path(self.repo, kind, self.number, "comments")):
            login = ((comment.get("user") or {}).get("login") or "").casefold()
            if login == self.bot_login.casefold() and marker in (comment.get("body") or ""):
                return comment
        return None


def _marker(written: Written) -> str:
    return f"<!-- reviewbot:answer {written.comment_id} -->"
