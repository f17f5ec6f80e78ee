#include "backend/probes/probes.h"

#include <algorithm>

#include <fmt/format.h>

#include "backend/ids/class_names.h"
#include "backend/log.h"
#include "backend/probes/live_locals.h"
#include "hotspot/interpreter_frame.h"
#include "jdwp/packet.h"

namespace jdwpx::backend::probes {

using jdwp::ErrorCode;
using jdwp::Probe::Kind;
using jdwp::Probe::NoticeKind;
using jdwp::Probe::State;

namespace {

std::string JavaNameOf(const vmcore::Jvmti& jvmti, jclass klass) {
  auto sig = jvmti.GetClassSignature(klass);
  return sig ? DottedName(sig->signature) : std::string();
}

bool Prepared(const vmcore::Jvmti& jvmti, jclass klass) {
  auto status = jvmti.GetClassStatus(klass);
  return status && (*status & JVMTI_CLASS_STATUS_PREPARED) && !(*status & JVMTI_CLASS_STATUS_ARRAY) &&
         !(*status & JVMTI_CLASS_STATUS_PRIMITIVE);
}

}  // namespace

Probes::Probes(Context& ctx, EventRequests& requests, Outbox& outbox)
    : ctx_(ctx), requests_(requests), outbox_(outbox) {}

Probes::~Probes() {
  if (listening_) requests_.SetClassPrepareListener(nullptr, nullptr);
}

std::string Probes::LocationText(jmethodID method, int32_t line) {
  std::string klass, name;
  if (auto declaring = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = JavaNameOf(ctx_.jvmti, *declaring);
  if (auto n = ctx_.jvmti.GetMethodName(method)) name = n->name;
  return line > 0 ? fmt::format("{}.{}:{}", klass, name, line) : fmt::format("{}.{}", klass, name);
}

tl::expected<std::vector<std::shared_ptr<ProbeAtPlace>>, std::string> Probes::Prepare(
    JNIEnv* jni, const std::shared_ptr<Probe>& probe, jclass klass) {
  const ProbeSettings& settings = probe->settings();
  auto places = PlacesIn(settings.location, ctx_.jvmti, klass);
  if (!places) return tl::unexpected(places.error());
  std::vector<std::shared_ptr<ProbeAtPlace>> prepared;
  for (const Place& place : *places) {
    const std::string where = LocationText(place.method, place.line);
    auto made = JvmtiScope::Make(ctx_.jvmti, jni, place.method, place.location);
    if (!made) return tl::unexpected(fmt::format("{}: {}", where, made.error()));
    std::shared_ptr<JvmtiScope> scope = std::move(*made);
    std::optional<expr::Expression> condition;
    if (!settings.condition.empty()) {
      auto compiled = expr::Expression::Compile(settings.condition, *scope);
      if (!compiled) return tl::unexpected(fmt::format("--if at {}: {}", where, compiled.error().message));
      if (compiled->type() != expr::Type::Primitive(expr::Prim::kBoolean))
        return tl::unexpected(fmt::format("--if at {}: `{}` is not a boolean", where, settings.condition));
      condition = std::move(*compiled);
    }
    std::optional<expr::Template> message;
    if (settings.kind == Kind::kLog) {
      auto compiled = expr::Template::Compile(settings.message_template, *scope);
      if (!compiled) return tl::unexpected(fmt::format("message at {}: {}", where, compiled.error().message));
      message = std::move(*compiled);
    }
    auto at = std::make_shared<ProbeAtPlace>(*this, probe, place, std::move(scope), std::move(condition),
                                             std::move(message));
    at->set_location_text(where);
    prepared.push_back(std::move(at));
  }
  return prepared;
}

int32_t Probes::Arm(Entry& entry, std::vector<std::shared_ptr<ProbeAtPlace>> at) {
  int32_t armed = 0;
  for (auto& place : at) {
    const bool known = std::any_of(entry.places.begin(), entry.places.end(), [&](const auto& p) {
      return p->place().method == place->place().method && p->place().location == place->place().location;
    });
    if (known) continue;
    auto set = requests_.AddProbePlace(place->place().method, place->place().location, place);
    if (!set) {
      Log().warn("probe {}: its breakpoint at {} cannot be set: {}", entry.probe->id(),
                 LocationText(place->place().method, place->place().line), set.error().detail);
      continue;
    }
    entry.places.push_back(std::move(place));
    ++armed;
  }
  entry.probe->places = static_cast<int32_t>(entry.places.size());
  return armed;
}

void Probes::Disarm(Entry& entry) {
  for (auto& place : entry.places)
    requests_.RemoveProbePlace(place->place().method, place->place().location, place.get());
  // Code compiled while the breakpoints were set calls the probed methods
  // instead of inlining them, and would stay so (caller_sample.h).
  // Each caller once: places of one probe (a file's classes) may share them, and
  // each discard is two VM operations.
  std::vector<jmethodID> callers;
  for (auto& place : entry.places)
    for (jmethodID caller : place->Callers())
      if (std::find(callers.begin(), callers.end(), caller) == callers.end()) callers.push_back(caller);
  for (jmethodID caller : callers) requests_.DiscardCompiledCode(caller);
  entry.places.clear();
  entry.probe->places = 0;
}

void Probes::UpdateListener(JNIEnv* jni) {
  // Every probe may take classes loaded later: a file's other classes, the
  // same class in another loader.
  bool want = std::any_of(entries_.begin(), entries_.end(), [](const auto& e) {
    State s = e.second.probe->state.load();
    return s == State::kArmed || s == State::kDeferred;
  });
  if (want == listening_) return;
  listening_ = want;
  requests_.SetClassPrepareListener(jni, want ? this : nullptr);
}

jdwp::Probe::Set::Reply Probes::Set(JNIEnv* jni, const jdwp::Probe::Set::Request& request, SessionSlot session) {
  jdwp::Probe::Set::Reply reply;
  auto refuse = [&](std::string problem) {
    reply.probe_id = 0;
    reply.problem = std::move(problem);
    return reply;
  };
  if (request.kind != Kind::kLog && request.kind != Kind::kSnapshot)
    return refuse(fmt::format("kind {}: a probe is a log (1) or a snapshot (2)", static_cast<int>(request.kind)));
  auto location = ParseLocation(request.location);
  if (!location) return refuse(location.error());
  if (request.max_hits < 0 || request.max_frames < 0 || request.max_depth < 0 || request.rate < 0 ||
      request.budget_ppm < 0)
    return refuse("limits must not be negative");
  ProbeSettings settings;
  settings.kind = request.kind;
  settings.location = std::move(*location);
  settings.message_template = request.message_template;
  settings.condition = request.condition;
  settings.max_hits = request.max_hits > 0 ? request.max_hits : (request.kind == Kind::kSnapshot ? 1 : 0);
  if (request.max_frames > 0) settings.max_frames = std::min(request.max_frames, 1000);
  if (request.max_depth > 0) settings.max_depth = std::min(request.max_depth, 16);
  if (request.rate > 0) settings.rate = request.rate;
  if (request.budget_ppm > 0) settings.budget_ppm = std::min(request.budget_ppm, CpuBudget::kMaxPpm);

  LiveLocals::Prepare(jni);
  // Learnt here, on a platform thread, rather than at a first hit (which may be
  // a virtual thread's, with no eetop of its own) on the probes' CPU budget.
  hotspot::InterpreterFrames::Get(jni);
  std::lock_guard lock(mu_);
  auto probe = std::make_shared<Probe>(next_id_, outbox_.connection(session), std::move(settings));
  const ProbeSettings& s = probe->settings();
  // Every loaded class the location names; all must take the probe, or none does.
  std::vector<std::shared_ptr<ProbeAtPlace>> at;
  if (auto classes = ctx_.jvmti.LoadedClasses()) {
    for (jclass klass : *classes) {
      // A file's classes are known by their source file, the others by name.
      const bool by_file = s.location.form == LocationSpec::Form::kFileLine;
      if (Prepared(ctx_.jvmti, klass) &&
          Names(s.location, ctx_.jvmti, klass, by_file ? std::string() : JavaNameOf(ctx_.jvmti, klass))) {
        auto prepared = Prepare(jni, probe, klass);
        if (!prepared) {
          for (jclass k : *classes) jni->DeleteLocalRef(k);
          return refuse(prepared.error());
        }
        for (auto& p : *prepared) at.push_back(std::move(p));
      }
    }
    for (jclass k : *classes) jni->DeleteLocalRef(k);
  }
  ++next_id_;
  Entry& entry = entries_[probe->id()];
  entry.probe = probe;
  // Armed before it is listed: a hit may come before the reply goes.
  probe->state = at.empty() ? State::kDeferred : State::kArmed;
  Arm(entry, std::move(at));
  if (entry.places.empty()) probe->state = State::kDeferred;
  int32_t ppm = CpuBudget::kDefaultPpm;
  for (const auto& [id, e] : entries_) ppm = std::max(ppm, e.probe->settings().budget_ppm);
  if (ppm != budget_.ppm()) budget_.SetPpm(ppm);
  UpdateListener(jni);
  reply.probe_id = probe->id();
  reply.places = probe->places.load();
  Log().debug("probe {} set at {}: {} places", probe->id(), s.location.text, reply.places);
  return reply;
}

jdwp::Result<int32_t> Probes::Clear(JNIEnv* jni, int32_t probe_id, SessionSlot session) {
  const int32_t cleared = ClearOf(jni, probe_id, outbox_.connection(session));
  if (probe_id != 0 && cleared == 0) return jdwp::Fail(ErrorCode::kInvalidIndex, "no such probe");
  return cleared;
}

int32_t Probes::ClearOf(JNIEnv* jni, int32_t probe_id, uint64_t connection) {
  std::lock_guard lock(mu_);
  int32_t cleared = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if ((probe_id != 0 && it->first != probe_id) || it->second.probe->connection() != connection) {
      ++it;
      continue;
    }
    Disarm(it->second);
    it->second.probe->state = State::kDone;
    it = entries_.erase(it);
    ++cleared;
  }
  UpdateListener(jni);
  return cleared;
}

jdwp::Probe::List::Reply Probes::List(SessionSlot session) {
  const uint64_t connection = outbox_.connection(session);
  std::lock_guard lock(mu_);
  jdwp::Probe::List::Reply reply;
  for (const auto& [id, entry] : entries_) {
    const Probe& p = *entry.probe;
    if (p.connection() != connection) continue;
    jdwp::Probe::List::Info info;
    info.probe_id = id;
    info.kind = p.settings().kind;
    info.state = p.state.load();
    info.location = p.settings().location.text;
    info.message_template = p.settings().message_template;
    info.condition = p.settings().condition;
    info.places = p.places.load();
    info.hits = p.hits.load();
    info.matched = p.matched.load();
    info.suppressed = p.suppressed.load();
    reply.probes.push_back(std::move(info));
  }
  return reply;
}

void Probes::EndSession(JNIEnv* jni, uint64_t connection) { (void)ClearOf(jni, 0, connection); }

void Probes::AfterRedefine(JNIEnv* jni, const std::vector<jclass>& classes) {
  std::lock_guard lock(mu_);
  for (auto& [id, entry] : entries_) {
    if (entry.probe->state.load() != State::kArmed) continue;
    bool touched = false;
    for (auto it = entry.places.begin(); it != entry.places.end();) {
      bool in_classes = false;
      if (auto declaring = ctx_.jvmti.GetMethodDeclaringClass((*it)->place().method)) {
        for (jclass k : classes) in_classes = in_classes || jni->IsSameObject(*declaring, k);
        jni->DeleteLocalRef(*declaring);
      }
      if (!in_classes) {
        ++it;
        continue;
      }
      // JVMTI cleared the breakpoint with the old code; the place's entry goes.
      requests_.RemoveProbePlace((*it)->place().method, (*it)->place().location, it->get());
      it = entry.places.erase(it);
      touched = true;
    }
    if (!touched) continue;
    for (jclass k : classes) {
      auto prepared = Prepare(jni, entry.probe, k);
      if (!prepared) {
        Notice(*entry.probe, NoticeKind::kRefused,
               fmt::format("after {} was redefined: {}", JavaNameOf(ctx_.jvmti, k), prepared.error()));
        continue;
      }
      Arm(entry, std::move(*prepared));
    }
    Notice(*entry.probe, NoticeKind::kArmed,
           fmt::format("set again after redefinition: {} places", entry.probe->places.load()));
  }
}

void Probes::OnClassPrepared(JNIEnv* jni, jclass klass) {
  std::lock_guard lock(mu_);
  std::string name;
  for (auto& [id, entry] : entries_) {
    Probe& probe = *entry.probe;
    State state = probe.state.load();
    if (state != State::kArmed && state != State::kDeferred) continue;
    const LocationSpec& spec = probe.settings().location;
    if (spec.form != LocationSpec::Form::kFileLine && name.empty()) name = JavaNameOf(ctx_.jvmti, klass);
    if (!Names(spec, ctx_.jvmti, klass, name)) continue;
    auto prepared = Prepare(jni, entry.probe, klass);
    if (!prepared) {
      Notice(probe, NoticeKind::kRefused, prepared.error());
      continue;
    }
    if (prepared->empty()) continue;
    const int32_t armed = Arm(entry, std::move(*prepared));
    if (armed == 0) continue;
    if (state == State::kDeferred) probe.state = State::kArmed;
    Notice(probe, NoticeKind::kArmed,
           fmt::format("{} prepared: set at {} places", name.empty() ? JavaNameOf(ctx_.jvmti, klass) : name, armed));
  }
}

void Probes::Send(const Probe& probe, jdwp::CommandId command, std::vector<uint8_t> body) {
  // Never waits for the client: a thread of the program sends it.
  if (outbox_.SendSoonTo(probe.connection(), jdwp::MakeCommandPacket(next_packet_id_.fetch_add(1), command, body))) {
    probe.backlogged.store(true, std::memory_order_relaxed);
  }
}

bool Probes::StillBacklogged(const Probe& probe) {
  if (outbox_.ConnectionBacklogged(probe.connection())) return true;
  probe.backlogged.store(false, std::memory_order_relaxed);
  return false;
}

void Probes::Notice(const Probe& probe, NoticeKind kind, const std::string& message) {
  jdwp::Probe::Notice::Request notice{probe.id(), kind, message};
  Send(probe, jdwp::Probe::Notice::kId, jdwp::EncodeBody(notice));
}

void Probes::TakeOut(const std::shared_ptr<Probe>& probe, State state) {
  State armed = State::kArmed;
  // The first hit to see the limit does it; the others that raced it find the state changed.
  if (!probe->state.compare_exchange_strong(armed, state)) return;
  if (state == State::kPaused)
    Notice(*probe, NoticeKind::kPaused,
           fmt::format("the probes' CPU budget ({}% of one core) is spent: the probe is out of the VM (raise it with "
                       "--budget)",
                       budget_.ppm() / 10000.0));
  else
    Notice(*probe, NoticeKind::kDone,
           fmt::format("after {} {}", probe->settings().max_hits, probe->settings().max_hits == 1 ? "hit" : "hits"));
  std::weak_ptr<Probe> weak = probe;
  outbox_.PostTask([this, weak](JNIEnv* jni) {
    auto p = weak.lock();
    if (!p) return;
    std::lock_guard lock(mu_);
    auto it = entries_.find(p->id());
    if (it == entries_.end() || it->second.probe != p) return;
    Disarm(it->second);
    UpdateListener(jni);
  });
}

}  // namespace jdwpx::backend::probes
