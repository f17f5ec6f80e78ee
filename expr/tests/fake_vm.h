// A fake of the JVM for expr's tests: a Scope and a Heap over plain C++ data.
// Objects are structs owned by the world; a Ref is a pointer to one. Every
// Heap::Call is logged, so that tests can check which calls happened.
#pragma once

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "expr/expr.h"

namespace jdwpx::expr::testing {

struct FakeObject {
  std::string class_name;
  bool boot = false;                      // loaded by the boot loader
  std::map<std::string, Value> fields;    // instance fields by name
  std::vector<Value> elements;            // arrays and collections
  std::vector<std::pair<Value, Value>> entries;  // maps
  std::u16string text;                    // java.lang.String
  int32_t hash = 0;
};

class FakeWorld {
 public:
  FakeWorld();

  // Building the world.
  Ref NewObject(std::string class_name, bool boot = false);
  Ref NewString(std::u16string text);
  Ref NewBox(Prim prim, Value value);
  Ref NewArray(std::string class_name, std::vector<Value> elements);
  void AddClass(std::string java_name, std::vector<std::string> aliases = {}, std::vector<std::string> supertypes = {});
  FieldInfo AddField(const std::string& class_name, const std::string& name, Type type, bool is_static = false);
  void SetStatic(const FieldInfo& field, Value value);
  void SetLocal(const std::string& name, Type type, Value value);
  void SetThis(Type type, Value value);
  void SetStaticMethod(std::string location_class);  // no `this`

  FakeObject& Get(Ref ref) { return *static_cast<FakeObject*>(ref); }

  // What Scope answers.
  std::map<std::string, LocalInfo> locals;
  std::optional<Type> this_type;
  std::optional<std::string> location_class;
  std::map<std::string, std::map<std::string, FieldInfo>> fields;  // class -> name -> field
  std::map<std::string, std::string> class_names;                  // as written -> Java name
  std::map<std::string, std::set<std::string>> supertypes;         // class -> all its supertypes

  // What Heap reads.
  std::map<int32_t, Value> local_values;  // by slot
  Value this_value;
  std::map<uint64_t, Value> statics;      // by field handle
  std::vector<std::string> field_names;   // by field handle
  std::vector<std::string> calls;         // "java/util/Collection.size", in order
  int64_t string_units_read = 0;  // UTF-16 units StringText returned, all reads
  std::deque<FakeObject> objects;
};

class FakeScope : public Scope {
 public:
  explicit FakeScope(const FakeWorld& world) : world_(world) {}
  std::optional<LocalInfo> Local(std::string_view name) const override;
  std::optional<Type> This() const override;
  std::optional<FieldInfo> Field(std::string_view class_name, std::string_view name) const override;
  std::optional<std::string> Class(std::string_view name) const override;
  bool IsSubtype(std::string_view sub, std::string_view super) const override;
  std::optional<std::string> LocationClass() const override { return world_.location_class; }

 private:
  const FakeWorld& world_;
};

class FakeHeap : public Heap {
 public:
  explicit FakeHeap(FakeWorld& world) : world_(world) {}
  Result<Value> Local(const LocalInfo& local) override;
  Result<Value> This() override;
  Result<Value> GetField(Ref object, const FieldInfo& field) override;
  Result<int32_t> ArrayLength(Ref array) override;
  Result<Value> ArrayElement(Ref array, int32_t index, const Type& element) override;
  Result<std::u16string> StringText(Ref string, size_t max_units) override;
  std::string RuntimeClass(Ref object) override;
  bool IsBootClass(Ref object) override;
  bool SameObject(Ref a, Ref b) override { return a == b; }
  bool InstanceOf(Ref object, std::string_view class_name) override;
  int32_t IdentityHash(Ref object) override;
  Result<Ref> NewString(std::u16string_view text) override;
  Result<Value> Call(const MethodRef& method, Ref receiver, std::span<const Value> args, const Type& result) override;

 private:
  FakeWorld& world_;
};

// Values for building the world.
Value Int(int32_t i);
Value Long(int64_t j);
Value Float(float f);
Value Double(double d);
Value Char(char16_t c);
Value Bool(bool z);
Value Byte(int8_t b);
Value Short(int16_t s);
Value Object(Ref ref, std::string type);
Value Null(std::string type);

}  // namespace jdwpx::expr::testing
