// End-to-end: the official OpenAI Node client against the real `a3s-power serve` binary serving
// the real stories260K model on an ephemeral loopback port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { join } from 'node:path';
import { model, startServer, testdata } from '../node_support/server.mjs';

let server;
let client;

before(async () => {
  server = await startServer({ name: 'a3s-openai' });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused-without-configured-keys', maxRetries: 0 });
});

after(async () => {
  if (server) await server.stop();
});

test('chat completion (non-streaming)', async () => {
  const r = await client.chat.completions.create({
    model: 'stories260K',
    messages: [{ role: 'user', content: 'Once upon a time' }],
    temperature: 0,
    max_tokens: 16,
  });
  assert.equal(r.object, 'chat.completion');
  assert.match(r.id, /^chatcmpl-/);
  assert.equal(r.model, 'stories260K');
  assert.equal(r.choices.length, 1);
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.ok(r.choices[0].message.content.length > 0);
  assert.ok(['stop', 'length'].includes(r.choices[0].finish_reason));
  assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens);
  assert.ok(r.usage.completion_tokens <= 16);
});

test('prompt_cache_key: the second request reuses the prompt and answers the same', async () => {
  const params = {
    model: 'stories260K',
    messages: [{ role: 'user', content: 'Once upon a time there was a girl named Lily' }],
    temperature: 0,
    max_tokens: 12,
    prompt_cache_key: 'sdk-doc',
  };
  const first = await client.chat.completions.create(params);
  const second = await client.chat.completions.create(params);
  assert.equal(first.usage.prompt_tokens_details.cached_tokens, 0);
  assert.equal(second.usage.prompt_tokens_details.cached_tokens, second.usage.prompt_tokens - 1);
  assert.equal(second.choices[0].message.content, first.choices[0].message.content);
  await assert.rejects(
    client.chat.completions.create({ ...params, prompt_cache_key: '' }),
    (e) => e instanceof OpenAI.APIError && e.status === 400 && e.param === 'prompt_cache_key',
  );
});

test('chat completion streaming with include_usage', async () => {
  const stream = await client.chat.completions.create({
    model: 'stories260K',
    messages: [{ role: 'user', content: 'Once upon a time' }],
    temperature: 0,
    max_tokens: 16,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let role = null;
  let finish = null;
  let usage = null;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    assert.equal(chunk.object, 'chat.completion.chunk');
    if (chunk.usage) usage = chunk.usage;
    if (chunk.choices.length === 0) continue;
    const c = chunk.choices[0];
    if (c.delta.role) role = c.delta.role;
    if (c.delta.content) text += c.delta.content;
    if (c.finish_reason) finish = c.finish_reason;
  }
  assert.ok(chunks >= 3);
  assert.equal(role, 'assistant');
  assert.ok(['stop', 'length'].includes(finish));
  assert.ok(usage, 'a final usage chunk');
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);

  // Greedy: the stream carries exactly the non-streaming text.
  const whole = await client.chat.completions.create({
    model: 'stories260K',
    messages: [{ role: 'user', content: 'Once upon a time' }],
    temperature: 0,
    max_tokens: 16,
  });
  assert.equal(text, whole.choices[0].message.content);
});

test('text completion matches the reference continuation', async () => {
  const ref = JSON.parse(readFileSync(join(testdata, 'reference', 'stories260K.p1.json'), 'utf8'));
  const r = await client.completions.create({
    model: 'stories260K',
    prompt: ref.prompt,
    temperature: 0,
    max_tokens: ref.greedy_tokens.length,
  });
  assert.equal(r.object, 'text_completion');
  assert.match(r.id, /^cmpl-/);
  assert.equal(r.choices[0].text, ref.greedy_text);
  assert.equal(r.choices[0].finish_reason, 'length');
  assert.equal(r.usage.prompt_tokens, ref.prompt_tokens.length);
});

test('models.list and models.retrieve', async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.deepEqual(ids, ['stories260K']);
  const m = await client.models.retrieve('stories260K');
  assert.equal(m.id, 'stories260K');
  assert.equal(m.object, 'model');
});

