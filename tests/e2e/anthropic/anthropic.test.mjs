// End-to-end: the official Anthropic TypeScript client against the real `a3s-power serve` binary
// serving the real stories260K model on an ephemeral loopback port, with an API key configured (the
// client sends it as x-api-key): messages.create, messages.stream, countTokens, stop sequences, tools
// (on tiny-qwen2 with the Qwen 2.5 template), and
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

// Tools: tiny-qwen2 (random weights) with the Qwen 2.5 template, whose tool calls the server reads
// back; tool_choice "any" or a named tool holds the reply to a call whose input follows the schema.
test('tools: tool_use blocks, whole and streamed, and a tool_result turn', async () => {
  const { join } = await import('node:path');
  const testdata = process.env.A3S_TESTDATA;
  const template = join(testdata, 'chat-templates', 'Qwen-Qwen2.5-7B-Instruct.jinja');
  const tools_server = await startServer({
    name: 'a3s-anthropic-tools',
    modelPath: join(testdata, 'models', 'tiny-qwen2-f32.gguf'),
    config: `chat_template_file = "${template}"\n`,
  });
  try {
    const c = new Anthropic({ baseURL: tools_server.url, apiKey: 'unused', maxRetries: 0 });
    const tools = [{
      name: 'get_weather',
      description: 'Current weather of a city',
      input_schema: {
        type: 'object',
        properties: { city: { type: 'string', minLength: 1, maxLength: 12 }, days: { type: 'integer', minimum: 1, maximum: 7 } },
        required: ['city', 'days'],
        additionalProperties: false,
      },
    }];
    const base = { model: 'tiny-qwen2-f32', max_tokens: 600, tools, messages: [{ role: 'user', content: 'Weather in Oslo?' }] };
    const checkInput = (input) => {
      assert.deepEqual(Object.keys(input).sort(), ['city', 'days']);
      assert.equal(typeof input.city, 'string');
      assert.ok([...input.city].length >= 1 && [...input.city].length <= 12);
      assert.ok(Number.isInteger(input.days) && input.days >= 1 && input.days <= 7);
    };
    const r = await c.messages.create({ ...base, tool_choice: { type: 'any', disable_parallel_tool_use: true } });
    assert.equal(r.stop_reason, 'tool_use');
    const uses = r.content.filter((b) => b.type === 'tool_use');
    assert.equal(uses.length, 1);
    assert.equal(uses[0].name, 'get_weather');
    assert.match(uses[0].id, /^call_/);
    checkInput(uses[0].input);

    const stream = c.messages.stream({
      ...base,
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
    });
    const final = await stream.finalMessage();
    assert.equal(final.stop_reason, 'tool_use');
    const streamed = final.content.filter((b) => b.type === 'tool_use');
    assert.ok(streamed.length >= 1);
    for (const u of streamed) checkInput(u.input);

    // The call and its result in the history: the conversation is rendered and answered.
    const next = await c.messages.create({
      ...base,
      max_tokens: 8,
      messages: [
        ...base.messages,
        { role: 'assistant', content: uses },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: uses[0].id, content: 'Sunny, 21 C' }] },
      ],
    });
    assert.ok(['end_turn', 'max_tokens', 'tool_use'].includes(next.stop_reason));
    const counted = await c.messages.countTokens({ model: base.model, tools, messages: base.messages });
    const without = await c.messages.countTokens({ model: base.model, messages: base.messages });
    assert.ok(counted.input_tokens > without.input_tokens, 'the tools are part of the prompt');
  } finally {
    await tools_server.stop();
  }
});
