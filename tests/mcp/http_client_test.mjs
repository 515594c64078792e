// http_client_test.mjs: `quarry mcp --http` as the official MCP TypeScript SDK's
// Streamable HTTP client transport sees it. Run by tests/cli/28_mcp_http.sh as:
// node http_client_test.mjs QUARRY ALPHA GAMMA DELTA, where the three are fixture
// repositories (ALPHA: 6 commits by Ann, Bob and Carol; GAMMA: 1,200 commits by Gus;
// DELTA: 79 commits in the ten days from 2024-05-01 and 21 before them). Each check starts
// a server on 127.0.0.1 port 0, reads the URL it prints on stderr, connects over HTTP, and
// compares what the tools return with what git says; the server is stopped with SIGTERM
// and must exit 0.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const [quarry, alpha, gamma, delta] = process.argv.slice(2);
if (!delta) {
  console.error('usage: node http_client_test.mjs QUARRY ALPHA GAMMA DELTA');
  process.exit(2);
}

const git = (repo, ...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
const lines = (t) => t.split('\n').filter((l) => l !== '');

// a check that hangs fails the run instead of holding up the suite
setTimeout(() => {
  console.log(`FAIL: the checks did not finish in 10 minutes; ${passed} passed, failures: ${failures.join('; ')}`);
  process.exit(1);
}, 600000).unref();

const failures = [];
let passed = 0;
async function check(name, fn) {
  if (process.env.QDEBUG) console.log('check:', name);
  try {
    await fn();
    passed++;
  } catch (e) {
    failures.push(`${name}: ${e && e.stack ? e.stack : e}`);
  }
}

// Starts `quarry mcp --http 127.0.0.1:0 ARGS` and waits for the URL on its stderr.
function serve(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(quarry, ['mcp', '--http', '127.0.0.1:0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (m) resolve({ url: new URL(m[1]), proc, stderr: () => stderr });
    });
    proc.on('exit', (code) => reject(new Error(`quarry mcp --http exited ${code} before serving: ${stderr}`)));
  });
}

async function stop(server) {
  const exited = new Promise((resolve) => server.proc.on('exit', (code, sig) => resolve({ code, sig })));
  server.proc.kill('SIGTERM');
  const { code, sig } = await exited;
  assert.equal(code, 0, `quarry mcp --http exits 0 on SIGTERM (got ${code} ${sig}): ${server.stderr()}`);
}

async function connect(server) {
  const transport = new StreamableHTTPClientTransport(server.url);
  const client = new Client({ name: 'quarry-http-test', version: '1.0.0' }, { capabilities: {} });
  const errors = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return { client, transport, errors };
}

async function rejects(promise, code, fragment) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof McpError, `expected an McpError, got ${e}`);
    assert.equal(e.code, code, e.message);
    if (fragment) assert.ok(e.message.includes(fragment), e.message);
    return e;
  }
  assert.fail(`expected an error ${code}`);
}

const text = (r) => r.content.map((c) => c.text).join('\n');
const SPIN = '(loop [] (recur))';
const spinArgs = ['--timeout-ms', '3600000', '--max-steps', '1000000000000000'];

