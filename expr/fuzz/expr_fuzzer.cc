// Fuzz target: arbitrary text to Expression::Compile and Template::Compile
// against a small fixed world; whatever compiles is evaluated and printed.
// Besides "no crash, no hang, no deep recursion", a refusal's offsets must lie
// within the text.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "expr/expr.h"
#include "expr/fuzz/fuzz_world.h"

namespace {

using namespace jdwpx::expr;

void CheckProblem(const Problem& problem, size_t size) {
  if (problem.begin > problem.end || problem.end > size || problem.message.empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  testing::FakeWorld world;
  testing::BuildFuzzWorld(world);
  testing::FakeScope scope(world);
  testing::FakeHeap heap(world);
  if (auto expression = Expression::Compile(text, scope)) {
    if (auto value = expression->Evaluate(heap, 1000)) (void)ToJavaString(*value, heap, 64);
  } else {
    CheckProblem(expression.error(), size);
  }
  if (auto compiled = Template::Compile(text, scope)) {
    std::vector<std::string> errors;
    (void)compiled->Format(heap, &errors, 1000);
  } else {
    CheckProblem(compiled.error(), size);
  }
  return 0;
}
