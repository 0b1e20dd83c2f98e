#include "chat/tool_calls.h"

#include <algorithm>
#include <initializer_list>

#include <nlohmann/json.hpp>

namespace a3s::power::chat {
namespace {

using ojson = nlohmann::ordered_json;
constexpr size_t npos = std::string_view::npos;

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The length of the longest suffix of `text` that is a proper prefix of one of `markers`: text that
// may still become a marker.
size_t marker_prefix_suffix(std::string_view text, std::initializer_list<std::string_view> markers) {
  size_t best = 0;
  for (std::string_view m : markers) {
    for (size_t n = std::min(text.size(), m.size() - 1); n > best; --n) {
      if (text.substr(text.size() - n) == m.substr(0, n)) {
        best = n;
        break;
      }
    }
  }
  return best;
}

// The end (one past) of the JSON object or array that starts at text[pos], by bracket matching
// outside strings; npos when it does not end within `text`.
size_t json_extent(std::string_view text, size_t pos) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = pos; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return npos;
}

std::optional<ojson> parse_json(std::string_view text) {
  ojson j = ojson::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// The end (one past) of the JSON value that starts at text[i] in valid JSON.
size_t value_end(std::string_view text, size_t i) {
  if (i >= text.size()) return text.size();
  if (text[i] == '{' || text[i] == '[') {
    const size_t e = json_extent(text, i);
    return e == npos ? text.size() : e;
  }
  if (text[i] == '"') {
    for (size_t k = i + 1; k < text.size(); ++k) {
      if (text[k] == '\\') {
        ++k;
      } else if (text[k] == '"') {
        return k + 1;
      }
    }
    return text.size();
  }
  while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' && !is_space(text[i])) ++i;
  return i;
}

// The text of each top-level element of the valid JSON object or array `text`, in order: an
// object's member values, an array's items.
std::vector<std::string_view> raw_elements(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && is_space(text[i])) ++i;
  };
  skip_space();
  if (i >= text.size() || (text[i] != '{' && text[i] != '[')) return out;
  const bool object = text[i] == '{';
  ++i;
  while (true) {
    skip_space();
    if (i >= text.size() || text[i] == '}' || text[i] == ']') break;
    if (object) {
      i = value_end(text, i);  // the key
      skip_space();
      ++i;  // ':'
      skip_space();
    }
    const size_t start = i;
    i = value_end(text, i);
    out.push_back(text.substr(start, i - start));
    skip_space();
    if (i < text.size() && text[i] == ',') ++i;
  }
  return out;
}

// Arguments as the model wrote them: an object (its text `raw` when known, else compact JSON), or
// a string holding an object's text (that text).
std::optional<std::string> arguments_text(const ojson& v, std::string_view raw = {}) {
  if (v.is_object()) {
    if (!raw.empty()) return std::string(trim(raw));
    return v.dump(-1, ' ', false, ojson::error_handler_t::replace);
  }
  if (v.is_string()) {
    auto inner = parse_json(v.get_ref<const std::string&>());
    if (inner && inner->is_object()) return std::string(trim(v.get_ref<const std::string&>()));
  }
  return std::nullopt;
}

std::optional<std::string> string_field(const ojson& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) return std::nullopt;
  return it->get<std::string>();
}

// A call object: a name under `name_key` and arguments under one of `args_keys` (absent → {}).
// `raw`: the object's text, so that the arguments keep the model's own writing (numbers included).
std::optional<ToolCall> call_of(const ojson& o, std::string_view raw, const char* name_key,
                                std::initializer_list<const char*> args_keys, const char* id_key = nullptr) {
  if (!o.is_object()) return std::nullopt;
  auto name = string_field(o, name_key);
  if (!name) return std::nullopt;
  ToolCall call;
  call.name = std::move(*name);
  call.arguments = "{}";
  const std::vector<std::string_view> values = raw_elements(raw);
  for (const char* k : args_keys) {
    auto it = o.find(k);
    if (it == o.end()) continue;
    std::string_view value_raw;
    if (values.size() == o.size()) value_raw = values[static_cast<size_t>(std::distance(o.begin(), it))];
    auto args = arguments_text(*it, value_raw);
    if (!args) return std::nullopt;
    call.arguments = std::move(*args);
    break;
  }
  if (id_key) {
    auto it = o.find(id_key);
    if (it != o.end() && it->is_string()) call.id = it->get<std::string>();
    if (it != o.end() && it->is_number_integer()) call.id = std::to_string(it->get<int64_t>());
  }
  return call;
}

