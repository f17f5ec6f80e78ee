// backend/probes inside a real JVM: loaded with -agentpath (its option: the
// path of ProbeFixture.java) and -cp naming the fixture's classes, this agent
// sets a breakpoint at each "BREAK:<case>" line of the fixture (and at
// NoDebug.work's entry), calls ProbeFixture.run from VMInit, and in each
// Breakpoint callback builds a JvmtiScope, a JniHeap and a snapshot there and
// checks what they read. Prints one line per check and "N passed, M failed";
// exits 0 only when every check passed and every case ran.
#include <jni.h>
#include <jvmti.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backend/probes/java_names.h"
#include "backend/probes/live_locals.h"
#include "backend/probes/probe_heap.h"
#include "backend/probes/probe_scope.h"
#include "backend/probes/snapshot.h"
#include "expr/java_string.h"
#include "hotspot/interpreter_frame.h"
#include "vmcore/jvmti.h"
#include "vmcore/refs.h"

namespace {

using jdwpx::backend::probes::CaptureSnapshot;
using jdwpx::backend::probes::FrameSlots;
using jdwpx::backend::probes::JniHeap;
using jdwpx::backend::probes::JvmtiScope;
using jdwpx::backend::probes::LiveLocals;
using jdwpx::backend::probes::SnapshotLimits;
using jdwpx::jdwp::Probe::NodeKind;
using Node = jdwpx::jdwp::Probe::Snapshot::Node;
namespace expr = jdwpx::expr;

jvmtiEnv* g_env = nullptr;
std::string g_source;  // ProbeFixture.java
int g_passed = 0;
int g_failed = 0;
std::map<std::pair<jmethodID, jlocation>, std::string> g_breakpoints;
std::set<std::string> g_cases_run;

void Check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  std::fflush(stdout);
  (ok ? g_passed : g_failed)++;
}

[[noreturn]] void Finish() {
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  std::fflush(stdout);
  std::_Exit(g_failed == 0 ? 0 : 1);
}

std::string Show(const Node& n) {
  std::ostringstream out;
  out << std::string(n.depth * 2, ' ') << static_cast<char>(n.kind) << " " << n.name << " : " << n.type;
  if (!n.text.empty()) out << " = " << (n.text.size() > 20 ? n.text.substr(0, 20) + "..." : n.text);
  if (n.length) out << " (" << n.length << ")";
  return out.str();
}

// Exact node lists; on a difference, both lists are printed.
void CheckNodes(const std::vector<Node>& got, const std::vector<Node>& want, const std::string& what) {
  bool same = got.size() == want.size();
  for (size_t i = 0; same && i < got.size(); ++i) {
    const Node& a = got[i];
    const Node& b = want[i];
    same = a.depth == b.depth && a.kind == b.kind && a.name == b.name && a.type == b.type && a.text == b.text &&
           a.length == b.length;
  }
  Check(same, what);
  if (same) return;
  std::printf("  got:\n");
  for (const Node& n : got) std::printf("    %s\n", Show(n).c_str());
  std::printf("  want:\n");
  for (const Node& n : want) std::printf("    %s\n", Show(n).c_str());
}

Node N(int depth, NodeKind kind, std::string name, std::string type, std::string text = {}, int32_t length = 0) {
  return Node{static_cast<uint8_t>(depth), kind, std::move(name), std::move(type), std::move(text), length};
}

std::string Text(JniHeap& heap, const expr::Value& value, size_t max_units = 1000) {
  if (!value.ref) return "<null>";
  auto text = heap.StringText(value.ref, max_units);
  return text ? jdwpx::expr::Utf8(*text) : "<error: " + text.error() + ">";
}

expr::Value LocalValue(const JvmtiScope& scope, JniHeap& heap, const char* name) {
  auto info = scope.Local(name);
  if (!info) return expr::Value{};
  auto value = heap.Local(*info);
  return value ? *value : expr::Value{};
}

expr::Value FieldValue(const JvmtiScope& scope, JniHeap& heap, expr::Ref object, const char* klass, const char* name) {
  auto info = scope.Field(klass, name);
  if (!info) return expr::Value{};
  auto value = heap.GetField(info->is_static ? nullptr : object, *info);
  return value ? *value : expr::Value{};
}

void ExpressionCase(const JvmtiScope& scope, JniHeap& heap);

