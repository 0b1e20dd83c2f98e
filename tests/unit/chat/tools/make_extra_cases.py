#!/usr/bin/env python3
"""Regenerates data/extra_cases.json: edge-case conversations rendered by Python Jinja2.

Development tool, not run by the tests. It renders every template of the shared test data
(../shared/testdata/chat-templates/*.jinja) with the environment transformers' apply_chat_template
uses (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loopcontrols, tojson =
json.dumps(ensure_ascii=False), raise_exception, strftime_now fixed to 2026-07-26) for the
conversations below, and records the output or the exception as "<Type>: <message>". The C++
renderers must reproduce each record byte for byte (or refuse a tools case explicitly).

Usage: python3 tests/unit/chat/tools/make_extra_cases.py   (needs python3-jinja2 >= 3.1)
"""
import datetime
import glob
import json
import os

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
TEMPLATES = os.path.join(REPO, "..", "shared", "testdata", "chat-templates")
OUT = os.path.join(HERE, "..", "data", "extra_cases.json")
TODAY = datetime.datetime(2026, 7, 26)


def environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: TODAY.strftime(fmt)
    return env


def render(env, source, case):
    kwargs = dict(messages=case["messages"], add_generation_prompt=case["add_generation_prompt"],
                  bos_token="<s>", eos_token="</s>")
    if case.get("tools") is not None:
        kwargs["tools"] = case["tools"]
    try:
        return {"ok": True, "output": env.from_string(source).render(**kwargs)}
    except Exception as e:  # the template's own failure is part of the expected behaviour
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the weather \"now\" in a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name", "examples": ["Paris", "Köln"]},
                "days": {"type": "integer", "description": "Days ahead.", "default": 1, "minimum": 0,
                         "maximum": 14},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
                "ratio": {"type": "number", "nullable": True, "default": 0.5},
                "tags": {"type": "array", "items": {"type": "string"}, "maxLength": 3},
                "modes": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
                "when": {"oneOf": [{"type": "string", "format": "date"}, {"type": "String", "format": "date-time"},
                                   {"type": "null"}]},
                "opts": {"type": "object", "description": "Options", "properties": {
                    "deep": {"type": "boolean", "default": False},
                    "list": {"type": "array", "items": {"type": "object", "properties": {
                        "k": {"type": "string"}}, "required": ["k"]}},
                }, "required": ["deep"]},
                "any": {},
                "flag": {"type": ["string", "number"], "description": "Either"},
            },
            "required": ["city", "opts"],
        },
    },
}
SEARCH = {
    "type": "function",
    "function": {"name": "search", "description": "Search the web.",
                 "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
}
NOPARAMS = {"type": "function", "function": {"name": "ping", "description": "", "parameters": {"type": "object",
                                                                                               "properties": {}}}}

CASES = {
    "unicode_and_escapes": {
        "messages": [
            {"role": "system", "content": "  Sys \"quoted\" \\ back\tslash\n"},
            {"role": "user", "content": "\n  Ünï 🦙 'single' \"double\" {{ not jinja }} \u00a0"},
            {"role": "assistant", "content": "  answer with trailing space  "},
            {"role": "user", "content": "again\u3000"},
        ],
        "add_generation_prompt": True,
    },
    "empty_system": {
        "messages": [{"role": "system", "content": ""}, {"role": "user", "content": "Hi"}],
        "add_generation_prompt": True,
    },
    "system_only": {
        "messages": [{"role": "system", "content": "Only a system message."}],
        "add_generation_prompt": True,
    },
    "assistant_first": {
        "messages": [{"role": "assistant", "content": "I start."}, {"role": "user", "content": "Ok"}],
        "add_generation_prompt": True,
    },
    "two_systems": {
        "messages": [
            {"role": "system", "content": "First."},
            {"role": "user", "content": "Hi"},
            {"role": "system", "content": "Second."},
            {"role": "user", "content": "Bye"},
        ],
        "add_generation_prompt": False,
    },
    "think_history": {
        "messages": [
            {"role": "user", "content": "2+2?"},
            {"role": "assistant", "content": "<think>\nadd</think>\n\n4</think>four"},
            {"role": "user", "content": "3+3?"},
        ],
        "add_generation_prompt": True,
    },
    "repeated_user": {
        "messages": [
            {"role": "user", "content": "Same"},
            {"role": "assistant", "content": "A"},
            {"role": "user", "content": "Same"},
        ],
        "tools": [SEARCH],
        "add_generation_prompt": True,
    },
    "tools_rich_schema": {
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather?"}],
        "tools": [WEATHER, SEARCH, NOPARAMS],
        "add_generation_prompt": True,
    },
    "tools_empty_list": {
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [],
        "add_generation_prompt": True,
    },
    "tool_calls_string_arguments": {
        "messages": [
            {"role": "user", "content": "Find cats"},
            {"role": "assistant", "content": None,
             "tool_calls": [call("abcDEF123", "search", "{\"q\": \"cats\"}")]},
            {"role": "tool", "tool_call_id": "abcDEF123", "name": "search", "content": "Cats are great."},
            {"role": "assistant", "content": "Cats are great."},
            {"role": "user", "content": "Thanks"},
        ],
        "tools": [SEARCH],
        "add_generation_prompt": True,
    },
    "tool_calls_object_arguments": {
        "messages": [
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {"role": "assistant", "content": "Checking.",
             "tool_calls": [call("call00001", "get_weather", {"city": "Paris", "days": 2, "ratio": 1.0}),
                            call("call00002", "get_weather", {"city": "Rome", "ok": True, "x": None})]},
            {"role": "tool", "tool_call_id": "call00001", "content": "{\"t\": 21}"},
            {"role": "tool", "tool_call_id": "call00002", "content": "{\"t\": 25}"},
        ],
        "tools": [WEATHER],
        "add_generation_prompt": True,
    },
    "single_call_no_tools": {
        "messages": [
            {"role": "user", "content": "Ping"},
            {"role": "assistant", "content": None, "tool_calls": [call("pingping1", "ping", {})]},
            {"role": "tool", "tool_call_id": "pingping1", "content": "pong"},
        ],
        "add_generation_prompt": False,
    },
}


def main():
    env = environment()
    out = {"generator": "tests/unit/chat/tools/make_extra_cases.py", "jinja2": jinja2.__version__,
           "bos_token": "<s>", "eos_token": "</s>", "date_for_strftime_now": TODAY.strftime("%Y-%m-%d"),
           "cases": CASES, "results": {}}
    for path in sorted(glob.glob(os.path.join(TEMPLATES, "*.jinja"))):
        name = os.path.basename(path)[: -len(".jinja")]
        with open(path, encoding="utf-8") as f:
            source = f.read()
        out["results"][name] = {case: render(env, source, c) for case, c in CASES.items()}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
