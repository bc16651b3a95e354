// A scripted fake model server for the client tests: the real agent CLIs talk to it on 127.0.0.1
// instead of a provider. It speaks the three wire formats the shipped harnesses use:
//   POST /v1/messages           Anthropic Messages (Claude Code; OpenCode's anthropic provider), SSE when stream
//   POST /v1/responses          OpenAI Responses (Codex), SSE when stream
//   POST /v1/chat/completions   OpenAI Chat Completions, SSE when stream
// and answers GET …/models with one model, so a CLI that lists models offline finds one.
//
// A session is a script of abstract steps ({ read }, { write, content }, { bash }, { grep, path },
// { end }); each request of the main conversation (one that offers tools) gets the step whose
// index is the number of tool results already in the conversation, mapped onto the tools that
// request offers (Claude's Read/Bash/Grep, OpenCode's read/bash/grep, Codex's shell). Requests
// that offer no tools (titles, summaries, quota probes) get a short text. Every request body and
// every tool result the CLI sends back is recorded, so the tests assert on what the model saw.
// Plain Node, no dependencies: the tests import it, and it can be run by hand:
//   node test/clients/fake-model.mjs   (prints its URL; a script that reads a file and ends)
import http from 'node:http';

let counter = 0;
const nextId = (prefix) => `${prefix}_${Date.now().toString(36)}${(counter++).toString(36)}`;

/** Tools offered by a request, as { name, params: [property names] }, whatever the format. */
export function offeredTools(body) {
  const tools = Array.isArray(body?.tools) ? [...body.tools] : [];
  // Codex's code mode offers its tools as namespaces inside an `additional_tools` input item.
  for (const item of Array.isArray(body?.input) ? body.input : []) {
    if (item?.type !== 'additional_tools') continue;
    for (const ns of item.tools ?? []) tools.push(...(ns.type === 'namespace' ? (ns.tools ?? []).map((t) => ({ ...t, namespace: ns.name })) : [ns]));
  }
  return tools.map((t) => {
    const fn = t.function ?? t; // chat: { type: 'function', function: { name, parameters } }
    const schema = fn.input_schema ?? fn.parameters ?? {};
    return { name: String(fn.name ?? t.type ?? ''), type: String(t.type ?? ''), namespace: t.namespace ?? null, params: Object.keys(schema.properties ?? {}) };
  });
}

/** Tool results the CLI sent back in this request (the whole conversation so far), as text. */
export function toolResults(format, body) {
  const out = [];
  const text = (c) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (typeof p === 'string' ? p : p?.text ?? p?.output ?? JSON.stringify(p))).join('\n') : JSON.stringify(c ?? ''));
  if (format === 'anthropic') {
    for (const m of body.messages ?? []) {
      if (!Array.isArray(m.content)) continue;
      for (const part of m.content) if (part?.type === 'tool_result') out.push({ id: part.tool_use_id, text: text(part.content), error: part.is_error === true });
    }
  } else if (format === 'responses') {
    for (const item of body.input ?? []) {
      if (item?.type === 'function_call_output' || item?.type === 'custom_tool_call_output') out.push({ id: item.call_id, text: text(item.output) });
    }
  } else {
    for (const m of body.messages ?? []) if (m.role === 'tool') out.push({ id: m.tool_call_id, text: text(m.content) });
  }
  return out;
}

const find = (tools, names) => tools.find((t) => names.some((n) => t.name.toLowerCase() === n.toLowerCase()));
const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

/**
 * One abstract step as a concrete tool call on the tools offered: { name, input } or null when
 * nothing fits (then the step is skipped as text).
 */
export function toToolCall(step, tools) {
  const shell = find(tools, ['Bash', 'bash', 'shell', 'exec_command', 'shell_command', 'local_shell']);
  const codeMode = tools.find((t) => t.name === 'exec' && t.type === 'custom');
  const shellCall = (command) => {
    if (!shell && codeMode) {
      // Codex code mode: the model writes JavaScript that calls the nested exec_command tool.
      const code = `const r = await tools.exec_command({ cmd: ${JSON.stringify(command)} });\ntext(typeof r === 'string' ? r : JSON.stringify(r));`;
      return { name: 'exec', custom: true, input: code };
    }
    if (!shell) return null;
    if (shell.params.includes('cmd')) return { name: shell.name, input: { cmd: command } };
    if (shell.name === 'shell' && !shell.params.includes('description')) return { name: shell.name, input: { command: ['bash', '-c', command] } };
    return { name: shell.name, input: { command, description: 'scripted step' } };
  };
  if (step.bash !== undefined) return shellCall(step.bash);
  if (step.read !== undefined) {
    const read = find(tools, ['Read', 'read']);
    if (read) return { name: read.name, input: read.params.includes('filePath') ? { filePath: step.read } : { file_path: step.read } };
    return shellCall(`cat ${q(step.read)}`);
  }
  if (step.write !== undefined) {
    const write = find(tools, ['Write', 'write']);
    if (write) return { name: write.name, input: write.params.includes('filePath') ? { filePath: step.write, content: step.content } : { file_path: step.write, content: step.content } };
    return shellCall(`mkdir -p "$(dirname ${q(step.write)})" && printf '%s' ${q(step.content)} > ${q(step.write)}`);
  }
  if (step.grep !== undefined) {
    const grep = find(tools, ['Grep', 'grep']);
    if (grep) return { name: grep.name, input: grep.name === 'Grep' ? { pattern: step.grep, path: step.path, output_mode: 'content' } : { pattern: step.grep, path: step.path } };
    return shellCall(`grep -rn ${q(step.grep)} ${q(step.path)}`);
  }
  return null;
}

function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const [event, data] of events) res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  res.end();
}

