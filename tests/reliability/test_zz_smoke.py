from tests.fakes.messages_api import reply, text, tool_use
from tests.reliability.world import World

P0 = {"kind": "bug", "priority": "P0", "confidence": 0.95, "title": "eval on input",
      "body": "Remote code execution.", "anchor": {"path": "app.py", "start_line": 3, "end_line": 3, "quote": "    return eval(checked)"}}

def test_smoke(world: World):
    world.build(); world.seed()
    world.serve(reply(tool_use("add_review_node", P0)), reply(tool_use("finalize_review", {"summary": "one", "verdict": "block"})),
                reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "yes"})), reply(text("done")))
    run = world.review("--post")
    print(run.exit_code, run.stderr)
    print(run.report["verdict"], [ (a["name"], a["outcome"]) for a in run.report["axes"]])
    for r in world.github_server.snapshot(): print(r.method, r.path, r.status)
    world.api.verify()
    assert 0
