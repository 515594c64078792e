#!/usr/bin/env python3
"""model_server.py: a scripted language-model server for quarry's tests (Python 3 stdlib).

It speaks both wire formats quarry's client uses, over real HTTP on 127.0.0.1, and answers
from a script instead of a model, logging every request it receives.

Usage:
    python3 tests/llm/model_server.py --script SCRIPT.json --log LOG.jsonl \
        --port-file PORTFILE [--port N]

    --port 0 (the default) lets the OS pick; once listening, the port number and a newline
    are written to PORTFILE (atomically: written to PORTFILE.tmp, then renamed). Runs until
    SIGTERM or SIGINT.

Endpoints:
    POST /v1/chat/completions   OpenAI-compatible chat completions
    POST /v1/messages           Anthropic Messages
    GET  /health                200 {"ok": true}
    anything else               404 with a JSON error body

SCRIPT.json:
    {"responses": [STEP, STEP, ...]}
    Steps are consumed in order, one per HTTP request to a model endpoint (each retry
    attempt of a client consumes one); a step with "match" is skipped by requests that
    do not match it. A STEP is an object with any of:
      "text"         the reply's text, in the wire format of the endpoint called; streamed as
                     Server-Sent Events in that format (several small deltas) when the
                     request body has "stream": true
      "status"       an HTTP error status to answer with (429, 500, 401...), with an error
                     body in the endpoint's format; "text" is then the error message
      "retry_after"  seconds, sent as a Retry-After header
      "garbage"      a raw body sent with status 200 and content-type application/json
      "delay_ms"     sleep this long before answering
      "run"          [argv...]: a command run (no shell, to completion) when the request
                     arrives, before the answer: a test's way to act between two turns
                     of a client (change a file the client read, say)
      "flood_mb"     (streamed requests) send this many MB of 64 KB deltas that never end the
                     reply, then close: a server that does not stop
      "usage"        {"input", "output", "cache_read", "cache_write"} overriding the
                     simulated usage (missing fields count 0)
      "stop_reason"  overrides "stop" (OpenAI) / "end_turn" (Anthropic)
      "tool_calls"   [{"name": ..., "arguments": {...}, "id": optional}]: the reply calls
                     these tools (OpenAI message.tool_calls with finish_reason
                     "tool_calls"; Anthropic tool_use blocks with stop_reason "tool_use"),
                     after the text when there is some; always sent as one JSON body
      "match"        a substring: the step answers only a request whose body contains it
                     (the first unused step that matches is taken, so concurrent requests
                     get their own answers whatever order they arrive in)
      "wait_for"     N: hold this answer until N requests holding a "wait_for" step are
                     waiting at once (a barrier: proves the client sent them concurrently);
                     after 20 s without them: HTTP 500 "model_server: barrier not reached"
    When the script is exhausted: HTTP 500 with the message "model_server: script exhausted"
    (so a test sees an unexpected extra call).

Simulated usage (when "usage" is absent): input = prompt characters / 4 (system text and
all message contents), output = text characters / 4. Prompt caching: Anthropic requests
whose system block carries cache_control report that system text's tokens as
cache_creation_input_tokens the first time it is seen and as cache_read_input_tokens after;
OpenAI requests report prompt_tokens_details.cached_tokens for a system message seen before.

LOG.jsonl: one line per request, appended and flushed before the answer is sent:
    {"n": request index from 0, "path": ..., "headers": {lowercased name: value, all of
     them}, "body": the parsed JSON body (or "raw": the text when it does not parse),
     "step": the index of the step used, or null}
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    """What the handler threads share: the script, the log, the prompt-cache memory."""

    def __init__(self, steps, log_path):
        self.steps = steps
        self.used = [False] * len(steps)
        self.n = 0
        self.lock = threading.Lock()
        self.barrier = threading.Condition(self.lock)
        self.waiting = 0
        self.log = open(log_path, "a", encoding="utf-8")
        self.seen_system = {"openai": set(), "anthropic": set()}

    def take(self, raw=""):
        """Returns (request index, step index or None, step or None): the first unused
        step without "match", or whose "match" is in the request body."""
        with self.lock:
            n = self.n
            self.n += 1
            for i, step in enumerate(self.steps):
                if self.used[i]:
                    continue
                m = step.get("match") if isinstance(step, dict) else None
                if m is None or m in raw:
                    self.used[i] = True
                    return n, i, step
            return n, None, None

    def wait_for(self, count):
        """Blocks until `count` requests are waiting here at once; False after 20 s."""
        with self.barrier:
            self.waiting += 1
            self.barrier.notify_all()
            ok = self.barrier.wait_for(lambda: self.waiting >= count, timeout=20)
            return ok

    def write_log(self, record):
        with self.lock:
            self.log.write(json.dumps(record) + "\n")
            self.log.flush()

    def cache_seen(self, fmt, system):
        """True when this system text was seen before in format fmt (and remembers it)."""
        with self.lock:
            seen = system in self.seen_system[fmt]
            self.seen_system[fmt].add(system)
            return seen


def tokens(chars):
    return chars // 4


def chunks(text, size=4):
    """The text in several small pieces (at least one, even for empty text)."""
    if not text:
        return [""]
    return [text[i:i + size] for i in range(0, len(text), size)]


def message_chars(messages):
    total = 0
    for m in messages if isinstance(messages, list) else []:
        c = m.get("content") if isinstance(m, dict) else None
        if isinstance(c, str):
            total += len(c)
        elif isinstance(c, list):
            total += sum(len(b.get("text", "")) for b in c if isinstance(b, dict))
    return total


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    server_version = "model_server/1"

    def log_message(self, fmt, *args):  # quiet: the JSONL log is the record
        pass

    # ---- plumbing ----

    def send_json(self, status, obj, extra=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def send_raw(self, status, text, ctype):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def sse(self, data, event=None):
        """One event, as its own HTTP chunk, flushed (so the client sees it separately)."""
        text = ("event: %s\n" % event if event else "") + "data: %s\n\n" % data
        raw = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(raw), raw))
        self.wfile.flush()

    def end_sse(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    # ---- requests ----

    def do_GET(self):
        if self.path == "/health":
            self.send_json(200, {"ok": True})
        else:
            self.send_json(404, {"error": {"message": "no such path: " + self.path}})

    def do_POST(self):
        st = self.server.state
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        if self.path == "/v1/chat/completions":
            fmt = "openai"
        elif self.path == "/v1/messages":
            fmt = "anthropic"
        else:
            self.send_json(404, {"error": {"message": "no such path: " + self.path}})
            return
        n, step_index, step = st.take(raw)
        record = {"n": n, "path": self.path,
                  "headers": {k.lower(): v for k, v in self.headers.items()},
                  "step": step_index}
        try:
            body = json.loads(raw)
            record["body"] = body
        except ValueError:
            body = None
            record["raw"] = raw
        st.write_log(record)
        if not isinstance(body, dict):
            body = {}

        if step is None:
            self.send_error_body(fmt, 500, "model_server: script exhausted", None)
            return
        if step.get("run"):
            subprocess.run(step["run"], check=False)
        if step.get("delay_ms"):
            time.sleep(step["delay_ms"] / 1000.0)
        if step.get("wait_for") and not st.wait_for(int(step["wait_for"])):
            self.send_error_body(fmt, 500, "model_server: barrier not reached", None)
            return
        if "garbage" in step:
            self.send_raw(200, step["garbage"], "application/json")
            return
        if step.get("status"):
            self.send_error_body(fmt, step["status"], step.get("text", "scripted error"),
                                 step.get("retry_after"))
            return
        if step.get("flood_mb") and body.get("stream"):
            self.start_sse()
            piece = json.dumps({"choices": [{"index": 0, "delta": {"content": "x" * 65536}}]}
                               if fmt == "openai" else
                               {"type": "content_block_delta", "index": 0,
                                "delta": {"type": "text_delta", "text": "x" * 65536}})
            try:
                for _ in range(int(step["flood_mb"] * 16)):
                    self.sse(piece)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client hung up: what it should do
            return
        text = step.get("text", "")
        usage = self.usage(fmt, body, text, step.get("usage"))
        calls = step.get("tool_calls")
        if calls:
            calls = [dict(c, id=c.get("id") or "call_%d_%d" % (n, k))
                     for k, c in enumerate(calls)]
            if fmt == "openai":
                reply = self.openai_reply(body, text or None, step.get("stop_reason", "tool_calls"),
                                          usage)
                reply["choices"][0]["message"]["tool_calls"] = [
                    {"id": c["id"], "type": "function",
                     "function": {"name": c["name"],
                                  "arguments": c["arguments"] if isinstance(c.get("arguments"), str)
                                  else json.dumps(c.get("arguments", {}))}} for c in calls]
            else:
                reply = self.anthropic_reply(body, text, step.get("stop_reason", "tool_use"), usage)
                reply["content"] = ([{"type": "text", "text": text}] if text else []) + [
                    {"type": "tool_use", "id": c["id"], "name": c["name"],
                     "input": c.get("arguments", {})} for c in calls]
            self.send_json(200, reply)
            return
        if fmt == "openai":
            stop = step.get("stop_reason", "stop")
            if body.get("stream"):
                self.openai_stream(body, text, stop, usage)
            else:
                self.send_json(200, self.openai_reply(body, text, stop, usage))
        else:
            stop = step.get("stop_reason", "end_turn")
            if body.get("stream"):
                self.anthropic_stream(body, text, stop, usage)
            else:
                self.send_json(200, self.anthropic_reply(body, text, stop, usage))

    def send_error_body(self, fmt, status, message, retry_after):
        extra = {"Retry-After": str(retry_after)} if retry_after is not None else None
        if fmt == "anthropic":
            kind = {429: "rate_limit_error", 401: "authentication_error",
                    403: "permission_error", 404: "not_found_error",
                    529: "overloaded_error"}.get(status, "api_error")
            obj = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            obj = {"error": {"message": message, "type": "scripted", "code": status}}
        self.send_json(status, obj, extra)

    # ---- usage ----

    def usage(self, fmt, body, text, override):
        """{input, output, cache_read, cache_write} as the API would count them."""
        if override is not None:
            return {k: int(override.get(k, 0))
                    for k in ("input", "output", "cache_read", "cache_write")}
        st = self.server.state
        out = tokens(len(text))
        msgs = body.get("messages")
        if fmt == "anthropic":
            system = body.get("system")
            sys_text, cached = "", False
            if isinstance(system, str):
                sys_text = system
            elif isinstance(system, list):
                sys_text = "".join(b.get("text", "") for b in system if isinstance(b, dict))
                cached = any(isinstance(b, dict) and "cache_control" in b for b in system)
                # several breakpoints: as Anthropic does, the longest prefix ending at a
                # breakpoint that an earlier request cached is read; the rest up to the
                # last breakpoint is written
                ends, acc = [], ""
                for b in system:
                    if isinstance(b, dict):
                        acc += b.get("text", "")
                        if "cache_control" in b:
                            ends.append(acc)
                if len(ends) > 1:
                    hit = [e for e in ends if st.cache_seen("anthropic", e)]
                    read = max((len(e) for e in hit), default=0)
                    last = len(ends[-1])
                    return {"input": tokens(message_chars(msgs)) + tokens(len(sys_text) - last),
                            "output": out, "cache_read": tokens(read),
                            "cache_write": tokens(last - read)}
            rest = tokens(message_chars(msgs))
            sys_tokens = tokens(len(sys_text))
            if cached and sys_text:
                if st.cache_seen("anthropic", sys_text):
                    return {"input": rest, "output": out, "cache_read": sys_tokens,
                            "cache_write": 0}
                return {"input": rest, "output": out, "cache_read": 0,
                        "cache_write": sys_tokens}
            return {"input": rest + sys_tokens, "output": out, "cache_read": 0,
                    "cache_write": 0}
        # openai: the system message is part of messages
        sys_text = ""
        if isinstance(msgs, list) and msgs and isinstance(msgs[0], dict) \
                and msgs[0].get("role") == "system" and isinstance(msgs[0].get("content"), str):
            sys_text = msgs[0]["content"]
        total = tokens(message_chars(msgs))
        cached = 0
        if sys_text and st.cache_seen("openai", sys_text):
            cached = min(tokens(len(sys_text)), total)
        return {"input": total - cached, "output": out, "cache_read": cached,
                "cache_write": 0}

    # ---- OpenAI format ----

    @staticmethod
    def openai_usage(u):
        return {"prompt_tokens": u["input"] + u["cache_read"],
                "completion_tokens": u["output"],
                "total_tokens": u["input"] + u["cache_read"] + u["output"],
                "prompt_tokens_details": {"cached_tokens": u["cache_read"]}}

    def openai_reply(self, body, text, stop, usage):
        return {"id": "chatcmpl-scripted", "object": "chat.completion",
                "created": 0, "model": body.get("model", ""),
                "choices": [{"index": 0, "finish_reason": stop,
                             "message": {"role": "assistant", "content": text}}],
                "usage": self.openai_usage(usage)}

    def openai_stream(self, body, text, stop, usage):
        self.start_sse()
        base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk",
                "created": 0, "model": body.get("model", "")}
        first = dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""},
                                     "finish_reason": None}])
        self.sse(json.dumps(first))
        for piece in chunks(text):
            self.sse(json.dumps(dict(base, choices=[
                {"index": 0, "delta": {"content": piece}, "finish_reason": None}])))
        self.sse(json.dumps(dict(base, choices=[
            {"index": 0, "delta": {}, "finish_reason": stop}])))
        if (body.get("stream_options") or {}).get("include_usage"):
            self.sse(json.dumps(dict(base, choices=[], usage=self.openai_usage(usage))))
        self.sse("[DONE]")
        self.end_sse()

    # ---- Anthropic format ----

    @staticmethod
    def anthropic_usage(u):
        return {"input_tokens": u["input"], "output_tokens": u["output"],
                "cache_creation_input_tokens": u["cache_write"],
                "cache_read_input_tokens": u["cache_read"]}

    def anthropic_reply(self, body, text, stop, usage):
        return {"id": "msg_scripted", "type": "message", "role": "assistant",
                "model": body.get("model", ""),
                "content": [{"type": "text", "text": text}],
                "stop_reason": stop, "stop_sequence": None,
                "usage": self.anthropic_usage(usage)}

    def anthropic_stream(self, body, text, stop, usage):
        self.start_sse()
        start_usage = dict(self.anthropic_usage(usage), output_tokens=1)
        msg = {"id": "msg_scripted", "type": "message", "role": "assistant",
               "model": body.get("model", ""), "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": start_usage}
        self.sse(json.dumps({"type": "message_start", "message": msg}), "message_start")
        self.sse(json.dumps({"type": "content_block_start", "index": 0,
                             "content_block": {"type": "text", "text": ""}}),
                 "content_block_start")
        self.sse(json.dumps({"type": "ping"}), "ping")
        for piece in chunks(text):
            self.sse(json.dumps({"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": piece}}),
                     "content_block_delta")
        self.sse(json.dumps({"type": "content_block_stop", "index": 0}), "content_block_stop")
        self.sse(json.dumps({"type": "message_delta",
                             "delta": {"stop_reason": stop, "stop_sequence": None},
                             "usage": {"output_tokens": usage["output"]}}), "message_delta")
        self.sse(json.dumps({"type": "message_stop"}), "message_stop")
        self.end_sse()


def main():
    ap = argparse.ArgumentParser(description="scripted language-model server for tests")
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()

    with open(args.script, encoding="utf-8") as f:
        script = json.load(f)
    steps = script.get("responses", []) if isinstance(script, dict) else []

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.state = State(steps, args.log)

    def stop(signum, frame):
        # shutdown() waits for serve_forever to return: call it from another thread
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.replace(tmp, args.port_file)

    server.serve_forever()
    server.server_close()
    server.state.log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
