// client_test.mjs: `quarry lsp` as a real LSP client sees it (vscode-languageserver-protocol
// over vscode-jsonrpc, what VS Code's client library is built on). Run by
// tests/cli/19_lsp.sh as: node client_test.mjs QUARRY EXAMPLES_DIR. Each check drives the
// server over stdio: diagnostics published as the document changes, completion by
// context, hover, go to definition, document symbols, formatting (the edits applied give
// `quarry flow fmt`'s output), errors for unknown methods, shutdown and exit.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  InitializeRequest,
  InitializedNotification,
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  PublishDiagnosticsNotification,
  CompletionRequest,
  HoverRequest,
  DefinitionRequest,
  DocumentSymbolRequest,
  DocumentFormattingRequest,
  ShutdownRequest,
  ExitNotification,
} from 'vscode-languageserver-protocol/node.js';

const [quarry, examples] = process.argv.slice(2);
if (!examples) {
  console.error('usage: node client_test.mjs QUARRY EXAMPLES_DIR');
  process.exit(2);
}

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

const child = spawn(quarry, ['lsp'], { stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (d) => (stderr += d));
const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));

// diagnostics: the next publication for a uri
const waiting = new Map();
const latest = new Map();
conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
  latest.set(p.uri, p.diagnostics);
  const w = waiting.get(p.uri);
  if (w) {
    waiting.delete(p.uri);
    w(p.diagnostics);
  }
});
const nextDiagnostics = (uri) =>
  new Promise((resolve, reject) => {
    waiting.set(uri, resolve);
    setTimeout(() => reject(new Error('no diagnostics for ' + uri)), 10000);
  });
conn.listen();

const broken = readFileSync(`${examples}/broken.flow`, 'utf8');
const review = readFileSync(`${examples}/review.flow`, 'utf8');
const uri = 'file:///work/review.flow';
const lineOf = (text, needle) => text.split('\n').findIndex((l) => l.includes(needle));

await check('initialize', async () => {
  const r = await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
  });
  assert.equal(r.serverInfo.name, 'quarry');
  assert.equal(r.capabilities.textDocumentSync.change, 1);
  assert.ok(r.capabilities.completionProvider);
  assert.equal(r.capabilities.hoverProvider, true);
  assert.equal(r.capabilities.definitionProvider, true);
  assert.equal(r.capabilities.documentSymbolProvider, true);
  assert.equal(r.capabilities.documentFormattingProvider, true);
  await conn.sendNotification(InitializedNotification.type, {});
});

await check('diagnostics on open', async () => {
  const p = nextDiagnostics(uri);
  await conn.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'flow', version: 1, text: broken },
  });
  const diags = await p;
  assert.deepEqual(diags.map((d) => d.code), ['E0015', 'E0013', 'E0010', 'E0001', 'E0001', 'E0001', 'E0002']);
  const agent = diags.find((d) => d.message.includes("undefined agent 'reviwer'"));
  const line = lineOf(broken, 'run agent reviwer');
  assert.deepEqual(agent.range, { start: { line, character: 14 }, end: { line, character: 21 } });
  assert.equal(agent.severity, 1);
  assert.match(agent.message, /did you mean 'reviewer'\?/);
  // the same as `quarry flow check --format json`
  const out = spawnSync(quarry, ['flow', 'check', '--format', 'json', `${examples}/broken.flow`], { encoding: 'utf8' });
  assert.equal(out.status, 1);
  const cli = JSON.parse(out.stdout);
  assert.deepEqual(diags.map((d) => [d.code, d.range.start.line + 1, d.range.start.character + 1]),
    cli.files[0].diagnostics.map((d) => [d.code, d.line, d.column]));
});

await check('diagnostics as the file changes', async () => {
  let p = nextDiagnostics(uri);
  await conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [{ text: review }],
  });
  assert.deepEqual(await p, []);
  p = nextDiagnostics(uri);
  await conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 3 },
    contentChanges: [{ text: review.replace('run agent reviewer', 'run agent reviewr') }],
  });
  const d = await p;
  assert.equal(d.length, 1);
  assert.equal(d[0].code, 'E0001');
  p = nextDiagnostics(uri);
  await conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 4 },
    contentChanges: [{ text: review }],
  });
  assert.deepEqual(await p, []);
});

const pos = (needle, offset) => ({ line: lineOf(review, needle), character: review.split('\n')[lineOf(review, needle)].indexOf(needle) + offset });
const labels = (r) => (Array.isArray(r) ? r : r.items).map((i) => i.label).sort();

await check('completion: agents after run agent', async () => {
  const r = await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: pos('run agent reviewer', 10) });
  assert.deepEqual(labels(r), ['reviewer']);
});
await check('completion: prompts after call llm', async () => {
  const r = await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: pos('call llm summary_prompt', 9) });
  assert.deepEqual(labels(r), ['review_input', 'reviewer_instruction', 'summary_prompt']);
});
await check('completion: schema fields after filter ... where .', async () => {
  const r = await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: pos('.confidence', 1) });
  assert.deepEqual(labels(r), ['confidence', 'file', 'line', 'message']);
});
await check('completion: variables after $ in a prompt body', async () => {
  const r = await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: pos('$change', 1) });
  const l = labels(r);
  for (const v of ['change', 'confident', 'findings', 'input_prompt', 'summary', 'review_input']) assert.ok(l.includes(v), v + ' in ' + l);
});
await check('completion: keywords at the start of a flow line', async () => {
  const r = await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line: lineOf(review, 'return summary'), character: 4 } });
  const l = labels(r);
  for (const k of ['run', 'call', 'for', 'if', 'parallel', 'return', 'change']) assert.ok(l.includes(k), k);
});

