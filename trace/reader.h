// Reads a trace file record by record, up to its last whole record. A file
// still being written (show --follow) is read again as it grows.
//
// Records are parsed by libprotobuf, with the classes protoc generates from
// trace/trace.proto (the agent writes them with its own encoder, wire.h), and
// handed on as the structs of records.h, which the rest of the reader uses.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <tl/expected.hpp>

#include "trace/records.h"

namespace jdwpx::trace {

// One record's bytes (no length prefix) parsed by libprotobuf; fails with
// protobuf's one word of why. Fields and kinds this reader does not know are
// skipped (a record of an unknown kind has none set).
tl::expected<Record, std::string> ParseRecord(std::span<const uint8_t> bytes);

class Reader {
 public:
  // Fails with "cannot open FILE: reason".
  static tl::expected<Reader, std::string> Open(const std::string& path);
  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;
  ~Reader();

  enum class Status {
    kRecord,      // `out` holds the next record
    kEnd,         // the file ends after a whole record, or is empty (records() == 0)
    kIncomplete,  // the file ends inside a record: truncated, or still being written
    kError,       // foreign or corrupt: error() says which
  };
  // The next record of a kind this reader knows (others are skipped).
  Status Next(Record& out);
  // Reads whatever was appended to the file since; kEnd / kIncomplete may then
  // turn into records.
  void Refill();

  // One line, starting with the file's name.
  const std::string& error() const { return error_; }
  // The first record's header (valid after the first kRecord).
  const Header& header() const { return header_; }
  uint64_t records() const { return records_; }
  // Bytes past the last whole record (after kIncomplete).
  uint64_t pending_bytes() const { return buffer_.size() - pos_; }
  uint64_t offset() const { return consumed_ + pos_; }
  const std::string& path() const { return path_; }

 private:
  Reader(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  Status Fail(std::string what);

  std::string path_;
  int fd_ = -1;
  std::string buffer_;
  size_t pos_ = 0;
  uint64_t consumed_ = 0;  // bytes dropped from the front of buffer_
  uint64_t records_ = 0;
  Header header_;
  std::string error_;
};

}  // namespace jdwpx::trace
