#include "chat/reasoning.h"

namespace a3s::power::chat {
namespace {

constexpr std::string_view kOpen = "<think>";
constexpr std::string_view kClose = "</think>";

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

size_t skip_space(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

// The length of the longest suffix of `s` that is a proper prefix of `tag`.
size_t partial_tag_suffix(std::string_view s, std::string_view tag) {
  for (size_t len = std::min(s.size(), tag.size() - 1); len > 0; --len)
    if (s.substr(s.size() - len) == tag.substr(0, len)) return len;
  return 0;
}

}  // namespace

ReasoningSplitter::ReasoningSplitter(ReasoningStart start)
    : state_(start == ReasoningStart::kNone      ? State::kContent
             : start == ReasoningStart::kInside ? State::kThinking
                                                : State::kStart) {}

ReasoningSplitter::Parts ReasoningSplitter::push(std::string_view text) {
  Parts out;
  held_.append(text);
  for (;;) {
    switch (state_) {
      case State::kStart: {
        const std::string_view rest = std::string_view(held_).substr(skip_space(held_));
        if (rest.size() >= kOpen.size() && rest.substr(0, kOpen.size()) == kOpen) {
          held_.erase(0, held_.size() - rest.size() + kOpen.size());
          state_ = State::kThinking;
          continue;
        }
        if (rest.size() < kOpen.size() && kOpen.substr(0, rest.size()) == rest) return out;  // maybe the tag
        state_ = State::kContent;  // no thinking: everything held is answer
        continue;
      }
      case State::kThinking: {
        if (!thinking_begun_) {
          held_.erase(0, skip_space(held_));  // whitespace opening the thinking
          thinking_begun_ = !held_.empty();
        }
        const size_t close = held_.find(kClose);
        if (close != std::string::npos) {
          std::string_view thought = std::string_view(held_).substr(0, close);
          while (!thought.empty() && is_space(thought.back())) thought.remove_suffix(1);
          out.reasoning.append(thought);
          held_.erase(0, close + kClose.size());
          state_ = State::kAfterThinking;
          continue;
        }
        // Keep what may start the closing tag, and the whitespace that may precede it.
        size_t keep = partial_tag_suffix(held_, kClose);
        while (keep < held_.size() && is_space(held_[held_.size() - keep - 1])) ++keep;
        out.reasoning.append(held_, 0, held_.size() - keep);
        held_.erase(0, held_.size() - keep);
        return out;
      }
      case State::kAfterThinking: {
        held_.erase(0, skip_space(held_));
        if (held_.empty()) return out;
        state_ = State::kContent;
        continue;
      }
      case State::kContent:
        out.content.append(held_);
        held_.clear();
        return out;
    }
  }
}

ReasoningSplitter::Parts ReasoningSplitter::finish() {
  Parts out;
  switch (state_) {
    case State::kStart:
    case State::kContent: out.content.swap(held_); break;
    case State::kThinking: {
      size_t end = held_.size();
      while (end > 0 && is_space(held_[end - 1])) --end;
      const size_t begin = std::min(skip_space(held_), end);
      out.reasoning = held_.substr(begin, end - begin);
      break;
    }
    case State::kAfterThinking: break;  // only whitespace is held
  }
  held_.clear();
  return out;
}

ReasoningSplitter::Parts ReasoningSplitter::split(std::string_view text, ReasoningStart start) {
  ReasoningSplitter s(start);
  Parts out = s.push(text);
  Parts rest = s.finish();
  out.reasoning += rest.reasoning;
  out.content += rest.content;
  return out;
}

}  // namespace a3s::power::chat
