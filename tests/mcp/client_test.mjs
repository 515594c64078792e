// client_test.mjs: `quarry mcp` as the official MCP TypeScript SDK client sees it.
// Run by tests/cli/06_mcp.sh as: node client_test.mjs QUARRY ALPHA BETA GAMMA DELTA, where
// the four are fixture repositories (ALPHA: 6 commits by Ann, Bob and Carol; BETA: 2
// commits by Dora; GAMMA: 1,200 commits by Gus; DELTA: 79 commits in the ten days from
// 2024-05-01 and 21 before them). Each check connects over stdio the way Claude
// Code does, and compares what the tools return with what git says. The SDK validates
// every structuredContent against the tool's outputSchema, so a result that does not
// match its declared schema fails here too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync } from 'node:fs';
import { EmptyResultSchema, LoggingMessageNotificationSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

const [quarry, alpha, beta, gamma, delta] = process.argv.slice(2);
if (!delta) {
  console.error('usage: node client_test.mjs QUARRY ALPHA BETA GAMMA DELTA');
  process.exit(2);
}

const git = (repo, ...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
const lines = (text) => text.split('\n').filter((l) => l !== '');

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

// Starts `quarry mcp ARGS` and connects a client to it.
async function connect(args) {
  const transport = new StdioClientTransport({
    command: quarry,
    args: ['mcp', ...args],
    env: { ...process.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'quarry-test', version: '1.0.0' }, { capabilities: {} });
  const errors = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return { client, transport, errors, stderr: () => stderr };
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

function text(result) {
  return result.content.map((c) => c.text).join('\n');
}

// A tool error: isError with a message that contains fragment.
async function toolError(client, name, args, fragment) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, true, `expected isError from ${name}(${JSON.stringify(args)}), got ${text(r)}`);
  assert.ok(text(r).includes(fragment), `'${text(r)}' lacks '${fragment}'`);
}

const gitTools = ['get_commits', 'get_author_stats', 'get_file_stats', 'get_file_history', 'get_diff_stats', 'get_diff', 'get_tags'];
// tools that read the repository get `repo` (sparql_query: its code graph); memory_query
// reads the memory store
const repoTools = [...gitTools, 'query_codebase', 'sparql_query', 'search_codebase', 'run_lisp', 'run_query', 'dwim'];
// tools whose result may be a list get `offset` (get_diff_stats returns an object;
// get_diff pages its files with an `offset` of its own)
const pagedTools = ['get_diff', 'get_tags', 'get_commits', 'get_author_stats', 'get_file_stats', 'get_file_history', 'memory_query', 'query_codebase', 'sparql_query', 'search_codebase', 'run_lisp', 'run_query', 'dwim'];

const main = await connect(['--repo', alpha]);
const { client } = main;

await check('initialize: server info, capabilities, instructions', async () => {
  assert.equal(client.getServerVersion().name, 'quarry');
  const caps = client.getServerCapabilities();
  assert.ok(caps.tools, 'tools capability');
  assert.ok(caps.logging, 'logging capability');
  assert.ok(client.getInstructions().includes('run_lisp'));
  assert.deepEqual(await client.ping(), {});
});

let tools;
await check('tools/list: every registry tool and run_lisp, with schemas', async () => {
  tools = (await client.listTools()).tools;
  const names = tools.map((t) => t.name);
  for (const n of [...gitTools, 'run_lisp', 'run_query']) assert.ok(names.includes(n), `${n} in ${names}`);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.outputSchema.type, 'object', t.name);
    assert.equal(t.annotations.readOnlyHint, true, t.name);
    assert.ok(t.description.length > 20, t.name);
    if (repoTools.includes(t.name)) assert.equal(t.inputSchema.properties.repo.type, 'string', `${t.name} has repo`);
    else assert.equal(t.inputSchema.properties.repo, undefined, `${t.name} has no repo`);
    if (pagedTools.includes(t.name)) assert.equal(t.inputSchema.properties.offset.type, 'integer', `${t.name} has offset`);
    else assert.equal(t.inputSchema.properties.offset, undefined, `${t.name} has no offset`);
  }
  // the descriptors are exactly `quarry tools --format mcp` (the served list exported)
  const exported = JSON.parse(execFileSync(quarry, ['tools', '--format', 'mcp'], { encoding: 'utf8' }));
  assert.deepEqual(tools, exported);
  for (const t of tools) assert.ok(typeof t.title === 'string' && t.title.length > 3, `${t.name} has a title`);
  // and the registry's own export is the same tools less the server's additions, and
  // less the tools that write or execute, which a server started without --allow-write
  // or --allow-exec holds back
  const registry = JSON.parse(execFileSync(quarry, ['tools', '--format', 'json'], { encoding: 'utf8' }));
  for (const e of registry) {
    const t = tools.find((x) => x.name === e.name);
    if (e.capabilities.includes('writes') || e.capabilities.includes('exec')) {
      assert.equal(t, undefined, `${e.name} writes: not served by default`);
      continue;
    }
    assert.ok(t, `${e.name} is served`);
    const { repo, ...withOffset } = t.inputSchema.properties;
    const { offset, ...withoutOffset } = withOffset;
    assert.equal(!!repo, repoTools.includes(t.name), `${t.name}: repo`);
    assert.equal(!!offset, pagedTools.includes(t.name), `${t.name}: offset`);
    // (a tool may take offset itself, as query_codebase does)
    const props = e.parameters.properties.offset ? withOffset : withoutOffset;
    assert.deepEqual({ ...t.inputSchema, properties: props }, e.parameters);
  }
});

