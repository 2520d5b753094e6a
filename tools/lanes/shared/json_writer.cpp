#include "json_writer.hpp"

#include <cmath>
#include <cstdio>

namespace lanes::tool {

void json_writer::quoted(std::string_view text) {
  out_.push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\t':
        out_ += "\\t";
        break;
      case '\r':
        out_ += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out_ += escaped;
        } else {
          out_.push_back(c);
        }
    }
  }
  out_.push_back('"');
}

void json_writer::key(std::string_view name) {
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
  }
  if (!name.empty()) {
    quoted(name);
    out_.push_back(':');
  }
}

json_writer& json_writer::begin_object(std::string_view name) {
  key(name);
  out_.push_back('{');
  first_.push_back(true);
  return *this;
}
json_writer& json_writer::end_object() {
  out_.push_back('}');
  first_.pop_back();
  return *this;
}
json_writer& json_writer::begin_array(std::string_view name) {
  key(name);
  out_.push_back('[');
  first_.push_back(true);
  return *this;
}
json_writer& json_writer::end_array() {
  out_.push_back(']');
  first_.pop_back();
  return *this;
}
json_writer& json_writer::field(std::string_view name, std::string_view text) {
  key(name);
  quoted(text);
  return *this;
}
json_writer& json_writer::field(std::string_view name, std::uint64_t number) {
  key(name);
  out_ += std::to_string(number);
  return *this;
}
json_writer& json_writer::field(std::string_view name, int number) {
  key(name);
  out_ += std::to_string(number);
  return *this;
}
json_writer& json_writer::field(std::string_view name, double number) {
  key(name);
  if (!std::isfinite(number)) {
    out_ += "null";
    return *this;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", number);
  out_ += text;
  return *this;
}
json_writer& json_writer::field(std::string_view name, bool flag) {
  key(name);
  out_ += flag ? "true" : "false";
  return *this;
}
json_writer& json_writer::null_field(std::string_view name) {
  key(name);
  out_ += "null";
  return *this;
}
json_writer& json_writer::value(std::string_view text) {
  key({});
  quoted(text);
  return *this;
}

}  // namespace lanes::tool
