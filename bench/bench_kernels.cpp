// Micro-benchmarks of the kernels per weight type and instruction set:
//   vec_dot/<isa>/<type>                one 4096-element row (decode inner loop)
//   matvec/<isa>/<type>/threads:<t>     [4096 × 4096] weights × 1 token (decode)
//   matmul/<isa>/<type>/threads:<t>     [1024 × 4096] weights × 64 tokens (prefill)
//   memory/<isa>/<type>/threads:<t>     matvec with the weights read from DRAM (512 MiB of copies)
//   memory_packed/<isa>/<type>/...      the same from the form packed at load (kernels.h,
//                                       pack_weight), for the types the ISA packs
//   panel_read_ahead/<type>/<L1|L2>/... memory_packed through the AVX-512 panel kernels in one
//                                       read-ahead form (kernel_table.h, panel_read_ahead), for the
//                                       types packed at load; compare the two forms on one CPU with
//                                       --benchmark_repetitions=20
//                                       --benchmark_enable_random_interleaving=true
//   batch4/<isa>/<type>/threads:<t>     [4096 × 4096] weights × 4 tokens (a decode step of four
//                                       sequences: the tile kernels at four tokens)
//   quantize/<isa>/<act type>           one 4096-element activation row
// Counters: bytes_per_second of weights streamed; "GMAC/s" multiply-accumulates per second.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/kernels.h"

namespace k = a3s::power::kernels;
using a3s::power::TensorType;

