#include "backend/probes/snapshot.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <string_view>

#include "backend/probes/java_names.h"
#include "backend/probes/live_locals.h"
#include "expr/expr.h"
#include "expr/java_string.h"
#include "vmcore/refs.h"

namespace jdwpx::backend::probes {
namespace {

using Frame = jdwp::Probe::Snapshot::Frame;
using Node = jdwp::Probe::Snapshot::Node;
using jdwp::Probe::NodeKind;

constexpr jint kAccStatic = 0x0008;

std::string Describe(const vmcore::VmError& error) {
  return std::string(error.function) + ": " + vmcore::JvmtiErrorName(error.code);
}

// JDK collection classes whose size() and iteration run JDK code only, touch no
// lock another thread may hold (Vector, Hashtable and the blocking queues do)
// and change nothing (WeakHashMap's iteration expunges: not listed). Wrappers
// (Collections.unmodifiableList...) would call the wrapped, maybe the
// program's, collection: not listed, they show as objects.
struct CollectionClass {
  std::string_view signature;
  bool is_map;
};
constexpr CollectionClass kCollections[] = {
    {"Ljava/util/ArrayList;", false},
    {"Ljava/util/LinkedList;", false},
    {"Ljava/util/ArrayDeque;", false},
    {"Ljava/util/HashSet;", false},
    {"Ljava/util/LinkedHashSet;", false},
    {"Ljava/util/TreeSet;", false},
    {"Ljava/util/PriorityQueue;", false},
    {"Ljava/util/Arrays$ArrayList;", false},
    {"Ljava/util/ImmutableCollections$List12;", false},
    {"Ljava/util/ImmutableCollections$ListN;", false},
    {"Ljava/util/ImmutableCollections$Set12;", false},
    {"Ljava/util/ImmutableCollections$SetN;", false},
    {"Ljava/util/concurrent/CopyOnWriteArrayList;", false},
    {"Ljava/util/concurrent/CopyOnWriteArraySet;", false},
    {"Ljava/util/concurrent/ConcurrentLinkedQueue;", false},
    {"Ljava/util/concurrent/ConcurrentLinkedDeque;", false},
    {"Ljava/util/concurrent/ConcurrentSkipListSet;", false},
    {"Ljava/util/HashMap;", true},
    {"Ljava/util/LinkedHashMap;", true},
    {"Ljava/util/TreeMap;", true},
    {"Ljava/util/IdentityHashMap;", true},
    {"Ljava/util/ImmutableCollections$Map1;", true},
    {"Ljava/util/ImmutableCollections$MapN;", true},
    {"Ljava/util/concurrent/ConcurrentHashMap;", true},
    {"Ljava/util/concurrent/ConcurrentSkipListMap;", true},
};

const CollectionClass* CollectionOf(std::string_view signature) {
  for (const auto& c : kCollections)
    if (c.signature == signature) return &c;
  return nullptr;
}

// Boxed primitives show as their value: signature -> the primitive's code.
char BoxedCode(std::string_view signature) {
  static constexpr std::pair<std::string_view, char> kBoxes[] = {
      {"Ljava/lang/Boolean;", 'Z'}, {"Ljava/lang/Byte;", 'B'},  {"Ljava/lang/Character;", 'C'},
      {"Ljava/lang/Short;", 'S'},   {"Ljava/lang/Integer;", 'I'}, {"Ljava/lang/Long;", 'J'},
      {"Ljava/lang/Float;", 'F'},   {"Ljava/lang/Double;", 'D'},
  };
  for (const auto& [sig, code] : kBoxes)
    if (sig == signature) return code;
  return 0;
}

// A primitive read from anywhere (a local, a field, an element), as its node's kind and text.
struct Primitive {
  char code = 'I';
  jvalue value{};
};

// An int-sized local (a JVMTI GetLocalInt or a slot's low 32 bits) as its type.
Primitive IntSized(char code, int32_t v) {
  Primitive p{code, {}};
  if (code == 'Z') p.value.z = static_cast<jboolean>(v != 0);
  else if (code == 'B') p.value.b = static_cast<jbyte>(v);
  else if (code == 'C') p.value.c = static_cast<jchar>(v);
  else if (code == 'S') p.value.s = static_cast<jshort>(v);
  else p.value.i = v;
  return p;
}

Node PrimitiveNode(int depth, std::string name, std::string type, const Primitive& p) {
  Node node{static_cast<uint8_t>(depth), NodeKind::kNumber, std::move(name), std::move(type), {}, 0};
  switch (p.code) {
    case 'Z':
      node.kind = NodeKind::kBoolean;
      node.text = p.value.z ? "true" : "false";
      break;
    case 'C':
      node.kind = NodeKind::kCharacter;
      node.text = expr::Utf8(std::u16string(1, static_cast<char16_t>(p.value.c)));
      break;
    case 'B': node.text = std::to_string(p.value.b); break;
    case 'S': node.text = std::to_string(p.value.s); break;
    case 'I': node.text = std::to_string(p.value.i); break;
    case 'J': node.text = std::to_string(p.value.j); break;
    case 'F': node.text = expr::JavaFloatToString(p.value.f); break;
    case 'D': node.text = expr::JavaDoubleToString(p.value.d); break;
  }
  return node;
}

class Capture {
 public:
  Capture(const vmcore::Jvmti& jvmti, JNIEnv* jni, const SnapshotLimits& limits, int64_t* budget)
      : jvmti_(jvmti), jni_(jni), limits_(limits), budget_(budget) {}

