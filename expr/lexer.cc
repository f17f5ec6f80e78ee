#include "expr/lexer.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

namespace jdwpx::expr {
namespace {

tl::unexpected<Problem> Refuse(size_t begin, size_t end, std::string message) {
  return tl::unexpected(Problem{begin, end, std::move(message)});
}

Token MakeToken(TokenKind kind, size_t begin, size_t end, std::string_view text) {
  Token token;
  token.kind = kind;
  token.begin = begin;
  token.end = end;
  token.text = std::string(text);
  return token;
}

bool IsIdentStart(unsigned char c) { return std::isalpha(c) || c == '_' || c == '$' || c >= 0x80; }
bool IsIdentPart(unsigned char c) { return IsIdentStart(c) || std::isdigit(c); }

// Longest first, so that ">>>=" is not read as ">>" then ">=".
constexpr std::array<std::string_view, 48> kOperators = {
    ">>>=", "<<=", ">>=", ">>>", "...", "->", "::", "++", "--", "&&", "||", "==", "!=", "<=", ">=",
    "+=",   "-=",  "*=",  "/=",  "%=",  "&=", "|=", "^=", "<<", ">>", "(",  ")",  "[",  "]",  ".",
    ",",    "?",   ":",   "+",   "-",   "*",  "/",  "%",  "<",  ">",  "!",  "~",  "&",  "|",  "^",
    "=",    "@",   ";"};

// Reads one code point of UTF-8 at `pos`; invalid input yields U+FFFD and one byte.
char32_t DecodeUtf8(std::string_view text, size_t& pos) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  int extra = lead < 0x80 ? 0 : (lead >> 5) == 6 ? 1 : (lead >> 4) == 14 ? 2 : (lead >> 3) == 30 ? 3 : -1;
  if (extra < 0 || pos + extra >= text.size() + (extra == 0 ? 1 : 0)) {
    ++pos;
    return extra == 0 ? lead : 0xFFFD;
  }
  char32_t cp = extra == 0 ? lead : lead & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    const auto next = static_cast<unsigned char>(text[pos + k]);
    if ((next & 0xC0) != 0x80) {
      ++pos;
      return 0xFFFD;
    }
    cp = (cp << 6) | (next & 0x3F);
  }
  pos += extra + 1;
  return cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0xFFFD : cp;
}

