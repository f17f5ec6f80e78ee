#include "expr/fuzz/fuzz_world.h"

namespace jdwpx::expr::testing {

void BuildFuzzWorld(FakeWorld& world) {
  world.AddClass("demo.Node", {"Node"});
  world.AddClass("demo.Bag", {}, {"java.util.List"});
  world.AddField("demo.Node", "value", Type::Primitive(Prim::kInt));
  world.AddField("demo.Node", "next", Type::Reference("demo.Node"));
  world.AddField("demo.Node", "name", Type::Reference("java.lang.String"));
  const FieldInfo count = world.AddField("demo.Node", "count", Type::Primitive(Prim::kLong), true);
  world.SetStatic(count, Long(3));
  Ref node = world.NewObject("demo.Node");
  world.Get(node).fields = {{"value", Int(1)}, {"next", Object(node, "demo.Node")}, {"name", Null("java.lang.String")}};
  world.SetThis(Type::Reference("demo.Node"), Object(node, "demo.Node"));
  Ref list = world.NewObject("java.util.ArrayList", true);
  world.Get(list).elements = {Int(1), Int(2)};
  Ref bag = world.NewObject("demo.Bag");
  Ref map = world.NewObject("java.util.HashMap", true);
  world.Get(map).entries = {{Object(world.NewString(u"k"), "java.lang.String"), Object(world.NewString(u"v"), "java.lang.Object")}};
  world.SetLocal("i", Type::Primitive(Prim::kInt), Int(-5));
  world.SetLocal("j", Type::Primitive(Prim::kLong), Long(INT64_MIN));
  world.SetLocal("d", Type::Primitive(Prim::kDouble), Double(-0.0));
  world.SetLocal("f", Type::Primitive(Prim::kFloat), Float(3.25f));
  world.SetLocal("c", Type::Primitive(Prim::kChar), Char(0xD800));
  world.SetLocal("z", Type::Primitive(Prim::kBoolean), Bool(false));
  world.SetLocal("s", Type::Reference("java.lang.String"), Object(world.NewString(u"a\xD800z"), "java.lang.String"));
  world.SetLocal("n", Type::Reference("java.lang.String"), Null("java.lang.String"));
  world.SetLocal("a", Type::Reference("int[]"), Object(world.NewArray("int[]", {Int(4), Int(5)}), "int[]"));
  world.SetLocal("list", Type::Reference("java.util.List"), Object(list, "java.util.List"));
  world.SetLocal("bag", Type::Reference("java.util.List"), Object(bag, "java.util.List"));
  world.SetLocal("map", Type::Reference("java.util.Map"), Object(map, "java.util.Map"));
  world.SetLocal("box", Type::Reference("java.lang.Integer"), Object(world.NewBox(Prim::kInt, Int(9)), "java.lang.Integer"));
  world.SetLocal("o", Type::Reference("java.lang.Object"), Object(node, "java.lang.Object"));
}

}  // namespace jdwpx::expr::testing