// Calls from a JSON array of call objects; nullopt when any item is not one.
std::optional<std::vector<ToolCall>> calls_of_array(std::string_view text, const char* name_key,
                                                    std::initializer_list<const char*> args_keys,
                                                    const char* id_key) {
  auto j = parse_json(text);
  if (!j || !j->is_array() || j->empty()) return std::nullopt;
  const std::vector<std::string_view> items = raw_elements(text);
  std::vector<ToolCall> calls;
  for (size_t i = 0; i < j->size(); ++i) {
    const ojson& item = (*j)[i];
    auto c = call_of(item, items.size() == j->size() ? items[i] : std::string_view(), name_key, args_keys, id_key);
    if (!c) return std::nullopt;
    calls.push_back(std::move(*c));
  }
  return calls;
}

// Builds a ParsedReply. Whitespace next to a call is dropped; in a partial scan, trailing
// whitespace and a possible partial marker are held back (they may yet precede a call).
class Builder {
 public:
  explicit Builder(bool final) : final_(final) {}

  void content(std::string_view s) {
    if (after_call_) {
      while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
      if (s.empty()) return;
      after_call_ = false;
    }
    out_.content.append(s);
  }
  void reasoning(std::string_view s) { out_.reasoning.append(s); }
  void call(ToolCall c) {
    while (!out_.content.empty() && is_space(out_.content.back())) out_.content.pop_back();
    out_.calls.push_back(std::move(c));
    after_call_ = true;
  }
  // Text that ends the partial scan: content that may still hold the start of a marker.
  void tail(std::string_view s, std::initializer_list<std::string_view> markers) {
    if (!final_) s.remove_suffix(marker_prefix_suffix(s, markers));
    content(s);
  }
  bool final() const { return final_; }
  ParsedReply done() {
    if (!final_) {
      while (!out_.content.empty() && is_space(out_.content.back())) out_.content.pop_back();
    }
    return std::move(out_);
  }

 private:
  bool final_;
  bool after_call_ = false;
  ParsedReply out_;
};

// Regions "<open> body <close>" repeated, each body parsed into calls by `parse`; the rest content.
template <typename Parse>
void scan_blocks(std::string_view text, std::string_view open, std::string_view close, Builder& b, Parse parse) {
  size_t pos = 0;
  while (true) {
    const size_t i = text.find(open, pos);
    if (i == npos) {
      b.tail(text.substr(pos), {open});
      return;
    }
    b.content(text.substr(pos, i - pos));
    const size_t body = i + open.size();
    const size_t j = text.find(close, body);
    if (j == npos && !b.final()) return;  // an unclosed call: held
    const size_t end = j == npos ? text.size() : j + close.size();
    auto calls = parse(text.substr(body, (j == npos ? text.size() : j) - body));
    if (calls) {
      for (auto& c : *calls) b.call(std::move(c));
    } else {
      b.content(text.substr(i, end - i));
    }
    pos = end;
  }
}

void scan_hermes(std::string_view text, Builder& b) {
  scan_blocks(text, "<tool_call>", "</tool_call>", b, [](std::string_view body) -> std::optional<std::vector<ToolCall>> {
    auto j = parse_json(trim(body));
    if (!j) return std::nullopt;
    auto c = call_of(*j, trim(body), "name", {"arguments", "parameters"});
    if (!c) return std::nullopt;
    return std::vector<ToolCall>{std::move(*c)};
  });
}

void scan_llama3(std::string_view text, Builder& b) {
  std::string_view t = trim(text);
  constexpr std::string_view kTag = "<|python_tag|>";
  const bool tagged = starts_with(t, kTag);
  if (tagged) t = trim(t.substr(kTag.size()));
  const bool candidate = tagged || starts_with(t, "{");
  if (!b.final()) {
    // A reply that may be calls is held whole; one that cannot is content.
    if (candidate || t.empty() || marker_prefix_suffix(t, {kTag}) == t.size()) return;
    b.tail(text, {});
    return;
  }
  std::vector<ToolCall> calls;
  size_t pos = 0;
  bool ok = candidate && !t.empty();
  while (ok && pos < t.size()) {
    if (t[pos] != '{') {
      ok = false;
      break;
    }
    const size_t end = json_extent(t, pos);
    if (end == npos) {
      ok = false;
      break;
    }
    auto j = parse_json(t.substr(pos, end - pos));
    auto c = j ? call_of(*j, t.substr(pos, end - pos), "name", {"parameters", "arguments"}) : std::nullopt;
    if (!c) {
      ok = false;
      break;
    }
    calls.push_back(std::move(*c));
    pos = end;
    while (pos < t.size() && (is_space(t[pos]) || t[pos] == ';')) ++pos;
  }
  if (!ok) {
    b.content(text);
    return;
  }
  for (auto& c : calls) b.call(std::move(c));
}

