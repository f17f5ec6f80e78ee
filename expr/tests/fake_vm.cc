#include "expr/tests/fake_vm.h"

namespace jdwpx::expr::testing {

Value Int(int32_t i) {
  Value v;
  v.type = Type::Primitive(Prim::kInt);
  v.prim.i = i;
  return v;
}
Value Long(int64_t j) {
  Value v;
  v.type = Type::Primitive(Prim::kLong);
  v.prim.j = j;
  return v;
}
Value Float(float f) {
  Value v;
  v.type = Type::Primitive(Prim::kFloat);
  v.prim.f = f;
  return v;
}
Value Double(double d) {
  Value v;
  v.type = Type::Primitive(Prim::kDouble);
  v.prim.d = d;
  return v;
}
Value Char(char16_t c) {
  Value v;
  v.type = Type::Primitive(Prim::kChar);
  v.prim.i = c;
  return v;
}
Value Bool(bool z) {
  Value v;
  v.type = Type::Primitive(Prim::kBoolean);
  v.prim.z = z;
  return v;
}
Value Byte(int8_t b) {
  Value v = Int(b);
  v.type = Type::Primitive(Prim::kByte);
  return v;
}
Value Short(int16_t s) {
  Value v = Int(s);
  v.type = Type::Primitive(Prim::kShort);
  return v;
}
Value Object(Ref ref, std::string type) {
  Value v;
  v.type = Type::Reference(std::move(type));
  v.ref = ref;
  return v;
}
Value Null(std::string type) { return Object(nullptr, std::move(type)); }

FakeWorld::FakeWorld() {
  AddClass("java.lang.Object", {"Object"});
  AddClass("java.lang.String", {"String"}, {"java.lang.CharSequence", "java.lang.Comparable"});
  AddClass("java.lang.CharSequence", {"CharSequence"});
  AddClass("java.lang.Math", {"Math"});
  AddClass("java.lang.Number", {"Number"});
  const std::pair<Prim, const char*> boxes[] = {
      {Prim::kBoolean, "Boolean"}, {Prim::kByte, "Byte"}, {Prim::kChar, "Character"}, {Prim::kShort, "Short"},
      {Prim::kInt, "Integer"},     {Prim::kLong, "Long"}, {Prim::kFloat, "Float"},    {Prim::kDouble, "Double"}};
  for (auto [prim, simple] : boxes) {
    const std::string name = std::string("java.lang.") + simple;
    AddClass(name, {simple}, {"java.lang.Number"});
    AddField(name, "value", Type::Primitive(prim));
  }
  AddClass("java.util.Collection");
  AddClass("java.util.List", {}, {"java.util.Collection"});
  AddClass("java.util.Set", {}, {"java.util.Collection"});
  AddClass("java.util.Map");
  AddClass("java.util.ArrayList", {}, {"java.util.List", "java.util.Collection"});
  AddClass("java.util.HashMap", {}, {"java.util.Map"});
  AddClass("java.util.TreeMap", {}, {"java.util.Map"});
  AddClass("java.util.Collections$UnmodifiableCollection", {}, {"java.util.Collection"});
  AddClass("java.util.Collections$UnmodifiableList", {}, {"java.util.Collections$UnmodifiableCollection", "java.util.List"});
  AddClass("java.util.Collections$UnmodifiableMap", {}, {"java.util.Map"});
  AddField("java.util.Collections$UnmodifiableCollection", "c", Type::Reference("java.util.Collection"));
  AddField("java.util.Collections$UnmodifiableMap", "m", Type::Reference("java.util.Map"));
  AddField("java.util.TreeMap", "comparator", Type::Reference("java.util.Comparator"));
}

Ref FakeWorld::NewObject(std::string class_name, bool boot) {
  FakeObject& object = objects.emplace_back();
  object.class_name = std::move(class_name);
  object.boot = boot;
  object.hash = 0x1000 + static_cast<int32_t>(objects.size());
  return &object;
}

Ref FakeWorld::NewString(std::u16string text) {
  Ref ref = NewObject("java.lang.String", true);
  Get(ref).text = std::move(text);
  return ref;
}

Ref FakeWorld::NewBox(Prim prim, Value value) {
  static constexpr const char* kNames[] = {"java.lang.Boolean", "java.lang.Byte", "java.lang.Character",
                                           "java.lang.Short",   "java.lang.Integer", "java.lang.Long",
                                           "java.lang.Float",   "java.lang.Double"};
  Ref ref = NewObject(kNames[static_cast<size_t>(prim)], true);
  Get(ref).fields["value"] = value;
  return ref;
}

Ref FakeWorld::NewArray(std::string class_name, std::vector<Value> elements) {
  Ref ref = NewObject(std::move(class_name), true);
  Get(ref).elements = std::move(elements);
  return ref;
}

void FakeWorld::AddClass(std::string java_name, std::vector<std::string> aliases, std::vector<std::string> supers) {
  class_names[java_name] = java_name;
  for (const std::string& alias : aliases) class_names[alias] = java_name;
  auto& all = supertypes[java_name];
  all.insert(java_name);
  all.insert("java.lang.Object");
  for (const std::string& super : supers) {
    all.insert(super);
    auto found = supertypes.find(super);
    if (found != supertypes.end()) all.insert(found->second.begin(), found->second.end());
  }
}

FieldInfo FakeWorld::AddField(const std::string& class_name, const std::string& name, Type type, bool is_static) {
  FieldInfo field{field_names.size(), std::move(type), is_static, class_name};
  field_names.push_back(name);
  fields[class_name][name] = field;
  return field;
}

void FakeWorld::SetStatic(const FieldInfo& field, Value value) { statics[field.handle] = std::move(value); }

void FakeWorld::SetLocal(const std::string& name, Type type, Value value) {
  const auto slot = static_cast<int32_t>(locals.size());
  locals[name] = LocalInfo{slot, std::move(type)};
  local_values[slot] = std::move(value);
}

void FakeWorld::SetThis(Type type, Value value) {
  this_type = std::move(type);
  this_value = std::move(value);
}

void FakeWorld::SetStaticMethod(std::string location) {
  this_type.reset();
  location_class = std::move(location);
}

std::optional<LocalInfo> FakeScope::Local(std::string_view name) const {
  auto found = world_.locals.find(std::string(name));
  if (found == world_.locals.end()) return std::nullopt;
  return found->second;
}

std::optional<Type> FakeScope::This() const { return world_.this_type; }

std::optional<FieldInfo> FakeScope::Field(std::string_view class_name, std::string_view name) const {
  // Declared or inherited: search the class and its supertypes.
  auto supers = world_.supertypes.find(std::string(class_name));
  std::set<std::string> search{std::string(class_name)};
  if (supers != world_.supertypes.end()) search.insert(supers->second.begin(), supers->second.end());
  for (const std::string& owner : search) {
    auto in_class = world_.fields.find(owner);
    if (in_class == world_.fields.end()) continue;
    auto field = in_class->second.find(std::string(name));
    if (field != in_class->second.end()) return field->second;
  }
  return std::nullopt;
}

std::optional<std::string> FakeScope::Class(std::string_view name) const {
  std::string key(name);
  auto found = world_.class_names.find(key);
  if (found != world_.class_names.end()) return found->second;
  return std::nullopt;
}

bool FakeScope::IsSubtype(std::string_view sub, std::string_view super) const {
  if (sub == super || super == "java.lang.Object") return true;
  auto found = world_.supertypes.find(std::string(sub));
  return found != world_.supertypes.end() && found->second.count(std::string(super)) > 0;
}

Result<Value> FakeHeap::Local(const LocalInfo& local) {
  auto found = world_.local_values.find(local.slot);
  if (found == world_.local_values.end()) return tl::unexpected(std::string("slot not live"));
  return found->second;
}

Result<Value> FakeHeap::This() { return world_.this_value; }

Result<Value> FakeHeap::GetField(Ref object, const FieldInfo& field) {
  if (object == nullptr) {
    auto found = world_.statics.find(field.handle);
    if (found == world_.statics.end()) return tl::unexpected(std::string("static field not set"));
    return found->second;
  }
  auto& fields = world_.Get(object).fields;
  auto found = fields.find(world_.field_names[field.handle]);
  if (found == fields.end()) return tl::unexpected(std::string("no such field in the object"));
  return found->second;
}

Result<int32_t> FakeHeap::ArrayLength(Ref array) { return static_cast<int32_t>(world_.Get(array).elements.size()); }

Result<Value> FakeHeap::ArrayElement(Ref array, int32_t index, const Type& element) {
  return world_.Get(array).elements.at(static_cast<size_t>(index));
}

Result<std::u16string> FakeHeap::StringText(Ref string, size_t max_units) {
  std::u16string text = world_.Get(string).text.substr(0, max_units);
  world_.string_units_read += static_cast<int64_t>(text.size());
  return text;
}

std::string FakeHeap::RuntimeClass(Ref object) { return world_.Get(object).class_name; }
bool FakeHeap::IsBootClass(Ref object) { return world_.Get(object).boot; }

bool FakeHeap::InstanceOf(Ref object, std::string_view class_name) {
  return FakeScope(world_).IsSubtype(world_.Get(object).class_name, class_name);
}

int32_t FakeHeap::IdentityHash(Ref object) { return world_.Get(object).hash; }

Result<Ref> FakeHeap::NewString(std::u16string_view text) { return world_.NewString(std::u16string(text)); }

namespace {

// Map keys compare by value in the fake: strings by text, boxes by their value's bits.
bool SameKey(FakeWorld& world, const Value& a, const Value& b) {
  if (!a.ref || !b.ref) return a.ref == b.ref;
  FakeObject& x = world.Get(a.ref);
  FakeObject& y = world.Get(b.ref);
  if (x.class_name != y.class_name) return false;
  if (x.class_name == "java.lang.String") return x.text == y.text;
  return x.fields["value"].prim.j == y.fields["value"].prim.j;
}

}  // namespace

Result<Value> FakeHeap::Call(const MethodRef& method, Ref receiver, std::span<const Value> args, const Type& result) {
  world_.calls.push_back(std::string(method.jni_class) + "." + std::string(method.name));
  if (method.name == "valueOf") {
    Value boxed;
    boxed.type = result;
    boxed.ref = world_.NewBox(args[0].type.prim, args[0]);
    return boxed;
  }
  // An unmodifiable wrapper delegates, as the JDK's does.
  for (bool wrapper = true; wrapper;) {
    wrapper = false;
    for (const char* wrapped : {"c", "m"}) {
      auto& fields = world_.Get(receiver).fields;
      auto found = fields.find(wrapped);
      if (found != fields.end() && found->second.ref) {
        receiver = found->second.ref;
        wrapper = true;
      }
    }
  }
  FakeObject& object = world_.Get(receiver);
  if (method.name.ends_with("Value")) return object.fields.at("value");
  const bool is_map = method.jni_class == "java/util/Map";
  const auto size = static_cast<int32_t>(is_map ? object.entries.size() : object.elements.size());
  if (method.name == "size") return Int(size);
  if (method.name == "isEmpty") return Bool(size == 0);
  for (const auto& [key, value] : object.entries) {
    if (SameKey(world_, key, args[0])) return method.name == "get" ? value : Bool(true);
  }
  if (method.name == "get") return Null("java.lang.Object");
  return Bool(false);
}

}  // namespace jdwpx::expr::testing
