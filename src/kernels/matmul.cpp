// Tiled, threaded matrix multiply Y = X_act · Wᵀ over quantized weights.
//
// The rows of W are split into contiguous chunks, one task each (several tasks per thread for load
// balance). Inside a chunk, tokens are processed in tiles of kTokenTile and rows in blocks of
// kRowBlock: the block's weight rows stay in L1/L2 while they meet every token of the tile, and the
// activation tile stays in L2 across the chunk's row blocks. The ISA's tile kernel (or a loop over
// vec_dot when it has none) computes each block × tile.
//
// Prefill of a type with panel kernels (kernel_table.h) takes the panel path instead: each task packs
// its rows, a group of panels at a time (at most kPanelGroupBytes, so the group stays in L2), into
// this thread's scratch, then meets every token tile with the group. A row is packed once per call
// and read once per token tile; the activation side data is computed once per call by the caller.
#include <algorithm>
#include <string>

#include "a3s/power/error.h"
#include "kernels/kernel_table.h"
#include "kernels/kernels.h"
#include "kernels/panel_scratch.h"

namespace a3s::power::kernels {
namespace {

constexpr int kRowBlock = 16;   // weight rows per tile call
constexpr int kTokenTile = 32;  // tokens per tile call
constexpr int kDecodeTokens = 4;  // at most this many tokens: a matrix-vector product (decode)
constexpr int64_t kPanelMinTokens = 16;  // from this many tokens on, the panel path (packing pays off)
constexpr size_t kPanelGroupBytes = size_t{1} << 20;  // packed panels per group, at most (≥ one panel)

struct MatmulCtx {
  VecDotFn dot;
  TileFn tile;
  const PanelKernels* panel;  // null: tile / vec_dot
  const uint8_t* aux;         // the panel kernels' activation side data (or null)
  size_t aux_stride;
  const uint8_t* packed;      // the rows packed at load as panels (matmul_packed), or null
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

// The panel path over rows [row_begin, row_end) (row_begin a multiple of kPanelRows).
void run_panels(const MatmulCtx& c, int64_t row_begin, int64_t row_end) {
  const PanelKernels& k = *c.panel;
  const size_t one = k.panel_bytes(c.n_cols);
  const int64_t n_panels = (row_end - row_begin + kPanelRows - 1) / kPanelRows;
  const int64_t per_group = std::max<int64_t>(1, std::min<int64_t>(n_panels, kPanelGroupBytes / one));
  uint8_t* scratch = c.packed != nullptr ? nullptr : thread_panel_scratch().get(static_cast<size_t>(per_group) * one);
  for (int64_t p0 = 0; p0 < n_panels; p0 += per_group) {
    const int64_t np = std::min(per_group, n_panels - p0);
    const uint8_t* group = scratch;
    if (c.packed != nullptr) {
      group = c.packed + static_cast<size_t>(row_begin / kPanelRows + p0) * one;
    } else {
      for (int64_t p = 0; p < np; ++p) {
        const int64_t r0 = row_begin + (p0 + p) * kPanelRows;
        k.pack(c.n_cols, c.W + static_cast<size_t>(r0) * c.w_stride, c.w_stride,
               static_cast<int>(std::min<int64_t>(kPanelRows, row_end - r0)), scratch + static_cast<size_t>(p) * one);
      }
    }
    for (int64_t t0 = 0; t0 < c.n_tokens; t0 += kTokenTile) {
      const int nt = static_cast<int>(std::min<int64_t>(kTokenTile, c.n_tokens - t0));
      for (int64_t p = 0; p < np; ++p) {
        const int64_t r0 = row_begin + (p0 + p) * kPanelRows;
        k.run(c.n_cols, group + static_cast<size_t>(p) * one, static_cast<int>(std::min<int64_t>(kPanelRows, row_end - r0)),
              c.X + static_cast<size_t>(t0) * c.x_stride, c.x_stride,
              c.aux != nullptr ? c.aux + static_cast<size_t>(t0) * c.aux_stride : nullptr, nt,
              c.Y + t0 * c.y_stride + r0, static_cast<size_t>(c.y_stride));
      }
    }
  }
}

void run_matmul(const KernelTable& table, TensorType w, const uint8_t* W, const uint8_t* packed,
                const PanelKernels* panel, int64_t n_rows, int64_t n_cols, const void* X_act, int64_t n_tokens,
                float* Y, int64_t y_stride, size_t w_stride, size_t x_stride, ThreadPool& pool);

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
  const PanelKernels* panel = n_tokens >= kPanelMinTokens && table.panel[slot(w)].run != nullptr &&
                                      *w_stride <= kMaxPanelRowStride
                                  ? &table.panel[slot(w)]
                                  : nullptr;
  run_matmul(table, w, static_cast<const uint8_t*>(W), nullptr, panel, n_rows, n_cols, X_act, n_tokens, Y, y_stride,
             *w_stride, *x_stride, pool);
}

namespace {

// The body of matmul and matmul_packed (shapes checked): `panel` null takes the tile / vec_dot path;
// `packed` non-null (with `panel`) reads the panels from there instead of packing W.
void run_matmul(const KernelTable& table, TensorType w, const uint8_t* W, const uint8_t* packed,
                const PanelKernels* panel, int64_t n_rows, int64_t n_cols, const void* X_act, int64_t n_tokens,
                float* Y, int64_t y_stride, size_t w_stride, size_t x_stride, ThreadPool& pool) {
  // Two or more tokens take the batch order where a type has one (BF16: bf16_pairs.h); its rows are
  // then computed one dot product at a time.
  const VecDotFn batch = n_tokens >= 2 ? table.vec_dot_batch[slot(w)] : nullptr;
  MatmulCtx c{batch != nullptr ? batch : table.vec_dot[slot(w)],
              batch != nullptr ? nullptr : table.tile[slot(w)],
              panel,
              nullptr,
              0,
              packed,
              W,
              static_cast<const uint8_t*>(X_act),
              Y,
              n_rows,
              n_cols,
              n_tokens,
              w_stride,
              x_stride,
              y_stride,
              0};
  if (n_cols == 0) {
    for (int64_t t = 0; t < n_tokens; ++t) std::fill(Y + t * y_stride, Y + t * y_stride + n_rows, 0.0f);
    return;
  }
  // Enough tasks to balance the threads, each a whole number of row blocks (at least one). A thread
  // that finishes early waits for the others' last task, so decode, which streams the weights once,
  // takes small tasks; prefill takes larger ones, whose row blocks share the activation tile in L2.
  static_assert(kRowBlock % kPanelRows == 0 || kPanelRows % kRowBlock == 0);
  constexpr int64_t kTaskRows = std::max(kRowBlock, kPanelRows);  // a task is whole panels and row blocks
  PanelScratch* aux = nullptr;
  size_t aux_used = 0;
  if (panel != nullptr && panel->aux_bytes != nullptr && panel->aux_bytes(n_cols) != 0) {
    c.aux_stride = panel->aux_bytes(n_cols);
    aux_used = c.aux_stride * static_cast<size_t>(n_tokens);
    aux = &thread_aux_scratch();
    uint8_t* a = aux->get(aux_used);
    panel->prepare(n_cols, X_act, x_stride, n_tokens, a);
    c.aux = a;
  }
  const int64_t n_blocks = (n_rows + kTaskRows - 1) / kTaskRows;
  const int per_thread = n_tokens <= kDecodeTokens ? 16 : 4;
  const int threads = pool.active_threads();
  const int64_t want_tasks = threads <= 1 ? 1 : std::min<int64_t>(n_blocks, per_thread * threads);
  const int64_t blocks_per_task = (n_blocks + want_tasks - 1) / want_tasks;
  c.rows_per_task = blocks_per_task * kTaskRows;
  const int n_tasks = static_cast<int>((n_rows + c.rows_per_task - 1) / c.rows_per_task);
  struct AuxWipe {  // the side data derives from the request: zeroed however the call ends
    PanelScratch* s;
    size_t n;
    ~AuxWipe() {
      if (s != nullptr) s->wipe(n);
    }
  } aux_wipe{aux, aux_used};
  pool.run(n_tasks, [&c](int task, int) {
    const int64_t r0 = task * c.rows_per_task;
    const int64_t r1 = std::min(c.n_rows, r0 + c.rows_per_task);
    if (c.panel != nullptr) {
      run_panels(c, r0, r1);
    } else {
      run_chunk(c, r0, r1);
    }
  });
}

}  // namespace

static_assert(kPackedPanelRows == kPanelRows);

namespace {
// The panel kernels a type is packed with at load on the active ISA, or null.
// The active ISA's load-time panels for type w with rows of n_cols, or null.
const PanelKernels* prepacked_panel(TensorType w, int64_t n_cols) {
  const PanelKernels& p = active_table().panel[slot(w)];
  const auto w_stride = row_size(w, n_cols);
  return p.prepack && p.run != nullptr && w_stride && *w_stride <= kMaxPanelRowStride ? &p : nullptr;
}
}  // namespace

size_t packed_weight_bytes(TensorType w, int64_t n_rows, int64_t n_cols) {
  const PanelKernels* p = prepacked_panel(w, n_cols);
  if (p == nullptr || n_rows <= 0 || n_cols <= 0) return 0;
  return static_cast<size_t>((n_rows + kPanelRows - 1) / kPanelRows) * p->panel_bytes(n_cols);
}

Isa pack_weight(TensorType w, const void* W, int64_t n_rows, int64_t n_cols, void* packed, ThreadPool& pool) {
  const PanelKernels* p = prepacked_panel(w, n_cols);
  const auto w_stride = row_size(w, n_cols);
  if (p == nullptr || !w_stride || n_rows <= 0) throw Error(codes::kInternal, "pack_weight: type not packed here");
  const Isa isa = active_isa();
  const size_t one = p->panel_bytes(n_cols);
  const int64_t n_panels = (n_rows + kPanelRows - 1) / kPanelRows;
  const auto* src = static_cast<const uint8_t*>(W);
  auto* dst = static_cast<uint8_t*>(packed);
  const int n_tasks = static_cast<int>(std::min<int64_t>(n_panels, 64));
  pool.run(n_tasks, [&](int task, int) {
    for (int64_t i = task; i < n_panels; i += n_tasks) {
      const int64_t r0 = i * kPanelRows;
      p->pack(n_cols, src + static_cast<size_t>(r0) * *w_stride, *w_stride,
              static_cast<int>(std::min<int64_t>(kPanelRows, n_rows - r0)), dst + static_cast<size_t>(i) * one);
    }
  });
  return isa;
}

bool matmul_packed(Isa packed_for, TensorType w, const void* packed, int64_t n_rows, int64_t n_cols, const void* X_act,
                   int64_t n_tokens, float* Y, ThreadPool& pool) {
  if (packed_for != active_isa()) return false;
  const PanelKernels* p = prepacked_panel(w, n_cols);
  if (p == nullptr) return false;
  const auto w_stride = row_size(w, n_cols);
  const auto x_stride = row_size(vec_dot_type(w), n_cols);
  if (!w_stride || !x_stride || n_rows < 0 || n_tokens < 0)
    throw Error(codes::kInvalidArgument, "matmul_packed: invalid shape for type " + type_name(w));
  if (n_rows == 0 || n_tokens == 0) return true;
  run_matmul(active_table(), w, nullptr, static_cast<const uint8_t*>(packed), p, n_rows, n_cols, X_act, n_tokens, Y,
             n_rows, *w_stride, *x_stride, pool);
  return true;
}

}  // namespace a3s::power::kernels
