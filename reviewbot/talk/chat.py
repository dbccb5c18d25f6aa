"""`/ask`: a chat-mode agent answers a question about the PR head, quoting the code it read.

The agent runs in chat mode (modes/profile.py): read tools and `ask_user` only, no review
verbs, so it cannot add, confirm or dismiss a finding or move the verdict; the guard refuses
any other tool it names. The question is untrusted data in its context, never an instruction.
In a finding's thread the finding and its lines are part of the context.

Its answer cites code as `[[path#L3-L7]]`; a cite counts only for lines a read tool showed the
agent whole in this conversation (or the thread's finding's lines), and is replaced by a
numbered reference, the lines themselves quoted below the answer from the checkout of the
head commit, with a link to them there. Everything from the model or the PR goes through the
sanitiser (`Asked.inert`); the footer says what the answer cost.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from reviewbot.agent.loop import Limits, LoopResult, ToolLoop
from reviewbot.agent.messages import ModelClient
from reviewbot.agent.prompt import system_prompt
from reviewbot.coverage.seen import HeadViews
from reviewbot.github.forge import GitHubReader
from reviewbot.github.gather import gathered
from reviewbot.modes.mode import Mode
from reviewbot.modes.profile import Role
from reviewbot.nodes.model import Anchor, ReviewNode
from reviewbot.publish.inert import fence
from reviewbot.publish.placement import LinkBuilder
from reviewbot.redact import Redactor
from reviewbot.render import render
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.talk.dispatch import Answer, Asked
from reviewbot.text import hygiene
from reviewbot.text.truncate import clip, numbered
from reviewbot.tools.ask_user import NoOperator
from reviewbot.tools.paths import normalise
from reviewbot.tools.session import NodeStore, ReviewSession, Workspace

AGENT = "ask"
MAX_QUOTES = 6  # code quotes under one answer
MAX_QUOTE_LINES = 20  # lines of one quote (a longer cite is cut, and says so)
MAX_THREAD_LINES = 40  # lines of the thread's finding shown to the agent
_CITE = re.compile(r"\[\[([^\[\]\n#]{1,300})#L(\d{1,7})(?:-L?(\d{1,7}))?\]\]")
NO_MODEL = "reviewbot cannot answer here: no model is configured for this run (no API key)."


@dataclass(frozen=True, slots=True, kw_only=True)
class _Quote:
    path: str
    start: int
    end: int
    lines: tuple[str, ...]


def ask(asked: Asked) -> Answer:
    """The `/ask` handler: one chat agent, within `[ask] budget`, on a checkout of the head."""
    reader = GitHubReader(client=asked.client, info=asked.info, run_id=asked.settings.run_id)
    with asked.model() as client:
        if client is None:
            return Answer(body=NO_MODEL)
        with gathered(reader, asked.config, asked.settings, asked.memory) as (snapshot, _):
            result, views = _converse(asked, client, snapshot)
            return Answer(body=_body(asked, snapshot, result, views))


def _converse(
    asked: Asked, client: ModelClient, snapshot: PRSnapshot
) -> tuple[LoopResult, HeadViews]:
    workspace = Workspace(
        checkout=snapshot.checkout, head_sha=snapshot.head_sha, diff=snapshot.diff
    )
    session = ReviewSession(
        mode=Mode.CHAT,
        role=Role.REVIEWER,
        agent=AGENT,
        workspace=workspace,
        store=NodeStore(),
        operator=NoOperator(),  # nobody answers `ask_user` in a comment thread
    )
    loop = ToolLoop(
        agent=AGENT,
        model=asked.config.model,
        client=client,
        toolbox=session,
        limits=Limits.of(asked.config.ask.budget, started=time.monotonic()),
        redactor=asked.settings.redactor,
        progress=asked.progress,
    )
    brief = render("prompts/ask.j2", thread=asked.thread is not None)
    result = loop.run(system=system_prompt(session), context=_context(asked, snapshot), brief=brief)
    views = session.views
    anchor = asked.thread.node.anchor if asked.thread is not None else None
    if anchor is not None and anchor.side == "RIGHT":  # the finding's lines were shown in context
        path = normalise(anchor.path)
        views.show(path, _thread_range(anchor), total=views.lengths.get(path, 0))
    return result, views


def _context(asked: Asked, snapshot: PRSnapshot) -> str:
    """The PR, the thread's finding and the question: all of it untrusted data."""
    redact = asked.settings.redactor
    files = "\n".join(hygiene.quoted(d.path) for d in snapshot.diff)
    parts = [
        f"# The pull request\n\n#{asked.info.ref.number} at head {snapshot.head_sha}",
        hygiene.wrap(snapshot.title, kind="pr_title", redactor=redact),
        hygiene.wrap(files, kind="changed_files", redactor=redact, markdown=False),
    ]
    if asked.thread is not None:
        parts.append(_finding(asked.thread.node, snapshot.checkout, redact))
    question = asked.command.text or "(no question was written)"
    parts.append("# The question")
    parts.append(
        hygiene.wrap(question, kind="question", label=asked.command.written.author, redactor=redact)
    )
    return "\n\n".join(parts)


