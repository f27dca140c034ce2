#include "onnx_light/runtime/subgraph.h"

#include <set>

namespace onnx_light {
namespace {

void AddNodeGraphs(const onnx::NodeProto& node, std::set<std::string>* free);

void AddGraph(const onnx::GraphProto& graph, std::set<std::string>* free) {
  std::set<std::string> defined;
  for (const onnx::ValueInfoProto& vi : graph.input)
    defined.insert(vi.name.get());
  for (const onnx::TensorProto& t : graph.initializer)
    defined.insert(t.name.get());
  for (const onnx::NodeProto& n : graph.node) {
    for (const std::string& out : n.output)
      defined.insert(out);
  }
  std::set<std::string> used;
  for (const onnx::NodeProto& n : graph.node) {
    for (const std::string& in : n.input) {
      if (!in.empty()) used.insert(in);
    }
    AddNodeGraphs(n, &used);
  }
  for (const onnx::ValueInfoProto& vi : graph.output)
    used.insert(vi.name.get());
  for (const std::string& name : used) {
    if (!defined.count(name)) free->insert(name);
  }
}

void AddNodeGraphs(const onnx::NodeProto& node, std::set<std::string>* free) {
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.g.has()) AddGraph(a.g.get(), free);
    for (const onnx::GraphProto& g : a.graphs)
      AddGraph(g, free);
  }
}

}  // namespace

std::vector<std::string> SubgraphFreeNames(const onnx::NodeProto& node) {
  std::set<std::string> free;
  AddNodeGraphs(node, &free);
  return {free.begin(), free.end()};
}

std::vector<std::string> GraphFreeNames(const onnx::GraphProto& graph) {
  std::set<std::string> free;
  AddGraph(graph, &free);
  return {free.begin(), free.end()};
}

}  // namespace onnx_light