// The hitting frame read straight from the stack (hotspot/interpreter_frame.h),
// and JniHeap's use of it once a slot has agreed with the walk (frame_slots.h).
void FrameStraightFromTheStack(const jdwpx::vmcore::Jvmti& jvmti, JNIEnv* jni, jthread thread, const JvmtiScope& scope,
                               JniHeap& first_heap, jlocation location) {
  auto slot = [&](const char* name) { return scope.Local(name) ? scope.Local(name)->slot : -1; };
  const auto* frames = jdwpx::hotspot::InterpreterFrames::Get(jni);
  Check(frames != nullptr, "frame: InterpreterFrames knows this VM's layout (vmStructs, x86_64)");
  if (!frames) return;
  const auto bci = static_cast<int32_t>(location);
  auto shape = frames->Learn(jni, bci);
  Check(shape.has_value() && !frames->Learn(jni, bci + 1) && !frames->Learn(jni, bci - 1),
        "frame: its shape is learnt at the breakpoint's bci, and not at the bci before or after");
  auto frame = shape ? frames->Top(jni, *shape) : std::nullopt;
  Check(frame && frame->max_locals() > slot("custom"), "frame: Top finds it, with every local's slot");
  if (!frame) return;
  Check(static_cast<int32_t>(frame->SlotBits(slot("i"))) == 123456 &&
            static_cast<int64_t>(frame->SlotBits(slot("j") + 1)) == (int64_t{1} << 40) &&
            static_cast<int16_t>(frame->SlotBits(slot("s"))) == 300 &&
            static_cast<int8_t>(frame->SlotBits(slot("b"))) == -5,
        "frame: slots read i == 123456, j == 1 << 40 (second slot), s == 300, b == -5");
  jobject text = frame->Object(jni, slot("text"));
  Check(text && jni->GetStringLength(static_cast<jstring>(text)) == 5, "frame: the String slot text reads a 5-char string");
  jobject self = frame->Object(jni, 0);
  auto this_by_jvmti = jvmti.GetLocalInstance(thread, 0);
  Check(self && this_by_jvmti && jni->IsSameObject(self, *this_by_jvmti), "frame: slot 0 is JVMTI's `this`");
  jdwpx::hotspot::FrameShape other = *shape;
  other.bcp = static_cast<const char*>(other.bcp) + 1;
  Check(!frames->Top(jni, other), "frame: Top refuses a shape of another bci");

  // The heap of this hit read every slot through the walk and checked it.
  FrameSlots& slots = scope.frame_slots();
  Check(slots.Of(slot("i")) == FrameSlots::Verdict::kPrimitive && slots.Of(slot("d")) == FrameSlots::Verdict::kPrimitive &&
            slots.Of(slot("text")) == FrameSlots::Verdict::kObject,
        "frame: after one hit's reads, i and d are trusted as primitives, text as an object");
  Check(first_heap.This() && slots.Of(0) == FrameSlots::Verdict::kObject, "frame: after Heap::This, slot 0 as an object");
  // A later hit's heap reads them from the frame: the same values.
  JniHeap heap(jvmti, jni, thread, scope);
  Check(LocalValue(scope, heap, "i").prim.i == 123456 && LocalValue(scope, heap, "j").prim.j == (int64_t{1} << 40) &&
            LocalValue(scope, heap, "f").prim.f == 1.5f && LocalValue(scope, heap, "d").prim.d == 2.25 &&
            LocalValue(scope, heap, "z").prim.z && LocalValue(scope, heap, "c").prim.i == 'x',
        "frame: a second heap reads i j f d z c from the frame");
  Check(Text(heap, LocalValue(scope, heap, "text")) == "h\xc3\xa9llo", "frame: a second heap reads text from the frame");
  auto again = heap.This();
  Check(again && self && jni->IsSameObject(static_cast<jobject>(again->ref), self), "frame: a second heap's `this`");

  // A slot asked for as the other kind (an int slot as an object) is refused,
  // and never read from the frame at this place.
  auto fresh = JvmtiScope::Make(jvmti, jni, scope.method(), location);
  if (!fresh) return;
  JniHeap wrong(jvmti, jni, thread, **fresh);
  auto as_object = wrong.Local(expr::LocalInfo{slot("i"), expr::Type::Reference("java.lang.String")});
  Check(!as_object && (*fresh)->frame_slots().Of(slot("i")) == FrameSlots::Verdict::kRefused,
        "frame: an int slot asked for as an object is an error and refused for good: " +
            (as_object ? std::string("a value") : as_object.error()));
}

