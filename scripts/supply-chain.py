#!/usr/bin/env python3
"""The supply-chain report of the build profiles: docs/supply-chain.md and one CycloneDX 1.5 SBOM per
profile (docs/sbom/<profile>.cdx.json).

For each profile (CMakePresets.json; the binaries each one ships are PROFILES below) and each of its
binaries it records:
  - the shared libraries it needs (readelf -d NEEDED), the file each resolves to (ldconfig's cache), the
    Debian package that owns the file (dpkg -S) and its version (dpkg-query -W);
  - the Debian packages whose headers were compiled into it (the header dependencies ninja recorded for
    its objects, owned by dpkg -S), and the toolchain;
  - its size and SHA-256;
  - the compile flags of its translation units and its link flags (ninja -t commands);
  - the hardening found in the binary: PIE (ELF type DYN, FLAGS_1 PIE), full RELRO (GNU_RELRO and
    BIND_NOW), a non-executable stack, the stack protector (__stack_chk_fail), _FORTIFY_SOURCE (*_chk
    functions), CET (-fcf-protection=full on every translation unit, the IBT and SHSTK properties in
    every object, and the binary's own property note), no RPATH/RUNPATH;
  - the profile's contract: the libraries a profile must not link (tee-minimal: libcurl; verifier:
    the engine's and the server's).

  scripts/supply-chain.py [--build] [--check] [--out FILE] [--sbom-dir DIR] [--dir PROFILE=DIR]...

--build configures and builds what is missing (cmake --preset, then the profile's binaries only).
--check exits 1 when a hardening or contract check fails (the report is written either way).
Nothing in the output depends on the time, so the same binaries give the same files.
"""

import argparse
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import urllib.parse
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The binaries each profile ships, and the shared libraries it must not need (its contract).
PROFILES = [
    {"name": "default", "binaries": ["a3s-power", "a3s-power-verify"], "forbidden": [],
     "summary": "the server and every CLI: engine, runtime, OpenAI-compatible server, RA-TLS, vsock, "
                "libcurl client commands (pull, chat, ps, bench-cache), the verifier with live and online modes"},
    {"name": "embedded", "binaries": ["a3s-power", "embedded_chat"], "forbidden": ["libspdlog", "libfmt"],
     "summary": "the engine, the runtime and the embedded runtime (include/a3s/power/embedded.h) with the "
                "`run` CLI; no server (embedded_chat is the example application of the embedded runtime)"},
    {"name": "tee-minimal", "binaries": ["a3s-power"], "forbidden": ["libcurl"],
     "summary": "the server with the fewest dependencies: RA-TLS and vsock, no libcurl (no pull, chat, ps, "
                "bench-cache; the verifier's live and online modes are not built)"},
    {"name": "verifier", "binaries": ["a3s-power-verify"], "forbidden": ["libpcre2", "libspdlog", "libfmt"],
     "summary": "a3s-power-verify and the verification libraries alone: no engine, no server; "
                "reproducible (scripts/check-reproducible.sh)"},
]

HARDENING_FLAGS = ["-fstack-protector-strong", "-fstack-clash-protection", "-fcf-protection=full"]
FORTIFY_FLAG = "-D_FORTIFY_SOURCE=2"
LINK_FLAGS = ["-Wl,-z,relro", "-Wl,-z,now", "-Wl,-z,noexecstack", "-Wl,--build-id=sha1"]


def run(cmd, cwd=None, check=True):
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, LC_ALL="C"))
    if check and r.returncode != 0:
        raise SystemExit(f"supply-chain: {' '.join(cmd)} failed:\n{r.stderr}")
    return r


def preset_dirs():
    with open(os.path.join(ROOT, "CMakePresets.json")) as f:
        presets = json.load(f)
    out = {}
    for p in presets["configurePresets"]:
        if "binaryDir" in p:
            out[p["name"]] = p["binaryDir"].replace("${sourceDir}", ROOT)
    return out


# ---------------------------------------------------------------------------------------------------
# Debian packages


