// The small fixed world the fuzz target compiles and evaluates against.
#pragma once

#include "expr/tests/fake_vm.h"

namespace jdwpx::expr::testing {

void BuildFuzzWorld(FakeWorld& world);

}  // namespace jdwpx::expr::testing