void PrimitivesCase(const jdwpx::vmcore::Jvmti& jvmti, JNIEnv* jni, jthread thread, jmethodID method,
                    jlocation location) {
  auto made = JvmtiScope::Make(jvmti, jni, method, location);
  Check(made.has_value(), "primitives: JvmtiScope::Make");
  if (!made) return;
  const JvmtiScope& scope = **made;
  Check(scope.has_locals(), "primitives: the method has a local variable table");
  Check(scope.location_class() == "probefix.ProbeFixture", "primitives: location class");

  auto type_of = [&](const char* name) { auto l = scope.Local(name); return l ? l->type : expr::Type::Null(); };
  Check(type_of("z") == expr::Type::Primitive(expr::Prim::kBoolean) &&
            type_of("c") == expr::Type::Primitive(expr::Prim::kChar) &&
            type_of("j") == expr::Type::Primitive(expr::Prim::kLong) &&
            type_of("text") == expr::Type::Reference("java.lang.String") &&
            type_of("array") == expr::Type::Reference("int[]") &&
            type_of("list") == expr::Type::Reference("java.util.List"),
        "primitives: Scope::Local types (boolean, char, long, String, int[], List)");
  Check(!scope.Local("this") && !scope.Local("nosuch"), "primitives: `this` and unknown names are no locals");
  Check(scope.This() == expr::Type::Reference("probefix.ProbeFixture"), "primitives: Scope::This");

  // The walk that JniHeap reads locals from fills the innermost frame alone
  // on the JDKs tested (17 and 25), and reads the real values there.
  LiveLocals live;
  Check(live.Read(jni, "primitives", static_cast<int32_t>(location)) && live.direct(),
        "primitives: LiveLocals reads the frame through the one-frame walk");
  auto slot = [&](const char* name) { return scope.Local(name) ? scope.Local(name)->slot : -1; };
  Check(live.Primitive(jni, slot("i"), false) == std::optional<int64_t>(123456) &&
            live.Primitive(jni, slot("j"), true) == std::optional<int64_t>(int64_t{1} << 40) &&
            live.Primitive(jni, slot("s"), false) == std::optional<int64_t>(300),
        "primitives: LiveLocals reads i == 123456, j == 1 << 40 (second slot), s == 300");
  jobject text = nullptr;
  Check(live.Object(jni, slot("text"), text) && text && jni->GetStringLength(static_cast<jstring>(text)) == 5 &&
            !live.Object(jni, slot("i"), text),
        "primitives: LiveLocals reads the String local text (5 chars); an int slot is no object");
  Check(!live.Read(jni, "primitives", static_cast<int32_t>(location) + 1) &&
            !live.Read(jni, "capture", static_cast<int32_t>(location)),
        "primitives: LiveLocals refuses another bci or another method's name");

  // A snapshot's walk fills several frames at once (more than the walk's
  // first batch of 7) and each is checked against JVMTI's frame.
  Check(live.Walk(jni, 12) >= 2 && live.direct() && live.Select(jni, 0, "primitives", static_cast<int32_t>(location)) &&
            !live.Select(jni, 1, "primitives", static_cast<int32_t>(location)),
        "primitives: LiveLocals walks several frames at once and selects the one asked for");

  // A snapshot reads every kind of primitive local through that walk.
  auto snapshot = CaptureSnapshot(jvmti, jni, thread, SnapshotLimits{});
  auto text_of = [&](size_t frame, const std::string& name) -> std::string {
    if (frame >= snapshot.size()) return "<no frame>";
    for (const auto& n : snapshot[frame].values)
      if (n.depth == 0 && n.name == name) return n.text;
    return "<none>";
  };
  Check(text_of(0, "z") == "true" && text_of(0, "b") == "-5" && text_of(0, "c") == "x" && text_of(0, "s") == "300" &&
            text_of(0, "i") == "123456" && text_of(0, "j") == "1099511627776" && text_of(0, "f") == "1.5" &&
            text_of(0, "d") == "2.25" && text_of(0, "text") == "h\xc3\xa9llo",
        "primitives: the snapshot's frame 0 reads z b c s i j f d text: " + text_of(0, "z") + " " + text_of(0, "b") + " " +
            text_of(0, "c") + " " + text_of(0, "s") + " " + text_of(0, "i") + " " + text_of(0, "j") + " " +
            text_of(0, "f") + " " + text_of(0, "d") + " " + text_of(0, "text"));
  Check(snapshot.size() >= 2 && snapshot[1].method == "run" &&
            (text_of(1, "withVirtualThread") == "true" || text_of(1, "withVirtualThread") == "false"),
        "primitives: the snapshot's frame 1 (run) reads its boolean parameter: " + text_of(1, "withVirtualThread"));

  JniHeap heap(jvmti, jni, thread, scope);
  Check(LocalValue(scope, heap, "z").prim.z == true, "primitives: boolean local z == true");
  Check(LocalValue(scope, heap, "b").prim.i == -5, "primitives: byte local b == -5");
  Check(LocalValue(scope, heap, "c").prim.i == 'x', "primitives: char local c == 'x'");
  Check(LocalValue(scope, heap, "s").prim.i == 300, "primitives: short local s == 300");
  Check(LocalValue(scope, heap, "i").prim.i == 123456, "primitives: int local i == 123456");
  Check(LocalValue(scope, heap, "j").prim.j == (int64_t{1} << 40), "primitives: long local j == 1 << 40");
  Check(LocalValue(scope, heap, "f").prim.f == 1.5f, "primitives: float local f == 1.5");
  Check(LocalValue(scope, heap, "d").prim.d == 2.25, "primitives: double local d == 2.25");
  Check(Text(heap, LocalValue(scope, heap, "text")) == "h\xc3\xa9llo", "primitives: String local text reads \"h\u00e9llo\"");
  Check(Text(heap, LocalValue(scope, heap, "text"), 2) == "h\xc3\xa9", "primitives: StringText cut at 2 units");
  auto bad_slot = heap.Local(expr::LocalInfo{200, expr::Type::Primitive(expr::Prim::kInt)});
  Check(!bad_slot && bad_slot.error().find("INVALID_SLOT") != std::string::npos,
        "primitives: a slot that does not exist is an error naming INVALID_SLOT");

  auto self = heap.This();
  Check(self && self->ref && self->type == expr::Type::Reference("probefix.ProbeFixture"), "primitives: Heap::This");
  expr::Ref me = self ? self->ref : nullptr;
  Check(Text(heap, FieldValue(scope, heap, me, "probefix.ProbeFixture", "name")) == "fixture",
        "primitives: private field this.name == \"fixture\"");
  auto secret = scope.Field("probefix.ProbeFixture", "baseSecret");
  Check(secret && secret->declaring_class == "probefix.Base" && !secret->is_static,
        "primitives: inherited private field baseSecret is declared by probefix.Base");
  Check(FieldValue(scope, heap, me, "probefix.ProbeFixture", "baseSecret").prim.i == 99,
        "primitives: inherited private field baseSecret == 99");
  auto counter = scope.Field("probefix.ProbeFixture", "counter");
  Check(counter && counter->is_static && FieldValue(scope, heap, nullptr, "probefix.ProbeFixture", "counter").prim.i == 7,
        "primitives: static field ProbeFixture.counter == 7");
  auto tag = scope.Field("probefix.ProbeFixture", "TAG");
  Check(tag && tag->is_static && tag->declaring_class == "probefix.Tagged" &&
            Text(heap, FieldValue(scope, heap, nullptr, "probefix.ProbeFixture", "TAG")) == "tagged",
        "primitives: an interface's static field TAG == \"tagged\" (declared by probefix.Tagged)");
  Check(!scope.Field("probefix.ProbeFixture", "nosuch"), "primitives: an unknown field is none");
  int32_t my_hash = FieldValue(scope, heap, me, "probefix.ProbeFixture", "myHash").prim.i;
  Check(heap.IdentityHash(me) == my_hash, "primitives: IdentityHash == System.identityHashCode");
  auto null_field = heap.GetField(nullptr, *secret);
  Check(!null_field, "primitives: an instance field of null is an error");

  FrameStraightFromTheStack(jvmti, jni, thread, scope, heap, location);

  expr::Value array = LocalValue(scope, heap, "array");
  auto length = heap.ArrayLength(array.ref);
  Check(length && *length == 3, "primitives: array.length == 3");
  auto element = heap.ArrayElement(array.ref, 1, expr::Type::Primitive(expr::Prim::kInt));
  Check(element && element->prim.i == 20, "primitives: array[1] == 20");
  auto outside = heap.ArrayElement(array.ref, 3, expr::Type::Primitive(expr::Prim::kInt));
  Check(!outside && outside.error() == "index 3 out of bounds for length 3", "primitives: array[3] is an error");

  Check(scope.Class("Node") == std::optional<std::string>("probefix.ProbeFixture$Node"),
        "primitives: Class(Node) is the place's nested class");
  Check(scope.Class("ProbeFixture.Node") == std::optional<std::string>("probefix.ProbeFixture$Node"),
        "primitives: Class(ProbeFixture.Node) through the package");
  Check(scope.Class("probefix.ProbeFixture$Node") == std::optional<std::string>("probefix.ProbeFixture$Node"),
        "primitives: Class(probefix.ProbeFixture$Node) fully qualified");
  Check(scope.Class("Base") == std::optional<std::string>("probefix.Base"), "primitives: Class(Base) in the package");
  Check(scope.Class("String") == std::optional<std::string>("java.lang.String"), "primitives: Class(String) in java.lang");
  Check(scope.Class("java.util.Map.Entry") == std::optional<std::string>("java.util.Map$Entry"),
        "primitives: Class(java.util.Map.Entry) with '.'");
  Check(scope.Class("String[]") == std::optional<std::string>("java.lang.String[]"), "primitives: Class(String[])");
  Check(!scope.Class("NoSuchClass") && !scope.Class("int"), "primitives: Class of an unknown name or a primitive is none");
  Check(!scope.Class("NeverLoaded") && !scope.Class("probefix.NeverLoaded"),
        "primitives: Class of a class not loaded (yet) is none: nothing is loaded for a probe");
  Check(scope.IsSubtype("probefix.ProbeFixture", "probefix.Base") && scope.IsSubtype("java.util.ArrayList", "java.util.List") &&
            scope.IsSubtype("probefix.ProbeFixture", "probefix.Tagged") && !scope.IsSubtype("java.util.List", "java.util.ArrayList"),
        "primitives: IsSubtype (superclass, interface, not the other way)");

  expr::Value list = LocalValue(scope, heap, "list");
  expr::Value map = LocalValue(scope, heap, "map");
  Check(heap.RuntimeClass(list.ref) == "java.util.ArrayList" && heap.RuntimeClass(array.ref) == "int[]" &&
            heap.RuntimeClass(me) == "probefix.ProbeFixture",
        "primitives: RuntimeClass (java.util.ArrayList, int[], probefix.ProbeFixture)");
  Check(heap.IsBootClass(list.ref) && !heap.IsBootClass(me), "primitives: IsBootClass (ArrayList yes, the fixture no)");
  Check(heap.InstanceOf(list.ref, "java.util.List") && heap.InstanceOf(list.ref, "java.util.Collection") &&
            !heap.InstanceOf(list.ref, "java.util.Map") && heap.InstanceOf(me, "probefix.Tagged") &&
            heap.InstanceOf(map.ref, "java.util.AbstractMap") && !heap.InstanceOf(nullptr, "java.lang.Object"),
        "primitives: InstanceOf");
  Check(heap.SameObject(me, me) && !heap.SameObject(me, list.ref) && heap.SameObject(nullptr, nullptr), "primitives: SameObject");

  auto size = heap.Call(expr::MethodRef{"java/util/Collection", "size", "()I"}, list.ref, {},
                        expr::Type::Primitive(expr::Prim::kInt));
  Check(size && size->prim.i == 2, "primitives: Call ArrayList.size() == 2");
  auto key = heap.NewString(u"k");
  Check(key.has_value(), "primitives: NewString");
  expr::Value key_value = jdwpx::backend::probes::ReferenceValue(static_cast<jobject>(key ? *key : nullptr),
                                                                 expr::Type::Reference("java.lang.String"));
  auto got = heap.Call(expr::MethodRef{"java/util/Map", "get", "(Ljava/lang/Object;)Ljava/lang/Object;"}, map.ref,
                       std::span<const expr::Value>(&key_value, 1), expr::Type::Reference("java.lang.Object"));
  Check(got && heap.RuntimeClass(got->ref) == "java.lang.Integer", "primitives: Call HashMap.get(\"k\") is an Integer");
  auto int_value = got ? heap.Call(expr::MethodRef{"java/lang/Integer", "intValue", "()I"}, got->ref, {},
                                   expr::Type::Primitive(expr::Prim::kInt))
                       : expr::Result<expr::Value>(tl::unexpected(std::string("no value")));
  Check(int_value && int_value->prim.i == 42, "primitives: ... whose intValue() == 42");
  expr::Value made_key;  // a string the expression made: the heap makes the Java string
  made_key.type = expr::Type::Reference("java.lang.String");
  made_key.text = std::make_shared<const std::u16string>(u"k");
  auto got_by_text = heap.Call(expr::MethodRef{"java/util/Map", "containsKey", "(Ljava/lang/Object;)Z"}, map.ref,
                               std::span<const expr::Value>(&made_key, 1), expr::Type::Primitive(expr::Prim::kBoolean));
  Check(got_by_text && got_by_text->prim.z, "primitives: Call HashMap.containsKey with an expression's own string");

  expr::Value five;
  five.type = expr::Type::Primitive(expr::Prim::kInt);
  five.prim.i = 5;
  auto thrown = heap.Call(expr::MethodRef{"java/util/List", "get", "(I)Ljava/lang/Object;"}, list.ref,
                          std::span<const expr::Value>(&five, 1), expr::Type::Reference("java.lang.Object"));
  Check(!thrown && thrown.error().find("java.lang.IndexOutOfBoundsException") == 0 &&
            thrown.error().find("5") != std::string::npos,
        "primitives: Call ArrayList.get(5) fails naming IndexOutOfBoundsException (" +
            (thrown ? std::string("no error") : thrown.error()) + ")");
  Check(!jni->ExceptionCheck(), "primitives: no exception is left pending for the program");
  expr::Value custom = LocalValue(scope, heap, "custom");
  auto overridden = heap.Call(expr::MethodRef{"java/util/Map", "get", "(Ljava/lang/Object;)Ljava/lang/Object;"},
                              custom.ref, std::span<const expr::Value>(&key_value, 1),
                              expr::Type::Reference("java.lang.Object"));
  Check(!overridden && overridden.error().find("not the JDK's") != std::string::npos &&
            FieldValue(scope, heap, nullptr, "probefix.ProbeFixture$CountingMap", "calls").prim.i == 0,
        "primitives: a JDK method the program's class overrides is refused, not run (" +
            (overridden ? std::string("called") : overridden.error()) + ")");
  ExpressionCase(scope, heap);
  Check(scope.Class("ArrayList") == std::optional<std::string>("java.util.ArrayList"),
        "primitives: Class(ArrayList): the one visible class of that simple name");
  expr::Value forty_two;
  forty_two.type = expr::Type::Primitive(expr::Prim::kInt);
  forty_two.prim.i = 42;
  auto boxed = heap.Call(expr::MethodRef{"java/lang/Integer", "valueOf", "(I)Ljava/lang/Integer;", true}, nullptr,
                         std::span<const expr::Value>(&forty_two, 1), expr::Type::Reference("java.lang.Integer"));
  Check(boxed && heap.SameObject(boxed->ref, got ? got->ref : nullptr),
        "primitives: a static Call, Integer.valueOf(42), is the map's cached Integer");
  auto null_call = heap.Call(expr::MethodRef{"java/util/List", "size", "()I"}, nullptr, {},
                             expr::Type::Primitive(expr::Prim::kInt));
  Check(!null_call, "primitives: a call on null is an error");
}

