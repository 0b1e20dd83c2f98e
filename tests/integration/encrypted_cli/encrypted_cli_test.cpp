// Encrypted models through the real a3s-power binary: keygen, encrypt, decrypt; logits in file and
// memory modes for every reference model (bitwise identical to the plaintext model); tampered files
// and bad input (exit 2, one line on stderr, never the key); no plaintext file on disk.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cli_run.h"

namespace a3s::power::enc_test {
namespace {

namespace fs = std::filesystem;

const std::string kModels = std::string(A3S_TESTDATA_DIR) + "/models";
const std::string kStories = kModels + "/stories260K.gguf";
constexpr size_t kRecord = (1u << 20) + 16;  // default chunk + tag

void write_text(const std::string& path, const std::string& s) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << s;
}

void expect_one_line_error(const CliRun& r, const std::string& contains = "") {
  EXPECT_EQ(r.status, 2) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "stderr must be one line: " << r.err;
  if (!contains.empty()) {
    EXPECT_NE(r.err.find(contains), std::string::npos) << r.err;
  }
}

// keygen into `dir`/name; returns the key path.
std::string keygen(const Dir& dir, const std::string& name = "model.key") {
  const std::string path = dir.file(name);
  const CliRun r = run({"keygen", "--aes256", "--out", path});
  EXPECT_EQ(r.status, 0) << r.err;
  return path;
}

std::string encrypt(const std::string& key, const std::string& in, const std::string& out) {
  const CliRun r = run({"encrypt", "--key-file", key, in, out});
  EXPECT_EQ(r.status, 0) << r.err;
  return out;
}

TEST(Keygen, WritesA0600HexKeyAndRefusesToOverwrite) {
  Dir dir;
  const std::string k = keygen(dir);
  struct stat st {};
  ASSERT_EQ(::stat(k.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  const std::string text = slurp(k);
  ASSERT_EQ(text.size(), 65u);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_TRUE(
      std::all_of(text.begin(), text.end() - 1, [](char c) { return std::isxdigit(c) && !std::isupper(c); }));
  // A second key differs; the first is never overwritten.
  const std::string k2 = keygen(dir, "other.key");
  EXPECT_NE(slurp(k2), text);
  const CliRun again = run({"keygen", "--aes256", "--out", k});
  expect_one_line_error(again, "refusing to overwrite");
  EXPECT_EQ(slurp(k), text);
  expect_one_line_error(run({"keygen", "--out", dir.file("x")}), "--aes256");
  EXPECT_FALSE(fs::exists(dir.file("x")));
}

TEST(EncryptDecrypt, RoundTripIsByteForByte) {
  Dir dir;
  const std::string k = keygen(dir);
  for (const std::string model : {"stories260K", "tiny-llama-f32"}) {
    const std::string in = kModels + "/" + model + ".gguf";
    const CliRun e = run({"encrypt", "--key-file", k, in, dir.file("m.enc")});
    ASSERT_EQ(e.status, 0) << e.err;
    const auto j = nlohmann::json::parse(e.out);
    const std::string plain = slurp(in), enc = slurp(dir.file("m.enc"));
    EXPECT_EQ(enc.substr(0, 8), std::string("A3SENCW\0", 8));
    EXPECT_EQ(enc.size(), j.at("encrypted_bytes").get<size_t>());
    EXPECT_EQ(j.at("plaintext_bytes").get<size_t>(), plain.size());
    EXPECT_EQ(j.at("chunk_bytes"), 1u << 20);
    EXPECT_EQ(enc.find(plain.substr(4096, 64)), std::string::npos)
        << "plaintext visible in the encrypted file";
    const CliRun d = run({"decrypt", "--key-file", k, dir.file("m.enc"), dir.file("m.out")});
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_TRUE(slurp(dir.file("m.out")) == plain) << model;
    struct stat st {};
    ASSERT_EQ(::stat(dir.file("m.out").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    fs::remove(dir.file("m.out"));
  }
  // Leaves no temporary files behind.
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{
                       "m.enc",
                       "model.key",
                   }));
}

TEST(EncryptDecrypt, DecryptIsRefusedInTeeMode) {
  Dir dir;
  const std::string k = keygen(dir);
  encrypt(k, kStories, dir.file("m.enc"));
  write_text(dir.file("tee.hcl"), "tee_mode = true\n");
  expect_one_line_error(
      run({"decrypt", "--key-file", k, "--config", dir.file("tee.hcl"), dir.file("m.enc"), dir.file("out")}),
      "tee_mode");
  expect_one_line_error(
      run({"decrypt", "--key-file", k, dir.file("m.enc"), dir.file("out")}, {{"A3S_POWER_TEE_MODE", "1"}}),
      "refused");
  EXPECT_FALSE(fs::exists(dir.file("out")));
  write_text(dir.file("off.hcl"), "tee_mode = false\n");
  EXPECT_EQ(
      run({"decrypt", "--key-file", k, "--config", dir.file("off.hcl"), dir.file("m.enc"), dir.file("out")})
          .status,
      0);
}

TEST(EncryptDecrypt, BadInputExitsTwo) {
  Dir dir;
  const std::string k = keygen(dir);
  const std::string enc = encrypt(k, kStories, dir.file("m.enc"));
  write_text(dir.file("empty"), "");
  expect_one_line_error(run({"encrypt", "--key-file", k, dir.file("empty"), dir.file("e.enc")}), "empty");
  expect_one_line_error(run({"encrypt", "--key-file", k, enc, dir.file("e.enc")}), "already encrypted");
  expect_one_line_error(run({"encrypt", "--key-file", dir.file("missing.key"), kStories, dir.file("e.enc")}),
                        "cannot open the key file");
  expect_one_line_error(run({"encrypt", "--key-file", k, dir.file("missing.gguf"), dir.file("e.enc")}));
  expect_one_line_error(
      run({"encrypt", "--key-file", k, "--chunk-size", "1000", kStories, dir.file("e.enc")}), "chunk size");
  // A key file that is not 64 hex digits: the text is never echoed.
  const std::string bad = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeZ\n";
  write_text(dir.file("bad.key"), bad);
  const CliRun r = run({"decrypt", "--key-file", dir.file("bad.key"), enc, dir.file("out")});
  expect_one_line_error(r, "64 hex digits");
  EXPECT_EQ(r.err.find("0123456789abcdef"), std::string::npos) << r.err;
  write_text(dir.file("short.key"), "abcd\n");
  expect_one_line_error(run({"encrypt", "--key-file", dir.file("short.key"), kStories, dir.file("e.enc")}),
                        "64 hex digits");
  // Decrypting a plaintext model.
  expect_one_line_error(run({"decrypt", "--key-file", k, kStories, dir.file("out")}),
                        "not an encrypted model");
  // A key pasted where its file belongs is never echoed.
  const std::string key_hex = slurp(k).substr(0, 64);
  const CliRun pasted = run({"decrypt", "--key-file", key_hex, enc, dir.file("out")});
  expect_one_line_error(pasted, "looks like a key");
  EXPECT_EQ(pasted.err.find(key_hex.substr(0, 16)), std::string::npos) << pasted.err;
  EXPECT_FALSE(fs::exists(dir.file("e.enc")));
  EXPECT_FALSE(fs::exists(dir.file("out")));
  // Only a regular file is ever replaced: a FIFO or a symbolic link at the output path is refused
  // and left as it was.
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  expect_one_line_error(run({"encrypt", "--key-file", k, kStories, dir.file("fifo")}), "not a regular file");
  EXPECT_TRUE(fs::is_fifo(dir.file("fifo")));
  write_text(dir.file("target"), "keep");
  fs::create_symlink(dir.file("target"), dir.file("link"));
  expect_one_line_error(run({"decrypt", "--key-file", k, enc, dir.file("link")}), "not a regular file");
  EXPECT_TRUE(fs::is_symlink(dir.file("link")));
  EXPECT_EQ(slurp(dir.file("target")), "keep");
}

// The output is written to an unnamed file until it is complete: afterwards the output directory
// holds no temporary file; an existing regular output is replaced.
TEST(EncryptDecrypt, NoTemporaryOutputFileIsLeft) {
  Dir dir;
  const std::string k = keygen(dir);
  write_text(dir.file("m.enc"), "old");
  const std::string enc = encrypt(k, kStories, dir.file("m.enc"));
  EXPECT_NE(slurp(enc), "old");
  const CliRun d = run({"decrypt", "--key-file", k, enc, dir.file("m.gguf")});
  ASSERT_EQ(d.status, 0) << d.err;
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"m.enc", "m.gguf", "model.key"})) << names.size();
}

