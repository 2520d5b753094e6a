#include "json_writer.hpp"

#include <gtest/gtest.h>

namespace lanes::tool {
namespace {

TEST(JsonWriter, NestsAndSeparates) {
  json_writer j;
  j.begin_object().field("a", 1U).begin_object("b").field("c", true).null_field("d").end_object();
  j.begin_array("e").value("x").value("y").end_array().field("f", 1.5).end_object();
  EXPECT_EQ(j.str(), R"({"a":1,"b":{"c":true,"d":null},"e":["x","y"],"f":1.5})");
}

TEST(JsonWriter, EscapesStrings) {
  json_writer j;
  j.begin_object().field("k", std::string_view("q\"b\\n\n\x01")).end_object();
  EXPECT_EQ(j.str(), R"({"k":"q\"b\\n\n\u0001"})");
}

TEST(JsonWriter, NonFiniteIsNull) {
  json_writer j;
  j.begin_object().field("nan", 0.0 / 0.0).end_object();
  EXPECT_EQ(j.str(), R"({"nan":null})");
}

}  // namespace
}  // namespace lanes::tool
