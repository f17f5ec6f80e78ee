// The world most expr tests run against: an application class demo.Order,
// locals of every primitive type, strings, arrays, JDK and application
// collections. `Show` compiles, evaluates and prints as a template hole would.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "expr/expr.h"
#include "expr/tests/fake_vm.h"

namespace jdwpx::expr::testing {

class ExprTest : public ::testing::Test {
 public:
  // "refused: <message> [begin,end)", "error: <message>", or the value as Java prints it.
  std::string Show(std::string_view text, int64_t max_steps = 10000);
  // The static type's name, or "refused: ..." for an expression the checker refuses.
  std::string TypeOf(std::string_view text);

 protected:
  ExprTest();

  FakeWorld world;
  FakeScope scope{world};
  FakeHeap heap{world};
  Ref first_order = nullptr;   // `this`
  Ref second_order = nullptr;  // the local `order`
  FieldInfo count_field;       // demo.Order.count, static
};

}  // namespace jdwpx::expr::testing
