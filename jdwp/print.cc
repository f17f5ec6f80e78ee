#include "jdwp/print.h"

#include <cinttypes>
#include <cstdio>

#include "jdwp/commands/all.h"
#include "jdwp/packet.h"

namespace jdwpx::jdwp {
namespace print_detail {

void AppendId(std::string& out, uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, id);
  out += buf;
}

void AppendSigned(std::string& out, int64_t v) { out += std::to_string(v); }
void AppendUnsigned(std::string& out, uint64_t v) { out += std::to_string(v); }

void AppendDouble(std::string& out, double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%g", v);
  out += buf;
}

void AppendString(std::string& out, std::string_view s) {
  out += '"';
  const size_t shown = s.size() < kMaxString ? s.size() : kMaxString;
  for (size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    // Control bytes would break the one-line log; UTF-8 bytes pass through.
    if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  if (s.size() > shown) out += "...(" + std::to_string(s.size()) + " bytes)";
}

void AppendBytes(std::string& out, std::span<const uint8_t> bytes) {
  out += '<';
  out += std::to_string(bytes.size());
  out += " bytes";
  const size_t shown = bytes.size() < 16 ? bytes.size() : 16;
  if (shown > 0) out += ':';
  for (size_t i = 0; i < shown; ++i) {
    char buf[4];
    std::snprintf(buf, sizeof buf, " %02x", bytes[i]);
    out += buf;
  }
  if (bytes.size() > shown) out += " ...";
  out += '>';
}

void Append(std::string& out, Tag v) {
  const auto raw = static_cast<uint8_t>(v);
  if (IsKnownTag(raw)) {
    out += static_cast<char>(raw);
  } else {
    out += "tag#";
    AppendUnsigned(out, raw);
  }
}

void Append(std::string& out, TypeTag v) {
  switch (v) {
    case TypeTag::kClass: out += "CLASS"; return;
    case TypeTag::kInterface: out += "INTERFACE"; return;
    case TypeTag::kArray: out += "ARRAY"; return;
  }
  out += "typetag#" + std::to_string(static_cast<unsigned>(v));
}

void Append(std::string& out, EventKind v) {
  switch (v) {
    case EventKind::kSingleStep: out += "SINGLE_STEP"; return;
    case EventKind::kBreakpoint: out += "BREAKPOINT"; return;
    case EventKind::kFramePop: out += "FRAME_POP"; return;
    case EventKind::kException: out += "EXCEPTION"; return;
    case EventKind::kUserDefined: out += "USER_DEFINED"; return;
    case EventKind::kThreadStart: out += "THREAD_START"; return;
    case EventKind::kThreadDeath: out += "THREAD_DEATH"; return;
    case EventKind::kClassPrepare: out += "CLASS_PREPARE"; return;
    case EventKind::kClassUnload: out += "CLASS_UNLOAD"; return;
    case EventKind::kClassLoad: out += "CLASS_LOAD"; return;
    case EventKind::kFieldAccess: out += "FIELD_ACCESS"; return;
    case EventKind::kFieldModification: out += "FIELD_MODIFICATION"; return;
    case EventKind::kExceptionCatch: out += "EXCEPTION_CATCH"; return;
    case EventKind::kMethodEntry: out += "METHOD_ENTRY"; return;
    case EventKind::kMethodExit: out += "METHOD_EXIT"; return;
    case EventKind::kMethodExitWithReturnValue: out += "METHOD_EXIT_WITH_RETURN_VALUE"; return;
    case EventKind::kMonitorContendedEnter: out += "MONITOR_CONTENDED_ENTER"; return;
    case EventKind::kMonitorContendedEntered: out += "MONITOR_CONTENDED_ENTERED"; return;
    case EventKind::kMonitorWait: out += "MONITOR_WAIT"; return;
    case EventKind::kMonitorWaited: out += "MONITOR_WAITED"; return;
    case EventKind::kVmStart: out += "VM_START"; return;
    case EventKind::kVmDeath: out += "VM_DEATH"; return;
    case EventKind::kVmDisconnected: out += "VM_DISCONNECTED"; return;
  }
  out += "eventkind#" + std::to_string(static_cast<unsigned>(v));
}

void Append(std::string& out, SuspendPolicy v) {
  switch (v) {
    case SuspendPolicy::kNone: out += "NONE"; return;
    case SuspendPolicy::kEventThread: out += "EVENT_THREAD"; return;
    case SuspendPolicy::kAll: out += "ALL"; return;
  }
  out += "policy#" + std::to_string(static_cast<unsigned>(v));
}

void Append(std::string& out, StepSize v) {
  switch (v) {
    case StepSize::kMin: out += "MIN"; return;
    case StepSize::kLine: out += "LINE"; return;
  }
  out += "size#" + std::to_string(static_cast<int32_t>(v));
}

void Append(std::string& out, StepDepth v) {
  switch (v) {
    case StepDepth::kInto: out += "INTO"; return;
    case StepDepth::kOver: out += "OVER"; return;
    case StepDepth::kOut: out += "OUT"; return;
  }
  out += "depth#" + std::to_string(static_cast<int32_t>(v));
}

void Append(std::string& out, const Location& v) {
  out += '{';
  Append(out, v.type_tag);
  out += ' ';
  AppendId(out, v.class_id.value);
  out += ' ';
  AppendId(out, v.method_id.value);
  out += " @";
  AppendUnsigned(out, v.index);
  out += '}';
}

void Append(std::string& out, const TaggedObjectId& v) {
  Append(out, v.tag);
  out += ':';
  AppendId(out, v.id.value);
}

namespace {

void AppendData(std::string& out, Tag tag, uint64_t bits) {
  switch (tag) {
    case Tag::kVoid: break;
    case Tag::kBoolean: out += bits != 0 ? "true" : "false"; break;
    case Tag::kByte: AppendSigned(out, static_cast<int8_t>(bits)); break;
    case Tag::kShort: AppendSigned(out, static_cast<int16_t>(bits)); break;
    case Tag::kInt: AppendSigned(out, static_cast<int32_t>(bits)); break;
    case Tag::kLong: AppendSigned(out, static_cast<int64_t>(bits)); break;
    case Tag::kChar: {
      char buf[12];
      std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(bits & 0xffff));
      out += buf;
      break;
    }
    case Tag::kFloat: AppendDouble(out, Value{Tag::kFloat, bits}.as_float()); break;
    case Tag::kDouble: AppendDouble(out, Value{Tag::kDouble, bits}.as_double()); break;
    default: AppendId(out, bits); break;
  }
}

}  // namespace

void Append(std::string& out, const Value& v) {
  Append(out, v.tag);
  if (v.tag == Tag::kVoid) return;
  out += ':';
  AppendData(out, v.tag, v.bits);
}

void Append(std::string& out, const UntaggedValue& v) { AppendData(out, v.tag, v.bits); }

void Append(std::string& out, const WireString& v) {
  if (v.wire.empty()) {
    AppendString(out, v.text);
    return;
  }
  out += "(a string of " + std::to_string(v.wire.size() - v.wire_offset - 4) + " bytes in wire form)";
}

void Append(std::string& out, const ArrayRegion& v) {
  Append(out, v.tag);
  if (IsObjectTag(v.tag)) {
    AppendAny(out, v.values);  // items carry their own (most specific) tags
    return;
  }
  out += '[';  // primitive items are bare data of the region's type
  for (size_t i = 0; i < v.values.size() && i < kMaxItems; ++i) {
    if (i > 0) out += ", ";
    AppendData(out, v.tag, v.values[i].bits);
  }
  if (v.values.size() > kMaxItems) out += ", ... (" + std::to_string(v.values.size()) + " items)";
  out += ']';
}

void CapLine(std::string& out) {
  if (out.size() > kMaxLine) {
    out.resize(kMaxLine);
    out += "...";
  }
}

}  // namespace print_detail

