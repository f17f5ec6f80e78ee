// ForEachObjectId finds every object ID of an event, as often as it occurs,
// and nothing that is not an object ID (methods, fields, primitives).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "jdwp/commands/event.h"
#include "jdwp/object_ids.h"

namespace jdwpx::jdwp {
namespace {

std::vector<uint64_t> IdsOf(const std::vector<events::EventData>& events) {
  std::vector<uint64_t> ids;
  ForEachObjectId(events, [&](uint64_t id) { ids.push_back(id); });
  return ids;
}

Location At(uint64_t klass) { return Location{TypeTag::kClass, ClassId{klass}, MethodId{777}, 5}; }

TEST(ObjectIds, AnEventsThreadAndLocationClassAreFound) {
  EXPECT_EQ(IdsOf({events::Breakpoint{1, ThreadId{10}, At(20)}}), (std::vector<uint64_t>{10, 20}));
}

TEST(ObjectIds, TaggedObjectsAndObjectValuesAreFoundAndPrimitivesAndMembersAreNot) {
  events::FieldModification modification{};
  modification.request_id = 3;
  modification.thread = ThreadId{10};
  modification.location = At(20);
  modification.type_id = ReferenceTypeId{30};
  modification.field_id = FieldId{888};
  modification.object = TaggedObjectId{Tag::kObject, ObjectId{40}};
  modification.value_to_be = Value::Object(Tag::kString, ObjectId{50});
  events::MethodExitWithReturnValue exit{4, ThreadId{10}, At(20), Value::Long(60)};
  EXPECT_EQ(IdsOf({modification, exit}), (std::vector<uint64_t>{10, 20, 30, 40, 50, 10, 20}));
}

TEST(ObjectIds, MonitorClassAndThreadEventsGiveTheirIds) {
  events::MonitorContendedEnter enter{7, ThreadId{10}, TaggedObjectId{Tag::kObject, ObjectId{40}}, At(20)};
  events::ClassPrepare prepare{};
  prepare.thread = ThreadId{11};
  prepare.type_id = ReferenceTypeId{30};
  prepare.signature = "LPrepared;";
  events::ThreadStart start{8, ThreadId{12}};
  EXPECT_EQ(IdsOf({enter, prepare, start}), (std::vector<uint64_t>{10, 40, 20, 11, 30, 12}));
}

TEST(ObjectIds, NullIdsAndIdFreeEventsGiveNothing) {
  events::Exception exception{};
  exception.thread = ThreadId{10};
  exception.location = At(20);
  exception.exception = TaggedObjectId{Tag::kObject, ObjectId{40}};
  exception.catch_location = Location{TypeTag::kClass, ClassId{}, MethodId{}, 0};  // uncaught
  EXPECT_EQ(IdsOf({exception, events::VMDeath{0}, events::ClassUnload{5, "LGone;"}}),
            (std::vector<uint64_t>{10, 20, 40}));
}

}  // namespace
}  // namespace jdwpx::jdwp
