// schema::JsonSchema: errors name the path to the bad value (indices told from property
// names by the value itself), pointers are escaped, references to other documents resolve.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "schema/json_schema.hpp"

using mixforge::schema::dotted;
using mixforge::schema::json_pointer;
using mixforge::schema::JsonSchema;
using mixforge::schema::Path;
using mixforge::schema::SchemaError;
using nlohmann::json;

namespace {
bool has_pointer(const std::vector<SchemaError>& errors, const std::string& pointer) {
  return std::any_of(errors.begin(), errors.end(), [&](const SchemaError& e) { return json_pointer(e.path) == pointer; });
}
}  // namespace

TEST(JsonSchema, ValidDocumentsHaveNoErrors) {
  const JsonSchema s(json::parse(R"({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}})"));
  EXPECT_TRUE(s.valid(json::parse(R"({"n": 3})")));
  EXPECT_TRUE(s.errors(json::parse(R"({"n": 3})")).empty());
  EXPECT_FALSE(s.valid(json::parse(R"({"n": -1})")));
  const auto errors = s.errors(json::parse(R"({"n": -1})"));
  ASSERT_FALSE(errors.empty());
  EXPECT_TRUE(has_pointer(errors, "/n"));
}

// Draft-07: "integer" is any number with a zero fractional part, so 16.0 (what Python's
// json.dumps writes for a float) is one; 16.5 is not. It was refused as "type not permitted".
TEST(JsonSchema, AnIntegralFloatIsAnInteger) {
  const JsonSchema s(json::parse(R"({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0},
                                     "a": {"type": "array", "items": {"type": "integer"}}}})"));
  EXPECT_TRUE(s.valid(json::parse(R"({"n": 16.0, "a": [1.0, 2, -0.0]})")));
  EXPECT_TRUE(s.errors(json::parse(R"({"n": 16.0})")).empty());
  EXPECT_FALSE(s.valid(json::parse(R"({"n": 16.5})")));
  EXPECT_TRUE(has_pointer(s.errors(json::parse(R"({"a": [1, 2.5]})")), "/a/1"));
  EXPECT_FALSE(s.valid(json::parse(R"({"n": -1.0})")));
}

TEST(JsonSchema, AnIndexIsToldFromAPropertyNamedWithDigits) {
  const JsonSchema s(json::parse(R"({
    "type": "object",
    "properties": {
      "2": {"type": "integer"},
      "list": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}}
    }
  })"));
  const auto errors = s.errors(json::parse(R"({"2": "x", "list": [{"k": "a"}, {"k": 5}]})"));
  const SchemaError* digits = nullptr;
  const SchemaError* item = nullptr;
  for (const auto& e : errors) {
    if (json_pointer(e.path) == "/2") digits = &e;
    if (json_pointer(e.path) == "/list/1/k") item = &e;
  }
  ASSERT_NE(digits, nullptr);
  ASSERT_EQ(digits->path.size(), 1u);
  EXPECT_FALSE(digits->path[0].index);
  EXPECT_EQ(dotted(digits->path), "2");
  ASSERT_NE(item, nullptr);
  ASSERT_EQ(item->path.size(), 3u);
  EXPECT_TRUE(item->path[1].index);
  EXPECT_EQ(dotted(item->path), "list[1].k");
}

TEST(JsonSchema, PointersAreEscapedAndTheRootHasNames) {
  EXPECT_EQ(json_pointer(Path{{"a/b~c", false}, {"0", true}}), "/a~1b~0c/0");
  EXPECT_EQ(json_pointer(Path{}), "");
  EXPECT_EQ(dotted(Path{}), "(root)");
  EXPECT_EQ(dotted(Path{{"budget", false}, {"seconds", false}}), "budget.seconds");
  const JsonSchema s(json::parse(R"({"type": "object", "additionalProperties": {"type": "integer"}})"));
  EXPECT_TRUE(has_pointer(s.errors(json::parse(R"({"a/b": "x"})")), "/a~1b"));
  const auto root = s.errors(json::parse("[1]"));
  ASSERT_FALSE(root.empty());
  EXPECT_TRUE(root.front().path.empty());
}

TEST(JsonSchema, ReferencesToOtherDocumentsGoThroughTheResolver) {
  const json doc = json::parse(R"({"properties": {"n": {"$ref": "parts.schema.json#/definitions/count"}}})");
  std::string asked;
  const JsonSchema s(doc, [&](const std::string& uri) {
    asked = uri;
    if (uri != "parts.schema.json") throw std::runtime_error("no document " + uri);
    return json::parse(R"({"definitions": {"count": {"type": "integer"}}})");
  });
  EXPECT_EQ(asked, "parts.schema.json") << "the resolver gets the URI without its fragment";
  EXPECT_TRUE(s.valid(json{{"n", 3}}));
  EXPECT_FALSE(s.valid(json{{"n", "three"}}));
  try {
    JsonSchema unresolved(doc);
    FAIL() << "a reference to another document without a resolver";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("parts.schema.json"), std::string::npos) << e.what();
  }
}

TEST(JsonSchema, ADocumentThatIsNoSchemaThrowsInsteadOfAborting) {
  EXPECT_THROW(JsonSchema(json::parse(R"({"type": 5})")), std::runtime_error);
  EXPECT_THROW(JsonSchema(json::parse(R"({"minimum": "low"})")), std::runtime_error);
}