std::string DescribePacket(std::span<const uint8_t> whole_packet) {
  Result<Packet> packet = ParsePacket(whole_packet);
  if (!packet) return "malformed packet (" + packet.error().detail + ")";
  std::string out;
  if (packet->is_reply()) {
    out = "reply id=" + std::to_string(packet->id) + ' ';
    out += ErrorName(packet->error);
    if (ErrorName(packet->error) == "UNKNOWN_ERROR") out += '(' + std::to_string(static_cast<unsigned>(packet->error)) + ')';
  } else {
    std::string_view name = CommandName(packet->command_set, packet->command);
    if (name.empty()) {
      out = "command " + std::to_string(packet->command_set) + '.' + std::to_string(packet->command);
    } else {
      out = name;
    }
    out += " id=" + std::to_string(packet->id);
  }
  out += " len=" + std::to_string(whole_packet.size());
  return out;
}

std::string DescribeCommandData(uint8_t set, uint8_t command, std::span<const uint8_t> data) {
  std::string out;
  bool known = VisitCommand(set, command, [&]<class C>(std::type_identity<C>) {
    size_t leftover = 0;
    auto request = DecodeBody<typename C::Request>(data, &leftover);
    if (!request) {
      out = request.error().detail;
      return;
    }
    out = Describe(*request);
    if (leftover > 0) out += " (+" + std::to_string(leftover) + " trailing bytes)";
  });
  if (!known) out = "unknown command";
  return out;
}

}  // namespace jdwpx::jdwp

namespace jdwpx::jdwp {

std::string DescribeReplyData(uint8_t set, uint8_t command, std::span<const uint8_t> data) {
  std::string out;
  bool known = VisitCommand(set, command, [&]<class C>(std::type_identity<C>) {
    size_t leftover = 0;
    auto reply = DecodeBody<typename C::Reply>(data, &leftover);
    if (!reply) {
      out = reply.error().detail;
      return;
    }
    out = Describe(*reply);
    if (leftover > 0) out += " (+" + std::to_string(leftover) + " trailing bytes)";
  });
  if (!known) out = "unknown command";
  return out;
}

}  // namespace jdwpx::jdwp
