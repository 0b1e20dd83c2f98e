// End-to-end: tools and structured output with the official OpenAI Node client against the real
// `a3s-power serve`, serving tiny-qwen2 (random weights) with the Qwen 2.5 chat template (Hermes-style
// <tool_call> blocks). Every output is checked by a real JSON Schema validator (ajv): a random model
// can only produce valid JSON and valid calls because the grammar holds it to them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import Ajv2020 from 'ajv/dist/2020.js';
import { startServer, testdata } from '../node_support/server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const schemas = JSON.parse(readFileSync(join(here, '..', '..', 'data', 'json_schemas', 'schemas.json'), 'utf8'));
const MODEL = 'tiny-qwen2-f32';

// ajv (draft 2020-12) with the formats the schemas use (the grammar's documented subsets are narrower than these).
function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  ajv.addFormat('time', /^\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/);
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  ajv.addFormat('uuid', /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/);
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  return ajv;
}
const ajv = validator();

let server;
let client;

before(async () => {
  const template = join(testdata, 'chat-templates', 'Qwen-Qwen2.5-7B-Instruct.jinja');
  server = await startServer({
    name: 'a3s-structured',
    modelPath: join(testdata, 'models', `${MODEL}.gguf`),
    config: `chat_template_file = "${template}"\n`,
  });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused-without-configured-keys', maxRetries: 0 });
});

after(async () => {
  if (server) await server.stop();
});

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather of a city',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', minLength: 1, maxLength: 12 },
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        },
        required: ['city'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'add',
      parameters: {
        type: 'object',
        properties: { a: { type: 'integer', minimum: -99, maximum: 99 }, b: { type: 'integer', minimum: -99, maximum: 99 } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
    },
  },
];
const paramsOf = Object.fromEntries(tools.map((t) => [t.function.name, t.function.parameters]));

function checkCall(call) {
  assert.equal(call.type, 'function');
  assert.match(call.id, /^call_[0-9a-f]{24}$/);
  assert.ok(paramsOf[call.function.name], `unknown function ${call.function.name}`);
  const args = JSON.parse(call.function.arguments);
  assert.ok(ajv.validate(paramsOf[call.function.name], args), `${call.function.arguments}: ${ajv.errorsText()}`);
}

test('tool_choice "required": every reply is valid calls of the given functions', async () => {
  for (const seed of [1, 2, 3, 4]) {
    // Parallel calls (at most 8) for two seeds, one call for the others.
    const r = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      tools,
      tool_choice: 'required',
      parallel_tool_calls: seed > 2,
      seed,
      max_tokens: 1000,
    });
    const c = r.choices[0];
    assert.equal(c.finish_reason, 'tool_calls', JSON.stringify(c));
    assert.ok(c.message.tool_calls.length >= 1);
    if (seed <= 2) assert.equal(c.message.tool_calls.length, 1);
    for (const call of c.message.tool_calls) checkCall(call);
  }
});

test('a named tool_choice, streamed: the call arrives as tool_calls deltas', async () => {
  const stream = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'Add two numbers.' }],
    tools,
    tool_choice: { type: 'function', function: { name: 'add' } },
    parallel_tool_calls: false,
    seed: 5,
    max_tokens: 200,
    stream: true,
  });
  const calls = [];
  let finish = null;
  for await (const chunk of stream) {
    const c = chunk.choices[0];
    if (!c) continue;
    for (const d of c.delta.tool_calls ?? []) {
      calls[d.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
      if (d.id) calls[d.index].id = d.id;
      if (d.function?.name) calls[d.index].function.name += d.function.name;
      if (d.function?.arguments) calls[d.index].function.arguments += d.function.arguments;
    }
    if (c.finish_reason) finish = c.finish_reason;
  }
  assert.equal(finish, 'tool_calls');
  assert.equal(calls.length, 1);
  assert.equal(calls[0].function.name, 'add');
  checkCall(calls[0]);
});

