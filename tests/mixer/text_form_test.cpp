#include <gtest/gtest.h>

#include <random>

#include "mixer/interpreter.hpp"
#include "mixer/text_form.hpp"
#include "support/random_program.hpp"
#include "support/reference_functions.hpp"

using namespace mixforge;

using mixforge::test::lowbias32;

namespace {

std::string error_of(std::string_view text, mixer::ParseOptions o = {}) {
  try {
    mixer::parse_program(text, o);
  } catch (const mixer::ParseError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST(TextForm, ParsesCLikeForm) {
  EXPECT_EQ(mixer::parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;"),
            lowbias32());
}

TEST(TextForm, ParsesEveryStepKindAndSyntax) {
  const mixer::Program p = mixer::parse_program(
      "// a comment\n"
      "h ^= h >> 16; h *= 0x7feb352d; h += h << 3; h -= 12345u; h ^= 0xdeadbeef;\n"
      "h = (h << 5) | (h >> 27); /* block\ncomment */ h = rotl(h, 7); h = rotr(h, 5);\n"
      "h ^= h << 9\n h -= h << 2\n h += 0x10ULL\n return h;");
  const std::vector<mixer::Step> want{{mixer::StepKind::xorshift_right, 16},
                                      {mixer::StepKind::mul_const, 0x7feb352d},
                                      {mixer::StepKind::add_shift, 3},
                                      {mixer::StepKind::sub_const, 12345},
                                      {mixer::StepKind::xor_const, 0xdeadbeef},
                                      {mixer::StepKind::rotate, 5},
                                      {mixer::StepKind::rotate, 7},
                                      {mixer::StepKind::rotate, 27},
                                      {mixer::StepKind::xorshift_left, 9},
                                      {mixer::StepKind::sub_shift, 2},
                                      {mixer::StepKind::add_const, 0x10}};
  EXPECT_EQ(p.width(), 32);
  EXPECT_EQ(p.steps(), want);
}

TEST(TextForm, ParsesWriteUpForm) {
  const auto r = mixer::parse_text(
      "var result = seed;\n"
      "(result ^= (result >> 4));\n"
      "(result = ((result * 67) & 127));\n"
      "(result ^= (result >> 3));\n"
      "(result = ((result * 101) & 127));\n"
      "(result ^= (result >> 4));\n"
      "return result;\n");
  EXPECT_EQ(r.program.width(), 7);
  EXPECT_EQ(r.mask_width, 7);
  EXPECT_EQ(r.variable, "result");
  EXPECT_EQ(mixer::format_short(r.program), "xsr 4, mul 0x43, xsr 3, mul 0x65, xsr 4");
}

TEST(TextForm, ParsesFunctionWrappersAndJavaScriptIdioms) {
  EXPECT_EQ(mixer::parse_program(
                "function hash(seed) {\n var x = seed;\n x ^= x >>> 16;\n x = Math.imul(x, 0x7feb352d);\n"
                " x ^= x >>> 15; x = Math.imul(x, 0x846ca68b); x ^= x >>> 16;\n return x >>> 0;\n}"),
            lowbias32());
  EXPECT_EQ(mixer::parse_program("uint32_t lowbias32(uint32_t x) {\n x ^= x >> 16;\n x *= 0x7feb352dU;\n"
                                 " x ^= x >> 15;\n x *= 0x846ca68bU;\n x ^= x >> 16;\n return x;\n}"),
            lowbias32());
  EXPECT_EQ(mixer::parse_program(
                "x = x ^ (x >> 16); x = x * 0x7feb352d; x = (x >> 15) ^ x; x = 0x846ca68b * x; x ^= x >> 16"),
            lowbias32());
}

TEST(TextForm, WidthFromFlagMaskOrDefault) {
  EXPECT_EQ(mixer::parse_program("x *= 3").width(), 32);
  EXPECT_EQ(mixer::parse_program("x *= 3", {.width = 12}).width(), 12);
  EXPECT_EQ(mixer::parse_program("x = (x * 3) & 0xfff").width(), 12);
  EXPECT_EQ(mixer::parse_program("x *= 3; x &= 0xff").width(), 8);
}

TEST(TextForm, RoundTripsEveryReferenceFunction) {
  const auto refs = mixforge::test::reference_mixers();
  ASSERT_EQ(refs.size(), 19u);  // every entry of tests/data/mixers.json
  for (const auto& r : refs) {
    const mixer::Program p = mixer::parse_program(r.text, {.width = r.width});
    EXPECT_EQ(mixer::format_program(p), r.text) << r.name;
    EXPECT_EQ(mixer::parse_program(mixer::format_program(p), {.width = r.width}), p);
  }
}

TEST(TextForm, RoundTripsRandomPrograms) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 64);
    const mixer::Program p = mixforge::testing::random_program(rng, n, 1 + static_cast<int>(rng() % 8));
    ASSERT_NO_THROW(mixer::validate(p));
    EXPECT_EQ(mixer::parse_program(mixer::format_program(p), {.width = n}), p) << mixer::format_program(p);
    EXPECT_EQ(mixer::parse_program(mixer::format_program(p, "value"), {.width = n}), p);
  }
}

