#!/usr/bin/env python3
"""http_bridge.py: serves `quarry mcp` (started here, over stdio) on MCP's Streamable HTTP
transport, for tests of quarry as an MCP client over HTTP (tests/cli/18_flow_run.sh).

Usage: http_bridge.py --port-file FILE --log LOG.jsonl [--token T] [--sse] -- COMMAND...

POST /mcp with one JSON-RPC message: a notification is written to the server and answered
202; a request is written, the server's lines are read until the answer with its id, and
that answer is sent as application/json, or with --sse as a text/event-stream of one
event (after a comment line and a notification event, as real servers send). The
initialize answer carries an Mcp-Session-Id header, which every later request must send
back (else 400); with --token, every request needs "Authorization: Bearer T" (else 401).
Each request is logged (path, headers, body) as one JSON line.
"""
import argparse, json, os, subprocess, sys, threading, uuid
from http.server import BaseHTTPRequestHandler, HTTPServer


class Bridge(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body=b"", ctype="application/json", extra=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        st = self.server.st
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with st["lock"]:
            st["log"].write(json.dumps({"path": self.path,
                                        "headers": {k.lower(): v for k, v in self.headers.items()},
                                        "body": raw.decode("utf-8", "replace")}) + "\n")
            st["log"].flush()
        if self.path != "/mcp":
            return self.send(404, b'{"error":"no such path"}')
        if st["token"] and self.headers.get("Authorization") != "Bearer " + st["token"]:
            return self.send(401, b'{"error":"unauthorized"}')
        try:
            msg = json.loads(raw)
        except ValueError:
            return self.send(400, b'{"error":"not json"}')
        first = msg.get("method") == "initialize"
        if not first and self.headers.get("Mcp-Session-Id") != st["session"]:
            return self.send(400, b'{"error":"missing or unknown Mcp-Session-Id"}')
        proc = st["proc"]
        with st["lock"]:
            proc.stdin.write((json.dumps(msg) + "\n").encode())
            proc.stdin.flush()
            if "id" not in msg:
                return self.send(202)
            while True:
                line = proc.stdout.readline()
                if not line:
                    return self.send(502, b'{"error":"the server went away"}')
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue
                if answer.get("id") == msg["id"]:
                    break
        extra = {"Mcp-Session-Id": st["session"]} if first else None
        body = json.dumps(answer).encode()
        if st["sse"]:
            note = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                               "params": {"level": "info", "data": "working"}})
            text = (": keep-alive\n\nevent: message\ndata: %s\n\n" % note +
                    "event: message\ndata: %s\n\n" % body.decode())
            return self.send(200, text.encode(), "text/event-stream", extra)
        self.send(200, body, "application/json", extra)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--token")
    ap.add_argument("--sse", action="store_true")
    ap.add_argument("command", nargs="+")
    a = ap.parse_args()
    proc = subprocess.Popen(a.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    srv = HTTPServer(("127.0.0.1", 0), Bridge)
    srv.st = {"proc": proc, "lock": threading.Lock(), "token": a.token, "sse": a.sse,
              "session": uuid.uuid4().hex, "log": open(a.log, "a")}
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.replace(tmp, a.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        proc.kill()
    return 0


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    sys.exit(main())