void scan_mistral(std::string_view text, Builder& b) {
  constexpr std::string_view kMarker = "[TOOL_CALLS]";
  constexpr std::string_view kArgs = "[ARGS]";
  size_t pos = 0;
  while (true) {
    const size_t i = text.find(kMarker, pos);
    if (i == npos) {
      b.tail(text.substr(pos), {kMarker});
      return;
    }
    b.content(text.substr(pos, i - pos));
    size_t p = i + kMarker.size();
    while (p < text.size() && is_space(text[p])) ++p;
    if (p == text.size()) {
      if (b.final()) b.content(text.substr(i));
      return;
    }
    size_t end = npos;
    std::optional<std::vector<ToolCall>> calls;
    if (text[p] == '[') {
      end = json_extent(text, p);
      if (end != npos) calls = calls_of_array(text.substr(p, end - p), "name", {"arguments", "parameters"}, "id");
    } else {
      const size_t a = text.find(kArgs, p);
      const size_t brace = a == npos ? npos : a + kArgs.size();
      if (brace != npos && brace < text.size() && text[brace] == '{') {
        end = json_extent(text, brace);
        if (end != npos) {
          auto j = parse_json(text.substr(brace, end - brace));
          auto args = j ? arguments_text(*j, text.substr(brace, end - brace)) : std::nullopt;
          const std::string_view name = trim(text.substr(p, a - p));
          if (args && !name.empty()) calls = std::vector<ToolCall>{ToolCall{"", std::string(name), std::move(*args)}};
        }
      } else if (brace != npos && brace < text.size()) {
        end = brace;  // [ARGS] not followed by an object: not a call
      }
    }
    if (end == npos && !b.final()) return;  // unfinished: held
    if (end == npos) end = text.size();
    if (calls) {
      for (auto& c : *calls) b.call(std::move(c));
    } else {
      b.content(text.substr(i, end - i));
    }
    pos = end;
  }
}

void scan_functionary(std::string_view text, Builder& b) {
  constexpr std::string_view kSep = ">>>";
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    const size_t next = text.find(kSep, pos);
    if (nl == npos || (next != npos && next < nl)) {
      // No recipient line yet.
      if (!b.final()) return;
      b.content(text.substr(pos));
      return;
    }
    const std::string_view recipient = trim(text.substr(pos, nl - pos));
    const size_t body = nl + 1;
    const size_t end = text.find(kSep, body);
    if (recipient == "all") {
      if (end == npos) {
        b.tail(text.substr(body), {kSep});
        return;
      }
      b.content(text.substr(body, end - body));
    } else {
      if (end == npos && !b.final()) return;
      const std::string_view args = trim(text.substr(body, (end == npos ? text.size() : end) - body));
      auto j = parse_json(args);
      auto a = j ? arguments_text(*j, args) : std::nullopt;
      if (a && !recipient.empty()) {
        b.call(ToolCall{"", std::string(recipient), std::move(*a)});
      } else {
        b.content(text.substr(pos, (end == npos ? text.size() : end) - pos));
      }
    }
    if (end == npos) return;
    pos = end + kSep.size();
  }
}

void scan_command_r(std::string_view text, Builder& b) {
  struct Block {
    std::string_view open, close;
    int kind;  // 0 thinking, 1 response, 2 action
  };
  static constexpr Block kBlocks[] = {{"<|START_THINKING|>", "<|END_THINKING|>", 0},
                                      {"<|START_RESPONSE|>", "<|END_RESPONSE|>", 1},
                                      {"<|START_ACTION|>", "<|END_ACTION|>", 2}};
  const auto markers = {kBlocks[0].open, kBlocks[1].open, kBlocks[2].open};
  size_t pos = 0;
  while (true) {
    size_t i = npos;
    const Block* blk = nullptr;
    for (const Block& k : kBlocks) {
      const size_t at = text.find(k.open, pos);
      if (at < i) {
        i = at;
        blk = &k;
      }
    }
    if (!blk) {
      b.tail(text.substr(pos), markers);
      return;
    }
    b.content(text.substr(pos, i - pos));
    const size_t body = i + blk->open.size();
    const size_t j = text.find(blk->close, body);
    const size_t body_end = j == npos ? text.size() : j;
    const size_t end = j == npos ? text.size() : j + blk->close.size();
    if (blk->kind == 2) {
      if (j == npos && !b.final()) return;
      auto calls = calls_of_array(trim(text.substr(body, body_end - body)), "tool_name", {"parameters", "arguments"},
                                  "tool_call_id");
      if (calls) {
        for (auto& c : *calls) b.call(std::move(c));
      } else {
        b.content(text.substr(i, end - i));
      }
    } else {
      std::string_view part = text.substr(body, body_end - body);
      if (j == npos && !b.final()) part.remove_suffix(marker_prefix_suffix(part, {blk->close}));
      if (blk->kind == 0) {
        b.reasoning(part);
      } else {
        b.content(part);
      }
      if (j == npos) return;
    }
    pos = end;
  }
}

