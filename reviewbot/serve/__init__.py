"""`reviewbot serve`: a GitHub App's webhook server and its review workers, on procrastinate.

config.py     the server's settings from the environment (checked before listening)
signature.py  X-Hub-Signature-256, in constant time, on the raw body
intake.py     a verified delivery → dropped, or jobs durably queued (what to queue)
queue.py      procrastinate on PostgreSQL: defer once per delivery, one job per PR, workers
cluster.py    the one-machine default: a private PostgreSQL cluster in the state folder
job.py        one queued job → the Action's pipeline (app.run_plan) with an installation token
tokens.py     installation tokens, cached per installation and renewed before expiry
web.py        the ASGI app (Starlette): /webhook, /healthz, /metrics
metrics.py    the Prometheus counters and gauges
command.py    the process tree: cluster, schema, worker processes, the web server
"""