  std::vector<Frame> Run(jthread thread) {
    std::vector<Frame> frames;
    auto trace = jvmti_.GetStackTrace(thread, 0, std::max(limits_.max_frames, 1));
    if (!trace) {
      Frame frame;
      frame.line = -1;
      frame.values.push_back(Error(0, "", "stack: " + Describe(trace.error())));
      frames.push_back(std::move(frame));
      return frames;
    }
    // One walk in this thread reads every frame's locals for a few JNI calls;
    // JVMTI's GetLocal* is a VM operation per value (live_locals.h). Its
    // frames outlive the per-frame local frames below.
    walked_ = live_.Walk(jni_, static_cast<int>(trace->size()));
    for (size_t i = 0; i < trace->size(); ++i) {
      vmcore::LocalFrame local_frame(jni_, 64);
      frames.push_back(ReadFrame(thread, static_cast<jint>(i), (*trace)[i]));
    }
    return frames;
  }

 private:
  Frame ReadFrame(jthread thread, jint depth, const vmcore::Frame& place) {
    Frame frame;
    out_ = &frame;
    frame.line = -1;
    if (auto klass = jvmti_.GetMethodDeclaringClass(place.method)) {
      if (auto signature = jvmti_.GetClassSignatureOnly(*klass)) frame.class_name = JavaName(*signature);
      jni_->DeleteLocalRef(*klass);
    }
    if (auto name = jvmti_.GetMethodName(place.method)) frame.method = name->name;
    // The walk leaves out hidden frames that JVMTI shows: a JVMTI frame that is
    // not the next walked one is read through JVMTI, and the walk waits.
    live_frame_ = next_walked_ < walked_ &&
                  live_.Select(jni_, next_walked_, frame.method, static_cast<int32_t>(place.location));
    if (live_frame_) ++next_walked_;
    if (place.location < 0) {
      Add(Error(0, "", "native method"));
      return frame;
    }
    if (auto lines = jvmti_.GetLineNumberTable(place.method)) {
      jlocation best = -1;
      for (const auto& entry : *lines) {
        if (entry.start <= place.location && entry.start >= best) {
          best = entry.start;
          frame.line = entry.line;
        }
      }
    }
    auto modifiers = jvmti_.GetMethodModifiers(place.method);
    if (modifiers && !(*modifiers & kAccStatic)) {
      jobject self = nullptr;
      if (live_frame_ && live_.Object(jni_, 0, self)) {
        Reference(0, "this", frame.class_name, self);
      } else if (auto read = jvmti_.GetLocalInstance(thread, depth)) {
        Reference(0, "this", frame.class_name, *read);
      } else {
        Add(Error(0, "this", Describe(read.error())));
      }
    }
    auto table = jvmti_.GetLocalVariableTable(place.method);
    if (!table) {
      Add(Error(0, "", table.error().code == JVMTI_ERROR_ABSENT_INFORMATION
                           ? "no local variable table (compiled without -g)"
                           : "locals: " + Describe(table.error())));
      return frame;
    }
    std::vector<const vmcore::LocalVariable*> live;
    for (const auto& variable : *table) {
      bool is_live = variable.start <= place.location && place.location < variable.start + variable.length;
      if (is_live && variable.name != "this") live.push_back(&variable);
    }
    std::sort(live.begin(), live.end(), [](auto* a, auto* b) { return a->slot < b->slot; });
    for (const vmcore::LocalVariable* variable : live) {
      if (stopped_) break;
      ReadLocal(thread, depth, *variable);
    }
    return frame;
  }

