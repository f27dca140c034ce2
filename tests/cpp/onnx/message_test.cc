#include <gtest/gtest.h>

#include <string>

#include "onnx_light/onnx/onnx.h"

namespace onnx_light::onnx {
namespace {

template <typename M>
Result<M> Parse(const std::string& bytes, const ParseOptions& options = {}) {
  M m;
  ONNX_LIGHT_RETURN_IF_ERROR(ParseFromBytes(&m, bytes.data(), bytes.size(), options));
  return m;
}

ModelProto SmallModel() {
  ModelProto model;
  model.ir_version = 8;
  model.producer_name = std::string("test");
  OperatorSetIdProto* opset = model.opset_import.Add();
  opset->version = 17;
  GraphProto* graph = model.graph.mutable_get();
  graph->name = std::string("g");
  NodeProto* node = graph->node.Add();
  node->op_type = std::string("LeakyRelu");
  node->input.push_back("x");
  node->output.push_back("y");
  AttributeProto* alpha = node->attribute.Add();
  alpha->name = std::string("alpha");
  alpha->f = 0.25f;
  alpha->type = static_cast<int32_t>(AttributeType::kFloat);
  TensorProto* w = graph->initializer.Add();
  w->name = std::string("w");
  w->data_type = 1;
  w->dims = {2};
  w->float_data = {1.5f, -2.0f};
  return model;
}

TEST(Message, DescriptorsListFieldsInAscendingOrder) {
#define ONNX_LIGHT_CHECK_ORDER_(Name)                                  \
  {                                                                    \
    const MessageDescriptor& d = Name::descriptor();                   \
    for (size_t i = 1; i < d.field_count; ++i) {                       \
      EXPECT_LT(d.fields[i - 1].number, d.fields[i].number) << d.name; \
    }                                                                  \
  }
  ONNX_LIGHT_MESSAGES(ONNX_LIGHT_CHECK_ORDER_)
#undef ONNX_LIGHT_CHECK_ORDER_
  EXPECT_STREQ(TypeProto_Tensor::descriptor().name, "TypeProto.Tensor");
  EXPECT_STREQ(TypeProto::descriptor().oneof_name, "value");
  EXPECT_EQ(ModelProto::descriptor().FindByName("graph")->number, 7u);
  EXPECT_EQ(ModelProto::descriptor().FindByNumber(25)->name, std::string("functions"));
  EXPECT_EQ(ModelProto::descriptor().FindByNumber(9), nullptr);
}

TEST(Message, RoundTripAndEquality) {
  const ModelProto model = SmallModel();
  const std::string bytes = SerializeToString(model);
  auto parsed = Parse<ModelProto>(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, model);
  EXPECT_EQ(SerializeToString(*parsed), bytes);
  EXPECT_EQ(parsed->graph->node[0].attribute[0].f.get(), 0.25f);
  EXPECT_EQ(parsed->graph->initializer[0].float_data[1], -2.0f);
  ModelProto changed = *parsed;
  changed.graph.mutable_get()->node[0].op_type = std::string("Relu");
  EXPECT_NE(changed, model);
  EXPECT_EQ(parsed->graph->node[0].op_type.get(), "LeakyRelu");  // copies are deep
}

TEST(Message, PresenceOfDefaultValues) {
  OperatorSetIdProto a;
  EXPECT_EQ(SerializeToString(a), "");
  a.version = 0;  // set to the default: still written (proto2 presence)
  EXPECT_EQ(SerializeToString(a), std::string("\x10\x00", 2));
  a.domain = std::string();
  EXPECT_EQ(SerializeToString(a), std::string("\x0a\x00\x10\x00", 4));
  auto b = Parse<OperatorSetIdProto>(std::string("\x10\x00", 2));
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->version.has());
  EXPECT_FALSE(b->domain.has());
}

TEST(Message, UnknownFieldsAreKeptAndWrittenBack) {
  // ModelProto with field 99 (varint), a known field, then field 100 (bytes).
  const std::string bytes("\x98\x06\x05\x08\x07\xa2\x06\x02hi", 10);
  auto m = Parse<ModelProto>(bytes);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->ir_version.get(), 7);
  EXPECT_EQ(m->unknown_fields, std::string("\x98\x06\x05\xa2\x06\x02hi", 8));
  // Known fields first, then the unknown ones, as protobuf writes them.
  EXPECT_EQ(SerializeToString(*m), std::string("\x08\x07\x98\x06\x05\xa2\x06\x02hi", 10));
}

TEST(Message, PackedAndUnpackedRepeatedScalarsAreBothRead) {
  // TensorProto.dims (1) unpacked: 2, 3; float_data (4) packed: 1.0
  const std::string unpacked("\x08\x02\x08\x03\x22\x04\x00\x00\x80\x3f", 10);
  auto t = Parse<TensorProto>(unpacked);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t->float_data, std::vector<float>{1.0f});
  // dims sent packed is accepted too, and written back unpacked as onnx.proto declares
  auto packed = Parse<TensorProto>(std::string("\x0a\x02\x02\x03", 4));
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(packed->dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(SerializeToString(*packed), std::string("\x08\x02\x08\x03", 4));
  // float_data unpacked (fixed32 tag) is accepted
  auto f = Parse<TensorProto>(std::string("\x25\x00\x00\x80\x3f", 5));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->float_data, std::vector<float>{1.0f});
  auto bad = Parse<TensorProto>(std::string("\x22\x03\x00\x00\x80", 5));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not a multiple of 4"), std::string::npos);
}

