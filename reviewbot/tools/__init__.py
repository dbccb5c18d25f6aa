"""The tool-call path: the toolbox seam the loop calls, the guard, the surface and registry,
the session that runs a call and keeps its transcript, and the tools themselves (read-only
repository views, the review verbs, ask_user). Nothing here imports `reviewbot.agent`."""
