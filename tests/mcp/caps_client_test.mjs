// caps_client_test.mjs: what `quarry mcp` lets a client do, as the official MCP TypeScript
// SDK client sees it (docs/capabilities.md). Run by tests/cli/30_mcp_caps.sh as:
// node caps_client_test.mjs QUARRY REPO STOREDIR PWNED, where REPO is a git repository
// whose .quarry.toml says check = "touch PWNED" and STOREDIR an empty directory for the
// memory stores. Over stdio and over Streamable HTTP:
// - without --allow-write memory, the memory writes are not listed and a call of each is
//   refused naming the flag (directly and from run_lisp), and the store stays as it was;
// - with it, an agent adds two notes, links them, records a visit and reads them back
//   with memory_query and memory_get;
// - dwim's validate runs the repository's check command only with --allow-exec.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [quarry, repo, storeDir, pwned] = process.argv.slice(2);
if (!pwned) {
  console.error('usage: node caps_client_test.mjs QUARRY REPO STOREDIR PWNED');
  process.exit(2);
}

setTimeout(() => {
  console.log(`FAIL: the checks did not finish in 5 minutes; ${passed} passed, failures: ${failures.join('; ')}`);
  process.exit(1);
}, 300000).unref();

const failures = [];
let passed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
  } catch (e) {
    failures.push(`${name}: ${e && e.stack ? e.stack : e}`);
  }
}

