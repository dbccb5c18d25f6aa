"""`reviewbot eval`: review quality measured against a benchmark of human-verified issues.

    bench.py     the benchmark file (golden comments), read entry by entry
    runner.py    per PR: reviewbot's real review as a dry run, the judge, the score, the cache
    workers.py   `--workers N`: the PRs N at a time, the results in benchmark order
    candidates.py  which findings count (each one the review would post, inline or in its body)
    judge.py     the LLM judge: one finding against the PR's golden comments, through a tool
    profiles.py  the benchmark's categories and its Strict/Core/All profiles, F-beta (pure)
    score.py     precision, recall, F1 and F-beta (pure), overall, by severity and category
    cache.py     finished PRs on disk, so an interrupted run resumes
    result.py    the JSON result (`--out`)
    terminal.py  the terminal tables and what the run shows while it works
    command.py   the command: options → runner → tables, result file and exit code

Must not: post anything to GitHub (every review is a dry run), or let the reviewers judge
their own findings (the judge is a separate conversation with its own prompt and tool).
"""