// The expression language over this scope and heap, end to end: what a
// condition or a log line at this place reads.
void ExpressionCase(const JvmtiScope& scope, JniHeap& heap) {
  auto holds = [&](const char* text) {
    auto compiled = expr::Expression::Compile(text, scope);
    if (!compiled) return std::string("refused: ") + compiled.error().message;
    auto value = compiled->Evaluate(heap);
    if (!value) return "<error: " + value.error() + ">";
    return std::string(value->type.kind == expr::Type::Kind::kPrimitive && value->prim.z ? "true" : "false");
  };
  for (const char* condition :
       {"i > 100 && text.length() == 5", "z && b == -5 && c == 'x' && s == 300 && j == 1L << 40",
        "f == 1.5f && d == 2.25", "array.length == 3 && array[1] == 20", "list.size() == 2 && !list.isEmpty()",
        "map.containsKey(\"k\") && map.get(\"k\") instanceof Integer", "this.name.equals(\"fixture\")",
        "ProbeFixture.counter == 7 && counter == 7", "text.startsWith(\"h\") && text != null",
        "list instanceof java.util.List && !(list instanceof Map)", "TAG.equals(\"tagged\")"})
    Check(holds(condition) == "true", std::string("expr: `") + condition + "` holds (" + holds(condition) + ")");
  Check(holds("array[5] == 0").find("<error:") == 0, "expr: `array[5] == 0` is an error at the hit (" +
                                                         holds("array[5] == 0") + ")");
  Check(holds("list.add(\"x\")").find("refused") == 0, "expr: `list.add(\"x\")` is refused when set");
  Check(holds("nosuch > 1").find("refused") == 0, "expr: an unknown name is refused when set");
  auto line = expr::Template::Compile("i={i} text={text} n={list.size()} k={map.get(\"k\")} a={array[2]}", scope);
  Check(line.has_value(), "expr: the template compiles");
  if (line) {
    std::string message = line->Format(heap);
    Check(message == "i=123456 text=h\xc3\xa9llo n=2 k=42 a=30", "expr: the template formats: " + message);
  }
}

