// The tree-walking evaluator behind Template::render (internal to the jinja folder).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "chat/jinja/ast.h"
#include "chat/jinja/template.h"

namespace a3s::power::chat::jinja {

struct Scope {
  std::map<std::string, Value, std::less<>> vars;
  std::shared_ptr<Scope> parent;
  const Value* find(std::string_view name) const;
};
using ScopePtr = std::shared_ptr<Scope>;

class Interpreter {
 public:
  Interpreter(const Context& context, const Limits& limits) : context_(context), limits_(limits) {}
  Rendered run(const Program& program);

  Value eval(const Expr& e, const ScopePtr& scope);
  // Calls a callable value (macro, builtin, bound method).
  Value call(const Value& fn, Args& args);
  Value filter(const std::string& name, const Value& subject, Args& args);
  bool test(const std::string& name, const Value& subject, Args& args);
  // A string built by a builtin: checked against the output cap.
  void check_size(std::size_t bytes);
  void count_iterations(std::size_t n);
  const Context& context() const { return context_; }

 // Used by macros (the callables that make_macro builds) as well.
  enum class Flow { kNormal, kBreak, kContinue };
  Flow exec(const Body& body, const ScopePtr& scope, Text& out);
  Flow exec_for(const Stmt& s, const ScopePtr& scope, Text& out);
  void exec_set(const Stmt& s, const ScopePtr& scope, Value value);
  Value make_macro(const Stmt& s, const ScopePtr& scope);
  Value lookup(const std::string& name, const ScopePtr& scope);
  Value apply_filters(const std::vector<ExprPtr>& filters, Value v, const ScopePtr& scope);
  Args eval_args(const Expr& e, std::size_t first, const ScopePtr& scope);
  void emit(Text& out, const Text& t);

  const Context& context_;
  const Limits& limits_;
  std::size_t written_ = 0;
  std::size_t iterations_ = 0;
  int depth_ = 0;
  ScopePtr globals_;
};

// Builtins (filters.cpp, tests.cpp, methods.cpp, operators.cpp).
// `name_shown`: false when the name is a value the template computed (select's, reject's or map's
// argument), which may come from a message: an unknown name is then not quoted in the error.
Value apply_filter(Interpreter& in, const std::string& name, const Value& subject, Args& args, bool name_shown = true);
bool apply_test(Interpreter& in, const std::string& name, const Value& subject, Args& args, bool name_shown = true);
Value get_attribute(const Value& obj, std::string_view name);  // obj.name (methods included)
Value get_item(const Value& obj, const Value& key);            // obj[key]
Value slice(const Value& obj, const Value& start, const Value& stop, const Value& step);
Value binary_op(Interpreter& in, const std::string& op, const Value& a, const Value& b);
bool compare(const std::string& op, const Value& a, const Value& b);
bool contains(const Value& haystack, const Value& needle);
[[noreturn]] void raise_limit(const std::string& what);
// Python str methods helpers shared by filters and methods.
Text strip_text(const Text& t, bool left, bool right, const Value* chars);
std::string upper(std::string_view s);
std::string lower(std::string_view s);
std::string title(std::string_view s);
std::string capitalize(std::string_view s);
// A result derived from inputs by a transformation: marked whole when any input was marked.
Value derived(std::string text, bool marked);
std::int64_t to_int(const Value& v, std::string_view what);
// Text for an error message: every caller span replaced with "…".
std::string without_caller_text(const Text& t);

}  // namespace a3s::power::chat::jinja
