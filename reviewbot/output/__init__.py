"""A finished review on this machine: terminal, JSON, SARIF, markdown, Actions outputs."""