const usage = { input_tokens: 10, output_tokens: 5 };

function anthropicReply(res, body, call, text) {
  const id = nextId('msg');
  const message = { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage };
  const block = call ? { type: 'tool_use', id: nextId('toolu'), name: call.name, input: call.input } : { type: 'text', text };
  const stop = call ? 'tool_use' : 'end_turn';
  if (!body.stream) return json(res, { ...message, content: [block], stop_reason: stop });
  const events = [['message_start', { type: 'message_start', message }]];
  if (call) {
    events.push(['content_block_start', { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } }]);
    events.push(['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) } }]);
  } else {
    events.push(['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }]);
    events.push(['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }]);
  }
  events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  sse(res, events);
}

function responsesReply(res, body, call, text) {
  const id = nextId('resp');
  const item = call?.custom
    ? { type: 'custom_tool_call', id: nextId('ctc'), call_id: nextId('call'), name: call.name, input: call.input, status: 'completed' }
    : call
    ? { type: 'function_call', id: nextId('fc'), call_id: nextId('call'), name: call.name, arguments: JSON.stringify(call.input), status: 'completed' }
    : { type: 'message', id: nextId('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model, status: 'completed', output: [item], usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } };
  if (!body.stream) return json(res, response);
  const events = [['response.created', { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }]];
  events.push(['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item }]);
  if (!call) events.push(['response.output_text.delta', { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: text }]);
  events.push(['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }]);
  events.push(['response.completed', { type: 'response.completed', response }]);
  sse(res, events);
}

function chatReply(res, body, call, text) {
  const id = nextId('chatcmpl');
  const created = Math.floor(Date.now() / 1000);
  const toolCall = call ? { index: 0, id: nextId('call'), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } } : null;
  const finish = call ? 'tool_calls' : 'stop';
  const u = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!body.stream) {
    const message = call ? { role: 'assistant', content: null, tool_calls: [toolCall] } : { role: 'assistant', content: text };
    return json(res, { id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, finish_reason: finish }], usage: u });
  }
  const chunk = (delta, finish_reason = null, extra = {}) => [null, { id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason }], ...extra }];
  const events = [chunk({ role: 'assistant', content: '' })];
  events.push(call ? chunk({ tool_calls: [toolCall] }) : chunk({ content: text }));
  events.push(chunk({}, finish, { usage: u }));
  events.push([null, '[DONE]']);
  sse(res, events);
}

function json(res, value, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/**
 * Start the server. `script`: an array of steps, or a function (index) => step for sessions that
 * never end. Returns { url, requests, results, close }: `requests` holds every request
 * ({ format, path, headers, raw, body, tools, main }), `results` the tool results of main requests
 * in order ({ step, call, text, error }).
 */
export async function startFakeModel({ script, models = ['fake-model'] } = {}) {
  const stepAt = typeof script === 'function' ? script : (i) => script?.[i] ?? { end: 'done' };
  const requests = [];
  const calls = new Map(); // tool call id → { step, call }
  const results = [];
  const seen = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = req.url ?? '/';
      let body = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        body = {};
      }
      const format = /\/messages(\?|$)/.test(url) ? 'anthropic' : /\/responses(\?|$)/.test(url) ? 'responses' : /\/chat\/completions/.test(url) ? 'chat' : null;
      const tools = offeredTools(body);
      const main = format !== null && tools.length > 0;
      const record = { format, method: req.method, path: url, headers: req.headers, raw, body, tools, main };
      requests.push(record);
      if (req.method === 'GET' && /\/models/.test(url)) {
        return json(res, { object: 'list', data: models.map((id) => ({ id, object: 'model', type: 'model', display_name: id, created: 0, created_at: '2026-01-01T00:00:00Z', owned_by: 'fake' })) });
      }
      if (format === null) return json(res, { error: { type: 'not_found', message: `fake model: no route ${req.method} ${url}` } }, 404);
      if (/count_tokens/.test(url)) return json(res, { input_tokens: 100 });
      if (!main) {
        if (format === 'anthropic') return anthropicReply(res, body, null, 'Board card');
        if (format === 'responses') return responsesReply(res, body, null, 'Board card');
        return chatReply(res, body, null, 'Board card');
      }
      const done = toolResults(format, body);
      for (const r of done) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        const origin = calls.get(r.id);
        results.push({ ...(origin ?? { step: null, call: null }), text: r.text, error: r.error === true });
      }
      const index = done.length;
      const step = stepAt(index) ?? { end: 'done' };
      const call = step.end === undefined ? toToolCall(step, tools) : null;
      record.step = index;
      record.call = call;
      const text = step.end ?? `(no tool for step ${JSON.stringify(step)}; tools: ${tools.map((t) => t.name).join(', ')})`;
      const reply = { anthropic: anthropicReply, responses: responsesReply, chat: chatReply }[format];
      // Remember which step each call id answers, by reading it back from what we send.
      const remember = (id) => call && calls.set(id, { step: index, call });
      const origWrite = res.write.bind(res);
      const origEnd = res.end.bind(res);
      const sniff = (chunk) => {
        if (!call || typeof chunk !== 'string') return;
        for (const m of chunk.matchAll(/"(?:id|call_id)":"((?:toolu|call)_[a-z0-9]+)"/g)) remember(m[1]);
      };
      res.write = (chunk, ...rest) => (sniff(chunk), origWrite(chunk, ...rest));
      res.end = (chunk, ...rest) => (sniff(chunk), origEnd(chunk, ...rest));
      reply(res, body, call, text);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    results,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fake = await startFakeModel({ script: [{ read: '/etc/hostname' }, { end: 'done' }] });
  process.stdout.write(`${fake.url}\n`);
}
