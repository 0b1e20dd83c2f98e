// dot_f16_lanes16: the scalar reference (every ISA's version computes the same bits) and the public
// entry.
#include "kernels/dot_f16_lanes16.h"

#include <cmath>

#include "kernels/kernels.h"
#include "kernels/ref/install.h"

namespace a3s::power::kernels {
namespace {

// The reference over any row layout: at(k) and at.y(k) are element k of x and of y (zero from n on).
template <typename At>
float lanes16_sum(const At& at, int64_t n, int64_t n_padded) {
  using namespace lanes16;
  const int64_t n_vec = n_padded / kStep * kStep;
  double sum = 0.0;
  if (n_vec > 0) {
    float acc[4][kLanes] = {};
    for (int64_t i = 0; i < n_vec; i += kStep) {
      for (int j = 0; j < 4; ++j) {
        for (int l = 0; l < kLanes; ++l) {
          const int64_t k = i + j * kLanes + l;
          acc[j][l] = std::fma(at(k), at.y(k), acc[j][l]);
        }
      }
    }
    float v[kLanes];
    for (int l = 0; l < kLanes; ++l) v[l] = (acc[0][l] + acc[2][l]) + (acc[1][l] + acc[3][l]);
    sum = hsum16(v);
  }
  for (int64_t i = n_vec; i < n; ++i) sum += static_cast<double>(at(i) * at.y(i));
  return static_cast<float>(sum);
}

// Element k of a row as float, zero at and beyond n (never read there); y likewise.
struct FlatRow {
  const uint16_t* x;
  const uint16_t* yp;
  int64_t n;
  float operator()(int64_t k) const { return k < n ? fp16_to_fp32(x[k]) : 0.0f; }
  float y(int64_t k) const { return k < n ? fp16_to_fp32(yp[k]) : 0.0f; }
};
struct PagedRow {
  const F16Pages& p;
  int64_t r;
  const uint16_t* yp;
  int64_t n;
  float operator()(int64_t k) const {
    if (k >= n) return 0.0f;
    const int64_t mask = (int64_t{1} << p.log2_block) - 1;
    return fp16_to_fp32(p.blocks[k >> p.log2_block][p.offset + r * p.row_stride + (k & mask)]);
  }
  float y(int64_t k) const { return k < n ? fp16_to_fp32(yp[k]) : 0.0f; }
};

float dot_f16_lanes16_scalar(const uint16_t* x, const uint16_t* y, int64_t n, int64_t n_padded) {
  return lanes16_sum(FlatRow{x, y, n}, n, n_padded);
}

void dot_f16_lanes16_pages_scalar(const F16Pages& x, int64_t n_rows, const uint16_t* const* y, int n_y, int64_t n,
                                  int64_t n_padded, float* const* out) {
  for (int q = 0; q < n_y; ++q)
    for (int64_t r = 0; r < n_rows; ++r) out[q][r] = lanes16_sum(PagedRow{x, r, y[q], n}, n, n_padded);
}

}  // namespace

void install_scalar_dot_f16_lanes16(KernelTable& t) {
  t.dot_f16_lanes16 = dot_f16_lanes16_scalar;
  t.dot_f16_lanes16_pages = dot_f16_lanes16_pages_scalar;
}

float dot_f16_lanes16(const uint16_t* x, const uint16_t* y, int64_t n, int64_t n_padded) {
  return active_table().dot_f16_lanes16(x, y, n, n_padded < n ? n : n_padded);
}

void dot_f16_lanes16_rows(const uint16_t* x, int64_t x_stride, int64_t n_rows, const uint16_t* y, int64_t n,
                          int64_t n_padded, float* out) {
  dot_f16_lanes16_rows(x, x_stride, n_rows, &y, 1, n, n_padded, &out);
}

void dot_f16_lanes16_rows(const uint16_t* x, int64_t x_stride, int64_t n_rows, const uint16_t* const* y, int n_y,
                          int64_t n, int64_t n_padded, float* const* out) {
  if (n_rows <= 0 || n_y <= 0) return;
  // Contiguous rows are one page as long as any row.
  const F16Pages one{&x, 62, 0, x_stride};
  active_table().dot_f16_lanes16_pages(one, n_rows, y, n_y, n, n_padded < n ? n : n_padded, out);
}

void dot_f16_lanes16_pages(const F16Pages& x, int64_t n_rows, const uint16_t* y, int64_t n, int64_t n_padded,
                           float* out) {
  dot_f16_lanes16_pages(x, n_rows, &y, 1, n, n_padded, &out);
}

void dot_f16_lanes16_pages(const F16Pages& x, int64_t n_rows, const uint16_t* const* y, int n_y, int64_t n,
                           int64_t n_padded, float* const* out) {
  if (n_rows <= 0 || n_y <= 0) return;
  active_table().dot_f16_lanes16_pages(x, n_rows, y, n_y, n, n_padded < n ? n : n_padded, out);
}

}  // namespace a3s::power::kernels
