#include "config/hcl_parser.h"

#include <gtest/gtest.h>

#include "config_test_util.h"

namespace a3s::power::config::hcl {
namespace {

const Value& attr(const Body& b, const std::string& name) {
  const Attribute* a = b.find_attribute(name);
  if (!a) throw std::runtime_error("missing attribute " + name);
  return a->value;
}

TEST(HclParser, ScalarAttributes) {
  Body b = parse(R"(
s = "text"
i = 42
neg = -7
f = 2.5
nf = -0.125
e = 1e3
ne = -2.5E-2
t = true
fl = false
n = null
)", "c.hcl");
  EXPECT_EQ(b.attributes.size(), 10u);
  EXPECT_EQ(attr(b, "s").kind, Value::Kind::String);
  EXPECT_EQ(attr(b, "s").string, "text");
  EXPECT_EQ(attr(b, "i").kind, Value::Kind::Int);
  EXPECT_EQ(attr(b, "i").integer, 42);
  EXPECT_EQ(attr(b, "neg").integer, -7);
  EXPECT_EQ(attr(b, "f").kind, Value::Kind::Float);
  EXPECT_DOUBLE_EQ(attr(b, "f").number, 2.5);
  EXPECT_DOUBLE_EQ(attr(b, "nf").number, -0.125);
  EXPECT_EQ(attr(b, "e").kind, Value::Kind::Float);
  EXPECT_DOUBLE_EQ(attr(b, "e").number, 1000.0);
  EXPECT_DOUBLE_EQ(attr(b, "ne").number, -0.025);
  EXPECT_EQ(attr(b, "t").kind, Value::Kind::Bool);
  EXPECT_TRUE(attr(b, "t").boolean);
  EXPECT_FALSE(attr(b, "fl").boolean);
  EXPECT_EQ(attr(b, "n").kind, Value::Kind::Null);
}

TEST(HclParser, IntegerLimits) {
  Body b = parse("max = 9223372036854775807\nmin = -9223372036854775808\n", "c.hcl");
  EXPECT_EQ(attr(b, "max").integer, INT64_MAX);
  EXPECT_EQ(attr(b, "min").integer, INT64_MIN);
}

TEST(HclParser, Lists) {
  Body b = parse(R"(
empty = []
one = ["a"]
trailing = [1, 2, 3,]
multi = [
  "x",   # comment inside
  "y",
]
nested = [[1], [], ["a", true]]
)", "c.hcl");
  EXPECT_TRUE(attr(b, "empty").list.empty());
  EXPECT_EQ(attr(b, "empty").kind, Value::Kind::List);
  ASSERT_EQ(attr(b, "one").list.size(), 1u);
  EXPECT_EQ(attr(b, "one").list[0].string, "a");
  ASSERT_EQ(attr(b, "trailing").list.size(), 3u);
  EXPECT_EQ(attr(b, "trailing").list[2].integer, 3);
  ASSERT_EQ(attr(b, "multi").list.size(), 2u);
  EXPECT_EQ(attr(b, "multi").list[1].string, "y");
  const auto& nested = attr(b, "nested").list;
  ASSERT_EQ(nested.size(), 3u);
  EXPECT_EQ(nested[0].list[0].integer, 1);
  EXPECT_TRUE(nested[1].list.empty());
  EXPECT_TRUE(nested[2].list[1].boolean);
}

TEST(HclParser, ObjectsWithBothSeparatorsAndQuotedKeys) {
  Body b = parse(R"(
m = { a = 1, "quoted key" = "v", b: 2 }
ml = {
  x = "1"
  "y z": [1, 2]
  inner = { deep = true }
}
empty = {}
)", "c.hcl");
  const Value& m = attr(b, "m");
  ASSERT_EQ(m.kind, Value::Kind::Object);
  ASSERT_EQ(m.object.size(), 3u);
  EXPECT_EQ(m.object[0].key, "a");
  EXPECT_EQ(m.object[1].key, "quoted key");
  EXPECT_EQ(m.find("quoted key")->string, "v");
  EXPECT_EQ(m.find("b")->integer, 2);
  const Value& ml = attr(b, "ml");
  ASSERT_EQ(ml.object.size(), 3u);
  EXPECT_EQ(ml.find("y z")->list.size(), 2u);
  EXPECT_TRUE(ml.find("inner")->find("deep")->boolean);
  EXPECT_EQ(ml.find("nope"), nullptr);
  EXPECT_TRUE(attr(b, "empty").object.empty());
}

TEST(HclParser, BlocksWithLabelsAndNesting) {
  Body b = parse(R"(
api_key "alice" {
  hash = "sha256:00"
}
plain {
  x = 1
}
two "a" "b" {
  inner "c" {
    y = [1]
  }
}
one_line "l" { k = "v" }
ident_label name { }
)", "c.hcl");
  ASSERT_EQ(b.blocks.size(), 5u);
  EXPECT_EQ(b.blocks[0].type, "api_key");
  EXPECT_EQ(b.blocks[0].labels, std::vector<std::string>{"alice"});
  EXPECT_EQ(b.blocks[0].body.find_attribute("hash")->value.string, "sha256:00");
  EXPECT_TRUE(b.blocks[1].labels.empty());
  EXPECT_EQ(b.blocks[1].body.attributes.size(), 1u);
  EXPECT_EQ(b.blocks[2].labels, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(b.blocks[2].body.blocks.size(), 1u);
  EXPECT_EQ(b.blocks[2].body.blocks[0].type, "inner");
  EXPECT_EQ(b.blocks[2].body.blocks[0].body.find_attribute("y")->value.list[0].integer, 1);
  EXPECT_EQ(b.blocks[3].body.find_attribute("k")->value.string, "v");
  EXPECT_EQ(b.blocks[4].labels, std::vector<std::string>{"name"});
  EXPECT_TRUE(b.blocks[4].body.attributes.empty());
}

TEST(HclParser, RepeatedBlocksAreAllowed) {
  Body b = parse("model \"a\" {\n path = \"x\"\n}\nmodel \"b\" {\n path = \"y\"\n}\n", "c.hcl");
  ASSERT_EQ(b.blocks.size(), 2u);
  EXPECT_EQ(b.blocks[1].labels[0], "b");
}

TEST(HclParser, EveryNodeCarriesItsPosition) {
  Body b = parse("# header\nport = 8080\napi_key \"bob\" {\n  key = [\"k\",\n   \"j\"]\n}\nm = { a = 1 }\n",
                 "dir/c.hcl");
  const Attribute* port = b.find_attribute("port");
  ASSERT_NE(port, nullptr);
  EXPECT_EQ(port->pos.str(), "dir/c.hcl:2:1");
  EXPECT_EQ(port->value.pos.str(), "dir/c.hcl:2:8");
  const Block& blk = b.blocks.at(0);
  EXPECT_EQ(blk.pos.str(), "dir/c.hcl:3:1");
  EXPECT_EQ(blk.label_pos.at(0).str(), "dir/c.hcl:3:9");
  EXPECT_EQ(blk.open_pos.str(), "dir/c.hcl:3:15");
  const Attribute* key = blk.body.find_attribute("key");
  EXPECT_EQ(key->pos.str(), "dir/c.hcl:4:3");
  EXPECT_EQ(key->value.pos.str(), "dir/c.hcl:4:9");
  EXPECT_EQ(key->value.list.at(1).pos.str(), "dir/c.hcl:5:4");
  const Value& m = b.find_attribute("m")->value;
  EXPECT_EQ(m.object.at(0).key_pos.str(), "dir/c.hcl:7:7");
  EXPECT_EQ(m.object.at(0).value.pos.str(), "dir/c.hcl:7:11");
}

TEST(HclParser, NegativeNumberPositionIsTheMinusSign) {
  Body b = parse("x = -5\n", "c.hcl");
  EXPECT_EQ(attr(b, "x").pos.col, 5);
}

TEST(HclParser, CommentsEverywhere) {
  Body b = parse(R"(/* leading
block */ a = 1 /* trailing */
// line
b = [ /* in list */ 2, # hash
  3 // slashes
]
c = { /* in object */ k = 4 }
)", "c.hcl");
  EXPECT_EQ(attr(b, "a").integer, 1);
  EXPECT_EQ(attr(b, "b").list.size(), 2u);
  EXPECT_EQ(attr(b, "c").find("k")->integer, 4);
}

TEST(HclParser, HeredocValue) {
  Body b = parse("text = <<EOT\nhello\n  world\nEOT\nafter = 1\n", "c.hcl");
  EXPECT_EQ(attr(b, "text").string, "hello\n  world\n");
  EXPECT_EQ(attr(b, "after").integer, 1);
}

TEST(HclParser, EmptyAndCommentOnlySources) {
  EXPECT_TRUE(parse("", "c.hcl").attributes.empty());
  Body b = parse("\n\n# nothing\n// here\n/* at all */\n", "c.hcl");
  EXPECT_TRUE(b.attributes.empty());
  EXPECT_TRUE(b.blocks.empty());
}

TEST(HclParser, LastLineWithoutNewline) {
  Body b = parse("a = 1\nb = \"x\"", "c.hcl");
  EXPECT_EQ(attr(b, "b").string, "x");
}

TEST(HclParser, WipeClearsStrings) {
  Body b = parse("k = \"secret\"\nl = [\"s2\"]\nblk \"lab\" { o = { x = \"s3\" } }\n", "c.hcl");
  wipe(b);
  EXPECT_TRUE(attr(b, "k").string.empty());
  EXPECT_TRUE(attr(b, "l").list[0].string.empty());
  EXPECT_TRUE(b.blocks[0].labels[0].empty());
  EXPECT_TRUE(b.blocks[0].body.find_attribute("o")->value.object[0].value.string.empty());
}

}  // namespace
}  // namespace a3s::power::config::hcl
