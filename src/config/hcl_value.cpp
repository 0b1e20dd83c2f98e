#include "config/hcl_value.h"

#include <openssl/crypto.h>

namespace a3s::power::config::hcl {

std::string SourcePos::str() const {
  if (line <= 0) return file;  // environment variables and flags have no line
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

const Value* Value::find(const std::string& key) const {
  if (kind != Kind::Object) return nullptr;
  for (const auto& item : object) {
    if (item.key == key) return &item.value;
  }
  return nullptr;
}

const char* kind_name(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Bool: return "bool";
    case Value::Kind::Int: return "integer";
    case Value::Kind::Float: return "number";
    case Value::Kind::String: return "string";
    case Value::Kind::List: return "list";
    case Value::Kind::Object: return "object";
  }
  return "value";
}

const Attribute* Body::find_attribute(const std::string& name) const {
  for (const auto& a : attributes) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

namespace {

void wipe_string(std::string& s) {
  if (!s.empty()) OPENSSL_cleanse(s.data(), s.size());
  s.clear();
}

}  // namespace

void wipe(Value& value) {
  wipe_string(value.string);
  for (auto& v : value.list) wipe(v);
  for (auto& item : value.object) {
    wipe_string(item.key);
    wipe(item.value);
  }
}

void wipe(Body& body) {
  for (auto& a : body.attributes) wipe(a.value);
  for (auto& b : body.blocks) {
    for (auto& l : b.labels) wipe_string(l);
    wipe(b.body);
  }
}

}  // namespace a3s::power::config::hcl
