// Without libFuzzer (g++ builds): replays the seed corpus through the fuzz
// target, then a deterministic stream of mutations of it, so that ctest runs
// the same target on every build.
//   usage: expr_fuzz_replay <corpus-dir> <mutations>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int Run(const std::string& input) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

// Pieces mutations splice in: tokens of the language and troublemakers.
const char* const kPieces[] = {"(", ")", "[", "]", ".", "+", "-", "*", "/", "%", "<<", ">>>", "&&", "||", "?", ":",
                               "==", "!", "~", "instanceof ", "i", "s", "a", "map", "list", "this", "null", "\"",
                               "'", "\\u", "{", "}", "{{", "length()", "get(", "1e400", "0x", "2147483648", "=",
                               "++", "new ", "->", "\xff", "\xc3", " ", "getClass().getName()", ",", "9L", ".5f"};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <corpus-dir> <mutations>\n", argv[0]);
    return 2;
  }
  std::vector<std::string> corpus;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    std::ifstream file(entry.path(), std::ios::binary);
    std::stringstream content;
    content << file.rdbuf();
    corpus.push_back(content.str());
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "empty corpus in %s\n", argv[1]);
    return 2;
  }
  for (const std::string& input : corpus) Run(input);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const long mutations = std::strtol(argv[2], nullptr, 10);
  for (long k = 0; k < mutations; ++k) {
    std::string input = corpus[next() % corpus.size()];
    const int edits = 1 + static_cast<int>(next() % 6);
    for (int e = 0; e < edits; ++e) {
      const size_t at = input.empty() ? 0 : next() % (input.size() + 1);
      switch (next() % 4) {
        case 0: input.insert(at, kPieces[next() % std::size(kPieces)]); break;
        case 1: if (at < input.size()) input.erase(at, 1 + next() % 4); break;
        case 2: input.insert(at, 1, static_cast<char>(next() % 256)); break;
        case 3: input.insert(at, input.substr(0, std::min<size_t>(input.size(), next() % 16))); break;
      }
    }
    Run(input);
  }
  std::printf("replayed %zu seeds and %ld mutations\n", corpus.size(), mutations);
  return 0;
}
