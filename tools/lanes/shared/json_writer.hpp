// A small streaming JSON writer for the `--json` outputs of the `lanes`
// command: one object per line, keys in the order written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lanes::tool {

class json_writer {
 public:
  json_writer& begin_object(std::string_view key = {});
  json_writer& end_object();
  json_writer& begin_array(std::string_view key);
  json_writer& end_array();
  json_writer& field(std::string_view key, std::string_view value);
  json_writer& field(std::string_view key, const char* value) { return field(key, std::string_view(value)); }
  json_writer& field(std::string_view key, std::uint64_t value);
  json_writer& field(std::string_view key, unsigned value) { return field(key, std::uint64_t{value}); }
  json_writer& field(std::string_view key, int value);
  json_writer& field(std::string_view key, double value);
  json_writer& field(std::string_view key, bool value);
  json_writer& null_field(std::string_view key);
  json_writer& value(std::string_view text);  // an array element

  const std::string& str() const { return out_; }

 private:
  void key(std::string_view name);
  void quoted(std::string_view text);
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
};

}  // namespace lanes::tool
