#!/usr/bin/env python3
"""The layering check (scripts/check-layering.py): clean on the repository, and each kind of planted
violation in a copy of the table is reported with its file and line and fails the check."""
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..'))
SCRIPT = os.path.join(REPO, 'scripts', 'check-layering.py')
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def run(root):
    p = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


rc, out = run(REPO)
check(rc == 0, 'the repository passes (%s)' % out.strip().splitlines()[-1:])

with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, 'docs'))
    shutil.copy(os.path.join(REPO, 'docs', 'architecture.md'), os.path.join(tmp, 'docs'))
    planted = {
        'src/tee/planted.cpp': '#include "a3s/power/verify_attestation.h"\n',
        'src/base/planted.cpp': '// fine\n#include "engine/model.h"\n',
        'src/chat/planted.cpp': 'void f() { throw Error("io_error", "x"); }\n// Error("in a comment") is fine\n',
        'src/server/planted.cpp': '#include "verify/hex.h"\n#include "runtime/slot.h"\n',
        'apps/a3s-power-verify/planted.cpp': '#include "engine/model.h"\n',
        'src/newlayer/planted.cpp': '#include "base/log.h"\n',
        'src/runtime/planted.cpp': '#include "a3s/power/embedded.h"\n',
        'src/embedded/planted.cpp': '#include "a3s/power/embedded.h"\n#include "server/api.h"\n',
    }
    for rel, text in planted.items():
        os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
        open(os.path.join(tmp, rel), 'w').write(text)
    rc, out = run(tmp)
    check(rc == 1, 'planted violations fail the check (exit %d)' % rc)
    check('src/tee/planted.cpp:1: tee includes the verifier header a3s/power/verify_attestation.h' in out,
          'tee including a public verifier header is reported')
    check('src/base/planted.cpp:2: base may not include engine' in out, 'a lower layer including a higher one')
    check('src/chat/planted.cpp:1: an error with a literal code string' in out, 'a literal error code')
    check('src/chat/planted.cpp:2' not in out, 'a comment naming Error("...") is not reported')
    check('src/server/planted.cpp:1: server may not include verify' in out, 'the server including the verifier')
    check('src/server/planted.cpp:2' not in out, 'an allowed include is not reported')
    check('apps/a3s-power-verify/planted.cpp:1: apps/a3s-power-verify may not include engine' in out,
          'the verifier app including the engine')
    check('folder newlayer has no row' in out, 'a folder without a row is reported')
    check('src/runtime/planted.cpp:1: runtime includes the embedded runtime header a3s/power/embedded.h' in out,
          'a layer below the embedded runtime including its public header')
    check('src/embedded/planted.cpp:1' not in out, 'the embedded runtime including its own public header')
    check('src/embedded/planted.cpp:2: embedded may not include server' in out, 'the embedded runtime including the server')

    os.remove(os.path.join(tmp, 'docs', 'architecture.md'))
    rc, out = run(tmp)
    check(rc == 2, 'a missing table is exit 2 (%d)' % rc)

print('check_layering_test: %d check(s) failed' % len(failures))
sys.exit(1 if failures else 0)
