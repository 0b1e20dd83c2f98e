// Value model of the HCL subset used by config files: a body of attributes and blocks, and literal
// values (null, bool, number, string, list, object). Every node carries its source position.
//
// Format reference: HashiCorp HCL native syntax specification (hclsyntax/spec.md): bodies,
// attributes, blocks with labels, tuple/object constructors, numeric and string literals, comments.
// Expressions beyond literals (variables, functions, operators, templates) are not part of this
// subset and are rejected by the parser.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace a3s::power::config::hcl {

// A position in a source: 1-based line and column (column counts bytes).
struct SourcePos {
  std::string file;  // the name used in messages (a path, or "A3S_POWER_X" for env values)
  int line = 0;
  int col = 0;
  // "file:line:col" — the prefix of every message about this position.
  std::string str() const;
};

struct ObjectItem;

// A literal value. Only the member matching `kind` is meaningful.
struct Value {
  enum class Kind { Null, Bool, Int, Float, String, List, Object };

  Kind kind = Kind::Null;
  SourcePos pos;                    // where the value starts
  bool boolean = false;             // Kind::Bool
  int64_t integer = 0;              // Kind::Int: a number written without fraction or exponent
  double number = 0.0;              // Kind::Float (also set for Kind::Int)
  std::string string;               // Kind::String (UTF-8, escapes resolved)
  std::vector<Value> list;          // Kind::List
  std::vector<ObjectItem> object;   // Kind::Object, in source order, keys unique

  bool is_number() const { return kind == Kind::Int || kind == Kind::Float; }
  // Lookup in an object (nullptr if absent or not an object).
  const Value* find(const std::string& key) const;
};

// Human name of a kind for messages: "null", "bool", "integer", "number", "string", "list", "object".
const char* kind_name(Value::Kind kind);

struct ObjectItem {
  std::string key;
  SourcePos key_pos;
  Value value;
};

struct Block;

// `name = value`.
struct Attribute {
  std::string name;
  SourcePos pos;  // of the name
  Value value;
};

// Attributes (names unique within one body) and blocks (repeatable), each in source order.
struct Body {
  std::vector<Attribute> attributes;
  std::vector<Block> blocks;

  const Attribute* find_attribute(const std::string& name) const;
};

// `type "label" ... { body }`.
struct Block {
  std::string type;
  SourcePos pos;  // of the type name
  std::vector<std::string> labels;
  std::vector<SourcePos> label_pos;
  SourcePos open_pos;  // of the '{'
  Body body;
};

// Overwrites every string held in the tree (values, keys, labels) with zeros and clears it, so raw
// secrets such as API keys do not linger in freed memory.
void wipe(Body& body);
void wipe(Value& value);

}  // namespace a3s::power::config::hcl