void scan_deepseek_r1(std::string_view text, Builder& b) {
  constexpr std::string_view kCallsBegin = "<｜tool▁calls▁begin｜>";
  constexpr std::string_view kCallsEnd = "<｜tool▁calls▁end｜>";
  constexpr std::string_view kCallBegin = "<｜tool▁call▁begin｜>";
  constexpr std::string_view kCallEnd = "<｜tool▁call▁end｜>";
  constexpr std::string_view kSep = "<｜tool▁sep｜>";
  size_t pos = 0;
  while (true) {
    const size_t i = text.find(kCallsBegin, pos);
    if (i == npos) {
      b.tail(text.substr(pos), {kCallsBegin});
      return;
    }
    b.content(text.substr(pos, i - pos));
    size_t p = i + kCallsBegin.size();
    // Each call in the region as it completes.
    while (true) {
      size_t q = p;
      while (q < text.size() && is_space(text[q])) ++q;
      if (starts_with(text.substr(q), kCallsEnd)) {
        p = q + kCallsEnd.size();
        break;
      }
      if (!starts_with(text.substr(q), kCallBegin)) {
        if (!b.final() && (q == text.size() || marker_prefix_suffix(text.substr(q), {kCallBegin, kCallsEnd}) ==
                                                       text.size() - q)) {
          return;  // the next marker may still come
        }
        break;  // the region ends without its closing marker: the rest is content
      }
      const size_t body = q + kCallBegin.size();
      const size_t e = text.find(kCallEnd, body);
      if (e == npos && !b.final()) return;
      const size_t body_end = e == npos ? text.size() : e;
      const size_t end = e == npos ? text.size() : e + kCallEnd.size();
      std::optional<ToolCall> call;
      const std::string_view call_text = text.substr(body, body_end - body);
      const size_t sep = call_text.find(kSep);
      if (sep != npos) {
        std::string_view rest = call_text.substr(sep + kSep.size());
        const size_t nl = rest.find('\n');
        const std::string_view name = trim(rest.substr(0, nl));
        std::string_view args = nl == npos ? std::string_view() : trim(rest.substr(nl + 1));
        if (starts_with(args, "```json")) args.remove_prefix(7);
        else if (starts_with(args, "```")) args.remove_prefix(3);
        args = trim(args);
        if (args.size() >= 3 && args.substr(args.size() - 3) == "```") args.remove_suffix(3);
        auto j = parse_json(trim(args));
        auto a = j ? arguments_text(*j, trim(args)) : std::nullopt;
        if (a && !name.empty()) call = ToolCall{"", std::string(name), std::move(*a)};
      }
      if (call) {
        b.call(std::move(*call));
      } else {
        b.content(text.substr(q, end - q));
      }
      p = end;
      if (e == npos) return;
    }
    pos = p;
  }
}

// The value of attribute `name="…"` in a tag's text, if present.
std::optional<std::string_view> attribute(std::string_view tag, std::string_view name) {
  const std::string key = std::string(name) + "=\"";
  const size_t a = tag.find(key);
  if (a == npos) return std::nullopt;
  const size_t v = a + key.size();
  const size_t e = tag.find('"', v);
  if (e == npos) return std::nullopt;
  return tag.substr(v, e - v);
}