void AppendUtf16(std::u16string& out, char32_t cp) {
  if (cp < 0x10000) {
    out.push_back(static_cast<char16_t>(cp));
  } else {
    cp -= 0x10000;
    out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
    out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  tl::expected<std::vector<Token>, Problem> Run() {
    std::vector<Token> tokens;
    for (;;) {
      while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      if (pos_ >= text_.size()) break;
      auto token = Next();
      if (!token) return tl::unexpected(token.error());
      tokens.push_back(std::move(*token));
    }
    Token end;
    end.begin = end.end = text_.size();
    tokens.push_back(end);
    return tokens;
  }

 private:
  tl::expected<Token, Problem> Next() {
    const size_t begin = pos_;
    const auto c = static_cast<unsigned char>(text_[pos_]);
    if (std::isdigit(c) || (c == '.' && pos_ + 1 < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
      return Number();
    }
    if (IsIdentStart(c)) {
      while (pos_ < text_.size() && IsIdentPart(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      return MakeToken(TokenKind::kIdentifier, begin, pos_, std::string(text_.substr(begin, pos_ - begin)));
    }
    if (c == '"' || c == '\'') return Quoted(static_cast<char>(c));
    for (std::string_view op : kOperators) {
      if (text_.substr(pos_, op.size()) == op) {
        pos_ += op.size();
        return MakeToken(TokenKind::kOperator, begin, pos_, std::string(op));
      }
    }
    size_t after = pos_;
    DecodeUtf8(text_, after);
    return Refuse(begin, after, "`" + std::string(text_.substr(begin, after - begin)) + "`: unexpected character");
  }

  tl::expected<Token, Problem> Number() {
    const size_t begin = pos_;
    // The literal's extent: digits, letters (radix prefixes, suffixes, exponents), '_', '.',
    // and a sign right after an exponent letter of a decimal number.
    const bool hex_or_binary = text_[pos_] == '0' && pos_ + 1 < text_.size() &&
                               (std::tolower(static_cast<unsigned char>(text_[pos_ + 1])) == 'x' ||
                                std::tolower(static_cast<unsigned char>(text_[pos_ + 1])) == 'b');
    while (pos_ < text_.size()) {
      const auto ch = static_cast<unsigned char>(text_[pos_]);
      if (std::isalnum(ch) || ch == '_' || ch == '.') {
        // `a.length` after a number is not part of it: "1.e" is rare, "x[1].f" is not ours to lex.
        if (ch == '.' && (hex_or_binary ||
                          (pos_ + 1 < text_.size() && !(std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])) ||
                            std::strchr("eEfFdD", text_[pos_ + 1]) || std::isspace(static_cast<unsigned char>(text_[pos_ + 1])) ||
                            std::strchr(")]+-*/%<>=!&|^?:,", text_[pos_ + 1]))))) {
          break;
        }
        ++pos_;
      } else if ((ch == '+' || ch == '-') && !hex_or_binary && pos_ > begin &&
                 (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')) {
        ++pos_;
      } else {
        break;
      }
    }
    const std::string_view written = text_.substr(begin, pos_ - begin);
    std::string digits;
    for (char ch : written) {
      if (ch != '_') digits.push_back(ch);
    }
    auto bad = [&](std::string why) { return Refuse(begin, pos_, "`" + std::string(written) + "`: " + why); };
    if (written.back() == '_' || written.find("_.") != std::string_view::npos ||
        written.find("._") != std::string_view::npos) {
      return bad("an underscore must sit between digits");
    }
    Token token = MakeToken(TokenKind::kInt, begin, pos_, written);
    const char last = static_cast<char>(std::tolower(static_cast<unsigned char>(digits.back())));
    const bool is_float_syntax = !hex_or_binary && (digits.find_first_of(".eE") != std::string::npos ||
                                                    last == 'f' || last == 'd');
    if (is_float_syntax) {
      std::string body = digits;
      token.kind = TokenKind::kDouble;
      if (last == 'f' || last == 'd') {
        token.kind = last == 'f' ? TokenKind::kFloat : TokenKind::kDouble;
        body.pop_back();
      }
      if (!body.empty() && body.back() == '.') body.pop_back();  // "2." is 2.0
      if (body.empty()) return bad("not a number");
      if (token.kind == TokenKind::kFloat) {
        float value = 0;
        auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
        if (ptr != body.data() + body.size()) return bad("not a number");
        if (ec == std::errc::result_out_of_range || std::isinf(value)) return bad("out of float's range");
        token.floating = value;
      } else {
        double value = 0;
        auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
        if (ptr != body.data() + body.size()) return bad("not a number");
        if (ec == std::errc::result_out_of_range || std::isinf(value)) return bad("out of double's range");
        token.floating = value;
      }
      return token;
    }
    std::string body = digits;
    bool is_long = false;
    if (last == 'l') {
      is_long = true;
      body.pop_back();
    }
    token.kind = is_long ? TokenKind::kLong : TokenKind::kInt;
    int radix = 10;
    size_t skip = 0;
    if (hex_or_binary) {
      radix = std::tolower(static_cast<unsigned char>(body[1])) == 'x' ? 16 : 2;
      skip = 2;
    } else if (body.size() > 1 && body[0] == '0') {
      radix = 8;
      skip = 1;
    }
    if (body.size() == skip) return bad("not a number");
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(body.data() + skip, body.data() + body.size(), value, radix);
    if (ptr != body.data() + body.size()) return bad("not a number");
    const uint64_t limit = is_long ? UINT64_MAX : UINT32_MAX;
    if (ec == std::errc::result_out_of_range || value > limit) return bad(is_long ? "too large for a long" : "too large for an int");
    if (radix == 10) {
      const uint64_t max_positive = is_long ? uint64_t{INT64_MAX} : uint64_t{INT32_MAX};
      if (value == max_positive + 1) {
        token.decimal_int_min = true;
      } else if (value > max_positive) {
        return bad(is_long ? "too large for a long" : "too large for an int");
      }
    }
    token.integer = value;
    return token;
  }

  // A char or string literal, escapes decoded to UTF-16.
  tl::expected<Token, Problem> Quoted(char quote) {
    const size_t begin = pos_++;
    std::u16string units;
    for (;;) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        return Refuse(begin, pos_, quote == '"' ? "unclosed string literal" : "unclosed char literal");
      }
      const char ch = text_[pos_];
      if (ch == quote) {
        ++pos_;
        break;
      }
      if (ch != '\\') {
        AppendUtf16(units, DecodeUtf8(text_, pos_));
        continue;
      }
      const size_t escape = pos_++;
      if (pos_ >= text_.size()) return Refuse(escape, pos_, "an escape sequence is cut short");
      const char e = text_[pos_++];
      switch (e) {
        case 'n': units.push_back(u'\n'); break;
        case 't': units.push_back(u'\t'); break;
        case 'b': units.push_back(u'\b'); break;
        case 'r': units.push_back(u'\r'); break;
        case 'f': units.push_back(u'\f'); break;
        case 's': units.push_back(u' '); break;
        case '\'': units.push_back(u'\''); break;
        case '"': units.push_back(u'"'); break;
        case '\\': units.push_back(u'\\'); break;
        case 'u': {
          while (pos_ < text_.size() && text_[pos_] == 'u') ++pos_;
          unsigned value = 0;
          auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + std::min(pos_ + 4, text_.size()), value, 16);
          if (ec != std::errc() || ptr != text_.data() + pos_ + 4) {
            return Refuse(escape, std::min(pos_ + 4, text_.size()), "`\\u` needs four hex digits");
          }
          pos_ += 4;
          units.push_back(static_cast<char16_t>(value));
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            // Octal escape: up to three digits, at most \377.
            unsigned value = static_cast<unsigned>(e - '0');
            const int max_digits = e <= '3' ? 3 : 2;
            for (int k = 1; k < max_digits && pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '7'; ++k) {
              value = value * 8 + static_cast<unsigned>(text_[pos_++] - '0');
            }
            units.push_back(static_cast<char16_t>(value));
            break;
          }
          return Refuse(escape, pos_, "`" + std::string(text_.substr(escape, pos_ - escape)) + "`: not an escape sequence");
      }
    }
    Token token = MakeToken(quote == '"' ? TokenKind::kString : TokenKind::kChar, begin, pos_,
                            text_.substr(begin, pos_ - begin));
    if (quote == '\'' && units.size() != 1) {
      return Refuse(begin, pos_, "`" + token.text + "`: a char literal holds exactly one UTF-16 unit");
    }
    token.chars = std::move(units);
    return token;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

tl::expected<std::vector<Token>, Problem> Tokenize(std::string_view text) {
  if (text.size() > kMaxExpressionLength) {
    return Refuse(0, text.size(), "the expression is longer than " + std::to_string(kMaxExpressionLength) + " characters");
  }
  return Lexer(text).Run();
}

}  // namespace jdwpx::expr