  void ReadLocal(jthread thread, jint depth, const vmcore::LocalVariable& variable) {
    char code = variable.signature.empty() ? 'V' : variable.signature[0];
    std::string type = JavaName(variable.signature);
    if (live_frame_ && ReadWalkedLocal(variable, code, type)) return;
    if (code == 'L' || code == '[') {
      auto ref = jvmti_.GetLocalObject(thread, depth, variable.slot);
      if (ref) Reference(0, variable.name, type, *ref);
      else Add(Error(0, variable.name, Describe(ref.error())));
      return;
    }
    Primitive p{code, {}};
    vmcore::VmError error;
    bool ok = true;
    if (code == 'J') {
      auto v = jvmti_.GetLocalLong(thread, depth, variable.slot);
      if ((ok = v.has_value())) p.value.j = *v; else error = v.error();
    } else if (code == 'F') {
      auto v = jvmti_.GetLocalFloat(thread, depth, variable.slot);
      if ((ok = v.has_value())) p.value.f = *v; else error = v.error();
    } else if (code == 'D') {
      auto v = jvmti_.GetLocalDouble(thread, depth, variable.slot);
      if ((ok = v.has_value())) p.value.d = *v; else error = v.error();
    } else {
      auto v = jvmti_.GetLocalInt(thread, depth, variable.slot);
      if ((ok = v.has_value())) p = IntSized(code, *v); else error = v.error();
    }
    if (ok) Add(PrimitiveNode(0, variable.name, type, p));
    else Add(Error(0, variable.name, Describe(error)));
  }

  // The local from the walked frame; false when the walk has no such value
  // there (the slot holds the other kind), and JVMTI is asked instead.
  bool ReadWalkedLocal(const vmcore::LocalVariable& variable, char code, const std::string& type) {
    if (code == 'L' || code == '[') {
      jobject ref = nullptr;
      if (!live_.Object(jni_, variable.slot, ref)) return false;
      Reference(0, variable.name, type, ref);
      return true;
    }
    const auto bits = live_.Primitive(jni_, variable.slot, code == 'J' || code == 'D');
    if (!bits) return false;
    const auto low = static_cast<int32_t>(static_cast<uint64_t>(*bits) & 0xffffffffu);
    Primitive p{code, {}};
    if (code == 'J') p.value.j = *bits;
    else if (code == 'D') p.value.d = std::bit_cast<double>(*bits);
    else if (code == 'F') p.value.f = std::bit_cast<float>(low);
    else p = IntSized(code, low);
    Add(PrimitiveNode(0, variable.name, type, p));
    return true;
  }

  static Node Error(int depth, std::string name, std::string why) {
    return Node{static_cast<uint8_t>(depth), NodeKind::kError, std::move(name), {}, std::move(why), 0};
  }

  // Whether one more node fits: the snapshot's node cap and the caller's budget.
  bool Spend() {
    if (stopped_) return false;
    bool over_budget = budget_ && *budget_ <= 0;
    if (nodes_ + 1 >= limits_.max_nodes || over_budget) {
      stopped_ = true;
      out_->values.push_back(Error(0, "", over_budget ? "snapshot cut: step budget exhausted"
                                                     : "snapshot cut: node limit reached"));
      return false;
    }
    ++nodes_;
    if (budget_) --*budget_;
    return true;
  }

  void Add(Node node) {
    if (Spend()) out_->values.push_back(std::move(node));
  }

  // A pending exception (from a collection's JDK code) cleared and named.
  std::string TakeException() {
    jthrowable thrown = jni_->ExceptionOccurred();
    jni_->ExceptionClear();
    if (!thrown) return "unknown error";
    vmcore::LocalRef klass(jni_, jni_->GetObjectClass(thrown));
    auto signature = jvmti_.GetClassSignatureOnly(static_cast<jclass>(klass.get()));
    jni_->DeleteLocalRef(thrown);
    return signature ? JavaName(*signature) : "an exception";
  }