// One DSML invoke body: its parameters as a JSON object's text.
std::optional<std::string> dsml_arguments(std::string_view body) {
  constexpr std::string_view kOpen = "<｜DSML｜parameter";
  constexpr std::string_view kClose = "</｜DSML｜parameter>";
  ojson args = ojson::object();
  size_t pos = 0;
  while (true) {
    const size_t i = body.find(kOpen, pos);
    if (i == npos) {
      if (!trim(body.substr(pos)).empty()) return std::nullopt;
      break;
    }
    if (!trim(body.substr(pos, i - pos)).empty()) return std::nullopt;
    const size_t gt = body.find('>', i);
    if (gt == npos) return std::nullopt;
    const std::string_view tag = body.substr(i, gt - i);
    const auto name = attribute(tag, "name");
    if (!name || name->empty()) return std::nullopt;
    const size_t e = body.find(kClose, gt + 1);
    if (e == npos) return std::nullopt;
    const std::string value(body.substr(gt + 1, e - gt - 1));
    if (attribute(tag, "string") == std::optional<std::string_view>("true")) {
      args[std::string(*name)] = value;
    } else {
      auto j = parse_json(value);
      if (j) {
        args[std::string(*name)] = std::move(*j);
      } else {
        args[std::string(*name)] = value;
      }
    }
    pos = e + kClose.size();
  }
  return args.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

void scan_deepseek_dsml(std::string_view text, Builder& b) {
  constexpr std::string_view kOpen = "<｜DSML｜function_calls>";
  constexpr std::string_view kClose = "</｜DSML｜function_calls>";
  constexpr std::string_view kInvoke = "<｜DSML｜invoke";
  constexpr std::string_view kInvokeEnd = "</｜DSML｜invoke>";
  scan_blocks(text, kOpen, kClose, b, [&](std::string_view region) -> std::optional<std::vector<ToolCall>> {
    std::vector<ToolCall> calls;
    size_t pos = 0;
    while (true) {
      const size_t i = region.find(kInvoke, pos);
      if (i == npos) {
        if (!trim(region.substr(pos)).empty()) return std::nullopt;
        break;
      }
      if (!trim(region.substr(pos, i - pos)).empty()) return std::nullopt;
      const size_t gt = region.find('>', i);
      const size_t e = gt == npos ? npos : region.find(kInvokeEnd, gt);
      if (e == npos) return std::nullopt;
      const auto name = attribute(region.substr(i, gt - i), "name");
      auto args = dsml_arguments(region.substr(gt + 1, e - gt - 1));
      if (!name || name->empty() || !args) return std::nullopt;
      calls.push_back(ToolCall{"", std::string(*name), std::move(*args)});
      pos = e + kInvokeEnd.size();
    }
    if (calls.empty()) return std::nullopt;
    return calls;
  });
}

void scan_gpt_oss(std::string_view text, Builder& b) {
  constexpr std::string_view kStart = "<|start|>";
  constexpr std::string_view kMessage = "<|message|>";
  constexpr std::string_view kChannel = "<|channel|>";
  constexpr std::string_view kTo = "to=functions.";
  size_t pos = 0;
  while (pos < text.size()) {
    // A message after the first starts with <|start|> and its role.
    if (starts_with(text.substr(pos), kStart)) {
      pos += kStart.size();
    } else if (!b.final() && marker_prefix_suffix(text.substr(pos), {kStart}) == text.size() - pos) {
      return;
    }
    const size_t m = text.find(kMessage, pos);
    if (m == npos) {
      if (b.final()) b.content(text.substr(pos));
      return;  // the header is not complete yet
    }
    const std::string_view header = text.substr(pos, m - pos);
    std::string_view channel;
    const size_t c = header.find(kChannel);
    if (c != npos) {
      channel = header.substr(c + kChannel.size());
      channel = channel.substr(0, std::min(channel.find(' '), channel.find('<')));
    }
    std::string recipient;
    const size_t t = header.find(kTo);
    if (t != npos) {
      std::string_view r = header.substr(t + kTo.size());
      r = r.substr(0, std::min({r.find(' '), r.find('<'), r.size()}));
      recipient = std::string(r);
    }
    const size_t body = m + kMessage.size();
    size_t e = npos;
    size_t end_len = 0;
    for (std::string_view term : {std::string_view("<|end|>"), std::string_view("<|call|>"), std::string_view("<|return|>")}) {
      const size_t at = text.find(term, body);
      if (at < e) {
        e = at;
        end_len = term.size();
      }
    }
    const size_t body_end = e == npos ? text.size() : e;
    std::string_view part = text.substr(body, body_end - body);
    if (!recipient.empty()) {
      if (e == npos && !b.final()) return;
      auto j = parse_json(trim(part));
      auto a = j ? arguments_text(*j, trim(part)) : std::nullopt;
      if (a) {
        b.call(ToolCall{"", recipient, std::move(*a)});
      } else {
        b.content(part);
      }
    } else {
      if (e == npos && !b.final()) part.remove_suffix(marker_prefix_suffix(part, {"<|end|>", "<|call|>", "<|return|>"}));
      if (channel == "analysis") {
        b.reasoning(part);
      } else {
        b.content(part);
      }
    }
    if (e == npos) return;
    pos = e + end_len;
  }
}

ParsedReply scan(std::string_view text, ToolCallSyntax syntax, bool final) {
  Builder b(final);
  switch (syntax) {
    case ToolCallSyntax::kNone: b.content(text); break;
    case ToolCallSyntax::kHermes: scan_hermes(text, b); break;
    case ToolCallSyntax::kLlama3: scan_llama3(text, b); break;
    case ToolCallSyntax::kMistral: scan_mistral(text, b); break;
    case ToolCallSyntax::kFunctionary: scan_functionary(text, b); break;
    case ToolCallSyntax::kCommandR: scan_command_r(text, b); break;
    case ToolCallSyntax::kDeepseekR1: scan_deepseek_r1(text, b); break;
    case ToolCallSyntax::kDeepseekDsml: scan_deepseek_dsml(text, b); break;
    case ToolCallSyntax::kGptOss: scan_gpt_oss(text, b); break;
  }
  return b.done();
}

bool has(std::string_view s, std::string_view what) { return s.find(what) != npos; }

}  // namespace

