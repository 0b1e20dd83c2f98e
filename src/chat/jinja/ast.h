// The syntax tree of a parsed template: expressions and statements.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/jinja/value.h"

namespace a3s::power::chat::jinja {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct Expr {
  enum class Kind {
    kLiteral,    // lit
    kName,       // name
    kList,       // items
    kTuple,      // items
    kDict,       // items: key, value, key, value, …
    kAttr,       // items[0] . name
    kSubscript,  // items[0] [ items[1] ]
    kSlice,      // items[0] [ items[1] : items[2] : items[3] ] (null parts allowed)
    kCall,       // items[0] ( items[1..], kwargs )
    kFilter,     // items[0] | name ( items[1..], kwargs ); items[0] null inside a filter block
    kTest,       // items[0] is [not] name ( items[1..] )
    kUnary,      // op items[0]: "-", "+", "not"
    kBinary,     // items[0] op items[1]: + - * / // % ** ~ and or
    kCompare,    // items[0] ops[0] items[1] ops[1] items[2] …: == != < <= > >= in notin
    kCond,       // items[1] if items[0] else items[2] (items[2] may be null)
  };
  Kind kind = Kind::kLiteral;
  Value lit;
  std::string name;  // name, attribute, filter, test, or operator
  std::vector<ExprPtr> items;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  std::vector<std::string> ops;
  bool negated = false;
  int line = 0;
  int col = 0;
};

struct Stmt {
  enum class Kind {
    kText,        // text
    kOutput,      // {{ expr }}
    kIf,          // conds[i] → bodies[i]; bodies.size() == conds.size() + 1 when there is an else
    kFor,         // targets in expr [if cond] body [else else_body]
    kSet,         // targets (names) or attr target (expr = namespace, name) = value
    kSetBlock,    // {% set targets[0] | filters %} body {% endset %}
    kMacro,       // name(params = defaults) body
    kCallBlock,   // {% call(params) expr %} body
    kFilterBlock, // {% filter filters %} body
    kBreak,
    kContinue,
  };
  Kind kind = Kind::kText;
  std::string text;
  ExprPtr expr;  // output, for iterable, set value, call expression
  ExprPtr cond;  // for … if
  std::vector<ExprPtr> conds;
  std::vector<Body> bodies;
  Body body;
  Body else_body;
  std::vector<std::string> targets;
  ExprPtr attr_object;  // set ns.attr = …: the namespace expression; targets[0] is the attribute
  std::vector<ExprPtr> defaults;  // macro / call block parameters' defaults (null = none)
  std::vector<ExprPtr> filters;   // set block / filter block: kFilter chain (items[0] null)
  bool recursive = false;
  int line = 0;
  int col = 0;
};

struct Program {
  Body body;
};

}  // namespace a3s::power::chat::jinja