void SnapshotCase(const jdwpx::vmcore::Jvmti& jvmti, JNIEnv* jni, jthread thread, jmethodID method,
                  jlocation location) {
  auto scene_scope = JvmtiScope::Make(jvmti, jni, method, location);
  Check(scene_scope && (*scene_scope)->Class("Node") == std::optional<std::string>("probefix.ProbeFixture$Node") &&
            (*scene_scope)->Class("Box") == std::optional<std::string>("probefix.ProbeFixture$Box"),
        "snapshot: Class(Node) in ProbeFixture$Scene is its enclosing class's member");
  int64_t budget = 100000;
  auto frames = CaptureSnapshot(jvmti, jni, thread, SnapshotLimits{}, &budget);
  Check(frames.size() >= 2, "snapshot: frames captured (" + std::to_string(frames.size()) + ")");
  if (frames.size() < 2) return;
  Check(frames[0].class_name == "probefix.ProbeFixture$Scene" && frames[0].method == "capture" && frames[0].line > 0,
        "snapshot: frame 0 is ProbeFixture$Scene.capture at a line");
  Check(frames[1].class_name == "probefix.ProbeFixture" && frames[1].method == "run" && frames[1].line > 0,
        "snapshot: frame 1 is ProbeFixture.run");
  const std::string node_type = "probefix.ProbeFixture$Node";
  // The map key this.box is named Class@hash (its toString is never called).
  std::string box_key = "?";
  if (auto self = jvmti.GetLocalInstance(thread, 0)) {
    jclass scene = jni->GetObjectClass(*self);
    jfieldID box_field = jni->GetFieldID(scene, "box", "Lprobefix/ProbeFixture$Box;");
    jobject box = box_field ? jni->GetObjectField(*self, box_field) : nullptr;
    if (auto hash = jvmti.GetObjectHashCode(box)) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "%x", static_cast<unsigned>(*hash));
      box_key = std::string("probefix.ProbeFixture$Box@") + hex;
    }
  }
  std::vector<Node> want = {
      N(0, NodeKind::kObject, "this", "probefix.ProbeFixture$Scene"),
      N(1, NodeKind::kObject, "box", "probefix.ProbeFixture$Box"),
      N(2, NodeKind::kObject, "corner", "probefix.ProbeFixture$Point"),
      N(3, NodeKind::kNumber, "x", "int", "1"),
      N(3, NodeKind::kNumber, "y", "int", "2"),
      N(2, NodeKind::kCycle, "self", "probefix.ProbeFixture$Box"),
      N(2, NodeKind::kString, "label", "java.lang.String", "box", 3),
      N(0, NodeKind::kObject, "cycle", node_type),
      N(1, NodeKind::kNumber, "value", "int", "1"),
      N(1, NodeKind::kObject, "next", node_type),
      N(2, NodeKind::kNumber, "value", "int", "2"),
      N(2, NodeKind::kCycle, "next", node_type),
      N(0, NodeKind::kObject, "chain", node_type),
      N(1, NodeKind::kNumber, "value", "int", "10"),
      N(1, NodeKind::kObject, "next", node_type),
      N(2, NodeKind::kNumber, "value", "int", "11"),
      N(2, NodeKind::kObject, "next", node_type),
      N(3, NodeKind::kNumber, "value", "int", "12"),
      N(3, NodeKind::kDeeper, "next", node_type),
      N(0, NodeKind::kString, "longText", "java.lang.String", std::string(256, 'x'), 300),
      N(0, NodeKind::kArray, "nums", "int[]", "", 12),
  };
  for (int i = 0; i < 10; ++i) want.push_back(N(1, NodeKind::kNumber, std::to_string(i), "int", std::to_string(i)));
  for (const Node& n : std::vector<Node>{
           N(0, NodeKind::kCollection, "list", "java.util.ArrayList", "", 2),
           N(1, NodeKind::kNumber, "0", "java.lang.Integer", "5"),
           N(1, NodeKind::kNumber, "1", "java.lang.Integer", "6"),
           N(0, NodeKind::kCollection, "map", "java.util.HashMap", "", 1),
           N(1, NodeKind::kString, "key", "java.lang.String", "value", 5),
           N(0, NodeKind::kCollection, "set", "java.util.HashSet", "", 1),
           N(1, NodeKind::kString, "0", "java.lang.String", "only", 4),
           N(0, NodeKind::kCollection, "keyed", "java.util.LinkedHashMap", "", 2),
           N(1, NodeKind::kNumber, "7", "java.lang.Integer", "1"),
           N(1, NodeKind::kNumber, box_key, "java.lang.Integer", "2"),
           N(0, NodeKind::kNull, "nothing", "java.lang.Object", "null"),
       })
    want.push_back(n);
  CheckNodes(frames[0].values, want, "snapshot: frame 0's nodes, exactly");
  int64_t nodes = 0;
  for (const auto& f : frames) nodes += static_cast<int64_t>(f.values.size());
  Check(budget == 100000 - nodes, "snapshot: the budget is spent once per node");

  // Limits: two frames, depth 1, strings of 4 units, 2 elements.
  auto small = CaptureSnapshot(jvmti, jni, thread, SnapshotLimits{2, 1, 4, 2, 2000});
  Check(small.size() == 2, "snapshot: max_frames 2 gives 2 frames");
  std::vector<Node> want_small = {
      N(0, NodeKind::kObject, "this", "probefix.ProbeFixture$Scene"),
      N(1, NodeKind::kDeeper, "box", "probefix.ProbeFixture$Box"),
      N(0, NodeKind::kObject, "cycle", node_type),
      N(1, NodeKind::kNumber, "value", "int", "1"),
      N(1, NodeKind::kDeeper, "next", node_type),
      N(0, NodeKind::kObject, "chain", node_type),
      N(1, NodeKind::kNumber, "value", "int", "10"),
      N(1, NodeKind::kDeeper, "next", node_type),
      N(0, NodeKind::kString, "longText", "java.lang.String", "xxxx", 300),
      N(0, NodeKind::kArray, "nums", "int[]", "", 12),
      N(1, NodeKind::kNumber, "0", "int", "0"),
      N(1, NodeKind::kNumber, "1", "int", "1"),
      N(0, NodeKind::kCollection, "list", "java.util.ArrayList", "", 2),
      N(1, NodeKind::kNumber, "0", "java.lang.Integer", "5"),
      N(1, NodeKind::kNumber, "1", "java.lang.Integer", "6"),
      N(0, NodeKind::kCollection, "map", "java.util.HashMap", "", 1),
      N(1, NodeKind::kString, "key", "java.lang.String", "valu", 5),
      N(0, NodeKind::kCollection, "set", "java.util.HashSet", "", 1),
      N(1, NodeKind::kString, "0", "java.lang.String", "only", 4),
      N(0, NodeKind::kCollection, "keyed", "java.util.LinkedHashMap", "", 2),
      N(1, NodeKind::kNumber, "7", "java.lang.Integer", "1"),
      N(1, NodeKind::kNumber, box_key, "java.lang.Integer", "2"),
      N(0, NodeKind::kNull, "nothing", "java.lang.Object", "null"),
  };
  if (!small.empty()) CheckNodes(small[0].values, want_small, "snapshot: depth 1, strings of 4, 2 elements, exactly");

  // The node cap: 5 nodes in all, the last saying why it stopped.
  auto capped = CaptureSnapshot(jvmti, jni, thread, SnapshotLimits{20, 3, 256, 10, 5});
  std::vector<Node> want_capped = {
      N(0, NodeKind::kObject, "this", "probefix.ProbeFixture$Scene"),
      N(1, NodeKind::kObject, "box", "probefix.ProbeFixture$Box"),
      N(2, NodeKind::kObject, "corner", "probefix.ProbeFixture$Point"),
      N(3, NodeKind::kNumber, "x", "int", "1"),
      N(0, NodeKind::kError, "", "", "snapshot cut: node limit reached"),
  };
  size_t capped_total = 0;
  for (const auto& f : capped) capped_total += f.values.size();
  if (!capped.empty()) CheckNodes(capped[0].values, want_capped, "snapshot: the node cap cuts it, saying so");
  Check(capped_total == 5, "snapshot: no frame adds a node after the cap");
  Check(!jni->ExceptionCheck(), "snapshot: no exception is left pending for the program");

  // Measured, not checked: what a hit's reads cost here (HotSpot runs each
  // GetLocal* as a VM operation, even in the thread's own frame).
  auto per_call_ns = [&](auto&& call) {
    auto begin = std::chrono::steady_clock::now();
    for (int k = 0; k < 50; ++k) call();
    return static_cast<long long>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - begin).count() / 50);
  };
  long long local_ns = per_call_ns([&] { (void)jvmti.GetLocalObject(thread, 0, 1); });
  long long field_ns = per_call_ns([&] {
    jobject self = jvmti.GetLocalInstance(thread, 0).value_or(nullptr);
    jni->DeleteLocalRef(self);
  });
  long long snapshot_ns = per_call_ns([&] { (void)CaptureSnapshot(jvmti, jni, thread); });
  std::printf("     (measured: GetLocalObject %lld ns, GetLocalInstance %lld ns, this snapshot %lld ns)\n", local_ns,
              field_ns, snapshot_ns);
}

