#include "backend/start/attach_options.h"

#include <utility>

namespace jdwpx::backend {
namespace {

std::string_view Trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

// Whether the last suspend= in the list says y (stock's rule: a later option overrides).
bool AsksSuspend(std::string_view text) {
  bool asks = false;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    if (item.starts_with("suspend=")) asks = item == "suspend=y";
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return asks;
}

}  // namespace

tl::expected<AttachOptions, OptionsError> ParseAttachOptions(std::string_view text, int jdk_feature_version) {
  text = Trim(text);
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front())
    text = Trim(text.substr(1, text.size() - 2));
  auto parsed = ParseOptions(text, jdk_feature_version);
  if (!parsed) return tl::unexpected(parsed.error());
  AttachOptions result;
  if (parsed->help) {
    result.help = true;
    return result;
  }
  if (parsed->onthrow || parsed->onuncaught) {
    return tl::unexpected(OptionsError{
        "ERROR: JDWP onthrow= and onuncaught= cannot be used when loading into a running JVM\n", 1, {}});
  }
  if (AsksSuspend(text)) {
    result.warnings.push_back(
        "WARNING: JDWP suspend=y ignored: the application already runs, and debugging started by jcmd "
        "never suspends it (as onjcmd=y forces suspend=n)\n");
  }
  parsed->suspend = false;
  result.options = std::move(*parsed);
  return result;
}

}  // namespace jdwpx::backend
