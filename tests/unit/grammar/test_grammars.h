// Grammars shared by the grammar tests.
#pragma once

namespace a3s::power::grammar::test {

// Every JSON value (RFC 8259): objects, arrays, strings with escapes (any code point but '"', '\'
// and controls raw), numbers, literals, whitespace around and between tokens.
inline constexpr const char* kJsonGrammar = R"g(# JSON (RFC 8259)
root    ::= ws value ws
value   ::= object | array | string | number | "true" | "false" | "null"
object  ::= "{" ws ( member ( ws "," ws member )* ws )? "}"
member  ::= string ws ":" ws value
array   ::= "[" ws ( value ( ws "," ws value )* ws )? "]"
string  ::= "\"" char* "\""
char    ::= [^"\\\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} )
number  ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
ws      ::= [ \t\n\r]*
)g";

// Arithmetic over integers and names, with precedence written without left recursion.
inline constexpr const char* kExpressionGrammar = R"g(
root   ::= expr
expr   ::= term ( [-+] term )*
term   ::= factor ( [*/] factor )*
factor ::= [0-9]+ | [a-z] [a-z0-9]* | "(" expr ")" | "-" factor
)g";

}  // namespace a3s::power::grammar::test
