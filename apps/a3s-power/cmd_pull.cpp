// `a3s-power pull REF [--name N] [--sha256 HEX] [--max-bytes N] [--offline] [--force]`: pulls a model
// into the store ($A3S_POWER_HOME). Progress goes to stderr (a bar on a terminal, plain lines
// otherwise); the result line goes to stdout.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "a3s-power/not_built_command.h"
#include "http_client/http_client_built.h"
#include "store/store.h"

namespace a3s::power::cli {
namespace {

struct PullArgs {
  std::string ref;
  std::optional<std::string> name;
  std::optional<std::string> sha256;
  std::optional<uint64_t> max_bytes;
  bool offline = false;
  bool force = false;
};

// Renders store progress: a redrawn bar on a terminal, otherwise a line per ~5% (at least 1 MiB).
class ProgressPrinter {
 public:
  ProgressPrinter() : tty_(::isatty(STDERR_FILENO) == 1) {}
  ~ProgressPrinter() {
    if (tty_ && bar_open_) std::fputc('\n', stderr);
  }

  void operator()(const store::Progress& p) {
    const bool transfer = p.stage == "downloading" || p.stage == "copying";
    if (p.stage != stage_) {
      if (tty_ && bar_open_) {
        std::fputc('\n', stderr);
        bar_open_ = false;
      }
      stage_ = p.stage;
      last_line_ = 0;
      if (!transfer && p.stage != "done") std::fprintf(stderr, "%s\n", p.stage.c_str());
      if (!transfer) return;
    }
    if (!transfer) return;
    if (tty_) {
      draw_bar(p);
      return;
    }
    const uint64_t step = std::max<uint64_t>(1u << 20, p.total / 20);
    if (p.done == 0 && last_line_ == 0 && p.total == 0) return;
    if (p.done >= last_line_ + step || (p.total != 0 && p.done == p.total)) {
      last_line_ = p.done;
      if (p.total)
        std::fprintf(stderr, "%s %llu/%llu bytes\n", p.stage.c_str(), static_cast<unsigned long long>(p.done),
                     static_cast<unsigned long long>(p.total));
      else
        std::fprintf(stderr, "%s %llu bytes\n", p.stage.c_str(), static_cast<unsigned long long>(p.done));
    }
  }

 private:
  void draw_bar(const store::Progress& p) {
    constexpr int kWidth = 30;
    const double mib = static_cast<double>(p.done) / (1024.0 * 1024.0);
    if (p.total == 0) {
      std::fprintf(stderr, "\r%s %.1f MiB", p.stage.c_str(), mib);
    } else {
      const double frac = static_cast<double>(p.done) / static_cast<double>(p.total);
      const int fill = static_cast<int>(frac * kWidth);
      std::string bar(static_cast<size_t>(fill), '=');
      bar.resize(kWidth, ' ');
      std::fprintf(stderr, "\r%s [%s] %3d%% %.1f/%.1f MiB", p.stage.c_str(), bar.c_str(),
                   static_cast<int>(frac * 100.0), mib, static_cast<double>(p.total) / (1024.0 * 1024.0));
    }
    std::fflush(stderr);
    bar_open_ = true;
  }

  bool tty_;
  bool bar_open_ = false;
  std::string stage_;
  uint64_t last_line_ = 0;
};

void run_pull(const PullArgs& a) {
  store::PullOptions o;
  o.name = a.name;
  o.sha256 = a.sha256;
  o.max_bytes = a.max_bytes;
  o.offline = a.offline;
  o.force = a.force;
  store::Store s(store::default_home());
  store::Manifest m;
  {
    ProgressPrinter printer;
    m = s.pull(a.ref, o, [&printer](const store::Progress& p) { printer(p); });
  }
  std::printf("pulled %s %s (%llu bytes)\n", m.name.c_str(), m.digest.c_str(),
              static_cast<unsigned long long>(m.size));
}

}  // namespace

void add_pull_command(CLI::App& root) {
  constexpr const char* kDescription =
      "Pull a model into the store (path, https:// URL, hf://org/repo/file.gguf; optional @sha256:<hex>)";
  if (!client::http_client_built()) {
    add_not_built_command(root, "pull", kDescription, "built without libcurl");
    return;
  }
  auto a = std::make_shared<PullArgs>();
  CLI::App* sub = root.add_subcommand("pull", kDescription);
  sub->add_option("ref", a->ref, "Model reference")->required();
  sub->add_option("--name", a->name, "Name in the store (default: file name without .gguf)");
  sub->add_option("--sha256", a->sha256, "Expected SHA-256 of the file (hex)");
  sub->add_option("--max-bytes", a->max_bytes, "Refuse models larger than this many bytes");
  sub->add_flag("--offline", a->offline, "Never download; succeed only if the model is already stored");
  sub->add_flag("--force", a->force, "Download again even if the same source is already stored");
  sub->callback([a] { run_pull(*a); });
}

}  // namespace a3s::power::cli
