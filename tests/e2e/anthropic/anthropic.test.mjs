// End-to-end: the official Anthropic TypeScript client against the real `a3s-power serve` binary
// serving the real stories260K model on an ephemeral loopback port, with an API key configured (the
// client sends it as x-api-key): messages.create, messages.stream, countTokens, stop sequences, and
// errors in Anthropic's shape.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startServer } from '../node_support/server.mjs';

const key = 'sk-a3s-anthropic-e2e-0123456789abcdef';

let server;
let client;
let baseURL;

before(async () => {
  server = await startServer({ name: 'a3s-anthropic', config: `api_key "sdk" {\n  key = "${key}"\n}\n` });
  baseURL = server.url;
  client = new Anthropic({ baseURL, apiKey: key, maxRetries: 0 });
});

after(async () => {
  if (server) await server.stop();
});

const params = {
  model: 'stories260K',
  max_tokens: 16,
  temperature: 0,
  system: 'You tell stories.',
  messages: [{ role: 'user', content: 'Once upon a time' }],
};

test('messages.create answers in the Messages shape', async () => {
  const r = await client.messages.create(params);
  assert.equal(r.type, 'message');
  assert.equal(r.role, 'assistant');
  assert.match(r.id, /^msg_/);
  assert.equal(r.model, 'stories260K');
  assert.equal(r.content.length, 1);
  assert.equal(r.content[0].type, 'text');
  assert.ok(r.content[0].text.length > 0);
  assert.equal(r.stop_reason, 'max_tokens');
  assert.equal(r.stop_sequence, null);
  assert.equal(r.usage.output_tokens, 16);
  assert.ok(r.usage.input_tokens > 0);
  // Text blocks are the same conversation as a string.
  const blocks = await client.messages.create({
    ...params, messages: [{ role: 'user', content: [{ type: 'text', text: 'Once upon a time' }] }],
  });
  assert.equal(blocks.content[0].text, r.content[0].text);
});

test('a stop sequence ends the reply and is named', async () => {
  const full = await client.messages.create(params);
  const text = full.content[0].text;
  const word = text.trim().split(/\s+/)[2];
  assert.ok(word, `reply too short: ${text}`);
  const r = await client.messages.create({ ...params, stop_sequences: ['zzz', word] });
  assert.equal(r.stop_reason, 'stop_sequence');
  assert.equal(r.stop_sequence, word);
  assert.equal(r.content[0].text, text.slice(0, text.indexOf(word)));
});

test('messages.stream delivers the same reply as events', async () => {
  const whole = await client.messages.create(params);
  const stream = client.messages.stream(params);
  let deltas = '';
  const types = [];
  stream.on('text', (t) => { deltas += t; });
  for await (const event of stream) types.push(event.type);
  const final = await stream.finalMessage();
  assert.equal(deltas, whole.content[0].text);
  assert.equal(final.content[0].text, whole.content[0].text);
  assert.equal(final.stop_reason, 'max_tokens');
  assert.equal(final.usage.output_tokens, whole.usage.output_tokens);
  assert.equal(types[0], 'message_start');
  assert.equal(types.at(-1), 'message_stop');
  assert.ok(types.includes('content_block_delta'));
});

test('countTokens counts what the model is given', async () => {
  const { model: m, system, messages } = params;
  const counted = await client.messages.countTokens({ model: m, system, messages });
  const r = await client.messages.create(params);
  assert.equal(counted.input_tokens, r.usage.input_tokens);
});

test('errors surface as the SDK error classes with Anthropic error types', async () => {
  await assert.rejects(
    client.messages.create({ ...params, model: 'no-such-model' }),
    (e) => e instanceof Anthropic.NotFoundError && e.status === 404 && e.error?.type === 'error' &&
      e.error?.error?.type === 'not_found_error',
  );
  await assert.rejects(
    client.messages.create({ ...params, tools: [{ name: 'f', input_schema: { type: 'object' } }] }),
    (e) => e instanceof Anthropic.BadRequestError && e.error?.error?.type === 'invalid_request_error' &&
      /tools/.test(e.error?.error?.message),
  );
  await assert.rejects(
    client.messages.create({ ...params, temperature: 1.5 }),
    (e) => e instanceof Anthropic.BadRequestError,
  );
  const anonymous = new Anthropic({ baseURL, apiKey: 'sk-wrong', maxRetries: 0 });
  await assert.rejects(
    anonymous.messages.create(params),
    (e) => e instanceof Anthropic.AuthenticationError && e.error?.error?.type === 'authentication_error',
  );
});