class Dpkg:
    def __init__(self):
        self.owner_cache = {}
        self.info_cache = {}

    def owners(self, paths):
        """{path: "package:arch"} for the paths dpkg knows (each tried as given, resolved, and with the
        /usr merge undone)."""
        want = {}
        for p in paths:
            if p in self.owner_cache:
                continue
            cands = []
            for c in (os.path.normpath(p), os.path.realpath(p)):
                for v in (c, re.sub(r"^/usr/(lib|lib64|bin|sbin)/", r"/\1/", c),
                          re.sub(r"^/(lib|lib64|bin|sbin)/", r"/usr/\1/", c)):
                    if v not in cands:
                        cands.append(v)
            want[p] = cands
        if want:
            everything = sorted({c for cs in want.values() for c in cs})
            found = {}
            for i in range(0, len(everything), 500):
                r = run(["dpkg", "-S"] + everything[i:i + 500], check=False)
                for line in r.stdout.splitlines():
                    if ": " not in line:
                        continue
                    pkgs, path = line.split(": ", 1)
                    if "," in pkgs or path not in everything:  # diversions, directories of several packages
                        continue
                    found[path] = pkgs.strip()
            for p, cands in want.items():
                self.owner_cache[p] = next((found[c] for c in cands if c in found), None)
        return {p: self.owner_cache[p] for p in paths}

    def info(self, pkg):
        """(name, version, arch) of an installed "package[:arch]"."""
        if pkg not in self.info_cache:
            r = run(["dpkg-query", "-W", "-f=${Package}\t${Version}\t${Architecture}", pkg])
            name, version, arch = r.stdout.split("\t")
            self.info_cache[pkg] = (name, version, arch)
        return self.info_cache[pkg]


def os_release():
    info = {}
    with open("/etc/os-release") as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                info[k] = v.strip('"')
    return info


def purl(name, version, arch, codename):
    # Package URL of a Debian package (https://github.com/package-url/purl-spec, type "deb"): name and
    # version percent-encoded ("libstdc++6" → "libstdc%2B%2B6", an epoch's ':' → "%3A").
    def q(text):
        return urllib.parse.quote(text, safe=".-_~")
    return f"pkg:deb/debian/{q(name)}@{q(version)}?arch={arch}&distro=debian-{codename}"


# ---------------------------------------------------------------------------------------------------
# ELF


def readelf(args, path):
    return run(["readelf", "-W"] + args + [path]).stdout


def ldconfig_paths():
    out = {}
    for line in run(["ldconfig", "-p"]).stdout.splitlines():
        m = re.match(r"\s+(\S+) \(([^)]*)\) => (\S+)", line)
        if m and "x86-64" in m.group(2) and m.group(1) not in out:
            out[m.group(1)] = m.group(3)
    return out


def cet_properties(text):
    """{file: set of x86 feature properties} from `readelf -n` of one or more files."""
    props = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"File: (.*)", line)
        if m:
            current = m.group(1)
            props.setdefault(current, set())
            continue
        m = re.search(r"x86 feature: (.*)", line)
        if m:
            props.setdefault(current, set()).update(x.strip() for x in m.group(1).split(","))
    return props


def analyse_elf(path):
    header = readelf(["-h"], path)
    segments = readelf(["-l"], path)
    dynamic = readelf(["-d"], path)
    dynsyms = readelf(["--dyn-syms"], path)
    notes = readelf(["-n"], path)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", dynamic)
    flags = " ".join(re.findall(r"\(FLAGS(?:_1)?\)\s+(?:Flags: )?(.*)", dynamic))
    undefined = set()
    for line in dynsyms.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[6] == "UND":
            undefined.add(cols[7].split("@")[0])
    stack = re.search(r"GNU_STACK\s+(?:\S+\s+){5}(\S+)", segments)
    props = set()
    m = re.search(r"x86 feature: (.*)", notes)
    if m:
        props = {x.strip() for x in m.group(1).split(",")}
    return {
        "type": re.search(r"Type:\s+(\S+)", header).group(1),
        "pie_flag": "PIE" in flags.split(),
        "relro": "GNU_RELRO" in segments,
        "bind_now": "BIND_NOW" in flags.split() or "NOW" in flags.split(),
        "stack_flags": stack.group(1) if stack else "",
        "needed": needed,
        "rpath": re.findall(r"\((?:RPATH|RUNPATH)\)\s+\S+ \S+: \[(.*?)\]", dynamic),
        "stack_chk": "__stack_chk_fail" in undefined,
        "chk": sorted(s for s in undefined if s.endswith("_chk") and s != "__stack_chk_fail"),
        "cet": props,
    }


