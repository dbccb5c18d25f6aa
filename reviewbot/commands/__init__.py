"""The commands people write in a pull request (`/review`, `/ask`, …): one grammar, one table.

Pure: `grammar.py` reads a comment's first line into a typed `Command`, `table.py` says for each
verb who may use it, what it costs and where the answer goes (the `/help` reply and the README's
table are both rendered from it). Acting on a command is the entry layer's (`reviewbot/talk/`).
"""
