// The allow-list: String's methods natively, boxed values through their
// `value` field, getClass().getName(), and JDK collections through Heap::Call
// only when the run-time class is a known boot class.
#include "expr/tests/test_world.h"

#include "expr/allowed_methods.h"

namespace jdwpx::expr::testing {
namespace {

using MethodsTest = ExprTest;

TEST_F(MethodsTest, StringMethodsRunNatively) {
  EXPECT_EQ(Show("s.length()"), "5");
  EXPECT_EQ(Show("s.isEmpty()"), "false");
  EXPECT_EQ(Show("empty.isEmpty()"), "true");
  EXPECT_EQ(Show("s.charAt(1)"), "e");
  EXPECT_EQ(Show("s.charAt(1) + 0"), "101");
  EXPECT_EQ(Show("s.equals(\"hello\")"), "true");
  EXPECT_EQ(Show("s.equals(sobj)"), "true");
  EXPECT_EQ(Show("s.equals(obj)"), "false");
  EXPECT_EQ(Show("s.equals(null)"), "false");
  EXPECT_EQ(Show("s.equals(5)"), "false");
  EXPECT_EQ(Show("\"hello\".equals(s)"), "true");
  EXPECT_EQ(Show("s.startsWith(\"he\")"), "true");
  EXPECT_EQ(Show("s.endsWith(\"lo\")"), "true");
  EXPECT_EQ(Show("s.contains(\"ell\")"), "true");
  EXPECT_EQ(Show("s.contains(\"xyz\")"), "false");
  EXPECT_EQ(Show("s.indexOf(\"l\")"), "2");
  EXPECT_EQ(Show("s.indexOf('o')"), "4");
  EXPECT_EQ(Show("s.indexOf(108)"), "2");
  EXPECT_EQ(Show("s.indexOf(\"z\")"), "-1");
  EXPECT_EQ(Show("\"a\\uD83D\\uDE00b\".indexOf(128512)"), "1");  // a supplementary code point
  EXPECT_EQ(Show("s.substring(1)"), "ello");
  EXPECT_EQ(Show("s.substring(1, 3)"), "el");
  EXPECT_EQ(Show("s.substring(5)"), "");
  EXPECT_EQ(Show("(s + \"!\").length()"), "6");
  EXPECT_EQ(Show("order.next.name.length()"), "5");
  EXPECT_TRUE(world.calls.empty());  // no Java code ran
}

TEST_F(MethodsTest, StringsAreReadOnlyAsFarAsNeeded) {
  Ref long_string = world.NewString(std::u16string(100000, u'a'));
  world.SetLocal("long_text", Type::Reference("java.lang.String"), Object(long_string, "java.lang.String"));
  EXPECT_EQ(Show("long_text.startsWith(\"aa\")"), "true");
  EXPECT_EQ(world.string_units_read, 2);
  EXPECT_EQ(Show("long_text.isEmpty()"), "false");
  EXPECT_EQ(world.string_units_read, 3);
  EXPECT_EQ(Show("long_text.length()"), "100000");  // the whole string where the answer needs it
  EXPECT_EQ(world.string_units_read, 100003);
  EXPECT_EQ(Show("long_text.equals(s)"), "false");
  EXPECT_EQ(Show("long_text.endsWith(\"ab\")"), "false");
}

TEST_F(MethodsTest, StringMethodErrors) {
  EXPECT_EQ(Show("s.charAt(5)"), "error: `s.charAt(5)`: index 5 out of bounds for length 5");
  EXPECT_EQ(Show("s.substring(6)"), "error: `s.substring(6)`: begin 6, end 5, length 5");
  EXPECT_EQ(Show("s.substring(3, 2)"), "error: `s.substring(3, 2)`: begin 3, end 2, length 5");
  EXPECT_EQ(Show("nul.length()"), "error: `nul.length()`: nul is null");
  EXPECT_EQ(Show("s.startsWith(nul)"), "error: `s.startsWith(nul)`: nul is null");
}

TEST_F(MethodsTest, BoxedValues) {
  EXPECT_EQ(Show("boxed.intValue()"), "42");
  EXPECT_EQ(Show("boxed.longValue() * 3"), "126");
  EXPECT_EQ(Show("boxed.doubleValue()"), "42.0");
  EXPECT_EQ(Show("boxed.byteValue()"), "42");
  EXPECT_EQ(Show("dbl.intValue()"), "1");
  EXPECT_EQ(Show("dbl.floatValue()"), "1.5");
  EXPECT_EQ(Show("boxed.equals(42)"), "true");
  EXPECT_EQ(Show("boxed.equals(42L)"), "false");  // a Long is never equal to an Integer
  EXPECT_EQ(Show("boxed.equals(boxed)"), "true");
  EXPECT_EQ(Show("boxed.equals(label)"), "false");
  EXPECT_EQ(Show("boxed.equals(s)"), "false");
  EXPECT_EQ(Show("boxed.equals(null)"), "false");
  EXPECT_EQ(Show("label"), "7");        // printed as its value
  EXPECT_EQ(Show("\"n=\" + label"), "n=7");
  EXPECT_EQ(Show("nullbox.intValue()"), "error: `nullbox.intValue()`: nullbox is null");
  EXPECT_EQ(TypeOf("boxed.shortValue()"), "short");
}

TEST_F(MethodsTest, ClassNames) {
  EXPECT_EQ(Show("order.getClass().getName()"), "demo.Order");
  EXPECT_EQ(Show("obj.getClass().getSimpleName()"), "Order");
  EXPECT_EQ(Show("list.getClass().getName()"), "java.util.ArrayList");
  EXPECT_EQ(Show("\"x\".getClass().getName()"), "java.lang.String");
  EXPECT_EQ(Show("arr.getClass().getName()"), "int[]");
  EXPECT_EQ(Show("nothing.getClass().getName()"), "error: `nothing.getClass().getName()`: nothing is null");
  EXPECT_TRUE(world.calls.empty());
}

TEST_F(MethodsTest, JdkCollectionsAreCalled) {
  EXPECT_EQ(Show("list.size()"), "3");
  EXPECT_EQ(Show("list.isEmpty()"), "false");
  EXPECT_EQ(Show("items.size()"), "3");
  EXPECT_EQ(Show("map.size()"), "2");
  EXPECT_EQ(Show("map.get(\"a\")"), "1");  // an Integer, printed through its intValue
  EXPECT_EQ(Show("map.get(2)"), "two");
  EXPECT_EQ(Show("map.get(\"zz\")"), "null");
  EXPECT_EQ(Show("map.containsKey(\"a\")"), "true");
  EXPECT_EQ(Show("map.containsKey(s)"), "false");
  EXPECT_EQ(Show("map.get(\"a\") == null"), "false");
  EXPECT_EQ(world.calls, (std::vector<std::string>{
                             "java/util/Collection.size", "java/util/Collection.isEmpty", "java/util/Collection.size",
                             "java/util/Map.size", "java/util/Map.get", "java/lang/Integer.intValue", "java/lang/Integer.valueOf", "java/util/Map.get",
                             "java/util/Map.get", "java/util/Map.containsKey", "java/util/Map.containsKey",
                             "java/util/Map.get"}));
  EXPECT_EQ(TypeOf("map.get(\"a\")"), "java.lang.Object");
}

TEST_F(MethodsTest, ApplicationCollectionsAreNotCalled) {
  EXPECT_EQ(Show("mine.size()"), "error: size() of demo.MyList is not called: not a JDK collection");
  EXPECT_EQ(Show("order.items.isEmpty()"), "error: isEmpty() of demo.MyList is not called: not a JDK collection");
  EXPECT_TRUE(world.calls.empty());
  // A JDK collection's name on a class the boot loader did not load is not trusted.
  Ref fake = world.NewObject("java.util.ArrayList", false);
  world.SetLocal("impostor", Type::Reference("java.util.List"), Object(fake, "java.util.List"));
  EXPECT_EQ(Show("impostor.size()"), "error: size() of java.util.ArrayList is not called: not a JDK collection");
  EXPECT_TRUE(world.calls.empty());
}

TEST_F(MethodsTest, UnmodifiableWrappersAreFollowedToWhatTheyWrap) {
  Ref safe = world.NewObject("java.util.Collections$UnmodifiableList", true);
  world.Get(safe).fields["c"] = world.Get(first_order).fields["items"];  // an ArrayList
  Ref unsafe = world.NewObject("java.util.Collections$UnmodifiableList", true);
  world.Get(unsafe).fields["c"] = world.Get(second_order).fields["items"];  // a demo.MyList
  Ref twice = world.NewObject("java.util.Collections$UnmodifiableList", true);
  world.Get(twice).fields["c"] = Object(unsafe, "java.util.Collection");
  world.SetLocal("safe", Type::Reference("java.util.List"), Object(safe, "java.util.List"));
  world.SetLocal("unsafe", Type::Reference("java.util.List"), Object(unsafe, "java.util.List"));
  world.SetLocal("twice", Type::Reference("java.util.List"), Object(twice, "java.util.List"));
  EXPECT_EQ(Show("safe.size()"), "3");
  EXPECT_EQ(Show("unsafe.size()"), "error: size() of demo.MyList is not called: not a JDK collection");
  EXPECT_EQ(Show("twice.isEmpty()"), "error: isEmpty() of demo.MyList is not called: not a JDK collection");
  EXPECT_EQ(world.calls, std::vector<std::string>{"java/util/Collection.size"});
  // Where the Scope cannot name the wrapper's field, the wrapper is not trusted.
  world.fields.erase("java.util.Collections$UnmodifiableCollection");
  EXPECT_EQ(Show("safe.size()"),
            "error: size() of java.util.Collections$UnmodifiableList is not called: the collection it wraps cannot be read here");
}

TEST_F(MethodsTest, TreeMapLookupsOnlyWithoutAComparator) {
  Ref natural = world.NewObject("java.util.TreeMap", true);
  world.Get(natural).fields["comparator"] = Null("java.util.Comparator");
  world.Get(natural).entries = {{Object(world.NewString(u"k"), "java.lang.String"), Object(world.NewString(u"v"), "java.lang.Object")}};
  Ref sorted = world.NewObject("java.util.TreeMap", true);
  world.Get(sorted).fields["comparator"] = Object(world.NewObject("demo.ByLength"), "java.util.Comparator");
  world.SetLocal("natural", Type::Reference("java.util.Map"), Object(natural, "java.util.Map"));
  world.SetLocal("sorted", Type::Reference("java.util.Map"), Object(sorted, "java.util.Map"));
  EXPECT_EQ(Show("natural.get(\"k\")"), "v");
  EXPECT_EQ(Show("sorted.get(\"k\")"), "error: get() of java.util.TreeMap is not called: its comparator is application code");
  EXPECT_EQ(Show("sorted.containsKey(\"k\")"),
            "error: containsKey() of java.util.TreeMap is not called: its comparator is application code");
  EXPECT_EQ(Show("sorted.size()"), "0");  // size runs no comparator
}

TEST_F(MethodsTest, MapKeysMustBeStringsOrBoxes) {
  EXPECT_EQ(Show("map.get(order)"),
            "error: get() with a key of demo.Order is not called: only String and boxed keys (another key's "
            "hashCode/equals would run application code)");
  EXPECT_EQ(Show("map.containsKey(obj)"),
            "error: containsKey() with a key of demo.Order is not called: only String and boxed keys (another key's "
            "hashCode/equals would run application code)");
  EXPECT_EQ(Show("map.get(boxed)"), "null");
  EXPECT_EQ(Show("map.get(sobj)"), "null");
}

TEST_F(MethodsTest, SafeCollectionList) {
  for (const char* name : {"java.util.ArrayList", "java.util.HashMap", "java.util.TreeMap", "java.util.ArrayDeque",
                           "java.util.concurrent.ConcurrentHashMap", "java.util.Arrays$ArrayList",
                           "java.util.ImmutableCollections$ListN", "java.util.ImmutableCollections$Map1",
                           "java.util.Collections$UnmodifiableRandomAccessList", "java.util.Collections$EmptyMap",
                           "java.util.Collections$SingletonList"}) {
    EXPECT_TRUE(IsSafeJdkCollection(name)) << name;
  }
  for (const char* name : {"java.util.Collections$SynchronizedList", "java.util.concurrent.LinkedBlockingQueue",
                           "java.util.WeakHashMap", "demo.MyList", "java.util.ArrayListX"}) {
    EXPECT_FALSE(IsSafeJdkCollection(name)) << name;
  }
}

}  // namespace
}  // namespace jdwpx::expr::testing
