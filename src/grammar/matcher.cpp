#include "grammar/matcher.h"

#include "a3s/power/error.h"
#include "grammar/stack_states.h"

namespace a3s::power::grammar {

Matcher::Matcher(std::shared_ptr<const Grammar> g) : grammar_(std::move(g)) {
  if (!grammar_) throw Error(codes::kInvalidArgument, "grammar: a matcher needs a grammar");
  states_ = std::make_unique<detail::StackStates>(grammar_);
  current_ = states_->start();
}

Matcher::Matcher(const Matcher& other)
    : grammar_(other.grammar_),
      states_(std::make_unique<detail::StackStates>(*other.states_)),
      current_(other.current_) {}

Matcher& Matcher::operator=(const Matcher& other) {
  if (this != &other) {
    auto states = std::make_unique<detail::StackStates>(*other.states_);
    grammar_ = other.grammar_;
    states_ = std::move(states);
    current_ = other.current_;
  }
  return *this;
}

Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

bool Matcher::accept(std::string_view bytes) {
  current_ = states_->trim(current_);
  detail::StateId s = current_;
  for (char c : bytes) {
    s = states_->step(s, static_cast<uint8_t>(c));
    if (s == detail::kDeadState) return false;
  }
  current_ = s;
  return true;
}

bool Matcher::can_accept(std::string_view bytes) const {
  current_ = states_->trim(current_);
  detail::StateId s = current_;
  for (char c : bytes) {
    s = states_->step(s, static_cast<uint8_t>(c));
    if (s == detail::kDeadState) return false;
  }
  return true;
}

bool Matcher::can_end() const {
  return states_->can_end(current_);
}
bool Matcher::finished() const {
  return states_->finished(current_);
}

void Matcher::reset() {
  current_ = states_->trim(current_);
  current_ = states_->start();
}

size_t Matcher::stack_count() const {
  return states_->stack_count(current_);
}
bool Matcher::has_pending_bytes() const {
  return states_->pending(current_);
}
size_t Matcher::cache_bytes() const {
  return states_->memory_bytes();
}

}  // namespace a3s::power::grammar
