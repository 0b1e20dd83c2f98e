# A3S Power — the packaged configuration (/etc/a3s-power/power.hcl), read by the systemd unit
# (a3s-power.service: `a3s-power serve --config /etc/a3s-power/power.hcl`). Every key, its type,
# range and default: /usr/share/doc/a3s-power/configuration.md.

# Loopback only. Clients in other VMs or on the host reach the server over RA-TLS (below) or through
# a proxy you run inside the confidential VM; binding another address is a deliberate change.
host = "127.0.0.1"
port = 11434

# The model store and state: the unit's StateDirectory (mode 0700).
home = "/var/lib/a3s-power"

# A confidential VM: evidence from the SEV-SNP / TDX guest device, fail closed without it.
# "strict" refuses to start where no attestation hardware answers; "development" would fall back to
# simulated evidence and must never be used for real users.
tee_mode   = true
tee_policy = "strict"

# RA-TLS: a TLS listener whose certificate carries the evidence, so clients pin the key they verified
# (docs: ra-tls.md). Uncomment with a port to use it.
# ratls    = true
# tls_port = 8443
# vsock_port = 8443   # the same routes over vsock (CID any) for the host and other VMs: RA-TLS with
#                     # ratls = true (strict mode refuses it otherwise); needs api_keys

# Models to serve (NAME=PATH, or names in the store). With none, the store's models are served on
# demand.
# models = ["llama=/var/lib/a3s-power/models/llama.gguf"]

# API keys: with none, /v1/* is open to loopback clients only.
# api_keys = ["<a long random key>"]
