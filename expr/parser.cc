#include "expr/parser.h"

#include <algorithm>
#include <array>

#include "expr/lexer.h"

namespace jdwpx::expr {
namespace {

using Node = Expression::Node;
using NodePtr = std::unique_ptr<Node>;
using Parsed = tl::expected<NodePtr, Problem>;

constexpr std::array<std::string_view, 8> kPrimitiveKeywords = {"boolean", "byte", "char", "short",
                                                                "int",     "long", "float", "double"};
constexpr std::array<std::string_view, 12> kAssignments = {"=",  "+=", "-=", "*=",  "/=",  "%=",
                                                           "&=", "|=", "^=", "<<=", ">>=", ">>>="};

bool IsOneOf(std::string_view text, std::span<const std::string_view> set) {
  return std::find(set.begin(), set.end(), text) != set.end();
}

Value LiteralValue(const Token& token) {
  Value value;
  switch (token.kind) {
    case TokenKind::kInt:
      value.type = Type::Primitive(Prim::kInt);
      value.prim.i = static_cast<int32_t>(static_cast<uint32_t>(token.integer));
      break;
    case TokenKind::kLong:
      value.type = Type::Primitive(Prim::kLong);
      value.prim.j = static_cast<int64_t>(token.integer);
      break;
    case TokenKind::kFloat:
      value.type = Type::Primitive(Prim::kFloat);
      value.prim.f = static_cast<float>(token.floating);
      break;
    case TokenKind::kDouble:
      value.type = Type::Primitive(Prim::kDouble);
      value.prim.d = token.floating;
      break;
    case TokenKind::kChar:
      value.type = Type::Primitive(Prim::kChar);
      value.prim.i = token.chars[0];
      break;
    case TokenKind::kString:
      value.type = Type::Reference("java.lang.String");
      value.text = std::make_shared<const std::u16string>(token.chars);
      break;
    default:
      break;
  }
  return value;
}

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens) : text_(text), tokens_(std::move(tokens)) {}

  Parsed Run() {
    for (const Token& token : tokens_) {
      if (token.kind != TokenKind::kOperator) continue;
      if (token.text == "->") return Refuse(token.begin, token.end, "lambdas are not allowed; probes only read");
      if (token.text == "::") return Refuse(token.begin, token.end, "method references are not allowed; probes only read");
    }
    auto root = Conditional();
    if (!root) return root;
    if (Peek().kind != TokenKind::kEnd) return Expected("an operator or the end");
    return root;
  }

 private:
  const Token& Peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  const Token& Take() { return tokens_[std::min(pos_++, tokens_.size() - 1)]; }
  bool IsOperator(std::string_view op, size_t ahead = 0) const {
    return Peek(ahead).kind == TokenKind::kOperator && Peek(ahead).text == op;
  }
  bool IsKeyword(std::string_view word, size_t ahead = 0) const {
    return Peek(ahead).kind == TokenKind::kIdentifier && Peek(ahead).text == word;
  }

  tl::unexpected<Problem> Refuse(size_t begin, size_t end, std::string why) const {
    return tl::unexpected(Problem{begin, end, "`" + std::string(text_.substr(begin, end - begin)) + "`: " + why});
  }
  tl::unexpected<Problem> Expected(std::string_view what) const {
    const Token& token = Peek();
    if (token.kind == TokenKind::kEnd) {
      return tl::unexpected(Problem{token.begin, token.end, "expected " + std::string(what) + " at the end"});
    }
    return Refuse(token.begin, token.end, "expected " + std::string(what));
  }