def _finding(node: ReviewNode, checkout: Path, redact: Redactor) -> str:
    said = f"{node.kind.value} {node.priority.value} · {node.status.value}\n{node.title}\n\n{node.body}"
    out = [
        "# The finding this thread is about",
        hygiene.wrap(said, kind="finding", redactor=redact),
    ]
    anchor = node.anchor
    if anchor is not None and anchor.side == "RIGHT":
        lines = _lines(checkout, anchor.path, _thread_range(anchor))
        shown = "\n".join(numbered(n, clip(text)) for n, text in lines)
        out.append(
            hygiene.wrap(shown, kind="file", label=anchor.path, redactor=redact, markdown=False)
        )
    return "\n\n".join(out)


def _thread_range(anchor: Anchor) -> range:
    end = min(anchor.end_line, anchor.start_line + MAX_THREAD_LINES - 1)
    return range(anchor.start_line, end + 1)


def _lines(checkout: Path, path: str, wanted: range) -> list[tuple[int, str]]:
    """Lines of `path` in the checkout, by number; nothing for a path outside it."""
    root = checkout.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        return []
    text = target.read_text(encoding="utf-8", errors="replace").splitlines()
    return [(n, text[n - 1]) for n in wanted if 0 < n <= len(text)]


def _body(asked: Asked, snapshot: PRSnapshot, result: LoopResult, views: HeadViews) -> str:
    inert = asked.inert
    quotes: list[_Quote] = []

    def cite(match: re.Match[str]) -> str:
        quote = _quote(match, views, snapshot.checkout)
        if quote is None or len(quotes) >= MAX_QUOTES:
            return "(code not quoted: not read in this conversation)"
        quotes.append(quote)
        return f"({len(quotes)})"

    text = _CITE.sub(cite, result.answer).strip()
    head = f"**reviewbot** · `/ask` from {inert.code(asked.command.written.author)}"
    parts = [head, "> " + inert.line(asked.command.text[:300] or "(no question)")]
    if result.stop_reason.completed and text:
        parts.append(inert.block(text))
    else:
        parts.append(
            f"No answer: the agent stopped ({inert.line(result.error or result.stop_reason.value)})."
        )
    link = LinkBuilder(
        web_url=asked.web_url, repo=asked.info.ref.full_name, head_sha=snapshot.head_sha
    )
    for number, quote in enumerate(quotes, start=1):
        anchor = Anchor(path=quote.path, start_line=quote.start, end_line=quote.end, quote="")
        span = f"L{quote.start}" + (f"–L{quote.end}" if quote.end != quote.start else "")
        parts.append(f"({number}) [{inert.code(quote.path)} {span}]({link(anchor)})")
        code = "\n".join(quote.lines)
        mark = fence(code)
        parts.append(inert.block(f"{mark}\n{code}\n{mark}"))  # re-fenced, redacted, no marker
    parts.append(_footer(result, snapshot.head_sha))
    return "\n\n".join(parts)


def _quote(match: re.Match[str], views: HeadViews, checkout: Path) -> _Quote | None:
    """The lines a cite names, if the agent was shown every one of them."""
    path, start = normalise(match.group(1).strip()), int(match.group(2))
    end = int(match.group(3) or start)
    if end < start:
        return None
    end = min(end, start + MAX_QUOTE_LINES - 1)
    if not views.saw(path, range(start, end + 1)):
        return None
    lines = _lines(checkout, path, range(start, end + 1))
    if not lines:
        return None
    return _Quote(path=path, start=start, end=lines[-1][0], lines=tuple(t for _, t in lines))


def _footer(result: LoopResult, head_sha: str) -> str:
    u = result.usage
    return (
        f"<sub>chat mode: read-only, no review verbs · head `{head_sha[:12]}` · "
        f"{u.requests} model request(s) · {u.total_input_tokens:,} input tokens · "
        f"{u.output_tokens:,} output tokens · ${u.cost_usd:.4f}</sub>"
    )
