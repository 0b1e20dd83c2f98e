// Public entry points of kernels.h: argument validation, then the active ISA's table.
#include <algorithm>
#include <string>

#include "a3s/power/error.h"
#include "kernels/kernel_table.h"
#include "kernels/kernels.h"

namespace a3s::power::kernels {
namespace {

[[noreturn]] void unsupported(const char* op, TensorType t) {
  throw Error(codes::kUnsupportedType, std::string(op) + ": no kernel for tensor type " + type_name(t) +
                                           " (id " + std::to_string(static_cast<uint32_t>(t)) + ")");
}

// Checks that n elements form whole blocks of type t; returns the row size in bytes.
size_t checked_row(const char* op, TensorType t, int64_t n) {
  const auto info = type_info(static_cast<uint32_t>(t));
  if (!info) unsupported(op, t);
  if (n < 0 || n % info->block_size != 0) {
    throw Error(codes::kInvalidArgument, std::string(op) + ": n=" + std::to_string(n) +
                                             " is not a non-negative multiple of the " + info->name +
                                             " block size " + std::to_string(info->block_size));
  }
  return static_cast<size_t>(n / info->block_size) * info->block_bytes;
}

template <typename Fn>
Fn lookup(const char* op, const Fn (&fns)[kTypeSlots], TensorType t) {
  const auto i = slot(t);
  if (i >= kTypeSlots || fns[i] == nullptr) unsupported(op, t);
  return fns[i];
}

}  // namespace

TensorType vec_dot_type(TensorType w) {
  switch (w) {
    case TensorType::F32:
      return TensorType::F32;
    case TensorType::F16:
      return TensorType::F16;
    case TensorType::BF16:
      return TensorType::BF16;
    case TensorType::Q4_0:
    case TensorType::Q5_0:
    case TensorType::Q8_0:
    case TensorType::IQ4_NL:
      return TensorType::Q8_0;
    case TensorType::Q4_1:
    case TensorType::Q5_1:
      return TensorType::Q8_1;
    case TensorType::Q2_K:
    case TensorType::Q3_K:
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K:
    case TensorType::IQ4_XS:
      return TensorType::Q8_K;
    case TensorType::Q8_1:
    case TensorType::Q8_K:
      break;
  }
  unsupported("vec_dot_type", w);
}

void dequantize_row(TensorType t, const void* src, float* dst, int64_t n) {
  checked_row("dequantize_row", t, n);
  const auto fn = lookup("dequantize_row", active_table().dequantize, t);
  if (n > 0) fn(src, dst, n);
}

namespace {

// The quantizer for t under `rounding` (the CPU-backend variant exists for Q8_0 / Q8_1 only).
QuantizeFn quantizer(const char* op, TensorType t, Q8Rounding rounding) {
  const KernelTable& table = active_table();
  if (rounding == Q8Rounding::CpuBackend && slot(t) < kTypeSlots &&
      table.quantize_backend[slot(t)] != nullptr) {
    return table.quantize_backend[slot(t)];
  }
  return lookup(op, table.quantize, t);
}

}  // namespace

void quantize_row(TensorType t, const float* x, void* dst, int64_t n, Q8Rounding rounding) {
  checked_row("quantize_row", t, n);
  const auto fn = quantizer("quantize_row", t, rounding);
  if (n > 0) fn(x, dst, n);
}

void quantize_rows(TensorType t, const float* X, void* dst, int64_t n_rows, int64_t n_cols, ThreadPool* pool,
                   Q8Rounding rounding) {
  const size_t row_bytes = checked_row("quantize_rows", t, n_cols);
  const auto fn = quantizer("quantize_rows", t, rounding);
  if (n_rows < 0) throw Error(codes::kInvalidArgument, "quantize_rows: negative row count");
  if (n_rows == 0 || n_cols == 0) return;
  auto* out = static_cast<uint8_t*>(dst);
  if (pool == nullptr || pool->size() <= 1 || n_rows == 1) {
    for (int64_t r = 0; r < n_rows; ++r) fn(X + r * n_cols, out + static_cast<size_t>(r) * row_bytes, n_cols);
    return;
  }
  struct Ctx {
    QuantizeFn fn;
    const float* X;
    uint8_t* out;
    int64_t n_rows, n_cols;
    size_t row_bytes;
  } ctx{fn, X, out, n_rows, n_cols, row_bytes};
  const int n_tasks = static_cast<int>(std::min<int64_t>(n_rows, 4 * pool->size()));
  pool->run(n_tasks, [&ctx](int task, int n) {
    const int64_t r0 = ctx.n_rows * task / n, r1 = ctx.n_rows * (task + 1) / n;
    for (int64_t r = r0; r < r1; ++r) {
      ctx.fn(ctx.X + r * ctx.n_cols, ctx.out + static_cast<size_t>(r) * ctx.row_bytes, ctx.n_cols);
    }
  });
}

VecDotKernel vec_dot_kernel(TensorType w) {
  return lookup("vec_dot_kernel", active_table().vec_dot, w);
}

void vec_dot(TensorType w, int64_t n, float* out, const void* w_row, const void* x_act) {
  checked_row("vec_dot", w, n);
  const auto fn = lookup("vec_dot", active_table().vec_dot, w);
  if (n == 0) {
    *out = 0.0f;
    return;
  }
  fn(n, out, w_row, x_act);
}

}  // namespace a3s::power::kernels
