// Descriptors of the ONNX messages, generated from the field lists in onnx.h.
#include "onnx_light/onnx/onnx.h"

#include "codec.h"

namespace onnx_light::onnx {

#define ONNX_LIGHT_FIELD_DESCRIPTOR_(number, field_name, holder, flags)               \
  FieldDescriptor{number,                                                             \
                  #field_name,                                                        \
                  flags,                                                              \
                  detail::Codec<holder>::kKind,                                       \
                  detail::Codec<holder>::kRepeated,                                   \
                  detail::CodecFor<holder>(),                                         \
                  [](void* m) -> void* { return &static_cast<Msg*>(m)->field_name; }, \
                  detail::MessageTypeOf<holder>::kGet},

#define ONNX_LIGHT_HAS_ONEOF_(number, field_name, holder, flags) || (((flags)&kOneof) != 0)

#define ONNX_LIGHT_DESCRIPTOR_(Name, PrettyName, Oneof)                            \
  const MessageDescriptor& Name::descriptor() {                                    \
    using Msg = Name;                                                              \
    static const FieldDescriptor fields[] = {                                      \
        ONNX_LIGHT_FIELDS_##Name(ONNX_LIGHT_FIELD_DESCRIPTOR_)};                   \
    static const MessageDescriptor d = {                                           \
        PrettyName, fields, sizeof(fields) / sizeof(fields[0]),                    \
        (false ONNX_LIGHT_FIELDS_##Name(ONNX_LIGHT_HAS_ONEOF_)) ? Oneof : nullptr, \
        [](void* m) -> MessageBase* { return static_cast<Msg*>(m); }};             \
    return d;                                                                      \
  }

ONNX_LIGHT_DESCRIPTOR_(StringStringEntryProto, "StringStringEntryProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(OperatorSetIdProto, "OperatorSetIdProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TensorProto_Segment, "TensorProto.Segment", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TensorProto, "TensorProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(SparseTensorProto, "SparseTensorProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TensorShapeProto_Dimension, "TensorShapeProto.Dimension", "value")
ONNX_LIGHT_DESCRIPTOR_(TensorShapeProto, "TensorShapeProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TypeProto_Tensor, "TypeProto.Tensor", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TypeProto_Sequence, "TypeProto.Sequence", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TypeProto_Map, "TypeProto.Map", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TypeProto_Optional, "TypeProto.Optional", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TypeProto_SparseTensor, "TypeProto.SparseTensor", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TypeProto_Opaque, "TypeProto.Opaque", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TypeProto, "TypeProto", "value")
ONNX_LIGHT_DESCRIPTOR_(ValueInfoProto, "ValueInfoProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(AttributeProto, "AttributeProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(IntIntListEntryProto, "IntIntListEntryProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(SimpleShardedDimProto, "SimpleShardedDimProto", "dim")
ONNX_LIGHT_DESCRIPTOR_(ShardedDimProto, "ShardedDimProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(ShardingSpecProto, "ShardingSpecProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(NodeDeviceConfigurationProto, "NodeDeviceConfigurationProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(NodeProto, "NodeProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TensorAnnotation, "TensorAnnotation", nullptr)
ONNX_LIGHT_DESCRIPTOR_(GraphProto, "GraphProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(FunctionProto, "FunctionProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(TrainingInfoProto, "TrainingInfoProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(DeviceConfigurationProto, "DeviceConfigurationProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(ModelProto, "ModelProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(SequenceProto, "SequenceProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(MapProto, "MapProto", nullptr)
ONNX_LIGHT_DESCRIPTOR_(OptionalProto, "OptionalProto", nullptr)

}  // namespace onnx_light::onnx
