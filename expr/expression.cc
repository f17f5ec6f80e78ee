// Expression: parse, check, then evaluate the shared immutable tree.
#include "expr/checker.h"
#include "expr/evaluator.h"
#include "expr/parser.h"

namespace jdwpx::expr {

tl::expected<Expression, Problem> Expression::Compile(std::string_view text, const Scope& scope) {
  auto root = Parse(text);
  if (!root) return tl::unexpected(root.error());
  if (auto checked = Check(**root, scope, text); !checked) return tl::unexpected(checked.error());
  Expression expression;
  expression.root_ = std::shared_ptr<const Node>(std::move(*root));
  expression.text_ = std::string(text);
  return expression;
}

Result<Value> Expression::Evaluate(Heap& heap, int64_t max_steps) const {
  if (!root_) return tl::unexpected(std::string("no expression"));
  return EvaluateTree(*root_, text_, heap, max_steps);
}

const Type& Expression::type() const {
  static const Type kNone;
  return root_ ? root_->type : kNone;
}

const std::string& Expression::text() const { return text_; }

}  // namespace jdwpx::expr