test('a conversation with a call and its result in the history is answered', async () => {
  const r = await client.chat.completions.create({
    model: MODEL,
    messages: [
      { role: 'user', content: 'What is the weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temperature": 21}' },
    ],
    tools,
    seed: 1,
    max_tokens: 8,
  });
  assert.ok(['stop', 'length', 'tool_calls'].includes(r.choices[0].finish_reason));
});

test('response_format json_schema: each of the test schemas gives valid JSON when the reply stops', async () => {
  assert.ok(schemas.length >= 30);
  let differing = 0;
  for (const s of schemas) {
    const validate = ajv.compile(s.schema);
    const outputs = new Set();
    for (const seed of [11, 12]) {
      const r = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Answer in JSON.' }],
        response_format: { type: 'json_schema', json_schema: { name: s.name, schema: s.schema, strict: true } },
        seed,
        max_tokens: 512,
      });
      const c = r.choices[0];
      assert.equal(c.finish_reason, 'stop', `${s.name} seed ${seed}: ${c.message.content}`);
      const doc = JSON.parse(c.message.content);
      assert.ok(validate(doc), `${s.name}: ${c.message.content}: ${ajv.errorsText(validate.errors)}`);
      outputs.add(c.message.content);
    }
    if (outputs.size === 2) differing++;
  }
  // The model, not the grammar, chooses: seeds give different documents (small schemas may agree).
  assert.ok(differing >= 0.75 * schemas.length, `only ${differing} of ${schemas.length} schemas differ across seeds`);
});

test('response_format json_object and a raw grammar', async () => {
  const r = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'JSON please' }],
    response_format: { type: 'json_object' },
    seed: 4,
    max_tokens: 400,
  });
  if (r.choices[0].finish_reason === 'stop') {
    const doc = JSON.parse(r.choices[0].message.content);
    assert.equal(typeof doc, 'object');
    assert.ok(!Array.isArray(doc) && doc !== null);
  }
  const g = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'yes or no?' }],
    grammar: 'root ::= "yes" | "no"',
    seed: 4,
  });
  assert.ok(['yes', 'no'].includes(g.choices[0].message.content));
});

test('an unsupported schema keyword is a 400 that names it', async () => {
  await assert.rejects(
    client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'x' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'n', schema: { type: 'object', properties: { n: { type: 'number', multipleOf: 2 } } } },
      },
    }),
    (e) => e instanceof OpenAI.APIError && e.status === 400 && e.param === 'response_format' && /multipleOf/.test(e.message),
  );
});

test('the Responses API: function tools, function_call items streamed, and text.format json_schema', async () => {
  const rtools = tools.map((t) => ({ type: 'function', ...t.function }));
  const r = await client.responses.create({
    model: MODEL,
    input: 'What is the weather in Paris?',
    tools: rtools,
    tool_choice: 'required',
    parallel_tool_calls: false,
    max_output_tokens: 600,
  });
  const calls = r.output.filter((o) => o.type === 'function_call');
  assert.equal(calls.length, 1);
  assert.ok(ajv.validate(paramsOf[calls[0].name], JSON.parse(calls[0].arguments)), calls[0].arguments);

  const stream = client.responses.stream({
    model: MODEL,
    input: 'Add numbers.',
    tools: rtools,
    tool_choice: { type: 'function', name: 'add' },
    parallel_tool_calls: false,
    max_output_tokens: 600,
  });
  let args = '';
  stream.on('response.function_call_arguments.delta', (e) => { args += e.delta; });
  const final = await stream.finalResponse();
  const fc = final.output.filter((o) => o.type === 'function_call');
  assert.equal(fc.length, 1);
  assert.equal(fc[0].name, 'add');
  assert.ok(ajv.validate(paramsOf.add, JSON.parse(fc[0].arguments)), fc[0].arguments);
  assert.ok(args.startsWith(fc[0].arguments));

  const s = schemas[0];
  const validate = ajv.compile(s.schema);
  const j = await client.responses.create({
    model: MODEL,
    input: 'JSON please',
    text: { format: { type: 'json_schema', name: s.name, schema: s.schema, strict: true } },
    max_output_tokens: 400,
  });
  assert.equal(j.status, 'completed');
  const text = j.output[0].content[0].text;
  assert.ok(validate(JSON.parse(text)), text);
});
