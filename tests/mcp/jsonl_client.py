"""jsonl_client.py: a minimal MCP stdio client for hostile-input tests (python3 stdlib).

Usage: python3 jsonl_client.py QUARRY TIMEOUT_S [quarry mcp args...] < requests.jsonl
Starts `QUARRY mcp ARGS`, sends initialize and then each request line of stdin (one JSON
object a line), waits for an answer to each request that has an id (TIMEOUT_S in all),
prints every answer line, closes the server's stdin and waits for it to exit. Exit
status: 0 when every request was answered and the server exited 0, 1 otherwise (with a
line saying what was missing)."""
import json
import subprocess
import sys
import threading
import time

quarry, timeout = sys.argv[1], float(sys.argv[2])
reqs = [json.loads(l) for l in sys.stdin if l.strip()]
init = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "jsonl", "version": "1"}}}
p = subprocess.Popen([quarry, "mcp"] + sys.argv[3:], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
answers = {}
done = threading.Event()
want = {"init"} | {r["id"] for r in reqs if "id" in r}


def read():
    for line in p.stdout:
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if "id" in m:
            answers[m["id"]] = m
            print(json.dumps(m), flush=True)
            if want <= set(answers):
                done.set()
    done.set()


threading.Thread(target=read, daemon=True).start()
for r in [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}] + reqs:
    p.stdin.write((json.dumps(r) + "\n").encode())
    p.stdin.flush()
done.wait(timeout)
missing = sorted(str(i) for i in want - set(answers))
p.stdin.close()
try:
    rc = p.wait(timeout=timeout)
except subprocess.TimeoutExpired:
    p.kill()
    print("the server did not exit after its input closed")
    sys.exit(1)
if missing:
    print("no answer for: " + ", ".join(missing))
    sys.exit(1)
sys.exit(0 if rc == 0 else 1)
