// The agent's hand-written encoder (trace/wire.h) against protobuf's own
// classes generated from trace.proto: same field numbers, same bytes; and the
// reader's ParseRecord (libprotobuf) gives back what was encoded.
#include <gtest/gtest.h>

#include "trace/reader.h"
#include "trace/trace.pb.h"
#include "trace/wire.h"

namespace jdwpx::trace {
namespace {

template <auto Member, class F>
constexpr bool Is() {
  if constexpr (std::is_same_v<decltype(Member), std::remove_const_t<decltype(F::kMember)>>) return F::kMember == Member;
  return false;
}
// The number records.h gives a member.
template <auto Member, class M>
constexpr uint32_t NumberOf() {
  return std::apply([](auto... f) { return ((Is<Member, decltype(f)>() ? decltype(f)::kNumber : 0) + ...); },
                    TraceFields(static_cast<const M*>(nullptr)));
}
template <class M>
constexpr size_t FieldCount() {
  return std::tuple_size_v<decltype(TraceFields(static_cast<const M*>(nullptr)))>;
}

#define SAME_NUMBER(M, member, Proto, Constant) \
  static_assert(NumberOf<&M::member, M>() == proto::Proto::Constant, #M "." #member)

SAME_NUMBER(Record, time_ns, Record, kTimeNsFieldNumber);
SAME_NUMBER(Record, header, Record, kHeaderFieldNumber);
SAME_NUMBER(Record, session, Record, kSessionFieldNumber);
SAME_NUMBER(Record, packet, Record, kPacketFieldNumber);
SAME_NUMBER(Record, event, Record, kEventFieldNumber);
SAME_NUMBER(Record, suspension, Record, kSuspensionFieldNumber);
SAME_NUMBER(Record, agent_error, Record, kAgentErrorFieldNumber);
SAME_NUMBER(Record, dropped, Record, kDroppedFieldNumber);
SAME_NUMBER(Header, magic, Header, kMagicFieldNumber);
SAME_NUMBER(Header, format_version, Header, kFormatVersionFieldNumber);
SAME_NUMBER(Header, jdwpx_version, Header, kJdwpxVersionFieldNumber);
SAME_NUMBER(Header, vm_name, Header, kVmNameFieldNumber);
SAME_NUMBER(Header, vm_version, Header, kVmVersionFieldNumber);
SAME_NUMBER(Header, pid, Header, kPidFieldNumber);
SAME_NUMBER(Header, options, Header, kOptionsFieldNumber);
SAME_NUMBER(Header, start_wall_ns, Header, kStartWallNsFieldNumber);
SAME_NUMBER(Header, start_mono_ns, Header, kStartMonoNsFieldNumber);
SAME_NUMBER(Header, segment, Header, kSegmentFieldNumber);
SAME_NUMBER(Header, bodies, Header, kBodiesFieldNumber);
SAME_NUMBER(Session, kind, Session, kKindFieldNumber);
SAME_NUMBER(Session, peer, Session, kPeerFieldNumber);
SAME_NUMBER(Session, reason, Session, kReasonFieldNumber);
SAME_NUMBER(Session, number, Session, kNumberFieldNumber);
SAME_NUMBER(Session, handshake_ns, Session, kHandshakeNsFieldNumber);
SAME_NUMBER(Session, connection, Session, kConnectionFieldNumber);
SAME_NUMBER(Packet, connection, Packet, kConnectionFieldNumber);
SAME_NUMBER(Packet, thread, Packet, kThreadFieldNumber);
SAME_NUMBER(Packet, direction, Packet, kDirectionFieldNumber);
SAME_NUMBER(Packet, id, Packet, kIdFieldNumber);
SAME_NUMBER(Packet, reply, Packet, kReplyFieldNumber);
SAME_NUMBER(Packet, command_set, Packet, kCommandSetFieldNumber);
SAME_NUMBER(Packet, command, Packet, kCommandFieldNumber);
SAME_NUMBER(Packet, error_code, Packet, kErrorCodeFieldNumber);
SAME_NUMBER(Packet, length, Packet, kLengthFieldNumber);
SAME_NUMBER(Packet, latency_ns, Packet, kLatencyNsFieldNumber);
SAME_NUMBER(Packet, bytes, Packet, kBytesFieldNumber);
SAME_NUMBER(Event, kind, Event, kKindFieldNumber);
SAME_NUMBER(Event, request_id, Event, kRequestIdFieldNumber);
SAME_NUMBER(Event, thread, Event, kThreadFieldNumber);
SAME_NUMBER(Event, suspend_policy, Event, kSuspendPolicyFieldNumber);
SAME_NUMBER(Event, composite_size, Event, kCompositeSizeFieldNumber);
SAME_NUMBER(Event, packet_id, Event, kPacketIdFieldNumber);
SAME_NUMBER(Suspension, suspended, Suspension, kSuspendedFieldNumber);
SAME_NUMBER(Suspension, by, Suspension, kByFieldNumber);
SAME_NUMBER(Suspension, packet_id, Suspension, kPacketIdFieldNumber);
SAME_NUMBER(AgentError, message, AgentError, kMessageFieldNumber);
SAME_NUMBER(Dropped, count, Dropped, kCountFieldNumber);
SAME_NUMBER(Record, thread_name, Record, kThreadNameFieldNumber);
SAME_NUMBER(ThreadName, thread, ThreadName, kThreadFieldNumber);
SAME_NUMBER(ThreadName, name, ThreadName, kNameFieldNumber);

// Every field of the schema is declared (a field added to trace.proto and not
// to records.h fails here).
TEST(Schema, EveryProtoFieldIsDeclared) {
  EXPECT_EQ(FieldCount<Record>(), 9u);
  EXPECT_EQ(FieldCount<Header>(), 11u);
  EXPECT_EQ(FieldCount<Packet>(), 11u);
  EXPECT_EQ(FieldCount<Session>(), 6u);
  EXPECT_EQ(FieldCount<Event>(), 6u);
  EXPECT_EQ(FieldCount<Suspension>(), 3u);
  EXPECT_EQ(FieldCount<ThreadName>(), 2u);
}

std::string Bytes(const proto::Record& r) {
  std::string s;
  EXPECT_TRUE(r.SerializeToString(&s));
  return s;
}

void ExpectSameBytes(const Record& mine, const proto::Record& theirs) {
  const std::string ours = Encode(mine);
  EXPECT_EQ(ours, Bytes(theirs));
  proto::Record parsed;
  ASSERT_TRUE(parsed.ParseFromString(ours));
  EXPECT_EQ(Bytes(parsed), ours);
  auto back = ParseRecord({reinterpret_cast<const uint8_t*>(ours.data()), ours.size()});
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, mine);
}

TEST(Schema, HeaderSameBytesAsProtobuf) {
  Record r;
  r.time_ns = 123456789012345;
  r.header = Header{"jdwpx-trace", 1, "0.1", "OpenJDK 64-Bit Server VM", "17.0.9+9", 4242, "transport=dt_socket,trace=/t",
                    1732550000123456789ull, 99999999999ull, 3, true};
  proto::Record p;
  p.set_time_ns(r.time_ns);
  auto* h = p.mutable_header();
  h->set_magic("jdwpx-trace");
  h->set_format_version(1);
  h->set_jdwpx_version("0.1");
  h->set_vm_name("OpenJDK 64-Bit Server VM");
  h->set_vm_version("17.0.9+9");
  h->set_pid(4242);
  h->set_options("transport=dt_socket,trace=/t");
  h->set_start_wall_ns(1732550000123456789ull);
  h->set_start_mono_ns(99999999999ull);
  h->set_segment(3);
  h->set_bodies(true);
  ExpectSameBytes(r, p);
}

TEST(Schema, PacketSameBytesAsProtobuf) {
  Record r;
  r.time_ns = 5;
  r.packet = Packet{Packet::Direction::kOut, 0xfffffff0u, true, 11, 6, 10, 212, 84000, {0, 1, 2, 0xff, 0x80},
                    0x7f00000000001234u, 0x1'0000'0002ull};
  proto::Record p;
  p.set_time_ns(5);
  auto* k = p.mutable_packet();
  k->set_direction(proto::Packet::OUT);
  k->set_id(0xfffffff0u);
  k->set_reply(true);
  k->set_command_set(11);
  k->set_command(6);
  k->set_error_code(10);
  k->set_length(212);
  k->set_latency_ns(84000);
  k->set_bytes(std::string("\x00\x01\x02\xff\x80", 5));
  k->set_thread(0x7f00000000001234u);
  k->set_connection(0x1'0000'0002ull);
  ExpectSameBytes(r, p);
}

TEST(Schema, ZeroFieldsAreLeftOutAsProtobufDoes) {
  Record r;
  r.packet = Packet{};
  proto::Record p;
  p.mutable_packet();
  ExpectSameBytes(r, p);
  EXPECT_EQ(Encode(r), std::string("\x22\x00", 2));
}

TEST(Schema, EventWithNegativeRequestIdSameBytesAsProtobuf) {
  Record r;
  r.time_ns = 77;
  r.event = Event{2, -1, 0x123456789abcull, 2, 3, 44};
  proto::Record p;
  p.set_time_ns(77);
  auto* e = p.mutable_event();
  e->set_kind(2);
  e->set_request_id(-1);
  e->set_thread(0x123456789abcull);
  e->set_suspend_policy(2);
  e->set_composite_size(3);
  e->set_packet_id(44);
  ExpectSameBytes(r, p);
}

TEST(Schema, SessionSuspensionErrorDroppedSameBytesAsProtobuf) {
  {
    Record r;
    r.time_ns = 1;
    r.session = Session{Session::Kind::kAttached, "127.0.0.1:5005", {}, 1, 1'250'000, 7};
    proto::Record p;
    p.set_time_ns(1);
    p.mutable_session()->set_kind(proto::Session::ATTACHED);
    p.mutable_session()->set_peer("127.0.0.1:5005");
    p.mutable_session()->set_number(1);
    p.mutable_session()->set_handshake_ns(1'250'000);
    p.mutable_session()->set_connection(7);
    ExpectSameBytes(r, p);
  }
  {
    Record r;
    r.time_ns = 1;
    r.session = Session{Session::Kind::kEnded, "127.0.0.1:5005", "debugger closed the connection", 2, 0, 8};
    proto::Record p;
    p.set_time_ns(1);
    p.mutable_session()->set_kind(proto::Session::ENDED);
    p.mutable_session()->set_peer("127.0.0.1:5005");
    p.mutable_session()->set_reason("debugger closed the connection");
    p.mutable_session()->set_number(2);
    p.mutable_session()->set_connection(8);
    ExpectSameBytes(r, p);
  }
  {
    Record r;
    r.suspension = Suspension{true, Suspension::By::kEvent, 9};
    proto::Record p;
    p.mutable_suspension()->set_suspended(true);
    p.mutable_suspension()->set_by(proto::Suspension::EVENT);
    p.mutable_suspension()->set_packet_id(9);
    ExpectSameBytes(r, p);
  }
  {
    Record r;
    r.agent_error = AgentError{"cannot find core JDK classes"};
    proto::Record p;
    p.mutable_agent_error()->set_message("cannot find core JDK classes");
    ExpectSameBytes(r, p);
  }
  {
    Record r;
    r.dropped = Dropped{1ull << 40};
    proto::Record p;
    p.mutable_dropped()->set_count(1ull << 40);
    ExpectSameBytes(r, p);
  }
  {
    Record r;
    r.time_ns = 8;
    r.thread_name = ThreadName{0x1f, "Reference Handler"};
    proto::Record p;
    p.set_time_ns(8);
    p.mutable_thread_name()->set_thread(0x1f);
    p.mutable_thread_name()->set_name("Reference Handler");
    ExpectSameBytes(r, p);
  }
}

// Old readers read newer traces: fields and record kinds they do not know are skipped.
TEST(Schema, UnknownFieldsAndKindsAreSkipped) {
  std::string bytes;
  wire::PutTag(bytes, 1, wire::kVarint);
  wire::PutVarint(bytes, 42);
  wire::PutTag(bytes, 15, wire::kLengthDelimited);  // a kind added later
  wire::PutVarint(bytes, 3);
  bytes += "abc";
  wire::PutTag(bytes, 16, wire::kFixed64);
  bytes += std::string(8, '\x01');
  wire::PutTag(bytes, 17, wire::kFixed32);
  bytes += std::string(4, '\x02');
  auto r = ParseRecord({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->time_ns, 42u);
  EXPECT_FALSE(r->packet);
}

TEST(Schema, CorruptBytesAreAnErrorNotACrash) {
  const std::string cases[] = {
      std::string("\x22\x05\x08", 3),                 // nested length past the end
      std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12),  // varint too long
      std::string("\x0b", 1),                          // group wire type
      std::string("\x00\x01", 2),                      // field number 0
  };
  for (const std::string& c : cases) {
    auto r = ParseRecord({reinterpret_cast<const uint8_t*>(c.data()), c.size()});
    EXPECT_FALSE(r);
  }
}

}  // namespace
}  // namespace jdwpx::trace
