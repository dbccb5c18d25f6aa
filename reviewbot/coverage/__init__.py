"""Coverage: what a review saw of the PR's changed files, and what that lets it conclude.

model.py      the recorded coverage (the report's `coverage`), and `Coverage.covers(path)`:
              the one question the rest of reviewbot asks (may an earlier finding at
              `path` count as fixed because this run did not raise it again?)
seen.py       what the read tools showed an agent of the head, line by line
unseen.py     the run's own coverage: the packed patches, and each file left out checked
              against what the reviewers read (`assess`); nothing seen when no model answered
inherited.py  an incremental review's: its own of the changes, joined with the earlier
              review's of the files that did not change (they resolve nothing)
policy.py     what a coverage lacks, in words: a gap the verdict folds in

Pure: nothing here reads a file or calls anything.
"""
