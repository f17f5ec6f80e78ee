// jdwpx-trace: reads the protocol traces the agent writes with trace=<path>.
//
//   jdwpx-trace summary FILE...          per command, event kind, session; suspension; drops
//   jdwpx-trace show FILE [--follow]     one line per record (--follow: wait for more);
//                                        with several connections, each line names its own
//   jdwpx-trace export --chrome FILE...  Chrome trace-event JSON on stdout
//   jdwpx-trace --help | --version       on stdout, exit status 0
//
// A file that cannot be read gets one line on stderr and exit status 1; a
// truncated or partly corrupt one is used up to its last whole record, then
// reported the same way.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tools/cli.h"
#include "trace/analysis.h"
#include "trace/chrome_export.h"
#include "trace/reader.h"

namespace {

using jdwpx::trace::Record;
using jdwpx::trace::Reader;
using jdwpx::trace::TraceFile;

constexpr const char* kUsage =
    "usage: jdwpx-trace summary FILE...\n"
    "       jdwpx-trace show FILE [--follow]\n"
    "       jdwpx-trace export --chrome FILE...\n"
    "       jdwpx-trace --help | --version\n"
    "\n"
    "Reads the protocol traces the jdwpx agent records with trace=<path>.\n"
    "  summary             per command and event kind: count, bytes, latencies, errors;\n"
    "                      sessions (side by side when there are several), time suspended,\n"
    "                      dropped records\n"
    "  show                one line per record (with several connections, each named);\n"
    "                      -f, --follow: wait for more, and for the file\n"
    "  export --chrome     Chrome trace-event JSON on stdout (ui.perfetto.dev, chrome://tracing)\n"
    "Exit status: 0; 1 when a file cannot be read whole; 2 for a wrong command line.\n";

void Problem(const std::string& line) { std::fprintf(stderr, "jdwpx-trace: %s\n", line.c_str()); }

// Loads every file; false (after one line each) when any cannot be used whole.
bool LoadAll(const std::vector<std::string>& paths, std::vector<TraceFile>& files) {
  bool whole = true;
  for (const std::string& path : paths) {
    auto file = jdwpx::trace::Load(path);
    if (!file) {
      Problem(file.error());
      whole = false;
      continue;
    }
    if (!file->problem.empty()) {
      Problem(file->problem);
      whole = false;
    }
    files.push_back(std::move(*file));
  }
  return whole;
}

int Summary(const std::vector<std::string>& paths) {
  std::vector<TraceFile> files;
  bool whole = LoadAll(paths, files);
  if (!files.empty()) std::fputs(jdwpx::trace::Summarize(std::move(files)).c_str(), stdout);
  return whole ? 0 : 1;
}

int Export(const std::vector<std::string>& paths) {
  std::vector<TraceFile> files;
  bool whole = LoadAll(paths, files);
  if (!whole) return 1;  // half a timeline written to a file would pass for a whole one
  std::fputs(jdwpx::trace::ChromeJson(std::move(files)).c_str(), stdout);
  return 0;
}

int Show(const std::string& path, bool follow) {
  auto reader = Reader::Open(path);
  // --follow waits for a trace that is not there yet (the JVM is starting).
  while (!reader && follow && access(path.c_str(), F_OK) != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    reader = Reader::Open(path);
  }
  if (!reader) {
    Problem(reader.error());
    return 1;
  }
  // Several debuggers' connections (sessions=N): each packet, session and
  // event line names its connection. Whether there are several is known from
  // what the file holds now; with --follow, also from the first line of a
  // second connection on.
  bool several = false;
  if (auto scan = Reader::Open(path)) {
    jdwpx::trace::Connections connections;
    Record record;
    while (!several && scan->Next(record) == Reader::Status::kRecord) {
      (void)connections.Of(record);
      several = connections.several();
    }
  }
  jdwpx::trace::Connections connections;
  uint64_t start = 0;
  Record record;
  while (true) {
    Reader::Status status = reader->Next(record);
    if (status == Reader::Status::kRecord) {
      if (record.header && start == 0) start = record.header->start_mono_ns;
      std::optional<uint64_t> connection = connections.Of(record);
      several = several || connections.several();
      std::printf("%s\n", jdwpx::trace::Line(record, start, several ? connection : std::nullopt).c_str());
      continue;
    }
    if (status == Reader::Status::kError) {
      std::fflush(stdout);
      Problem(reader->error() + "; " + std::to_string(reader->records()) + " whole records read before it");
      return 1;
    }
    if (follow) {
      std::fflush(stdout);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      reader->Refill();
      continue;
    }
    if (reader->records() == 0) {
      Problem(path + (status == Reader::Status::kEnd ? ": empty file: no trace records"
                                                       : ": truncated: not even its header is whole"));
      return 1;
    }
    if (status == Reader::Status::kIncomplete) {
      std::fflush(stdout);
      Problem(path + ": truncated: the record at byte " + std::to_string(reader->offset()) + " is incomplete; " +
              std::to_string(reader->records()) + " whole records read before it");
      return 1;
    }
    return 0;
  }
}

int Main(int argc, char** argv) {
  // No command at all: the usage alone (no complaint line), as always.
  if (argc < 2) return jdwpx::tools::UsageError("jdwpx-trace", "", kUsage);
  CLI::App app{"reads the protocol traces of the jdwpx agent", "jdwpx-trace"};
  jdwpx::tools::AddStandardFlags(app);
  app.require_subcommand(1);

  std::vector<std::string> summary_files;
  CLI::App* summary = app.add_subcommand("summary", "counts and latencies of every file together");
  summary->add_option("FILE", summary_files, "trace files")->required();

  std::string show_file;
  bool follow = false;
  CLI::App* show = app.add_subcommand("show", "one line per record");
  show->add_option("FILE", show_file, "trace file")->required();
  show->add_flag("-f,--follow", follow, "keep reading as the trace grows");

  std::vector<std::string> export_files;
  bool chrome = false;
  CLI::App* export_command = app.add_subcommand("export", "the trace in another format, on stdout");
  export_command->add_flag("--chrome", chrome, "Chrome trace-event JSON")->required();
  export_command->add_option("FILE", export_files, "trace files")->required();

  if (auto status = jdwpx::tools::Parse(app, argc, argv, kUsage)) return *status;
  if (summary->parsed()) return Summary(summary_files);
  if (show->parsed()) return Show(show_file, follow);
  return Export(export_files);
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    Problem(std::string("internal error: ") + e.what());
    return 1;
  } catch (...) {
    Problem("internal error");
    return 1;
  }
}
