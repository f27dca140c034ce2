// The ONNX IR as C++ message classes (onnx.proto, onnx-ml.proto and onnx-data.proto of
// onnx 1.22), read and written with onnx-light's own wire format code.
//
// Each message is declared once, as a field list: ONNX_LIGHT_FIELDS_<Message>(F) calls
// F(number, name, holder type, flags) for every field in field-number order. The same
// list defines the C++ members, the descriptor that drives parsing and serialization
// (onnx.cc) and the Python properties (the bindings), so they cannot disagree.
//
// Field holders: Opt<T> (optional scalar or string, with presence), Opt<Bytes>
// (zero-copy bytes), MsgField<M> (optional sub-message), std::vector<T> (repeated scalar
// or string), Repeated<M> (repeated sub-message). Nested protobuf messages are named
// Outer_Inner in C++ (TypeProto_Tensor) and Outer.Inner in Python (TypeProto.Tensor).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_light/onnx/message.h"

namespace onnx_light::onnx {

// Enums of onnx.proto. Fields that hold them are int32 (as on the wire).
enum class AttributeType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};
enum class DataLocation : int32_t { kDefault = 0, kExternal = 1 };
// SequenceProto.DataType and OptionalProto.DataType.
enum class ValueKind : int32_t {
  kUndefined = 0,
  kTensor = 1,
  kSparseTensor = 2,
  kSequence = 3,
  kMap = 4,
  kOptional = 5,
};
inline constexpr int64_t kIrVersion = 13;  // onnx 1.22's IR_VERSION

#define ONNX_LIGHT_MESSAGES(M)    \
  M(StringStringEntryProto)       \
  M(OperatorSetIdProto)           \
  M(TensorProto_Segment)          \
  M(TensorProto)                  \
  M(SparseTensorProto)            \
  M(TensorShapeProto_Dimension)   \
  M(TensorShapeProto)             \
  M(TypeProto_Tensor)             \
  M(TypeProto_Sequence)           \
  M(TypeProto_Map)                \
  M(TypeProto_Optional)           \
  M(TypeProto_SparseTensor)       \
  M(TypeProto_Opaque)             \
  M(TypeProto)                    \
  M(ValueInfoProto)               \
  M(AttributeProto)               \
  M(IntIntListEntryProto)         \
  M(SimpleShardedDimProto)        \
  M(ShardedDimProto)              \
  M(ShardingSpecProto)            \
  M(NodeDeviceConfigurationProto) \
  M(NodeProto)                    \
  M(TensorAnnotation)             \
  M(GraphProto)                   \
  M(FunctionProto)                \
  M(TrainingInfoProto)            \
  M(DeviceConfigurationProto)     \
  M(ModelProto)                   \
  M(SequenceProto)                \
  M(MapProto)                     \
  M(OptionalProto)

#define ONNX_LIGHT_FORWARD_DECLARE_(Name) struct Name;
ONNX_LIGHT_MESSAGES(ONNX_LIGHT_FORWARD_DECLARE_)
#undef ONNX_LIGHT_FORWARD_DECLARE_

// clang-format off
#define ONNX_LIGHT_FIELDS_StringStringEntryProto(F) \
  F(1, key, Opt<std::string>, kNoFlags) \
  F(2, value, Opt<std::string>, kNoFlags)

