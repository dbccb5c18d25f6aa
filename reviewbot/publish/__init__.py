"""Publishing a finished review: GitHub, terminal, JSON, SARIF, markdown."""
