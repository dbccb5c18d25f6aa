"""Incremental review on push: review what changed since the last review.

decision.py  full or incremental, and why: the last review's summary marker, the
             config digest, `/review full`, and the clone's history (force-push)
changes.py   the author's changes since the reviewed head, on the PR's files
             (what a merge of the base branch brought in is left out)
patches.py   a digest of each file's PR patch against the base: a file whose diff the
             last review did not see is shown again (a merge that reverts the base)
carry.py     earlier findings on unchanged lines carried forward (re-anchored, checked
             by quote and fingerprint); those on changed lines, to re-judge

The agents' context of an incremental review is packed in agent/context_since.py.
"""