TEST(TextForm, ErrorsNameLineColumnAndWhatWasExpected) {
  EXPECT_EQ(error_of("x ^= x >> 16;\nx *= 0x10;"),
            "2:6: multiplier 0x10 is even; a multiply step needs an odd constant");
  EXPECT_EQ(error_of("x ^= x >> 32;"), "1:11: shift 32 is outside 1..31 for width 32");
  EXPECT_EQ(error_of("x ^= x >> 0;"), "1:11: shift 0 is outside 1..31 for width 32");
  EXPECT_EQ(error_of("x = rotl(x, 40);"), "1:13: rotation 40 is outside 1..31 for width 32");
  EXPECT_EQ(error_of("x ^= 0x1ff;", {.width = 8}), "1:6: constant 0x1ff does not fit in 8 bits (largest is 0xff)");
  EXPECT_EQ(error_of("x *= 3; x *= 5; x *= 7", {.width = 32, .max_steps = 2}), "1:17: too many steps: 3 (the limit is 2)");
  EXPECT_EQ(error_of("x *= 3;", {.width = 65}), "1:1: width 65 is not supported (widths are 1..64)");
  EXPECT_EQ(error_of("x ^= y >> 3;"), "1:6: unknown variable 'y'; the program's variable is 'x'");
  EXPECT_EQ(error_of("x ^^= 3;"), "1:3: expected '=' or a compound assignment (^=, *=, +=, -=) after 'x', found '^'");
  EXPECT_EQ(error_of("x ^= (x >> 3;"), "1:13: expected ')' to close '(', found ';'");
  EXPECT_EQ(error_of("x ^= x >> 3 x *= 5"), "1:13: expected ';' or a new line after the statement, found 'x'");
  EXPECT_EQ(error_of("x *= 0x1ffffffffffffffff;"), "1:6: constant 0x1ffffffffffffffff does not fit in 64 bits");
  EXPECT_EQ(error_of("x *= 12abc;"), "1:6: digit 'a' is not valid in a base-10 number");
  EXPECT_EQ(error_of("x += x >> 3;"), "1:8: 'x += x >> k' is not reversible; use 'x ^= x >> k'");
  EXPECT_EQ(error_of("x = (x << 5) | (x >> 26);"), "1:11: rotation shifts 5 and 26 must add up to the width 32");
  EXPECT_EQ(error_of("x = (x * 3) & 100;"), "1:15: mask 0x64 is not of the form 2^n - 1 (e.g. 127 for 7 bits)");
  EXPECT_EQ(error_of("x = (x * 3) & 127;", {.width = 8}), "1:15: mask gives width 7 but width 8 was requested");
  EXPECT_EQ(error_of("   // nothing\n"), "2:1: no steps found: expected statements like 'x ^= x >> 16;' or 'x *= 0x7feb352d;'");
  EXPECT_EQ(error_of("x ^= x >> 3; /* open"), "1:14: unterminated comment: '/*' has no '*/'");
  EXPECT_EQ(error_of("x ^= @;"), "1:6: unexpected character '@'");
  EXPECT_EQ(error_of("x = foo(x, 3);"), "1:5: unknown function 'foo' (known: rotl, rotr, Math.imul)");
  EXPECT_EQ(error_of("x = x << 3;"), "1:7: a plain shift loses bits and is not reversible; use 'x ^= x << k'");
}

