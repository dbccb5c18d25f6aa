"""ask_user: an interactive operator answers; with no operator the tool fails closed at once."""

from __future__ import annotations

import io

import pytest

from reviewbot.tools.ask_user import EMPTY_ANSWER, NO_OPERATOR, NoOperator, TerminalOperator
from tests.tools.factories import build_repo, make_session


@pytest.fixture
def repo(tmp_path):
    return build_repo(tmp_path)


class TestInteractive:
    def test_the_operator_answer_reaches_the_model(self, repo):
        """The question is written to the terminal and the typed line comes back."""
        output = io.StringIO()
        operator = TerminalOperator(input=io.StringIO("yes, it is intended\n"), output=output)
        result = make_session(repo, operator=operator).call(
            "ask_user", {"question": "Is run() meant to use a shell?"}
        )
        assert not result.is_error
        assert result.content == 'the operator answered: "yes, it is intended"'
        assert "The reviewer asks: Is run() meant to use a shell?" in output.getvalue()

    @pytest.mark.parametrize(
        ("question", "shown"),
        [
            ("Copy?\x1b]52;c;ZXZpbA==\x07", "Copy?⟨U+001B⟩]52;c;ZXZpbA==⟨U+0007⟩"),
            ("Sure?\x9b2J", "Sure?⟨U+009B⟩2J"),
            ("Fine?\rApprove all", "Fine?⟨U+000D⟩Approve all"),
        ],
        ids=["osc52-clipboard", "c1-csi", "carriage-return"],
    )
    def test_control_characters_in_the_question_are_shown_not_sent(self, repo, question, shown):
        """The model's question reaches the terminal with every control character made visible."""
        output = io.StringIO()
        operator = TerminalOperator(input=io.StringIO("no\n"), output=output)
        make_session(repo, operator=operator).call("ask_user", {"question": question})
        written = output.getvalue()
        assert f"The reviewer asks: {shown}\n" in written
        assert not any((ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F for c in written)

    def test_an_empty_answer_tells_the_model_to_decide(self, repo):
        """Pressing enter without text is not an answer."""
        operator = TerminalOperator(input=io.StringIO("\n"), output=io.StringIO())
        result = make_session(repo, operator=operator).call("ask_user", {"question": "Why?"})
        assert result.content == EMPTY_ANSWER

    def test_end_of_input_fails_closed(self, repo):
        """A closed stdin is treated like no operator, never as a hang."""
        operator = TerminalOperator(input=io.StringIO(""), output=io.StringIO())
        result = make_session(repo, operator=operator).call("ask_user", {"question": "Why?"})
        assert result.content == NO_OPERATOR


class TestNoOperator:
    def test_fails_closed_with_the_fixed_answer(self, repo):
        """With nobody connected the tool answers at once, telling the model to decide."""
        result = make_session(repo, operator=NoOperator()).call("ask_user", {"question": "Why?"})
        assert not result.is_error
        assert not result.ends_run
        assert result.content == (
            "no operator is connected; decide, and record the open point as a `question` node"
        )

    def test_an_empty_question_is_refused(self, repo):
        """A question must have text."""
        result = make_session(repo).call("ask_user", {"question": ""})
        assert result.is_error
        assert result.content == (
            "invalid input for `ask_user`: question: String should have at least 1 character"
        )
