// Static checking: names resolve to locals, then fields of `this`, then
// classes; Java's typing of each operator; refusals with message and offsets.
#include "expr/tests/test_world.h"

namespace jdwpx::expr::testing {
namespace {

using CheckTest = ExprTest;

TEST_F(CheckTest, NamesResolveToLocalsThenFieldsThenClasses) {
  EXPECT_EQ(Show("i"), "7");
  EXPECT_EQ(Show("total"), "100");           // this.total
  EXPECT_EQ(Show("this.total"), "100");
  EXPECT_EQ(Show("count"), "5");             // a static field of this's class
  EXPECT_EQ(Show("Order.count"), "5");
  EXPECT_EQ(Show("demo.Order.count"), "5");
  EXPECT_EQ(Show("Outer.Inner.LIMIT"), "99");  // a nested class with '.'
  EXPECT_EQ(Show("order.next.total"), "100");
  EXPECT_EQ(Show("order.count"), "5");       // a static field through an instance
  EXPECT_EQ(TypeOf("order.name"), "java.lang.String");
  EXPECT_EQ(TypeOf("arr"), "int[]");
  EXPECT_EQ(TypeOf("arr[0]"), "int");
  EXPECT_EQ(TypeOf("names[0]"), "java.lang.String");
}

TEST_F(CheckTest, UnknownNames) {
  EXPECT_EQ(Show("cnt"), "refused: `cnt`: no local variable, field or class of that name at this location [0,3)");
  EXPECT_EQ(Show("i + cnt * 2"),
            "refused: `cnt`: no local variable, field or class of that name at this location [4,7)");
  EXPECT_EQ(Show("com.acme.Foo.X"),
            "refused: `com.acme.Foo.X`: no local variable, field or class of that name at this location [0,14)");
  EXPECT_EQ(Show("order.totl"), "refused: `order.totl`: demo.Order has no field `totl` [0,10)");
  EXPECT_EQ(Show("Order.nope"), "refused: `Order.nope`: demo.Order has no static field `nope` [0,10)");
  EXPECT_EQ(Show("Order.total"),
            "refused: `Order.total`: `total` is an instance field: it needs an object, not a class [0,11)");
  EXPECT_EQ(Show("Order"), "refused: `Order`: a class is not a value [0,5)");
  EXPECT_EQ(Show("i.x"), "refused: `i.x`: int has no fields [0,3)");
  EXPECT_EQ(Show("arr.size"), "refused: `arr.size`: an array has no field but `length` [0,8)");
}

TEST_F(CheckTest, StaticMethodHasNoThis) {
  world.SetStaticMethod("demo.Order");
  EXPECT_EQ(Show("this"), "refused: `this`: there is no `this` in a static method [0,4)");
  EXPECT_EQ(Show("count"), "5");  // the location's class still resolves static fields
  EXPECT_EQ(Show("total"), "refused: `total`: no local variable, field or class of that name at this location [0,5)");
}

TEST_F(CheckTest, NumericPromotion) {
  EXPECT_EQ(TypeOf("b + b"), "int");
  EXPECT_EQ(TypeOf("c + 1"), "int");
  EXPECT_EQ(TypeOf("sh * b"), "int");
  EXPECT_EQ(TypeOf("i + j"), "long");
  EXPECT_EQ(TypeOf("j + f"), "float");
  EXPECT_EQ(TypeOf("f + d"), "double");
  EXPECT_EQ(TypeOf("-b"), "int");
  EXPECT_EQ(TypeOf("~c"), "int");
  EXPECT_EQ(TypeOf("j << i"), "long");
  EXPECT_EQ(TypeOf("i << j"), "int");
  EXPECT_EQ(TypeOf("i < d"), "boolean");
  EXPECT_EQ(TypeOf("z ? i : j"), "long");
  EXPECT_EQ(TypeOf("z ? s : null"), "java.lang.String");
  EXPECT_EQ(TypeOf("z ? s : obj"), "java.lang.Object");
  EXPECT_EQ(TypeOf("boxed + 1"), "int");  // unboxed
  EXPECT_EQ(TypeOf("z ? boxed : 0"), "int");
}

TEST_F(CheckTest, StringConcatenation) {
  EXPECT_EQ(TypeOf("s + 1"), "java.lang.String");
  EXPECT_EQ(TypeOf("1 + s"), "java.lang.String");
  EXPECT_EQ(TypeOf("1 + 2 + s"), "java.lang.String");
  EXPECT_EQ(Show("1 + 2 + s"), "3hello");
  EXPECT_EQ(Show("s + 1 + 2"), "hello12");
}

TEST_F(CheckTest, TypeErrors) {
  EXPECT_EQ(Show("z + 1"), "refused: `z + 1`: `+` needs numbers, not boolean and int [0,5)");
  EXPECT_EQ(Show("i && z"), "refused: `i && z`: `&&` needs booleans, not int and boolean [0,6)");
  EXPECT_EQ(Show("!i"), "refused: `!i`: `!` needs a boolean, not int [0,2)");
  EXPECT_EQ(Show("-z"), "refused: `-z`: `-` needs a number, not boolean [0,2)");
  EXPECT_EQ(Show("~d"), "refused: `~d`: `~` needs an integer, not double [0,2)");
  EXPECT_EQ(Show("d << 1"), "refused: `d << 1`: `<<` needs integers, not double and int [0,6)");
  EXPECT_EQ(Show("z & 1"), "refused: `z & 1`: `&` needs two booleans or two integers, not boolean and int [0,5)");
  EXPECT_EQ(Show("s < s"), "refused: `s < s`: `<` needs numbers, not java.lang.String and java.lang.String [0,5)");
  EXPECT_EQ(Show("i == z"), "refused: `i == z`: `==` cannot compare int with boolean [0,6)");
  EXPECT_EQ(Show("i == s"), "refused: `i == s`: `==` cannot compare int with java.lang.String [0,6)");
  EXPECT_EQ(Show("i ? 1 : 2"), "refused: `i`: the condition of `?:` must be a boolean, not int [0,1)");
  EXPECT_EQ(Show("z ? 1 : s"), "refused: `z ? 1 : s`: the branches of `?:` have incompatible types int and java.lang.String [0,9)");
  EXPECT_EQ(Show("i[0]"), "refused: `i[0]`: `i` is not an array but int [0,4)");
  EXPECT_EQ(Show("arr[j]"), "refused: `j`: an array index must be an int, not long [4,5)");
  EXPECT_EQ(Show("arr[s]"), "refused: `s`: an array index must be an int, not java.lang.String [4,5)");
}

TEST_F(CheckTest, Instanceof) {
  EXPECT_EQ(Show("obj instanceof Order"), "true");
  EXPECT_EQ(Show("obj instanceof demo.Order"), "true");
  EXPECT_EQ(Show("obj instanceof String"), "false");
  EXPECT_EQ(Show("s instanceof CharSequence"), "true");
  EXPECT_EQ(Show("\"made\" instanceof CharSequence"), "true");
  EXPECT_EQ(Show("nothing instanceof Order"), "false");
  EXPECT_EQ(Show("arr instanceof int[]"), "true");
  EXPECT_EQ(Show("obj instanceof Missing"), "refused: `Missing`: no loaded class of that name [15,22)");
  EXPECT_EQ(Show("i instanceof Integer"), "refused: `i instanceof Integer`: instanceof needs an object, not int [0,20)");
  EXPECT_EQ(Show("obj instanceof Order o"),
            "refused: `obj instanceof Order o`: instanceof with a pattern variable is not allowed; probes only read [0,22)");
}

TEST_F(CheckTest, ApplicationCallsAreRefused) {
  EXPECT_EQ(Show("order.total()"), "refused: `order.total()`: calls to application methods are not allowed; probes only read [0,13)");
  EXPECT_EQ(Show("compute(i)"), "refused: `compute(i)`: calls to application methods are not allowed; probes only read [0,10)");
  EXPECT_EQ(Show("order.hashCode()"), "refused: `order.hashCode()`: calls to application methods are not allowed; probes only read [0,16)");
  EXPECT_EQ(Show("order.toString()"), "refused: `order.toString()`: calls to application methods are not allowed; probes only read [0,16)");
  EXPECT_EQ(Show("order.equals(obj)"), "refused: `order.equals(obj)`: calls to application methods are not allowed; probes only read [0,17)");
  EXPECT_EQ(Show("i + Order.create()"), "refused: `Order.create()`: calls to application methods are not allowed; probes only read [4,18)");
  EXPECT_EQ(Show("1 + order.next.total()"),
            "refused: `order.next.total()`: calls to application methods are not allowed; probes only read [4,22)");
}

TEST_F(CheckTest, JdkMethodsOffTheListAreRefused) {
  EXPECT_EQ(Show("s.trim()"),
            "refused: `s.trim()`: java.lang.String.trim is not one of the methods probes may call (docs/probes.md lists them) [0,8)");
  EXPECT_EQ(Show("s.hashCode()"),
            "refused: `s.hashCode()`: java.lang.String.hashCode is not one of the methods probes may call (docs/probes.md lists them) [0,12)");
  EXPECT_EQ(Show("Math.max(1, 2)"),
            "refused: `Math.max(1, 2)`: java.lang.Math.max is not one of the methods probes may call (docs/probes.md lists them) [0,14)");
  EXPECT_EQ(Show("s.charAt(s)"),
            "refused: `s.charAt(s)`: java.lang.String.charAt(java.lang.String) is not one of the methods probes may call (docs/probes.md lists them) [0,11)");
  EXPECT_EQ(Show("s.substring(j)"),
            "refused: `s.substring(j)`: java.lang.String.substring(long) is not one of the methods probes may call (docs/probes.md lists them) [0,14)");
  EXPECT_EQ(Show("list.add(1)"),
            "refused: `list.add(1)`: java.util.List.add is not one of the methods probes may call (docs/probes.md lists them) [0,11)");
  EXPECT_EQ(Show("i.toString()"), "refused: `i.toString()`: int has no methods [0,12)");
  EXPECT_EQ(Show("boxed.booleanValue()"), "refused: `boxed.booleanValue()`: java.lang.Integer.booleanValue does not exist [0,20)");
  EXPECT_EQ(Show("obj.getClass()"),
            "refused: `obj.getClass()`: getClass() may only be followed by getName() or getSimpleName() [0,14)");
}

}  // namespace
}  // namespace jdwpx::expr::testing
