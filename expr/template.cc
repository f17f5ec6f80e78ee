// Template: literal text with {expression} holes; "{{" and "}}" are braces.
#include <algorithm>

#include "expr/expr.h"
#include "expr/java_string.h"

namespace jdwpx::expr {
namespace {

// Where the hole opened at `open` closes: the first `}` outside a string or
// char literal (expressions have no braces of their own); npos if none.
size_t HoleEnd(std::string_view text, size_t open) {
  char quote = 0;
  for (size_t k = open + 1; k < text.size(); ++k) {
    const char c = text[k];
    if (quote) {
      if (c == '\\') {
        ++k;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '}') {
      return k;
    }
  }
  return std::string_view::npos;
}

// How much of a string value a log line shows.
constexpr size_t kMaxValueUnits = 256;

}  // namespace

tl::expected<Template, Problem> Template::Compile(std::string_view text, const Scope& scope) {
  Template compiled;
  std::string literal;
  size_t k = 0;
  while (k < text.size()) {
    const char c = text[k];
    if (c == '}') {
      if (k + 1 < text.size() && text[k + 1] == '}') {
        literal.push_back('}');
        k += 2;
        continue;
      }
      return tl::unexpected(Problem{k, k + 1, "`}`: a lone `}`; write `}}` for a brace"});
    }
    if (c != '{') {
      literal.push_back(c);
      ++k;
      continue;
    }
    if (k + 1 < text.size() && text[k + 1] == '{') {
      literal.push_back('{');
      k += 2;
      continue;
    }
    const size_t close = HoleEnd(text, k);
    if (close == std::string_view::npos) {
      const size_t shown = std::min(text.size(), k + 20);
      return tl::unexpected(Problem{k, text.size(), "`" + std::string(text.substr(k, shown - k)) + "`: unclosed `{`"});
    }
    const std::string_view source = text.substr(k + 1, close - k - 1);
    if (source.find_first_not_of(" \t\n\r") == std::string_view::npos) {
      return tl::unexpected(Problem{k, close + 1, "`{}`: an empty hole; write `{{}}` for braces"});
    }
    auto hole = Expression::Compile(source, scope);
    if (!hole) {
      Problem problem = hole.error();
      problem.begin += k + 1;
      problem.end += k + 1;
      return tl::unexpected(std::move(problem));
    }
    compiled.parts_.push_back(Part{std::move(literal), std::move(*hole)});
    literal.clear();
    k = close + 1;
  }
  if (!literal.empty()) compiled.parts_.push_back(Part{std::move(literal), std::nullopt});
  return compiled;
}

std::string Template::Format(Heap& heap, std::vector<std::string>* errors, int64_t max_steps) const {
  std::string out;
  for (const Part& part : parts_) {
    out += part.literal;
    if (!part.hole) continue;
    auto value = part.hole->Evaluate(heap, max_steps);
    Result<std::u16string> text = value ? ToJavaString(*value, heap, kMaxValueUnits) : tl::unexpected(value.error());
    if (text) {
      out += Utf8(*text);
    } else {
      out += "<error: " + text.error() + ">";
      if (errors) errors->push_back(text.error());
    }
  }
  return out;
}

}  // namespace jdwpx::expr
