#include "expr/tests/test_world.h"

namespace jdwpx::expr::testing {

namespace {
Type Ref_(std::string name) { return Type::Reference(std::move(name)); }
}  // namespace

ExprTest::ExprTest() {
  world.AddClass("demo.Order", {"Order"});
  world.AddClass("demo.MyList", {}, {"java.util.List"});
  world.AddClass("demo.Outer", {"Outer"});
  world.AddClass("demo.Outer$Inner");
  world.AddField("demo.Order", "total", Type::Primitive(Prim::kInt));
  world.AddField("demo.Order", "name", Ref_("java.lang.String"));
  world.AddField("demo.Order", "next", Ref_("demo.Order"));
  world.AddField("demo.Order", "items", Ref_("java.util.List"));
  world.AddField("demo.Order", "label", Ref_("java.lang.Integer"));
  count_field = world.AddField("demo.Order", "count", Type::Primitive(Prim::kInt), true);
  world.SetStatic(count_field, Int(5));
  const FieldInfo limit = world.AddField("demo.Outer$Inner", "LIMIT", Type::Primitive(Prim::kInt), true);
  world.SetStatic(limit, Int(99));

  Ref list = world.NewObject("java.util.ArrayList", true);
  world.Get(list).elements = {Int(1), Int(2), Int(3)};
  Ref mine = world.NewObject("demo.MyList", false);
  world.Get(mine).elements = {Int(1)};
  Ref map = world.NewObject("java.util.HashMap", true);
  world.Get(map).entries = {
      {Object(world.NewString(u"a"), "java.lang.String"), Object(world.NewBox(Prim::kInt, Int(1)), "java.lang.Object")},
      {Object(world.NewBox(Prim::kInt, Int(2)), "java.lang.Integer"), Object(world.NewString(u"two"), "java.lang.Object")},
  };

  first_order = world.NewObject("demo.Order");
  second_order = world.NewObject("demo.Order");
  auto& first = world.Get(first_order).fields;
  first["total"] = Int(100);
  first["name"] = Object(world.NewString(u"first"), "java.lang.String");
  first["next"] = Null("demo.Order");
  first["items"] = Object(list, "java.util.List");
  first["label"] = Object(world.NewBox(Prim::kInt, Int(7)), "java.lang.Integer");
  auto& second = world.Get(second_order).fields;
  second["total"] = Int(5);
  second["name"] = Null("java.lang.String");
  second["next"] = Object(first_order, "demo.Order");
  second["items"] = Object(mine, "java.util.List");
  second["label"] = Null("java.lang.Integer");
  world.SetThis(Ref_("demo.Order"), Object(first_order, "demo.Order"));

  world.SetLocal("i", Type::Primitive(Prim::kInt), Int(7));
  world.SetLocal("j", Type::Primitive(Prim::kLong), Long(10000000000));
  world.SetLocal("f", Type::Primitive(Prim::kFloat), Float(1.5f));
  world.SetLocal("d", Type::Primitive(Prim::kDouble), Double(2.5));
  world.SetLocal("c", Type::Primitive(Prim::kChar), Char(u'x'));
  world.SetLocal("b", Type::Primitive(Prim::kByte), Byte(-3));
  world.SetLocal("sh", Type::Primitive(Prim::kShort), Short(300));
  world.SetLocal("z", Type::Primitive(Prim::kBoolean), Bool(true));
  world.SetLocal("zero", Type::Primitive(Prim::kInt), Int(0));
  world.SetLocal("big", Type::Primitive(Prim::kInt), Int(INT32_MAX));
  world.SetLocal("s", Ref_("java.lang.String"), Object(world.NewString(u"hello"), "java.lang.String"));
  world.SetLocal("empty", Ref_("java.lang.String"), Object(world.NewString(u""), "java.lang.String"));
  world.SetLocal("nul", Ref_("java.lang.String"), Null("java.lang.String"));
  world.SetLocal("arr", Ref_("int[]"), Object(world.NewArray("int[]", {Int(1), Int(2), Int(3)}), "int[]"));
  world.SetLocal("names", Ref_("java.lang.String[]"),
                 Object(world.NewArray("java.lang.String[]", {Object(world.NewString(u"a"), "java.lang.String"),
                                                              Null("java.lang.String")}),
                        "java.lang.String[]"));
  world.SetLocal("order", Ref_("demo.Order"), Object(second_order, "demo.Order"));
  world.SetLocal("nothing", Ref_("demo.Order"), Null("demo.Order"));
  world.SetLocal("list", Ref_("java.util.List"), Object(list, "java.util.List"));
  world.SetLocal("mine", Ref_("java.util.List"), Object(mine, "java.util.List"));
  world.SetLocal("map", Ref_("java.util.Map"), Object(map, "java.util.Map"));
  world.SetLocal("boxed", Ref_("java.lang.Integer"), Object(world.NewBox(Prim::kInt, Int(42)), "java.lang.Integer"));
  world.SetLocal("nullbox", Ref_("java.lang.Integer"), Null("java.lang.Integer"));
  world.SetLocal("dbl", Ref_("java.lang.Double"), Object(world.NewBox(Prim::kDouble, Double(1.5)), "java.lang.Double"));
  world.SetLocal("obj", Ref_("java.lang.Object"), Object(second_order, "java.lang.Object"));
  world.SetLocal("sobj", Ref_("java.lang.Object"), Object(world.NewString(u"hello"), "java.lang.Object"));
}

std::string ExprTest::Show(std::string_view text, int64_t max_steps) {
  auto expression = Expression::Compile(text, scope);
  if (!expression) {
    const Problem& problem = expression.error();
    return "refused: " + problem.message + " [" + std::to_string(problem.begin) + "," + std::to_string(problem.end) + ")";
  }
  auto value = expression->Evaluate(heap, max_steps);
  if (!value) return "error: " + value.error();
  auto text16 = ToJavaString(*value, heap, 1 << 20);
  if (!text16) return "error: " + text16.error();
  return Utf8(*text16);
}

std::string ExprTest::TypeOf(std::string_view text) {
  auto expression = Expression::Compile(text, scope);
  if (!expression) return "refused: " + expression.error().message;
  const Type& type = expression->type();
  switch (type.kind) {
    case Type::Kind::kNull: return "null";
    case Type::Kind::kReference: return type.name;
    case Type::Kind::kPrimitive: break;
  }
  static constexpr const char* kNames[] = {"boolean", "byte", "char", "short", "int", "long", "float", "double"};
  return kNames[static_cast<size_t>(type.prim)];
}

}  // namespace jdwpx::expr::testing
