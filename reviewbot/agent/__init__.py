"""The agent harness: model client, tool-use loop, guard, prompt, budgets."""