void NoDebugCase(const jdwpx::vmcore::Jvmti& jvmti, JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  auto made = JvmtiScope::Make(jvmti, jni, method, location);
  Check(made && !(*made)->has_locals() && !(*made)->Local("n") && !(*made)->This(),
        "nodebug: a class compiled without -g gets a scope without locals");
  auto frames = CaptureSnapshot(jvmti, jni, thread);
  Check(!frames.empty() && frames[0].method == "work" && frames[0].line == -1,
        "nodebug: frame 0 is NoDebug.work with no line (-1)");
  if (!frames.empty())
    CheckNodes(frames[0].values, {N(0, NodeKind::kError, "", "", "no local variable table (compiled without -g)")},
               "nodebug: frame 0's one node says why there are no locals");
}

void VirtualCase(const jdwpx::vmcore::Jvmti& jvmti, JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  Check(jdwpx::vmcore::Jvmti::IsVirtualThread(jni, thread), "virtual: the hit is in a virtual thread");
  auto made = JvmtiScope::Make(jvmti, jni, method, location);
  Check(made.has_value(), "virtual: JvmtiScope::Make");
  if (!made) return;
  LiveLocals live;
  Check(live.Read(jni, "virtualScene", static_cast<int32_t>(location)) && live.direct() &&
            live.Primitive(jni, (*made)->Local("doubled")->slot, false) == std::optional<int64_t>(42),
        "virtual: LiveLocals reads doubled == 42 through the one-frame walk in the virtual thread");
  JniHeap heap(jvmti, jni, thread, **made);
  Check(LocalValue(**made, heap, "doubled").prim.i == 42 && LocalValue(**made, heap, "n").prim.i == 21,
        "virtual: locals n == 21 and doubled == 42 read in the virtual thread");
  {
    JniHeap from_frame(jvmti, jni, thread, **made);
    const int32_t doubled = (*made)->Local("doubled")->slot;
    Check((*made)->frame_slots().Of(doubled) == FrameSlots::Verdict::kPrimitive &&
              LocalValue(**made, from_frame, "doubled").prim.i == 42 &&
              Text(from_frame, LocalValue(**made, from_frame, "label")) == "v21",
          "virtual: a second heap reads doubled == 42 and label == \"v21\" from the virtual thread's frame");
  }
  auto length = heap.Call(expr::MethodRef{"java/lang/String", "length", "()I"}, LocalValue(**made, heap, "label").ref, {},
                          expr::Type::Primitive(expr::Prim::kInt));
  Check(length && length->prim.i == 3, "virtual: Call String.length() on label \"v21\" == 3 in the virtual thread");
  auto frames = CaptureSnapshot(jvmti, jni, thread, SnapshotLimits{1, 3, 256, 10, 2000});
  if (frames.size() == 1)
    CheckNodes(frames[0].values,
               {N(0, NodeKind::kNumber, "n", "int", "21"), N(0, NodeKind::kNumber, "doubled", "int", "42"),
                N(0, NodeKind::kString, "label", "java.lang.String", "v21", 3)},
               "virtual: the snapshot's frame 0, exactly");
  else
    Check(false, "virtual: one frame captured");
}

