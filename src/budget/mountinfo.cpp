#include "budget/mountinfo.hpp"

namespace lanes::detail {

namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo (octal).
std::string unescape(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (std::size_t i = 0; i < field.size(); ++i) {
    const auto is_octal = [&](std::size_t at) { return field[at] >= '0' && field[at] <= '7'; };
    if (field[i] == '\\' && i + 3 < field.size() && is_octal(i + 1) && is_octal(i + 2) && is_octal(i + 3)) {
      out.push_back(static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0')));
      i += 3;
      continue;
    }
    out.push_back(field[i]);
  }
  return out;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  while (pos < line.size()) {
    const auto start = line.find_first_not_of(' ', pos);
    if (start == std::string_view::npos) break;
    const auto end = line.find(' ', start);
    fields.push_back(line.substr(start, end == std::string_view::npos ? end : end - start));
    pos = end == std::string_view::npos ? line.size() : end;
  }
  return fields;
}

}  // namespace

std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto end = text.find(separator, pos);
    const auto part = text.substr(pos, end == std::string_view::npos ? end : end - pos);
    if (!part.empty()) parts.emplace_back(part);
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return parts;
}

mountinfo parse_mountinfo(std::string_view text) {
  mountinfo result;
  for (const auto& line : split_list(text, '\n')) {
    const auto fields = split_fields(line);
    // id parent major:minor root mount_point options [optional...] - fs_type source super_options
    std::size_t separator = 6;
    while (separator < fields.size() && fields[separator] != "-") ++separator;
    if (separator + 3 >= fields.size()) {  // no "-", or too few fields after it
      ++result.malformed_lines;
      continue;
    }
    mount_entry entry;
    entry.root = unescape(fields[3]);
    entry.mount_point = unescape(fields[4]);
    entry.fs_type = std::string(fields[separator + 1]);
    entry.super_options = split_list(fields[separator + 3], ',');
    result.mounts.push_back(std::move(entry));
  }
  return result;
}

}  // namespace lanes::detail
