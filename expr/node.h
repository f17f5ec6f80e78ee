// The expression tree. The parser builds it from the tokens (syntax only); the
// checker then resolves each node against a Scope, in place, filling in its
// static type and what the evaluator needs (a local's slot, a field, the
// allow-listed method). After that the tree is immutable and shared.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "expr/allowed_methods.h"
#include "expr/expr.h"

namespace jdwpx::expr {

struct Expression::Node {
  enum class Kind : uint8_t {
    // Built by the parser.
    kLiteral,      // `value`
    kName,         // `name`; the checker turns it into kLocal, kField or kClass
    kThis,
    kMember,       // children[0].name; the checker: kField, kStaticField, kArrayLength or kClass
    kIndex,        // children[0][children[1]]
    kCall,         // the receiver (children[0], if op is "."), then the arguments
    kUnary,        // `op` children[0]
    kBinary,       // children[0] `op` children[1]; && and || too
    kConditional,  // children[0] ? children[1] : children[2]
    kInstanceof,   // children[0] instanceof `name`
    // Made by the checker.
    kLocal,        // `local`
    kField,        // children[0].`field`
    kStaticField,  // `field`
    kArrayLength,  // children[0].length
    kClass,        // a class named in the source (`class_name`): only as a static field's qualifier
    kUnbox,        // children[0]'s `value` field (`field`): a boxed value used as a primitive
    kMethod,       // `method` on children[0] (receiver) with children[1..] as arguments
  };

  Kind kind = Kind::kLiteral;
  size_t begin = 0;  // the node's extent in the source text
  size_t end = 0;
  std::string op;    // kUnary, kBinary; kCall: "." when it has a receiver (children[0])
  std::string name;  // kName, kMember, kCall: the identifier; kInstanceof: the type as written
  size_t name_begin = 0;  // kInstanceof: where the type starts
  std::vector<std::unique_ptr<Node>> children;
  Value value;       // kLiteral
  int depth = 1;     // the height of the subtree: bounded by kMaxNesting

  // Filled by the checker.
  Type type;                // the static type
  Type operand_type;        // kBinary: the type both operands are promoted to; kIndex: the element type
  LocalInfo local;          // kLocal
  FieldInfo field;          // kField, kStaticField, kUnbox (the box's `value` field)
  std::string class_name;   // kClass, kInstanceof: the Java name of the class
  bool string_is_instance = false;  // kInstanceof: whether a string the expression made is one
  const AllowedMethod* method = nullptr;  // kMethod
  // kMethod on a JDK collection: the JDK's own fields that tell whether a call
  // would reach application code (none when the location's Scope cannot name them).
  struct CollectionFields {
    std::optional<FieldInfo> wrapped_collection;  // Collections$UnmodifiableCollection.c
    std::optional<FieldInfo> wrapped_map;         // Collections$UnmodifiableMap.m
    std::optional<FieldInfo> comparator;          // TreeMap.comparator
  } collection_fields;
};

}  // namespace jdwpx::expr
