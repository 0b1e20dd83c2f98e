#include "chat/jinja/interpreter.h"

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>

#include "a3s/power/error.h"
#include "chat/jinja/parser.h"

namespace a3s::power::chat::jinja {

const Value* Scope::find(std::string_view name) const {
  for (const Scope* s = this; s != nullptr; s = s->parent.get()) {
    auto it = s->vars.find(name);
    if (it != s->vars.end()) return &it->second;
  }
  return nullptr;
}

void raise_limit(const std::string& what) {
  throw Error(codes::kResourceExhausted, "TemplateLimitError: " + what);
}

void Interpreter::check_size(std::size_t bytes) {
  if (bytes > limits_.max_output_bytes) {
    raise_limit("output larger than " + std::to_string(limits_.max_output_bytes) + " bytes");
  }
}

void Interpreter::count_iterations(std::size_t n) {
  iterations_ += n;
  if (iterations_ > limits_.max_loop_iterations) {
    raise_limit("more than " + std::to_string(limits_.max_loop_iterations) + " loop iterations");
  }
}

void Interpreter::emit(Text& out, const Text& t) {
  written_ += t.text.size();
  check_size(written_);
  out.append(t);
}

namespace {

std::string format_time(const std::tm& tm, std::string_view fmt) {
  std::string f(fmt);
  std::string out(256, '\0');
  for (int attempt = 0; attempt < 4; ++attempt) {
    const std::size_t n = std::strftime(out.data(), out.size(), f.c_str(), &tm);
    if (n > 0 || f.empty()) {
      out.resize(n);
      return out;
    }
    out.resize(out.size() * 4);
  }
  return "";
}

Value builtin_range(Interpreter& in, Args& a) {
  std::int64_t start = 0, stop = 0, step = 1;
  if (a.positional.size() == 1) {
    stop = to_int(a.positional[0], "range");
  } else if (a.positional.size() >= 2) {
    start = to_int(a.positional[0], "range");
    stop = to_int(a.positional[1], "range");
    if (a.positional.size() >= 3) step = to_int(a.positional[2], "range");
  } else {
    raise("TypeError", "range expected at least 1 argument, got 0");
  }
  if (step == 0) raise("ValueError", "range() arg 3 must not be zero");
  List items;
  for (std::int64_t v = start; step > 0 ? v < stop : v > stop;) {
    if (items.size() >= 100000) raise("OverflowError", "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
    items.push_back(Value::integer(v));
    if (__builtin_add_overflow(v, step, &v)) break;
  }
  in.count_iterations(0);
  return Value::make_list(std::move(items));
}

}  // namespace

std::string without_caller_text(const Text& t) {
  std::string out;
  std::size_t pos = 0;
  for (const Span& sp : t.spans) {
    out.append(t.text, pos, sp.begin - pos);
    out += "\u2026";  // …
    pos = sp.end;
  }
  out.append(t.text, pos, std::string::npos);
  return out;
}

Rendered Interpreter::run(const Program& program) {
  globals_ = std::make_shared<Scope>();
  auto& g = globals_->vars;
  g["range"] = Value::function("range", builtin_range);
  g["raise_exception"] = Value::function("raise_exception", [](Interpreter&, Args& a) -> Value {
    const Value* m = a.get(0, "message");
    raise("TemplateError", m != nullptr ? without_caller_text(to_text(*m)) : std::string());
  });
  g["namespace"] = Value::function("namespace", [](Interpreter&, Args& a) {
    Value ns = Value::make_namespace();
    if (!a.positional.empty() && a.positional[0].is_mapping()) {
      for (const auto& [k, v] : a.positional[0].dict->items) ns.dict->set(k, v);
    }
    for (auto& [k, v] : a.keyword) ns.dict->set(Value::str(k), v);
    return ns;
  });
  g["dict"] = Value::function("dict", [](Interpreter&, Args& a) {
    Value d = Value::make_dict();
    if (!a.positional.empty() && a.positional[0].is_mapping()) {
      for (const auto& [k, v] : a.positional[0].dict->items) d.dict->set(k, v);
    }
    for (auto& [k, v] : a.keyword) d.dict->set(Value::str(k), v);
    return d;
  });
  g["strftime_now"] = Value::function("strftime_now", [](Interpreter& in, Args& a) {
    const Value* f = a.get(0, "format");
    if (f == nullptr || !f->is_str()) raise("TypeError", "strftime_now() argument must be str");
    std::tm tm{};
    if (in.context().now) {
      tm = *in.context().now;
    } else {
      const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
      gmtime_r(&t, &tm);
    }
    return Value::str(format_time(tm, f->text()));
  });
  auto root = std::make_shared<Scope>();
  root->parent = globals_;
  for (const auto& [k, v] : context_.variables) root->vars[k] = v;
  Text out;
  if (exec(program.body, root, out) != Flow::kNormal) raise("TemplateSyntaxError", "'break' outside of a loop");
  return Rendered{std::move(out.text), std::move(out.spans)};
}

Value Interpreter::lookup(const std::string& name, const ScopePtr& scope) {
  const Value* v = scope->find(name);
  if (v != nullptr) return *v;
  return Value::undefined("'" + name + "' is undefined");
}

Args Interpreter::eval_args(const Expr& e, std::size_t first, const ScopePtr& scope) {
  Args a;
  for (std::size_t k = first; k < e.items.size(); ++k) a.positional.push_back(eval(*e.items[k], scope));
  for (const auto& [name, x] : e.kwargs) a.keyword.emplace_back(name, eval(*x, scope));
  return a;
}

Value Interpreter::call(const Value& fn, Args& args) {
  if (fn.is_undefined()) raise_undefined(fn);
  if (fn.kind != Value::Kind::kCallable) raise("TypeError", "'" + type_name(fn) + "' object is not callable");
  return fn.callable->fn(*this, args);
}

Value Interpreter::filter(const std::string& name, const Value& subject, Args& args) {
  return apply_filter(*this, name, subject, args);
}

bool Interpreter::test(const std::string& name, const Value& subject, Args& args) {
  return apply_test(*this, name, subject, args);
}

Value Interpreter::apply_filters(const std::vector<ExprPtr>& filters, Value v, const ScopePtr& scope) {
  for (const auto& f : filters) {
    Args a = eval_args(*f, 1, scope);
    v = apply_filter(*this, f->name, v, a);
  }
  return v;
}

Value Interpreter::eval(const Expr& e, const ScopePtr& scope) {
  using EK = Expr::Kind;
  switch (e.kind) {
    case EK::kLiteral:
      return e.lit;
    case EK::kName:
      return lookup(e.name, scope);
    case EK::kList:
    case EK::kTuple: {
      List items;
      for (const auto& x : e.items) items.push_back(eval(*x, scope));
      return e.kind == EK::kList ? Value::make_list(std::move(items)) : Value::make_tuple(std::move(items));
    }
    case EK::kDict: {
      Value d = Value::make_dict();
      for (std::size_t k = 0; k + 1 < e.items.size(); k += 2) {
        Value key = eval(*e.items[k], scope);
        d.dict->set(std::move(key), eval(*e.items[k + 1], scope));
      }
      return d;
    }
    case EK::kAttr: {
      Value obj = eval(*e.items[0], scope);
      if (obj.is_undefined()) raise_undefined(obj);
      return get_attribute(obj, e.name);
    }
    case EK::kSubscript: {
      Value obj = eval(*e.items[0], scope);
      if (obj.is_undefined()) raise_undefined(obj);
      return get_item(obj, eval(*e.items[1], scope));
    }
    case EK::kSlice: {
      Value obj = eval(*e.items[0], scope);
      if (obj.is_undefined()) raise_undefined(obj);
      auto part = [&](std::size_t k) { return e.items[k] ? eval(*e.items[k], scope) : Value::none(); };
      return slice(obj, part(1), part(2), part(3));
    }
    case EK::kCall: {
      Value fn = eval(*e.items[0], scope);
      Args a = eval_args(e, 1, scope);
      return call(fn, a);
    }
    case EK::kFilter: {
      Value subject = eval(*e.items[0], scope);
      Args a = eval_args(e, 1, scope);
      return apply_filter(*this, e.name, subject, a);
    }
    case EK::kTest: {
      Value subject = eval(*e.items[0], scope);
      Args a = eval_args(e, 1, scope);
      return Value::boolean(apply_test(*this, e.name, subject, a) != e.negated);
    }
    case EK::kUnary: {
      Value v = eval(*e.items[0], scope);
      if (e.name == "not") return Value::boolean(!truthy(v));
      if (v.is_undefined()) raise_undefined(v);
      if (v.kind == Value::Kind::kInt || v.kind == Value::Kind::kBool) {
        const std::int64_t x = v.kind == Value::Kind::kBool ? v.b : v.i;
        if (e.name == "-" && x == INT64_MIN) raise_limit("integer result outside the 64-bit range");
        return Value::integer(e.name == "-" ? -x : x);
      }
      if (v.kind == Value::Kind::kFloat) return Value::floating(e.name == "-" ? -v.f : v.f);
      raise("TypeError", "bad operand type for unary " + e.name + ": '" + type_name(v) + "'");
    }
    case EK::kBinary: {
      if (e.name == "and") {
        Value a = eval(*e.items[0], scope);
        return truthy(a) ? eval(*e.items[1], scope) : a;
      }
      if (e.name == "or") {
        Value a = eval(*e.items[0], scope);
        return truthy(a) ? a : eval(*e.items[1], scope);
      }
      Value a = eval(*e.items[0], scope);
      Value b = eval(*e.items[1], scope);
      return binary_op(*this, e.name, a, b);
    }
    case EK::kCompare: {
      Value left = eval(*e.items[0], scope);
      for (std::size_t k = 0; k < e.ops.size(); ++k) {
        Value right = eval(*e.items[k + 1], scope);
        if (!compare(e.ops[k], left, right)) return Value::boolean(false);
        left = std::move(right);
      }
      return Value::boolean(true);
    }
    case EK::kCond: {
      if (truthy(eval(*e.items[0], scope))) return eval(*e.items[1], scope);
      if (e.items[2]) return eval(*e.items[2], scope);
      return Value::undefined("the inline if-expression evaluated to false and no else section was defined.");
    }
  }
  return Value::none();
}

Interpreter::Flow Interpreter::exec(const Body& body, const ScopePtr& scope, Text& out) {
  using SK = Stmt::Kind;
  for (const auto& sp : body) {
    const Stmt& s = *sp;
    switch (s.kind) {
      case SK::kText: {
        Text t;
        t.text = s.text;
        emit(out, t);
        break;
      }
      case SK::kOutput:
        emit(out, to_text(eval(*s.expr, scope)));
        break;
      case SK::kIf: {
        std::size_t k = 0;
        for (; k < s.conds.size(); ++k) {
          if (truthy(eval(*s.conds[k], scope))) break;
        }
        if (k < s.bodies.size()) {
          const Flow f = exec(s.bodies[k], scope, out);
          if (f != Flow::kNormal) return f;
        }
        break;
      }
      case SK::kFor: {
        exec_for(s, scope, out);
        break;
      }
      case SK::kSet:
        exec_set(s, scope, eval(*s.expr, scope));
        break;
      case SK::kSetBlock: {
        Text captured;
        auto inner = scope;
        exec(s.body, inner, captured);
        exec_set(s, scope, apply_filters(s.filters, Value::str(std::move(captured)), scope));
        break;
      }
      case SK::kMacro:
        scope->vars[s.text] = make_macro(s, scope);
        break;
      case SK::kCallBlock: {
        const Expr& c = *s.expr;
        Value fn = eval(*c.items[0], scope);
        Args a = eval_args(c, 1, scope);
        a.keyword.emplace_back("caller", make_macro(s, scope));
        emit(out, to_text(call(fn, a)));
        break;
      }
      case SK::kFilterBlock: {
        Text captured;
        exec(s.body, scope, captured);
        emit(out, to_text(apply_filters(s.filters, Value::str(std::move(captured)), scope)));
        break;
      }
      case SK::kBreak:
        return Flow::kBreak;
      case SK::kContinue:
        return Flow::kContinue;
    }
  }
  return Flow::kNormal;
}

namespace {

void bind_targets(Scope& scope, const std::vector<std::string>& targets, const Value& v) {
  if (targets.size() == 1) {
    scope.vars[targets[0]] = v;
    return;
  }
  if (!v.is_sequence() && !v.is_str() && !v.is_mapping()) {
    raise("TypeError", "cannot unpack non-iterable " + type_name(v) + " object");
  }
  const List items = iterate(v);
  if (items.size() != targets.size()) {
    raise("ValueError", items.size() < targets.size()
                            ? "not enough values to unpack (expected " + std::to_string(targets.size()) +
                                  ", got " + std::to_string(items.size()) + ")"
                            : "too many values to unpack (expected " + std::to_string(targets.size()) + ")");
  }
  for (std::size_t k = 0; k < targets.size(); ++k) scope.vars[targets[k]] = items[k];
}

}  // namespace

Interpreter::Flow Interpreter::exec_for(const Stmt& s, const ScopePtr& scope, Text& out) {
  Value iterable = eval(*s.expr, scope);
  if (iterable.kind == Value::Kind::kNone || iterable.is_number() || iterable.kind == Value::Kind::kCallable ||
      iterable.kind == Value::Kind::kNamespace) {
    raise("TypeError", "'" + type_name(iterable) + "' object is not iterable");
  }
  List items = iterate(iterable);
  auto body_scope = std::make_shared<Scope>();
  body_scope->parent = scope;
  if (s.cond) {
    List kept;
    for (auto& item : items) {
      count_iterations(1);
      bind_targets(*body_scope, s.targets, item);
      if (truthy(eval(*s.cond, body_scope))) kept.push_back(std::move(item));
    }
    items = std::move(kept);
  }
  if (items.empty()) {
    if (!s.else_body.empty()) exec(s.else_body, scope, out);
    return Flow::kNormal;
  }
  const std::size_t n = items.size();
  for (std::size_t k = 0; k < n; ++k) {
    count_iterations(1);
    Value loop = Value::make_dict();
    auto& d = *loop.dict;
    const auto ik = static_cast<std::int64_t>(k);
    const auto in = static_cast<std::int64_t>(n);
    d.items.emplace_back(Value::str("index"), Value::integer(ik + 1));
    d.items.emplace_back(Value::str("index0"), Value::integer(ik));
    d.items.emplace_back(Value::str("revindex"), Value::integer(in - ik));
    d.items.emplace_back(Value::str("revindex0"), Value::integer(in - ik - 1));
    d.items.emplace_back(Value::str("first"), Value::boolean(k == 0));
    d.items.emplace_back(Value::str("last"), Value::boolean(k + 1 == n));
    d.items.emplace_back(Value::str("length"), Value::integer(in));
    d.items.emplace_back(Value::str("depth"), Value::integer(1));
    d.items.emplace_back(Value::str("depth0"), Value::integer(0));
    d.items.emplace_back(Value::str("previtem"),
                         k > 0 ? items[k - 1] : Value::undefined("there is no previous item"));
    d.items.emplace_back(Value::str("nextitem"), k + 1 < n ? items[k + 1] : Value::undefined("there is no next item"));
    d.items.emplace_back(Value::str("cycle"), Value::function("cycle", [k](Interpreter&, Args& a) {
                           if (a.positional.empty()) raise("TypeError", "no items for cycling given");
                           return a.positional[k % a.positional.size()];
                         }));
    body_scope->vars["loop"] = loop;
    bind_targets(*body_scope, s.targets, items[k]);
    const Flow f = exec(s.body, body_scope, out);
    if (f == Flow::kBreak) break;
  }
  return Flow::kNormal;
}

void Interpreter::exec_set(const Stmt& s, const ScopePtr& scope, Value value) {
  if (s.attr_object) {
    Value ns = eval(*s.attr_object, scope);
    if (ns.kind != Value::Kind::kNamespace) {
      raise("TemplateRuntimeError", "cannot assign attribute on non-namespace object");
    }
    ns.dict->set(Value::str(s.targets[0]), std::move(value));
    return;
  }
  bind_targets(*scope, s.targets, value);
}

Value Interpreter::make_macro(const Stmt& s, const ScopePtr& scope) {
  const Stmt* def = &s;
  std::weak_ptr<Scope> weak = scope;  // a macro stored in its own scope must not keep it alive
  return Value::function(s.text, [def, weak](Interpreter& in, Args& a) -> Value {
    ScopePtr parent = weak.lock();
    if (!parent) raise("TemplateRuntimeError", "macro called outside of its template");
    if (++in.depth_ > in.limits_.max_call_depth) {
      --in.depth_;
      raise_limit("macro calls nested deeper than " + std::to_string(in.limits_.max_call_depth));
    }
    struct DepthRestore {
      int& d;
      ~DepthRestore() { --d; }
    } restore{in.depth_};
    auto local = std::make_shared<Scope>();
    local->parent = parent;
    List varargs;
    for (std::size_t k = 0; k < a.positional.size(); ++k) {
      if (k < def->targets.size()) {
        local->vars[def->targets[k]] = a.positional[k];
      } else {
        varargs.push_back(a.positional[k]);
      }
    }
    Value kwargs = Value::make_dict();
    for (auto& [name, v] : a.keyword) {
      bool param = false;
      for (const auto& t : def->targets) param = param || t == name;
      if (param || name == "caller") {
        local->vars[name] = v;
      } else {
        kwargs.dict->set(Value::str(name), v);
      }
    }
    for (std::size_t k = 0; k < def->targets.size(); ++k) {
      if (local->vars.count(def->targets[k]) != 0) continue;
      local->vars[def->targets[k]] = def->defaults[k]
                                         ? in.eval(*def->defaults[k], local)
                                         : Value::undefined("'" + def->targets[k] + "' is undefined");
    }
    local->vars["varargs"] = Value::make_list(std::move(varargs));
    local->vars["kwargs"] = kwargs;
    Text out;
    in.exec(def->body, local, out);
    return Value::str(std::move(out));
  });
}

Template Template::parse(std::string_view source) {
  Template t;
  t.program_ = std::make_shared<const Program>(jinja::parse(source));
  return t;
}

Rendered Template::render(const Context& context, const Limits& limits) const {
  Interpreter in(context, limits);
  return in.run(*program_);
}

Context chat_context(const nlohmann::ordered_json& messages, const nlohmann::ordered_json* tools,
                     bool add_generation_prompt, const std::string& bos_token, const std::string& eos_token) {
  Context c;
  c.variables["messages"] = from_json(messages, true);
  if (tools != nullptr) c.variables["tools"] = from_json(*tools, true);
  c.variables["add_generation_prompt"] = Value::boolean(add_generation_prompt);
  c.variables["bos_token"] = Value::str(bos_token);
  c.variables["eos_token"] = Value::str(eos_token);
  return c;
}

std::optional<std::tm> parse_date(std::string_view ymd) {
  if (ymd.size() != 10 || ymd[4] != '-' || ymd[7] != '-') return std::nullopt;
  auto num = [&](std::size_t at, std::size_t n) {
    int v = 0;
    for (std::size_t k = at; k < at + n; ++k) {
      if (ymd[k] < '0' || ymd[k] > '9') return -1;
      v = v * 10 + (ymd[k] - '0');
    }
    return v;
  };
  const int y = num(0, 4), m = num(5, 2), d = num(8, 2);
  if (y < 0 || m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = m - 1;
  tm.tm_mday = d;
  tm.tm_hour = 0;
  std::tm copy = tm;
  const std::time_t t = timegm(&copy);
  std::tm out{};
  gmtime_r(&t, &out);
  if (out.tm_mday != d) return std::nullopt;
  return out;
}

}  // namespace a3s::power::chat::jinja
