// app/program_input: one set of rules for a program in a request (text or JSON form).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/program_input.hpp"
#include "app/request_error.hpp"

namespace mixforge::app {
namespace {

RequestError error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const RequestError& e) {
    return e;
  }
  ADD_FAILURE() << "no RequestError";
  return RequestError("", "", "");
}

TEST(ProgramInput, TextAndJsonFormGiveTheSameProgram) {
  const mixer::Program a = program_from_value("x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7;", {16});
  const mixer::Program b = program_from_value(nlohmann::json::parse(
      R"({"width": 16, "steps": [{"kind": "xsr", "shift": 8}, {"kind": "mul", "constant": "0xa3d3"}, {"kind": "xsr", "shift": 7}]})"));
  EXPECT_EQ(a, b);
}

TEST(ProgramInput, TextErrorsNameTheFieldAndThePosition) {
  const RequestError e = error_of([] { program_from_value("x ^= x >> 8;\nx *= 0xa3d2;", {16, 64, "mixers.programs[1]"}); });
  EXPECT_EQ(e.field(), "mixers.programs[1]");
  EXPECT_EQ(e.code(), "invalid-program");
  ASSERT_TRUE(e.position());
  EXPECT_EQ(e.position()->line, 2);
  EXPECT_GT(e.position()->column, 0);
}

TEST(ProgramInput, JsonFormErrorsNameThePathBelowTheField) {
  const auto j = nlohmann::json::parse(R"({"width": 16, "steps": [{"kind": "xsr", "shift": 8}, {"kind": "mul", "constant": "0x2"}]})");
  const RequestError e = error_of([&] { program_from_json_form(j); });
  EXPECT_EQ(e.field(), "program.steps[1].constant");
  const RequestError root = error_of([] { program_from_value(nlohmann::json::array()); });
  EXPECT_EQ(root.field(), "program");
}

TEST(ProgramInput, AWidthThatDisagreesIsTheWidthFieldsErrorInBothForms) {
  const auto j = nlohmann::json::parse(R"({"width": 32, "steps": [{"kind": "xsr", "shift": 16}]})");
  const RequestError json = error_of([&] { program_from_value(j, {16, 64, "programs[0].program", "programs[0].width"}); });
  EXPECT_EQ(json.field(), "programs[0].width");
  EXPECT_EQ(json.code(), "width-mismatch");
  // Text: the mask says 8 bits, the request 16: the mask is where the fix goes.
  const RequestError text = error_of([] { program_from_value("x ^= x >> 3; x &= 0xff;", {16}); });
  EXPECT_EQ(text.code(), "invalid-program");
}

TEST(ProgramInput, AScoredFunctionIsReadAsItsProgram) {
  // What `eval --json` prints: the program's width and steps beside its scores.
  const auto scored = nlohmann::json::parse(
      R"({"id": "f", "width": 16, "steps": [{"kind": "xsr", "shift": 8}], "chi2": 0.5, "exact": true})");
  EXPECT_EQ(program_from_json_form(scored).width(), 16);
  const mixer::ParsedText doc = program_from_document(scored.dump());
  EXPECT_EQ(doc.program.size(), 1u);
  EXPECT_EQ(error_of([] { program_from_document("{\"width\": 16, "); }).field(), "program");
}

TEST(ProgramInput, FieldsBelowFields) {
  EXPECT_EQ(field_below("program", "steps[2].constant"), "program.steps[2].constant");
  EXPECT_EQ(field_below("programs", "[2]"), "programs[2]");
  EXPECT_EQ(field_below("program", ""), "program");
  EXPECT_EQ(field_below("", "width"), "width");
}

}  // namespace
}  // namespace mixforge::app