void JNICALL OnBreakpoint(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  auto it = g_breakpoints.find({method, location});
  if (it == g_breakpoints.end()) return;
  const std::string& name = it->second;
  g_cases_run.insert(name);
  jdwpx::vmcore::Jvmti jvmti(g_env);
  jdwpx::vmcore::LocalFrame frame(jni, 64);
  try {
    if (name == "primitives") PrimitivesCase(jvmti, jni, thread, method, location);
    else if (name == "snapshot") SnapshotCase(jvmti, jni, thread, method, location);
    else if (name == "nodebug") NoDebugCase(jvmti, jni, thread, method, location);
    else if (name == "virtual") VirtualCase(jvmti, jni, thread, method, location);
  } catch (const std::exception& e) {
    Check(false, name + ": threw " + e.what());
  }
}

// The breakpoint's location: the first code index of `line` in the class's methods.
bool SetBreakpointAtLine(const jdwpx::vmcore::Jvmti& jvmti, jclass klass, int line, const std::string& name) {
  auto methods = jvmti.GetClassMethods(klass);
  if (!methods) return false;
  for (jmethodID method : *methods) {
    auto lines = jvmti.GetLineNumberTable(method);
    if (!lines) continue;
    jlocation best = -1;
    for (const auto& entry : *lines)
      if (entry.line == line && (best < 0 || entry.start < best)) best = entry.start;
    if (best < 0) continue;
    if (!jvmti.SetBreakpoint(method, best)) return false;
    g_breakpoints[{method, best}] = name;
    return true;
  }
  return false;
}