// Deep nesting and endless expressions are refused with a position, not a stack overflow
// (the parser and the tree it builds recurse; 30000 parentheses crashed the CLI, 15000 a
// --batch thread, and a daemon request can carry a megabyte).
TEST(TextForm, DeepNestingAndHugeExpressionsAreErrorsNotCrashes) {
  const std::string open(100000, '(');
  EXPECT_EQ(error_of("x = " + open + "x * 3" + std::string(100000, ')')),
            "1:261: parentheses nested more than 256 deep");
  EXPECT_EQ(error_of("x = " + open), "1:261: parentheses nested more than 256 deep");
  std::string calls = "x = ";
  for (int i = 0; i < 50000; ++i) calls += "rotl(";
  EXPECT_EQ(error_of(calls), "1:1289: parentheses nested more than 256 deep");
  std::string casts = "x = ";
  for (int i = 0; i < 50000; ++i) casts += "(uint32_t)";
  EXPECT_EQ(error_of(casts + "x;"), "1:2565: parentheses nested more than 256 deep");
  std::string chain = "x = x";
  for (int i = 0; i < 300000; ++i) chain += " ^ 1";
  EXPECT_EQ(error_of(chain), "1:1031: more than 256 operators in one statement");
  // Well inside the limits, still parsed.
  EXPECT_EQ(mixer::parse_program("x = " + std::string(200, '(') + "x * 3" + std::string(200, ')') + ";").size(), 1u);
}

// A leading 0 makes an octal constant, as in C (and in JavaScript's legacy form): read as
// decimal, 011 was 11 where the pasted C code meant 9.
TEST(TextForm, AByteOrderMarkIsSkipped) {
  EXPECT_EQ(mixer::parse_program("\xEF\xBB\xBFx *= 3;\r\nx ^= x >> 16;\r\n").size(), 2u);
  EXPECT_EQ(error_of("\xEF\xBB\xBFx *= 2;"), "1:6: multiplier 0x2 is even; a multiply step needs an odd constant");
}

TEST(TextForm, LeadingZeroMeansOctalAsInC) {
  EXPECT_EQ(mixer::parse_program("x *= 011;").steps()[0].operand, 9u);
  EXPECT_EQ(mixer::parse_program("x ^= 0777u;").steps()[0].operand, 511u);
  EXPECT_EQ(mixer::parse_program("x += 0100;").steps()[0].operand, 64u);
  EXPECT_EQ(mixer::parse_program("x ^= x >> 0x10;").steps()[0].operand, 16u);  // hex is not octal
  EXPECT_EQ(error_of("x *= 010;"), "1:6: multiplier 0x8 is even; a multiply step needs an odd constant");
  EXPECT_EQ(error_of("x *= 09;"), "1:6: digit '9' is not valid in an octal number (a leading 0 makes it octal, as in C)");
}

TEST(TextForm, SurvivesGarbageWithoutCrashing) {
  std::mt19937 rng(3);
  const std::string alphabet = "x^=>>*+-&|();{}\n 0123456789abcdefxu/rotl,";
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    const int len = static_cast<int>(rng() % 40);
    for (int k = 0; k < len; ++k) s += alphabet[rng() % alphabet.size()];
    try {
      const mixer::Program p = mixer::parse_program(s);
      mixer::validate(p);
    } catch (const mixer::ParseError& e) {
      EXPECT_GE(e.line(), 1);
      EXPECT_GE(e.column(), 1);
    }
  }
}