  std::string StringText(jstring string, jsize* length_out) {
    jsize length = jni_->GetStringLength(string);
    jsize units = std::min<jsize>(length, std::max(limits_.max_string, 0));
    std::u16string text(static_cast<size_t>(units), u'\0');
    if (units > 0) jni_->GetStringRegion(string, 0, units, reinterpret_cast<jchar*>(text.data()));
    // Cut before a pair's first half rather than between its halves.
    if (units < length && !text.empty() && text.back() >= 0xD800 && text.back() <= 0xDBFF) text.pop_back();
    if (length_out) *length_out = length;
    return expr::Utf8(text);
  }

  Primitive ReadField(jobject object, jfieldID field, char code) {
    Primitive p{code, {}};
    switch (code) {
      case 'Z': p.value.z = jni_->GetBooleanField(object, field); break;
      case 'B': p.value.b = jni_->GetByteField(object, field); break;
      case 'C': p.value.c = jni_->GetCharField(object, field); break;
      case 'S': p.value.s = jni_->GetShortField(object, field); break;
      case 'I': p.value.i = jni_->GetIntField(object, field); break;
      case 'J': p.value.j = jni_->GetLongField(object, field); break;
      case 'F': p.value.f = jni_->GetFloatField(object, field); break;
      case 'D': p.value.d = jni_->GetDoubleField(object, field); break;
    }
    return p;
  }

  Primitive ReadElement(jarray array, jsize index, char code) {
    Primitive p{code, {}};
    switch (code) {
      case 'Z': jni_->GetBooleanArrayRegion(static_cast<jbooleanArray>(array), index, 1, &p.value.z); break;
      case 'B': jni_->GetByteArrayRegion(static_cast<jbyteArray>(array), index, 1, &p.value.b); break;
      case 'C': jni_->GetCharArrayRegion(static_cast<jcharArray>(array), index, 1, &p.value.c); break;
      case 'S': jni_->GetShortArrayRegion(static_cast<jshortArray>(array), index, 1, &p.value.s); break;
      case 'I': jni_->GetIntArrayRegion(static_cast<jintArray>(array), index, 1, &p.value.i); break;
      case 'J': jni_->GetLongArrayRegion(static_cast<jlongArray>(array), index, 1, &p.value.j); break;
      case 'F': jni_->GetFloatArrayRegion(static_cast<jfloatArray>(array), index, 1, &p.value.f); break;
      case 'D': jni_->GetDoubleArrayRegion(static_cast<jdoubleArray>(array), index, 1, &p.value.d); break;
    }
    return p;
  }

  // A map key as a node's name: strings and boxed values as their text, other
  // objects as Class@hash (their toString could be the program's code).
  std::string KeyName(jobject key) {
    if (!key) return "null";
    vmcore::LocalRef klass(jni_, jni_->GetObjectClass(key));
    auto signature = jvmti_.GetClassSignatureOnly(static_cast<jclass>(klass.get()));
    if (!signature) return "?";
    if (*signature == "Ljava/lang/String;") return StringText(static_cast<jstring>(key), nullptr);
    if (char code = BoxedCode(*signature)) {
      std::string sig(1, code);
      jfieldID value = jni_->GetFieldID(static_cast<jclass>(klass.get()), "value", sig.c_str());
      if (value) return PrimitiveNode(0, {}, {}, ReadField(key, value, code)).text;
      jni_->ExceptionClear();
    }
    auto hash = jvmti_.GetObjectHashCode(key);
    char hex[16];
    auto end = std::to_chars(hex, hex + sizeof hex, static_cast<uint32_t>(hash ? *hash : 0), 16).ptr;
    return JavaName(*signature) + "@" + std::string(hex, end);
  }