// A connection over stdio: { client, close }.
async function stdio(args) {
  const transport = new StdioClientTransport({ command: quarry, args: ['mcp', ...args], stderr: 'pipe' });
  const client = new Client({ name: 'quarry-caps-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

// A connection over Streamable HTTP to a server of its own on 127.0.0.1 port 0.
async function http(args) {
  const proc = spawn(quarry, ['mcp', '--http', '127.0.0.1:0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let stderr = '';
    proc.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (m) resolve(new URL(m[1]));
    });
    proc.on('exit', (code) => reject(new Error(`quarry mcp --http exited ${code}: ${stderr}`)));
  });
  const client = new Client({ name: 'quarry-caps-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(url));
  return {
    client,
    close: async () => {
      await client.close();
      const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
      proc.kill('SIGTERM');
      assert.equal(await exited, 0, 'the HTTP server exits 0 on SIGTERM');
    },
  };
}

const text = (r) => r.content.map((c) => c.text).join('\n');

// a call the server refuses: a tool error whose text names the flag
async function refused(client, name, args, flag) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, true, `${name} is refused: ${text(r)}`);
  assert.ok(text(r).includes(flag), `${name}'s refusal names ${flag}: ${text(r)}`);
}

async function ok(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.notEqual(r.isError, true, `${name}: ${text(r)}`);
  return r.structuredContent;
}

const writers = ['memory_add', 'memory_update', 'memory_delete', 'memory_restore', 'memory_link', 'memory_unlink', 'memory_visit'];

for (const [surface, connect] of [['stdio', stdio], ['http', http]]) {
  const store = `${storeDir}/${surface}.db`;

  await check(`${surface}: without --allow-write the writes are absent and refused`, async () => {
    const { client, close } = await connect(['--repo', repo, '--store', store]);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const w of writers) assert.ok(!names.includes(w), `${w} is not listed: ${names}`);
      assert.ok(names.includes('memory_query') && names.includes('memory_get'), `${names}`);
      await refused(client, 'memory_add', { key: 'fact#1', content: 'the journal is append-only' }, '--allow-write memory');
      await refused(client, 'memory_link', { source: 'fact#1', target: 'fact#2' }, '--allow-write memory');
      await refused(client, 'memory_visit', { key: 'fact#1', agent: 'reader' }, '--allow-write memory');
      await refused(client, 'memory_delete', { key: 'fact#1' }, '--allow-write memory');
      // a program cannot reach them either
      await refused(client, 'run_lisp', { program: '(tool/memory_add {:key "fact#1"})' }, '--allow-write memory');
      const viaDwim = await client.callTool({ name: 'dwim', arguments: { line: 'memory_add key=fact#1 content=x' } });
      assert.equal(viaDwim.isError, true, `a dwim line cannot write: ${text(viaDwim)}`);
      assert.ok(!existsSync(store), 'nothing created the store');
    } finally {
      await close();
    }
  });

  await check(`${surface}: with --allow-write memory an agent keeps its memory`, async () => {
    const { client, close } = await connect(['--repo', repo, '--store', store, '--allow-write', 'memory']);
    try {
      const tools = (await client.listTools()).tools;
      for (const w of writers) {
        const t = tools.find((x) => x.name === w);
        assert.ok(t, `${w} is listed`);
        assert.equal(t.annotations.readOnlyHint, false, `${w} is not read-only`);
      }
      assert.equal(tools.find((x) => x.name === 'memory_delete').annotations.destructiveHint, true);
      assert.equal(tools.find((x) => x.name === 'memory_visit').annotations.idempotentHint, false);
      assert.equal(tools.find((x) => x.name === 'run_lisp').annotations.readOnlyHint, false, 'run_lisp can now write');
      assert.deepEqual(await ok(client, 'memory_add', { key: 'fact#1', content: 'the journal is append-only', tags: ['btree'] }), { added: 'fact#1' });
      assert.deepEqual(await ok(client, 'memory_add', { key: 'fact#2', content: 'pages are 4 KiB', weight: 0.8 }), { added: 'fact#2' });
      const link = await ok(client, 'memory_link', { source: 'fact#1', target: 'fact#2', strength: 0.7, type: 'supports' });
      assert.deepEqual(link, { source: 'fact#1', target: 'fact#2', type: 'supports', strength: 0.7, created: true });
      assert.deepEqual(await ok(client, 'memory_visit', { key: 'fact#1', agent: 'reader', outcome: 'used' }), { visited: 'fact#1', agent: 'reader' });
      // read back: both notes, in store order, with their content
      const all = (await ok(client, 'memory_query', { pipeline: 'all' })).result;
      assert.deepEqual(all.map((n) => [n.key, n.content, n.weight]), [
        ['fact#1', 'the journal is append-only', 0.5],
        ['fact#2', 'pages are 4 KiB', 0.8],
      ]);
      // the visit: fact#1 was seen by reader, fact#2 was not
      const unseen = (await ok(client, 'memory_query', { pipeline: 'all | not-visited:reader,7d' })).result;
      assert.deepEqual(unseen.map((n) => n.key), ['fact#2']);
      // the link: spreading from fact#1 reaches fact#2
      const spread = (await ok(client, 'memory_query', { pipeline: 'key:fact#1 | spread' })).result;
      assert.ok(spread.some((n) => n.key === 'fact#2'), JSON.stringify(spread));
      const got = await ok(client, 'memory_get', { key: 'fact#1' });
      assert.deepEqual(got.links, [{ source: 'fact#1', target: 'fact#2', type: 'supports', strength: 0.7 }]);
      assert.deepEqual(got.tags, ['btree']);
      // a dwim line reaches the writes too (it names a tool with key=value parameters)
      const viaDwim = await client.callTool({ name: 'dwim', arguments: { line: 'memory_add key=fact#3 content=third' } });
      assert.notEqual(viaDwim.isError, true, text(viaDwim));
      assert.equal((await ok(client, 'memory_get', { key: 'fact#3' })).content, 'third');
      // the store's own errors come back as tool errors
      const dup = await client.callTool({ name: 'memory_add', arguments: { key: 'fact#1' } });
      assert.equal(dup.isError, true);
      assert.ok(text(dup).includes('already exists: change it with memory_update'), text(dup));
      // executing stays refused: --allow-write does not allow it
      await refused(client, 'dwim', { line: 'validate' }, '--allow-exec');
      assert.ok(!existsSync(pwned), 'validate ran nothing');
    } finally {
      await close();
    }
  });

  await check(`${surface}: dwim validate runs the repository's command only with --allow-exec`, async () => {
    rmSync(pwned, { force: true });
    let c = await connect(['--repo', repo]);
    try {
      const dwim = (await c.client.listTools()).tools.find((t) => t.name === 'dwim');
      assert.equal(dwim.annotations.readOnlyHint, true, 'dwim without --allow-exec only reads');
      await refused(c.client, 'dwim', { line: 'validate' }, '--allow-exec');
      assert.ok(!existsSync(pwned), `${pwned} was not created`);
      // its reading verbs still work
      const r = await c.client.callTool({ name: 'dwim', arguments: { line: 'read README:1-1' } });
      assert.notEqual(r.isError, true, text(r));
    } finally {
      await c.close();
    }
    c = await connect(['--repo', repo, '--allow-exec']);
    try {
      const dwim = (await c.client.listTools()).tools.find((t) => t.name === 'dwim');
      assert.equal(dwim.annotations.readOnlyHint, false, 'dwim with --allow-exec says it is not read-only');
      assert.equal(dwim.annotations.destructiveHint, true);
      const r = await c.client.callTool({ name: 'dwim', arguments: { line: 'validate' } });
      assert.notEqual(r.isError, true, text(r));
      assert.ok(existsSync(pwned), `${pwned} was created by the check command`);
    } finally {
      await c.close();
      rmSync(pwned, { force: true });
    }
  });
}

if (failures.length) {
  for (const f of failures) console.log(`FAIL: ${f}`);
  console.log(`${failures.length} of ${failures.length + passed} MCP capability checks failed`);
  process.exit(1);
}
console.log(`${passed} MCP capability checks passed (stdio and HTTP)`);
process.exit(0);
