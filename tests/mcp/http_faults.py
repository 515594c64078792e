#!/usr/bin/env python3
"""http_faults.py: hostile and unlucky clients of `quarry mcp --http`, over real loopback
HTTP with raw sockets (the SDK clients read every answer at once and cannot be slow).

Usage: http_faults.py QUARRY REPO CASE...   (CASE: memory, cancel-queued, slow-reader,
sigterm, cancel-race; several may be given). Prints one line per check, "ok ..." or "FAIL ...", and
exits 1 when a check failed. Every wait is bounded; a case that would hang fails instead.

- memory: twelve sessions at once each POST a 15 MB message (an array of one-digit
  numbers, the densest JSON), and four more go to no session; the server's peak
  resident memory (VmHWM in /proc/PID/status) must stay under MEMORY_LIMIT_MB, each
  message is answered or refused for room (503), and those for no session get 404.
- cancel-queued: with one worker busy on a long program, five calls queue behind it and
  are cancelled (notifications/cancelled): each one's connection must end, with no
  response (202 and an empty body, or an event stream that ends without one), well
  before the long call ends.
- slow-reader: one client asks for a result of several megabytes and does not read it;
  another call of the same session must be answered meanwhile.
- cancel-race (PROBE_ROUNDS rounds, default 10): calls cancelled at once or after a
  short varying delay, queued or running; every connection must end.
- sigterm: with a client that does not read its answer, one that sends half a body and
  one whose call runs, SIGTERM must end the server with status 0 in a few seconds.
"""
import json, os, re, signal, socket, subprocess, sys, threading, time

MEMORY_LIMIT_MB = 1024
FAILS = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILS.append(what)


class Server:
    def __init__(self, quarry, repo, *args):
        self.p = subprocess.Popen([quarry, "mcp", "--http", "127.0.0.1:0", "--repo", repo, *args],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        self.port = None
        deadline = time.monotonic() + 30
        buf = b""
        while time.monotonic() < deadline:
            line = self.p.stderr.readline()
            if not line:
                break
            buf += line
            m = re.search(rb"http://127\.0\.0\.1:(\d+)/mcp", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            raise SystemExit("the server did not start: " + buf.decode("utf-8", "replace"))
        # keep draining stderr so the server never blocks on it
        threading.Thread(target=lambda: self.p.stderr.read(), daemon=True).start()

    def hwm_mb(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return -1

    def stop(self, timeout=20):
        self.p.send_signal(signal.SIGTERM)
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return None


def connect(port, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(30)
    s.connect(("127.0.0.1", port))
    return s


def head(port, length, sid=None, accept="application/json, text/event-stream"):
    h = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
         "Accept: %s\r\nContent-Length: %d\r\n" % (port, accept, length))
    if sid:
        h += "Mcp-Session-Id: %s\r\n" % sid
    return (h + "\r\n").encode()


def read_all(s, limit_s=30):
    """Everything until the server closes (bounded by limit_s)."""
    s.settimeout(1)
    out = b""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        try:
            b = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not b:
            return out, True
        out += b
    return out, False


def post(port, msg, sid=None, accept="application/json, text/event-stream", limit_s=30):
    body = json.dumps(msg).encode()
    s = connect(port)
    s.sendall(head(port, len(body), sid, accept) + body)
    out, closed = read_all(s, limit_s)
    s.close()
    return out, closed


def session(port):
    out, _ = post(port, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "faults", "version": "1"}}})
    m = re.search(rb"Mcp-Session-Id: ([0-9a-f]{32})", out, re.I)
    if not m:
        raise SystemExit("initialize failed: " + out[:300].decode("utf-8", "replace"))
    sid = m.group(1).decode()
    post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    return sid


def call(i, name, args):
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": name, "arguments": args}}


LONG = "(loop [i 0] (recur (inc i)))"  # runs until its time or step limit


