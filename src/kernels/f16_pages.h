// F16 rows stored in fixed-size pages, as a paged KV cache stores them (engine/kv_cache.h). Plain
// data, no library templates: the ISA kernels take it (kernel_table.h).
#pragma once

#include <cstdint>

namespace a3s::power::kernels {

// Rows whose elements lie in fixed-size pages (a paged KV cache, engine/kv_cache.h): element k of
// row r is blocks[k >> log2_block][offset + r·row_stride + (k & (2^log2_block − 1))]. A page holds
// 2^log2_block ≥ 16 elements of each row, so a 16-lane group never crosses a page.
struct F16Pages {
  const uint16_t* const* blocks;
  int log2_block;
  int64_t offset;      // elements from each page's start to row 0
  int64_t row_stride;  // elements between rows inside a page
};

}  // namespace a3s::power::kernels
