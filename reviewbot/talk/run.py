"""The entry of a command's run: the handlers of this version, and the run's collaborators.

`answer_command` is what the composition root (app.py) calls for an `ANSWER` event plan; the
handler table is here, so another verb's handler is one line in `HANDLERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

from reviewbot.agent.messages import ModelClient
from reviewbot.agent.progress import Progress
from reviewbot.commands.grammar import Command, Unknown, Verb
from reviewbot.commands.table import Who
from reviewbot.config.file import ReviewConfig
from reviewbot.config.settings import Settings
from reviewbot.github.forge import GitHubReader
from reviewbot.github.reader import PullRequestInfo
from reviewbot.github.rest import GitHubClient
from reviewbot.memory.postings import PriorNode
from reviewbot.memory.prior import Trust
from reviewbot.memory.read import read_memory
from reviewbot.memory.seal import Sealer
from reviewbot.publish.placement import web_url_of
from reviewbot.talk import proposals
from reviewbot.talk.chat import ask
from reviewbot.talk.dispatch import (
    Answered,
    Asked,
    CommandHandler,
    Dispatcher,
    Poster,
    help_answer,
)

HANDLERS: dict[Verb, CommandHandler] = {
    Verb.HELP: help_answer,
    Verb.PLAN: proposals.plan,
    Verb.SPLIT: proposals.split,
    Verb.ASK: ask,
}


class Connection(Protocol):
    """The run's GitHub connection, as the composition root holds it (app.GitHub)."""

    @property
    def client(self) -> GitHubClient: ...

    @property
    def login(self) -> str: ...

    def is_writer(self, repo: str, login: str) -> bool: ...


class CommandJob(Protocol):
    """What of the CLI's job a command's run uses."""

    @property
    def progress(self) -> Progress: ...


def answer_command(
    parsed: Command | Unknown,
    github: Connection,
    info: PullRequestInfo,
    config: ReviewConfig,
    settings: Settings,
    model: Callable[[], ModelClient | None],
    job: CommandJob,
) -> Answered:
    """Answer one command on the PR (or say why it needs no answer)."""
    repo = info.ref.full_name
    secret = settings.seal_secret
    trust = Trust(
        bot_login=github.login,
        sealer=Sealer.of(secret, repo=repo, number=info.ref.number) if secret else None,
        pr_author=info.author,
        is_writer=lambda login: github.is_writer(repo, login),
    )
    reader = GitHubReader(client=github.client, info=info, run_id=settings.run_id)
    memory = read_memory(reader.comments(), trust)
    poster = Poster(
        client=github.client,
        repo=repo,
        number=info.ref.number,
        bot_login=github.login,
        pr_author=info.author,
        memory=memory,
    )

    def make(command: Command, thread: PriorNode | None) -> Asked:
        return Asked(
            command=command,
            client=github.client,
            info=info,
            config=config,
            memory=memory,
            settings=settings,
            web_url=web_url_of(info.ref.html_url),
            model=lambda: _closing(model),
            progress=job.progress,
            thread=thread,
        )

    dispatcher = Dispatcher(
        handlers=HANDLERS,
        ask_who=Who(config.ask.who),
        answer_unknown=config.commands.answer_unknown,
    )
    return dispatcher.answer(parsed, make, poster, trust.is_writer)


@contextmanager
def _closing(make: Callable[[], ModelClient | None]) -> Iterator[ModelClient | None]:
    client = make()
    try:
        yield client
    finally:
        if client is not None:
            client.close()