  // Every node is made here, so that the tree's height is bounded.
  Parsed Make(Node::Kind kind, size_t begin, size_t end, std::vector<NodePtr> children, std::string op = {}) {
    auto node = std::make_unique<Node>();
    node->kind = kind;
    node->begin = begin;
    node->end = end;
    node->op = std::move(op);
    for (const auto& child : children) node->depth = std::max(node->depth, child->depth + 1);
    node->children = std::move(children);
    if (node->depth > kMaxNesting) {
      return Refuse(begin, end, "the expression nests deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    return node;
  }

  // Guards recursion that happens before a node exists (parentheses, unary chains).
  struct DepthGuard {
    explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
    ~DepthGuard() { --depth_; }
    int& depth_;
  };
  bool TooDeep() const { return recursion_ > kMaxNesting; }

  Parsed Conditional() {
    DepthGuard guard(recursion_);
    if (TooDeep()) return Refuse(Peek().begin, Peek().end, "the expression nests deeper than " + std::to_string(kMaxNesting) + " levels");
    auto condition = Binary(0);
    if (!condition) return condition;
    if (Peek().kind == TokenKind::kOperator && IsOneOf(Peek().text, kAssignments)) {
      const size_t operator_end = Take().end;
      auto value = Conditional();  // only for the refusal to name the whole assignment
      return Refuse((*condition)->begin, value ? (*value)->end : operator_end,
                    "assignment is not allowed; probes only read");
    }
    if (!IsOperator("?")) return condition;
    Take();
    auto then = Conditional();
    if (!then) return then;
    if (!IsOperator(":")) return Expected("`:`");
    Take();
    auto otherwise = Conditional();
    if (!otherwise) return otherwise;
    const size_t begin = (*condition)->begin, end = (*otherwise)->end;
    std::vector<NodePtr> children;
    children.push_back(std::move(*condition));
    children.push_back(std::move(*then));
    children.push_back(std::move(*otherwise));
    return Make(Node::Kind::kConditional, begin, end, std::move(children));
  }

  // Binary operators by precedence, loosest first.
  static constexpr std::array<std::array<std::string_view, 4>, 10> kLevels = {{
      {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">="}, {"<<", ">>", ">>>"},
      {"+", "-"}, {"*", "/", "%"},
  }};
  static constexpr size_t kRelationalLevel = 6;

  // The precedence level of the binary operator at the cursor, if there is one.
  std::optional<size_t> OperatorLevel() const {
    if (IsKeyword("instanceof")) return kRelationalLevel;
    if (Peek().kind != TokenKind::kOperator) return std::nullopt;
    for (size_t level = 0; level < kLevels.size(); ++level) {
      for (std::string_view op : kLevels[level]) {
        if (!op.empty() && Peek().text == op) return level;
      }
    }
    return std::nullopt;
  }

  // Precedence climbing: one frame per operator of rising precedence, not one
  // per level, so that nesting costs little stack.
  Parsed Binary(size_t min_level) {
    auto left = Unary();
    if (!left) return left;
    for (;;) {
      const auto level = OperatorLevel();
      if (!level || *level < min_level) return left;
      if (IsKeyword("instanceof")) {
        Take();
        const size_t type_begin = Peek().begin;
        auto type = TypeName();
        if (!type) return tl::unexpected(type.error());
        if (Peek().kind == TokenKind::kIdentifier) {
          return Refuse((*left)->begin, Peek().end, "instanceof with a pattern variable is not allowed; probes only read");
        }
        const size_t begin = (*left)->begin;
        std::vector<NodePtr> children;
        children.push_back(std::move(*left));
        auto node = Make(Node::Kind::kInstanceof, begin, type->second, std::move(children));
        if (!node) return node;
        (*node)->name = type->first;
        (*node)->name_begin = type_begin;
        left = std::move(node);
        continue;
      }
      const std::string op = Take().text;
      auto right = Binary(*level + 1);  // left-associative: equal precedence binds to the left
      if (!right) return right;
      const size_t begin = (*left)->begin, end = (*right)->end;
      std::vector<NodePtr> children;
      children.push_back(std::move(*left));
      children.push_back(std::move(*right));
      left = Make(Node::Kind::kBinary, begin, end, std::move(children), op);
      if (!left) return left;
    }
  }

  // A type after instanceof: a qualified name, or a primitive, with [] pairs. Returns it and its end.
  tl::expected<std::pair<std::string, size_t>, Problem> TypeName() {
    if (Peek().kind != TokenKind::kIdentifier) return Expected("a type name");
    std::string name = Take().text;
    size_t end = tokens_[pos_ - 1].end;
    while (IsOperator(".") && Peek(1).kind == TokenKind::kIdentifier) {
      Take();
      name += "." + Take().text;
      end = tokens_[pos_ - 1].end;
    }
    while (IsOperator("[") && IsOperator("]", 1)) {
      Take();
      end = Take().end;
      name += "[]";
    }
    if (IsOperator("<")) return Expected("no type arguments (generic types are not supported)");
    return std::make_pair(name, end);
  }

  Parsed Unary() {
    const Token& token = Peek();
    if (token.kind == TokenKind::kOperator && (token.text == "++" || token.text == "--")) {
      DepthGuard guard(recursion_);
      if (TooDeep()) return Refuse(token.begin, token.end, "the expression nests deeper than " + std::to_string(kMaxNesting) + " levels");
      const size_t begin = Take().begin;
      auto operand = Unary();
      return Refuse(begin, operand ? (*operand)->end : token.end, "++ and -- are not allowed; probes only read");
    }
    if (token.kind == TokenKind::kOperator &&
        (token.text == "-" || token.text == "+" || token.text == "!" || token.text == "~")) {
      // A unary operator recurses before its node exists: each counts as a level.
      DepthGuard guard(recursion_);
      if (TooDeep()) return Refuse(token.begin, token.end, "the expression nests deeper than " + std::to_string(kMaxNesting) + " levels");
      const Token op = Take();
      // -2147483648 and -9223372036854775808L are the only places those literals may stand.
      if (op.text == "-" && Peek().decimal_int_min) {
        const Token& literal = Take();
        return Literal(op.begin, literal, true);
      }
      auto operand = Unary();
      if (!operand) return operand;
      const size_t end = (*operand)->end;
      std::vector<NodePtr> children;
      children.push_back(std::move(*operand));
      return Make(Node::Kind::kUnary, op.begin, end, std::move(children), op.text);
    }
    return Postfix();
  }

  Parsed Literal(size_t begin, const Token& token, bool negated) {
    if (token.decimal_int_min && !negated) {
      return Refuse(token.begin, token.end, token.kind == TokenKind::kLong ? "too large for a long" : "too large for an int");
    }
    auto node = Make(Node::Kind::kLiteral, begin, token.end, {});
    if (!node) return node;
    (*node)->value = LiteralValue(token);  // the bits of 2^31 / 2^63 are the minimum already
    return node;
  }

  Parsed Postfix() {
    auto node = Primary();
    if (!node) return node;
    for (;;) {
      if (IsOperator(".")) {
        Take();
        if (Peek().kind != TokenKind::kIdentifier) return Expected("a name after `.`");
        const Token& name = Take();
        if (name.text == "new" || name.text == "class" || name.text == "this" || name.text == "super") {
          return Refuse((*node)->begin, name.end, "`." + name.text + "` is not supported");
        }
        const size_t begin = (*node)->begin;
        std::vector<NodePtr> children;
        children.push_back(std::move(*node));
        if (IsOperator("(")) {
          node = Call(begin, name.text, std::move(children), true);
        } else {
          node = Make(Node::Kind::kMember, begin, name.end, std::move(children));
          if (node) (*node)->name = name.text;
        }
        if (!node) return node;
      } else if (IsOperator("[")) {
        Take();
        auto index = Conditional();
        if (!index) return index;
        if (!IsOperator("]")) return Expected("`]`");
        const size_t begin = (*node)->begin, end = Take().end;
        std::vector<NodePtr> children;
        children.push_back(std::move(*node));
        children.push_back(std::move(*index));
        node = Make(Node::Kind::kIndex, begin, end, std::move(children));
        if (!node) return node;
      } else if (IsOperator("++") || IsOperator("--")) {
        return Refuse((*node)->begin, Peek().end, "++ and -- are not allowed; probes only read");
      } else {
        return node;
      }
    }
  }

  // `(args)` after a method name; `children` holds the receiver, if any.
  Parsed Call(size_t begin, std::string name, std::vector<NodePtr> children, bool has_receiver) {
    Take();  // (
    if (!IsOperator(")")) {
      for (;;) {
        auto argument = Conditional();
        if (!argument) return argument;
        children.push_back(std::move(*argument));
        if (IsOperator(",")) {
          Take();
          continue;
        }
        break;
      }
    }
    if (!IsOperator(")")) return Expected("`)` or `,`");
    const size_t end = Take().end;
    auto node = Make(Node::Kind::kCall, begin, end, std::move(children));
    if (node) {
      (*node)->name = std::move(name);
      (*node)->op = has_receiver ? "." : "";
    }
    return node;
  }

  // The end of a `new ...` expression, for the refusal to name it: the first
  // bracketed group after `new`, to its matching close.
  size_t EndOfNew() {
    size_t end = Peek().end;
    while (Peek().kind == TokenKind::kIdentifier || IsOperator(".") || IsOperator("<") || IsOperator(">") ||
           IsOperator(",")) {
      end = Take().end;
    }
    int open = 0;
    do {
      if (Peek().kind == TokenKind::kEnd) break;
      const Token& token = Take();
      if (token.kind == TokenKind::kOperator && (token.text == "(" || token.text == "[")) ++open;
      if (token.kind == TokenKind::kOperator && (token.text == ")" || token.text == "]")) --open;
      end = token.end;
    } while (open > 0);
    return end;
  }

  // After a parenthesized expression: does what follows make it a cast, `(Type) x`?
  bool StartsCastOperand() const {
    const Token& token = Peek();
    if (token.kind == TokenKind::kEnd) return false;
    if (token.kind == TokenKind::kIdentifier) return token.text != "instanceof";
    if (token.kind != TokenKind::kOperator) return true;  // a literal
    return token.text == "(" || token.text == "!" || token.text == "~";
  }

  static bool IsQualifiedName(const Node& node) {
    if (node.kind == Node::Kind::kName) return true;
    return node.kind == Node::Kind::kMember && IsQualifiedName(*node.children[0]);
  }

  Parsed Primary() {
    const Token& token = Peek();
    switch (token.kind) {
      case TokenKind::kEnd:
        return Expected("an expression");
      case TokenKind::kInt:
      case TokenKind::kLong:
      case TokenKind::kFloat:
      case TokenKind::kDouble:
      case TokenKind::kChar:
      case TokenKind::kString: {
        const Token& literal = Take();
        return Literal(literal.begin, literal, false);
      }
      case TokenKind::kIdentifier:
        return NamePrimary();
      case TokenKind::kOperator:
        break;
    }
    if (token.text != "(") return Expected("an expression");
    const size_t begin = Take().begin;
    if (Peek().kind == TokenKind::kIdentifier && IsOneOf(Peek().text, kPrimitiveKeywords)) {
      while (Peek().kind != TokenKind::kEnd && !IsOperator(")")) Take();
      if (Peek().kind != TokenKind::kEnd) Take();
      auto operand = Unary();
      return Refuse(begin, operand ? (*operand)->end : Peek().begin, "casts are not allowed");
    }
    auto inner = Conditional();
    if (!inner) return inner;
    if (!IsOperator(")")) return Expected("`)`");
    const size_t end = Take().end;
    if (IsQualifiedName(**inner) && StartsCastOperand()) {
      auto operand = Unary();
      return Refuse(begin, operand ? (*operand)->end : end, "casts are not allowed");
    }
    // Parentheses leave no node; the extent grows to include them.
    (*inner)->begin = begin;
    (*inner)->end = end;
    return inner;
  }

  Parsed NamePrimary() {
    const Token& token = Take();
    const std::string& word = token.text;
    if (word == "true" || word == "false") {
      auto node = Make(Node::Kind::kLiteral, token.begin, token.end, {});
      if (node) {
        (*node)->value.type = Type::Primitive(Prim::kBoolean);
        (*node)->value.prim.z = word == "true";
      }
      return node;
    }
    if (word == "null") {
      auto node = Make(Node::Kind::kLiteral, token.begin, token.end, {});
      if (node) (*node)->value.type = Type::Null();
      return node;
    }
    if (word == "this") return Make(Node::Kind::kThis, token.begin, token.end, {});
    if (word == "new") {
      const size_t end = EndOfNew();
      return Refuse(token.begin, end, "constructors (`new`) are not allowed; probes only read");
    }
    if (word == "super") return Refuse(token.begin, token.end, "`super` is not supported");
    if (IsOneOf(word, kPrimitiveKeywords) || word == "instanceof" || word == "class" || word == "switch" ||
        word == "void") {
      return Refuse(token.begin, token.end, "expected an expression");
    }
    if (IsOperator("(")) return Call(token.begin, word, {}, false);
    auto node = Make(Node::Kind::kName, token.begin, token.end, {});
    if (node) (*node)->name = word;
    return node;
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int recursion_ = 0;
};

}  // namespace

tl::expected<std::unique_ptr<Expression::Node>, Problem> Parse(std::string_view text) {
  auto tokens = Tokenize(text);
  if (!tokens) return tl::unexpected(tokens.error());
  return Parser(text, std::move(*tokens)).Run();
}

}  // namespace jdwpx::expr
