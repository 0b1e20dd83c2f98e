// MappedWeights: the resident WeightSource. Every tensor stays in the GGUF file's read-only memory
// mapping (gguf::File); acquiring a layer costs nothing and row reads return pointers into the
// mapping (no copy, `scratch` unused).
#pragma once

#include <memory>

#include "model/sources/weight_source.h"

namespace a3s::power::gguf { class File; }

namespace a3s::power::weights {

class MappedWeights final : public WeightSource {
 public:
  explicit MappedWeights(std::shared_ptr<const gguf::File> file);

  const uint8_t* read_rows(int id, int64_t row0, int64_t n_rows, std::span<uint8_t> scratch) override;
  bool rows_need_scratch() const override { return false; }

 protected:
  void do_acquire_layer(int) override {}
  void do_release_layer(int) override {}
  const uint8_t* layer_data(int il, int id) override;

 private:
  std::shared_ptr<const gguf::File> file_;
  std::vector<const uint8_t*> data_;  // per tensor id, into the mapping
};

}  // namespace a3s::power::weights
