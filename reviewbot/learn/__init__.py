"""`reviewbot learn`: turn a repository's `/dismiss` decisions into `.reviewbot/learnings.toml`."""
