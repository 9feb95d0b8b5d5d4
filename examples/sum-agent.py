#!/usr/bin/env python3
"""A weft agent in Python, with nothing but the standard library.

It runs the code-first workflow `sum` and its tasks through `weft serve`
(docs/agent-protocol.md):

    handle(a, b):
        [x, y] = execute(double(a), square(b))   # in parallel
        z = execute(add([x, y]))
        return z

    weft serve --workflows sum --tasks double,square,add &
    weft start sum --input '[3, 4]'
    WEFT_SERVE_URL=http://127.0.0.1:4001 python3 examples/sum-agent.py --until-idle 3

Every request says `Content-Type: application/json` (weft serve refuses a request that
acts without it) and, when WEFT_SERVE_TOKEN is set, `Authorization: Bearer <token>`.
"""

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ.get("WEFT_SERVE_URL", "http://127.0.0.1:4001").rstrip("/")
TOKEN = os.environ.get("WEFT_SERVE_TOKEN")

TASKS = {
    "double": lambda n: n * 2,
    "square": lambda n: n * n,
    "add": lambda numbers: sum(numbers),
}


class Refused(Exception):
    """weft serve answered an error: its status and typed code."""


def call(method, path, body=None):
    headers = {"Content-Type": "application/json"}
    if TOKEN:
        headers["Authorization"] = "Bearer " + TOKEN
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=90) as response:
            return json.load(response)
    except urllib.error.HTTPError as refused:
        error = json.load(refused).get("error", {})
        raise Refused(f"{method} {path}: {refused.code} {error.get('code')}: {error.get('message')}")


def quoted(uuid):
    return urllib.parse.quote(uuid, safe="")


def run_branch(path, branch, state):
    """Runs one branch; returns {"output": …} when `handle` returned, {} when it left."""

    def execute(works):
        answer = call("POST", path + "/execute", works)
        if answer["status"] == "completed":
            state["properties"] = answer["properties"]
        return answer

    if branch["type"] == "onSuccess":
        state["properties"]["completed"] = state["properties"].get("completed", 0) + 1
        return {}
    if branch["type"] != "handle":
        return {}
    a, b = branch["input"]
    first = execute([
        {"type": "task", "name": "double", "input": a, "position": "0.0", "sync": True},
        {"type": "task", "name": "square", "input": b, "position": "0.1", "sync": True},
    ])
    if first["status"] != "completed":
        return {}
    state["properties"]["phase"] = "adding"
    second = execute([{"name": "add", "input": first["outputs"], "position": "1"}])
    if second["status"] != "completed":
        return {}
    state["properties"]["phase"] = "done"
    return {"output": second["outputs"][0]}


def decide(uuid):
    path = "/decisions/" + quoted(uuid)
    while True:
        step = call("GET", path + "/branch")
        if "branch" not in step:
            return
        state = {"properties": dict(step["properties"])}
        end = run_branch(path, step["branch"], state)
        call("POST", path + "/branch", {"properties": state["properties"], **end})


def run_task(job):
    task = TASKS.get(job["name"])
    if task is None:
        result = {"status": "failed", "error": {"name": "NoHandler", "message": job["name"]}}
    else:
        result = {"status": "completed", "output": task(job["input"])}
    call("POST", "/tasks/" + quoted(job["uuid"]), result)


def main():
    until_idle = int(sys.argv[sys.argv.index("--until-idle") + 1]) if "--until-idle" in sys.argv else 0
    idle = 0
    while until_idle == 0 or idle < until_idle:
        job = call("GET", "/env/prod/lang/python/job?wait=1000")
        if job["action"] == "DecisionScheduled":
            idle = 0
            decide(job["uuid"])
            print("decision", job["name"], flush=True)
        elif job["action"] == "TaskScheduled":
            idle = 0
            run_task(job)
            print("task", job["name"], flush=True)
        else:
            idle += 1


if __name__ == "__main__":
    try:
        main()
    except Refused as refused:
        print(f"refused: {refused}", file=sys.stderr)
        sys.exit(1)
