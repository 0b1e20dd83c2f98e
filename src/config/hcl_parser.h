// Parser for the HCL subset of config files (see hcl_value.h for the reference).
//
// Grammar (newlines are significant in bodies, ignored inside [ ] and between object items):
//   body      := { attribute | block }            items end with a newline, '}' or end of file
//   attribute := NAME '=' value
//   block     := NAME { STRING | NAME } '{' body '}'   ('{' on the same line as NAME)
//   value     := STRING | heredoc | ['-'] NUMBER | true | false | null | list | object
//   list      := '[' [ value { ',' value } [','] ] ']'
//   object    := '{' { key ('=' | ':') value (',' | newline) } '}'   key := NAME | STRING
//
// Strict: a name set twice in one body or one object is an error; only literals are values.
// Nesting deeper than 64 levels is refused.
//
// Errors: Error(codes::kConfig, "file:line:col: message"). Unclosed '{' / '[' (and unclosed blocks)
// are reported at the opening bracket; a missing '=' at the token where it was expected.
#pragma once

#include <string>
#include <string_view>

#include "config/hcl_value.h"

namespace a3s::power::config::hcl {

// Parses a whole source. `file` names it in positions and messages.
Body parse(std::string_view text, const std::string& file);

}  // namespace a3s::power::config::hcl
