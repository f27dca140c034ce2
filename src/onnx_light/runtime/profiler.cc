#include "onnx_light/runtime/profiler.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <thread>

namespace onnx_light {
namespace {

void AppendJsonString(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

std::string Micros(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1000.0);
  return buf;
}

}  // namespace

void Profiler::Add(std::vector<ProfileEvent> events) {
  std::lock_guard<std::mutex> lock(mu_);
  if (events_.empty()) {
    events_ = std::move(events);
    return;
  }
  events_.insert(events_.end(), std::make_move_iterator(events.begin()),
                 std::make_move_iterator(events.end()));
}

std::vector<ProfileEvent> Profiler::Events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

void Profiler::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  events_.clear();
}

std::vector<OpTypeTime> Profiler::Summary() const {
  // Self time: a node that runs subgraphs (If, Loop, Scan) contains their nodes' events on
  // its thread; their time is theirs, not counted twice.
  std::vector<const ProfileEvent*> nodes;
  std::lock_guard<std::mutex> lock(mu_);
  for (const ProfileEvent& e : events_) {
    if (e.category == ProfileEvent::Category::kNode) nodes.push_back(&e);
  }
  std::sort(nodes.begin(), nodes.end(), [](const ProfileEvent* a, const ProfileEvent* b) {
    if (a->thread != b->thread) return a->thread < b->thread;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns;
    return a->duration_ns > b->duration_ns;  // the enclosing one first
  });
  std::vector<int64_t> self(nodes.size());
  std::vector<size_t> open;  // enclosing events, innermost last
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ProfileEvent& e = *nodes[i];
    self[i] = e.duration_ns;
    while (!open.empty()) {
      const ProfileEvent& p = *nodes[open.back()];
      if (p.thread == e.thread && e.start_ns < p.start_ns + p.duration_ns) break;
      open.pop_back();
    }
    if (!open.empty()) self[open.back()] -= e.duration_ns;
    open.push_back(i);
  }
  std::map<std::string, OpTypeTime> by_type;
  double all_ms = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    OpTypeTime& t = by_type[nodes[i]->op_type];
    const double ms = static_cast<double>(std::max<int64_t>(self[i], 0)) / 1e6;
    t.op_type = nodes[i]->op_type;
    t.total_ms += ms;
    ++t.calls;
    all_ms += ms;
  }
  std::vector<OpTypeTime> rows;
  for (auto& [type, t] : by_type) {
    t.share = all_ms > 0 ? t.total_ms / all_ms : 0;
    rows.push_back(t);
  }
  std::sort(rows.begin(), rows.end(), [](const OpTypeTime& a, const OpTypeTime& b) {
    return a.total_ms != b.total_ms ? a.total_ms > b.total_ms : a.op_type < b.op_type;
  });
  return rows;
}

std::string Profiler::ChromeTrace() const {
  const std::string pid = std::to_string(::getpid());
  std::string out = "[\n";
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < events_.size(); ++i) {
    const ProfileEvent& e = events_[i];
    const bool node = e.category == ProfileEvent::Category::kNode;
    out += "{\"cat\":";
    out += node ? "\"Node\"" : "\"Session\"";
    out += ",\"pid\":" + pid + ",\"tid\":" + std::to_string(e.thread);
    out += ",\"dur\":" + Micros(e.duration_ns) + ",\"ts\":" + Micros(e.start_ns);
    out += ",\"ph\":\"X\",\"name\":";
    AppendJsonString(out, e.name);
    out += ",\"args\":{";
    if (node) {
      out += "\"op_name\":";
      AppendJsonString(out, e.op_type);
      out += ",\"input_type_shape\":";
      AppendJsonString(out, e.input_shapes);
    }
    out += "}}";
    out += i + 1 < events_.size() ? ",\n" : "\n";
  }
  out += "]\n";
  return out;
}

Status Profiler::WriteChromeTrace(const std::string& path) const {
  const std::string trace = ChromeTrace();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return Status(StatusCode::kIoError, "cannot write the profile to '" + path + "'");
  }
  const bool ok = std::fwrite(trace.data(), 1, trace.size(), f) == trace.size();
  if (std::fclose(f) != 0 || !ok) {
    return Status(StatusCode::kIoError, "writing the profile to '" + path + "' failed");
  }
  return Status::Ok();
}

uint32_t Profiler::ThreadNumber() {
  return static_cast<uint32_t>(std::hash<std::thread::id>()(std::this_thread::get_id()) & 0xffffff);
}

}  // namespace onnx_light
