"""The one jinja2 environment: prompts and comment bodies are templates in the package.

Templates live in `reviewbot/templates/` (`prompts/*.j2`, `comments/*.j2`).
Undefined variables are errors, so a template can never silently drop a field.
Output is markdown, not HTML, so autoescaping is off; untrusted text is
sanitised by the caller before it reaches a template.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("reviewbot", "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # noqa: S701 - markdown and prompts, never HTML served to a browser
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(template: str, /, **context: Any) -> str:
    """Render `templates/<template>` with `context`."""
    return environment().get_template(template).render(**context)