namespace {

const TensorType kTypes[] = {TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q8_0,
                             TensorType::Q4_0, TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1,
                             TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K,
                             TensorType::Q6_K};

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Weights and activations quantized from random floats.
struct Operands {
  TensorType w, act;
  int64_t rows, cols, tokens;
  std::vector<uint8_t> W, X;
  Operands(TensorType type, int64_t r, int64_t c, int64_t t)
      : w(type), act(k::vec_dot_type(type)), rows(r), cols(c), tokens(t) {
    const size_t wb = *a3s::power::row_size(w, cols), xb = *a3s::power::row_size(act, cols);
    W.resize(wb * static_cast<size_t>(rows));
    X.resize(xb * static_cast<size_t>(tokens));
    const auto wf = random_floats(static_cast<size_t>(rows * cols), 1);
    const auto xf = random_floats(static_cast<size_t>(tokens * cols), 2);
    k::quantize_rows(w, wf.data(), W.data(), rows, cols, nullptr);
    k::quantize_rows(act, xf.data(), X.data(), tokens, cols, nullptr);
  }
};

void set_isa(k::Isa isa, benchmark::State& state) {
  if (!k::isa_supported(isa)) {
    state.SkipWithError("instruction set not supported on this CPU");
    return;
  }
  k::force_isa(isa);
}

void BM_vec_dot(benchmark::State& state, k::Isa isa, TensorType type) {
  set_isa(isa, state);
  const Operands op(type, 1, 4096, 1);
  float out = 0;
  for (auto _ : state) {
    k::vec_dot(type, op.cols, &out, op.W.data(), op.X.data());
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(op.W.size()));
  state.counters["GMAC/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * op.cols / 1e9,
                                                benchmark::Counter::kIsRate);
}

void BM_matmul(benchmark::State& state, k::Isa isa, TensorType type, int64_t rows, int64_t tokens) {
  set_isa(isa, state);
  const int threads = static_cast<int>(state.range(0));
  a3s::power::ThreadPool pool(threads);
  const Operands op(type, rows, 4096, tokens);
  std::vector<float> Y(static_cast<size_t>(rows * tokens));
  for (auto _ : state) {
    k::matmul(type, op.W.data(), rows, op.cols, op.X.data(), tokens, Y.data(), pool);
    benchmark::DoNotOptimize(Y.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(op.W.size()));
  state.counters["GMAC/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(rows * tokens * op.cols) / 1e9,
      benchmark::Counter::kIsRate);
}

// Decode from memory: the [4096 × 4096] matrix (its rows, or its packed form when `packed`) copied
// until the copies fill 512 MiB, more than any last-level cache, and multiplied one copy after the
// other, so every byte comes from DRAM as in a model's decode.
// Copies of a `bytes`-byte operand that together fill more than 512 MiB, more than any last-level
// cache: `first` writes copy 0, the others repeat it. next() gives the copies in turn.
class MemoryCopies {
 public:
  template <class Fill>
  MemoryCopies(size_t bytes, Fill first)
      : bytes_(bytes), n_((size_t{512} << 20) / bytes + 1), data_(std::make_unique_for_overwrite<uint8_t[]>(bytes * n_)) {
    first(data_.get());
    for (size_t c = 1; c < n_; ++c) std::memcpy(data_.get() + c * bytes_, data_.get(), bytes_);
  }
  const uint8_t* next() {
    const uint8_t* p = data_.get() + c_ * bytes_;
    c_ = (c_ + 1) % n_;
    return p;
  }

 private:
  size_t bytes_, n_, c_ = 0;
  std::unique_ptr<uint8_t[]> data_;
};

void BM_matvec_memory(benchmark::State& state, k::Isa isa, TensorType type, bool packed) {
  set_isa(isa, state);
  const int threads = static_cast<int>(state.range(0));
  a3s::power::ThreadPool pool(threads);
  const Operands op(type, 4096, 4096, 1);
  const size_t bytes = packed ? k::packed_weight_bytes(type, op.rows, op.cols) : op.W.size();
  if (bytes == 0) {
    state.SkipWithError("this instruction set does not pack the type");
    return;
  }
  MemoryCopies M(bytes, [&](uint8_t* first) {
    if (packed) {
      k::pack_weight(type, op.W.data(), op.rows, op.cols, first, pool);
    } else {
      std::memcpy(first, op.W.data(), bytes);
    }
  });
  std::vector<float> Y(static_cast<size_t>(op.rows));
  for (auto _ : state) {
    const uint8_t* w = M.next();
    if (packed) {
      k::matmul_packed(isa, type, w, op.rows, op.cols, op.X.data(), 1, Y.data(), pool);
    } else {
      k::matmul(type, w, op.rows, op.cols, op.X.data(), 1, Y.data(), pool);
    }
    benchmark::DoNotOptimize(Y.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}

// BM_matvec_memory's packed case through the AVX-512 panel kernels in the read-ahead form `into`,
// whichever form this CPU installs: the copies packed by the form's kernels, one token, the 256
// panels of a copy in 32 tasks over the threads (matmul's split for decode).
void BM_panel_read_ahead(benchmark::State& state, TensorType type, k::PrefetchInto into) {
  k::KernelTable table;
  if (!k::install_avx512_panel_for_testing(table, into)) {
    state.SkipWithError("the AVX-512 path is not built or this CPU lacks AVX-512 F/BW/VL/VNNI");
    return;
  }
  const k::PanelKernels& pk = table.panel[static_cast<size_t>(type)];
  const int threads = static_cast<int>(state.range(0));
  a3s::power::ThreadPool pool(threads);
  const Operands op(type, 4096, 4096, 1);
  const size_t wb = op.W.size() / static_cast<size_t>(op.rows), xb = op.X.size();
  const size_t one = pk.panel_bytes(op.cols);
  const int64_t n_panels = op.rows / k::kPanelRows;
  const size_t bytes = one * static_cast<size_t>(n_panels);
  MemoryCopies M(bytes, [&](uint8_t* first) {
    for (int64_t p = 0; p < n_panels; ++p)
      pk.pack(op.cols, op.W.data() + static_cast<size_t>(p * k::kPanelRows) * wb, wb, k::kPanelRows,
              first + static_cast<size_t>(p) * one);
  });
  std::vector<uint8_t> aux(pk.aux_bytes != nullptr ? pk.aux_bytes(op.cols) : 0);
  if (!aux.empty()) pk.prepare(op.cols, op.X.data(), xb, 1, aux.data());
  std::vector<float> Y(static_cast<size_t>(op.rows));
  constexpr int kTasks = 32;
  const int64_t per_task = n_panels / kTasks;
  for (auto _ : state) {
    const uint8_t* w = M.next();
    pool.run(kTasks, [&](int task, int) {
      for (int64_t p = task * per_task; p < (task + 1) * per_task; ++p)
        pk.run(op.cols, w + static_cast<size_t>(p) * one, k::kPanelRows, op.X.data(), xb, aux.empty() ? nullptr : aux.data(), 1,
               Y.data() + p * k::kPanelRows, static_cast<size_t>(op.rows));
    });
    benchmark::DoNotOptimize(Y.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}

void BM_quantize(benchmark::State& state, k::Isa isa, TensorType act) {
  set_isa(isa, state);
  const auto x = random_floats(4096, 3);
  std::vector<uint8_t> out(*a3s::power::row_size(act, 4096));
  for (auto _ : state) {
    k::quantize_row(act, x.data(), out.data(), 4096);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * 4096 * 4);
}

void register_all() {
  for (TensorType t : {TensorType::Q4_0, TensorType::Q8_0, TensorType::Q4_K, TensorType::Q6_K}) {
    for (k::PrefetchInto into : {k::PrefetchInto::kL1, k::PrefetchInto::kL2}) {
      const std::string name = std::string("panel_read_ahead/") + a3s::power::type_name(t) +
                               (into == k::PrefetchInto::kL1 ? "/L1" : "/L2");
      benchmark::RegisterBenchmark(name.c_str(), BM_panel_read_ahead, t, into)
          ->ArgName("threads")
          ->Arg(1)
          ->Arg(2)
          ->UseRealTime();
    }
  }
  // Every instruction set; one the CPU lacks reports "instruction set not supported on this CPU".
  for (k::Isa isa : {k::Isa::Scalar, k::Isa::Avx2, k::Isa::AvxVnni, k::Isa::Avx512}) {
    const std::string isa_s = k::isa_name(isa);
    for (TensorType t : kTypes) {
      const std::string ts = a3s::power::type_name(t);
      benchmark::RegisterBenchmark(("vec_dot/" + isa_s + "/" + ts).c_str(), BM_vec_dot, isa, t);
      benchmark::RegisterBenchmark(("matvec/" + isa_s + "/" + ts).c_str(), BM_matmul, isa, t, 4096, 1)
          ->ArgName("threads")
          ->Arg(1)
          ->Arg(2)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("matmul/" + isa_s + "/" + ts).c_str(), BM_matmul, isa, t, 1024, 64)
          ->ArgName("threads")
          ->Arg(1)
          ->Arg(2)
          ->UseRealTime();
      for (bool packed : {false, true}) {
        benchmark::RegisterBenchmark(((packed ? "memory_packed/" : "memory/") + isa_s + "/" + ts).c_str(),
                                     BM_matvec_memory, isa, t, packed)
            ->ArgName("threads")
            ->Arg(1)
            ->Arg(2)
            ->UseRealTime();
      }
      benchmark::RegisterBenchmark(("batch4/" + isa_s + "/" + ts).c_str(), BM_matmul, isa, t, 4096, 4)
          ->ArgName("threads")
          ->Arg(1)
          ->Arg(2)
          ->UseRealTime();
    }
    for (TensorType act :
         {TensorType::F16, TensorType::BF16, TensorType::Q8_0, TensorType::Q8_1, TensorType::Q8_K}) {
      benchmark::RegisterBenchmark(("quantize/" + isa_s + "/" + a3s::power::type_name(act)).c_str(),
                                   BM_quantize, isa, act);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
