"""The agent harness: model client, tool-use loop, prompt, context packing, budgets, panel.

The path from a model's tool call to its result (toolbox seam, guard, surface,
registry, session) is `reviewbot.tools`; the agent depends on it, never the reverse.
"""