test('errors surface as APIError with OpenAI fields', async () => {
  await assert.rejects(
    client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
    (e) => e instanceof OpenAI.NotFoundError && e.status === 404 && e.code === 'model_not_found',
  );
  await assert.rejects(
    client.chat.completions.create({
      model: 'stories260K',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
    }),
    (e) => e instanceof OpenAI.BadRequestError && e.status === 400 && e.code === 'unsupported_field' &&
      e.param === 'tools',
  );
  await assert.rejects(
    client.chat.completions.create({ model: 'stories260K', messages: [{ role: 'user', content: 'hi' }], n: 9 }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'n',
  );
  await assert.rejects(
    client.chat.completions.create({
      model: 'stories260K', messages: [{ role: 'user', content: 'hi' }], logprobs: true, top_logprobs: 21,
    }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'top_logprobs',
  );
});

test('logprobs and top_logprobs, in a body and streamed', async () => {
  const params = {
    model: 'stories260K',
    messages: [{ role: 'user', content: 'Once upon a time' }],
    temperature: 0,
    max_tokens: 10,
    logprobs: true,
    top_logprobs: 4,
  };
  const r = await client.chat.completions.create(params);
  const content = r.choices[0].logprobs.content;
  assert.equal(content.length, r.usage.completion_tokens);
  assert.equal(content.map((e) => e.token).join(''), r.choices[0].message.content);
  for (const e of content) {
    assert.ok(e.logprob <= 0);
    assert.equal(e.top_logprobs.length, 4);
    assert.equal(e.top_logprobs[0].token, e.token);  // greedy: the most probable token
    assert.deepEqual(e.bytes, [...Buffer.from(e.token, 'utf8')]);
  }
  const streamed = [];
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) {
    for (const c of chunk.choices) if (c.logprobs) streamed.push(...c.logprobs.content);
  }
  assert.deepEqual(streamed, content);
  // Legacy completions: logprobs is a count.
  const t = await client.completions.create({
    model: 'stories260K', prompt: 'Once upon a time', temperature: 0, max_tokens: 6, logprobs: 2,
  });
  const lp = t.choices[0].logprobs;
  assert.equal(lp.tokens.join(''), t.choices[0].text);
  assert.equal(lp.token_logprobs.length, lp.tokens.length);
  assert.ok(lp.top_logprobs.every((o) => Object.keys(o).length === 2));
  assert.equal(lp.text_offset[0], 0);
});

test('embeddings: the SDK default (base64) and floats agree, one unit vector per input', async () => {
  const input = ['Once upon a time', 'Lily'];
  const asBase64 = await client.embeddings.create({ model: 'stories260K', input });  // the SDK asks for base64
  const asFloat = await client.embeddings.create({ model: 'stories260K', input, encoding_format: 'float' });
  assert.equal(asBase64.object, 'list');
  assert.equal(asBase64.data.length, 2);
  for (let i = 0; i < 2; i++) {
    assert.equal(asFloat.data[i].index, i);
    const a = asBase64.data[i].embedding;
    const b = asFloat.data[i].embedding;
    assert.equal(a.length, b.length);
    for (let k = 0; k < a.length; k++) assert.equal(Math.fround(a[k]), Math.fround(b[k]));
    const norm = Math.sqrt(b.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-5);
  }
  assert.ok(asFloat.usage.prompt_tokens > 0);
  await assert.rejects(
    client.embeddings.create({ model: 'stories260K', input: '' }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'input',
  );
});

test('responses.create and responses.stream answer what chat does', async () => {
  const chat = await client.chat.completions.create({
    model: 'stories260K', messages: [{ role: 'system', content: 'Tell a story.' }, { role: 'user', content: 'Once upon a time' }],
    temperature: 0, max_tokens: 12,
  });
  const params = {
    model: 'stories260K', instructions: 'Tell a story.', input: 'Once upon a time', temperature: 0, max_output_tokens: 12,
  };
  const r = await client.responses.create(params);
  assert.equal(r.object, 'response');
  assert.match(r.id, /^resp_/);
  assert.equal(r.status, 'incomplete');  // max_output_tokens ended it
  assert.equal(r.incomplete_details.reason, 'max_output_tokens');
  assert.equal(r.output_text, chat.choices[0].message.content);
  assert.equal(r.usage.output_tokens, 12);
  assert.equal(r.usage.input_tokens, chat.usage.prompt_tokens);
  // Input items: the same conversation.
  const items = await client.responses.create({
    ...params, instructions: undefined,
    input: [{ role: 'developer', content: 'Tell a story.' },
            { role: 'user', content: [{ type: 'input_text', text: 'Once upon a time' }] }],
  });
  assert.equal(items.output_text, r.output_text);
  const stream = client.responses.stream(params);
  let deltas = '';
  const types = [];
  stream.on('response.output_text.delta', (e) => { deltas += e.delta; });
  for await (const event of stream) types.push(event.type);
  const final = await stream.finalResponse();
  assert.equal(deltas, r.output_text);
  // (This SDK version sets output_text on created responses only: the final one is read from output.)
  assert.equal(final.output[0].content[0].text, r.output_text);
  assert.equal(types[0], 'response.created');
  assert.equal(types.at(-1), 'response.incomplete');
  await assert.rejects(
    client.responses.create({ ...params, previous_response_id: 'resp_123' }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'previous_response_id',
  );
  await assert.rejects(
    client.responses.create({ ...params, store: true }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'store',
  );
});

test('n choices, in a body and streamed', async () => {
  const params = {
    model: 'stories260K',
    messages: [{ role: 'user', content: 'Lily and Ben' }],
    temperature: 1,
    seed: 3,
    max_tokens: 12,
    n: 3,
  };
  const r = await client.chat.completions.create(params);
  assert.deepEqual(r.choices.map((c) => c.index), [0, 1, 2]);
  const again = await client.chat.completions.create(params);
  assert.deepEqual(again.choices.map((c) => c.message.content), r.choices.map((c) => c.message.content));
  const texts = ['', '', ''];
  const finishes = [null, null, null];
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) {
    for (const c of chunk.choices) {
      texts[c.index] += c.delta.content ?? '';
      if (c.finish_reason) finishes[c.index] = c.finish_reason;
    }
  }
  assert.deepEqual(texts, r.choices.map((c) => c.message.content));
  assert.deepEqual(finishes, r.choices.map((c) => c.finish_reason));
});

// A TEE-mode server (development policy, simulated evidence) signs a receipt for every response: in
// the body, and in a stream as one final chunk with empty choices (the usage chunk when
// include_usage). The SDK accepts both and hands the receipt through.
async function startTeeServer() {
  const digest = createHash('sha256').update(readFileSync(model)).digest('hex');
  const server = await startServer({
    name: 'a3s-openai-tee',
    config: (home) => `tee_mode = true\ntee_policy = "development"\ntee_device_root = "${home}"\n` +
                      `model_hashes = { "stories260K" = "sha256:${digest}" }\n`,
  });
  return { server, client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 }) };
}

test('TEE mode: receipts in bodies and in a final stream chunk', async () => {
  const tee = await startTeeServer();
  try {
    const body = await tee.client.chat.completions.create({
      model: 'stories260K', messages: [{ role: 'user', content: 'Once upon a time' }], temperature: 0, max_tokens: 8,
    });
    assert.equal(body.attestation_receipt.schema, 'a3s-power.receipt.v1');
    assert.equal(body.attestation_receipt.response.id, body.id);

    for (const includeUsage of [false, true]) {
      const params = {
        model: 'stories260K', messages: [{ role: 'user', content: 'Once upon a time' }], temperature: 0,
        max_tokens: 8, stream: true,
      };
      if (includeUsage) params.stream_options = { include_usage: true };
      const stream = await tee.client.chat.completions.create(params);
      let text = '';
      let receipt = null;
      let usage = null;
      let last = null;
      for await (const chunk of stream) {
        last = chunk;
        if (chunk.usage) usage = chunk.usage;
        if (chunk.attestation_receipt) receipt = chunk.attestation_receipt;
        for (const c of chunk.choices) if (c.delta.content) text += c.delta.content;
      }
      assert.equal(text, body.choices[0].message.content);
      assert.ok(receipt, 'the stream carries a receipt');
      assert.equal(last.attestation_receipt, receipt, 'in its last chunk');
      assert.deepEqual(last.choices, []);
      assert.equal(receipt.response.stream, true);
      if (includeUsage) {
        assert.ok(usage, 'the usage chunk');
        assert.equal(last.usage, usage, 'the receipt rides on the usage chunk');
        assert.equal(receipt.usage.total_tokens, usage.total_tokens);
      } else {
        assert.equal(usage, null);
      }
    }

    const text = await tee.client.completions.create({ model: 'stories260K', prompt: 'Once', max_tokens: 4, stream: true });
    let receipt = null;
    for await (const chunk of text) if (chunk.attestation_receipt) receipt = chunk.attestation_receipt;
    assert.equal(receipt.response.object, 'text_completion');
  } finally {
    await tee.server.stop();
  }
});
