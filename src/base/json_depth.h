// How deeply a parsed JSON value nests arrays and objects, checked without recursion, so that the
// check cannot run out of stack on hostile input (nlohmann::json's dump() and comparisons recurse).
#pragma once

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace a3s::power {

// Whether `j` nests arrays/objects deeper than `max_depth` levels (a scalar is depth 0, [] depth 1).
template <typename Json>
bool nests_deeper_than(const Json& j, int max_depth) {
  std::vector<std::pair<const Json*, int>> todo{{&j, 1}};
  while (!todo.empty()) {
    const auto [v, depth] = todo.back();
    todo.pop_back();
    if (!v->is_structured()) continue;
    if (depth > max_depth) return true;
    for (const auto& e : *v) todo.emplace_back(&e, depth + 1);
  }
  return false;
}

}  // namespace a3s::power
