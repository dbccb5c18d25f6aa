"""Which deleted lines a fix only renamed names in (pure: two texts and the fix's hunks)."""

from __future__ import annotations

from reviewbot.eval.renames import renamed_lines
from reviewbot.sources.git_history import ZeroHunk


def renamed(old: str, new: str) -> set[int]:
    """The fix replaces the whole of `old` by `new` in one hunk."""
    hunk = ZeroHunk(tuple(enumerate(old.splitlines(), start=1)), tuple(new.splitlines()))
    return renamed_lines(old, new, [hunk])


class TestRenamedLines:
    def test_a_local_renamed_on_every_line_that_uses_it(self):
        old = "size = 0\nprint(size)\n"
        assert renamed(old, old.replace("size", "total")) == {1, 2}

    def test_a_function_renamed_with_its_definition(self):
        old = "def load_all(path):\n    pass\n\n\nload_all(x)\n"
        assert renamed(old, old.replace("load_all", "read_all")) == {1, 5}

    def test_a_line_changed_beside_the_rename_is_not(self):
        old = "size = 0\nsize = size - step\n"
        new = "total = 0\ntotal = total + step\n"
        assert renamed(old, new) == {1}

    def test_an_attribute_or_an_import_swapped_is_a_change(self):
        assert renamed("BOMS = (codecs.BOM32_BE,)\n", "BOMS = (codecs.BOM_UTF32_BE,)\n") == set()
        old = "from http.client import IncompleteRead\nexcept IncompleteRead:\n"
        assert renamed(old, old.replace("IncompleteRead", "ProtocolError")) == set()

    def test_a_keyword_argument_is_not_a_binding(self):
        old = "get(\n    url,\n    timout=5,\n)\n"
        assert renamed(old, old.replace("timout", "timeout")) == set()

    def test_a_name_still_used_elsewhere_was_not_renamed(self):
        old = "first = 1\nsecond = 2\nvalue = first\n"
        assert renamed(old, old.replace("value = first", "value = second")) == set()
