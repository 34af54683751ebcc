#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

TEST(JsonForm, RoundTrip) {
  const mixer::Program p =
      mixer::parse_program("x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x = rotl(x, 5); x += 7", {.width = 64});
  const auto j = mixer::to_json(p);
  EXPECT_EQ(j["steps"][1]["constant"], "0xff51afd7ed558ccd");
  EXPECT_EQ(j["steps"][0]["shift"], 33);
  EXPECT_EQ(j["steps"][0]["kind"], "xorshift-right");
  EXPECT_EQ(mixer::program_from_json(j), p);
  EXPECT_EQ(mixer::program_from_json(nlohmann::json::parse(j.dump())), p);
}

TEST(JsonForm, ErrorsNameThePath) {
  auto err = [](const char* text) -> std::string {
    try {
      mixer::program_from_json(nlohmann::json::parse(text));
    } catch (const mixer::ProgramError& e) {
      return e.what();
    }
    return "ok";
  };
  EXPECT_EQ(err(R"({"width": 32, "steps": [{"kind": "mul-const", "constant": "0x10"}]})"),
            "steps[0].constant: multiplier 0x10 is even; a multiply step needs an odd constant");
  EXPECT_EQ(err(R"({"width": 32, "steps": [{"kind": "xsr", "shift": 40}]})"),
            "steps[0].shift: shift 40 is outside 1..31 for width 32");
  EXPECT_EQ(err(R"({"width": 32, "steps": [{"kind": "twist", "shift": 4}]})").substr(0, 40),
            "steps[0].kind: unknown step kind \"twist\"");
  EXPECT_EQ(err(R"({"width": 99, "steps": []})"), "width: width 99 is not supported (widths are 1..64)");
  EXPECT_EQ(err(R"({"steps": []})"), "width: missing");
  // The text form has no empty program ("no steps found"): the JSON form has none either
  // (the fuzzer found {"width": 32, "steps": []} parsed here and not in its text form).
  EXPECT_EQ(err(R"({"width": 32, "steps": []})"), "steps: a program needs at least one step");
  EXPECT_EQ(err(R"({"width": 8, "steps": [], "colour": 1})"), "colour: unknown field");
  EXPECT_EQ(err(R"({"width": 8, "steps": [{"kind": "mul-const", "constant": "zz"}]})"),
            "steps[0].constant: constant \"zz\" is not a hex (0x...) or decimal number");
  EXPECT_EQ(err(R"({"width": 8, "steps": [{"kind": "mul-const", "shift": 3}]})"),
            "steps[0].shift: unknown field for a mul-const step (it takes \"constant\")");
  EXPECT_EQ(err(R"([1,2])"), "(root): a program must be a JSON object with width and steps");
}
