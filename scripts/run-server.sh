#!/usr/bin/env bash
# Serves one model on 127.0.0.1:11434 (the main job behind `make run`).
#   scripts/run-server.sh MODEL
# MODEL is a path to a .gguf file (served offline, under its file name), a name already in the
# model store, or a pull reference (https URL or hf://org/repo/file.gguf, optionally @sha256:<hex>),
# which is pulled into the store first and then served.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/bin/a3s-power
MODEL="${1:?usage: run-server.sh MODEL}"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-11434}"

if [ -f "$MODEL" ]; then
  exec "$BIN" serve --host "$HOST" --port "$PORT" --model "$MODEL"
fi
case "$MODEL" in
  hf://*|https://*|http://*)
    ref="${MODEL%@sha256:*}"
    name="$(basename "$ref")"; name="${name%.gguf}"
    if ! "$BIN" pull "$MODEL" --name "$name"; then
      echo "run-server: could not pull $ref; offline, serve a local file: make run MODEL=path/to/model.gguf" >&2
      exit 2
    fi
    exec "$BIN" serve --host "$HOST" --port "$PORT" --model "$name"
    ;;
  *)
    exec "$BIN" serve --host "$HOST" --port "$PORT" --model "$MODEL"
    ;;
esac