// Acceptance: for every reference model, logits of the encrypted model in the file, memory and stream
// modes are bitwise identical to the plaintext model's.
TEST(EncryptedModels, LogitsAreBitwiseIdenticalForEveryModelInEveryMode) {
  Dir dir;
  const std::string k = keygen(dir);
  int n_models = 0;
  std::vector<fs::path> models;
  for (const auto& e : fs::directory_iterator(kModels))
    if (e.path().extension() == ".gguf") models.push_back(e.path());
  std::sort(models.begin(), models.end());
  for (const fs::path& model : models) {
    const std::string name = model.stem().string();
    const std::string enc = encrypt(k, model.string(), dir.file(name + ".enc"));
    const std::string tokens = "1,15,30,45";
    const CliRun p = run({"logits", "--model", model.string(), "--tokens", tokens, "--out",
                          dir.file("plain.f32"), "--threads", "1"});
    ASSERT_EQ(p.status, 0) << name << ": " << p.err;
    const std::string ref = slurp(dir.file("plain.f32"));
    ASSERT_FALSE(ref.empty());
    for (const std::string mode : {"file", "memory", "stream"}) {
      const CliRun c = run({"logits", "--model", enc, "--model-key-file", k, "--decrypt", mode, "--tokens",
                            tokens, "--out", dir.file("enc.f32"), "--threads", "1"});
      ASSERT_EQ(c.status, 0) << name << " " << mode << ": " << c.err;
      EXPECT_TRUE(slurp(dir.file("enc.f32")) == ref) << name << " " << mode << ": logits differ";
    }
    fs::remove(enc);
    ++n_models;
  }
  EXPECT_GE(n_models, 27);
}