await check('hover: a prompt shows its body', async () => {
  const r = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: pos('prompt review_input', 9) });
  assert.equal(r.contents.kind, 'markdown');
  assert.match(r.contents.value, /expecting `Finding\[\]`/);
  assert.match(r.contents.value, /Review this change: \$change/);
});
await check('hover: an agent shows its properties', async () => {
  const r = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: pos('run agent reviewer', 12) });
  assert.match(r.contents.value, /\*\*agent\*\* `reviewer`/);
  assert.match(r.contents.value, /produces: `findings`/);
});

await check('definition: an agent, a prompt, a variable', async () => {
  let r = await conn.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: pos('run agent reviewer', 12) });
  assert.equal(r.uri, uri);
  assert.deepEqual(r.range.start, { line: lineOf(review, 'agent reviewer:'), character: 6 });
  r = await conn.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: pos('call llm summary_prompt', 12) });
  assert.deepEqual(r.range.start, { line: lineOf(review, 'prompt summary_prompt:'), character: 7 });
  r = await conn.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: pos('$change', 2) });
  assert.deepEqual(r.range.start, { line: lineOf(review, 'change = input_prompt'), character: 4 });
  r = await conn.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: pos('filter findings', 9) });
  assert.deepEqual(r.range.start, { line: lineOf(review, 'produces findings'), character: 13 });
});

await check('document symbols', async () => {
  const r = await conn.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
  assert.deepEqual(r.map((s) => `${s.detail} ${s.name}`), [
    'model main', 'schema Finding', 'prompt reviewer_instruction', 'prompt review_input',
    'prompt summary_prompt', 'agent reviewer', 'flow main',
  ]);
  assert.deepEqual(r[1].children.map((c) => c.name), ['file', 'line', 'message', 'confidence']);
  const flow = r[6];
  assert.equal(flow.range.start.line, lineOf(review, 'flow main:'));
  assert.equal(flow.range.end.line, lineOf(review, 'return summary'));
});

await check('formatting: the edits give quarry flow fmt output', async () => {
  const messy = 'flow main:\n  $x=1+2\n  return x   # done\n';
  const muri = 'file:///work/messy.flow';
  const p = nextDiagnostics(muri);
  await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: muri, languageId: 'flow', version: 1, text: messy } });
  await p;
  const edits = await conn.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: muri }, options: { tabSize: 4, insertSpaces: true } });
  assert.equal(edits.length, 1);
  assert.deepEqual(edits[0].range.start, { line: 0, character: 0 });
  assert.equal(edits[0].newText, 'flow main:\n    x = 1 + 2\n    return x  # done\n');
  const same = await conn.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } });
  assert.deepEqual(same, []);
  const q = nextDiagnostics(muri);
  await conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: muri } });
  assert.deepEqual(await q, []);
});

await check('unknown method: an error, the server goes on', async () => {
  await assert.rejects(conn.sendRequest('textDocument/frobnicate', { textDocument: { uri } }), (e) => e.code === -32601);
  const r = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: pos('run agent reviewer', 12) });
  assert.ok(r);
});

// a 20K-term expression while the user types (or pastes): the flow parser refuses it with a
// depth diagnostic instead of recursing once per term, and the server stays up
await check('a 20K-term expression: a depth diagnostic, the server goes on', async () => {
  const duri = 'file:///work/deep.flow';
  const sum = 'flow main:\n    x = ' + Array(20000).fill('1').join(' + ') + '\n    return x\n';
  let p = nextDiagnostics(duri);
  await conn.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri: duri, languageId: 'flow', version: 1, text: sum },
  });
  let d = await p;
  assert.equal(d.length, 1);
  assert.equal(d[0].code, 'E0007');
  assert.match(d[0].message, /expression nested deeper than \d+ levels/);
  const path = 'flow main:\n    x = {}\n    y = x' + '.a'.repeat(20000) + '\n    return y\n';
  p = nextDiagnostics(duri);
  await conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: duri, version: 2 },
    contentChanges: [{ text: path }],
  });
  d = await p;
  assert.equal(d.length, 1);
  assert.equal(d[0].code, 'E0007');
  const syms = await conn.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: duri } });
  assert.ok(Array.isArray(syms));
  const r = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: pos('run agent reviewer', 12) });
  assert.ok(r);
});

await check('shutdown and exit', async () => {
  await conn.sendRequest(ShutdownRequest.type);
  await conn.sendNotification(ExitNotification.type);
  assert.equal(await exited, 0);
});

conn.dispose();
if (failures.length) {
  console.log(failures.join('\n\n'));
  if (stderr) console.log('server stderr:\n' + stderr);
  console.log(`${failures.length} failed, ${passed} passed`);
  process.exit(1);
}
console.log(`lsp: ${passed} checks passed`);