await check('resources: the Lisp and query DSL references', async () => {
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri), ['quarry://reference/lisp', 'quarry://reference/query']);
  const lisp = await client.readResource({ uri: 'quarry://reference/lisp' });
  assert.ok(lisp.contents[0].text.includes('(tool/NAME'), 'the Lisp reference says how tools are called');
  assert.ok(lisp.contents[0].text.includes('`(frequencies'), 'and lists the builtins');
  const query = await client.readResource({ uri: 'quarry://reference/query' });
  assert.ok(query.contents[0].text.includes('- `filter`'), 'the query reference lists the transform steps');
  await rejects(client.readResource({ uri: 'quarry://nothing' }), -32002, 'unknown resource');
  // the MCP Inspector lists templates once it sees the resources capability: an empty list
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates, []);
});

await check('prompts: the common questions', async () => {
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name), ['recent-commits', 'top-contributors', 'file-history', 'hotspots']);
  const p = await client.getPrompt({ name: 'file-history', arguments: { path: 'src/main.c' } });
  assert.equal(p.messages[0].role, 'user');
  assert.ok(p.messages[0].content.text.includes('get_file_history (path: "src/main.c")'), p.messages[0].content.text);
  const d = await client.getPrompt({ name: 'recent-commits' });
  assert.ok(d.messages[0].content.text.includes('since: "1 week ago"'), 'an argument left out takes its default');
  await rejects(client.getPrompt({ name: 'file-history' }), -32602, "argument 'path'");
  await rejects(client.getPrompt({ name: 'nope' }), -32602, 'unknown prompt');
});