TEST(EncryptedModels, KeyFromTheEnvironmentAndDefaultMode) {
  Dir dir;
  const std::string k = keygen(dir);
  const std::string enc = encrypt(k, kStories, dir.file("m.enc"));
  std::string hex = slurp(k);
  const CliRun g = run({"generate", "--model", enc, "--prompt", "Once upon a time", "-n", "8",
                        "--temperature", "0", "--threads", "1"},
                       {{"A3S_MODEL_KEY", hex.substr(0, 64)}});
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_EQ(g.out, ", there was a little girl\n");
  // The same through `run` (chat) with the key file.
  if (!has_command("run")) return;  // built without the server layer
  const CliRun r = run({"run", enc, "Once upon a time", "-n", "8", "--temperature", "0", "--threads", "1",
                        "--model-key-file", k});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(", there was a little girl"), std::string::npos) << r.out;
}

TEST(EncryptedModels, BadKeysAndOptionsExitTwo) {
  Dir dir;
  const std::string k = keygen(dir);
  const std::string k2 = keygen(dir, "other.key");
  const std::string enc = encrypt(k, kStories, dir.file("m.enc"));
  const std::vector<std::string> logits = {"logits", "--tokens",        "1,2",
                                           "--out",  dir.file("l.f32"), "--model"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = logits;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  expect_one_line_error(run(with({enc})), "is encrypted: give --model-key-file");
  expect_one_line_error(run(with({enc, "--model-key-file", k2})), "does not match");
  expect_one_line_error(run(with({enc, "--model-key-file", dir.file("nope.key")})),
                        "cannot open the key file");
  expect_one_line_error(run(with({enc}), {{"A3S_MODEL_KEY", "not-a-key"}}), "A3S_MODEL_KEY");
  const CliRun secret = run(with({enc}), {{"A3S_MODEL_KEY", std::string(63, 'a') + "x"}});
  expect_one_line_error(secret, "64 hex digits");
  EXPECT_EQ(secret.err.find("aaaaaaaa"), std::string::npos);
  expect_one_line_error(run(with({enc, "--model-key-file", k, "--decrypt", "disk"})));
  // Stream decryption streams the weights; the memory and file modes keep them resident.
  expect_one_line_error(run(with({enc, "--model-key-file", k, "--decrypt", "stream", "--weights", "resident"})),
                        "needs --weights stream or auto");
  expect_one_line_error(run(with({enc, "--model-key-file", k, "--weights", "stream"})), "needs --decrypt stream");
  // Decrypt options on a plaintext model.
  expect_one_line_error(run(with({kStories, "--model-key-file", k})), "is not encrypted");
  expect_one_line_error(run(with({kStories, "--decrypt", "memory"})), "is not encrypted");
  // Zero-length model file, with and without decrypt options.
  write_text(dir.file("empty.gguf"), "");
  expect_one_line_error(run(with({dir.file("empty.gguf")})));
  expect_one_line_error(run(with({dir.file("empty.gguf"), "--model-key-file", k})), "is not encrypted");
  EXPECT_FALSE(fs::exists(dir.file("l.f32")));
  // A3S_MODEL_KEY alone does not make a plaintext model an error.
  EXPECT_EQ(run(with({kStories}), {{"A3S_MODEL_KEY", slurp(k)}}).status, 0);
}

// Acceptance: wrong key, a flipped bit in any chunk (first, middle, last) or in the header, a
// truncated file, swapped chunks and a chunk from another file all fail the load with exit 2 and a
// specific message.
TEST(EncryptedModels, TamperedFilesFailTheLoadWithSpecificErrors) {
  Dir dir;
  const std::string k = keygen(dir);
  const std::string f32 = kModels + "/tiny-llama-f32.gguf";  // 11 MB: 11 chunks of 1 MiB
  const std::string enc = encrypt(k, f32, dir.file("m.enc"));
  const std::string other = encrypt(k, f32, dir.file("other.enc"));
  const std::string good = slurp(enc);
  const size_t n_chunks = (slurp(f32).size() + (1u << 20) - 1) >> 20;
  ASSERT_GE(n_chunks, 3u);
  auto variant = [&](const std::string& bytes) {
    write_text(dir.file("v.enc"), bytes);
    return dir.file("v.enc");
  };
  auto load = [&](const std::string& path, const std::string& mode = "memory") {
    return run({"logits", "--model", path, "--model-key-file", k, "--decrypt", mode, "--tokens", "1", "--out",
                dir.file("l.f32"), "--threads", "1"});
  };
  auto flipped = [&](size_t off) {
    std::string b = good;
    b[off] = static_cast<char>(b[off] ^ 0x01);
    return b;
  };
  for (size_t chunk : {size_t{0}, n_chunks / 2, n_chunks - 1}) {
    for (const std::string mode : {"file", "memory", "stream"}) {
      const CliRun r = load(variant(flipped(128 + chunk * kRecord + 777)), mode);
      expect_one_line_error(r, "chunk " + std::to_string(chunk) + " of " + std::to_string(n_chunks));
      EXPECT_NE(r.err.find("failed authentication"), std::string::npos) << r.err;
    }
  }
  expect_one_line_error(load(variant(flipped(40))), "header failed authentication");  // plaintext digest
  expect_one_line_error(load(variant(flipped(26))), "header failed authentication");  // plaintext size
  expect_one_line_error(load(variant(flipped(70))), "does not match");                // key id
  expect_one_line_error(load(variant(flipped(9))), "unsupported format version");
  expect_one_line_error(load(variant(good.substr(0, good.size() - 1000))), "truncated");
  expect_one_line_error(load(variant(good.substr(0, 100))), "truncated inside its header");
  expect_one_line_error(load(variant(good + "x")), "after its last chunk");
  std::string swapped = good;
  std::copy(good.begin() + 128 + 2 * kRecord, good.begin() + 128 + 3 * kRecord,
            swapped.begin() + 128 + 1 * kRecord);
  std::copy(good.begin() + 128 + 1 * kRecord, good.begin() + 128 + 2 * kRecord,
            swapped.begin() + 128 + 2 * kRecord);
  expect_one_line_error(load(variant(swapped)), "chunk 1 of");
  const std::string o = slurp(other);
  std::string spliced = good;
  std::copy(o.begin() + 128 + kRecord, o.begin() + 128 + 2 * kRecord, spliced.begin() + 128 + kRecord);
  expect_one_line_error(load(variant(spliced)), "chunk 1 of");
  expect_one_line_error(load(variant(spliced), "stream"), "chunk 1 of");
  expect_one_line_error(load(variant(good.substr(0, good.size() - 1000)), "stream"), "truncated");
  // The untouched file still loads.
  EXPECT_EQ(load(enc).status, 0);
  EXPECT_EQ(load(enc, "stream").status, 0);
}

// Every regular file under `root` (recursively), relative path → size.
std::map<std::string, uintmax_t> files_under(const std::string& root) {
  std::map<std::string, uintmax_t> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) out[fs::relative(it->path(), root).string()] = it->file_size(ec);
  }
  return out;
}

