// Memory holds under load: a stream-mode server whose model (64 MiB) is larger than its memory budget
// (48 MiB) runs inside a memory cgroup limited to that budget, and 16 clients send a request at once.
// Every request must complete (200) or be refused with 429 / 503 — none lost to an OOM kill — the
// server must still be running afterwards, its anonymous resident memory must stay inside the budget
// throughout, and every completed greedy request must give the tokens the same request gives alone
// (the batched stream-mode step reads the weights once for all of them).
//
// The cgroup is a cgroup-v1 memory group (/sys/fs/cgroup/memory) or a cgroup-v2 group with the memory
// controller; where neither can be created (no privilege), the peak of RssAnon sampled during the
// load is the bound that is checked (it is checked in both cases).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/http_client.h"
#include "support/process.h"
#include "support/server_process.h"

namespace a3s::power::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr long kBudgetMiB = 48;
constexpr long long kBudgetBytes = kBudgetMiB << 20;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// A memory cgroup of its own, removed (after its processes exit) by the destructor.
class MemoryCgroup {
 public:
  explicit MemoryCgroup(long long limit_bytes) {
    const std::string name = "a3s-power-test-" + std::to_string(::getpid());
    const std::string v1 = "/sys/fs/cgroup/memory/" + name;
    if (::mkdir(v1.c_str(), 0755) == 0) {
      if (write_text(v1 + "/memory.limit_in_bytes", std::to_string(limit_bytes))) {
        write_text(v1 + "/memory.swappiness", "0");                                // best effort
        write_text(v1 + "/memory.memsw.limit_in_bytes", std::to_string(limit_bytes));  // best effort
        dir_ = v1;
        v2_ = false;
        return;
      }
      ::rmdir(v1.c_str());
    }
    if (read_text("/sys/fs/cgroup/cgroup.controllers").find("memory") != std::string::npos) {
      const std::string v2 = "/sys/fs/cgroup/" + name;
      if (::mkdir(v2.c_str(), 0755) == 0) {
        if (write_text(v2 + "/memory.max", std::to_string(limit_bytes))) {
          write_text(v2 + "/memory.swap.max", "0");  // best effort
          dir_ = v2;
          v2_ = true;
          return;
        }
        ::rmdir(v2.c_str());
      }
    }
  }
  ~MemoryCgroup() {
    if (dir_.empty()) return;
    for (int i = 0; i < 50 && ::rmdir(dir_.c_str()) != 0; ++i) std::this_thread::sleep_for(100ms);
  }
  bool available() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  // OOM kills inside the group (v1 memory.oom_control "oom_kill", v2 memory.events "oom_kill"); -1
  // when the kernel does not report them.
  long oom_kills() const {
    std::istringstream in(read_text(dir_ + (v2_ ? "/memory.events" : "/memory.oom_control")));
    std::string key;
    long value = 0;
    while (in >> key >> value)
      if (key == "oom_kill") return value;
    return -1;
  }

 private:
  std::string dir_;
  bool v2_ = false;
};

long rss_anon_kib(pid_t pid) {
  std::istringstream in(read_text("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("RssAnon:", 0) == 0) return std::stol(line.substr(8));
  return -1;
}

HttpResult complete(const ServerProcess& s) {
  const json body = {{"model", "m"}, {"prompt", "hello there"}, {"max_tokens", 12}, {"temperature", 0}};
  HttpOptions opts;
  opts.timeout_ms = 600'000;
  return http("POST", s.url("/v1/completions"), body.dump(), opts);
}

TEST(MemoryBudgetLoad, SixteenConcurrentRequestsInAStreamModeServerStayInsideItsBudget) {
  TempDir dir;
  const std::string model = dir.path() + "/m.gguf";
  // 16 blocks of 512 wide, Q8_0: 64 MiB of weights, larger than the budget, so only streaming fits.
  const ProcessResult synth = run_process(
      bin_path("a3s-power"), {"synth", "--arch", "llama", "--n-embd", "512", "--n-layer", "16", "--n-head", "8",
                              "--n-ff", "1536", "--n-vocab", "8000", "--ctx", "2048", "--type", "Q8_0", "-o", model});
  ASSERT_EQ(synth.status, 0) << synth.err;
  struct stat st{};
  ASSERT_EQ(::stat(model.c_str(), &st), 0);
  ASSERT_GT(st.st_size, kBudgetBytes);

  MemoryCgroup cgroup(kBudgetBytes);
  std::vector<std::string> launcher;
  if (cgroup.available())  // the shell joins the group, then becomes the server
    launcher = {"/bin/sh", "-c", "echo $$ > '" + cgroup.dir() + "/cgroup.procs' && exec \"$0\" \"$@\""};
  ServerProcess s({"--model", "m=" + model, "--weights", "stream", "--memory-budget", std::to_string(kBudgetMiB) + "M"},
                  {{"A3S_POWER_MAX_CONCURRENT_REQUESTS", "16"}, {"A3S_POWER_THREADS", "2"}}, launcher);
  ASSERT_TRUE(s.ready()) << s.log();
  if (cgroup.available()) {
    const std::string members = read_text(cgroup.dir() + "/cgroup.procs");
    ASSERT_NE(members.find(std::to_string(s.pid())), std::string::npos) << "the server is not in the cgroup";
  }

  const HttpResult alone = complete(s);
  ASSERT_EQ(alone.status, 200) << alone.body;
  const std::string alone_text = json::parse(alone.body)["choices"][0]["text"].get<std::string>();

  std::atomic<bool> done{false};
  std::atomic<long> peak_anon_kib{rss_anon_kib(s.pid())};
  std::thread sampler([&] {
    while (!done) {
      const long v = rss_anon_kib(s.pid());
      if (v > peak_anon_kib) peak_anon_kib = v;
      std::this_thread::sleep_for(5ms);
    }
  });
  constexpr int kClients = 16;
  std::vector<HttpResult> results(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) clients.emplace_back([&, i] { results[i] = complete(s); });
  for (auto& t : clients) t.join();
  done = true;
  sampler.join();

  int completed = 0;
  for (int i = 0; i < kClients; ++i) {
    const HttpResult& r = results[i];
    SCOPED_TRACE("client " + std::to_string(i));
    ASSERT_TRUE(r.status == 200 || r.status == 429 || r.status == 503)
        << "status " << r.status << " " << r.error << "\n" << s.log();
    if (r.status != 200) continue;
    ++completed;
    EXPECT_EQ(json::parse(r.body)["choices"][0]["text"].get<std::string>(), alone_text);
  }
  EXPECT_GT(completed, 0);
  EXPECT_GT(peak_anon_kib.load(), 0);
  EXPECT_LE(peak_anon_kib.load(), kBudgetBytes / 1024) << "anonymous RSS peaked above the budget";
  if (cgroup.available()) {
    EXPECT_LE(cgroup.oom_kills(), 0) << "OOM kills in the server's cgroup";
  }
  // Still serving, then a clean shutdown (an OOM kill would have ended it with a signal).
  EXPECT_EQ(complete(s).status, 200) << s.log();
  EXPECT_EQ(s.stop(), 0) << s.log();
}

}  // namespace
}  // namespace a3s::power::testing