  // Any reference: null, a string, a boxed value, a cycle, an array, a JDK
  // collection, or an object and its fields.
  void Reference(int depth, const std::string& name, const std::string& declared_type, jobject object) {
    if (stopped_) return;
    if (!object) {
      Add(Node{static_cast<uint8_t>(depth), NodeKind::kNull, name, declared_type, "null", 0});
      return;
    }
    vmcore::LocalFrame local_frame(jni_, 32);
    jclass klass = jni_->GetObjectClass(object);
    auto signature = jvmti_.GetClassSignatureOnly(klass);
    if (!signature) {
      Add(Error(depth, name, Describe(signature.error())));
      return;
    }
    std::string type = JavaName(*signature);
    if (*signature == "Ljava/lang/String;") {
      jsize length = 0;
      std::string text = StringText(static_cast<jstring>(object), &length);
      Add(Node{static_cast<uint8_t>(depth), NodeKind::kString, name, type, std::move(text), length});
      return;
    }
    if (char code = BoxedCode(*signature)) {
      std::string sig(1, code);
      jfieldID value = jni_->GetFieldID(klass, "value", sig.c_str());
      if (!value) {
        Add(Error(depth, name, TakeException()));
        return;
      }
      Add(PrimitiveNode(depth, name, type, ReadField(object, value, code)));
      return;
    }
    for (jobject outer : path_) {
      if (jni_->IsSameObject(outer, object)) {
        Add(Node{static_cast<uint8_t>(depth), NodeKind::kCycle, name, type, {}, 0});
        return;
      }
    }
    if (depth >= limits_.max_depth) {
      Add(Node{static_cast<uint8_t>(depth), NodeKind::kDeeper, name, type, {}, 0});
      return;
    }
    path_.push_back(object);
    if ((*signature)[0] == '[') {
      Array(depth, name, type, static_cast<jarray>(object), signature->substr(1));
    } else if (const CollectionClass* collection = CollectionOf(*signature); collection && IsBoot(klass)) {
      Collection(depth, name, type, object, klass, collection->is_map);
    } else {
      Object(depth, name, type, object, klass);
    }
    path_.pop_back();
  }

  bool IsBoot(jclass klass) {
    auto loader = jvmti_.GetClassLoader(klass);
    if (!loader) return false;
    if (*loader) jni_->DeleteLocalRef(*loader);
    return *loader == nullptr;
  }

  void Array(int depth, const std::string& name, const std::string& type, jarray array,
             const std::string& element_signature) {
    jsize length = jni_->GetArrayLength(array);
    Add(Node{static_cast<uint8_t>(depth), NodeKind::kArray, name, type, {}, length});
    jsize shown = std::min<jsize>(length, std::max(limits_.max_elements, 0));
    char code = element_signature[0];
    std::string element_type = JavaName(element_signature);
    for (jsize i = 0; i < shown && !stopped_; ++i) {
      if (code == 'L' || code == '[') {
        vmcore::LocalRef element(jni_, jni_->GetObjectArrayElement(static_cast<jobjectArray>(array), i));
        Reference(depth + 1, std::to_string(i), element_type, element.get());
      } else {
        Add(PrimitiveNode(depth + 1, std::to_string(i), element_type, ReadElement(array, i, code)));
      }
    }
  }