# ---------------------------------------------------------------------------------------------------
# What ninja knows about a binary


def compiler_args(command):
    """The compiler's arguments of a compile or link command (after any launcher such as ccache)."""
    words = shlex.split(command)
    for i, w in enumerate(words):
        base = os.path.basename(w)
        if re.fullmatch(r"(c\+\+|g\+\+(-\d+)?|gcc(-\d+)?|cc|clang\+\+(-\d+)?|clang(-\d+)?)", base):
            return words[:i], words[i + 1:]
    return [], words


def build_commands(build_dir, binary):
    text = run(["ninja", "-C", build_dir, "-t", "commands", f"bin/{binary}"]).stdout
    compiles, link = [], None
    for line in text.splitlines():
        if not line.strip():
            continue
        launcher, args = compiler_args(line)
        if not args:
            continue
        if "-c" in args and "-o" in args:
            out = args[args.index("-o") + 1]
            if out.endswith(".o"):
                compiles.append((launcher, args, out))
        elif "-o" in args and args[args.index("-o") + 1] == f"bin/{binary}":
            link = args
    return compiles, link


def compile_flags(args):
    """The flags of a compile command without its inputs, outputs, includes and dependency file."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MT", "-MF", "-include", "-isystem", "-c"):
            skip = a != "-c"
            continue
        if a in ("-MD", "-Winvalid-pch") or a.startswith(("-I", "-ffile-prefix-map=")) or not a.startswith("-"):
            continue
        if a.startswith("-D") and not a.startswith("-D_FORTIFY_SOURCE"):
            continue
        out.append(a)
    return out


def link_flags(args):
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a.startswith("-") and not a.startswith("-l"):
            out.append(a)
    return out


def target_of(obj):
    m = re.search(r"CMakeFiles/([^/]+)\.dir/", obj)
    return m.group(1) if m else obj


def header_packages(build_dir, objects, dpkg):
    """The Debian packages whose headers the objects were compiled from (ninja's deps log)."""
    objs = set(objects)
    text = run(["ninja", "-C", build_dir, "-t", "deps"] + sorted(objs), check=False).stdout
    headers = set()
    for line in text.splitlines():
        if line.startswith("    "):
            h = line.strip()
            if h.startswith("/") and not h.startswith(ROOT + "/"):
                headers.add(h)
    owners = dpkg.owners(sorted(headers))
    return sorted({pkg for pkg in owners.values() if pkg})


def toolchain(dpkg):
    compiler = os.path.realpath("/usr/bin/c++")
    pkgs = set(p for p in dpkg.owners([compiler, "/usr/bin/ld.bfd"]).values() if p)
    crt = [os.path.normpath(run(["c++", f"-print-file-name={n}"]).stdout.strip()) for n in ("Scrt1.o", "crti.o", "crtn.o",
                                                                         "crtbeginS.o", "libgcc.a")]
    pkgs |= set(p for p in dpkg.owners(crt).values() if p)
    for tool in ("/usr/bin/cmake", "/usr/bin/ninja"):
        o = dpkg.owners([tool])[tool]
        if o:
            pkgs.add(o)
    return sorted(pkgs), crt


# ---------------------------------------------------------------------------------------------------
# One binary


def check(results, name, ok, evidence):
    results.append({"check": name, "ok": bool(ok), "evidence": evidence})


def analyse_binary(profile, build_dir, binary, dpkg, libs_by_soname, startup_cet):
    path = os.path.join(build_dir, "bin", binary)
    with open(path, "rb") as f:
        data = f.read()
    elf = analyse_elf(path)
    compiles, link = build_commands(build_dir, binary)
    if not compiles or link is None:
        raise SystemExit(f"supply-chain: ninja in {build_dir} does not know how bin/{binary} is built")
    flag_sets = [compile_flags(args) for _, args, _ in compiles]
    common = [f for f in flag_sets[0] if all(f in fs for fs in flag_sets)]
    extras = {}
    for (_, _, obj), fs in zip(compiles, flag_sets):
        for f in fs:
            if f not in common:
                extras.setdefault(f, set()).add(target_of(obj))
    objects = [os.path.join(build_dir, obj) for _, _, obj in compiles]
    obj_props = cet_properties(run(["readelf", "-nW"] + objects).stdout)
    lacking = sorted(os.path.relpath(o, build_dir) for o in objects
                     if not {"IBT", "SHSTK"} <= obj_props.get(o, set()))

    libs = []
    for soname in elf["needed"]:
        file = libs_by_soname.get(soname, "")
        owner = dpkg.owners([file])[file] if file else None
        name, version, arch = dpkg.info(owner) if owner else ("?", "?", "?")
        libs.append({"soname": soname, "file": file, "package": name, "version": version, "arch": arch})
    headers = header_packages(build_dir, [obj for _, _, obj in compiles], dpkg)

    results = []
    check(results, "PIE", elf["type"] == "DYN" and elf["pie_flag"],
          f"ELF type {elf['type']}, FLAGS_1 {'PIE' if elf['pie_flag'] else 'without PIE'}")
    check(results, "full RELRO", elf["relro"] and elf["bind_now"],
          ("GNU_RELRO segment" if elf["relro"] else "no GNU_RELRO segment") + ", " +
          ("BIND_NOW" if elf["bind_now"] else "lazy binding"))
    check(results, "non-executable stack", elf["stack_flags"] == "RW", f"GNU_STACK {elf['stack_flags'] or 'absent'}")
    check(results, "stack protector", elf["stack_chk"] and all("-fstack-protector-strong" in fs for fs in flag_sets),
          "__stack_chk_fail referenced; -fstack-protector-strong on every translation unit"
          if elf["stack_chk"] else "__stack_chk_fail not referenced")
    fortified = all(FORTIFY_FLAG in fs and "-U_FORTIFY_SOURCE" in fs for fs in flag_sets)
    check(results, "_FORTIFY_SOURCE", fortified and elf["chk"],
          f"{FORTIFY_FLAG} on {'every' if fortified else 'not every'} translation unit; "
          f"{len(elf['chk'])} fortified functions ({', '.join(elf['chk'][:6])}{', …' if len(elf['chk']) > 6 else ''})")
    check(results, "stack clash protection", all("-fstack-clash-protection" in fs for fs in flag_sets),
          "-fstack-clash-protection on every translation unit")
    cet_flag = all("-fcf-protection=full" in fs for fs in flag_sets)
    if {"IBT", "SHSTK"} <= elf["cet"]:
        note = "the binary's note: IBT, SHSTK"
    else:
        missing = ", ".join(f"{os.path.basename(f)}" for f, p in startup_cet.items() if not {"IBT", "SHSTK"} <= p)
        note = ("the binary's note: " + (", ".join(sorted(elf["cet"])) or "none") +
                (f" (the linker keeps it only when every input has it; Debian 12's startup files {missing} "
                 "have none)" if missing else ""))
    check(results, "CET (IBT, shadow stack)", cet_flag and not lacking,
          f"-fcf-protection=full on {'every' if cet_flag else 'not every'} translation unit; "
          f"{len(objects) - len(lacking)}/{len(objects)} objects with IBT and SHSTK"
          f"{' (lacking: ' + ', '.join(lacking[:5]) + ')' if lacking else ''}; {note}")
    check(results, "no RPATH / RUNPATH", not elf["rpath"], ", ".join(elf["rpath"]) or "none")
    lflags = link_flags(link)
    check(results, "link flags", all(f in lflags for f in LINK_FLAGS), " ".join(f for f in LINK_FLAGS if f in lflags))
    forbidden = [l["soname"] for l in libs if any(l["soname"].startswith(f + ".") or l["soname"].startswith(f + "-")
                                                  for f in profile["forbidden"])]
    if profile["forbidden"]:
        check(results, f"profile: no {', '.join(profile['forbidden'])}", not forbidden,
              "needs " + ", ".join(forbidden) if forbidden else "none of them is needed")

    launchers = {os.path.basename(w) for l, _, _ in compiles for w in l}
    return {
        "binary": binary,
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "libs": libs,
        "headers": headers,
        "common_flags": common,
        "extra_flags": {f: sorted(t) for f, t in sorted(extras.items())},
        "link_flags": lflags,
        "units": len(compiles),
        "ccache": "ccache" in launchers,
        "checks": results,
    }


# ---------------------------------------------------------------------------------------------------
# Output


def sbom(profile, bins, commit, version, dpkg, tool_pkgs, codename):
    comps, deps, seen = [], [], {}

    def package_component(pkg, role):
        name, ver, arch = dpkg.info(pkg)
        ref = purl(name, ver, arch, codename)
        if ref not in seen:
            seen[ref] = {"type": "library", "bom-ref": ref, "name": name, "version": ver, "purl": ref,
                         "properties": []}
            comps.append(seen[ref])
        roles = [p["value"] for p in seen[ref]["properties"] if p["name"] == "a3s:role"]
        if role not in roles:
            seen[ref]["properties"].append({"name": "a3s:role", "value": role})
        return ref

    for b in bins:
        ref = f"a3s-power/{profile['name']}/{b['binary']}"
        comps.append({"type": "application", "bom-ref": ref, "name": b["binary"], "version": version,
                      "hashes": [{"alg": "SHA-256", "content": b["sha256"]}],
                      "properties": [{"name": "a3s:size", "value": str(b["size"])}]})
        runtime = []
        for lib in b["libs"]:
            if lib["package"] != "?":
                ref_lib = package_component(f"{lib['package']}:{lib['arch']}", "runtime (shared library)")
                if ref_lib not in runtime:
                    runtime.append(ref_lib)
        for pkg in b["headers"]:
            package_component(pkg, "build (headers compiled in)")
        deps.append({"ref": ref, "dependsOn": runtime})
    for pkg in tool_pkgs:
        package_component(pkg, "build (toolchain)")
    for c in comps:
        if c["type"] == "library":
            c["properties"].sort(key=lambda p: p["value"])
    apps = [c for c in comps if c["type"] == "application"]
    libs = sorted((c for c in comps if c["type"] == "library"), key=lambda c: c["name"])
    doc = {
        "bomFormat": "CycloneDX",
        "specVersion": "1.5",
        "version": 1,
        "metadata": {
            "component": {"type": "application", "bom-ref": f"a3s-power/{profile['name']}",
                          "name": f"a3s-power ({profile['name']} profile)", "version": version,
                          "description": profile["summary"]},
            "tools": {"components": [{"type": "application", "name": "scripts/supply-chain.py"}]},
            "properties": [{"name": "a3s:profile", "value": profile["name"]},
                           {"name": "a3s:commit", "value": commit}],
        },
        "components": apps + libs,
        "dependencies": [{"ref": f"a3s-power/{profile['name']}", "dependsOn": [a["bom-ref"] for a in apps]}] + deps,
    }
    # A serial number derived from the content: the same binaries give the same SBOM.
    digest = hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()
    serial = "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, "a3s-power-sbom:" + digest))
    return {"bomFormat": doc.pop("bomFormat"), "specVersion": doc.pop("specVersion"), "serialNumber": serial,
            **doc}


def markdown(reports, commit, osr, tool_pkgs, crt, startup_cet, dpkg, sbom_dir_rel):
    L = []
    L.append("# Supply chain: build profiles, dependencies, hardening")
    L.append("")
    L.append(f"> Generated by `make supply-chain` (scripts/supply-chain.py) from commit `{commit}` on "
             f"{osr.get('PRETTY_NAME', 'Linux')}. Regenerated for every release: do not edit by hand. The "
             f"SBOM of each profile (CycloneDX 1.5, Debian packages as `pkg:deb/debian/NAME@VERSION` purls) is "
             f"in [{sbom_dir_rel}/]({sbom_dir_rel}/).")
    L.append("")
    L.append("The four profiles are the CMake presets of the same sources (README \"Build profiles\"); the "
             "hardening flags are the same in all of them (root CMakeLists.txt), and `make test` checks every "
             "row below (scripts/run-tests.sh, stage 4).")
    L.append("")
    L.append("| profile | binary | size | SHA-256 | shared libraries | hardening |")
    L.append("|---|---|---|---|---|---|")
    for r in reports:
        for b in r["bins"]:
            ok = all(c["ok"] for c in b["checks"])
            L.append(f"| `{r['profile']['name']}` | `{b['binary']}` | {b['size']:,} | `{b['sha256']}` | "
                     f"{', '.join(l['soname'] for l in b['libs'])} | {'all pass' if ok else '**FAILS**'} |")
    L.append("")
    L.append("## Reproducible verifier")
    L.append("")
    L.append("Two builds of the `verifier` preset from the same commit give a byte-identical "
             "`a3s-power-verify`, whatever the build directory and whether ccache compiled it; "
             "`scripts/check-reproducible.sh` checks it (`make test` runs it) by building the preset's "
             "directory and a fresh directory outside the tree with ccache disabled, and comparing the "
             "SHA-256 (`--strict`: ccache disabled for both). What makes it so:")
    L.append("")
    L.append("- `-ffile-prefix-map=<source dir>=.` and `-ffile-prefix-map=<build dir>=build` (the build "
             "directory's map last, so it wins when the build directory is inside the tree): no absolute path "
             "of the checkout in the output;")
    L.append("- `OPENSSL_NO_FILENAMES`: OpenSSL's macros (`OPENSSL_free`, `ERR_raise`, …) pass \"\" instead "
             "of `__FILE__`, so no source path, relative or absolute, is in the binary (ccache hands the "
             "compiler paths relative to the build directory);")
    L.append("- no `__DATE__`, `__TIME__` or timestamps: `--version`'s profile and commit come from "
             "`cmake/build_info.cmake`, which writes the same file for the same commit; "
             "`SOURCE_DATE_EPOCH` is the commit's time in the check, for any tool that reads one;")
    L.append("- `-Wl,--build-id=sha1`: the build ID is a hash of the linked contents;")
    L.append("- the same toolchain: the Debian packages below (a different compiler or binutils version gives "
             "a different binary).")
    L.append("")
    verifier = next((r for r in reports if r["profile"]["name"] == "verifier"), None)
    if verifier:
        b = verifier["bins"][0]
        L.append(f"At commit `{commit}` the verifier's SHA-256 is `{b['sha256']}`.")
        L.append("")
    L.append("## Toolchain")
    L.append("")
    L.append("| package | version | role |")
    L.append("|---|---|---|")
    roles = {"binutils": "assembler and linker", "cmake": "build system", "ninja-build": "build tool",
             "libc6-dev": "glibc's startup files (`Scrt1.o`, `crti.o`, `crtn.o`) and `libc_nonshared.a`",
             "libgcc-12-dev": "GCC's startup files (`crtbeginS.o`, `crtendS.o`) and `libgcc.a`"}
    for pkg in tool_pkgs:
        name, ver, arch = dpkg.info(pkg)
        role = roles.get(name, "C++ compiler" if re.match(r"(g\+\+|gcc|clang)", name) else "toolchain")
        L.append(f"| `{name}` | `{ver}` | {role} |")
    L.append("")
    L.append("CET: every translation unit is compiled with `-fcf-protection=full`, so every object file of the "
             "project carries the IBT and SHSTK properties. The linker keeps a property in the binary only "
             "when every input has it, and Debian 12's glibc startup files do not:")
    L.append("")
    for f, p in startup_cet.items():
        L.append(f"- `{f}`: {', '.join(sorted(p)) or 'no CET property'}")
    L.append("")
    L.append("so the binaries carry no IBT/SHSTK note until the distribution's `libc6-dev` does, and the "
             "kernel does not enable shadow stacks for them. The checks below count the objects.")
    L.append("")
    for r in reports:
        p = r["profile"]
        L.append(f"## `{p['name']}`")
        L.append("")
        L.append(f"Contents: {p['summary']}. Build directory `{r['dir_rel']}` (`cmake --preset {p['name']}`).")
        L.append("")
        for b in r["bins"]:
            L.append(f"### `{b['binary']}`")
            L.append("")
            L.append(f"{b['size']:,} bytes, SHA-256 `{b['sha256']}`; {b['units']} translation units"
                     f"{', compiled through ccache' if b['ccache'] else ''}.")
            L.append("")
            L.append("| shared library | file | Debian package | version |")
            L.append("|---|---|---|---|")
            for lib in b["libs"]:
                L.append(f"| `{lib['soname']}` | `{lib['file']}` | `{lib['package']}` | `{lib['version']}` |")
            L.append("")
            L.append("| check | result | evidence |")
            L.append("|---|---|---|")
            for c in b["checks"]:
                L.append(f"| {c['check']} | {'pass' if c['ok'] else '**FAIL**'} | {c['evidence']} |")
            L.append("")
            L.append(f"Compile flags of every translation unit: `{' '.join(b['common_flags'])}`.")
            if b["extra_flags"]:
                L.append("")
                L.append("Other flags, by target: " + "; ".join(
                    f"`{f}` ({', '.join(t)})" for f, t in b["extra_flags"].items()) + ".")
            L.append("")
            L.append(f"Link flags: `{' '.join(b['link_flags'])}`.")
            L.append("")
            names = []
            for pkg in b["headers"]:
                name, ver, arch = dpkg.info(pkg)
                names.append(f"`{name}` {ver}")
            L.append("Headers compiled in, by Debian package: " + ", ".join(names) + ".")
            L.append("")
    return "\n".join(L).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="store_true", help="configure and build what is missing")
    ap.add_argument("--check", action="store_true", help="exit 1 when a check fails")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "supply-chain.md"))
    ap.add_argument("--sbom-dir", default=os.path.join(ROOT, "docs", "sbom"))
    ap.add_argument("--dir", action="append", default=[], metavar="PROFILE=DIR",
                    help="use DIR as the build directory of PROFILE instead of the preset's")
    ap.add_argument("--profile", action="append", default=[], help="only these profiles")
    a = ap.parse_args()

    dirs = preset_dirs()
    for d in a.dir:
        name, _, path = d.partition("=")
        dirs[name] = os.path.abspath(path)
    profiles = [p for p in PROFILES if not a.profile or p["name"] in a.profile]

    for p in profiles:
        d = dirs[p["name"]]
        missing = [b for b in p["binaries"] if not os.path.exists(os.path.join(d, "bin", b))]
        if a.build:
            if not os.path.exists(os.path.join(d, "build.ninja")):
                run(["cmake", "--preset", p["name"], "-B", d])
            jobs = os.environ.get("JOBS", str(os.cpu_count() or 2))
            r = subprocess.run(["cmake", "--build", d, "-j", jobs, "--target"] + p["binaries"], cwd=ROOT)
            if r.returncode != 0:
                raise SystemExit(f"supply-chain: building {p['name']} failed")
        elif missing:
            raise SystemExit(f"supply-chain: {d} has no {', '.join(missing)} (build it, or pass --build)")

    dpkg = Dpkg()
    osr = os_release()
    codename = osr.get("VERSION_CODENAME", "unknown")
    libs_by_soname = ldconfig_paths()
    tool_pkgs, crt = toolchain(dpkg)
    startup = [f for f in crt if f.endswith(".o")]
    startup_cet = {f: p for f, p in cet_properties(run(["readelf", "-nW"] + startup).stdout).items()}
    version = "unknown"
    commit = "unknown"

    reports = []
    failed = []
    for p in profiles:
        d = dirs[p["name"]]
        bins = [analyse_binary(p, d, b, dpkg, libs_by_soname, startup_cet) for b in p["binaries"]]
        for b in bins:
            for c in b["checks"]:
                if not c["ok"]:
                    failed.append(f"{p['name']}/{b['binary']}: {c['check']}: {c['evidence']}")
        # The version and commit the binaries report themselves (base/build_info.h).
        first = os.path.join(d, "bin", p["binaries"][0])
        lines = run([first, "--version"]).stdout.splitlines()
        version = lines[0].split(" ", 1)[1]
        commit = lines[2].split(": ", 1)[1]
        reports.append({"profile": p, "bins": bins, "dir_rel": os.path.relpath(d, ROOT), "commit": commit,
                        "version": version})

    commits = sorted({r["commit"] for r in reports})
    commit = commits[0] if len(commits) == 1 else " / ".join(commits)
    os.makedirs(a.sbom_dir, exist_ok=True)
    for r in reports:
        doc = sbom(r["profile"], r["bins"], r["commit"], f"{r['version']}+{r['commit']}", dpkg, tool_pkgs, codename)
        with open(os.path.join(a.sbom_dir, f"{r['profile']['name']}.cdx.json"), "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    sbom_rel = os.path.relpath(a.sbom_dir, os.path.dirname(os.path.abspath(a.out)))
    text = markdown(reports, commit, osr, tool_pkgs, crt, startup_cet, dpkg, sbom_rel)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(text)
    nchecks = sum(len(b["checks"]) for r in reports for b in r["bins"])
    print(f"supply-chain: {a.out} and {len(reports)} SBOMs in {a.sbom_dir}: "
          f"{nchecks - len(failed)}/{nchecks} checks pass")
    for f in failed:
        print(f"supply-chain: FAIL {f}", file=sys.stderr)
    if a.check and failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