#define ONNX_LIGHT_FIELDS_OperatorSetIdProto(F) \
  F(1, domain, Opt<std::string>, kNoFlags) \
  F(2, version, Opt<int64_t>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TensorProto_Segment(F) \
  F(1, begin, Opt<int64_t>, kNoFlags) \
  F(2, end, Opt<int64_t>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TensorProto(F) \
  F(1, dims, std::vector<int64_t>, kNoFlags) \
  F(2, data_type, Opt<int32_t>, kNoFlags) \
  F(3, segment, MsgField<TensorProto_Segment>, kNoFlags) \
  F(4, float_data, std::vector<float>, kPacked) \
  F(5, int32_data, std::vector<int32_t>, kPacked) \
  F(6, string_data, std::vector<std::string>, kBytes) \
  F(7, int64_data, std::vector<int64_t>, kPacked) \
  F(8, name, Opt<std::string>, kNoFlags) \
  F(9, raw_data, Opt<Bytes>, kBytes) \
  F(10, double_data, std::vector<double>, kPacked) \
  F(11, uint64_data, std::vector<uint64_t>, kPacked) \
  F(12, doc_string, Opt<std::string>, kNoFlags) \
  F(13, external_data, Repeated<StringStringEntryProto>, kNoFlags) \
  F(14, data_location, Opt<int32_t>, kNoFlags) \
  F(16, metadata_props, Repeated<StringStringEntryProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_SparseTensorProto(F) \
  F(1, values, MsgField<TensorProto>, kNoFlags) \
  F(2, indices, MsgField<TensorProto>, kNoFlags) \
  F(3, dims, std::vector<int64_t>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TensorShapeProto_Dimension(F) \
  F(1, dim_value, Opt<int64_t>, kOneof) \
  F(2, dim_param, Opt<std::string>, kOneof) \
  F(3, denotation, Opt<std::string>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TensorShapeProto(F) \
  F(1, dim, Repeated<TensorShapeProto_Dimension>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TypeProto_Tensor(F) \
  F(1, elem_type, Opt<int32_t>, kNoFlags) \
  F(2, shape, MsgField<TensorShapeProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TypeProto_Sequence(F) \
  F(1, elem_type, MsgField<TypeProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TypeProto_Map(F) \
  F(1, key_type, Opt<int32_t>, kNoFlags) \
  F(2, value_type, MsgField<TypeProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TypeProto_Optional(F) \
  F(1, elem_type, MsgField<TypeProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TypeProto_SparseTensor(F) \
  F(1, elem_type, Opt<int32_t>, kNoFlags) \
  F(2, shape, MsgField<TensorShapeProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TypeProto_Opaque(F) \
  F(1, domain, Opt<std::string>, kNoFlags) \
  F(2, name, Opt<std::string>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TypeProto(F) \
  F(1, tensor_type, MsgField<TypeProto_Tensor>, kOneof) \
  F(4, sequence_type, MsgField<TypeProto_Sequence>, kOneof) \
  F(5, map_type, MsgField<TypeProto_Map>, kOneof) \
  F(6, denotation, Opt<std::string>, kNoFlags) \
  F(7, opaque_type, MsgField<TypeProto_Opaque>, kOneof) \
  F(8, sparse_tensor_type, MsgField<TypeProto_SparseTensor>, kOneof) \
  F(9, optional_type, MsgField<TypeProto_Optional>, kOneof)

#define ONNX_LIGHT_FIELDS_ValueInfoProto(F) \
  F(1, name, Opt<std::string>, kNoFlags) \
  F(2, type, MsgField<TypeProto>, kNoFlags) \
  F(3, doc_string, Opt<std::string>, kNoFlags) \
  F(4, metadata_props, Repeated<StringStringEntryProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_AttributeProto(F) \
  F(1, name, Opt<std::string>, kNoFlags) \
  F(2, f, Opt<float>, kNoFlags) \
  F(3, i, Opt<int64_t>, kNoFlags) \
  F(4, s, Opt<std::string>, kBytes) \
  F(5, t, MsgField<TensorProto>, kNoFlags) \
  F(6, g, MsgField<GraphProto>, kNoFlags) \
  F(7, floats, std::vector<float>, kNoFlags) \
  F(8, ints, std::vector<int64_t>, kNoFlags) \
  F(9, strings, std::vector<std::string>, kBytes) \
  F(10, tensors, Repeated<TensorProto>, kNoFlags) \
  F(11, graphs, Repeated<GraphProto>, kNoFlags) \
  F(13, doc_string, Opt<std::string>, kNoFlags) \
  F(14, tp, MsgField<TypeProto>, kNoFlags) \
  F(15, type_protos, Repeated<TypeProto>, kNoFlags) \
  F(20, type, Opt<int32_t>, kNoFlags) \
  F(21, ref_attr_name, Opt<std::string>, kNoFlags) \
  F(22, sparse_tensor, MsgField<SparseTensorProto>, kNoFlags) \
  F(23, sparse_tensors, Repeated<SparseTensorProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_IntIntListEntryProto(F) \
  F(1, key, Opt<int64_t>, kNoFlags) \
  F(2, value, std::vector<int64_t>, kNoFlags)

#define ONNX_LIGHT_FIELDS_SimpleShardedDimProto(F) \
  F(1, dim_value, Opt<int64_t>, kOneof) \
  F(2, dim_param, Opt<std::string>, kOneof) \
  F(3, num_shards, Opt<int64_t>, kNoFlags)

#define ONNX_LIGHT_FIELDS_ShardedDimProto(F) \
  F(1, axis, Opt<int64_t>, kNoFlags) \
  F(2, simple_sharding, Repeated<SimpleShardedDimProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_ShardingSpecProto(F) \
  F(1, tensor_name, Opt<std::string>, kNoFlags) \
  F(2, device, std::vector<int64_t>, kNoFlags) \
  F(3, index_to_device_group_map, Repeated<IntIntListEntryProto>, kNoFlags) \
  F(4, sharded_dim, Repeated<ShardedDimProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_NodeDeviceConfigurationProto(F) \
  F(1, configuration_id, Opt<std::string>, kNoFlags) \
  F(2, sharding_spec, Repeated<ShardingSpecProto>, kNoFlags) \
  F(3, pipeline_stage, Opt<int32_t>, kNoFlags)

#define ONNX_LIGHT_FIELDS_NodeProto(F) \
  F(1, input, std::vector<std::string>, kNoFlags) \
  F(2, output, std::vector<std::string>, kNoFlags) \
  F(3, name, Opt<std::string>, kNoFlags) \
  F(4, op_type, Opt<std::string>, kNoFlags) \
  F(5, attribute, Repeated<AttributeProto>, kNoFlags) \
  F(6, doc_string, Opt<std::string>, kNoFlags) \
  F(7, domain, Opt<std::string>, kNoFlags) \
  F(8, overload, Opt<std::string>, kNoFlags) \
  F(9, metadata_props, Repeated<StringStringEntryProto>, kNoFlags) \
  F(10, device_configurations, Repeated<NodeDeviceConfigurationProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TensorAnnotation(F) \
  F(1, tensor_name, Opt<std::string>, kNoFlags) \
  F(2, quant_parameter_tensor_names, Repeated<StringStringEntryProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_GraphProto(F) \
  F(1, node, Repeated<NodeProto>, kNoFlags) \
  F(2, name, Opt<std::string>, kNoFlags) \
  F(5, initializer, Repeated<TensorProto>, kNoFlags) \
  F(10, doc_string, Opt<std::string>, kNoFlags) \
  F(11, input, Repeated<ValueInfoProto>, kNoFlags) \
  F(12, output, Repeated<ValueInfoProto>, kNoFlags) \
  F(13, value_info, Repeated<ValueInfoProto>, kNoFlags) \
  F(14, quantization_annotation, Repeated<TensorAnnotation>, kNoFlags) \
  F(15, sparse_initializer, Repeated<SparseTensorProto>, kNoFlags) \
  F(16, metadata_props, Repeated<StringStringEntryProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_FunctionProto(F) \
  F(1, name, Opt<std::string>, kNoFlags) \
  F(4, input, std::vector<std::string>, kNoFlags) \
  F(5, output, std::vector<std::string>, kNoFlags) \
  F(6, attribute, std::vector<std::string>, kNoFlags) \
  F(7, node, Repeated<NodeProto>, kNoFlags) \
  F(8, doc_string, Opt<std::string>, kNoFlags) \
  F(9, opset_import, Repeated<OperatorSetIdProto>, kNoFlags) \
  F(10, domain, Opt<std::string>, kNoFlags) \
  F(11, attribute_proto, Repeated<AttributeProto>, kNoFlags) \
  F(12, value_info, Repeated<ValueInfoProto>, kNoFlags) \
  F(13, overload, Opt<std::string>, kNoFlags) \
  F(14, metadata_props, Repeated<StringStringEntryProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_TrainingInfoProto(F) \
  F(1, initialization, MsgField<GraphProto>, kNoFlags) \
  F(2, algorithm, MsgField<GraphProto>, kNoFlags) \
  F(3, initialization_binding, Repeated<StringStringEntryProto>, kNoFlags) \
  F(4, update_binding, Repeated<StringStringEntryProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_DeviceConfigurationProto(F) \
  F(1, name, Opt<std::string>, kNoFlags) \
  F(2, num_devices, Opt<int32_t>, kNoFlags) \
  F(3, device, std::vector<std::string>, kNoFlags)

#define ONNX_LIGHT_FIELDS_ModelProto(F) \
  F(1, ir_version, Opt<int64_t>, kNoFlags) \
  F(2, producer_name, Opt<std::string>, kNoFlags) \
  F(3, producer_version, Opt<std::string>, kNoFlags) \
  F(4, domain, Opt<std::string>, kNoFlags) \
  F(5, model_version, Opt<int64_t>, kNoFlags) \
  F(6, doc_string, Opt<std::string>, kNoFlags) \
  F(7, graph, MsgField<GraphProto>, kNoFlags) \
  F(8, opset_import, Repeated<OperatorSetIdProto>, kNoFlags) \
  F(14, metadata_props, Repeated<StringStringEntryProto>, kNoFlags) \
  F(20, training_info, Repeated<TrainingInfoProto>, kNoFlags) \
  F(25, functions, Repeated<FunctionProto>, kNoFlags) \
  F(26, configuration, Repeated<DeviceConfigurationProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_SequenceProto(F) \
  F(1, name, Opt<std::string>, kNoFlags) \
  F(2, elem_type, Opt<int32_t>, kNoFlags) \
  F(3, tensor_values, Repeated<TensorProto>, kNoFlags) \
  F(4, sparse_tensor_values, Repeated<SparseTensorProto>, kNoFlags) \
  F(5, sequence_values, Repeated<SequenceProto>, kNoFlags) \
  F(6, map_values, Repeated<MapProto>, kNoFlags) \
  F(7, optional_values, Repeated<OptionalProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_MapProto(F) \
  F(1, name, Opt<std::string>, kNoFlags) \
  F(2, key_type, Opt<int32_t>, kNoFlags) \
  F(3, keys, std::vector<int64_t>, kNoFlags) \
  F(4, string_keys, std::vector<std::string>, kBytes) \
  F(5, values, MsgField<SequenceProto>, kNoFlags)

#define ONNX_LIGHT_FIELDS_OptionalProto(F) \
  F(1, name, Opt<std::string>, kNoFlags) \
  F(2, elem_type, Opt<int32_t>, kNoFlags) \
  F(3, tensor_value, MsgField<TensorProto>, kNoFlags) \
  F(4, sparse_tensor_value, MsgField<SparseTensorProto>, kNoFlags) \
  F(5, sequence_value, MsgField<SequenceProto>, kNoFlags) \
  F(6, map_value, MsgField<MapProto>, kNoFlags) \
  F(7, optional_value, MsgField<OptionalProto>, kNoFlags)
// clang-format on

#define ONNX_LIGHT_MEMBER_(number, name, holder, flags) holder name;
#define ONNX_LIGHT_DEFINE_MESSAGE_(Name)                                                       \
  struct Name : MessageBase {                                                                  \
    ONNX_LIGHT_FIELDS_##Name(ONNX_LIGHT_MEMBER_) static const MessageDescriptor& descriptor(); \
    friend bool operator==(const Name& a, const Name& b) {                                     \
      return MessagesEqual(descriptor(), &a, &b);                                              \
    }                                                                                          \
    friend bool operator!=(const Name& a, const Name& b) { return !(a == b); }                 \
    void Clear() { ClearMessage(descriptor(), this); }                                         \
    using Self = Name;                                                                         \
  };
ONNX_LIGHT_MESSAGES(ONNX_LIGHT_DEFINE_MESSAGE_)
#undef ONNX_LIGHT_DEFINE_MESSAGE_
#undef ONNX_LIGHT_MEMBER_

}  // namespace onnx_light::onnx