def case_memory(quarry, repo):
    srv = Server(quarry, repo)
    sids = [session(srv.port) for _ in range(12)]
    n = 15 << 20
    # {"jsonrpc":"2.0","id":K,"method":"ping","params":{"x":[1,1,1,...]}}
    def body(k):
        pre = ('{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"x":[' % k).encode()
        post_ = b"1]}}"
        count = (n - len(pre) - len(post_)) // 2
        return pre + b"1," * count + post_
    base = srv.hwm_mb()
    results = [None] * 16

    def one(k):
        b = body(100 + k)
        try:
            s = connect(srv.port)
            s.sendall(head(srv.port, len(b), sids[k] if k < 12 else "0" * 32))
            # a server that answers from the head alone has answered by now
            s.settimeout(2)
            try:
                early = s.recv(65536)
            except socket.timeout:
                early = b""
            if not early:
                s.settimeout(120)
                s.sendall(b)
            out, _ = read_all(s, 120)
            out = early + out
            s.close()
            status = out.split(b"\r\n", 1)[0].decode("latin-1")
            if status.startswith("HTTP/1.1 200") and (b'"id":%d,"result"' % (100 + k)) not in out:
                status += " without its answer"
            results[k] = status
        except OSError as e:
            results[k] = "error " + str(e)

    # twelve sessions each send one message, and four more go to no session
    ts = [threading.Thread(target=one, args=(k,)) for k in range(16)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(180)
    peak = srv.hwm_mb()
    print("     memory: VmHWM %.0f MB before, %.0f MB after 12 messages of 15 MB; statuses %s"
          % (base, peak, sorted(set(r or "none" for r in results))))
    check(peak < MEMORY_LIMIT_MB,
          "peak memory with 12 concurrent 15 MB messages stays under %d MB (was %.0f MB)"
          % (MEMORY_LIMIT_MB, peak))
    check(all(r and r.startswith("HTTP/1.1 404") for r in results[12:]),
          "the messages for no session are refused with 404")
    check(all(r in ("HTTP/1.1 200 OK", "HTTP/1.1 503 Service Unavailable")
              for r in results[:12]),
          "each session's message is answered (200) or refused for room (503)")
    check(sum(r == "HTTP/1.1 200 OK" for r in results[:12]) >= 2,
          "at least two of the messages are answered")
    out, _ = post(srv.port, {"jsonrpc": "2.0", "id": 9, "method": "ping"}, sids[0])
    check(b'"id":9,"result":{}' in out, "the session still answers a ping afterwards")
    check(srv.stop() == 0, "SIGTERM ends the server with 0")


def case_cancel_queued(quarry, repo):
    srv = Server(quarry, repo, "--workers", "1")
    sid = session(srv.port)
    port = srv.port
    long_s = connect(port)
    b = json.dumps(call(50, "run_lisp", {"program": LONG})).encode()
    long_s.sendall(head(port, len(b), sid) + b)
    time.sleep(0.5)  # the worker has it
    queued = []
    for k in range(5):
        s = connect(port)
        accept = "application/json, text/event-stream" if k % 2 else "application/json"
        b = json.dumps(call(60 + k, "get_commits", {"limit": 1})).encode()
        s.sendall(head(port, len(b), sid, accept) + b)
        queued.append(s)
    time.sleep(0.5)
    t0 = time.monotonic()
    for k in range(5):
        post(port, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": 60 + k, "reason": "test"}}, sid)
    ended = 0
    for k, s in enumerate(queued):
        out, closed = read_all(s, 5)
        s.close()
        answered = b'"id":%d' % (60 + k) in out
        if closed and not answered:
            ended += 1
        else:
            print("     call %d: closed %s, answered %s: %r" % (60 + k, closed, answered, out[:200]))
    dt = time.monotonic() - t0
    check(ended == 5, "the 5 calls cancelled while queued end their connections without an "
                      "answer (%d of 5, %.1f s)" % (ended, dt))
    post(port, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 50}}, sid)
    out, closed = read_all(long_s, 20)
    long_s.close()
    check(closed, "the long call's connection ends after its cancel")
    out, _ = post(port, {"jsonrpc": "2.0", "id": 70, "method": "tools/call",
                         "params": {"name": "get_commits", "arguments": {"limit": 1}}}, sid)
    check(b'"id":70' in out, "the next call is answered")
    check(srv.stop() == 0, "SIGTERM ends the server with 0")


BIG = '(apply str (repeat 600000 "0123456789"))'  # a 6 MB result


