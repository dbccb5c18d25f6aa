"""Answering the commands people write in a PR (`/ask`, `/help`, …), one handler per verb.

`dispatch.py` checks who may use the command and whether it was written where it counts,
runs its handler and posts the answer where it was asked; `chat.py` is `/ask`'s chat-mode
agent. The grammar and the command table are `reviewbot/commands/`.
"""
