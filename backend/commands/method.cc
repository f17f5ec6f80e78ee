// Method command set (6).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "backend/ids/wire_string.h"
#include "jdwp/commands/method.h"

namespace jdwpx::backend {

namespace M = jdwp::Method;
using jdwp::ErrorCode;

namespace {

// The class and method of a (refType, methodID) pair; the method must belong to the class.
jdwp::Result<jmethodID> MethodOf(Context& c, JNIEnv* jni, jdwp::ReferenceTypeId type, jdwp::MethodId id) {
  ASSIGN_OR_RETURN(jclass klass, c.Class(jni, type));
  (void)klass;
  return c.Method(id);
}

template <class Slot, bool kGeneric>
jdwp::Result<std::pair<int32_t, std::vector<Slot>>> VariablesOf(Context& c, JNIEnv* jni, jdwp::ReferenceTypeId type,
                                                                jdwp::MethodId id) {
  ASSIGN_OR_RETURN(jmethodID m, MethodOf(c, jni, type, id));
  VM_ASSIGN_OR_RETURN(bool native, c.jvmti.IsMethodNative(m));
  if (native) return jdwp::Fail(ErrorCode::kNativeMethod, "native method");
  VM_ASSIGN_OR_RETURN(jint args, c.jvmti.GetArgumentsSize(m));
  VM_ASSIGN_OR_RETURN(auto table, c.jvmti.GetLocalVariableTable(m));
  std::vector<Slot> slots;
  for (auto& v : table) {
    Slot s{};
    s.code_index = v.start;
    s.name = ToWireString(v.name);
    s.signature = ToWireString(v.signature);
    if constexpr (kGeneric) s.generic_signature = ToWireString(v.generic);
    s.length = v.length;
    s.slot = v.slot;
    slots.push_back(std::move(s));
  }
  return std::make_pair(static_cast<int32_t>(args), std::move(slots));
}

class MethodHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<M::LineTable::Reply> LineTable(const M::LineTable::Request& req) {
    ASSIGN_OR_RETURN(jmethodID m, MethodOf(ctx_, env(), req.ref_type, req.method_id));
    VM_ASSIGN_OR_RETURN(bool native, ctx_.jvmti.IsMethodNative(m));
    if (native) return jdwp::Fail(ErrorCode::kNativeMethod, "native method");
    VM_ASSIGN_OR_RETURN(auto range, ctx_.jvmti.GetMethodLocation(m));
    M::LineTable::Reply r;
    r.start = range.first;
    r.end = range.second;
    // A method compiled without line numbers gets its range and no lines, as stock
    // (JDI then reports no line instead of failing a step that lands there).
    for (const auto& e : *ctx_.LineTable(m)) r.lines.push_back({e.start, e.line});
    return r;
  }

  jdwp::Result<M::VariableTable::Reply> VariableTable(const M::VariableTable::Request& req) {
    ASSIGN_OR_RETURN(auto vars, (VariablesOf<M::VariableTable::Slot, false>(ctx_, env(), req.ref_type, req.method_id)));
    return M::VariableTable::Reply{vars.first, std::move(vars.second)};
  }

  jdwp::Result<M::Bytecodes::Reply> Bytecodes(const M::Bytecodes::Request& req) {
    ASSIGN_OR_RETURN(jmethodID m, MethodOf(ctx_, env(), req.ref_type, req.method_id));
    // A native method has no bytecodes: an empty array, not an error (as stock).
    VM_ASSIGN_OR_RETURN(bool native, ctx_.jvmti.IsMethodNative(m));
    if (native) return M::Bytecodes::Reply{};
    VM_ASSIGN_OR_RETURN(auto code, ctx_.jvmti.GetBytecodes(m));
    return M::Bytecodes::Reply{std::move(code)};
  }

  jdwp::Result<M::IsObsolete::Reply> IsObsolete(const M::IsObsolete::Request& req) {
    // Method ID 0 is what an obsolete method's location carries (Context::LocationOf): obsolete, as stock.
    if (req.method_id.is_null()) {
      ASSIGN_OR_RETURN(jclass klass, ctx_.Class(env(), req.ref_type));
      env()->DeleteLocalRef(klass);
      return M::IsObsolete::Reply{true};
    }
    ASSIGN_OR_RETURN(jmethodID m, MethodOf(ctx_, env(), req.ref_type, req.method_id));
    // A method JVMTI cannot answer for is reported obsolete (as stock).
    auto obsolete = ctx_.jvmti.IsMethodObsolete(m);
    return M::IsObsolete::Reply{obsolete ? *obsolete : true};
  }

  jdwp::Result<M::VariableTableWithGeneric::Reply> VariableTableWithGeneric(
      const M::VariableTableWithGeneric::Request& req) {
    ASSIGN_OR_RETURN(auto vars,
                     (VariablesOf<M::VariableTableWithGeneric::Slot, true>(ctx_, env(), req.ref_type, req.method_id)));
    return M::VariableTableWithGeneric::Reply{vars.first, std::move(vars.second)};
  }
};

}  // namespace

void BindMethod(Dispatcher& d, const CommandEnv& env) {
  using H = MethodHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<M::LineTable>(std::bind_front(&H::LineTable, h));
  d.Bind<M::VariableTable>(std::bind_front(&H::VariableTable, h));
  d.Bind<M::Bytecodes>(std::bind_front(&H::Bytecodes, h));
  d.Bind<M::IsObsolete>(std::bind_front(&H::IsObsolete, h));
  d.Bind<M::VariableTableWithGeneric>(std::bind_front(&H::VariableTableWithGeneric, h));
}

}  // namespace jdwpx::backend
