#include "model/sources/mapped_weights.h"

#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"

namespace a3s::power::weights {

MappedWeights::MappedWeights(std::shared_ptr<const gguf::File> file) : file_(std::move(file)) {
  if (!file_ || file_->header_only()) throw Error(codes::kInternal, "no mapped model file");
  for (const gguf::TensorInfo& t : file_->tensors()) data_.push_back(file_->tensor_data(t));
  set_tensors(tensor_descs(*file_));
}

const uint8_t* MappedWeights::read_rows(int id, int64_t row0, int64_t n_rows, std::span<uint8_t>) {
  check_rows(id, row0, n_rows);
  const TensorDesc& d = desc(id);
  return data_[static_cast<size_t>(id)] + static_cast<size_t>(row0) * d.row_bytes;
}

const uint8_t* MappedWeights::layer_data(int, int id) { return data_[static_cast<size_t>(id)]; }

}  // namespace a3s::power::weights
