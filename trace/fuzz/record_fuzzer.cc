// libFuzzer target: arbitrary bytes as a trace record, then everything
// jdwpx-trace does with records (one line of `show`, `summary`, the Chrome
// export). Invariant checked besides "no crash": a record that libprotobuf
// parses, re-encoded by the agent's encoder, parses to the same record.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "trace/analysis.h"
#include "trace/chrome_export.h"
#include "trace/reader.h"
#include "trace/wire.h"

using namespace jdwpx::trace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto record = ParseRecord({data, size});
  if (!record) return 0;
  const std::string once = Encode(*record);
  auto again = ParseRecord({reinterpret_cast<const uint8_t*>(once.data()), once.size()});
  if (!again || !(*again == *record)) std::abort();
  (void)Line(*record, 0);
  std::vector<TraceFile> files(1);
  files[0].path = "fuzz";
  files[0].records = {*record, *record};
  (void)Summarize(files);
  (void)ChromeJson(files);
  return 0;
}