def case_slow_reader(quarry, repo):
    srv = Server(quarry, repo)
    sid = session(srv.port)
    port = srv.port
    slow = connect(port, rcvbuf=4096)
    b = json.dumps(call(80, "run_lisp", {"program": BIG})).encode()
    slow.sendall(head(port, len(b), sid) + b)
    time.sleep(3)  # its answer fills the socket buffers and waits
    t0 = time.monotonic()
    out, closed = post(port, call(81, "get_commits", {"limit": 1}), sid, limit_s=15)
    dt = time.monotonic() - t0
    check(b'"id":81' in out and dt < 8,
          "another call of the session is answered while a client does not read (%.1f s)" % dt)
    t0 = time.monotonic()
    out, closed = post(port, {"jsonrpc": "2.0", "id": 82, "method": "ping"}, sid, limit_s=15)
    check(b'"id":82' in out, "a ping of the session is answered meanwhile (%.1f s)"
          % (time.monotonic() - t0))
    # the slow reader still gets its whole answer when it reads
    slow.settimeout(30)
    got, closed = read_all(slow, 40)
    slow.close()
    check(closed and b'"id":80' in got and got.count(b"0123456789") >= 600000,
          "the slow reader gets its whole answer when it reads (%d bytes)" % len(got))
    check(srv.stop() == 0, "SIGTERM ends the server with 0")


def case_sigterm(quarry, repo):
    srv = Server(quarry, repo)
    sid = session(srv.port)
    port = srv.port
    held = []
    for k in range(3):  # answers nobody reads
        s = connect(port, rcvbuf=4096)
        b = json.dumps(call(90 + k, "run_lisp", {"program": BIG})).encode()
        s.sendall(head(port, len(b), sid) + b)
        held.append(s)
    s = connect(port)  # half a body
    s.sendall(head(port, 1000, sid) + b'{"jsonrpc":')
    held.append(s)
    s = connect(port)  # a call that runs
    b = json.dumps(call(95, "run_lisp", {"program": LONG})).encode()
    s.sendall(head(port, len(b), sid) + b)
    held.append(s)
    time.sleep(3)
    t0 = time.monotonic()
    rc = srv.stop(timeout=30)
    dt = time.monotonic() - t0
    check(rc == 0 and dt < 10,
          "SIGTERM with clients that do not read ends the server with 0 (status %s, %.1f s)"
          % (rc, dt))
    for s in held:
        s.close()


def case_cancel_race(quarry, repo):
    """Cancels racing calls: each round queues calls behind a busy worker and cancels
    them at once or after a short, varying delay, some while they run, some before
    they are queued; every connection must end (answered or not) in a few seconds, and
    the session must answer afterwards."""
    rounds = int(os.environ.get("PROBE_ROUNDS", "10"))
    srv = Server(quarry, repo, "--workers", "2")
    sid = session(srv.port)
    port = srv.port
    stuck = 0
    for rnd in range(rounds):
        socks = []
        for k in range(6):
            i = 1000 + rnd * 10 + k
            prog = LONG if k < 2 else "(+ 1 2)"
            b = json.dumps(call(i, "run_lisp", {"program": prog})).encode()
            s = connect(port)
            s.sendall(head(port, len(b), sid) + b)
            socks.append((i, s))
            if k % 3 == rnd % 3:
                time.sleep(0.001 * (rnd % 7))
            post(port, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": i}}, sid)
        for i, s in socks:
            out, closed = read_all(s, 15)
            s.close()
            if not closed:
                stuck += 1
                print("     round %d: call %d never ended" % (rnd, i))
    check(stuck == 0, "%d rounds of 6 cancelled calls: every connection ended (%d stuck)"
          % (rounds, stuck))
    out, _ = post(port, {"jsonrpc": "2.0", "id": 9, "method": "ping"}, sid)
    check(b'"id":9,"result":{}' in out, "the session answers afterwards")
    check(srv.stop() == 0, "SIGTERM ends the server with 0")


CASES = {"cancel-race": case_cancel_race, "memory": case_memory, "cancel-queued": case_cancel_queued,
         "slow-reader": case_slow_reader, "sigterm": case_sigterm}

if __name__ == "__main__":
    if len(sys.argv) < 4 or any(c not in CASES for c in sys.argv[3:]):
        raise SystemExit("usage: http_faults.py QUARRY REPO CASE... (%s)" % ", ".join(CASES))
    for c in sys.argv[3:]:
        print("case " + c, flush=True)
        CASES[c](sys.argv[1], sys.argv[2])
    sys.exit(1 if FAILS else 0)