await check('tools/list: pages of 2 with a cursor, and a bad cursor', async () => {
  const paged = await connect(['--repo', alpha, '--page-size', '2']);
  const names = [];
  let cursor;
  let pages = 0;
  do {
    const page = await paged.client.listTools(cursor ? { cursor } : {});
    assert.ok(page.tools.length <= 2);
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  assert.deepEqual(names, tools.map((t) => t.name));
  assert.equal(pages, Math.ceil(tools.length / 2));
  await rejects(paged.client.listTools({ cursor: 'no-such-cursor' }), -32602, 'cursor');
  await paged.client.close();
});

await check('get_commits agrees with git log', async () => {
  const r = await client.callTool({ name: 'get_commits', arguments: {} });
  assert.equal(r.isError, false);
  const rows = r.structuredContent.result;
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
  const log = lines(git(alpha, 'log', '--format=%H%x09%an%x09%ae%x09%at%x09%s')).map((l) => l.split('\t'));
  assert.deepEqual(
    rows.map((c) => [c.hash, c.author, c.email, String(c.timestamp), c.subject]),
    log,
  );
  // line counts as git log --numstat --no-renames counts them
  const numstat = git(alpha, 'log', '--numstat', '--no-renames', '--format=@%H');
  const sums = {};
  let cur;
  for (const l of lines(numstat)) {
    if (l.startsWith('@')) sums[(cur = l.slice(1))] = { files: 0, additions: 0, deletions: 0 };
    else {
      const [add, del] = l.split('\t');
      sums[cur].files++;
      sums[cur].additions += Number(add);
      sums[cur].deletions += Number(del);
    }
  }
  for (const c of rows) assert.deepEqual({ files: c.files, additions: c.additions, deletions: c.deletions }, sums[c.hash], c.subject);
});

await check('get_commits with limit and path agrees with git log', async () => {
  const r = await client.callTool({ name: 'get_commits', arguments: { limit: 2, path: 'src' } });
  const want = lines(git(alpha, 'log', '-n', '2', '--format=%H', '--', 'src'));
  assert.deepEqual(r.structuredContent.result.map((c) => c.hash), want);
});

await check('get_author_stats agrees with git shortlog', async () => {
  const r = await client.callTool({ name: 'get_author_stats', arguments: {} });
  const want = lines(git(alpha, 'shortlog', '-sne', 'HEAD')).map((l) => {
    const m = l.trim().match(/^(\d+)\t(.*) <(.*)>$/);
    return [Number(m[1]), m[2], m[3]];
  });
  assert.deepEqual(r.structuredContent.result.map((a) => [a.commits, a.author, a.email]), want);
});

await check('get_file_history follows the rename as git log --follow', async () => {
  const r = await client.callTool({ name: 'get_file_history', arguments: { path: 'journal.txt' } });
  const want = lines(git(alpha, 'log', '--follow', '--format=%H', '--', 'journal.txt'));
  assert.deepEqual(r.structuredContent.result.map((c) => c.hash), want);
});

await check('get_diff_stats (an object result) agrees with git diff --numstat', async () => {
  const r = await client.callTool({ name: 'get_diff_stats', arguments: { from: 'HEAD~3' } });
  const d = r.structuredContent;
  assert.equal(d.to, git(alpha, 'rev-parse', 'HEAD').trim());
  const rows = lines(git(alpha, 'diff', '--numstat', '--no-renames', 'HEAD~3', 'HEAD')).map((l) => l.split('\t'));
  assert.equal(d.files, rows.length);
  assert.equal(d.additions, rows.reduce((s, x) => s + Number(x[0]), 0));
  assert.equal(d.deletions, rows.reduce((s, x) => s + Number(x[1]), 0));
});

await check('run_lisp: a program over the tools agrees with git', async () => {
  const r = await client.callTool({
    name: 'run_lisp',
    arguments: { program: '(->> (tool/get_commits {}) (map :author) frequencies)' },
  });
  assert.equal(r.isError, false, text(r));
  const want = {};
  for (const a of lines(git(alpha, 'log', '--format=%an'))) want[a] = (want[a] || 0) + 1;
  assert.deepEqual(r.structuredContent, { result: want });
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
});

await check('run_lisp: data, println output, (return v)', async () => {
  let r = await client.callTool({
    name: 'run_lisp',
    arguments: { program: '(println "sum of" (count data/xs)) (reduce + data/xs)', data: { xs: [1, 2, 3, 4] } },
  });
  assert.deepEqual(r.structuredContent, { result: 10, output: 'sum of 4\n' });
  r = await client.callTool({ name: 'run_lisp', arguments: { program: '(do (return {:k #{:a}}) 1)' } });
  assert.deepEqual(r.structuredContent, { result: { k: ['a'] } });
});

await check('dwim: one terse line runs, an unclear one is an error with its readings', async () => {
  const r = await client.callTool({ name: 'dwim', arguments: { line: 'get_commits limit=1' } });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.ok(r.content[0].text.includes(':short_hash'), r.content[0].text);
  await toolError(client, 'dwim', { line: 'make coffee' }, 'unclear');
  await toolError(client, 'dwim', { line: 'fix: anything' }, '--write');
});

await check('run_query: a query in JSON and in EDN agrees with git', async () => {
  const query = {
    fetch: [{ tool: 'get_commits', as: 'commits', params: {} }],
    transform: [
      { op: 'filter', on: 'commits', as: 'multi', where: ['>', 'files', 1] },
      { op: 'sort', on: 'multi', as: 'ranked', by: 'timestamp', order: 'asc' },
    ],
    return: { findings: 'ranked', summary: '{{count:ranked}} commits changed several files' },
  };
  let r = await client.callTool({ name: 'run_query', arguments: { query } });
  assert.equal(r.isError, false, text(r));
  // commits whose diff (git log --numstat --no-renames) touched more than one file, oldest first
  const want = [];
  let cur;
  let files = 0;
  const flush = () => cur && files > 1 && want.unshift(cur);
  for (const l of lines(git(alpha, 'log', '--numstat', '--no-renames', '--format=@%H'))) {
    if (l.startsWith('@')) {
      flush();
      cur = l.slice(1);
      files = 0;
    } else files++;
  }
  flush();
  assert.deepEqual(r.structuredContent.result.findings.map((c) => c.hash), want);
  assert.equal(r.structuredContent.result.summary, `${want.length} commits changed several files`);
  r = await client.callTool({
    name: 'run_query',
    arguments: {
      text: '{:fetch [{:tool :get_commits :as :c}] :transform [{:op :group :on :c :as :g :by :author} {:op :aggregate :on :g :as :n :compute {:commits [:count]}}] :return {:findings :n}}',
      repo: beta,
    },
  });
  assert.deepEqual(r.structuredContent.result.findings, [{ author: 'Dora', commits: 2 }]);
  await toolError(client, 'run_query', { query: { fetch: [{ tool: 'get_comits', as: 'c' }], return: { findings: 'c' } } }, "did you mean :get_commits");
  await toolError(client, 'run_query', {}, "'query'");
  await toolError(client, 'run_query', { text: '{:fetch' }, 'invalid query');
});

await check('the repo argument selects another repository (one host each)', async () => {
  let r = await client.callTool({ name: 'get_commits', arguments: { repo: beta } });
  assert.deepEqual(r.structuredContent.result.map((c) => c.subject), ['Grow beta', 'Start beta']);
  r = await client.callTool({
    name: 'run_lisp',
    arguments: { program: '(map :author (tool/get_commits {}))', repo: beta },
  });
  assert.deepEqual(r.structuredContent.result, ['Dora', 'Dora']);
  // and back: the default repository is still alpha
  r = await client.callTool({ name: 'get_commits', arguments: { limit: 1 } });
  assert.equal(r.structuredContent.result[0].subject, 'Grow journal');
  r = await client.callTool({ name: 'get_commits', arguments: { limit: 1, repo: alpha + '/src' } });
  assert.equal(r.structuredContent.result[0].subject, 'Grow journal');
});

await check('bad arguments are tool errors an LLM can act on', async () => {
  await toolError(client, 'get_commits', { sinse: '1 week ago' }, "did you mean 'since'");
  await toolError(client, 'get_commits', { limit: 'ten' }, "parameter 'limit'");
  await toolError(client, 'get_commits', { limit: 0 }, 'at least 1');
  await toolError(client, 'get_commits', { merges: 'exclud' }, 'exclude');
  await toolError(client, 'get_file_history', {}, "missing required parameter 'path'");
  await toolError(client, 'get_commits', { ref: 'no-such-branch' }, 'no-such-branch');
  await toolError(client, 'get_commits', { since: 'the day after tomorrow-ish' }, 'since');
  await toolError(client, 'get_commits', { repo: '/nonexistent/quarry-repo' }, 'not a git repository');
  await toolError(client, 'get_commits', { repo: 42 }, "'repo'");
  await toolError(client, 'get_commits', { repo: '/' }, 'repository');
  await toolError(client, 'run_lisp', {}, "missing required parameter 'program'");
  await toolError(client, 'run_lisp', { program: '(+ 1' }, 'parse-error');
  await toolError(client, 'run_lisp', { program: '(tool/get_commits {:sinse 1})' }, "did you mean 'since'");
  await toolError(client, 'run_lisp', { program: '(inc "a")' }, 'type-error');
  await toolError(client, 'run_lisp', { program: '(fail "stop here")' }, 'stop here');
  await toolError(client, 'run_lisp', { program: '(println "before") (/ 1 0)' }, 'before');
  await rejects(client.callTool({ name: 'get_comits', arguments: {} }), -32602, "did you mean 'get_commits'");
});

await check('long results are cut to --max-rows and say so', async () => {
  const small = await connect(['--repo', alpha, '--max-rows', '2']);
  await small.client.listTools();
  let r = await small.client.callTool({ name: 'get_commits', arguments: {} });
  assert.equal(r.structuredContent.result.length, 2);
  assert.equal(r.structuredContent.omitted, 4);
  assert.equal(r.structuredContent.next_offset, 2);
  assert.ok(r.content[1].text.includes('4 more rows were left out'), r.content[1].text);
  assert.ok(r.content[1].text.includes('"offset": 2'), r.content[1].text);
  r = await small.client.callTool({ name: 'run_lisp', arguments: { program: '(range 10)' } });
  assert.deepEqual(r.structuredContent, { result: [0, 1], offset: 0, total: 10, omitted: 8, next_offset: 2 });
  r = await small.client.callTool({ name: 'run_lisp', arguments: { program: '(range 10)', offset: 8 } });
  assert.deepEqual(r.structuredContent, { result: [8, 9], offset: 8, total: 10 });
  assert.ok(r.content[1].text.includes('the last page'), r.content[1].text);
  // a program inside the sandbox sees the whole window whatever --max-rows says
  r = await small.client.callTool({ name: 'run_lisp', arguments: { program: '(count (tool/get_commits {}))' } });
  assert.deepEqual(r.structuredContent, { result: 6 });
  await toolError(small.client, 'get_commits', { offset: -1 }, "parameter 'offset'");
  await small.client.close();
});

await check('all 79 commits of a 10-day window, through pages', async () => {
  const want = lines(git(delta, 'log', '--format=%H', '--since=2024-05-01T00:00:00Z', '--until=2024-05-10T23:59:59Z'));
  assert.equal(want.length, 79);
  const window = { since: '2024-05-01T00:00:00Z', until: '2024-05-10T23:59:59Z', repo: delta };
  const got = [];
  let offset = 0;
  let pages = 0;
  for (;;) {
    const r = await client.callTool({ name: 'get_commits', arguments: offset ? { ...window, offset } : window });
    assert.equal(r.isError, false, text(r));
    const page = r.structuredContent;
    got.push(...page.result.map((c) => c.hash));
    pages++;
    if (page.next_offset === undefined) break;
    assert.equal(page.total, 79);
    assert.equal(page.next_offset, got.length);
    offset = page.next_offset;
  }
  assert.equal(pages, 2);
  assert.deepEqual(got, want);
  // the same through run_query's findings
  const q = { fetch: [{ tool: 'get_commits', as: 'c', params: { since: window.since, until: window.until } }], return: { findings: 'c' } };
  const first = (await client.callTool({ name: 'run_query', arguments: { query: q, repo: delta } })).structuredContent;
  assert.equal(first.total, 79);
  const second = (await client.callTool({ name: 'run_query', arguments: { query: q, repo: delta, offset: first.next_offset } })).structuredContent;
  assert.deepEqual([...first.result.findings, ...second.result.findings].map((c) => c.hash), want);
});

await check('progress notifications for a long call, rising to the total', async () => {
  const slow = await connect(['--repo', alpha, '--no-index']);
  const seen = [];
  const r = await slow.client.callTool(
    { name: 'get_author_stats', arguments: { repo: gamma } },
    undefined,
    { onprogress: (p) => seen.push(p) },
  );
  assert.deepEqual(r.structuredContent.result.map((a) => [a.author, a.commits]), [['Gus', 1200]]);
  assert.ok(seen.length >= 1, 'at least one progress notification');
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress);
  // the last notification (1200 of 1200) precedes the response on the wire
  // (07_mcp_protocol.sh checks that), but the SDK handles notifications a tick later
  // than responses and may drop it, so only what came is checked here
  for (const p of seen) {
    assert.equal(p.total, 1200);
    assert.ok(p.progress >= 0 && p.progress <= p.total);
  }
  if (process.env.QDEBUG) console.log('progress', JSON.stringify(seen));
  await slow.client.close();
});