// Regular files directly in `dir`.
std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) out.insert(e.path().filename().string());
  return out;
}

bool has_gguf_magic(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  char m[4] = {};
  f.read(m, 4);
  return f.gcount() == 4 && std::memcmp(m, "GGUF", 4) == 0;
}

// Acceptance: no plaintext file is created anywhere on disk in any mode. The commands run with
// TMPDIR and the store (A3S_POWER_HOME) pointed at fresh directories, which must stay empty; the
// directory holding the encrypted model and the working directory gain no file either.
TEST(EncryptedModels, NoPlaintextFileIsCreatedInAnyMode) {
  Dir keys;
  const std::string k = keygen(keys);
  Dir models;
  const std::string enc = encrypt(k, kStories, models.file("m.enc"));
  Dir tmp, home, out;
  const auto cwd_before = files_in(fs::current_path().string());
  for (const std::string mode : {"file", "memory", "stream"}) {
    const std::map<std::string, std::string> env = {{"TMPDIR", tmp.path()}, {"A3S_POWER_HOME", home.path()}};
    const CliRun g = run({"generate", "--model", enc, "--model-key-file", k, "--decrypt", mode, "--prompt",
                          "Once upon a time", "-n", "4", "--temperature", "0", "--threads", "1"},
                         env);
    EXPECT_EQ(g.status, 0) << g.err;
    const CliRun l = run({"logits", "--model", enc, "--model-key-file", k, "--decrypt", mode, "--tokens",
                          "1,2,3", "--out", out.file("l.f32"), "--threads", "1"},
                         env);
    EXPECT_EQ(l.status, 0) << l.err;
    if (has_command("run")) {
      const CliRun r = run({"run", enc, "Hello", "-n", "2", "--temperature", "0", "--threads", "1",
                            "--model-key-file", k, "--decrypt", mode},
                           env);
      EXPECT_EQ(r.status, 0) << r.err;
    }
  }
  EXPECT_TRUE(files_under(tmp.path()).empty());
  EXPECT_TRUE(files_under(home.path()).empty());
  EXPECT_EQ(files_under(models.path()), (std::map<std::string, uintmax_t>{{"m.enc", fs::file_size(enc)}}));
  EXPECT_EQ(files_under(out.path()).size(), 1u);  // only the logits output
  const auto cwd_after = files_in(fs::current_path().string());
  for (const std::string& name : cwd_after) {
    if (cwd_before.count(name)) continue;
    // Another test may write into the tree concurrently; what matters is that no GGUF appears.
    EXPECT_FALSE(has_gguf_magic(fs::current_path() / name)) << "new plaintext GGUF file: " << name;
  }
  for (const std::string& d : {tmp.path(), home.path(), models.path(), out.path()}) {
    for (const auto& [name, size] : files_under(d)) EXPECT_FALSE(has_gguf_magic(fs::path(d) / name)) << name;
  }
}

}  // namespace
}  // namespace a3s::power::enc_test
