// matmul, vec_dot and activation quantization allocate nothing per call (decode steps must not touch
// the heap). Counts every global operator new while a flag is set, across all threads.
#include <atomic>
#include <cstdlib>
#include <new>

#include "kernel_test_util.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<int> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// The replacement pair is malloc/free; GCC cannot see that operator new above is the one in use.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace a3s::power::kernels::test {
namespace {

TEST(Allocation, HotPathsDoNotAllocate) {
  for (Isa isa : supported_isas()) {
    IsaGuard guard(isa);
    for (TensorType type : {TensorType::Q4_0, TensorType::Q4_K, TensorType::Q6_K, TensorType::F16}) {
      const TensorType act = vec_dot_type(type);
      const int64_t rows = 64, cols = 512, tokens = 9;
      std::mt19937 rng(1);
      const size_t wb = row_bytes(type, cols), xb = row_bytes(act, cols);
      Buffer W(wb * rows), X(xb * tokens);
      for (int64_t r = 0; r < rows; ++r) fill_random_row(rng, type, W.data() + r * wb, cols);
      const auto xf = random_floats(rng, tokens * cols);
      std::vector<float> Y(static_cast<size_t>(rows * tokens));
      ThreadPool pool(2);
      quantize_rows(act, xf.data(), X.data(), tokens, cols, &pool);  // warm-up (dispatch tables)
      matmul(type, W.data(), rows, cols, X.data(), tokens, Y.data(), pool);

      g_allocations = 0;
      g_counting = true;
      quantize_rows(act, xf.data(), X.data(), tokens, cols, &pool);
      matmul(type, W.data(), rows, cols, X.data(), tokens, Y.data(), pool);
      matmul(type, W.data(), rows, cols, X.data(), 1, Y.data(), pool);
      float out;
      vec_dot(type, cols, &out, W.data(), X.data());
      g_counting = false;
      EXPECT_EQ(g_allocations.load(), 0) << type_name(type) << " " << isa_name(isa);
    }
  }
}

}  // namespace
}  // namespace a3s::power::kernels::test
