// Tiled, threaded matrix multiply Y = X_act · Wᵀ over quantized weights.
//
// The rows of W are split into contiguous chunks, one task each (several tasks per thread for load
// balance). Inside a chunk, tokens are processed in tiles of kTokenTile and rows in blocks of
// kRowBlock: the block's weight rows stay in L1/L2 while they meet every token of the tile, and the
// activation tile stays in L2 across the chunk's row blocks. The ISA's tile kernel (or a loop over
// vec_dot when it has none) computes each block × tile.
#include <algorithm>
#include <string>

#include "a3s/power/error.h"
#include "kernels/kernel_table.h"
#include "kernels/kernels.h"

namespace a3s::power::kernels {
namespace {

constexpr int kRowBlock = 16;   // weight rows per tile call
constexpr int kTokenTile = 32;  // tokens per tile call
constexpr int kDecodeTokens = 4;  // at most this many tokens: a matrix-vector product (decode)

struct MatmulCtx {
  VecDotFn dot;
  TileFn tile;
  const uint8_t* W;
  const uint8_t* X;
  float* Y;
  int64_t n_rows, n_cols, n_tokens;
  size_t w_stride, x_stride;
  int64_t y_stride;  // floats between output rows (tokens)
  int64_t rows_per_task;
};

void loop_tile(const MatmulCtx& c, int64_t r0, int nr, int64_t t0, int nt) {
  for (int r = 0; r < nr; ++r) {
    const uint8_t* w = c.W + static_cast<size_t>(r0 + r) * c.w_stride;
    for (int t = 0; t < nt; ++t) {
      c.dot(c.n_cols, c.Y + (t0 + t) * c.y_stride + r0 + r, w,
            c.X + static_cast<size_t>(t0 + t) * c.x_stride);
    }
  }
}

void run_chunk(const MatmulCtx& c, int64_t row_begin, int64_t row_end) {
  for (int64_t t0 = 0; t0 < c.n_tokens; t0 += kTokenTile) {
    const int nt = static_cast<int>(std::min<int64_t>(kTokenTile, c.n_tokens - t0));
    for (int64_t r0 = row_begin; r0 < row_end; r0 += kRowBlock) {
      const int nr = static_cast<int>(std::min<int64_t>(kRowBlock, row_end - r0));
      if (c.tile != nullptr) {
        c.tile(c.n_cols, c.W + static_cast<size_t>(r0) * c.w_stride, c.w_stride, nr,
               c.X + static_cast<size_t>(t0) * c.x_stride, c.x_stride, nt, c.Y + t0 * c.y_stride + r0,
               static_cast<size_t>(c.y_stride));
      } else {
        loop_tile(c, r0, nr, t0, nt);
      }
    }
  }
}

}  // namespace

void matmul(TensorType w, const void* W, int64_t n_rows, int64_t n_cols, const void* X_act, int64_t n_tokens,
            float* Y, ThreadPool& pool) {
  matmul(w, W, n_rows, n_cols, X_act, n_tokens, Y, n_rows, pool);
}

void matmul(TensorType w, const void* W, int64_t n_rows, int64_t n_cols, const void* X_act, int64_t n_tokens,
            float* Y, int64_t y_stride, ThreadPool& pool) {
  const TensorType act = vec_dot_type(w);  // throws for types without dot products
  const auto w_stride = row_size(w, n_cols);
  const auto x_stride = row_size(act, n_cols);
  if (!w_stride || !x_stride || n_rows < 0 || n_tokens < 0 || y_stride < n_rows) {
    throw Error(codes::kInvalidArgument, "matmul: invalid shape [" + std::to_string(n_rows) + ", " +
                                             std::to_string(n_cols) + "] x [" + std::to_string(n_tokens) +
                                             ", " + std::to_string(n_cols) + "] (output stride " +
                                             std::to_string(y_stride) + ") for type " + type_name(w));
  }
  if (n_rows == 0 || n_tokens == 0) return;
  const KernelTable& table = active_table();
  // Two or more tokens take the batch order where a type has one (BF16: bf16_pairs.h); its rows are
  // then computed one dot product at a time.
  const VecDotFn batch = n_tokens >= 2 ? table.vec_dot_batch[slot(w)] : nullptr;
  MatmulCtx c{batch != nullptr ? batch : table.vec_dot[slot(w)],
              batch != nullptr ? nullptr : table.tile[slot(w)],
              static_cast<const uint8_t*>(W),
              static_cast<const uint8_t*>(X_act),
              Y,
              n_rows,
              n_cols,
              n_tokens,
              *w_stride,
              *x_stride,
              y_stride,
              0};
  if (n_cols == 0) {
    for (int64_t t = 0; t < n_tokens; ++t) std::fill(Y + t * y_stride, Y + t * y_stride + n_rows, 0.0f);
    return;
  }
  // Enough tasks to balance the threads, each a whole number of row blocks (at least one). A thread
  // that finishes early waits for the others' last task, so decode, which streams the weights once,
  // takes small tasks; prefill takes larger ones, whose row blocks share the activation tile in L2.
  const int64_t n_blocks = (n_rows + kRowBlock - 1) / kRowBlock;
  const int per_thread = n_tokens <= kDecodeTokens ? 16 : 4;
  const int64_t want_tasks = pool.size() <= 1 ? 1 : std::min<int64_t>(n_blocks, per_thread * pool.size());
  const int64_t blocks_per_task = (n_blocks + want_tasks - 1) / want_tasks;
  c.rows_per_task = blocks_per_task * kRowBlock;
  const int n_tasks = static_cast<int>((n_rows + c.rows_per_task - 1) / c.rows_per_task);
  pool.run(n_tasks, [&c](int task, int) {
    const int64_t r0 = task * c.rows_per_task;
    run_chunk(c, r0, std::min(c.n_rows, r0 + c.rows_per_task));
  });
}

}  // namespace a3s::power::kernels
