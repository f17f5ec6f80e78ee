// ThreadGroupReference command set (12).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "backend/ids/wire_string.h"
#include "jdwp/commands/thread_group_reference.h"

namespace jdwpx::backend {

namespace TG = jdwp::ThreadGroupReference;
using jdwp::ErrorCode;

namespace {

class ThreadGroupReferenceHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<TG::Name::Reply> Name(const TG::Name::Request& req) {
    ASSIGN_OR_RETURN(jthreadGroup g, ctx_.ThreadGroup(env(), req.group));
    VM_ASSIGN_OR_RETURN(auto info, ctx_.jvmti.GetThreadGroupInfo(g));
    return TG::Name::Reply{ToWireString(info.name)};
  }

  jdwp::Result<TG::Parent::Reply> Parent(const TG::Parent::Request& req) {
    ASSIGN_OR_RETURN(jthreadGroup g, ctx_.ThreadGroup(env(), req.group));
    VM_ASSIGN_OR_RETURN(auto info, ctx_.jvmti.GetThreadGroupInfo(g));
    return TG::Parent::Reply{ctx_.IdOf<jdwp::ThreadGroupId>(env(), info.parent)};
  }

  jdwp::Result<TG::Children::Reply> Children(const TG::Children::Request& req) {
    ASSIGN_OR_RETURN(jthreadGroup g, ctx_.ThreadGroup(env(), req.group));
    VM_ASSIGN_OR_RETURN(auto children, ctx_.jvmti.GetThreadGroupChildren(g));
    TG::Children::Reply r;
    for (jthread t : children.threads) {
      if (!ctx_.threads.IsAgentThread(env(), t)) r.child_threads.push_back(ctx_.IdOf<jdwp::ThreadId>(env(), t));
      env()->DeleteLocalRef(t);
    }
    for (jthreadGroup child : children.groups) {
      r.child_groups.push_back(ctx_.IdOf<jdwp::ThreadGroupId>(env(), child));
      env()->DeleteLocalRef(child);
    }
    return r;
  }
};

}  // namespace

void BindThreadGroupReference(Dispatcher& d, const CommandEnv& env) {
  using H = ThreadGroupReferenceHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<TG::Name>(std::bind_front(&H::Name, h));
  d.Bind<TG::Parent>(std::bind_front(&H::Parent, h));
  d.Bind<TG::Children>(std::bind_front(&H::Children, h));
}

}  // namespace jdwpx::backend
