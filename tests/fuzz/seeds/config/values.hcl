port = 0
threads = 2
ctx_size = 512
max_body_bytes = 1048576
redact_logs = true
tee_mode = false
x = { a = 1, "b": [1, 2.5, -3, 1e3, null, true], c = <<-EOT
    text \u00e9 $${x}
    EOT
}
/* block */ // line
