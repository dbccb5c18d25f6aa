"""`reviewbot eval`: review quality measured against a benchmark of human-verified issues.

    bench.py     the benchmark file (golden comments), read entry by entry
    runner.py    per PR: reviewbot's real review as a dry run, the judge, the score, the cache
    judge.py     the LLM judge: one finding against the PR's golden comments, through a tool
    score.py     precision, recall and F1 (pure), overall and by severity
    cache.py     finished PRs on disk, so an interrupted run resumes
    result.py    the JSON result (`--out`)
    terminal.py  the terminal tables and what the run shows while it works
    command.py   the command: options → runner → tables, result file and exit code

Must not: post anything to GitHub (every review is a dry run), or let the reviewers judge
their own findings (the judge is a separate conversation with its own prompt and tool).
"""
