"""The tools an agent may call: read-only repository views and the review verbs."""