void JNICALL OnVmInit(jvmtiEnv*, JNIEnv* jni, jthread) {
  jdwpx::vmcore::Jvmti jvmti(g_env);
  jclass fixture = jni->FindClass("probefix/ProbeFixture");
  jclass scene = jni->FindClass("probefix/ProbeFixture$Scene");
  jclass no_debug = jni->FindClass("probefix/NoDebug");
  Check(fixture && scene && no_debug && !jni->ExceptionCheck(), "the fixture's classes load (-cp)");
  if (!fixture || !scene || !no_debug) Finish();

  std::ifstream source(g_source);
  std::regex marker("BREAK:([a-z]+)");
  std::string text;
  std::vector<std::string> cases;
  for (int line = 1; std::getline(source, text); ++line) {
    std::smatch match;
    if (!std::regex_search(text, match, marker)) continue;
    cases.push_back(match[1]);
    bool set = SetBreakpointAtLine(jvmti, fixture, line, match[1]) || SetBreakpointAtLine(jvmti, scene, line, match[1]);
    Check(set, "breakpoint set at BREAK:" + match[1].str() + " (line " + std::to_string(line) + ")");
  }
  // Snapshot nodes write floats and doubles with expr's Java formatting.
  using jdwpx::expr::JavaDoubleToString;
  using jdwpx::expr::JavaFloatToString;
  Check(JavaDoubleToString(1.5) == "1.5" && JavaDoubleToString(100) == "100.0" && JavaDoubleToString(1e7) == "1.0E7" &&
            JavaDoubleToString(0.001) == "0.001" && JavaDoubleToString(1e-4) == "1.0E-4" &&
            JavaFloatToString(0.1f) == "0.1" && JavaDoubleToString(-2.5e-10) == "-2.5E-10" &&
            JavaDoubleToString(123456.789) == "123456.789",
        "snapshot numbers are written as Java does");
  Check(cases.size() == 3, "three BREAK markers in " + g_source);
  jmethodID work = jni->GetStaticMethodID(no_debug, "work", "(I)I");
  Check(work && jvmti.SetBreakpoint(work, 0).has_value(), "breakpoint set at NoDebug.work's entry");
  g_breakpoints[{work, 0}] = "nodebug";
  Check(jvmti.SetEventMode(true, JVMTI_EVENT_BREAKPOINT).has_value(), "breakpoint events enabled");

  bool with_virtual = jvmti.HasVirtualThreads();
  jmethodID run = jni->GetStaticMethodID(fixture, "run", "(Z)I");
  jint answer = jni->CallStaticIntMethod(fixture, run, with_virtual ? JNI_TRUE : JNI_FALSE);
  if (jni->ExceptionCheck()) {
    jni->ExceptionDescribe();
    Check(false, "ProbeFixture.run threw");
  }
  // 44 + 9 (+ 42 in a virtual thread) + 1000 per BREAK line passed: the program
  // ran on normally after every probe.
  jint expected = with_virtual ? 44 + 9 + 42 + 3000 : 44 + 9 + 2000;
  Check(answer == expected, "ProbeFixture.run answered " + std::to_string(answer) + " (want " +
                                std::to_string(expected) + "): the program went on normally");
  for (const char* name : {"primitives", "snapshot", "nodebug"})
    Check(g_cases_run.count(name) == 1, std::string("case ran: ") + name);
  if (with_virtual) Check(g_cases_run.count("virtual") == 1, "case ran: virtual (in a virtual thread)");
  Finish();
}

}  // namespace

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  if (vm->GetEnv(reinterpret_cast<void**>(&g_env), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jdwpx::vmcore::SetJavaVm(vm);
  g_source = options ? options : "";
  jvmtiCapabilities caps{};
  caps.can_generate_breakpoint_events = 1;
  caps.can_access_local_variables = 1;
  caps.can_get_line_numbers = 1;
  jdwpx::vmcore::Jvmti jvmti(g_env);
  if (jvmti.HasVirtualThreads()) jdwpx::vmcore::Jvmti::SetCanSupportVirtualThreads(caps, true);
  if (g_env->AddCapabilities(&caps) != JVMTI_ERROR_NONE) return JNI_ERR;
  jvmtiEventCallbacks callbacks{};
  callbacks.VMInit = OnVmInit;
  callbacks.Breakpoint = OnBreakpoint;
  if (g_env->SetEventCallbacks(&callbacks, sizeof callbacks) != JVMTI_ERROR_NONE) return JNI_ERR;
  if (g_env->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr) != JVMTI_ERROR_NONE) return JNI_ERR;
  return JNI_OK;
}