await check('logging/setLevel and notifications/message', async () => {
  const logs = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
  await client.setLoggingLevel('debug');
  await client.callTool({ name: 'get_commits', arguments: { limit: 1 } });
  assert.ok(logs.some((l) => l.level === 'debug' && /tools\/call get_commits: ok/.test(l.data)), JSON.stringify(logs));
  await client.setLoggingLevel('error');
  const before = logs.length;
  await client.callTool({ name: 'get_commits', arguments: { limit: 1 } });
  assert.equal(logs.length, before);
  await rejects(client.request({ method: 'logging/setLevel', params: { level: 'loud' } }, EmptyResultSchema), -32602, 'loud');
});

// A program that would spin until its limits, set so high (an hour, 10^15 steps) that only
// a cancellation can stop it within the test.
const spinArgs = ['--timeout-ms', '3600000', '--max-steps', '1000000000000000'];
const SPIN = '(loop [] (recur))';

await check('ping and a second call are answered while a long call runs', async () => {
  const c = await connect(['--repo', alpha, '--workers', '2', ...spinArgs]);
  const ac = new AbortController();
  let settled = false;
  const slow = c.client.callTool({ name: 'run_lisp', arguments: { program: SPIN } }, undefined, { signal: ac.signal, timeout: 600000 });
  slow.then(() => (settled = true), () => (settled = true));
  assert.deepEqual(await c.client.ping(), {});
  const r = await c.client.callTool({ name: 'get_commits', arguments: { limit: 1 } });
  assert.equal(r.structuredContent.result.length, 1);
  assert.equal(settled, false, 'the long call is still running');
  ac.abort('done');
  await assert.rejects(slow);
  await c.client.close();
});