TEST(Message, EmptyPackedFieldFromTheFuzzer) {
  // Found by model_reader_fuzzer: an empty packed float_data once passed a null pointer to
  // memcpy. protobuf drops an empty packed field on write; so do we.
  auto t = Parse<TensorProto>(std::string("\x22\x00", 2));
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->float_data.empty());
  EXPECT_EQ(SerializeToString(*t), "");
}

TEST(Message, NegativeInt32IsSignExtended) {
  TensorProto t;
  t.data_type = -1;
  const std::string bytes = SerializeToString(t);
  EXPECT_EQ(bytes.size(), 11u);  // tag + 10-byte varint, as protobuf writes int32 -1
  auto back = Parse<TensorProto>(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->data_type.get(), -1);
}

TEST(Message, OneofKeepsTheLastMember) {
  // dim_value = 3 then dim_param = "N"
  auto d = Parse<TensorShapeProto_Dimension>(std::string("\x08\x03\x12\x01N", 5));
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->dim_value.has());
  EXPECT_EQ(d->dim_param.get(), "N");
}

TEST(Message, SubMessagesMerge) {
  // Two occurrences of ModelProto.graph: name from the first, a node from the second.
  const std::string bytes("\x3a\x03\x12\x01g\x3a\x04\x0a\x02\x22\x00", 11);
  auto m = Parse<ModelProto>(bytes);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->graph->name.get(), "g");
  EXPECT_EQ(m->graph->node.size(), 1u);
}

TEST(Message, ErrorsNameTheFieldPathAndOffset) {
  ModelProto model = SmallModel();
  std::string bytes = SerializeToString(model);
  // Break the float attribute value: make it a truncated fixed32 by cutting the model.
  const size_t at = bytes.find("alpha");
  ASSERT_NE(at, std::string::npos);
  auto cut = Parse<ModelProto>(bytes.substr(0, at + 7));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().code(), StatusCode::kInvalidModel);
  EXPECT_EQ(cut.status().message().rfind("ModelProto.graph: length ", 0), 0u)
      << cut.status().message();

  // A wrong wire type deep inside: node[0].op_type sent as a varint.
  GraphProto g;
  g.node.Add()->name = std::string("n");
  std::string graph_bytes = SerializeToString(g);
  graph_bytes += std::string("\x0a\x02\x20\x01", 4);  // node[1] { op_type: varint 1 }
  auto wrong = Parse<GraphProto>(graph_bytes);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "GraphProto.node[1].op_type: wire type varint does not match field 'op_type' (4) at "
            "byte " +
                std::to_string(graph_bytes.size() - 1));
}

TEST(Message, NestingDepthIsBounded) {
  // GraphProto > node > attribute > g > ... nested 50 times.
  GraphProto root;
  GraphProto* g = &root;
  for (int i = 0; i < 50; ++i) {
    AttributeProto* a = g->node.Add()->attribute.Add();
    a->name = std::string("body");
    g = a->g.mutable_get();
  }
  g->name = std::string("leaf");
  const std::string bytes = SerializeToString(root);
  ASSERT_TRUE(Parse<GraphProto>(bytes, ParseOptions{200, uint64_t{1} << 30}).ok());
  auto deep = Parse<GraphProto>(bytes);  // default limit: 100 levels
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nested deeper than the limit of 100"), std::string::npos);
  // Hand-made input nested 2,000 subgraphs deep fails at the limit instead of exhausting
  // the stack.
  std::string bytes_deep;
  auto wrap = [](uint32_t field, const std::string& payload) {
    std::string out;
    StringSink sink(&out);
    WireWriter w(&sink);
    w.WriteTag(field, WireType::kLengthDelimited);
    w.WriteVarint(payload.size());
    return out + payload;
  };
  for (int i = 0; i < 2000; ++i)
    bytes_deep = wrap(1, wrap(5, wrap(6, bytes_deep)));
  auto bomb = Parse<GraphProto>(bytes_deep);
  ASSERT_FALSE(bomb.ok());
  EXPECT_NE(bomb.status().message().find("nested deeper"), std::string::npos);
}

TEST(Message, SizeLimit) {
  ParseOptions options;
  options.max_bytes = 4;
  auto r = Parse<ModelProto>(std::string("\x08\x07\x08\x07\x08\x07", 6), options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
}

TEST(Message, EveryPrefixOfAModelFailsCleanlyOrParses) {
  const std::string bytes = SerializeToString(SmallModel());
  int errors = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = Parse<ModelProto>(bytes.substr(0, n));
    if (!r.ok()) {
      ++errors;
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidModel);
    }
  }
  EXPECT_GT(errors, static_cast<int>(bytes.size() / 2));
}

TEST(Message, TextFormat) {
  const ModelProto model = SmallModel();
  const std::string text = MessageToText(ModelProto::descriptor(), &model);
  EXPECT_NE(text.find("ir_version: 8\n"), std::string::npos);
  EXPECT_NE(text.find("    op_type: \"LeakyRelu\"\n"), std::string::npos);
  EXPECT_NE(text.find("      f: 0.25\n"), std::string::npos);
}

}  // namespace
}  // namespace onnx_light::onnx
