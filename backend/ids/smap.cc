#include "backend/ids/smap.h"

namespace jdwpx::backend {

namespace {

// A reader over the text that fails (as stock's parser does) at an unexpected end.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool failed() const { return failed_; }
  char Peek() {
    if (pos_ >= text_.size() || text_[pos_] == '\0') {
      failed_ = true;
      return '\0';
    }
    return text_[pos_];
  }
  char Read() {
    char c = Peek();
    if (!failed_) ++pos_;
    return c;
  }
  void Advance() { ++pos_; }
  void IgnoreWhite() {
    while (!failed_ && (Peek() == ' ' || Peek() == '\t')) Advance();
  }
  void IgnoreLine() {
    char c;
    do {
      c = Read();
    } while (!failed_ && c != '\n' && c != '\r');
    if (!failed_ && c == '\r' && Peek() == '\n') Advance();
    IgnoreWhite();
  }
  std::string ReadLine() {
    IgnoreWhite();
    size_t begin = pos_;
    while (!failed_ && Peek() != '\n' && Peek() != '\r') Advance();
    if (failed_) return {};
    std::string line(text_.substr(begin, pos_ - begin));
    char c = Read();
    if (c == '\r' && pos_ < text_.size() && text_[pos_] == '\n') Advance();
    IgnoreWhite();
    return line;
  }
  int ReadNumber() {
    int value = 0;
    IgnoreWhite();
    while (!failed_ && Peek() >= '0' && Peek() <= '9') value = value * 10 + (Read() - '0');
    IgnoreWhite();
    return value;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace

void Smap::StoreStratum(std::string id) {
  // A stratum that declared nothing is replaced by the next one.
  if (!strata_.empty() && strata_.back().first_file == files_.size() && strata_.back().first_line == lines_.size())
    strata_.pop_back();
  strata_.push_back({std::move(id), files_.size(), lines_.size()});
  current_file_id_ = 0;
}

std::optional<Smap> Smap::Parse(std::string_view text) {
  if (text.size() <= 4 || text.substr(0, 4) != "SMAP") return std::nullopt;
  Smap map;
  Cursor in(text.substr(4));
  in.IgnoreLine();
  std::string java_file = in.ReadLine();
  map.default_stratum_ = in.ReadLine();
  // The Java stratum, always there: one file, every line as it is.
  map.StoreStratum("Java");
  map.files_.push_back({1, java_file});
  map.lines_.push_back({1, 65536, 1, 1, 65536, 1});
  map.StoreStratum("Aux");
  while (!in.failed()) {
    if (in.Read() != '*') return std::nullopt;
    char section = in.Read();
    if (in.failed()) return std::nullopt;
    switch (section) {
      case 'S':
        map.StoreStratum(in.ReadLine());
        break;
      case 'F':
        in.IgnoreLine();
        while (!in.failed() && in.Peek() != '*') {
          bool absolute = in.Peek() == '+';
          if (absolute) in.Advance();
          int id = in.ReadNumber();
          std::string name = in.ReadLine();
          if (absolute) (void)in.ReadLine();
          map.files_.push_back({id, std::move(name)});
        }
        break;
      case 'L':
        in.IgnoreLine();
        while (!in.failed() && in.Peek() != '*') {
          int count = 1, increment = 1;
          int start = in.ReadNumber();
          if (in.Peek() == '#') {
            in.Advance();
            map.current_file_id_ = in.ReadNumber();
          }
          if (in.Peek() == ',') {
            in.Advance();
            count = in.ReadNumber();
          }
          if (in.Read() != ':') return std::nullopt;
          int java_start = in.ReadNumber();
          if (in.Peek() == ',') {
            in.Advance();
            increment = in.ReadNumber();
          }
          in.IgnoreLine();
          map.lines_.push_back({java_start, java_start + count * increment - 1, increment, start, start + count - 1,
                                map.current_file_id_});
        }
        break;
      case 'E':
        map.StoreStratum("*terminator*");
        return map;
      default:
        in.IgnoreLine();
        while (!in.failed() && in.Peek() != '*') in.IgnoreLine();
    }
  }
  return std::nullopt;
}

int Smap::FindStratum(std::string_view id) const {
  for (size_t i = 0; i + 1 < strata_.size(); ++i)
    if (strata_[i].id == id) return static_cast<int>(i);
  return -1;
}

int Smap::StepStratum(std::string_view stratum) const {
  int index = stratum.empty() ? -1 : FindStratum(stratum);
  // Not declared: the map's own default (stock recurses without end when that
  // is not declared either; here the Java lines stay).
  if (index < 0) index = FindStratum(default_stratum_);
  if (index < 0 || strata_[index].id == "Java") return -1;
  return index;
}

std::vector<Smap::LineEntry> Smap::StepLines(std::string_view stratum, const std::vector<LineEntry>& java) const {
  int sti = StepStratum(stratum);
  if (sti < 0) return java;
  const Stratum& s = strata_[sti];
  const Stratum& next = strata_[sti + 1];
  std::vector<LineEntry> out;
  int last = 0;
  for (const LineEntry& e : java) {
    for (size_t i = s.first_line; i < next.first_line; ++i) {
      const Line& l = lines_[i];
      if (e.line < l.java_start || e.line > l.java_end) continue;
      int line = l.start + (e.line - l.java_start) / l.java_increment + (l.file_id << 16);
      if (line != last) {
        last = line;
        out.push_back({e.start, line});
      }
      break;
    }
  }
  return out;
}

bool Smap::AnySourceName(const std::function<bool(std::string_view)>& matches) const {
  if (strata_.empty()) return false;
  for (size_t i = 0; i < strata_.back().first_file; ++i)
    if (matches(files_[i].name)) return true;
  return false;
}

}  // namespace jdwpx::backend