await check('a cancel stops a running program: it gets no response, and the server goes on', async () => {
  // one worker: the next call can only run once the spinning program has stopped. The
  // program first computes statistics for GAMMA's 1,200 commits (without the index), whose
  // progress notifications show that it runs before it is cancelled (in the statistics
  // or in the loop after them)
  const c = await connect(['--repo', gamma, '--no-index', '--workers', '1', ...spinArgs]);
  const ac = new AbortController();
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
  slow.catch(() => {});
  await running;
  assert.deepEqual(await c.client.ping(), {}, 'ping is answered while the program runs');
  ac.abort('changed my mind');
  await assert.rejects(slow);
  const r = await c.client.callTool({ name: 'run_lisp', arguments: { program: '(+ 1 2)' } }, undefined, { timeout: 600000 });
  assert.deepEqual(r.structuredContent, { result: 3 });
  assert.deepEqual(await c.client.ping(), {});
  assert.deepEqual(c.errors.map(String), [], 'no response came for the cancelled request');
  await c.client.close();
});

await check('a cancelled call queued behind another is never run', async () => {
  const c = await connect(['--repo', alpha, '--workers', '1', ...spinArgs]);
  const a1 = new AbortController();
  const a2 = new AbortController();
  const first = c.client.callTool({ name: 'run_lisp', arguments: { program: SPIN } }, undefined, { signal: a1.signal, timeout: 600000 });
  const queued = c.client.callTool({ name: 'run_lisp', arguments: { program: '(+ 1 2)' } }, undefined, { signal: a2.signal, timeout: 600000 });
  assert.deepEqual(await c.client.ping(), {});
  a2.abort('not needed');
  a1.abort('not needed');
  await assert.rejects(queued);
  await assert.rejects(first);
  const r = await c.client.callTool({ name: 'run_lisp', arguments: { program: '(+ 4 5)' } }, undefined, { timeout: 600000 });
  assert.deepEqual(r.structuredContent, { result: 9 });
  assert.deepEqual(c.errors.map(String), [], 'no response came for either cancelled request');
  await c.client.close();
});

await check('no protocol errors on the main connection', async () => {
  assert.deepEqual(main.errors.map(String), []);
});
await client.close();

if (failures.length) {
  for (const f of failures) console.log(`FAIL: ${f}`);
  console.log(`${failures.length} of ${failures.length + passed} MCP client checks failed`);
  process.exit(1);
}
const sdk = JSON.parse(readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url)));
console.log(`${passed} MCP client checks passed (@modelcontextprotocol/sdk ${sdk.version})`);
