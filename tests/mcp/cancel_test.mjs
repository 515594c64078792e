// cancel_test.mjs: a cancel stops every kind of long work `quarry mcp` runs, over stdio
// and over Streamable HTTP, as the official MCP TypeScript SDK client sends it. Run by
// tests/cli/32_mcp_cancel.sh as:
//   node cancel_test.mjs QUARRY REPO BIGREPO DATA.nt MODEL_URL MIDREPO
// REPO: a small repository; BIGREPO: a C tree whose code index takes far longer to build
// than a check waits; DATA.nt: N-Triples on which the EXISTS query below runs for minutes;
// MODEL_URL: a scripted model that answers after 10 minutes; MIDREPO: a C tree of a few
// hundred files, for the last check (parallel calls on a fresh server).
//
// Each check starts a one-worker server, so a call made after the cancel can run only once
// the cancelled work has stopped; it starts the long call, waits until the work is under
// way, cancels it (the SDK sends notifications/cancelled), and calls a one-line program
// with a timeout of 60 s, far shorter than the cancelled work would take. The time from the
// cancel to that answer is printed (with QUARRY_CANCEL_REPORT, as JSON lines to that file)
// and is what bench/cancel/run.sh reports; the checks assert behaviour only: the next call
// is answered, the cancelled one never is, and the server goes on.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [quarry, repo, bigrepo, data, modelUrl, midrepo] = process.argv.slice(2);
if (!midrepo) {
  console.error('usage: node cancel_test.mjs QUARRY REPO BIGREPO DATA.nt MODEL_URL MIDREPO');
  process.exit(2);
}
const report = process.env.QUARRY_CANCEL_REPORT;

setTimeout(() => {
  console.log(`FAIL: the checks did not finish in 15 minutes; ${passed} passed, failures: ${failures.join('; ')}`);
  process.exit(1);
}, 900000).unref();

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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// limits so high (an hour, 10^15 steps, 4 GiB: every tool result a loop gets is kept until
// the program ends) that only a cancel ends a program in time
let serverArgs = ['--workers', '1', '--timeout-ms', '3600000', '--max-steps', '1000000000000000', '--max-memory', '4G'];
const env = {
  ...process.env,
  QUARRY_SPARQL_DATA: data,
  QUARRY_LLM_URL: modelUrl,
  QUARRY_LLM_MODEL: 'slow-model',
  QUARRY_LLM_TIMEOUT_MS: '3600000',
};

async function connectStdio(dir) {
  const transport = new StdioClientTransport({ command: quarry, args: ['mcp', '--repo', dir, ...serverArgs], env, stderr: 'pipe' });
  const client = new Client({ name: 'quarry-cancel-test', version: '1.0.0' }, { capabilities: {} });
  const errors = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return { client, errors, close: () => client.close() };
}

function serveHttp(dir) {
  return new Promise((resolve, reject) => {
    const proc = spawn(quarry, ['mcp', '--http', '127.0.0.1:0', '--repo', dir, ...serverArgs], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    proc.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (m) resolve({ url: new URL(m[1]), proc, stderr: () => stderr });
    });
    proc.on('exit', (code) => reject(new Error(`quarry mcp --http exited ${code} before serving: ${stderr}`)));
  });
}

async function connectHttp(dir) {
  const server = await serveHttp(dir);
  const client = new Client({ name: 'quarry-cancel-test', version: '1.0.0' }, { capabilities: {} });
  const errors = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(new StreamableHTTPClientTransport(server.url));
  return {
    client,
    errors,
    close: async () => {
      await client.close();
      const exited = new Promise((r) => server.proc.on('exit', (code) => r(code)));
      server.proc.kill('SIGTERM');
      assert.equal(await exited, 0, `the server exits 0 on SIGTERM; its stderr ended: ${server.stderr().slice(-800)}`);
    },
  };
}

// nested EXISTS whose innermost FILTER never holds: cubic in the triples, and nothing is
// materialized, so it runs until stopped (the correlated EXISTS used before is now fast)
const SPARQL_SLOW = 'SELECT (COUNT(*) AS ?n) WHERE { ?x ?p ?a FILTER EXISTS { ?y ?q ?b ' +
  'FILTER EXISTS { ?z ?r ?c FILTER(STR(?c) = CONCAT(STR(?a), STR(?b))) } } }';