await check('initialize, a session id, tools/list in pages, a tool call', async () => {
  const server = await serve(['--repo', alpha, '--page-size', '2']);
  const c = await connect(server);
  assert.equal(c.client.getServerVersion().name, 'quarry');
  assert.match(c.transport.sessionId, /^[0-9a-f]{32}$/);
  assert.deepEqual(await c.client.ping(), {});
  const names = [];
  let cursor;
  let pages = 0;
  do {
    const page = await c.client.listTools(cursor ? { cursor } : {});
    assert.ok(page.tools.length <= 2);
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  const all = JSON.parse(execFileSync(quarry, ['tools', '--format', 'mcp'], { encoding: 'utf8' })).map((t) => t.name);
  assert.deepEqual(names, all);
  assert.equal(pages, Math.ceil(all.length / 2));
  const r = await c.client.callTool({ name: 'get_commits', arguments: {} });
  assert.equal(r.isError, false, text(r));
  assert.deepEqual(r.structuredContent.result.map((x) => x.hash), lines(git(alpha, 'log', '--format=%H')));
  await rejects(c.client.callTool({ name: 'no_such_tool', arguments: {} }), -32602, 'no_such_tool');
  assert.deepEqual(c.errors.map(String), []);
  await c.transport.terminateSession();
  await c.client.close();
  await stop(server);
});

await check('all 79 commits of a 10-day window, through pages', async () => {
  const server = await serve(['--repo', delta]);
  const c = await connect(server);
  const want = lines(git(delta, 'log', '--format=%H', '--since=2024-05-01T00:00:00Z', '--until=2024-05-10T23:59:59Z'));
  assert.equal(want.length, 79);
  const window = { since: '2024-05-01T00:00:00Z', until: '2024-05-10T23:59:59Z' };
  const got = [];
  let offset = 0;
  let pages = 0;
  for (;;) {
    const r = await c.client.callTool({ name: 'get_commits', arguments: offset ? { ...window, offset } : window });
    const page = r.structuredContent;
    got.push(...page.result.map((x) => x.hash));
    pages++;
    if (page.next_offset === undefined) break;
    assert.equal(page.total, 79);
    offset = page.next_offset;
  }
  assert.equal(pages, 2);
  assert.deepEqual(got, want);
  await c.client.close();
  await stop(server);
});

await check('progress notifications come on the call\'s stream, then its result', async () => {
  const server = await serve(['--repo', gamma, '--no-index']);
  const c = await connect(server);
  const seen = [];
  const r = await c.client.callTool({ name: 'get_author_stats', arguments: {} }, undefined, { onprogress: (p) => seen.push(p) });
  assert.deepEqual(r.structuredContent.result.map((a) => [a.author, a.commits]), [['Gus', 1200]]);
  assert.ok(seen.length >= 1, 'at least one progress notification');
  for (const p of seen) assert.equal(p.total, 1200);
  await c.client.close();
  await stop(server);
});

await check('ping and a second call are answered while a long call runs; a cancel stops it', async () => {
  // one worker: the call after the cancel can only run once the spinning program stopped
  const server = await serve(['--repo', gamma, '--no-index', '--workers', '1', ...spinArgs]);
  const c = await connect(server);
  const ac = new AbortController();
  let settled = false;
  let started;
  const running = new Promise((resolve) => (started = resolve));
  const slow = c.client.callTool(
    { name: 'run_lisp', arguments: { program: `(tool/get_author_stats {}) ${SPIN}` } },
    undefined,
    // started once the statistics report their last step: a progress notification
    // already on its way when the cancel is sent would reach a client that has
    // dropped the token (a race of the wire, not a notification after the cancel)
    { signal: ac.signal, timeout: 600000, onprogress: (p) => p.total && p.progress >= p.total && started() },
  );
  slow.then(() => (settled = true), () => (settled = true));
  await Promise.race([running, slow.then((r) => assert.fail(`the program ended: ${JSON.stringify(r)}`))]);
  const t0 = Date.now();
  assert.deepEqual(await c.client.ping(), {});
  if (process.env.QDEBUG) console.log(`ping during a long call: ${Date.now() - t0} ms`);
  assert.equal(settled, false, 'the long call is still running');
  ac.abort('changed my mind');
  await assert.rejects(slow);
  const r = await c.client.callTool({ name: 'run_lisp', arguments: { program: '(+ 1 2)' } }, undefined, { timeout: 600000 });
  assert.deepEqual(r.structuredContent, { result: 3 });
  assert.deepEqual(c.errors.map(String), [], 'no response came for the cancelled request');
  await c.client.close();
  await stop(server);
});

await check('two sessions at once: each its own, a long call in one holds up nothing in the other', async () => {
  const server = await serve(['--repo', alpha, '--workers', '1', ...spinArgs]);
  const a = await connect(server);
  const b = await connect(server);
  assert.notEqual(a.transport.sessionId, b.transport.sessionId);
  const ac = new AbortController();
  const slow = a.client.callTool({ name: 'run_lisp', arguments: { program: SPIN } }, undefined, { signal: ac.signal, timeout: 600000 });
  slow.catch(() => {});
  // b's only worker is free: its call runs while a's spins
  const r = await b.client.callTool({ name: 'run_lisp', arguments: { program: '(count (tool/get_commits {}))' } });
  assert.deepEqual(r.structuredContent, { result: 6 });
  ac.abort('done');
  await assert.rejects(slow);
  // a session that ended is gone: its id gets 404
  const sid = b.transport.sessionId;
  await b.transport.terminateSession();
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  assert.equal(res.status, 404);
  assert.deepEqual(await a.client.ping(), {});
  await a.client.close();
  await stop(server);
});

if (failures.length) {
  for (const f of failures) console.log(`FAIL: ${f}`);
  console.log(`${failures.length} of ${failures.length + passed} MCP HTTP client checks failed`);
  process.exit(1);
}
const sdk = JSON.parse(readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url)));
console.log(`${passed} MCP HTTP client checks passed (@modelcontextprotocol/sdk ${sdk.version})`);
