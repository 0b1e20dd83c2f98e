// The record of one verification (an attestation, a receipt): each check appends a line as it runs,
// and the first failure ends it, naming the step (the stable failure code) and the message.
// `Result` has `checks` (a vector of {check, ok, detail}), `accepted`, `failed_step` and `message`
// (AttestationResult, ReceiptResult in include/a3s/power/).
#pragma once

#include <string>
#include <utility>

namespace a3s::power::verify {

template <typename Result>
class Verdict {
 public:
  explicit Verdict(Result& r) : r_(r) {}
  void pass(const char* check, std::string detail) { r_.checks.push_back({check, true, std::move(detail)}); }
  // Records the failed check and returns the result, so a caller can `return v.fail(…)`.
  Result& fail(const char* check, const std::string& step, std::string message) {
    r_.checks.push_back({check, false, message});
    r_.accepted = false;
    r_.failed_step = step;
    r_.message = std::move(message);
    return r_;
  }

 private:
  Result& r_;
};

}  // namespace a3s::power::verify