  // size() and the first elements through iterator(): a bounded cost however
  // large the collection (toArray would copy all of it). Map entries are named
  // by their key.
  void Collection(int depth, const std::string& name, const std::string& type, jobject object, jclass klass,
                  bool is_map) {
    jmethodID size = jni_->GetMethodID(klass, "size", "()I");
    jint count = size ? jni_->CallIntMethod(object, size) : 0;
    jobject iterable = object;
    if (!jni_->ExceptionCheck() && is_map) {
      jmethodID entry_set = jni_->GetMethodID(klass, "entrySet", "()Ljava/util/Set;");
      iterable = entry_set ? jni_->CallObjectMethod(object, entry_set) : nullptr;
    }
    jobject iterator = nullptr;
    if (!jni_->ExceptionCheck() && iterable) {
      vmcore::LocalRef iterable_class(jni_, jni_->GetObjectClass(iterable));
      jmethodID make = jni_->GetMethodID(static_cast<jclass>(iterable_class.get()), "iterator", "()Ljava/util/Iterator;");
      iterator = make ? jni_->CallObjectMethod(iterable, make) : nullptr;
    }
    jmethodID has_next = nullptr;
    jmethodID next = nullptr;
    if (!jni_->ExceptionCheck() && iterator) {
      vmcore::LocalRef iterator_class(jni_, jni_->GetObjectClass(iterator));
      has_next = jni_->GetMethodID(static_cast<jclass>(iterator_class.get()), "hasNext", "()Z");
      next = jni_->GetMethodID(static_cast<jclass>(iterator_class.get()), "next", "()Ljava/lang/Object;");
    }
    if (jni_->ExceptionCheck() || !has_next || !next) {
      std::string why = jni_->ExceptionCheck() ? TakeException() : std::string("no iterator");
      Add(Error(depth, name, "collection: " + why));
      return;
    }
    Add(Node{static_cast<uint8_t>(depth), NodeKind::kCollection, name, type, {}, count});
    jmethodID get_key = nullptr;
    jmethodID get_value = nullptr;
    for (int32_t i = 0; i < limits_.max_elements && !stopped_; ++i) {
      vmcore::LocalFrame element_frame(jni_, 16);
      bool more = jni_->CallBooleanMethod(iterator, has_next);
      if (jni_->ExceptionCheck()) {
        Add(Error(depth + 1, std::to_string(i), TakeException()));
        return;
      }
      if (!more) return;
      jobject element = jni_->CallObjectMethod(iterator, next);
      if (jni_->ExceptionCheck()) {
        Add(Error(depth + 1, std::to_string(i), TakeException()));
        return;
      }
      if (!is_map) {
        Reference(depth + 1, std::to_string(i), "java.lang.Object", element);
        continue;
      }
      if (!get_key && element) {
        vmcore::LocalRef entry_class(jni_, jni_->GetObjectClass(element));
        get_key = jni_->GetMethodID(static_cast<jclass>(entry_class.get()), "getKey", "()Ljava/lang/Object;");
        get_value = jni_->GetMethodID(static_cast<jclass>(entry_class.get()), "getValue", "()Ljava/lang/Object;");
      }
      jobject key = get_key ? jni_->CallObjectMethod(element, get_key) : nullptr;
      jobject value = !jni_->ExceptionCheck() && get_value ? jni_->CallObjectMethod(element, get_value) : nullptr;
      if (jni_->ExceptionCheck() || !get_key || !get_value) {
        std::string why = jni_->ExceptionCheck() ? TakeException() : std::string("no entry accessors");
        Add(Error(depth + 1, std::to_string(i), why));
        return;
      }
      Reference(depth + 1, KeyName(key), "java.lang.Object", value);
    }
  }

  // The instance fields of the object's class, then of its superclasses.
  void Object(int depth, const std::string& name, const std::string& type, jobject object, jclass klass) {
    Add(Node{static_cast<uint8_t>(depth), NodeKind::kObject, name, type, {}, 0});
    jclass current = klass;
    for (int hops = 0; current && hops < 64 && !stopped_; ++hops) {
      auto fields = jvmti_.GetClassFields(current);
      if (!fields) {
        Add(Error(depth + 1, "", Describe(fields.error())));
        return;
      }
      for (jfieldID field : *fields) {
        if (stopped_) return;
        auto modifiers = jvmti_.GetFieldModifiers(current, field);
        if (!modifiers || (*modifiers & kAccStatic)) continue;
        auto field_name = jvmti_.GetFieldName(current, field);
        if (!field_name) continue;
        char code = field_name->signature[0];
        std::string field_type = JavaName(field_name->signature);
        if (code == 'L' || code == '[') {
          vmcore::LocalRef value(jni_, jni_->GetObjectField(object, field));
          Reference(depth + 1, field_name->name, field_type, value.get());
        } else {
          Add(PrimitiveNode(depth + 1, field_name->name, field_type, ReadField(object, field, code)));
        }
      }
      current = jni_->GetSuperclass(current);
    }
  }

  vmcore::Jvmti jvmti_;
  JNIEnv* jni_;
  SnapshotLimits limits_;
  int64_t* budget_;
  Frame* out_ = nullptr;
  LiveLocals live_;
  int walked_ = 0;       // frames the walk filled
  int next_walked_ = 0;  // the walked frame the next JVMTI frame should be
  bool live_frame_ = false;  // the frame being read is the walk's
  std::vector<jobject> path_;  // the objects from the root to the one being expanded
  int32_t nodes_ = 0;
  bool stopped_ = false;
};

}  // namespace

std::vector<jdwp::Probe::Snapshot::Frame> CaptureSnapshot(const vmcore::Jvmti& jvmti, JNIEnv* jni, jthread thread,
                                                          const SnapshotLimits& limits, int64_t* budget) {
  try {
    return Capture(jvmti, jni, limits, budget).Run(thread);
  } catch (...) {  // bad_alloc: the probe loses its snapshot, the program goes on
    return {};
  }
}

}  // namespace jdwpx::backend::probes