const cases = [
  {
    name: 'sparql_query (an EXISTS that runs for minutes)',
    dir: repo,
    call: { name: 'sparql_query', arguments: { query: SPARQL_SLOW, timeout_ms: 120000 } },
  },
  {
    name: 'run_lisp looping over tool calls',
    dir: repo,
    call: { name: 'run_lisp', arguments: { program: '(loop [i 0] (tool/get_commits {:limit 1}) (recur (inc i)))' } },
  },
  {
    name: 'run_lisp calling sparql_query',
    dir: repo,
    call: { name: 'run_lisp', arguments: { program: `(tool/sparql_query {:query ${JSON.stringify(SPARQL_SLOW)} :timeout_ms 120000})` } },
  },
  {
    name: 'query_codebase while it indexes a large tree',
    dir: bigrepo,
    call: { name: 'query_codebase', arguments: { query_type: 'find_function', name: 'd0_f0_g0' } },
  },
  {
    name: 'search_codebase waiting on a model',
    dir: repo,
    call: { name: 'search_codebase', arguments: { question: 'summarize the architecture of this program for me' } },
  },
];

for (const transport of ['stdio', 'http']) {
  for (const c of cases) {
    await check(`${transport}: a cancel stops ${c.name}`, async () => {
      const conn = transport === 'stdio' ? await connectStdio(c.dir) : await connectHttp(c.dir);
      const ac = new AbortController();
      let settled = false;
      const slow = conn.client.callTool(c.call, undefined, { signal: ac.signal, timeout: 3600000 });
      slow.then(() => (settled = true), () => (settled = true));
      // the work gets under way (a ping is answered by the reader, not the worker)
      await sleep(1500);
      assert.deepEqual(await conn.client.ping(), {});
      assert.equal(settled, false, `${c.call.name} was still running when cancelled`);
      const t0 = performance.now();
      ac.abort('not needed any more');
      await assert.rejects(slow);
      const r = await conn.client.callTool({ name: 'run_lisp', arguments: { program: '(+ 1 2)' } }, undefined, { timeout: 60000 });
      const ms = performance.now() - t0;
      assert.deepEqual(r.structuredContent, { result: 3 });
      assert.deepEqual(conn.errors.map(String), [], 'no response came for the cancelled call');
      console.log(`${transport} ${c.call.name}: next call answered ${ms.toFixed(0)} ms after the cancel`);
      if (report) appendFileSync(report, JSON.stringify({ transport, case: c.name, ms: Math.round(ms) }) + '\n');
      await conn.close();
    });
  }
}

// Clients send tool calls in parallel: on a fresh server each worker builds and sorts its
// own code graph at the same time (the sort once shared one global, and this crashed the
// server every time).
await check('parallel code-graph calls on a fresh server each get their answer', async () => {
  serverArgs = ['--workers', '4'];
  for (const transport of ['stdio', 'http']) {
    const conn = transport === 'stdio' ? await connectStdio(midrepo) : await connectHttp(midrepo);
    const calls = [
      conn.client.callTool({ name: 'query_codebase', arguments: { query_type: 'find_function', name: 'd1_f1_g1' } }),
      conn.client.callTool({ name: 'sparql_query', arguments: { query: 'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }' } }),
      conn.client.callTool({ name: 'query_codebase', arguments: { query_type: 'get_call_graph', name: 'd0_f0_g0', direction: 'callees' } }),
      conn.client.callTool({ name: 'sparql_query', arguments: { query: 'SELECT ?f { ?f a <https://quarry.dev/code#Function> } LIMIT 3' } }),
    ];
    const results = await Promise.all(calls.map((p) => p.catch((e) => ({ isError: true, content: [{ text: String(e) }] }))));
    for (const r of results) assert.notEqual(r.isError, true, JSON.stringify(r.content));
    assert.deepEqual(conn.errors.map(String), []);
    assert.deepEqual(await conn.client.ping(), {}, `the ${transport} server is still up`);
    await conn.close();
  }
});

if (failures.length) {
  for (const f of failures) console.log(`FAIL: ${f}`);
  console.log(`${failures.length} of ${failures.length + passed} cancel checks failed`);
  process.exit(1);
}
console.log(`${passed} cancel checks passed`);
