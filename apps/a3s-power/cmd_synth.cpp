// `a3s-power synth`: write a GGUF model with seeded random weights of a preset or custom shape and
// any supported file type (benchmarks, memory tests). Progress goes to stderr, one summary line to
// stdout.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "synth/synthesize.h"

namespace a3s::power::cli {
namespace {

struct SynthCliOptions {
  std::string preset;
  std::string type = "Q4_K_M";
  std::string out;
  uint64_t seed = 42;
  std::optional<std::string> vocab_from;
  std::optional<std::string> arch;
  std::optional<int> n_embd, n_layer, n_head, n_head_kv, head_dim, n_rot, n_ff, n_vocab, n_ctx;
  std::optional<int> n_expert, n_expert_used, n_ff_exp;
  std::string name;
  int threads = 0;
  bool force = false;
};

void run_synth(const SynthCliOptions& o) {
  if (o.threads < 0) throw Error(codes::kInvalidArgument, "--threads must not be negative");
  synth::SynthOptions so;
  if (!o.preset.empty()) {
    so.shape = synth::find_shape_preset(o.preset);
  } else if (!(o.n_embd && o.n_layer && o.n_head && o.n_ff)) {
    throw Error(codes::kInvalidArgument, "give --preset, or --n-embd, --n-layer, --n-head and --n-ff");
  } else {
    so.shape.n_vocab = 32000;
  }
  synth::ModelShape& s = so.shape;
  if (o.arch) s.arch = *o.arch;
  if (o.n_embd) s.n_embd = *o.n_embd;
  if (o.n_layer) s.n_layer = *o.n_layer;
  if (o.n_head) s.n_head = *o.n_head;
  s.n_head_kv = o.n_head_kv ? *o.n_head_kv : (o.n_head && o.preset.empty() ? s.n_head : s.n_head_kv);
  if (o.head_dim) s.head_dim = *o.head_dim;
  if (o.n_rot) s.n_rot = *o.n_rot;
  if (o.n_ff) s.n_ff = *o.n_ff;
  if (o.n_expert) s.n_expert = *o.n_expert;
  if (o.n_expert && *o.n_expert == 0) s.n_expert_used = s.n_ff_exp = 0;  // --n-expert 0: a dense preset
  if (o.n_expert_used) s.n_expert_used = *o.n_expert_used;
  if (o.n_ff_exp) s.n_ff_exp = *o.n_ff_exp;
  if (o.n_vocab) s.n_vocab = *o.n_vocab;
  if (o.n_ctx) s.n_ctx_train = *o.n_ctx;
  if (o.n_vocab && o.vocab_from)
    throw Error(codes::kInvalidArgument, "--n-vocab and --vocab-from exclude each other");
  so.type = synth::parse_file_type(o.type);
  so.seed = o.seed;
  so.vocab_from = o.vocab_from;
  so.name = o.name.empty() ? (o.preset.empty() ? std::string("synthetic") : o.preset) + "-" +
                                 synth::file_type_name(so.type)
                           : o.name;
  so.n_threads = o.threads;

  std::error_code ec;
  if (!o.force && std::filesystem::exists(std::filesystem::symlink_status(o.out, ec)))
    throw Error(codes::kInvalidArgument, "--out exists (use --force to replace it)");

  int last_pct = -1;
  const synth::SynthResult r = synth::synthesize(so, o.out, [&](uint64_t done, uint64_t total) {
    const int pct = total ? static_cast<int>(done * 100 / total) : 100;
    if (pct != last_pct) std::fprintf(stderr, "\rsynth: %3d%%", pct);
    last_pct = pct;
  });
  std::fprintf(stderr, "\n");
  std::printf("wrote %s: %s, %.2f B params, %s, vocab %d, %.2f MiB\n", o.out.c_str(), s.arch.c_str(),
              static_cast<double>(r.n_params) / 1e9, synth::file_type_name(so.type).c_str(), r.n_vocab,
              static_cast<double>(r.file_bytes) / (1024.0 * 1024.0));
}

}  // namespace

void add_synth_command(CLI::App& root) {
  auto o = std::make_shared<SynthCliOptions>();
  CLI::App* sub = root.add_subcommand("synth", "Write a GGUF model with seeded random weights (benchmarks)");
  sub->add_option("--preset", o->preset,
                  "Shape preset: llama-1b, llama-7b, llama-10b, qwen2-0.5b, qwen3-0.6b, qwen3-tiny, phi4-mini, "
                  "phi3-tiny, gemma3-1b, gemma3-tiny, qwen3moe-30b-a3b, qwen3moe-tiny, mixtral-8x7b, mixtral-tiny");
  sub->add_option("--type", o->type, "File type: F32 F16 BF16 Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K_S Q3_K_M "
                                     "Q4_K_S Q4_K_M Q5_K_S Q5_K_M Q6_K IQ4_NL IQ4_XS")
      ->capture_default_str();
  sub->add_option("--out,-o", o->out, "Output GGUF file")->required();
  sub->add_option("--seed", o->seed, "Seed of the random weights")->capture_default_str();
  sub->add_option("--vocab-from", o->vocab_from, "Copy the tokenizer (and vocabulary size) of this GGUF");
  sub->add_option("--name", o->name, "general.name (default: <preset>-<type>)");
  sub->add_option("--arch", o->arch, "Architecture: llama, qwen2, qwen3, qwen3moe, phi3 or gemma3");
  sub->add_option("--n-embd", o->n_embd, "Embedding width");
  sub->add_option("--n-layer", o->n_layer, "Transformer blocks");
  sub->add_option("--n-head", o->n_head, "Attention heads");
  sub->add_option("--n-head-kv", o->n_head_kv, "Key/value heads (default: --n-head, or the preset's)");
  sub->add_option("--head-dim", o->head_dim, "Size of one head (default: n_embd / n_head, or the preset's)");
  sub->add_option("--n-rot", o->n_rot, "Rotated dimensions per head (default: the whole head, or the preset's)");
  sub->add_option("--n-ff", o->n_ff, "Feed-forward width");
  sub->add_option("--n-expert", o->n_expert,
                  "Experts per block (mixture of experts, arch llama or qwen3moe; 0: dense; default: the preset's)");
  sub->add_option("--n-expert-used", o->n_expert_used, "Experts used per token (default: the preset's)");
  sub->add_option("--n-ff-exp", o->n_ff_exp,
                  "Width of one expert (qwen3moe; default: the preset's, or n_ff / n_expert_used)");
  sub->add_option("--n-vocab", o->n_vocab, "Vocabulary size of the generated tokenizer (default 32000)");
  sub->add_option("--ctx", o->n_ctx, "Trained context length written to the metadata");
  sub->add_option("--threads,-t", o->threads, "Worker threads (0: physical cores)")->capture_default_str();
  sub->add_flag("--force", o->force, "Replace --out if it exists");
  sub->callback([o] { run_synth(*o); });
}

}  // namespace a3s::power::cli
