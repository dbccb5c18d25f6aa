"""Text helpers both the agent and the tools use: untrusted-input hygiene and truncation."""