const char* tool_call_syntax_name(ToolCallSyntax s) {
  switch (s) {
    case ToolCallSyntax::kNone: return "none";
    case ToolCallSyntax::kHermes: return "hermes";
    case ToolCallSyntax::kLlama3: return "llama3";
    case ToolCallSyntax::kMistral: return "mistral";
    case ToolCallSyntax::kFunctionary: return "functionary";
    case ToolCallSyntax::kCommandR: return "command-r";
    case ToolCallSyntax::kDeepseekR1: return "deepseek-r1";
    case ToolCallSyntax::kDeepseekDsml: return "deepseek-dsml";
    case ToolCallSyntax::kGptOss: return "gpt-oss";
  }
  return "none";
}

ToolCallSyntax tool_call_syntax_of(std::string_view src) {
  if (has(src, "<|channel|>") && has(src, "<|start|>assistant to=")) return ToolCallSyntax::kGptOss;
  if (has(src, "DSML")) return ToolCallSyntax::kDeepseekDsml;
  if (has(src, "tool▁calls▁begin")) return ToolCallSyntax::kDeepseekR1;
  if (has(src, "<|START_ACTION|>")) return ToolCallSyntax::kCommandR;
  if (has(src, "[TOOL_CALLS]")) return ToolCallSyntax::kMistral;
  if (has(src, ">>>") && has(src, "<|start_header_id|>")) return ToolCallSyntax::kFunctionary;
  // Hermes-style blocks with a JSON body (templates that write XML parameters inside <tool_call>
  // are another syntax).
  if (has(src, "<tool_call>") && !has(src, "<function=") && has(src, "\"arguments\"")) return ToolCallSyntax::kHermes;
  if (has(src, "<|start_header_id|>") && has(src, "\"parameters\"") && has(src, "tool_calls")) {
    return ToolCallSyntax::kLlama3;
  }
  return ToolCallSyntax::kNone;
}

ParsedReply parse_tool_calls(std::string_view reply, ToolCallSyntax syntax) { return scan(reply, syntax, true); }

ParsedReply ToolCallStream::advance(bool final) {
  ParsedReply all = scan(text_, syntax_, final);
  ParsedReply out;
  // What a partial scan returned is a prefix of every later scan's (the held text is what may change).
  if (all.content.size() > content_sent_) out.content = all.content.substr(content_sent_);
  if (all.reasoning.size() > reasoning_sent_) out.reasoning = all.reasoning.substr(reasoning_sent_);
  for (size_t i = calls_sent_; i < all.calls.size(); ++i) out.calls.push_back(std::move(all.calls[i]));
  content_sent_ = std::max(content_sent_, all.content.size());
  reasoning_sent_ = std::max(reasoning_sent_, all.reasoning.size());
  calls_sent_ = std::max(calls_sent_, all.calls.size());
  return out;
}

ParsedReply ToolCallStream::push(std::string_view delta) {
  text_.append(delta);
  return advance(false);
}

ParsedReply ToolCallStream::finish() { return advance(true); }

}  // namespace a3s::power::chat
