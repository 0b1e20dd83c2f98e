# Comments: '#', '//' and /* block */.
host = "0.0.0.0"
port = 8080
models = ["/models/stories260K.gguf", "tiny=/models/tiny.gguf"]

model "llama" {
  path = "/models/llama-3.2-1b-q4_k_m.gguf"
}

api_keys = ["a-raw-key"]            # identities key1, key2, ...

api_key "alice" {
  hash = "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
}

api_key "bob" {
  key = "another-raw-key"           # hashed on load
}
